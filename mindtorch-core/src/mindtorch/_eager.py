"""The eager fallback shared by mindtorch.compile and mindtorch.jit: the callable, unchanged."""

import warnings

_warned = set()


def warn_once(what):
    if what not in _warned:
        _warned.add(what)
        warnings.warn(
            f"mindtorch.{what}: mindtorch runs eagerly; the function or module is returned unchanged",
            UserWarning,
            stacklevel=3,
        )
