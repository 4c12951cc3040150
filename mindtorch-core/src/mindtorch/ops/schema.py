"""Parsing of torch-style operator signatures and the Op record.

    add(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
    transpose(Tensor(a) self, int dim0, int dim1) -> Tensor(a)

`Tensor(a)` in both a parameter and the return marks a view of that input;
`Tensor(a!)` marks an argument the op writes to, `Tensor(a!)[]` a list whose
tensors it writes to, `Tensor(a!)?` an optional one. Core bumps the version
counter of every such argument after the kernel (Op.mutated lists them).
"""

import re

_SIG = re.compile(r"^\s*([A-Za-z_][\w.]*)\s*\((.*)\)\s*->\s*(.+?)\s*$")


class Param:
    __slots__ = (
        "name",
        "type",
        "default",
        "has_default",
        "kwarg_only",
        "optional",
        "base",
        "is_list",
        "alias",
        "writes",
        "elem_optional",
    )

    def __init__(self, name, type_, default, has_default, kwarg_only):
        self.name = name
        self.type = type_
        self.default = default
        self.has_default = has_default
        self.kwarg_only = kwarg_only
        m = re.match(r"^(\w+)(\((\w)(!?)\))?(\?)?(\[\d*\])?(\?)?$", type_)
        if not m:
            raise ValueError(f"cannot parse parameter type {type_!r}")
        self.base = m.group(1)
        self.alias = m.group(3)
        self.writes = bool(m.group(4))
        self.elem_optional = m.group(5) is not None
        self.is_list = m.group(6) is not None
        self.optional = m.group(7) is not None or (m.group(5) is not None and not self.is_list)

    @property
    def is_tensor(self):
        return self.base == "Tensor" and not self.is_list

    def __repr__(self):
        return f"{self.type} {self.name}"


def _parse_default(text):
    text = text.strip()
    table = {"None": None, "True": True, "False": False, "[]": (), "inf": float("inf"), "-inf": float("-inf")}
    if text in table:
        return table[text]
    if text.startswith("[") and text.endswith("]"):
        return tuple(int(v) for v in text[1:-1].split(",") if v.strip())
    if text.startswith(("'", '"')):
        return text[1:-1]
    try:
        return int(text)
    except ValueError:
        return float(text)


def _split_params(text):
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur)
    return [p.strip() for p in parts]


def parse_signature(sig):
    m = _SIG.match(sig)
    if not m:
        raise ValueError(f"bad signature {sig!r}")
    name, params_text, returns = m.groups()
    params, kwarg_only = [], False
    for item in _split_params(params_text):
        if item == "*":
            kwarg_only = True
            continue
        decl, eq, default = item.partition("=")
        type_, _, pname = decl.strip().rpartition(" ")
        params.append(Param(pname, type_, _parse_default(default) if eq else None, bool(eq), kwarg_only))
    returns = returns.strip()
    if returns.startswith("("):
        rets = [r.strip().rsplit(" ", 1)[0] for r in _split_params(returns[1:-1])]
    else:
        rets = [returns]
    return name, params, rets


def return_names(sig: str) -> tuple:
    """The names a signature gives its outputs (`-> (Tensor values, Tensor indices)`); None for an unnamed one."""
    m = _SIG.match(sig)
    if not m:
        raise ValueError(f"bad signature {sig!r}")
    returns = m.group(3).strip()
    if not returns.startswith("(") or returns == "()":
        return ()
    parts = [r.strip().split(" ") for r in _split_params(returns[1:-1])]
    return tuple(p[1] if len(p) > 1 else None for p in parts)


class Op:
    """One operator overload as declared in the schema table.

    kernels maps a device type to that backend's implementation; the loader
    fills it, so the call path is a dict lookup.
    """

    __slots__ = (
        "name",
        "overload",
        "qualname",
        "signature",
        "params",
        "returns",
        "return_names",
        "meta",
        "derivative",
        "composite",
        "kernels",
        "is_view",
        "inplace",
        "variants",
        "numbers_as_tensors",
        "differentiable",
        "doc",
        "nondiff",
        "tensor_params",
        "family",
        "view_fn",
        "save_result",
        "device_param",
        "requires_grad_param",
        "mutated",
        "lean_view",
    )

    def __init__(
        self,
        signature,
        *,
        meta=None,
        derivative=None,
        composite=None,
        variants=("function", "method"),
        numbers_as_tensors=False,
        overload="",
        family="",
        view_fn=None,
        nondiff=(),
        unversioned=(),
        doc="",
    ):
        self.signature = signature
        self.name, self.params, self.returns = parse_signature(signature)
        self.return_names = return_names(signature)  # of several outputs; () for one
        self.overload = overload
        self.qualname = self.name + ("." + overload if overload else "")
        self.meta = meta
        self.derivative = derivative
        self.composite = composite
        self.kernels = {}
        self.is_view = any(r.startswith("Tensor(") and not r.endswith("!)") for r in self.returns)
        self.inplace = self.name.endswith("_") and not self.name.startswith("_")
        self.variants = tuple(variants)
        self.numbers_as_tensors = numbers_as_tensors
        self.differentiable = derivative is not None
        self.nondiff = nondiff
        self.doc = doc
        self.family = family
        self.view_fn = view_fn
        self.tensor_params = tuple(i for i, p in enumerate(self.params) if p.base == "Tensor")
        names = [p.name for p in self.params]
        self.device_param = names.index("device") if "device" in names else None
        self.requires_grad_param = names.index("requires_grad") if "requires_grad" in names else None
        for n in unversioned:
            if n not in names or not self.params[names.index(n)].writes:
                raise ValueError(f"{self.qualname}: unversioned {n!r} is not a parameter marked (a!)")
        # indices of the parameters annotated `(a!)`: dispatch bumps their version counters
        self.mutated = tuple(i for i, p in enumerate(self.params) if p.writes and p.name not in unversioned)
        # a view of its one (required) tensor argument: dispatch makes it without the general checks
        self.lean_view = (
            view_fn is not None
            and self.tensor_params == (0,)
            and self.params[0].is_tensor
            and not self.params[0].optional
            and not self.inplace
            and not self.mutated
        )

    @property
    def multi_view(self):
        """Several views recorded as one node (split, unbind): PyTorch refuses in-place writes to them."""
        return self.is_view and self.returns[0].endswith("[]") and self.derivative is not None

    def __repr__(self):
        return f"<op {self.signature}>"
