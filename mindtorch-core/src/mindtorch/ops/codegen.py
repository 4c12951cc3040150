"""Generate the public API from the op schema table.

For every op name this writes Python source for the function
(`mindtorch.add`), the Tensor method (`Tensor.add`), the in-place method
(`Tensor.add_`) and the operators (`__add__`, `__radd__`, `__iadd__`), and
compiles it once at import. Generated code binds arguments with Python's own
parameter handling, checks types like PyTorch's argument parser, and calls
the dispatcher.
"""

import threading

from .. import dispatch
from .._tensor import PLAIN_CLASSES, Tensor
from . import argparse_ as A
from .registry import BY_NAME

_SENTINELS = {}


def _pyname(param, method):
    if param.name == "self" and not method:
        return "input"
    return param.name


def _check_and_convert(p, n, fname, pos, allow_number, failure):
    """Lines checking parameter `n` and converting it in place."""
    if p.is_list:
        key = "Tensor?" if (p.base == "Tensor" and p.elem_optional) else p.base
        check, conv, expected = A.LIST_CHECKS[key]
    else:
        check, conv, expected = A.CHECKS[p.base]
    if p.base == "Tensor" and not p.is_list and allow_number:
        check = check + " or {n}.__class__ in _h_NUMS or _h_is_num({n})"
        expected = "Tensor"
    check = check.format(n=n)
    lines = []
    guard = []
    if p.has_default:
        guard.append(f"{n} is not _D_{n}")
    if p.optional:
        guard.append(f"{n} is not None")
    if p.is_list and p.base in ("int", "SymInt"):  # checked and converted in one pass
        body = [f"_v = _h_as_intlist({n})", f"if _v is None: {failure.format(n=n, pos=pos, expected=expected)}"]
        conv = f"{n} = _v"
        body.append(conv)
    else:
        body = [f"if not ({check}): {failure.format(n=n, pos=pos, expected=expected)}"]
        if conv:
            body.append(f"{n} = {conv.format(n=n)}")
    if check == "True" and not conv:
        return []
    if guard:
        lines.append(f"if {' and '.join(guard)}:")
        lines += ["    " + b for b in body]
    else:
        lines += body
    return lines


# functions taking their tensors as varargs: meshgrid(a, b) as well as meshgrid([a, b]), except those of
# LIST_REFUSED, which (as PyTorch's Python wrappers) take the tensors one by one only
LIST_REFUSED = {"broadcast_tensors", "block_diag", "cartesian_prod", "chain_matmul"}
VARARG_TENSOR_LISTS = {
    "meshgrid",
    "broadcast_tensors",
    "block_diag",
    "cartesian_prod",
    "chain_matmul",
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
}
# NumPy spellings PyTorch's argument parser accepts for these keywords: x.sum(axis=1, keepdims=True)
NUMPY_ALIASES = {"dim": ("axis",), "keepdim": ("keepdims",)}
# ops PyTorch binds through Python functions (torch/functional.py, torch/_tensor.py), which take no NumPy
# spellings: torch.split(t, 2, axis=0) is a TypeError
PYTHON_BOUND = {"split", "norm", "unique", "unique_consecutive"}
# ops PyTorch's argument parser lets take a Python number as the first operand: torch.add(2, t)
NUMBER_FIRST = {"add", "sub", "mul", "div", "floor_divide", "true_divide"}


def _signature_parts(op, method, with_out):
    """Python parameter list text, the names in schema order, and defaults."""
    params = op.params
    names = [_pyname(p, method) for p in params]
    parts, defaults = [], {}
    kw_started = False
    first_positional = 1 if method else 0
    varargs = None
    for i, (p, n) in enumerate(zip(params, names)):
        if method and i == 0:
            parts.append("self")
            continue
        if p.kwarg_only and not kw_started:
            parts.append("*")
            kw_started = True
        # `x.view(2, 3)`: a leading int list may be given as varargs when nothing positional follows
        if (
            i == first_positional
            and p.is_list
            and not p.optional
            and not p.has_default
            and not p.kwarg_only
            and (p.base in ("int", "SymInt") or (p.base == "Tensor" and op.name in VARARG_TENSOR_LISTS))
            and all(q.has_default or q.kwarg_only for q in params[i + 1 :])
        ):
            # positional sizes arrive in `_va_<name>`; the name itself stays a keyword (x.logsumexp(dim=-1))
            parts += ["*_va_" + n, f"{n}=_D_{n}"]
            defaults["_D_" + n] = _MISSING
            varargs = n
            kw_started = True
            continue
        if _unset_name(op, i, n, varargs) == "_U_" + n:  # unset, not the default: see _Unset
            defaults["_D_" + n] = p.default
            defaults["_U_" + n] = _Unset(p.default)
            parts.append(f"{n}=_U_{n}")
        elif p.has_default:
            defaults["_D_" + n] = p.default
            parts.append(f"{n}=_D_{n}")
        elif _aliasable(op, i, n, varargs):  # required, but may come under its NumPy name: checked in the body
            defaults["_D_" + n] = _MISSING
            parts.append(f"{n}=_D_{n}")
        else:
            parts.append(n)
    if with_out:
        if not kw_started:
            parts.append("*")
            kw_started = True
        parts.append("out=None")
    aliases = [a for i, n in enumerate(names) if _aliasable(op, i, n, varargs) for a in NUMPY_ALIASES[n]]
    if aliases:  # keyword-only parameters of their own: no **kwargs dict per call
        if not kw_started:
            parts.append("*")
        parts += [f"{a}=_MISSING" for a in aliases]
        defaults["_MISSING"] = _MISSING
    return parts, names, defaults, varargs


class _Missing:
    def __repr__(self):
        return "<required>"


_MISSING = _Missing()


class _Unset:
    """The default of a parameter that has a NumPy alias, until the call says otherwise: a marker of its
    own, since `cat(ts, 0, axis=1)` passes the very object that is dim's default (0) and must be refused;
    shown as the default."""

    __slots__ = ("default",)

    def __init__(self, default):
        self.default = default

    def __repr__(self):
        return repr(self.default)


def _unset_name(op, i, name, varargs):
    """The name of the marker parameter i holds while the call has not set it."""
    return f"_U_{name}" if op.params[i].has_default and _aliasable(op, i, name, varargs) else f"_D_{name}"


def _aliasable(op, i, name, varargs):
    """Whether parameter i may be given by a NumPy alias: it has a default, or every later positional one does
    (so it can take a "required" sentinel default); never the varargs sizes, nor a Python-bound op's."""
    params = op.params
    p = params[i]
    if name not in NUMPY_ALIASES or name == varargs or op.name in PYTHON_BOUND:
        return False
    return p.has_default or (not p.kwarg_only and all(q.has_default or q.kwarg_only for q in params[i + 1 :]))


def _unpack_varargs(op, names, v, fname, method):
    """Lines turning the positional sizes tuple `v` into the parameter's value."""
    if op.params[1 if method else 0].base == "Tensor":
        if op.name in LIST_REFUSED:
            return [
                f"if len({v}) == 1 and isinstance({v}[0], (list, tuple)): raise TypeError("
                f"'expected Tensor as element 0 in argument 0, but got ' + type({v}[0]).__name__)"
            ]
        return [f"if len({v}) == 1 and isinstance({v}[0], (list, tuple)): {v} = {v}[0]"]
    # `x.view(2, 3)` packs ints; `x.split([1, 3], 1)` gives the list itself, then the following positionals
    start = names.index(v) + 1
    follow = [n for p, n in zip(op.params[start:], names[start:]) if not p.kwarg_only]
    unset = {n: _unset_name(op, i, n, v) for i, n in enumerate(names)}
    lines = [
        f"if not ({v}[0].__class__ is int or _h_is_int({v}[0])):",
        f"    {v}, _rest = {v}[0], {v}[1:]",
        f"    if len(_rest) > {len(follow)}: raise TypeError('{fname}() takes at most {len(follow) + 1} "
        f"positional arguments after the sizes')",
    ]
    for k, n in enumerate(follow):
        lines += [
            f"    if len(_rest) > {k}:",
            f"        if {n} is not {unset[n]}: raise TypeError(\"{fname}() got multiple values for argument '{n}'\")",
            f"        {n} = _rest[{k}]",
        ]
    return lines


def _body(op, method, names, varargs, raise_errors):
    fname = op.name
    lines = []
    if varargs:
        v = varargs
        lines.append(f"if _va_{v}:")
        lines.append(f"    if {v} is not _D_{v}: raise TypeError(\"{fname}() got multiple values for argument '{v}'\")")
        lines.append(f"    {v} = _va_{v}")
        lines += ["    " + ln for ln in _unpack_varargs(op, names, v, fname, method)]
        if op.params[1 if method else 0].base == "Tensor":  # meshgrid() / block_diag(): no tensors at all
            lines.append(f"elif {v} is _D_{v}: {v} = ()")
        else:
            lines.append(f"elif {v} is _D_{v}: raise TypeError(\"{fname}() missing required argument '{v}'\")")
    aliased = [(p, n) for i, (p, n) in enumerate(zip(op.params, names)) if _aliasable(op, i, n, varargs)]
    if aliased:
        for i, (p, n) in enumerate(zip(op.params, names)):
            if not _aliasable(op, i, n, varargs):
                continue
            unset = _unset_name(op, i, n, varargs)
            for alias in NUMPY_ALIASES[n]:
                lines.append(f"if {alias} is not _MISSING:")
                lines.append(
                    f'    if {n} is not {unset}: raise TypeError("{fname}() got an unexpected keyword '
                    f"argument '{alias}'\")"
                )
                lines.append(f"    {n} = {alias}")
            if p.has_default:
                lines.append(f"if {n} is _U_{n}: {n} = _D_{n}")
        for p, n in aliased:
            if not p.has_default:
                lines.append(f"if {n} is _D_{n}: raise TypeError(\"{fname}() missing required argument '{n}'\")")
    failure = f"raise arg_error('{fname}', '{{n}}', {{pos}}, {{n}}, '{{expected}}')" if raise_errors else "return None"
    for i, (p, n) in enumerate(zip(op.params, names)):
        allow_number = op.numbers_as_tensors and (i > 0 or op.name in NUMBER_FIRST)
        lines += _check_and_convert(p, n, fname, i + 1, allow_number, failure)
    return lines


def _compile(src, env, name):
    code = compile(src, f"<mindtorch generated: {name}>", "exec")
    exec(code, env)
    return env[name]


def _base_env():
    env = {"_h_" + k: getattr(A, k) for k in dir(A) if not k.startswith("__")}
    from .._amp_state import ACTIVE
    from .._profiling import ACTIVE as PROFILING

    env.update(
        Tensor=Tensor,
        _plain=PLAIN_CLASSES,  # the set itself: Tensor, and nn.Parameter once it is defined
        _call=dispatch.call,
        _call_out=dispatch.call_out,
        arg_error=A.arg_error,
        _amp_active=ACTIVE,  # the dict itself: non-empty while autocast is on
        _profiling=PROFILING,  # the list itself: non-empty while a profiler records (dispatch.call times ops)
    )
    return env


def _fast_path(op, names):
    """Inline call path for the common case: every tensor argument is a plain Tensor on one
    device (Python numbers allowed where the schema takes them) and the backend has a kernel.
    Anything else falls through to dispatch.call, which handles all cases."""
    from .._amp_state import POLICY_OPS

    first = op.params[0] if op.params else None
    if (
        op.tensor_params != (0,)
        or op.inplace
        or op.mutated
        or op.device_param is not None
        or op.requires_grad_param is not None
    ):
        return _tensor_fast_path(op, names)
    lines = []
    if first.is_tensor and not first.optional:
        if op.view_fn is not None:
            lines = _view_fast_path(names)
        elif op.composite is not None and op.derivative is None and op.meta is None:
            lines = _composite_fast_path(names)
    elif _plain_tensor_list(first) and op.meta is not None and op.view_fn is None:
        lines = _list_fast_path(names)
    if not lines:
        return _tensor_fast_path(op, names)
    if op.name in POLICY_OPS:  # an op with an autocast policy takes the fast path only while autocast is off
        lines = ["if not _amp_active:"] + ["    " + ln for ln in lines]
    return lines


def _plain_tensor_list(p):
    return p.is_list and p.base == "Tensor" and not p.elem_optional


def _view_fast_path(names):
    """A view of one plain Tensor: the geometry rule and the view, recorded when grad is on."""
    first, args = names[0], ", ".join(names)
    return [
        f"if {first}.__class__ in _plain and not _profiling:",
        f"    _out = _make_view({first}, *_op.view_fn({args}))",
        f"    if {first}._requires_grad and _grad.enabled and _op.derivative is not None:",
        f"        _record(_op, ({args},), _out)",
        "    return _out",
    ]


def _composite_fast_path(names):
    """An op made of other ops, on a device with no kernel of its own: its decomposition, directly."""
    first, args = names[0], ", ".join(names)
    return [
        f"if {first}.__class__ in _plain and not _profiling and _kernels.get({first}.device.type) is None:",
        f"    return _op.composite({args})",
    ]


def _list_fast_path(names):
    """An op over a list of plain Tensors on one device (cat): the kernel directly."""
    first, args = names[0], ", ".join(names)
    return [
        "_dev = None",
        "_rg = False",
        f"for _t in {first}:",
        "    if _t.__class__ not in _plain or (_dev is not None and _t.device is not _dev):",
        "        _dev = None",
        "        break",
        "    _dev = _t.device",
        "    if _t._requires_grad: _rg = True",
        "if _dev is not None and not _profiling:",
    ] + ["    " + ln for ln in _kernel_call("_rg", args)]


def _kernel_call(needs, args):
    """Lines calling the device's kernel (recorded when `needs` and grad mode say so); nothing
    when the device has none."""
    return [
        "_k = _kernels.get(_dev.type)",
        "if _k is not None:",
        f"    if ({needs}) and _grad.enabled:",
        "        if _op.derivative is not None:",
        f"            _out = _k(_meta({args}), {args})",
        f"            _record(_op, ({args},), _out)",
        "            return _out",
        "    else:",
        f"        return _k(_meta({args}), {args})",
    ]


def _tensor_fast_path(op, names):
    if (
        op.view_fn is not None
        or op.inplace
        or op.mutated  # dispatch.call bumps the versions of what it writes
        or op.meta is None
        or op.device_param is not None
        or op.requires_grad_param is not None
    ):
        return []
    tparams = [i for i in op.tensor_params]
    if not tparams or tparams[0] != 0 or not op.params[0].is_tensor or op.params[0].optional:
        return []
    conds, grads = [], []
    first = names[0]
    for i in tparams[1:]:
        p, n = op.params[i], names[i]
        if p.is_list:
            return []
        alts = [f"({n}.__class__ in _plain and {n}.device is _dev)"]
        if op.numbers_as_tensors:
            alts.append(f"{n}.__class__ in _h_NUMS")
        if p.optional:
            alts.append(f"{n} is None")
        conds.append("(" + " or ".join(alts) + ")")
        grads.append(f"({n}.__class__ in _plain and {n}._requires_grad)")
    args = ", ".join(names)
    from .._amp_state import POLICY_OPS

    # an op with an autocast policy takes the fast path only while autocast is off
    guard = " and not _amp_active" if op.name in POLICY_OPS else ""
    lines = [f"if {first}.__class__ in _plain and not _profiling{guard}:", f"    _dev = {first}.device"]
    body_indent = "    "
    if conds:
        lines.append(f"    if {' and '.join(conds)}:")
        body_indent = "        "
    needs = " or ".join([f"{first}._requires_grad"] + grads)
    lines += [body_indent + ln for ln in _kernel_call(needs, args)]
    return lines


def _fast_env(op):
    from .._grad_mode import state

    return {"_kernels": op.kernels, "_meta": op.meta, "_grad": state, "_make_view": dispatch.make_view}


def _first_record(env):
    """The generated function's recorder on its first use: puts the op's own recorder (its plan
    compiled) in the function's globals, so later calls go straight to it."""
    from ..autograd.graph import recorder

    def first(op, args, out):
        rec = env["_record"] = recorder(op)
        return rec(op, args, out)

    return first


def _compile_op_function(lines, op, defaults, name):
    """Compile generated source that calls `op` (through the fast path or dispatch.call)."""
    env = _base_env()
    env.update(defaults)
    env.update(_fast_env(op))
    env["_record"] = _first_record(env)  # bound to this env, the generated function's globals
    env["_op"] = op
    return _compile("\n".join(lines), env, name)


def _make_single(op, method, fname_py):
    with_out = (not method) and ("out" in op.variants)
    parts, names, defaults, varargs = _signature_parts(op, method, with_out)
    lines = [f"def {fname_py}({', '.join(parts)}):"]
    lines += ["    " + l for l in _body(op, method, names, varargs, True)]
    args = "(" + ", ".join(names) + ("," if len(names) == 1 else "") + ")"
    if with_out:
        lines.append(f"    if out is not None: return _call_out(_op, out, {args})")
    if op.requires_grad_param is not None:
        lines.append(f"    _r = _call(_op, {args})")
        lines.append("    if requires_grad: _r.requires_grad_(True)")
        lines.append("    return _r")
    else:
        lines += ["    " + l for l in _fast_path(op, names)]
        lines.append(f"    return _call(_op, {args})")
    return _compile_op_function(lines, op, defaults, fname_py)


def _make_binder(op, method, k):
    with_out = (not method) and ("out" in op.variants)
    parts, names, defaults, varargs = _signature_parts(op, method, with_out)
    name = f"_bind{k}"
    lines = [f"def {name}({', '.join(parts)}):"]
    lines += ["    " + l for l in _body(op, method, names, varargs, False)]
    args = "(" + ", ".join(names) + ("," if len(names) == 1 else "") + ")"
    lines.append(f"    return {args}, {'out' if with_out else 'None'}")
    env = _base_env()
    env.update(defaults)
    return _compile("\n".join(lines), env, name)


def _overload_error(name, ops, args, kwargs, method):
    got = ", ".join([A.type_name(a) for a in args] + [f"{k}={A.type_name(v)}" for k, v in kwargs.items()])
    sigs = "\n".join(
        " * (" + ", ".join(f"{p.type} {_pyname(p, method)}" for p in o.params[(1 if method else 0) :]) + ")"
        for o in ops
    )
    return TypeError(
        f"{name}() received an invalid combination of arguments - got ({got}), but expected one of:\n{sigs}"
    )


def _max_positional(op, method):
    """How many positional arguments (self included) a binder of `op` accepts; None: any number."""
    _, names, _, varargs = _signature_parts(op, method, False)
    if varargs is not None:
        return None
    return sum(1 for p in op.params if not p.kwarg_only)


def _make_runner(op, k):
    """fn(bound args) calling `op` through its fast path when one applies, else dispatch.call."""
    if not op.params:
        return lambda args: dispatch.call(op, args)
    names = [f"_a{i}" for i in range(len(op.params))]
    lines = [f"def _run{k}(_args):", f"    {', '.join(names)}, = _args"]
    if op.requires_grad_param is not None:  # a factory: the flag applies to what it made
        lines.append("    _r = _call(_op, _args)")
        lines.append(f"    if {names[op.requires_grad_param]}: _r.requires_grad_(True)")
        lines.append("    return _r")
    else:
        lines += ["    " + ln for ln in _fast_path(op, names)]
        lines.append("    return _call(_op, _args)")
    return _compile_op_function(lines, op, {}, f"_run{k}")


def _make_overloaded(ops, method, fname_py):
    binders = [
        (op, _make_binder(op, method, k), _max_positional(op, method), _make_runner(op, k)) for k, op in enumerate(ops)
    ]
    call_out = dispatch.call_out
    name = ops[0].name

    def fn(*args, **kwargs):
        n = len(args)
        for op, bind, most, run in binders:
            if most is not None and n > most:
                continue  # cheaper than the binder's TypeError
            try:
                bound = bind(*args, **kwargs)
            except TypeError:
                continue
            if bound is None:
                continue
            bargs, out = bound
            if out is not None:
                return call_out(op, out, bargs)
            return run(bargs)
        raise _overload_error(name, ops, args[1:] if method else args, kwargs, method)

    fn.__name__ = fname_py
    return fn


def make_callable(ops, method, fname_py=None):
    fname_py = fname_py or ops[0].name
    fn = _make_single(ops[0], method, fname_py) if len(ops) == 1 else _make_overloaded(ops, method, fname_py)
    fn.__qualname__ = ("Tensor." if method else "") + fname_py
    fn.__module__ = "mindtorch"
    from .docs import docstring

    fn.__doc__ = docstring(ops, method)
    return fn


# operator -> (op name, swapped operands)
BINARY_OPERATORS = {
    "__add__": ("add", False),
    "__radd__": ("add", False),
    "__iadd__": ("add_", False),
    "__sub__": ("sub", False),
    "__rsub__": ("sub", True),
    "__isub__": ("sub_", False),
    "__mul__": ("mul", False),
    "__rmul__": ("mul", False),
    "__imul__": ("mul_", False),
    "__truediv__": ("div", False),
    "__itruediv__": ("div_", False),
    "__floordiv__": ("floor_divide", False),
    "__rfloordiv__": ("floor_divide", True),
    "__ifloordiv__": ("floor_divide_", False),
    "__mod__": ("remainder", False),
    "__rmod__": ("remainder", True),
    "__imod__": ("remainder_", False),
    "__pow__": ("pow", False),
    "__rpow__": ("pow", True),
    "__ipow__": ("pow_", False),
    "__matmul__": ("matmul", False),
    "__rmatmul__": ("matmul", True),
    "__and__": ("bitwise_and", False),
    "__rand__": ("bitwise_and", False),
    "__iand__": ("bitwise_and_", False),
    "__or__": ("bitwise_or", False),
    "__ror__": ("bitwise_or", False),
    "__ior__": ("bitwise_or_", False),
    "__xor__": ("bitwise_xor", False),
    "__rxor__": ("bitwise_xor", False),
    "__ixor__": ("bitwise_xor_", False),
    "__lshift__": ("bitwise_left_shift", False),
    "__rshift__": ("bitwise_right_shift", False),
    "__eq__": ("eq", False),
    "__ne__": ("ne", False),
    "__lt__": ("lt", False),
    "__le__": ("le", False),
    "__gt__": ("gt", False),
    "__ge__": ("ge", False),
}
# `number / t` is PyTorch's t.reciprocal() * number (its Tensor.__rtruediv__), not div(number, t): the
# two round differently in half precision, where mul takes the number in float32
RTRUEDIV = ("reciprocal", "mul")
UNARY_OPERATORS = {"__neg__": "neg", "__abs__": "abs", "__invert__": "bitwise_not", "__pos__": "positive"}


def _first_tensor_overload(name):
    """The overload of a binary op taking (Tensor self, Tensor other, ...)."""
    for op in BY_NAME.get(name, ()):
        ps = op.params
        if len(ps) >= 2 and ps[0].is_tensor and ps[1].base in ("Tensor", "Scalar") and not ps[1].is_list:
            return op
    return None


def _make_binary_operator(dunder, opname, swapped):
    op = _first_tensor_overload(opname)
    if op is None:
        return None
    if not swapped and all(p.has_default for p in op.params[2:]):
        return _make_dunder(op, dunder)
    extra = tuple(p.default for p in op.params[2:])
    if any(not p.has_default for p in op.params[2:]):
        return None
    call = dispatch.call
    nums = A.NUMS
    is_num = A.is_num
    if swapped:

        def fn(self, other):
            if not (other.__class__ in nums or is_num(other)):
                return NotImplemented
            return call(op, (other, self) + extra)
    elif extra:

        def fn(self, other):
            if not (other.__class__ is Tensor or isinstance(other, Tensor) or other.__class__ in nums or is_num(other)):
                return NotImplemented
            return call(op, (self, other) + extra)
    else:

        def fn(self, other):
            if not (other.__class__ is Tensor or isinstance(other, Tensor) or other.__class__ in nums or is_num(other)):
                return NotImplemented
            return call(op, (self, other))

    fn.__name__ = dunder
    return fn


def _make_rtruediv():
    reciprocal, mul = BY_NAME[RTRUEDIV[0]][0], _first_tensor_overload(RTRUEDIV[1])
    call = dispatch.call
    nums = A.NUMS
    is_num = A.is_num

    def __rtruediv__(self, other):
        if not (other.__class__ in nums or is_num(other)):
            return NotImplemented
        return call(mul, (call(reciprocal, (self,)), other))

    return __rtruediv__


def _make_dunder(op, dunder):
    """`a + b`: like the method, but unsupported operand types return NotImplemented."""
    names = [p.name for p in op.params]
    lines = [f"def {dunder}({names[0]}, {names[1]}):"]
    n = names[1]
    lines.append(
        f"    if not ({n}.__class__ is Tensor or isinstance({n}, Tensor) or {n}.__class__ in _h_NUMS "
        f"or _h_is_num({n})): return NotImplemented"
    )
    defaults = {}
    for p in op.params[2:]:
        defaults["_D_" + p.name] = p.default
        lines.append(f"    {p.name} = _D_{p.name}")
    lines += ["    " + l for l in _fast_path(op, names)]
    lines.append(f"    return _call(_op, ({', '.join(names)},))")
    return _compile_op_function(lines, op, defaults, dunder)


def _make_unary_operator(dunder, op):
    call = dispatch.call
    if dunder == "__invert__":

        def fn(self):
            if self.dtype.is_floating_point or self.dtype.is_complex:
                raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
            return call(op, (self,))
    else:

        def fn(self):
            return call(op, (self,))

    fn.__name__ = dunder
    return fn


# Compiling on first use happens under one lock: threads racing to the same first use get one function,
# and no thread sees a name between leaving `pending` and reaching the namespace. Reentrant, as compiling
# one callable may touch another lazy name.
_COMPILING = threading.RLock()


class _LazyMethod:
    """A Tensor method compiled on first use (keeps `import mindtorch` fast)."""

    def __init__(self, name, ops, owner):
        self.name, self.ops, self.owner = name, ops, owner

    def __get__(self, obj, cls=None):
        with _COMPILING:
            fn = self.owner.__dict__.get(self.name)
            if fn is self:  # the first thread here compiles; later ones find the function in place
                fn = make_callable(self.ops, True)
                setattr(self.owner, self.name, fn)
        return fn if obj is None else fn.__get__(obj, cls)


class LazyFunctions:
    """Module-level functions compiled on first access (through the package's __getattr__)."""

    def __init__(self, namespace):
        self.namespace = namespace
        self.pending = {}

    def get(self, name):
        with _COMPILING:
            ops = self.pending.get(name)
            if ops is None:  # not lazy, or compiled by another thread meanwhile
                return self.namespace.get(name)
            fn = self.namespace[name] = make_callable(ops, False)
            del self.pending[name]  # only once the function is in the namespace
        return fn

    def names(self):
        return list(self.pending)


def install(namespace, tensor_cls):
    """Attach functions to `namespace` (a dict) and methods to Tensor, compiled lazily."""
    lazy = LazyFunctions(namespace)
    for name, ops in BY_NAME.items():
        fops = [o for o in ops if "function" in o.variants]
        mops = [o for o in ops if "method" in o.variants]
        if fops and name not in namespace:
            lazy.pending[name] = fops
        if mops and not hasattr(_HANDWRITTEN, name):
            setattr(tensor_cls, name, _LazyMethod(name, mops, tensor_cls))
    for dunder, (opname, swapped) in BINARY_OPERATORS.items():
        if opname.endswith("_"):
            ops = [o for o in BY_NAME.get(opname, ()) if "method" in o.variants]
            if ops:
                setattr(tensor_cls, dunder, _LazyMethod(dunder, ops, tensor_cls))
            continue
        fn = _make_binary_operator(dunder, opname, swapped)
        if fn is not None:
            setattr(tensor_cls, dunder, fn)
    if all(n in BY_NAME for n in RTRUEDIV):
        tensor_cls.__rtruediv__ = _make_rtruediv()
    for dunder, opname in UNARY_OPERATORS.items():
        if opname in BY_NAME:
            setattr(tensor_cls, dunder, _make_unary_operator(dunder, BY_NAME[opname][0]))
    return lazy


class _HANDWRITTEN:
    """Tensor methods written by hand in _tensor.py win over generated ones."""

    for _n in (
        "size",
        "stride",
        "dim",
        "numel",
        "type",
        "float",
        "double",
        "half",
        "long",
        "int",
        "bool",
        "cpu",
        "conj",
        "requires_grad_",
        "backward",
        "register_hook",
        "retain_grad",
        "item",
        "tolist",
        "numpy",
        "view_as",
        "expand_as",
        "reshape_as",
        "type_as",
        "is_contiguous",
        "is_floating_point",
        "is_complex",
        "short",
        "char",
        "byte",
        "bfloat16",
        "element_size",
        "data_ptr",
        "storage_offset",
    ):
        locals()[_n] = True
