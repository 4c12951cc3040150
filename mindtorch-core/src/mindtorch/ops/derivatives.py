"""Compiling derivative formulas (the derivatives.yaml of mindtorch).

A formula is a Python expression over the op's parameters, `grad` (the
incoming gradient; `grads[i]` for multi-output ops), `result`, `needs` (which
parameters want a gradient, by index: for a formula yielding several) and the
names of formulas.py (its helpers and `torch`), nothing else: where an op is
declared does not change what its formula calls. It is compiled once into
a function; only the names a formula reads are saved for backward.

Formulas are written as for real numbers: d out / d in times grad. For
complex tensors PyTorch's convention is grad times the conjugate of that
derivative, which for a formula linear in grad is conj(formula(conj(grad))):
the compiled function does that when a gradient is complex, unless the
formula calls `conj` or a helper marked complex_aware (it handles complex
itself).
"""

import re

from . import formulas as _formulas


class Derivative:
    """An op's compiled derivative. Built on first use, so importing the table stays cheap."""

    __slots__ = (
        "fn",
        "saves",
        "saves_result",
        "inputs",
        "formulas",
        "uses_self",
        "shape_only",
        "_pending",
        "result_indices",
        "grad_indices",
    )

    def __init__(self, op, formulas):
        self.formulas = dict(formulas)
        self._pending = (op,)

    def __getattr__(self, name):
        # only reached for fields not built yet
        pending = object.__getattribute__(self, "_pending")
        if pending is None:
            raise AttributeError(name)
        self._pending = None
        _build(self, *pending)
        return object.__getattribute__(self, name)


def compile_derivative(op, formulas):
    names = [p.name for p in op.params]
    for pname in formulas:
        for part in pname.split(","):
            if part.strip() not in names:
                raise ValueError(f"{op.name}: derivative for unknown parameter {part.strip()!r}")
    return Derivative(op, formulas)


def _build(d, op):  # noqa: C901
    formulas = d.formulas
    names = [p.name for p in op.params]
    inputs, exprs = [], []
    for pname, expr in formulas.items():
        for part in pname.split(","):
            part = part.strip()
            if part not in names:
                raise ValueError(f"{op.name}: derivative for unknown parameter {part!r}")
        idxs = [names.index(p.strip()) for p in pname.split(",")]
        inputs.append(idxs)
        exprs.append(expr)
    # A tensor read only through shape_of(x) is saved as its shape, so the graph keeps no
    # tensor alive for it (and backward can run twice, as PyTorch's SumBackward does).
    shape_only = set()
    read = set()
    for e in exprs:
        read |= set(compile(e, "<derivative>", "eval").co_names)
    for i, n in enumerate(names):
        if n not in read or "shape_of(" not in "".join(exprs) or not op.params[i].is_tensor:
            continue
        uses = sum(len(re.findall(rf"\b{n}\b", e)) for e in exprs)
        via_shape = sum(e.count(f"shape_of({n})") for e in exprs)
        if uses == via_shape:
            exprs = [e.replace(f"shape_of({n})", n) for e in exprs]
            shape_only.add(i)
    used = set()
    for e in exprs:
        used |= set(compile(e, "<derivative>", "eval").co_names)
    saves = tuple(i for i, n in enumerate(names) if n in used)
    saves_result = "result" in used
    # Multi-output ops whose formulas read only result[k] keep only those outputs, so an
    # in-place op on another output (y = layer_norm(x); y.relu_()) leaves backward valid.
    result_idx = None
    if saves_result:
        refs = [r for e in exprs for r in re.findall(r"\bresult\b(\s*\[\s*\d+\s*\])?", e)]
        if refs and all(refs):
            result_idx = frozenset(int(r.strip()[1:-1]) for r in refs)
    d.result_indices = result_idx
    # Which incoming gradients the formulas read (`grad` is grads[0]); None: all of them. The engine
    # makes zeros only for these when an output got no gradient.
    grad_refs = [r for e in exprs for r in re.findall(r"\bgrads\b(\s*\[\s*\d+\s*\])?", e)]
    grad_idx = {int(r.strip()[1:-1]) for r in grad_refs} if all(grad_refs) else None
    if grad_idx is not None and any(re.search(r"\bgrad\b", e) for e in exprs):
        grad_idx.add(0)
    d.grad_indices = frozenset(grad_idx) if grad_idx is not None else None
    args = ", ".join(["grads", "needs", "result"] + [names[i] for i in saves])
    env = dict(vars(_formulas))
    aware = any(getattr(env.get(n), "complex_aware", False) for n in used)
    lines = [f"def _backward({args}):"]
    if not aware:
        test = "grads[0] is not None and grads[0].dtype._kind == 3" if len(op.returns) == 1 else "any_complex(grads)"
        lines += [f"    _cx = {test}", "    if _cx: grads = conj_all(grads)"]
    if "grad" not in names:  # a backward op's own `grad` parameter keeps its name; grads[0] is the incoming one
        lines.append("    grad = grads[0]")
    lines.append(f"    out = [None] * {len(names)}")
    for idxs, e in zip(inputs, exprs):
        if len(idxs) == 1:
            lines.append(f"    if needs[{idxs[0]}]: out[{idxs[0]}] = {e}")
        else:  # one expression yields several gradients
            cond = " or ".join(f"needs[{i}]" for i in idxs)
            lines.append(f"    if {cond}:")
            lines.append(f"        _r = {e}")
            for k, i in enumerate(idxs):
                lines.append(f"        out[{i}] = _r[{k}]")
    if not aware:
        lines.append("    if _cx: out = conj_all(out)")
    lines.append("    return out")
    src = "\n".join(lines)
    exec(compile(src, f"<derivative of {op.qualname}>", "exec"), env)
    flat_inputs = tuple(i for idxs in inputs for i in idxs)
    d.fn = env.pop("_backward")
    d.saves = saves  # parameter indices to save
    d.saves_result = saves_result  # whether `result` is read
    d.inputs = flat_inputs  # parameter indices that get gradients
    d.uses_self = "self" in used and 0 not in shape_only
    d.shape_only = frozenset(shape_only)  # parameter indices saved as their shape only
