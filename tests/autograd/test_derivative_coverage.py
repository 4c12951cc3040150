"""Every differentiable op in the table has a derivative formula, and the formulas pass gradcheck."""
import numpy as np

import mindtorch as torch
from mindtorch.ops.registry import OPS
from mindtorch.autograd import gradcheck

# Ops that legitimately have no derivative (PyTorch treats them as non-differentiable:
# integer/bool results, indices, or sampling). The in-place form `name_` is covered too.
NON_DIFFERENTIABLE = {
    # comparisons and predicates: bool results
    "eq", "ne", "lt", "le", "gt", "ge", "greater", "greater_equal", "less", "less_equal", "not_equal",
    "isclose", "isfinite", "isinf", "isnan", "isneginf", "isposinf", "isreal", "signbit", "equal",
    "logical_and", "logical_or", "logical_xor", "logical_not", "all", "any",
    # integer-only arithmetic
    "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "bitwise_left_shift", "bitwise_right_shift",
    "gcd", "lcm",
    # indices and counts
    "argmax", "argmin", "argwhere", "argsort", "nonzero", "count_nonzero", "searchsorted", "bucketize",
    "_bincount", "bincount", "_unique", "unique", "unique_consecutive", "histc",
    # sampling (random draws have no gradient w.r.t. their parameters in PyTorch)
    "multinomial", "bernoulli", "poisson", "normal", "uniform_", "normal_", "random_", "exponential_",
    "geometric_", "log_normal_", "cauchy_", "randint_like", "rand_like", "randn_like",
    # in-place renormalisation of an embedding table under no_grad
    "_embedding_renorm_",
}

# Differentiable in PyTorch but no formula yet: each entry is a bug to fix (kept visible here so that
# this test still fails for any *new* op without a formula).
KNOWN_MISSING = {
    "linalg_svdvals",
}


def _needs_formula(op):
    if not op.tensor_params or op.view_fn is not None or op.composite is not None:
        return False
    base = op.name[:-1] if op.name.endswith("_") and not op.name.startswith("_") else op.name
    return op.name not in NON_DIFFERENTIABLE and base not in NON_DIFFERENTIABLE


def test_every_differentiable_op_has_a_derivative():
    missing = sorted(q for q, op in OPS.items()
                     if _needs_formula(op) and op.derivative is None and op.name not in KNOWN_MISSING)
    assert not missing, f"ops without a derivative formula (add grad=... or list them above): {missing}"


def test_allow_list_detects_a_new_op():
    # the rule itself must flag a differentiable-looking op without a formula
    class Fake:
        name = "brand_new_op"
        tensor_params = (0,)
        view_fn = None
        composite = None
        derivative = None
    assert _needs_formula(Fake)
    Fake.name = "eq_"
    assert not _needs_formula(Fake)


def _x(shape=(2, 3), lo=0.2, hi=0.8, seed=0):
    rng = np.random.default_rng(seed)
    return torch.tensor(rng.uniform(lo, hi, shape), dtype=torch.float64).requires_grad_()


# Explicit samples: op qualname -> (fn, inputs). Ops not listed get an automatic sample when all their
# required parameters are tensors (unary: one (2,3) input in (0.2, 0.8); binary: two).
SAMPLES = {
    "sum": lambda: (lambda a: a.sum(), (_x(),)),
    "sum.dim_IntList": lambda: (lambda a: torch.sum(a, 1), (_x(),)),
    "clone": lambda: (lambda a: a.clone(), (_x(),)),
    "_to_copy": lambda: (lambda a: torch.ops._to_copy(a, dtype=torch.float64), (_x(),)),
    "view": lambda: (lambda a: a.view(3, 2), (_x(),)),
    "transpose": lambda: (lambda a: a.transpose(0, 1), (_x(),)),
    "t": lambda: (lambda a: a.t(), (_x(),)),
    "permute": lambda: (lambda a: a.permute(1, 0), (_x(),)),
    "expand": lambda: (lambda a: a.expand(2, 2, 3), (_x(),)),
    "squeeze": lambda: (lambda a: a.squeeze(), (_x((2, 1, 3)),)),
    "squeeze.dims": lambda: (lambda a: a.squeeze(1), (_x((2, 1, 3)),)),
    "unsqueeze": lambda: (lambda a: a.unsqueeze(1), (_x(),)),
    "select.int": lambda: (lambda a: a.select(1, 2), (_x(),)),
    "narrow": lambda: (lambda a: a.narrow(1, 1, 2), (_x(),)),
    "diagonal": lambda: (lambda a: a.diagonal(), (_x((3, 3)),)),
    "unfold": lambda: (lambda a: a.unfold(1, 2, 1), (_x(),)),
    "alias": lambda: (lambda a: torch.ops.alias(a), (_x(),)),
    "as_strided": lambda: (lambda a: a.as_strided((2, 2), stride=(3, 1), storage_offset=1), (_x(),)),
    "acosh": lambda: (torch.acosh, (_x(lo=1.5, hi=2.5),)),
    "arccosh": lambda: (torch.arccosh, (_x(lo=1.5, hi=2.5),)),
    "clamp": lambda: (lambda a: torch.clamp(a, 0.3, 0.7), (_x(),)),
    "clip": lambda: (lambda a: torch.clip(a, 0.3, 0.7), (_x(),)),
    "clamp.Tensor": lambda: (lambda a, lo: torch.clamp(a, lo), (_x(), _x((3,), seed=1))),
    "clip.Tensor": lambda: (lambda a, lo: torch.clip(a, lo), (_x(), _x((3,), seed=1))),
    "bmm": lambda: (torch.bmm, (_x((2, 2, 3)), _x((2, 3, 2), seed=1))),
    "mm": lambda: (torch.mm, (_x(), _x((3, 2), seed=1))),
    "matmul": lambda: (torch.matmul, (_x(), _x((3, 2), seed=1))),
    "mv": lambda: (torch.mv, (_x(), _x((3,), seed=1))),
    "dot": lambda: (torch.dot, (_x((3,)), _x((3,), seed=1))),
    "roll": lambda: (lambda a: torch.roll(a, 1, 1), (_x(),)),
    "embedding": lambda: (lambda w: torch.embedding(w, torch.tensor([[0, 2], [1, 1]])), (_x((3, 2)),)),
    "add": lambda: (lambda a, b: torch.add(a, b, alpha=2.0), (_x(), _x((3,), seed=1))),
    "sub": lambda: (lambda a, b: torch.sub(a, b, alpha=0.5), (_x(), _x((3,), seed=1))),
}


def _auto_sample(op):
    req = [p for p in op.params if not p.has_default]
    if not req or any(p.base != "Tensor" or p.type.startswith("Tensor[") for p in req) or len(req) > 2:
        return None
    fn = getattr(torch, op.name, None)
    if fn is None:
        return None
    return fn, tuple(_x(seed=k) for k in range(len(req)))


# Not gradcheck-able as a plain function, with the reason.
SKIP = {
    "floor_divide": "PyTorch does not implement its derivative either (formula raises on purpose)",
    "as_strided": "as_strided_backward in grad_helpers calls as_strided positionally (codegen rejects it)",
}


def _differentiable_ops():
    return sorted(q for q, op in OPS.items() if op.derivative is not None and not op.inplace)


def test_gradcheck_sweep(capsys):
    checked, failed, no_sample = [], [], []
    for q in _differentiable_ops():
        op = OPS[q]
        if q in SKIP or op.family == "random":  # random draws differ between evaluations
            no_sample.append(q)
            continue
        sample = SAMPLES[q]() if q in SAMPLES else _auto_sample(op)
        if sample is None:
            no_sample.append(q)
            continue
        fn, inputs = sample
        try:
            ok = gradcheck(fn, inputs, raise_exception=False)
        except Exception as e:  # noqa: BLE001 - reported below with the op name
            ok = f"{type(e).__name__}: {e}"[:200]
        (checked if ok is True else failed).append((q, ok))
    total = len(_differentiable_ops())
    with capsys.disabled():
        print(f"\ngradcheck sweep: {len(checked)}/{total} differentiable ops checked; "
              f"no sample for {len(no_sample)}: {no_sample}")
    assert not failed, f"gradcheck failed: {failed}"
    assert len(checked) >= 20
