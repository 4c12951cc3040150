"""Parametrizations: a module's parameter or buffer replaced by a function of other tensors.

register_parametrization moves `module.<name>` into `module.parametrizations.<name>.original` (or
`original0`, `original1`, ... when the parametrization's right_inverse splits it into several tensors) and
gives the module a subclass of its class with a property `<name>` that computes the parametrized value on
each access; assigning to it goes through the parametrizations' right_inverse back to the originals."""

import collections.abc
import contextlib
import copy

import mindtorch

from ..._tensor import Tensor
from ..modules.container import ModuleDict, ModuleList
from ..parameter import Parameter

__all__ = [
    "cached",
    "ParametrizationList",
    "register_parametrization",
    "is_parametrized",
    "remove_parametrizations",
    "type_before_parametrizations",
    "transfer_parametrizations_and_params",
]

_cache_enabled = 0
_cache = {}


@contextlib.contextmanager
def cached():
    """Within the block each parametrized tensor is computed once, on first access, and then reused."""
    global _cache_enabled, _cache
    _cache_enabled += 1
    try:
        yield
    finally:
        _cache_enabled -= 1
        if not _cache_enabled:
            _cache = {}


def _register_parameter_or_buffer(module, name, value):
    if isinstance(value, Parameter):
        module.register_parameter(name, value)
    else:
        module.register_buffer(name, value)


def _set_in_place(dest, src):
    """dest takes src's data (shape included), as Tensor.set_ would; dest stays the same object."""
    dest.data = src


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, applied in order, with the unparametrized tensor(s) they start
    from as `original` (or `original0`, `original1`, ...)."""

    def __init__(self, modules, original, unsafe=False):
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        original_shape, original_dtype = original.shape, original.dtype
        with mindtorch.no_grad():
            new = original
            for module in reversed(self):
                if hasattr(module, "right_inverse"):
                    try:
                        new = module.right_inverse(new)
                    except NotImplementedError:
                        pass
        if not isinstance(new, Tensor) and not isinstance(new, collections.abc.Sequence):
            raise ValueError(
                "'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                f"Got {type(new).__name__}"
            )
        self.is_tensor = isinstance(new, Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        if self.is_tensor:
            self._register_original(original, new)
        else:
            self._register_originals(original, new)
        if not self.unsafe:
            self._check_keeps(original_shape, original_dtype)

    def _register_original(self, original, new):
        """`original` itself, holding right_inverse's tensor, becomes `original`."""
        if original.dtype != new.dtype:
            raise ValueError(
                "When `right_inverse` outputs one tensor, it may not change the dtype.\n"
                f"original.dtype: {original.dtype}\nright_inverse(original).dtype: {new.dtype}"
            )
        if original.device != new.device:
            raise ValueError(
                "When `right_inverse` outputs one tensor, it may not change the device.\n"
                f"original.device: {original.device}\n"
                f"right_inverse(original).device: {new.device}"
            )
        with mindtorch.no_grad():
            _set_in_place(original, new)
        _register_parameter_or_buffer(self, "original", original)

    def _register_originals(self, original, parts):
        """right_inverse's tensors become `original0`, `original1`, ... (parameters if `original` was one)."""
        for i, part in enumerate(parts):
            if not isinstance(part, Tensor):
                raise ValueError(
                    "'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                    f"Got element {i} of the sequence with type {type(part).__name__}."
                )
            if isinstance(original, Parameter):
                part = Parameter(part, original.requires_grad)
            part.requires_grad_(original.requires_grad)
            _register_parameter_or_buffer(self, f"original{i}", part)

    def _check_keeps(self, shape, dtype):
        """Without `unsafe`, the parametrized tensor keeps the unparametrized one's dtype and shape."""
        z = self()
        if not isinstance(z, Tensor):
            raise ValueError(f"A parametrization must return a tensor. Got {type(z).__name__}.")
        if z.dtype != dtype:
            raise ValueError(
                "Registering a parametrization may not change the dtype of the tensor, unless "
                f"`unsafe` flag is enabled.\nunparametrized dtype: {dtype}\nparametrized dtype: {z.dtype}"
            )
        if z.shape != shape:
            raise ValueError(
                "Registering a parametrization may not change the shape of the tensor, unless "
                f"`unsafe` flag is enabled.\nunparametrized shape: {shape}\nparametrized shape: {z.shape}"
            )

    def right_inverse(self, value):
        """Set the originals so that the parametrized tensor becomes `value`."""
        with mindtorch.no_grad():
            for module in reversed(self):
                if not hasattr(module, "right_inverse"):
                    raise RuntimeError(f"parametrization {type(module).__name__} does not implement right_inverse.")
                value = module.right_inverse(value)
            if self.is_tensor:
                if not isinstance(value, Tensor):
                    raise ValueError(f"`right_inverse` should return a tensor. Got {type(value).__name__}")
                if value.dtype != self.original.dtype:
                    raise ValueError(
                        f"The tensor returned by `right_inverse` has dtype {value.dtype} while "
                        f"`original` has dtype {self.original.dtype}"
                    )
                _set_in_place(self.original, value)
                return
            if not isinstance(value, collections.abc.Sequence):
                raise ValueError(f"'right_inverse' must return a sequence of tensors. Got {type(value).__name__}.")
            if len(value) != self.ntensors:
                raise ValueError(
                    f"'right_inverse' must return a sequence of tensors of length {self.ntensors}. "
                    f"Got a sequence of length {len(value)}."
                )
            for i, tensor in enumerate(value):
                original_i = getattr(self, f"original{i}")
                if not isinstance(tensor, Tensor):
                    raise ValueError(
                        "'right_inverse' must return a sequence of tensors or reference-type opaques. "
                        f"Got element {i} of type {type(tensor).__name__}."
                    )
                if original_i.dtype != tensor.dtype:
                    raise ValueError(
                        f"Tensor {i} returned by `right_inverse` has dtype {tensor.dtype} while "
                        f"`original{i}` has dtype {original_i.dtype}"
                    )
                _set_in_place(original_i, tensor)

    def forward(self):
        if self.is_tensor:
            x = self[0](self.original)
        else:
            x = self[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for module in list(self)[1:]:
            x = module(x)
        return x


def _inject_new_class(module):
    """Give `module` its own subclass, so properties added for parametrized names touch no other module."""
    cls = module.__class__

    def default_deepcopy(self, memo):
        replica = memo.get(id(self))
        if replica is not None:
            return replica
        replica = self.__new__(self.__class__)
        memo[id(self)] = replica
        replica.__dict__ = copy.deepcopy(self.__dict__, memo)
        return replica

    def getstate(self):
        raise RuntimeError(
            "Serialization of parametrized modules is only supported through state_dict(). See:\n"
            "https://pytorch.org/tutorials/beginner/saving_loading_models.html"
            "#saving-loading-a-general-checkpoint-for-inference-and-or-resuming-training"
        )

    namespace = {"__getstate__": getstate}
    if not hasattr(cls, "__deepcopy__"):
        namespace["__deepcopy__"] = default_deepcopy
    module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), namespace)


def _inject_property(module, tensor_name):
    if hasattr(module, tensor_name):
        raise AssertionError(f"Module already has an attribute named '{tensor_name}'")

    def get_parametrized(self):
        parametrization = self.parametrizations[tensor_name]
        if not _cache_enabled:
            return parametrization()
        key = (id(self), tensor_name)
        value = _cache.get(key)
        if value is None:
            value = _cache[key] = parametrization()
        return value

    def set_original(self, value):
        self.parametrizations[tensor_name].right_inverse(value)

    setattr(module.__class__, tensor_name, property(get_parametrized, set_original))


def _check_result(kind, value, ref, tensor_name):
    """The unsafe=False checks on a further parametrization: its output, or its right_inverse's, keeps
    module.<tensor_name>'s dtype and shape."""
    if kind == "forward":
        if not isinstance(value, Tensor):
            raise ValueError(f"A parametrization must return a tensor. Got {type(value).__name__}.")
        head = "Registering a parametrization may not change the {} of the tensor, unless the `unsafe` flag is enabled."
        theirs = f"parametrization(module.{tensor_name})"
        for attr in ("dtype", "shape"):
            if getattr(value, attr) != getattr(ref, attr):
                raise ValueError(
                    head.format(attr) + f"\nmodule.{tensor_name}.{attr}: {getattr(ref, attr)}\n"
                    f"{theirs}.{attr}: {getattr(value, attr)}"
                )
        return
    if not isinstance(value, Tensor):
        raise ValueError(f"parametrization.right_inverse must return a tensor. Got: {type(value).__name__}")
    for attr in ("dtype", "shape"):
        if getattr(value, attr) != getattr(ref, attr):
            raise ValueError(
                f"The tensor returned by parametrization.right_inverse must have the same {attr} as "
                f"module.{tensor_name}, unless the `unsafe` flag is enabled.\n"
                f"module.{tensor_name}.{attr}: {getattr(ref, attr)}\nreturned {attr}: "
                f"{getattr(value, attr)}"
            )


def register_parametrization(module, tensor_name, parametrization, *, unsafe=False):
    """Make module.<tensor_name> the output of `parametrization` (appended after any it already has)."""
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            y = getattr(module, tensor_name)
            x = parametrization(y)
            _check_result("forward", x, y, tensor_name)
            if hasattr(parametrization, "right_inverse"):
                try:
                    z = parametrization.right_inverse(x)
                except NotImplementedError:
                    pass
                else:
                    _check_result("right_inverse", z, y, tensor_name)
        module.parametrizations[tensor_name].append(parametrization)
        module.parametrizations[tensor_name].unsafe |= unsafe
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        parametrizations = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            _inject_new_class(module)
            module.parametrizations = ModuleDict()
        _inject_property(module, tensor_name)
        module.parametrizations[tensor_name] = parametrizations
    else:
        raise ValueError(
            f"Module '{module}' does not have a parameter, a buffer, or a parametrized element with "
            f"name '{tensor_name}'"
        )
    return module


def is_parametrized(module, tensor_name=None):
    """Whether module has any parametrization (or one on `tensor_name`)."""
    parametrizations = getattr(module, "parametrizations", None)
    if parametrizations is None or not isinstance(parametrizations, ModuleDict):
        return False
    if tensor_name is None:
        return len(parametrizations) > 0
    return tensor_name in parametrizations


def remove_parametrizations(module, tensor_name, leave_parametrized=True):
    """Undo register_parametrization on `tensor_name`: the tensor becomes a plain parameter or buffer again,
    holding its current parametrized value (leave_parametrized=True) or its original."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    parametrizations = module.parametrizations[tensor_name]
    if parametrizations.is_tensor:
        original = parametrizations.original
        if leave_parametrized:
            with mindtorch.no_grad():
                _set_in_place(original, getattr(module, tensor_name))
    elif leave_parametrized:
        t = getattr(module, tensor_name)
        original = Parameter(t.detach(), t.requires_grad) if t.requires_grad else t.detach()
    else:
        raise ValueError(
            "Cannot leave unparametrized (`leave_parametrized=False`) a tensor that is parametrized in "
            "terms of a sequence of tensors."
        )
    delattr(module.__class__, tensor_name)
    del module.parametrizations[tensor_name]
    _register_parameter_or_buffer(module, tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = module.__class__.__bases__[0]
    return module


def type_before_parametrizations(module):
    """The module's class as it was before any parametrization was registered."""
    return module.__class__.__bases__[0] if is_parametrized(module) else type(module)


def transfer_parametrizations_and_params(from_module, to_module, tensor_name=None):
    """Register from_module's parametrizations (of `tensor_name`, or all) on to_module, sharing their
    original tensors; to_module gets the parameter first where it has none of that name."""
    if is_parametrized(from_module, tensor_name):
        names = list(from_module.parametrizations) if tensor_name is None else [tensor_name]
        for name in names:
            if not hasattr(to_module, name):
                setattr(to_module, name, Parameter(getattr(from_module, name)))
            source = from_module.parametrizations[name]
            for param_func in source:
                register_parametrization(to_module, name, param_func)
            target = to_module.parametrizations[name]
            if hasattr(source, "original"):
                target.original = source.original
            else:
                i = 0
                while hasattr(source, f"original{i}"):
                    setattr(target, f"original{i}", getattr(source, f"original{i}"))
                    i += 1
    return to_module
