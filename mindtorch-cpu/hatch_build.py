"""Wheel build hook: compile the fused float32 kernels (src/mindtorch_cpu/native) into the wheel.

A wheel that carries them is tagged for this platform, and for this Python too when the libraries
also carry their CPython entry (build.py adds it where Python.h is found); without a C compiler the
wheel is pure Python and the backend uses its NumPy kernels.
"""

import importlib.util
import sysconfig
import tempfile
from pathlib import Path

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

NATIVE = Path(__file__).resolve().parent / "src" / "mindtorch_cpu" / "native"


def _native_build():
    spec = importlib.util.spec_from_file_location("_mindtorch_cpu_native_build", NATIVE / "build.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


class CustomBuildHook(BuildHookInterface):
    def initialize(self, version, build_data):
        if self.target_name != "wheel":
            return
        native = _native_build()
        if version == "editable":  # an editable install imports from the source tree: build there
            built = native.build(NATIVE)
        else:  # a regular wheel: build aside, never writing into the source tree
            self._tmp = tempfile.TemporaryDirectory()
            built = native.build(self._tmp.name)
            for path in built:
                build_data["force_include"][str(path)] = f"mindtorch_cpu/native/{path.name}"
        if not built:
            return
        build_data["pure_python"] = False
        if native.python_include() is not None:  # extension modules too: this Python's tag (cp3X-cp3X-platform)
            build_data["infer_tag"] = True
        else:  # plain shared libraries loaded by ctypes: any Python 3, this platform
            build_data["tag"] = "py3-none-" + sysconfig.get_platform().replace("-", "_").replace(".", "_")

    def finalize(self, version, build_data, artifact_path):
        tmp = getattr(self, "_tmp", None)
        if tmp is not None:
            tmp.cleanup()
