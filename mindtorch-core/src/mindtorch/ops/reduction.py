"""Reductions: sum, mean, prod, max/min, var/std, norms, logsumexp, cumulative ops, softmax."""
from .registry import defop
from . import meta as M
from .. import _dtype as D

F = "reduction"


def _sum_meta(self, dim=None, keepdim=False, dtype=None):
    d = dtype or (D.int64 if self.dtype._kind < 2 else self.dtype)
    return M.TensorMeta(M.reduced_shape(self._shape, dim, keepdim), d)


defop("sum(Tensor self, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
      meta=_sum_meta, out=True, family=F,
      grad={"self": "expand_reduced(grad, dim, keepdim, shape_of(self))"})
