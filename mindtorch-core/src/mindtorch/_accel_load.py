"""The optional compiled accelerator, mindtorch._accel (built from _accel.c at install time).

ACCEL is the module, or None when it was not built, fails to load, or the environment says
MINDTORCH_NO_ACCEL=1 (read once, at import). Each function it offers has a Python twin that stays
the reference; callers pick one of the two once, at import.
"""

import os

ACCEL = None
if os.environ.get("MINDTORCH_NO_ACCEL") != "1":
    try:
        from . import _accel as ACCEL  # type: ignore[attr-defined, no-redef]
    except ImportError:  # not built (no compiler at install): the Python versions run
        ACCEL = None
