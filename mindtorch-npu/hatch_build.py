"""Wheel build hook: compile the host-path accelerators (src/mindtorch_npu/native/*.c) into the wheel.

A wheel that carries them is tagged for this interpreter and platform; without a C compiler or Python's
headers the wheel is pure Python and the backend runs the Python versions of the same functions.
"""

import importlib.util
import tempfile
from pathlib import Path

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

NATIVE = Path(__file__).resolve().parent / "src" / "mindtorch_npu" / "native"


def _native_build():
    spec = importlib.util.spec_from_file_location("_mindtorch_npu_native_build", NATIVE / "build.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


class CustomBuildHook(BuildHookInterface):
    def initialize(self, version, build_data):
        if self.target_name != "wheel":
            return
        if version == "editable":  # an editable install imports from the source tree: build there
            built = _native_build().build(NATIVE)
        else:  # a regular wheel: build aside, never writing into the source tree
            self._tmp = tempfile.TemporaryDirectory()
            built = _native_build().build(self._tmp.name)
            for path in built:
                build_data["force_include"][str(path)] = f"mindtorch_npu/native/{path.name}"
        if built:  # CPython extension modules: this interpreter's ABI, this platform
            build_data["pure_python"] = False
            build_data["infer_tag"] = True

    def finalize(self, version, build_data, artifact_path):
        tmp = getattr(self, "_tmp", None)
        if tmp is not None:
            tmp.cleanup()
