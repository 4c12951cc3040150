"""The op table on ACLNN (simulator): the conformance kit over every op the npu runs, and what the simulator's
phase 1 refuses (as the op documents), with nothing leaked on the refusal."""

import mindtorch as torch
import numpy as np
import pytest
from mindtorch.testing.conformance.checks import CHECKS
from mindtorch.testing.conformance.pytest_plugin import conformance_tests
from mindtorch_npu.chip_coverage import LACKS_PATTERN
from npu_helpers import live_counts, run_python

# every op with an npu path must conform (a missing op is skipped), on its own samples, and every structural
# check (training_step: AdamW on an MLP); what the chip declares it lacks (more_copies: the wide unsigned
# integers and complex numbers it cannot hold) is skipped as unsupported
test_conformance = conformance_tests("npu", dtypes=False, checks=list(CHECKS), unsupported=LACKS_PATTERN)

FLOATS = [torch.float32, torch.float16, torch.bfloat16, torch.float64]
INTS = [torch.int8, torch.uint8, torch.int16, torch.int32, torch.int64]


def rnd(shape, dtype, seed=0):
    g = np.random.default_rng(seed)
    if dtype is torch.bool:
        return torch.tensor(g.random(shape) > 0.5)
    if dtype.is_floating_point:
        return torch.tensor(g.standard_normal(shape) * 2, dtype=torch.float64).to(dtype)
    return torch.tensor(g.integers(0 if dtype is torch.uint8 else -9, 10, size=shape), dtype=dtype)


def close(got, want):
    got = got.cpu()
    assert got.dtype == want.dtype and tuple(got.shape) == tuple(want.shape)
    tol = {torch.float16: 2e-3, torch.bfloat16: 1e-2, torch.float32: 2e-6, torch.float64: 1e-12}.get(want.dtype, 0)
    np.testing.assert_allclose(
        got.to(torch.float64).numpy(), want.to(torch.float64).numpy(), rtol=tol, atol=tol, equal_nan=True
    )


NARROW = {("tanh", torch.float64), ("sigmoid", torch.float64), ("relu", torch.float64)}


@pytest.mark.parametrize("dtype", FLOATS + INTS + [torch.bool])
@pytest.mark.parametrize("op", ["exp", "sqrt", "tanh", "sigmoid", "erf", "floor", "neg", "abs", "relu", "sign"])
def test_unary_on_a_strided_view_matches_cpu(op, dtype):
    """Inputs the operator does not take (exp of int32, neg of uint8, floor of bfloat16) go through a dtype
    it does, per the chip table, with PyTorch's result."""
    if (op, dtype) in NARROW:
        pytest.skip("the op's doc has no float64: test_float64_is_never_narrowed covers it")
    fn = getattr(torch, op)
    x = rnd((5, 6), dtype)
    try:
        want = fn(x.t()[1:, ::2])
    except RuntimeError as e:  # the op does not take this dtype on cpu: the npu refuses it too
        with pytest.raises(type(e)):
            fn(x.to("npu").t()[1:, ::2])
        return
    close(fn(x.to("npu").t()[1:, ::2]), want)


@pytest.mark.parametrize("dtype", FLOATS + [torch.int32, torch.int64, torch.bool])
@pytest.mark.parametrize("dim,keepdim", [(None, False), ((0,), True), ((1, 2), False), ((-1,), True), ((), False)])
def test_reductions_match_cpu(dtype, dim, keepdim):
    x = rnd((3, 4, 5), dtype)
    xn = x.to("npu").transpose(0, 2)
    xc = x.transpose(0, 2)
    if dim is None:
        close(torch.sum(xn), torch.sum(xc))
        close(torch.amax(xn), torch.amax(xc))
    else:
        close(torch.sum(xn, dim, keepdim), torch.sum(xc, dim, keepdim))
        close(torch.amin(xn, dim, keepdim), torch.amin(xc, dim, keepdim))
    if dtype.is_floating_point and dim is not None:
        close(torch.mean(xn, dim, keepdim), torch.mean(xc, dim, keepdim))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_softmax_and_log_softmax_match_cpu(dtype, dim):
    x = rnd((4, 7), dtype)
    close(torch.softmax(x.to("npu"), dim), torch.softmax(x, dim))
    close(torch.log_softmax(x.to("npu").t(), dim), torch.log_softmax(x.t(), dim))


@pytest.mark.parametrize("mode", [None, "trunc", "floor"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.int8])
def test_div_modes_match_cpu(mode, dtype):
    a, b = rnd((3, 4), dtype, 1), rnd((4,), dtype, 2)
    if not dtype.is_floating_point:
        b = torch.where(b == 0, torch.ones_like(b), b)
    close(torch.div(a.to("npu"), b.to("npu"), rounding_mode=mode), torch.div(a, b, rounding_mode=mode))
    close(torch.div(a.to("npu"), 3, rounding_mode=mode), torch.div(a, 3, rounding_mode=mode))


def test_comparisons_where_and_logical_ops_match_cpu():
    a, b = rnd((3, 4), torch.float32, 1), rnd((3, 4), torch.int64, 2)
    an, bn = a.to("npu"), b.to("npu")
    for op in ("eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor", "maximum"):
        close(getattr(torch, op)(an, bn), getattr(torch, op)(a, b))
    close(torch.gt(an, 0.5), torch.gt(a, 0.5))
    close(torch.where(an > 0, an, bn), torch.where(a > 0, a, b))
    close(torch.where(an > 0, an, 0.0), torch.where(a > 0, a, 0.0))


def _phase1_refuses(call, match):
    from mindtorch_npu.aclnn import CACHE

    # The descriptor cache keeps what a launch described, a refused launch's too (bounded, by design);
    # whether that adds a descriptor depends on what earlier tests left cached. Emptied on both sides,
    # the counts show only what the refusal itself left alive.
    CACHE.clear()
    before = live_counts()
    with pytest.raises(RuntimeError, match=match):
        call()
    CACHE.clear()
    assert live_counts() == before


def test_phase1_refuses_what_the_ops_document_and_leaks_nothing():
    from mindtorch_npu.aclnn import DType, IntArray, launch
    from mindtorch_npu.copy import empty

    dev = torch.device("npu", 0)
    x, out = torch.ones(3, 4, device="npu"), empty((3,), torch.float32, dev)
    torch.npu.synchronize()
    # ReduceSum: the dtype argument must be out's dtype; a dim past the rank is refused
    _phase1_refuses(
        lambda: launch("ReduceSum", x, IntArray([1]), False, DType(torch.float64), out),
        r"aclnnReduceSumGetWorkspaceSize.*161002",
    )
    _phase1_refuses(
        lambda: launch("ReduceSum", x, IntArray([2]), False, DType(torch.float32), out),
        r"aclnnReduceSumGetWorkspaceSize.*161002",
    )
    # out of the wrong shape (keepDim false: [3])
    _phase1_refuses(lambda: launch("Amax", x, IntArray([0]), False, out), r"aclnnAmaxGetWorkspaceSize.*161002")
    # Softmax: dim out of range; DivMod: mode outside 0..2; SWhere: a float condition
    _phase1_refuses(lambda: launch("Softmax", x, 2, x), r"aclnnSoftmaxGetWorkspaceSize.*161002")
    _phase1_refuses(lambda: launch("DivMod", x, x, 3, x), r"aclnnDivModGetWorkspaceSize.*161002")
    _phase1_refuses(lambda: launch("SWhere", x, x, x, x), r"aclnnSWhereGetWorkspaceSize.*161002")
    # IsFinite takes floating dtypes only (aclnnIsFinite.md); a comparison writes any out dtype but Exp cannot
    # write a float into an int out
    b = torch.ones(3, dtype=torch.bool, device="npu")
    _phase1_refuses(lambda: launch("IsFinite", b, b), r"aclnnIsFiniteGetWorkspaceSize.*161002.*DT_BOOL")
    i = torch.ones(3, dtype=torch.int32, device="npu")
    _phase1_refuses(lambda: launch("Exp", i, i), r"aclnnExpGetWorkspaceSize.*161002")
    # Gelu: no integer dtypes
    _phase1_refuses(lambda: launch("Gelu", i, i), r"aclnnGeluGetWorkspaceSize.*161002")


def test_float64_is_never_narrowed_to_an_op_s_float32():
    x = torch.ones(3, dtype=torch.float64, device="npu")
    for fn in (torch.tanh, torch.sigmoid, torch.nn.functional.silu):
        with pytest.raises(TypeError, match=r"does not take torch.float64 on Ascend910B1.*without loss"):
            fn(x)


@pytest.mark.parametrize("soc,family", [("Ascend910A", "910A"), ("Ascend310P3", "310P"), ("Ascend910B2", "910B")])
def test_one_backend_for_every_chip_the_capability_table_decides(soc, family):
    res = run_python(
        """
        import mindtorch as torch
        from mindtorch_npu import chips
        from mindtorch_npu.module import backend_info
        info = backend_info()
        x = torch.tensor([0.5, -1.5, 2.0])
        assert torch.allclose(torch.softmax(x.to("npu"), 0).cpu(), torch.softmax(x, 0))
        y = x.to(torch.bfloat16).to("npu")          # holding bytes is a copy; computing on them needs the chip
        try:
            torch.exp(y)
            print(info["chip family"], "bf16-ok")
        except TypeError as e:
            assert "Ascend" in str(e) and "bfloat16" in str(e), e
            print(info["chip family"], "bf16-refused")
    """,
        {"ACLSIM_SOC_NAME": soc},
    )
    assert res.returncode == 0, res.stderr[-2000:]
    assert res.stdout.split() == [family, "bf16-ok" if family == "910B" else "bf16-refused"]


def test_the_simulator_refuses_bfloat16_off_910b_class_chips():
    res = run_python(
        """
        import mindtorch as torch
        from mindtorch_npu.aclnn import device_launch
        from mindtorch_npu.copy import empty
        y = torch.ones(3, dtype=torch.bfloat16).to("npu")
        try:  # past the chip table's gate: the device's own answer
            device_launch("Sqrt", y, empty((3,), torch.bfloat16, y.device))
        except RuntimeError as e:
            print("161002" in str(e) and "BFLOAT16 is not supported on Ascend910A" in str(e))
    """,
        {"ACLSIM_SOC_NAME": "Ascend910A"},
    )
    assert res.returncode == 0, res.stderr[-2000:]
    assert res.stdout.strip() == "True"


def test_index_ops_cumsum_argmax_cat_linear_match_cpu():
    w, x = rnd((6, 4), torch.float32, 3), rnd((3, 4), torch.float32, 4)
    idx = torch.tensor([[0, 5], [-1, 2]])
    close(torch.nn.functional.embedding(idx.abs().to("npu"), w.to("npu")), torch.nn.functional.embedding(idx.abs(), w))
    close(
        torch.index_select(w.to("npu").t(), 1, torch.tensor([5, 0, 5]).to("npu")),
        torch.index_select(w.t(), 1, torch.tensor([5, 0, 5])),
    )
    with pytest.raises(IndexError, match="out of bounds"):
        torch.index_select(w.to("npu"), 0, torch.tensor([6]).to("npu")).cpu()  # read at the next sync
    for dtype in (torch.float32, torch.int32, torch.bool):
        v = rnd((3, 5), dtype, 5)
        close(torch.cumsum(v.to("npu"), 1), torch.cumsum(v, 1))
    close(torch.argmax(x.to("npu"), 1, keepdim=True), torch.argmax(x, 1, keepdim=True))
    close(torch.argmin(x.to("npu").t()), torch.argmin(x.t()))
    close(torch.cat([x.to("npu"), w.to("npu")[:2]], 0), torch.cat([x, w[:2]], 0))
    close(
        torch.nn.functional.linear(x.to("npu"), w.to("npu"), w[:, 0].to("npu")),
        torch.nn.functional.linear(x, w, w[:, 0]),
    )
    m = x > 0
    close(x.to("npu").masked_fill(m.to("npu"), -1.5), x.masked_fill(m, -1.5))


@pytest.mark.parametrize("dtype", FLOATS + INTS)
def test_masked_fill_with_a_0_dim_value_fills_its_value(dtype):
    x, m = rnd((3, 4), dtype), rnd((3, 4), torch.bool, 1)
    value = torch.tensor(2.5).to(dtype)  # bfloat16 travels to the host as its bits
    close(x.to("npu").masked_fill(m.to("npu"), value.to("npu")), x.masked_fill(m, value))
    close(x.to("npu").masked_fill_(m.to("npu"), value.to("npu")), x.clone().masked_fill_(m, value))


def test_random_on_the_device_follows_the_generator_state():
    from mindtorch.plugins import default_generator

    gen = default_generator(torch.device("npu", 0))
    torch.manual_seed(11)
    a = torch.rand(2000, device="npu")
    state = gen.get_state()
    b = torch.randn(2000, device="npu")
    u = a.cpu().numpy()
    assert u.min() >= 0 and u.max() < 1 and abs(u.mean() - 0.5) < 0.03
    n = b.cpu().numpy()
    assert abs(n.mean()) < 0.08 and abs(n.std() - 1) < 0.08
    gen.set_state(state)  # set_state replays the same draws; the next draw differs
    close(torch.randn(2000, device="npu"), b.cpu())
    assert not np.array_equal(torch.randn(2000, device="npu").cpu().numpy(), n)
    x = torch.empty(4000, device="npu").bernoulli_(0.25).cpu().numpy()
    assert set(np.unique(x)) <= {0.0, 1.0} and abs(x.mean() - 0.25) < 0.03
    r = torch.randint(3, 9, (500,), device="npu").cpu().numpy()
    assert r.min() == 3 and r.max() == 8


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int64, torch.bool])
def test_max_min_along_a_dim_give_values_and_first_indices(dtype):
    x = rnd((4, 5), dtype, 7)
    for fn in (torch.max, torch.min):
        for dim, keep in ((0, False), (1, True), (-1, False)):
            v, i = fn(x.to("npu").t(), dim, keepdim=keep)
            wv, wi = fn(x.t(), dim, keepdim=keep)
            close(v, wv)
            close(i, wi)


def test_clamp_tril_and_predicates_match_cpu():
    x = rnd((4, 5), torch.float32, 8)
    x[0, 0], x[1, 1] = float("nan"), float("inf")
    xn = x.to("npu")
    close(torch.clamp(xn, -0.5, 0.5), torch.clamp(x, -0.5, 0.5))
    close(torch.clamp(xn, min=xn[0]), torch.clamp(x, min=x[0]))
    close(torch.tril(xn, -1), torch.tril(x, -1))
    close(torch.triu(xn.t(), 1), torch.triu(x.t(), 1))
    for fn in (torch.isfinite, torch.isposinf, torch.isneginf):
        close(fn(xn), fn(x))


def test_sort_topk_gather_scatter_match_cpu():
    x = rnd((4, 6), torch.float32, 9)
    x[1, 2] = float("nan")
    xn = x.to("npu")
    for desc in (False, True):
        v, i = torch.sort(xn, 1, descending=desc)
        wv, wi = torch.sort(x, 1, descending=desc)
        close(v, wv)
        close(i, wi)
    q = rnd((5, 7), torch.int64, 10)
    v, i = torch.sort(q.to("npu").t(), 0, stable=True)
    wv, wi = torch.sort(q.t(), 0, stable=True)
    close(v, wv)
    close(i, wi)
    y = rnd((3, 8), torch.float32, 11)
    for largest in (True, False):
        v, i = torch.topk(y.to("npu"), 3, 1, largest=largest)
        wv, wi = torch.topk(y, 3, 1, largest=largest)
        close(v, wv)
        close(i, wi)
    idx = torch.tensor([[0, 2, 1], [3, 3, 0]])
    close(torch.gather(y.to("npu"), 1, idx.to("npu")), torch.gather(y, 1, idx))
    src = rnd((2, 3), torch.float32, 12)
    close(
        torch.zeros(2, 8, device="npu").scatter_add(1, idx.to("npu"), src.to("npu")),
        torch.zeros(2, 8).scatter_add(1, idx, src),
    )
    close(torch.zeros(2, 8, device="npu").scatter(1, idx.to("npu"), 2.5), torch.zeros(2, 8).scatter(1, idx, 2.5))
    with pytest.raises(RuntimeError, match="out of bounds"):
        torch.gather(y.to("npu"), 1, torch.tensor([[8]]).to("npu")).cpu()  # read at the next sync


def test_remainder_fmod_all_any_match_cpu():
    a, b = rnd((3, 4), torch.float32, 13), rnd((4,), torch.float32, 14)
    for fn in (torch.remainder, torch.fmod):
        close(fn(a.to("npu"), b.to("npu")), fn(a, b))
        close(fn(a.to("npu"), -1.5), fn(a, -1.5))
    i, j = rnd((3, 4), torch.int64, 15), torch.tensor([3, -2, 5, -7])
    close(torch.remainder(i.to("npu"), j.to("npu")), torch.remainder(i, j))
    close(torch.fmod(i.to("npu"), j.to("npu")), torch.fmod(i, j))
    m = a > 0
    for fn in (torch.all, torch.any):
        close(fn(m.to("npu")), fn(m))
        close(fn(a.to("npu"), 1), fn(a, 1))
        close(fn(torch.zeros(0, 3, device="npu"), 0), fn(torch.zeros(0, 3), 0))


def test_multinomial_on_the_device():
    torch.manual_seed(5)
    p = torch.tensor([[0.0, 1.0, 3.0, 0.0], [2.0, 0.0, 0.0, 2.0]])
    draws = torch.multinomial(p.to("npu"), 4000, replacement=True).cpu().numpy()
    assert set(np.unique(draws[0])) == {1, 2} and set(np.unique(draws[1])) == {0, 3}
    assert abs((draws[0] == 2).mean() - 0.75) < 0.03
    no_rep = torch.multinomial(p.to("npu"), 2).cpu().numpy()
    assert sorted(no_rep[0]) == [1, 2] and sorted(no_rep[1]) == [0, 3]
    torch.manual_seed(5)
    again = torch.multinomial(p.to("npu"), 4000, replacement=True).cpu().numpy()
    assert np.array_equal(draws, again)
    with pytest.raises(RuntimeError, match="element < 0"):
        torch.multinomial(torch.tensor([1.0, -1.0]).to("npu"), 1)
    with pytest.raises(RuntimeError, match="sum of probabilities"):
        torch.multinomial(torch.zeros(3).to("npu"), 1)


def test_parameterised_activations_match_cpu():
    x = rnd((3, 5), torch.float32, 16)
    x[0, 0], x[0, 1], x[0, 2] = float("nan"), float("inf"), -float("inf")
    xn = x.to("npu")
    F = torch.nn.functional
    close(F.leaky_relu(xn, 0.2), F.leaky_relu(x, 0.2))
    close(F.softplus(xn, 2.0, 3.0), F.softplus(x, 2.0, 3.0))
    close(F.hardtanh(xn, -0.5, 0.25), F.hardtanh(x, -0.5, 0.25))
    close(torch.nan_to_num(xn), torch.nan_to_num(x))
    close(torch.nan_to_num(xn, 1.0, 2.0, -3.0), torch.nan_to_num(x, 1.0, 2.0, -3.0))
    # the operator's doc lists no float64: the chip's refusal, not a complaint about the default replacements
    with pytest.raises(RuntimeError, match="float64' on npu .*aclnnNanToNum supports"):
        torch.nan_to_num(x.to(torch.float64).to("npu"))


def test_eye_linspace_flip_match_cpu():
    close(torch.eye(3, 5, device="npu"), torch.eye(3, 5))
    for steps in (1, 2, 7):
        close(torch.linspace(-2.0, 3.0, steps, device="npu"), torch.linspace(-2.0, 3.0, steps))
    x = rnd((3, 4, 2), torch.int32, 17)
    close(torch.flip(x.to("npu").transpose(0, 1), [0, 2]), torch.flip(x.transpose(0, 1), [0, 2]))


@pytest.mark.parametrize(
    "soc,lacks", [("Ascend910A", ["conv2d", "max_pool2d"]), ("Ascend310P3", ["max_pool2d"]), ("Ascend910B2", [])]
)
def test_operators_a_chip_lacks_are_refused_by_name_on_that_chip(soc, lacks):
    """chips.MISSING_OPS (from the ops' product lists) and the simulator's ABSENT table agree: the kernel
    raises NotImplementedError naming the chip, and a direct launch fails in phase 1."""
    res = run_python(
        """
        import mindtorch as torch
        import mindtorch.nn.functional as F
        from mindtorch_npu.aclnn import IntArray, launch
        from mindtorch_npu.copy import empty
        x, w = torch.randn(1, 2, 6, 6).to("npu"), torch.randn(3, 2, 3, 3).to("npu")
        for name, fn in (("conv2d", lambda: F.conv2d(x, w)), ("max_pool2d", lambda: F.max_pool2d(x, 2)),
                         ("avg_pool2d", lambda: F.avg_pool2d(x, 2))):
            try:
                fn().cpu()
                print(name, "runs")
            except NotImplementedError as e:
                assert "Ascend" in str(e) and "npu" in str(e), e
                print(name, "refused")
        try:  # the device itself: phase 1 of the operator fails on that chip
            launch("MaxPool2dWithIndices", x, IntArray([2, 2]), IntArray([2, 2]), IntArray([0, 0]), IntArray([1, 1]),
                   False, empty((1, 2, 3, 3), torch.float32, x.device), empty((1, 2, 3, 3), torch.int64, x.device))
            print("device runs")
        except RuntimeError as e:
            print("device refused" if "not supported on" in str(e) else str(e))
    """,
        {"ACLSIM_SOC_NAME": soc},
    )
    assert res.returncode == 0, res.stderr[-2000:]
    got = dict(line.split(" ", 1) for line in res.stdout.strip().splitlines())
    for name in ("conv2d", "max_pool2d", "avg_pool2d"):
        assert got[name] == ("refused" if name in lacks else "runs"), (name, got)
    assert got["device"] == ("refused" if "max_pool2d" in lacks else "runs")
