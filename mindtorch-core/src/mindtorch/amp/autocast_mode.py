"""autocast: only its disabled form runs (see mindtorch.amp)."""
import functools
import warnings

import mindtorch

_DEFAULT_DTYPES = {"cpu": "bfloat16", "cuda": "float16", "npu": "float16"}


def is_autocast_available(device_type):
    return False


class autocast:
    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        self.device = device_type
        self.fast_dtype = dtype if dtype is not None else getattr(mindtorch, _DEFAULT_DTYPES.get(device_type,
                                                                                               "float16"))
        if enabled and device_type == "cuda" and not mindtorch.cuda.is_available():
            warnings.warn("User provided device_type of 'cuda', but CUDA is not available. Disabling",
                          UserWarning, stacklevel=2)
            enabled = False
        self._enabled = enabled

    def __enter__(self):
        if self._enabled:
            raise NotImplementedError(f"mindtorch.autocast(device_type={self.device!r}, enabled=True): mixed-"
                                      "precision autocasting is not implemented yet; run with enabled=False")
        return self

    def __exit__(self, *exc):
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self:
                return func(*args, **kwargs)
        return wrapper


def is_autocast_enabled(device_type=None):
    return False


def get_autocast_dtype(device_type):
    return getattr(mindtorch, _DEFAULT_DTYPES.get(device_type, "float16"))
