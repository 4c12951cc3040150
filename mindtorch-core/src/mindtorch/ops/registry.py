"""The op schema table: every operator declared once.

Family modules (pointwise.py, reduction.py, ...) call `defop` with a
torch-style signature, the op's shape-and-dtype rule (`meta`), its
derivative formulas and which variants exist. The public API and the Tensor
methods are generated from this table by codegen.py.
"""

from .._dtype import _cname, can_cast
from .._grad_mode import state as _grad
from .derivatives import compile_derivative
from .schema import Op

OPS: dict[str, Op] = {}  # qualified name ("max.dim") -> Op
BY_NAME: dict[str, list[Op]] = {}  # name -> [Op overloads in declaration order]


def _add(op):
    if op.qualname in OPS:
        raise ValueError(f"op {op.qualname} declared twice")
    OPS[op.qualname] = op
    BY_NAME.setdefault(op.name, []).append(op)
    return op


def defop(
    signature,
    *,
    meta=None,
    grad=None,
    composite=None,
    method=True,
    function=True,
    inplace=False,
    out=False,
    numbers_as_tensors=False,
    overload="",
    view=None,
    nondiff=(),
    inplace_composite=None,
    inplace_meta=None,
    family="",
    unversioned=(),
):
    """Declare an operator (and, with `inplace`, its `name_` form) and return its Op.

    signature          torch-style schema, e.g. "add(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor";
                       outputs may be named ("-> (Tensor values, Tensor indices)")
    meta               shape-and-dtype rule: called with the bound arguments, returns TensorMeta(s); it
                       raises PyTorch's exception class for bad shapes and dtypes
    grad               {"self": "grad * other", ...} derivative formulas, written with mindtorch ops;
                       names: the parameters, `grad` (or `grads` for several outputs), `result`, and
                       formulas.py (its helpers and `torch`)
    composite          a device-agnostic implementation in terms of other ops, used by a device
                       without a kernel of this name
    method, function   which public variants exist: `Tensor.name` and `mindtorch.name`
    inplace            also declare `name_`, writing into self (`Tensor(a!) self`)
    inplace_composite  the in-place form's composite (e.g. `copy_into_self(fn)`)
    inplace_meta       the in-place form's shape rule where it is stricter than `meta`'s
    out                the function variant accepts out=
    numbers_as_tensors Python numbers are accepted for Tensor parameters after the first (weak scalars)
    overload           the overload name: kernels are keyed by "name.overload"
    view               for view ops: fn(*args) -> (shape, stride, offset[, dtype]); done by core, no kernel
    nondiff            parameters that never get a gradient (indices, masks)
    family             the declaring family module's name ("pointwise", "random", ...), read by the
                       conformance kit and the parity sweeps
    unversioned        parameters marked (a!) whose version counter the write leaves alone, as PyTorch's
                       batch norm does for its running statistics (earlier saves of them stay valid)
    """
    variants = [v for v, on in (("function", function), ("method", method), ("out", out)) if on]
    op = Op(
        signature,
        meta=meta,
        composite=composite,
        variants=variants,
        numbers_as_tensors=numbers_as_tensors,
        overload=overload,
        view_fn=view,
        nondiff=nondiff,
        family=family,
        unversioned=unversioned,
    )
    if grad is not None:
        op.derivative = compile_derivative(op, grad)
        op.differentiable = True
    _add(op)
    if inplace:
        name = op.name + "_"
        sig = name + signature[len(op.name) :]
        sig = sig.replace("Tensor self", "Tensor(a!) self", 1)
        sig = sig[: sig.rindex("->")] + "-> Tensor(a!)"
        iop = Op(
            sig,
            meta=inplace_meta or meta,
            composite=inplace_composite,
            variants=("method",) + (("function",) if function else ()),
            numbers_as_tensors=numbers_as_tensors,
            overload=overload,
            nondiff=nondiff,
            family=family,
        )
        iop.inplace = True
        if grad is not None:
            iop.derivative = compile_derivative(iop, grad)
            iop.differentiable = True
        op_out_of_place[iop.qualname] = op
        _add(iop)
    return op


def copy_into_self(fn):
    """An in-place composite from an out-of-place one: self.copy_(fn(self, ...))."""

    def inplace(self, *args, **kwargs):
        # fn may save self for its backward; the copy_ below then changes it, so it works on a clone
        result = fn(self.clone() if _grad.enabled and self.requires_grad else self, *args, **kwargs)
        if result.dtype is not self.dtype and not can_cast(result.dtype, self.dtype):
            raise RuntimeError(
                f"result type {_cname(result.dtype)} can't be cast to the desired output type {_cname(self.dtype)}"
            )
        return self.copy_(result)

    return inplace


# in-place op qualname -> its out-of-place op (for the copy_ fallback)
op_out_of_place: dict[str, Op] = {}


def declare_inplace(signature, *, meta=None, grad=None, composite=None, overload="", function=False, family=""):
    """An in-place-only op (fill_, zero_, copy_, uniform_, ...)."""
    op = Op(
        signature,
        meta=meta,
        composite=composite,
        variants=("method",) + (("function",) if function else ()),
        overload=overload,
        family=family,
    )
    if 0 not in op.mutated:
        raise ValueError(f"in-place op {op.qualname} must declare `Tensor(a!) self`")
    op.inplace = True
    if grad is not None:
        op.derivative = compile_derivative(op, grad)
        op.differentiable = True
    return _add(op)
