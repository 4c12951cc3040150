"""Pointwise operators: arithmetic, comparisons, unary math, activations."""
from .registry import defop
from . import meta as M

F = "pointwise"

# --- binary arithmetic -------------------------------------------------------
defop("add(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", meta=M.binary, inplace=True, out=True,
      numbers_as_tensors=True, family=F,
      grad={"self": "grad", "other": "maybe_mul(grad, alpha)"})
defop("sub(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", meta=M.binary_no_bool, inplace=True, out=True,
      numbers_as_tensors=True, family=F,
      grad={"self": "grad", "other": "maybe_mul(-grad, alpha)"})
defop("mul(Tensor self, Tensor other) -> Tensor", meta=M.binary, inplace=True, out=True,
      numbers_as_tensors=True, family=F,
      grad={"self": "grad * conj(other)", "other": "grad * conj(self)"})
defop("div(Tensor self, Tensor other, *, str? rounding_mode=None) -> Tensor", meta=M.div, inplace=True,
      out=True, numbers_as_tensors=True, family=F,
      grad={"self": "div_self_grad(grad, other, rounding_mode)",
            "other": "div_other_grad(grad, self, other, rounding_mode)"})
