"""autocast: mixed precision by op, with PyTorch's CPU policies and torch_npu's npu policy.

Inside `autocast(device_type, dtype)` ops on that device's tensors cast their floating inputs first:
- lower precision (matmul, linear, convolutions, attention, ...): float32 / float16 / bfloat16 inputs go
  to the autocast dtype (float64 is left alone, as PyTorch does);
- float32 (losses, cdist, prod, quantile, cholesky, ...): half-precision inputs go to float32;
- promote (cat, stack): every floating input goes to the widest floating dtype among them.
On npu the lists are torch_npu's (_amp_state.NPU_POLICY): more float32 ops (exp, log, pow, norms, ...),
reductions and softmax computing in float32 through their dtype argument, more promote ops, and
binary_cross_entropy refused. Other ops run in whatever dtype their inputs have. The casts are ordinary differentiable ops, so
gradients reach float32 parameters in float32. CUDA is not available here: autocast("cuda") warns and
disables itself, as PyTorch does on a machine without CUDA.
"""

import functools
import warnings

import mindtorch

from .. import _amp_state as _state
from .._backends.registry import BACKENDS, KNOWN_DISTRIBUTIONS

__all__ = [
    "autocast",
    "is_autocast_available",
    "is_autocast_enabled",
    "get_autocast_dtype",
    "set_autocast_enabled",
    "set_autocast_dtype",
]

_DEFAULT_DTYPES = {"cpu": "bfloat16", "cuda": "float16", "npu": "float16"}
_ALLOWED = {"cpu": ("bfloat16", "float16"), "npu": ("float16", "bfloat16"), "cuda": ("float16", "bfloat16")}

LOWER, FP32, PROMOTE = _state.LOWER, _state.FP32, _state.PROMOTE

# device type -> autocast dtype, for the devices where autocast is on (read by dispatch on every op)
ACTIVE = _state.ACTIVE
_dtypes = {}


# the device types PyTorch's parser knows; a loaded backend's type is accepted as well
_PYTORCH_DEVICE_TYPES = [
    "cpu",
    "cuda",
    "ipu",
    "xpu",
    "mkldnn",
    "opengl",
    "opencl",
    "ideep",
    "hip",
    "ve",
    "fpga",
    "maia",
    "xla",
    "lazy",
    "vulkan",
    "mps",
    "meta",
    "hpu",
    "mtia",
    "privateuseone",
]


def _check_device_type(fn, device_type, position=1):
    if not isinstance(device_type, str):
        raise TypeError(
            f"{fn}(): argument 'device_type' (position {position}) must be str, not {type(device_type).__name__}"
        )
    if (
        device_type not in _PYTORCH_DEVICE_TYPES
        and device_type not in BACKENDS
        and device_type not in KNOWN_DISTRIBUTIONS
    ):
        known = ", ".join(_PYTORCH_DEVICE_TYPES)
        raise RuntimeError(f"Expected one of {known} device type at start of device string: {device_type}")


def is_autocast_available(device_type):
    return device_type in ("cpu", "npu")


def is_autocast_enabled(device_type=None):
    if device_type is None:  # the old no-argument form asks about cuda
        return "cuda" in ACTIVE
    _check_device_type("is_autocast_enabled", device_type)
    return device_type in ACTIVE


def get_autocast_dtype(device_type):
    _check_device_type("get_autocast_dtype", device_type)
    return _dtypes.get(device_type) or getattr(mindtorch, _DEFAULT_DTYPES.get(device_type, "float16"))


_UNSET = object()


def set_autocast_enabled(device_type, enabled=_UNSET):
    if enabled is _UNSET:  # the old one-argument form: the cuda switch
        device_type, enabled, position = "cuda", device_type, 1
    else:
        _check_device_type("set_autocast_enabled", device_type)
        position = 2
    if not isinstance(enabled, bool):
        raise TypeError(
            f"set_autocast_enabled(): argument 'enabled' (position {position}) must be bool, "
            f"not {type(enabled).__name__}"
        )
    if enabled:
        ACTIVE[device_type] = get_autocast_dtype(device_type)
    else:
        ACTIVE.pop(device_type, None)


def set_autocast_dtype(device_type, dtype):
    _check_device_type("set_autocast_dtype", device_type)
    if not isinstance(dtype, mindtorch.dtype):
        raise TypeError(
            f"set_autocast_dtype(): argument 'dtype' (position 2) must be torch.dtype, not {type(dtype).__name__}"
        )
    _dtypes[device_type] = dtype
    if device_type in ACTIVE:
        ACTIVE[device_type] = dtype


class autocast:
    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        self.device = device_type
        self.fast_dtype = dtype if dtype is not None else get_autocast_dtype(device_type)
        if enabled and device_type == "cuda" and not mindtorch.cuda.is_available():
            warnings.warn(
                "User provided device_type of 'cuda', but CUDA is not available. Disabling", UserWarning, stacklevel=2
            )
            enabled = False
        if enabled and device_type not in _ALLOWED:
            raise RuntimeError(f"User specified an unsupported autocast device_type '{device_type}'")
        if enabled and str(self.fast_dtype).split(".")[-1] not in _ALLOWED[device_type]:
            kinds = ", ".join(f"torch.{d}" for d in _ALLOWED[device_type])
            warnings.warn(
                f"In {device_type.upper()} autocast, but the target dtype is not supported. Disabling "
                f"autocast.\n{device_type.upper()} Autocast only supports dtypes of {kinds} currently.",
                UserWarning,
                stacklevel=2,
            )
            enabled = False
        if enabled and self.fast_dtype is mindtorch.bfloat16 and device_type != "cpu":
            _check_bf16(device_type)
        self._enabled = enabled

    def __enter__(self):
        self._prev = (self.device in ACTIVE, ACTIVE.get(self.device), _dtypes.get(self.device))
        if self._enabled:
            ACTIVE[self.device] = self.fast_dtype
        else:
            ACTIVE.pop(self.device, None)
        _dtypes[self.device] = self.fast_dtype
        return self

    def __exit__(self, *exc):
        was_on, dtype, chosen = self._prev
        if was_on:
            ACTIVE[self.device] = dtype
        else:
            ACTIVE.pop(self.device, None)
        if chosen is None:
            _dtypes.pop(self.device, None)
        else:
            _dtypes[self.device] = chosen
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self:
                return func(*args, **kwargs)

        return wrapper


def _check_bf16(device_type):
    """A device whose module says it has no bfloat16 refuses a bfloat16 autocast (PyTorch's cuda rule)."""
    module = BACKENDS[device_type].module if device_type in BACKENDS else None
    supported = getattr(module, "is_bf16_supported", None)
    if supported is not None and module.is_available() and not supported():
        raise RuntimeError(
            f"Current {device_type.upper()} Device ({module.get_device_name()}) does not support bfloat16. "
            "Please switch dtype to float16."
        )


# --- casting (dispatch calls cast_args for table ops; nn.functional wraps its non-op functions) --------
_LOW = ("float16", "bfloat16")


def _cast(x, dtype):
    if isinstance(x, mindtorch.Tensor):
        return x.to(dtype) if x.dtype.is_floating_point and x.dtype is not dtype else x
    if isinstance(x, (list, tuple)):
        return type(x)(_cast(v, dtype) for v in x)
    return x


def _device_of(args):
    for a in args:
        if isinstance(a, mindtorch.Tensor):
            return a.device.type
        if isinstance(a, (list, tuple)):
            d = _device_of(a)
            if d is not None:
                return d
    return None


def _tensors(args):
    for a in args:
        if isinstance(a, mindtorch.Tensor):
            yield a
        elif isinstance(a, (list, tuple)):
            yield from _tensors(a)


def cast_args(name, args, op=None):
    """`args` as the autocast policy of `name` on their device wants them (unchanged when no policy applies).
    `op` is the table op when `args` are its positional arguments (a dtype argument can then be set)."""
    dev = _device_of(args)
    target = ACTIVE.get(dev)
    if target is None:
        return args
    policy = _state.POLICIES.get(dev, _state.CPU_POLICY)
    if name in policy.lower:
        return tuple(_lower(a, target) for a in args)
    if name in policy.fp32:
        return tuple(_up(a) for a in args)
    if name in policy.fp32_dtype:
        return _fp32_dtype(args, op)
    if name in policy.promote:
        widest = _prioritize(target, [t.dtype for t in _tensors(args) if t.dtype.is_floating_point])
        return tuple(_cast(a, widest) for a in args)
    if name in policy.banned:
        raise RuntimeError(_BANNED[name])
    return args


_BANNED = {
    "binary_cross_entropy": "torch.nn.functional.binary_cross_entropy and torch.nn.BCELoss are unsafe to autocast.\n"
    "Many models use a sigmoid layer right before the binary cross entropy layer.\n"
    "In this case, combine the two layers using torch.nn.functional.binary_cross_entropy_with_logits\n"
    "or torch.nn.BCEWithLogitsLoss.  binary_cross_entropy_with_logits and BCEWithLogits are\n"
    "safe to autocast."
}


def _fp32_dtype(args, op):
    """A reduction or softmax whose first input is float16 / bfloat16 / float32 computes and returns float32:
    its dtype argument is set when the caller left it None; without an op (a Python-level function) its
    inputs go to float32, which gives the same result dtype."""
    first = args[0] if args else None
    if not (isinstance(first, mindtorch.Tensor) and first.dtype.is_floating_point and first.dtype.name != "float64"):
        return args
    i = _dtype_param(op)
    if i is None:
        return tuple(_up(a) for a in args)
    if i < len(args) and args[i] is None:
        return args[:i] + (mindtorch.float32,) + args[i + 1 :]
    return args


def _dtype_param(op):
    if op is None:
        return None
    return next((i for i, p in enumerate(op.params) if p.name == "dtype"), None)


_state.cast_args = cast_args  # dispatch casts through the shared state


def _prioritize(target, dtypes):
    """The dtype a promote op computes in: PyTorch's rule, taken in argument order (a half type other than
    the autocast dtype met before any float32 is an error there, so it is here)."""
    current = target
    for d in dtypes:
        if current.name == "float64":
            break
        if current.name == "float32":
            current = d if d.name == "float64" else current
        elif d.name in ("float32", "float64"):
            current = d
        elif d is not target:
            raise RuntimeError("Unexpected floating ScalarType in at::autocast::prioritize")
    return current


def _lower(a, target):
    if isinstance(a, mindtorch.Tensor):
        return a.to(target) if a.dtype.is_floating_point and a.dtype.name != "float64" and a.dtype is not target else a
    if isinstance(a, (list, tuple)):
        return type(a)(_lower(v, target) for v in a)
    return a


def _up(a):
    if isinstance(a, mindtorch.Tensor):
        return a.float() if a.dtype.name in _LOW else a
    if isinstance(a, (list, tuple)):
        return type(a)(_up(v) for v in a)
    return a


def cast_call(name, args, kwargs):
    """(args, kwargs) of a Python-level call cast by the policy of `name` (while autocast is on)."""
    return cast_args(name, args), {k: v for k, v in zip(kwargs, cast_args(name, tuple(kwargs.values())))}


def with_policy(name, fn):
    """Wrap a Python-level function (an nn.functional loss, conv1d, ...) with the policy of `name`."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if ACTIVE:
            args, kwargs = cast_call(name, args, kwargs)
        return fn(*args, **kwargs)

    return wrapper


# --- custom autograd Functions under autocast -------------------------------------------------------------
def _cast_inputs(value, device_type, dtype):
    """Floating tensors of device_type (float64 excepted) cast to dtype, through lists, tuples and dicts."""
    if isinstance(value, mindtorch.Tensor):
        eligible = value.is_floating_point() and value.device.type == device_type and value.dtype != mindtorch.float64
        return value.to(dtype) if eligible else value
    if isinstance(value, dict):
        return {k: _cast_inputs(v, device_type, dtype) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast_inputs(v, device_type, dtype) for v in value)
    return value


def _device_type_arg(device_type):
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")


def custom_fwd(fwd=None, *, device_type, cast_inputs=None):
    """Decorate a custom Function's forward for autocast. Without cast_inputs the forward runs under the
    caller's autocast state; with it, inside an autocast region of device_type, floating inputs are cast to
    cast_inputs and the forward runs with autocast off. The state is kept on ctx for custom_bwd."""
    _device_type_arg(device_type)
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def forward(ctx, *args, **kwargs):
        ctx._dtype = get_autocast_dtype(device_type)
        on = is_autocast_enabled(device_type)
        ctx._fwd_used_autocast = on and cast_inputs is None
        if cast_inputs is None or not on:
            return fwd(ctx, *args, **kwargs)
        with autocast(device_type, enabled=False):
            return fwd(
                ctx, *_cast_inputs(args, device_type, cast_inputs), **_cast_inputs(kwargs, device_type, cast_inputs)
            )

    return forward


def custom_bwd(bwd=None, *, device_type):
    """Decorate a custom Function's backward so it runs under the autocast state its forward ran under."""
    _device_type_arg(device_type)
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def backward(ctx, *args, **kwargs):
        with autocast(device_type, enabled=ctx._fwd_used_autocast, dtype=ctx._dtype):
            return bwd(ctx, *args, **kwargs)

    return backward
