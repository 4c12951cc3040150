"""The __torch_function__ protocol's helpers (torch.overrides): has_torch_function and
handle_torch_function let a function hand its call to the arguments that override it.

mindtorch's own ops do not consult the protocol; these helpers serve code written against it (library
functions that check `has_torch_function(args)` first), and objects defining `__torch_function__` as
a classmethod get called as PyTorch calls them.
"""

__all__ = ["has_torch_function", "has_torch_function_unary", "has_torch_function_variadic", "handle_torch_function"]


def _overriding(args):
    """The arguments whose type defines __torch_function__, one per type, subclasses before their bases."""
    found = []
    for a in args:
        t = type(a)
        if getattr(t, "__torch_function__", None) is None or any(type(f) is t for f in found):
            continue
        at = next((i for i, f in enumerate(found) if issubclass(t, type(f))), len(found))
        found.insert(at, a)
    return found


def has_torch_function(relevant_args):
    """Whether any of the arguments overrides torch functions through __torch_function__."""
    return bool(_overriding(relevant_args))


def has_torch_function_unary(arg):
    return has_torch_function((arg,))


def has_torch_function_variadic(*args):
    return has_torch_function(args)


def handle_torch_function(public_api, relevant_args, *args, **kwargs):
    """The first overriding argument's __torch_function__(public_api, types, args, kwargs) that does not
    return NotImplemented; TypeError when all of them do."""
    overriding = _overriding(relevant_args)
    types = tuple(type(a) for a in overriding)
    for a in overriding:
        result = type(a).__torch_function__(public_api, types, args, kwargs)
        if result is not NotImplemented:
            return result
    raise TypeError(
        f"no implementation found for '{public_api.__module__}.{public_api.__name__}' on types that implement "
        f"__torch_function__: {list(types)}"
    )
