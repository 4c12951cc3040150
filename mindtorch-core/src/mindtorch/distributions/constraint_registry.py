"""The registries biject_to / transform_to that map a constraint to a transform from unconstrained reals
onto it (torch.distributions.constraint_registry)."""

from . import constraints
from .transforms import (
    AffineTransform,
    CatTransform,
    ComposeTransform,
    CorrCholeskyTransform,
    ExpTransform,
    IndependentTransform,
    LowerCholeskyTransform,
    PositiveDefiniteTransform,
    SigmoidTransform,
    SoftmaxTransform,
    StackTransform,
    StickBreakingTransform,
    identity_transform,
)

__all__ = ["ConstraintRegistry", "biject_to", "transform_to"]


class ConstraintRegistry:
    def __init__(self):
        self._registry = {}

    def register(self, constraint, factory=None):
        if factory is None:
            return lambda f: self.register(constraint, f)
        key = constraint if isinstance(constraint, type) else type(constraint)
        self._registry[key] = factory
        return factory

    def __call__(self, constraint):
        factory = self._registry.get(type(constraint))
        if factory is None:
            raise NotImplementedError(f"Cannot transform {type(constraint).__name__} constraints")
        return factory(constraint)


biject_to = ConstraintRegistry()
transform_to = ConstraintRegistry()


def _real(c):
    return identity_transform


def _positive(c):
    lower = getattr(c, "lower_bound", 0.0)
    return ExpTransform() if lower == 0 else ComposeTransform([ExpTransform(), AffineTransform(lower, 1)])


def _less_than(c):
    return ComposeTransform([ExpTransform(), AffineTransform(c.upper_bound, -1)])


def _interval(c):
    lo, hi = c.lower_bound, c.upper_bound
    if isinstance(lo, (int, float)) and isinstance(hi, (int, float)) and lo == 0 and hi == 1:
        return SigmoidTransform()
    return ComposeTransform([SigmoidTransform(), AffineTransform(lo, hi - lo)])


def _independent(c):
    return IndependentTransform(biject_to(c.base_constraint), c.reinterpreted_batch_ndims)


for _reg in (biject_to, transform_to):
    _reg.register(type(constraints.real), _real)
    _reg.register(type(constraints.positive), _positive)
    _reg.register(type(constraints.nonnegative), _positive)
    _reg.register(constraints.less_than, _less_than)
    _reg.register(constraints.interval, _interval)
    _reg.register(constraints.half_open_interval, _interval)
    _reg.register(constraints.independent, _independent)
biject_to.register(type(constraints.simplex), lambda c: StickBreakingTransform())
transform_to.register(type(constraints.simplex), lambda c: SoftmaxTransform())

for _reg in (biject_to, transform_to):
    _reg.register(type(constraints.corr_cholesky), lambda c: CorrCholeskyTransform())
    _reg.register(constraints.cat, lambda c, reg=_reg: CatTransform([reg(p) for p in c.cseq], c.dim, c.lengths))
    _reg.register(constraints.stack, lambda c, reg=_reg: StackTransform([reg(p) for p in c.cseq], c.dim))
transform_to.register(type(constraints.lower_cholesky), lambda c: LowerCholeskyTransform())
transform_to.register(type(constraints.positive_definite), lambda c: PositiveDefiniteTransform())
transform_to.register(type(constraints.positive_semidefinite), lambda c: PositiveDefiniteTransform())
