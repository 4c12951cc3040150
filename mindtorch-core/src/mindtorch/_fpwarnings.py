"""NumPy floating-point warnings from mindtorch's own NumPy calls never reach the user.

PyTorch computes inf and nan silently, so "overflow encountered in cast" from a `.half()` is
noise. One warnings filter does it: its module test walks out of numpy/scipy/ml_dtypes frames
to the code that made the call, and matches when that is a mindtorch package (core or any
`mindtorch_*` backend). Filters are only consulted when a warning is raised, so the per-op
path pays nothing, and the user's own NumPy code still warns as usual.
"""

import re
import sys
import warnings

_MESSAGE = re.compile(r"(overflow|underflow|invalid value|divide by zero) encountered in ")
_LIBRARIES = ("numpy", "scipy", "ml_dtypes", "warnings")


def _top_package(name):
    return name.partition(".")[0]


class _CalledFromMindtorch:
    """Stands in for a filter's module regex: warnings calls `.match(module)` on it."""

    def match(self, module):
        f = sys._getframe(1)
        while f is not None:
            pkg = _top_package(f.f_globals.get("__name__", ""))
            if pkg == "mindtorch" or pkg.startswith("mindtorch_"):
                return True
            if pkg not in _LIBRARIES:
                return False
            f = f.f_back
        return False

    def __repr__(self):
        return "<NumPy call made from mindtorch>"


FILTER = ("ignore", _MESSAGE, RuntimeWarning, _CalledFromMindtorch(), 0)


def install():
    if FILTER not in warnings.filters:
        warnings.filters.insert(0, FILTER)
        getattr(warnings, "_filters_mutated", lambda: None)()
