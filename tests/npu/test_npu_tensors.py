"""Tensors on the npu device (ACL simulator): copies, the first kernels, against the CPU backend."""

import mindtorch as torch
import numpy as np
import pytest

DTYPES = [
    torch.float32,
    torch.float16,
    torch.bfloat16,
    torch.float64,
    torch.int8,
    torch.uint8,
    torch.int16,
    torch.int32,
    torch.int64,
    torch.bool,
]
FLOATS = [torch.float32, torch.float16, torch.bfloat16, torch.float64]
# broadcasting patterns: equal shapes, a size-1 dim in the middle, the shorter operand on either side,
# 3+ dims, 0-dim and empty tensors
SHAPES = [
    ((3, 4), (3, 4)),
    ((2, 1, 4), (2, 3, 4)),
    ((4,), (3, 4)),
    ((3, 4), (4,)),
    ((2, 3, 1, 5), (3, 4, 1)),
    ((), (2, 3)),
    ((2, 3), ()),
    ((0, 3), (1, 3)),
    ((2, 0), (2, 0)),
]


def sample(shape, dtype, seed=0):
    g = np.random.default_rng(seed)
    if dtype is torch.bool:
        return torch.tensor(g.random(shape) > 0.5)
    if dtype.is_floating_point:
        return torch.tensor(g.standard_normal(shape) * 3, dtype=torch.float64).to(dtype)
    lo, hi = (0, 20) if dtype is torch.uint8 else (-20, 20)
    return torch.tensor(g.integers(lo, hi, size=shape), dtype=dtype)


def same(npu_result, cpu_result, dtype=None):
    got = npu_result.cpu()
    assert got.dtype == cpu_result.dtype and tuple(got.shape) == tuple(cpu_result.shape)
    a, b = got.to(torch.float64).numpy(), cpu_result.to(torch.float64).numpy()
    tol = {torch.float16: 1e-3, torch.bfloat16: 8e-3, torch.float32: 1e-6}.get(got.dtype, 0)
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


def test_available():
    assert torch.npu.is_available()
    assert torch.npu.device_count() == 2
    assert torch.npu.current_device() == 0


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_round_trip(dtype):
    x = sample((3, 5), dtype)
    y = x.to("npu")
    assert y.device == torch.device("npu", 0) and y.dtype == dtype and y.is_npu
    same(y, x)
    assert y.data_ptr() != 0


@pytest.mark.parametrize("view", ["t", "slice", "step", "expand", "offset"])
def test_strided_views_reach_host(view):
    base = sample((4, 6), torch.float32)
    make = {
        "t": lambda t: t.t(),
        "slice": lambda t: t[1:3],
        "step": lambda t: t[:, ::2],
        "expand": lambda t: t[:1].expand(3, 6),
        "offset": lambda t: t[2:, 3:],
    }[view]
    same(make(base.to("npu")), make(base))


@pytest.mark.parametrize("op", ["add", "mul", "sub"])
@pytest.mark.parametrize("shapes", SHAPES, ids=str)
def test_binary_broadcasting(op, shapes):
    a, b = sample(shapes[0], torch.float32, 1), sample(shapes[1], torch.float32, 2)
    fn = getattr(torch, op)
    same(fn(a.to("npu"), b.to("npu")), fn(a, b))


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("op", ["add", "mul"])
def test_binary_dtypes(op, dtype):
    a, b = sample((2, 3, 4), dtype, 1), sample((3, 1), dtype, 2)
    fn = getattr(torch, op)
    same(fn(a.to("npu"), b.to("npu")), fn(a, b))


@pytest.mark.parametrize(
    "pair",
    [
        (torch.int32, torch.float32),
        (torch.uint8, torch.int64),
        (torch.float16, torch.float32),
        (torch.bool, torch.int8),
        (torch.bfloat16, torch.float16),
    ],
    ids=str,
)
def test_promotion(pair):
    a, b = sample((3, 4), pair[0], 3), sample((3, 4), pair[1], 4)
    same(a.to("npu") + b.to("npu"), a + b)
    same(a.to("npu") * b.to("npu"), a * b)


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.float16, torch.int32], ids=str)
def test_scalars_and_alpha(dtype):
    a, b = sample((3, 4), dtype, 5), sample((3, 4), dtype, 6)
    na, nb = a.to("npu"), b.to("npu")
    same(na + 2, a + 2)
    same(na * 3, a * 3)
    same(na + 1.5, a + 1.5)  # int tensor + float scalar is float32 (weak scalar)
    same(na * 0.5, a * 0.5)
    same(torch.add(na, nb, alpha=2), torch.add(a, b, alpha=2))
    same(torch.sub(na, nb, alpha=3), torch.sub(a, b, alpha=3))
    same(2 * na, 2 * a)


def test_zero_dim_cpu_tensor_joins_npu():
    a = sample((3,), torch.float32)
    s = torch.tensor(2.5)
    same(a.to("npu") * s, a * s)


def test_inplace_and_views():
    base = sample((4, 6), torch.float32)
    nb = base.to("npu")
    nb[:, ::2].add_(10)
    base[:, ::2].add_(10)
    same(nb, base)
    nb.t()[1:3].mul_(-2)
    base.t()[1:3].mul_(-2)
    same(nb, base)
    nb.sub_(sample((6,), torch.float32, 9).to("npu"), alpha=0.5)
    base.sub_(sample((6,), torch.float32, 9), alpha=0.5)
    same(nb, base)
    n = nb.add_(1)
    assert n is nb and nb._version.value > 0


def test_inplace_scalar_and_int():
    a = sample((5,), torch.int32)
    na = a.to("npu")
    na.mul_(3).add_(7)
    same(na, a * 3 + 7)


def test_bad_inplace_broadcast_leaves_target():
    a = sample((3, 1), torch.float32)
    na = a.to("npu")
    with pytest.raises(RuntimeError):
        na.add_(sample((3, 4), torch.float32).to("npu"))
    same(na, a)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16], ids=str)
@pytest.mark.parametrize(
    "shapes",
    [((3, 4), (4, 5)), ((2, 3, 4), (2, 4, 5)), ((4,), (4, 2)), ((3, 4), (4,)), ((2, 1, 3, 4), (5, 4, 2)), ((4,), (4,))],
    ids=str,
)
def test_matmul(shapes, dtype):
    a, b = sample(shapes[0], dtype, 7), sample(shapes[1], dtype, 8)
    same(a.to("npu") @ b.to("npu"), a @ b)


def test_mm_bmm_and_strided_operands():
    a, b = sample((5, 3), torch.float32), sample((4, 5), torch.float32)
    same(torch.mm(a.to("npu").t(), b.to("npu").t()), torch.mm(a.t(), b.t()))
    x, y = sample((2, 3, 4), torch.float32), sample((2, 5, 4), torch.float32)
    same(torch.bmm(x.to("npu"), y.to("npu").transpose(1, 2)), torch.bmm(x, y.transpose(1, 2)))


def test_matmul_unsupported_dtype_is_clear():
    a = sample((2, 2), torch.float64).to("npu")
    with pytest.raises(RuntimeError, match="float16, bfloat16 and float32"):
        a @ a
    with pytest.raises(RuntimeError, match="size mismatch|shapes cannot be multiplied"):
        sample((2, 3), torch.float32).to("npu") @ sample((2, 3), torch.float32).to("npu")


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_factories_fill_zero(dtype):
    value = True if dtype is torch.bool else 3
    f = torch.full((2, 3), value, dtype=dtype, device="npu")
    same(f, torch.full((2, 3), value, dtype=dtype))
    same(torch.zeros(4, dtype=dtype, device="npu"), torch.zeros(4, dtype=dtype))
    same(torch.ones(2, 2, dtype=dtype, device="npu"), torch.ones(2, 2, dtype=dtype))
    z = sample((3, 4), dtype).to("npu")
    z[:, 1:3].zero_()
    ref = sample((3, 4), dtype)
    ref[:, 1:3].zero_()
    same(z, ref)
    e = torch.empty(3, dtype=dtype, device="npu")
    assert e.shape == (3,) and e.device.type == "npu"


def test_fill_float_value():
    same(torch.full((2,), 2.5, device="npu"), torch.full((2,), 2.5))
    t = torch.zeros(3, 4, device="npu")
    t.t()[1].fill_(-1.25)
    ref = torch.zeros(3, 4)
    ref.t()[1].fill_(-1.25)
    same(t, ref)


@pytest.mark.parametrize("src", DTYPES, ids=str)
@pytest.mark.parametrize(
    "dst", [torch.float32, torch.float16, torch.bfloat16, torch.int32, torch.int64, torch.bool, torch.uint8], ids=str
)
def test_cast_on_device(src, dst):
    x = sample((3, 4), src)
    same(x.to("npu").to(dst), x.to(dst))


def test_clone_and_copy_on_device():
    x = sample((3, 4), torch.float32)
    nx = x.to("npu")
    c = nx.t().clone()
    assert c.is_contiguous()
    same(c, x.t().clone())
    d = torch.empty(4, 3, dtype=torch.float16, device="npu")
    d.copy_(nx.t())  # cross-dtype, strided source
    same(d, x.t().to(torch.float16))
    e = torch.zeros(3, 4, device="npu")
    e.copy_(nx[0])  # broadcasting source
    same(e, x[0].expand(3, 4))


def test_between_two_npus():
    x = sample((3, 4), torch.float32)
    a = x.to("npu:0")
    b = a.to("npu:1")
    assert b.device == torch.device("npu", 1)
    same(b, x)
    same(b + b, x + x)
    c = torch.zeros(3, 4, dtype=torch.float16, device="npu:1")
    c.copy_(a)
    same(c, x.to(torch.float16))
    with pytest.raises(RuntimeError, match="same device"):
        a + b


def test_copy_to_host_tensor():
    x = sample((3, 4), torch.float32)
    host = torch.zeros(3, 4)
    out = host.copy_(x.to("npu"))
    assert out is host
    same(host.to("npu"), x)


def test_device_selection():
    with torch.npu.device(1):
        assert torch.npu.current_device() == 1
        t = torch.ones(2, device="npu")
        assert t.device == torch.device("npu", 1)
        assert torch.randn(2).to("npu").device.index == 1
    assert torch.npu.current_device() == 0
    torch.npu.set_device(1)
    try:
        assert torch.zeros(1, device="npu").device.index == 1
    finally:
        torch.npu.set_device(0)


def test_bad_device_index_is_clear_and_changes_nothing():
    before = torch.npu.memory_stats(0)
    with pytest.raises(RuntimeError, match="npu:5"):
        torch.zeros(2, device="npu:5")
    with pytest.raises(RuntimeError, match="npu:7"):
        torch.ones(2).to("npu:7")
    with pytest.raises(RuntimeError):
        torch.npu.set_device(2)
    assert torch.npu.current_device() == 0
    assert torch.npu.memory_stats(0)["allocated_bytes.all.current"] == before["allocated_bytes.all.current"]


def test_printing_and_item():
    t = torch.tensor([[1.5, 2.0], [3.0, 4.0]]).to("npu")
    assert "device='npu:0'" in repr(t)
    assert float((t @ t).cpu()[0, 0]) == 1.5 * 1.5 + 2.0 * 3.0
    assert t[1, 0].item() == 3.0


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.bool], ids=str)
def test_zero_dim_tensors_stay_zero_dim(dtype):
    x = sample((), dtype)
    y = x.to("npu")
    assert y.shape == () and y.cpu().shape == ()
    same(y, x)
    same(y.clone(), x)
    assert torch.tensor(3.5, device="npu").shape == ()


INDEXING = {  # PyTorch's advanced-indexing forms: leading, inner and separated index tensors, masks, negative
    "leading": lambda t, d: t[torch.tensor([0, 4, 2, -1], device=d)],
    "inner": lambda t, d: t[:, torch.tensor([3, 1], device=d)],
    "separated": lambda t, d: t[torch.tensor([0, 1], device=d), :, torch.tensor([2, 0], device=d)],
    "broadcast": lambda t, d: t[torch.tensor([[0], [1]], device=d), torch.tensor([1, 2, 3], device=d)],
    "mask": lambda t, d: t[t > 0],
    "row mask": lambda t, d: t[torch.tensor([True, False, True, False, True], device=d)],
    "nonzero": lambda t, d: (t > 0.5).nonzero(),
    "empty nonzero": lambda t, d: (t > 99).nonzero(),
    "masked_select": lambda t, d: t.masked_select(t < 0),
}


@pytest.mark.parametrize("form", sorted(INDEXING))
def test_advanced_indexing_matches_cpu(form):
    x = torch.randn(5, 4, 3)
    expect = INDEXING[form](x, "cpu")
    got = INDEXING[form](x.to("npu"), "npu")
    assert got.device.type == "npu" and got.shape == expect.shape and got.dtype == expect.dtype
    np.testing.assert_array_equal(got.cpu().numpy(), expect.numpy())


def _set_mask(t, d):
    t[t > 0] = 0.0


def _set_inner(t, d):
    t[:, torch.tensor([1, 2], device=d)] = torch.arange(3.0, device=d)


def _accumulate(t, d):
    t.index_put_((torch.tensor([0, 0, 1], device=d),), torch.ones(3, 4, 3, device=d), accumulate=True)


@pytest.mark.parametrize("write", [_set_mask, _set_inner, _accumulate])
def test_index_put_matches_cpu(write):
    x = torch.randn(5, 4, 3)
    y = x.to("npu")
    write(x, "cpu")
    write(y, "npu")
    np.testing.assert_array_equal(y.cpu().numpy(), x.numpy())


def test_out_of_range_index_is_checked_by_the_kernel():
    # PyTorch's IndexError, from the kernel's bounds check (the device itself would not report it,
    # test_index_bounds.py); a reading op's check is read at the next synchronization
    x = torch.zeros(3, device="npu")
    with pytest.raises(IndexError, match="index 5 is out of bounds for dimension 0 with size 3"):
        x[torch.tensor([5], device="npu")].cpu()


def test_rng_state_round_trip_per_device():
    torch.npu.manual_seed(3)
    state = torch.npu.get_rng_state()
    first = torch.rand(5, device="npu").cpu()
    torch.npu.set_rng_state(state)
    np.testing.assert_array_equal(torch.rand(5, device="npu").cpu().numpy(), first.numpy())
    assert torch.npu.initial_seed() == 3
    if torch.npu.device_count() > 1:  # each device has its own generator
        torch.npu.set_rng_state(state, "npu:1")
        other = torch.rand(5, device="npu:1").cpu()
        np.testing.assert_array_equal(other.numpy(), first.numpy())


def test_linalg_on_npu_matches_cpu_and_raises_as_pytorch():
    torch.manual_seed(0)
    A = torch.randn(2, 4, 4)
    S = A @ A.mT + 4 * torch.eye(4)
    B = torch.randn(2, 4, 3)
    for fn, args, tol in (
        (torch.linalg.cholesky, (S,), 1e-6),
        (torch.linalg.qr, (torch.randn(5, 3),), 1e-6),
        (torch.linalg.slogdet, (A,), 1e-6),
        (torch.linalg.solve, (A, B), 1e-4),
        (torch.linalg.inv, (A,), 1e-4),
        (torch.linalg.det, (A,), 1e-5),
    ):
        expect, got = fn(*args), fn(*(t.to("npu") for t in args))
        for e, g in zip(expect if isinstance(expect, tuple) else (expect,), got if isinstance(got, tuple) else (got,)):
            assert g.device.type == "npu"
            np.testing.assert_allclose(g.cpu().numpy(), e.numpy(), rtol=tol, atol=tol)
    not_pd = torch.tensor([[4.0, 2, 0], [2, 1, 0], [0, 0, 3]], device="npu")
    with pytest.raises(torch.linalg.LinAlgError, match="leading minor of order 2"):
        torch.linalg.cholesky(not_pd)
    with pytest.raises(torch.linalg.LinAlgError, match="singular"):
        torch.linalg.inv(torch.zeros(3, 3, device="npu"))


@pytest.mark.parametrize("shape", [(4, 3), (2, 3, 5)])
@pytest.mark.parametrize("full", [True, False])
def test_svd_on_npu_is_an_svd(shape, full):
    """Singular vectors are unique only up to sign: the factors are checked by what defines them."""
    a = torch.randn(*shape, dtype=torch.float64)
    u, s, vh = (t.cpu() for t in torch.linalg.svd(a.to("npu"), full_matrices=full))
    k = min(shape[-2:])
    np.testing.assert_allclose((u[..., :, :k] @ torch.diag_embed(s) @ vh[..., :k, :]).numpy(), a.numpy(), atol=1e-12)
    np.testing.assert_allclose((u.mT @ u).numpy(), np.eye(u.shape[-1]) + np.zeros(u.mT.shape[:-2] + (1, 1)), atol=1e-12)
    np.testing.assert_allclose(
        (vh @ vh.mT).numpy(), np.eye(vh.shape[-2]) + np.zeros(vh.shape[:-2] + (1, 1)), atol=1e-12
    )
    np.testing.assert_allclose(s.numpy(), torch.linalg.svdvals(a).numpy(), atol=1e-12)


@pytest.mark.parametrize("dtype", [torch.uint16, torch.uint32, torch.uint64])
def test_moving_a_dtype_the_npu_lacks_names_it(dtype):
    t = torch.tensor([1, 2], dtype=dtype)
    with pytest.raises(TypeError, match=f"npu.*{dtype}"):
        t.to("npu")
