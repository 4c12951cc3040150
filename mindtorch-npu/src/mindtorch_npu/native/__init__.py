"""The optional compiled host path of the npu backend (built from this folder's *.c at install time).

`load("launch")` is the module mindtorch_npu.native._launch, or None when it was not built, fails to load, or
the environment says MINDTORCH_NPU_NO_NATIVE=1 (read once per module, at import of its user).
MINDTORCH_NPU_REQUIRE_NATIVE=1 turns a missing module into an ImportError (CI checks the wheel carries them).
Every function a module offers has a Python twin that stays the reference; callers pick one at import.
"""

import importlib
import os


def load(name):
    if os.environ.get("MINDTORCH_NPU_NO_NATIVE") == "1":
        return None
    try:
        return importlib.import_module(f"{__name__}._{name}")
    except ImportError:
        if os.environ.get("MINDTORCH_NPU_REQUIRE_NATIVE") == "1":
            raise
        return None
