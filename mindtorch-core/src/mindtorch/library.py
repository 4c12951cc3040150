"""mindtorch.library: custom operators defined in Python (torch.library.custom_op and its registrations).

The op runs its Python implementation eagerly and is opaque to autograd, as in PyTorch: gradients flow
through it only by the formula given to register_autograd. register_fake is recorded for programs that
call it; mindtorch does no tracing, so the fake implementation is never needed.
"""

import mindtorch
from mindtorch.autograd import Function

__all__ = ["custom_op", "register_fake", "register_autograd", "register_kernel", "CustomOpDef"]

_OPS = {}


class CustomOpDef:
    def __init__(self, name, fn, mutates_args):
        self._name = name
        self._qualname = name.replace("::", ".") + ".default"
        self._init_fn = fn
        self._kernels = {}
        self._fake = None
        self._backward = None
        self._setup_context = None
        self._mutates_args = mutates_args
        self.__name__ = getattr(fn, "__name__", name)
        self.__doc__ = fn.__doc__
        self._function = self._make_function()

    def _make_function(self):
        op = self

        class _Op(Function):
            @staticmethod
            def forward(ctx, *args):
                out = op._kernel_for(args)(*args)
                if op._setup_context is not None:
                    op._setup_context(ctx, args, out)
                return out

            @staticmethod
            def backward(ctx, *grads):
                if op._backward is None:
                    raise RuntimeError(
                        f"Trying to backward through {op._qualname} but no autograd formula was "
                        "registered. Please use register_autograd to add one."
                    )
                result = op._backward(ctx, *grads)
                return result if isinstance(result, tuple) else (result,)

        _Op.__name__ = f"GeneratedBackwardFor_{self._name.replace('::', '_')}_default"
        return _Op

    def _kernel_for(self, args):
        for a in args:
            if isinstance(a, mindtorch.Tensor) and a.device.type in self._kernels:
                return self._kernels[a.device.type]
        return self._init_fn

    def __call__(self, *args, **kwargs):
        if kwargs:  # bind keywords to positions so autograd sees every input
            import inspect

            bound = inspect.signature(self._init_fn).bind(*args, **kwargs)
            bound.apply_defaults()
            args = tuple(bound.arguments.values())
        return self._function.apply(*args)

    def register_fake(self, fn=None):
        def record(f):
            self._fake = f
            return f

        return record(fn) if fn is not None else record

    def register_autograd(self, backward, *, setup_context=None):
        self._backward, self._setup_context = backward, setup_context

    def register_kernel(self, device_types, fn=None):
        def record(f):
            for d in [device_types] if isinstance(device_types, str) else device_types:
                self._kernels[d] = f
            return f

        return record(fn) if fn is not None else record


def custom_op(name, fn=None, /, *, mutates_args, device_types=None, schema=None):
    def make(f):
        op = CustomOpDef(name, f, mutates_args)
        if device_types is not None:
            op.register_kernel(device_types, f)
        _OPS[name] = op
        return op

    return make(fn) if fn is not None else make


def _op(op):
    return _OPS[op] if isinstance(op, str) else op


def register_fake(op, func=None, /, *, lib=None, _stacklevel=1):
    return _op(op).register_fake(func)


def register_autograd(op, backward, /, *, setup_context=None, lib=None):
    _op(op).register_autograd(backward, setup_context=setup_context)


def register_kernel(op, device_types, func=None, /, *, lib=None):
    return _op(op).register_kernel(device_types, func)
