"""What CANN's operator documentation requires of a call, held by the simulator and met by the backend: tensor
formats by rank, per-chip dtypes and operators, SoC-name families, data-dependent output shapes and list
lengths. Each test fails on the simulator's refusal if the backend breaks the rule."""

import ctypes
import json

import mindtorch as torch
import mindtorch.nn.functional as F
import numpy as np
import pytest
from npu_helpers import run_python


def close(got, want, tol=1e-5):
    got = got.cpu()
    assert got.dtype == want.dtype and tuple(got.shape) == tuple(want.shape), (got.dtype, want.dtype, got.shape)
    np.testing.assert_allclose(got.to(torch.float64).numpy(), want.to(torch.float64).numpy(), rtol=tol, atol=tol)


def _sim_tensor(shape, dtype, fmt):
    """A raw aclTensor descriptor over a live device tensor of `shape` in format `fmt` (and the tensor)."""
    from mindtorch_npu.aclnn import acl_dtype
    from mindtorch_npu.copy import empty
    from mindtorch_npu.state import RUNTIME

    t = empty(shape, dtype, torch.device("npu:0"))
    nn = RUNTIME.nn
    dims = (ctypes.c_int64 * len(shape))(*shape)
    strides, acc = [], 1
    for s in reversed(shape):
        strides.insert(0, acc)
        acc *= s
    h = nn.aclCreateTensor(
        dims,
        len(shape),
        acl_dtype(dtype),
        (ctypes.c_int64 * len(shape))(*strides),
        0,
        fmt,
        (ctypes.c_int64 * 1)(acc),
        1,
        t._storage.data,
    )
    assert h
    return h, t


# --- formats: ops-nn's NCHW operators read N, C, H, W from the descriptor's format -------------------------

ND, NCHW, NCL = 2, 0, 47  # aclFormat (acl_base_rt.h)


def _phase1(name, *args):
    from mindtorch_npu.aclnn import _op

    ws, ex = ctypes.c_uint64(), ctypes.c_void_p()
    code = _op(name)[0](*args, ctypes.byref(ws), ctypes.byref(ex))
    if not code:
        from mindtorch_npu.aclnn import _release

        _release(ex)
    return code


@pytest.mark.parametrize("fmt,ok", [(ND, False), (NCHW, True)])
def test_the_simulator_refuses_an_nd_convolution_as_cann_does(fmt, ok):
    from mindtorch_npu.aclnn import CACHE, IntArray
    from mindtorch_npu.state import RUNTIME

    nn = RUNTIME.nn
    x, xt = _sim_tensor((1, 2, 5, 5), torch.float32, fmt)
    w, wt = _sim_tensor((3, 2, 3, 3), torch.float32, fmt)
    y, yt = _sim_tensor((1, 3, 3, 3), torch.float32, fmt)
    arrays = [CACHE.array(IntArray(v), nn) for v in ((1, 1), (0, 0), (1, 1), (0, 0))]
    try:
        code = _phase1(
            "Convolution", x, w, None, arrays[0], arrays[1], arrays[2], False, arrays[3], 1, y, ctypes.c_int8(0)
        )
        assert (code == 0) == ok, code
        if not ok:
            assert code == 161002
            assert b"format ND" in RUNTIME.rt.aclGetRecentErrMsg()
    finally:
        for h in (x, w, y):
            nn.aclDestroyTensor(h)


def test_the_simulator_refuses_nd_average_pooling():
    from mindtorch_npu.aclnn import CACHE, IntArray
    from mindtorch_npu.state import RUNTIME

    nn = RUNTIME.nn
    x, xt = _sim_tensor((1, 2, 4, 4), torch.float32, ND)
    o, ot = _sim_tensor((1, 2, 2, 2), torch.float32, ND)
    try:
        assert _phase1("AdaptiveAvgPool2d", x, CACHE.array(IntArray((2, 2)), nn), o) == 161002
        k = CACHE.array(IntArray((2, 2)), nn)
        assert (
            _phase1("AvgPool2d", x, k, k, CACHE.array(IntArray((0, 0)), nn), False, True, 0, ctypes.c_int8(0), o)
            == 161002
        )
    finally:
        nn.aclDestroyTensor(x)
        nn.aclDestroyTensor(o)


def test_descriptors_carry_torch_npus_format_by_rank():
    from mindtorch_npu.aclnn import CACHE
    from mindtorch_npu.state import RUNTIME

    nn = RUNTIME.nn
    get_format = RUNTIME.libs.nnopbase.aclGetFormat
    get_format.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_int)]
    for shape, want in (
        ((3,), ND),
        ((2, 3), ND),
        ((1, 2, 3), NCL),
        ((1, 2, 3, 4), NCHW),
        ((1, 1, 2, 3, 4), 30),
        ((1, 1, 1, 2, 3, 4), ND),
    ):
        t = torch.zeros(shape).to("npu")
        fmt = ctypes.c_int()
        assert get_format(CACHE.tensor(t, nn), ctypes.byref(fmt)) == 0
        assert fmt.value == want, (shape, fmt.value)


def test_cnn_ops_forward_and_backward_match_cpu():
    g = np.random.default_rng(0)
    x = torch.tensor(g.standard_normal((2, 3, 8, 8)), dtype=torch.float32)
    w = torch.tensor(g.standard_normal((4, 3, 3, 3)), dtype=torch.float32)
    for dev in ("cpu", "npu"):
        xd, wd = x.to(dev).detach().requires_grad_(), w.to(dev).detach().requires_grad_()
        y = F.conv2d(xd, wd, padding=1)
        y = F.avg_pool2d(y, 2) + F.adaptive_avg_pool2d(y, (4, 4)) + F.max_pool2d(y, 2)
        y = F.batch_norm(y, None, None, training=True)
        y.sum().backward()
        if dev == "cpu":
            want = (y.detach(), xd.grad, wd.grad)
        else:
            for got, ref in zip((y.detach(), xd.grad, wd.grad), want):
                close(got, ref, 1e-4)


# --- per-chip operators and dtypes --------------------------------------------------------------------------


def test_square_runs_through_mul_where_the_chip_lacks_aclnn_square():
    from mindtorch_npu.aclnn import device_launch, launch
    from mindtorch_npu.copy import empty

    x = torch.tensor([[-3, 2], [0, 7]], dtype=torch.int32).to("npu")
    with pytest.raises(RuntimeError, match="161002"):  # ops-math: aclnnSquare is implemented on Ascend950 only
        device_launch("Square", x, empty((2, 2), torch.int32, x.device))
    with pytest.raises(NotImplementedError, match="aclnnSquare.md"):  # its doc's product list says so too
        launch("Square", x, empty((2, 2), torch.int32, x.device))
    for dtype in (torch.float32, torch.float64, torch.int8, torch.int64, torch.bool):
        a = torch.tensor([[-3, 2], [0, 1]]).to(dtype)
        close(torch.square(a.to("npu")), torch.square(a), 0)
        b = a.clone()
        if dtype is not torch.bool:
            b.square_()
            c = a.to("npu")
            c.square_()
            close(c, b, 0)


def test_square_uses_aclnn_square_on_ascend950():
    res = run_python(
        """
        import mindtorch as torch
        from mindtorch_npu import chips
        from mindtorch_npu.aclnn import launch
        from mindtorch_npu.copy import empty
        x = torch.tensor([-3.0, 2.0]).to("npu")
        out = empty((2,), torch.float32, x.device)
        launch("Square", x, out)
        print(chips.family(), out.cpu().tolist(), torch.square(x).cpu().tolist())
    """,
        {"ACLSIM_SOC_NAME": "Ascend950PR"},
    )
    assert res.returncode == 0, res.stderr[-2000:]
    assert res.stdout.split(" ", 1) == ["950", "[9.0, 4.0] [9.0, 4.0]\n"]


@pytest.mark.parametrize(
    "soc,family,bf16,fp32_cube",
    [
        ("Ascend910B", "910A", False, False),
        ("Ascend910B1", "910B", True, True),
        ("Ascend910B4-1", "910B", True, True),
        ("Ascend910_9391", "910B", True, True),
        ("Ascend950PR", "950", True, True),
        ("Ascend910A", "910A", False, False),
        ("Ascend310P3", "310P", False, False),
    ],
)
def test_soc_names_map_to_torch_npus_families(soc, family, bf16, fp32_cube):
    from mindtorch_npu import chips

    assert chips.family(soc) == family
    assert (torch.bfloat16 in chips.chip_dtypes(soc)) == bf16
    assert chips.native_fp32_cube(soc) == fp32_cube


def test_legacy_ascend910b_has_neither_bf16_nor_a_float32_cube():
    res = run_python(
        """
        import mindtorch as torch
        from mindtorch_npu.aclnn import launch
        from mindtorch_npu.copy import empty
        a = torch.ones(2, 3).to("npu")
        try:  # KEEP_DTYPE with float32 is refused where the cube has no float32
            launch("Mm", a, a.t(), empty((2, 2), torch.float32, a.device), 0)
            print("keep-ok")
        except RuntimeError as e:
            print("keep-refused" if "161002" in str(e) else e)
        print((a @ a.t()).cpu().tolist(), torch.dot(a[0], a[1]).item())  # aclnnDot is no cube op
        try:
            torch.ones(2, dtype=torch.bfloat16).to("npu").exp()
            print("bf16-ok")
        except TypeError as e:
            print("bf16-refused")
    """,
        {"ACLSIM_SOC_NAME": "Ascend910B"},
    )
    assert res.returncode == 0, res.stderr[-2000:]
    assert res.stdout.splitlines() == ["keep-refused", "[[3.0, 3.0], [3.0, 3.0]] 3.0", "bf16-refused"]


def test_erfinv_has_no_double_on_910b():
    from mindtorch_npu.aclnn import launch
    from mindtorch_npu.copy import empty

    x = torch.tensor([0.1, -0.5], dtype=torch.float64).to("npu")
    with pytest.raises(RuntimeError, match="161002"):
        launch("Erfinv", x, empty((2,), torch.float64, x.device))
    with pytest.raises(TypeError, match=r"aclnnErfinv.*float64.*Ascend910B1"):
        torch.erfinv(x)
    for dtype in (torch.float32, torch.int64):
        a = torch.tensor([0, 0]).to(dtype) if dtype is torch.int64 else torch.tensor([0.1, -0.5])
        close(torch.erfinv(a.to("npu")), torch.erfinv(a))


def test_dtypes_an_operator_lacks_give_cpus_result_or_a_clear_error():
    x64 = torch.tensor([[0.3, -1.0, 2.0]], dtype=torch.float64)
    with pytest.raises(TypeError, match=r"aclnnMish.*float64.*Ascend910B1"):
        F.mish(x64.to("npu"))
    with pytest.raises(RuntimeError, match=r"nll_loss.*float64.*Ascend910B1.*aclnnNLLLoss supports"):
        F.nll_loss(x64.to("npu"), torch.tensor([1]).to("npu"))
    seq = torch.tensor([0.5, 1.0, 2.5, 4.0])
    for dtype in (torch.bfloat16, torch.bool):
        s, v = seq.to(dtype), torch.tensor([0.0, 1.0, 3.0]).to(dtype)
        if dtype is torch.bool:
            s = torch.tensor([False, False, True, True])
        for right in (False, True):
            close(torch.searchsorted(s.to("npu"), v.to("npu"), right=right), torch.searchsorted(s, v, right=right), 0)


# --- aclnnDivMod's trunc division runs DOUBLE and wide integers as FLOAT off Ascend950 ---------------------------

_DIVMOD = """
import json
import mindtorch as torch
from mindtorch_npu.aclnn import device_launch
from mindtorch_npu.copy import empty
rows = []
for dt in (torch.float64, torch.int64):
    a = torch.tensor([2**40 + 1, -(2**35) - 3, 7]).to(dt).to("npu")
    b = torch.tensor([3, 5, -2]).to(dt).to("npu")
    for mode in (1, 2):
        out = empty((3,), dt, a.device)
        device_launch("DivMod", a, b, mode, out)
        rows.append([str(dt), mode, out.cpu().tolist()])
print(json.dumps(rows))
"""


@pytest.mark.parametrize("soc", ["Ascend910B1", "Ascend910A", "Ascend950PR"])
def test_the_simulator_computes_divmod_trunc_in_float_off_ascend950(soc):
    res = run_python(_DIVMOD, {"ACLSIM_SOC_NAME": soc})
    assert res.returncode == 0, res.stderr[-2000:]
    exact = {1: [366503875925, -6871947674, -3], 2: [366503875925, -6871947675, -4]}
    f32 = int(np.float32(np.float32(2**40 + 1) / np.float32(3)))
    for dt, mode, got in json.loads(res.stdout):
        want = exact[mode]
        if mode == 1 and soc != "Ascend950PR":  # cast to FLOAT, RealDiv, Trunc, cast back (aclnn_div.cpp)
            assert got[0] == f32 != want[0], (dt, got)
        else:
            assert got == want, (soc, dt, mode, got)


@pytest.mark.parametrize("soc", ["Ascend910B1", "Ascend910A"])
def test_trunc_division_keeps_float64_and_int64_exact_where_divmod_would_not(soc):
    res = run_python(
        """
        import json
        import mindtorch as torch
        out = []
        a = torch.tensor([2.0**40 + 1, -7.5, 1e300, -3.0, 5.0, float("nan"), 0.5], dtype=torch.float64)
        b = torch.tensor([3.0, 2.0, 7.0, 0.0, -2.0, 1.0, -4.0], dtype=torch.float64)
        ai, bi = torch.tensor([2**40 + 1, -7, 2**62 + 3, 9, -9, 0]), torch.tensor([3, 2, 7, -4, 4, 5])
        for x, y in ((a, b), (ai, bi), (ai.to(torch.int32), bi.to(torch.int32))):
            for f in (
                lambda x, y: torch.div(x, y, rounding_mode="trunc"),
                lambda x, y: torch.div(x, 3, rounding_mode="trunc"),
                lambda x, y: x.clone().div_(y, rounding_mode="trunc"),
            ):
                got, want = f(x.to("npu"), y.to("npu")).cpu(), f(x, y)
                same = got.dtype == want.dtype and got.to(torch.float64).tolist().__repr__() == want.to(
                    torch.float64).tolist().__repr__()
                out.append(same or [got.tolist(), want.tolist()])
        print(json.dumps(out))
    """,
        {"ACLSIM_SOC_NAME": soc},
    )
    assert res.returncode == 0, res.stderr[-2000:]
    assert res.stdout.strip() == json.dumps([True] * 9), res.stdout


# --- max pooling on 910B-class parts: float32 gradients, int32 indices, dilation 1 -----------------------------


def test_the_simulator_refuses_what_max_pool_backward_lacks_on_910b():
    from mindtorch_npu.aclnn import IntArray, launch
    from mindtorch_npu.copy import empty

    dev = torch.device("npu:0")
    x = torch.randn(1, 1, 4, 4).to("npu")
    w = (IntArray((2, 2)), IntArray((2, 2)), IntArray((0, 0)))
    g = torch.ones(1, 1, 2, 2).to("npu")
    for idx_dtype, dtype, dil in (
        (torch.int64, torch.float32, 1),
        (torch.int32, torch.float16, 1),
        (torch.int32, torch.float32, 2),
    ):
        idx = torch.zeros(1, 1, 2, 2, dtype=idx_dtype).to("npu")
        with pytest.raises(RuntimeError, match="161002"):
            launch(
                "MaxPool2dWithIndicesBackward",
                g.to(dtype),
                x.to(dtype),
                idx,
                *w,
                IntArray((dil, dil)),
                False,
                empty((1, 1, 4, 4), dtype, dev),
            )
    idx = torch.zeros(1, 1, 2, 2, dtype=torch.int32).to("npu")
    launch(
        "MaxPool2dWithIndicesBackward", g, x, idx, *w, IntArray((1, 1)), False, empty((1, 1, 4, 4), torch.float32, dev)
    )


def test_the_simulator_refuses_scatter_reduce_beyond_float32_add_with_self_on_910b():
    # the doc's product note: Atlas A2 / A3 take FLOAT32 with reduce 1 (add) and includeSelf true, nothing else
    from mindtorch_npu.aclnn import launch

    index = torch.tensor([[0, 1], [2, 0]]).to("npu")
    for dtype, reduce, include_self in (
        (torch.float16, 1, True),
        (torch.int32, 1, True),
        (torch.float32, 5, True),
        (torch.float32, 2, True),
        (torch.float32, 1, False),
    ):
        x, src = torch.zeros(3, 2, dtype=dtype).to("npu"), torch.ones(2, 2, dtype=dtype).to("npu")
        with pytest.raises(RuntimeError, match="161002"):
            launch("ScatterReduce", x, 0, index, src, reduce, include_self, x.clone())
    x, src = torch.zeros(3, 2).to("npu"), torch.ones(2, 2).to("npu")
    launch("ScatterReduce", x, 0, index, src, 1, True, x)
    assert x.cpu().tolist() == [[1.0, 1.0], [0.0, 1.0], [1.0, 0.0]]


_SCATTER_DTYPES = (torch.float32, torch.float16, torch.bfloat16, torch.int32, torch.int64, torch.uint8, torch.int8)


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
def test_scatter_reduce_and_index_reduce_match_cpu_in_every_dtype(reduce):
    # what the operator refuses runs on the host (torch_npu's fallback): uint8 sums wrap as on the cpu
    rng = np.random.default_rng(7)
    for dtype in _SCATTER_DTYPES:
        for include_self in (True, False):
            a = torch.tensor(rng.integers(0, 250, (4, 3))).to(dtype)
            src = torch.tensor(rng.integers(0, 250, (5, 3))).to(dtype)
            index = torch.tensor(rng.integers(0, 4, (5, 3)))
            rows = torch.tensor(rng.integers(0, 4, (5,)))
            kw = dict(include_self=include_self)
            want = a.scatter_reduce(0, index, src, reduce, **kw)
            got = a.to("npu").scatter_reduce(0, index.to("npu"), src.to("npu"), reduce, **kw)
            assert torch.equal(got.cpu(), want), (dtype, include_self)
            in_place = a.to("npu")
            in_place.scatter_reduce_(0, index.to("npu"), src.to("npu"), reduce, **kw)
            assert torch.equal(in_place.cpu(), want), (dtype, include_self)
            if reduce == "sum":
                continue  # index_reduce takes prod, mean, amax, amin
            want = a.index_reduce(0, rows, src, reduce, **kw)
            got = a.to("npu").index_reduce(0, rows.to("npu"), src.to("npu"), reduce, **kw)
            assert torch.equal(got.cpu(), want), (dtype, include_self)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
def test_max_pool_forward_and_backward_match_cpu(dtype):
    g = np.random.default_rng(1)
    x = torch.tensor(g.standard_normal((2, 3, 6, 6)), dtype=torch.float32).to(dtype)
    want = None
    for dev in ("cpu", "npu"):
        xd = x.to(dev).detach().requires_grad_()
        y, idx = F.max_pool2d(xd, 3, 2, padding=1, return_indices=True)
        (y * torch.arange(y.numel(), dtype=dtype).reshape(y.shape).to(dev)).sum().backward()
        if want is None:
            want = (y.detach(), idx, xd.grad)
        else:
            for got, ref in zip((y.detach(), idx, xd.grad), want):
                close(got, ref, 0 if dtype is torch.float32 else 1e-2 * float(ref.abs().max()))


def test_dilated_max_pool_is_a_clear_error_on_910b():
    with pytest.raises(NotImplementedError, match=r"dilation 1 on Ascend910B1"):
        F.max_pool2d(torch.randn(1, 1, 6, 6).to("npu"), 2, dilation=2)


# --- Nonzero rewrites its out descriptor's view shape at run time ----------------------------------------------


def test_nonzero_rewrites_its_out_descriptor_and_no_cached_descriptor_goes_stale():
    from mindtorch_npu.aclnn import launch
    from mindtorch_npu.copy import empty
    from mindtorch_npu.state import RUNTIME

    # the simulator, as CANN: after the launch the out descriptor's view is [count, ndim]
    nn = RUNTIME.nn
    view_shape = RUNTIME.libs.nnopbase.aclGetViewShape
    view_shape.argtypes = [
        ctypes.c_void_p,
        ctypes.POINTER(ctypes.POINTER(ctypes.c_int64)),
        ctypes.POINTER(ctypes.c_uint64),
    ]
    x = torch.tensor([[0, 2, 0], [3, 0, 4]]).to("npu")
    h, out = _sim_tensor((6, 2), torch.int64, ND)
    try:
        launch("Nonzero", x, ctypes.c_void_p(h))
        torch.npu.synchronize()
        dims, n = ctypes.POINTER(ctypes.c_int64)(), ctypes.c_uint64()
        assert view_shape(h, ctypes.byref(dims), ctypes.byref(n)) == 0
        assert [dims[i] for i in range(n.value)] == [3, 2]
        ctypes.CDLL(None).free(dims)
    finally:
        nn.aclDestroyTensor(h)
    del out
    # the backend: repeated calls whose outputs land on the same block still see their own shapes
    for values in ([1, 0, 1, 0, 0, 1], [0, 0, 1, 0, 0, 0], [1, 1, 1, 1, 1, 1], [0, 0, 0, 0, 0, 0], [1, 0, 1, 0, 0, 1]):
        a = torch.tensor(values).reshape(2, 3)
        close(torch.nonzero(a.to("npu")), torch.nonzero(a), 0)
        close(a.to("npu")[a.to("npu") != 0], a[a != 0], 0)
        empty((6, 2), torch.int64, torch.device("npu:0")).zero_()  # a same-shaped tensor on a freed block


# --- foreach lists: at most 256 tensors per call ---------------------------------------------------------------


def test_foreach_lists_longer_than_256_are_refused_and_adam_chunks_them():
    from mindtorch_npu.aclnn import Scalar, launch

    ts = [torch.ones(2).to("npu") for _ in range(257)]
    with pytest.raises(RuntimeError, match="161002"):
        launch("ForeachMulScalarV2", ts, Scalar(2.0), ts)
    g = np.random.default_rng(2)
    init = [torch.tensor(g.standard_normal(3), dtype=torch.float32) for _ in range(300)]
    grads = [torch.tensor(g.standard_normal(3), dtype=torch.float32) for _ in range(300)]
    got = []
    for dev in ("cpu", "npu"):
        params = [torch.nn.Parameter(p.clone().to(dev)) for p in init]
        opt = torch.optim.AdamW(params, lr=0.1, foreach=True)
        for _ in range(2):
            for p, gr in zip(params, grads):
                p.grad = gr.to(dev)
            opt.step()
        got.append(params)
    for a, b in zip(*got):
        close(b.detach(), a.detach(), 1e-5)


# --- the operator table (optable.json) is what phase 1 and the backend's chip table both take ----------------

# the claimed chips and the docs' product each belongs to
_PRODUCT_OF = {
    "Ascend910B1": "910b",
    "Ascend910_9392": "A3",
    "Ascend910A": "910",
    "Ascend310P3": "310p",
    "Ascend950PR": "950",
}
_MODELED = ("FLOAT", "FLOAT16", "BFLOAT16", "DOUBLE", "INT8", "UINT8", "INT16", "INT32", "INT64", "BOOL")
_UNSTATED = 0xFFFFFFFF


def _sim_query(name):
    from mindtorch_npu.state import RUNTIME

    RUNTIME.ensure()
    fn = getattr(RUNTIME.libs.opapi, name)
    fn.restype, fn.argtypes = ctypes.c_int64, [ctypes.c_char_p] * 3
    return fn


def test_chip_products_cover_the_claimed_chips():
    from mindtorch_npu import chip_coverage, chips

    assert set(_PRODUCT_OF) == set(chip_coverage.CLAIMED_CHIPS)
    assert all(chips.product(soc) == p for soc, p in _PRODUCT_OF.items())


@pytest.mark.parametrize("product", sorted(set(_PRODUCT_OF.values())))
def test_phase_one_takes_exactly_the_documented_dtypes_of_every_parameter(product):
    from mindtorch_npu import optable
    from mindtorch_npu.aclnn import ACL_DTYPE
    from mindtorch_npu.chips import DOC_NAMES

    code = {DOC_NAMES[d]: ACL_DTYPE[d] for d in DOC_NAMES}
    query = _sim_query("aclsimOpDtypes")
    checked = 0
    for op, row in sorted(optable.ops().items()):
        for param in row.get("params", []):
            mask = query(op.encode(), param.encode(), product.encode())
            want = optable.dtypes(op, product, param)
            if want is None:
                assert mask == _UNSTATED, (op, param, product)
                continue
            got = {n for n in _MODELED if mask >> code[n] & 1}
            assert got == set(want) & set(_MODELED), (op, param, product)
            checked += 1
    assert checked > 400  # every product documents some hundreds of (operator, parameter) pairs


@pytest.mark.parametrize("soc", sorted(_PRODUCT_OF))
def test_the_chip_table_takes_the_documented_dtypes_of_each_data_parameter(soc):
    from mindtorch_npu import chips, optable

    product = _PRODUCT_OF[soc]
    for op in optable.ops():
        names = optable.self_dtypes(op, product)
        held = chips.chip_dtypes(soc)
        want = held if names is None else {d for d, n in chips.DOC_NAMES.items() if n in names} & held
        assert chips.op_dtypes(op, soc) == want, (op, soc)
        assert chips.OP_DTYPES[chips.family(soc)].get(op) is not None or names is None or product == "A3", op


_PHASE1_SWEEP = """
import ctypes, json, sys
import mindtorch as torch
from mindtorch_npu import chips, optable
from mindtorch_npu.acl.prototypes import UNARY_HEADERS, UNARY_ONLY_HEADERS
from mindtorch_npu.aclnn import _op, _release, CACHE
from mindtorch_npu.copy import empty
from mindtorch_npu.state import RUNTIME
product = chips.product()
held = sorted(chips.chip_dtypes(), key=str)
bad = []
for op in sorted([*UNARY_HEADERS, *UNARY_ONLY_HEADERS]):
    if not chips.has_op(op):
        continue
    first, out = optable.ops()[op]["params"][:2]
    outs = optable.dtypes(op, product, out)
    for dt in held:
        name = chips.DOC_NAMES[dt]
        odt = dt if outs is None or name in outs else next(d for d in held if chips.DOC_NAMES[d] in outs)
        x, y = empty((2, 3), dt, torch.device("npu:0")), empty((2, 3), odt, torch.device("npu:0"))
        ws, ex = ctypes.c_uint64(), ctypes.c_void_p()
        code = _op(op)[0](CACHE.tensor(x, RUNTIME.nn), CACHE.tensor(y, RUNTIME.nn), ctypes.byref(ws), ctypes.byref(ex))
        if not code:
            _release(ex)
        want = optable.dtypes(op, product, first)
        ok = want is None or name in want
        if (code == 0) != ok or (code and code != 161002):
            bad.append([op, str(dt), code])
print(json.dumps(bad))
"""


@pytest.mark.parametrize("soc", sorted(_PRODUCT_OF))
def test_phase_one_of_each_unary_operator_accepts_exactly_the_documented_dtypes(soc):
    res = run_python(_PHASE1_SWEEP, {"ACLSIM_SOC_NAME": soc})
    assert res.returncode == 0, res.stderr[-2000:]
    assert res.stdout.strip() == "[]", res.stdout[-3000:]


def test_a_dtype_phase_one_refuses_is_a_type_error_naming_operator_dtype_and_chip():
    from mindtorch_npu.aclnn import IntArray, device_launch
    from mindtorch_npu.copy import empty
    from mindtorch_npu.runtime import AclRuntimeError

    x = torch.tensor([[1.5, -2.0], [3.0, 4.25]], dtype=torch.float64)
    xd = x.to("npu")
    # aclnnFlip.md lists no DOUBLE for self on Atlas A2: the device's raw status stays behind device_launch
    with pytest.raises(AclRuntimeError, match="161002") as raw:
        device_launch("Flip", xd, IntArray((0,)), empty((2, 2), torch.float64, xd.device))
    assert not isinstance(raw.value, TypeError)
    with pytest.raises(TypeError, match=r"aclnnFlip: self of .*float64 is not supported on Ascend910B1.*aclnnFlip.md"):
        torch.flip(xd, (0,))
    close(xd, x, 0)  # refused in phase 1: nothing written


def test_dtypes_an_operator_doc_omits_take_an_exact_path():
    # MaxDim: of the integers INT64 only; IsPosInf: floating only; InplaceMaskedFillScalar: no DOUBLE, UINT8,
    # INT16; InplaceSin: no DOUBLE (Sin has it)
    x = torch.tensor([[3, -1, 7], [0, 5, -2]])
    mask = torch.tensor([[True, False, True], [False, False, True]])
    for dt in (torch.int8, torch.uint8, torch.int16, torch.int32):
        a = x.abs().to(dt) if dt is torch.uint8 else x.to(dt)
        for got, want in zip(torch.max(a.to("npu"), 1), torch.max(a, 1)):
            close(got, want, 0)
        close(torch.min(a.to("npu"), 0).values, torch.min(a, 0).values, 0)
        close(torch.isinf(a.to("npu")), torch.isinf(a), 0)
    for dt in (torch.float64, torch.uint8, torch.int16):
        a = x.abs().to(dt)
        close(a.to("npu").masked_fill(mask.to("npu"), 9), a.masked_fill(mask, 9), 0)
        b = a.to("npu")
        b.masked_fill_(mask.to("npu"), 4)
        close(b, a.clone().masked_fill_(mask, 4), 0)
    d = torch.tensor([0.25, -1.5, 3.0], dtype=torch.float64)
    e = d.to("npu")
    e.sin_()
    close(e, torch.sin(d), 1e-12)


def test_dtypes_the_docs_leave_out_run_through_a_wider_one_or_fail_clearly():
    for dt in (torch.int8, torch.uint8, torch.int16):  # aclnnArange: no 8- / 16-bit integers; Linspace: no int64
        close(torch.arange(1, 20, 3, dtype=dt, device="npu:0"), torch.arange(1, 20, 3, dtype=dt), 0)
    close(torch.linspace(-7, 13, 6, dtype=torch.int64, device="npu:0"), torch.linspace(-7, 13, 6, dtype=torch.int64), 0)
    for dt in (torch.int8, torch.uint8, torch.int16):  # Remainder (scalar), Fmod and Addcmul lack some of them
        a, b = torch.tensor([7, 9, 100, 5, 0, 3]).to(dt), torch.tensor([3, 4, 7, 2, 5, 2]).to(dt)
        if dt is not torch.uint8:
            a = a * torch.tensor([1, -1, 1, -1, 1, 1]).to(dt)
        for f in (
            lambda x, y: torch.remainder(x, 3),
            lambda x, y: torch.fmod(x, y),
            lambda x, y: torch.addcmul(x, y, y, value=3),
        ):
            close(f(a.to("npu"), b.to("npu")), f(a, b), 0)
        c = a.to("npu")
        c.addcmul_(b.to("npu"), b.to("npu"))
        close(c, a.clone().addcmul_(b, b), 0)
    x = torch.randn(2, 3, dtype=torch.float64).to("npu")
    for fn in (
        lambda: torch.lerp(x, x, 0.5),
        lambda: F.layer_norm(x, (3,)),
        lambda: F.leaky_relu(x),
        lambda: F.softplus(x),
    ):
        with pytest.raises((TypeError, RuntimeError), match=r"float64.*Ascend910B1|Ascend910B1.*float64"):
            fn()


@pytest.mark.parametrize("soc", ["Ascend910A", "Ascend310P3"])
def test_factories_refuse_a_dtype_the_chip_cannot_hold_before_launching(soc):
    res = run_python(
        """
        import mindtorch as torch
        torch.zeros(1, device="npu")
        before = torch.npu.memory_allocated()
        for make in (
            lambda: torch.arange(1.0, 2.5, 0.25, dtype=torch.bfloat16, device="npu"),
            lambda: torch.eye(3, dtype=torch.bfloat16, device="npu"),
        ):
            try:
                make()
                said = "ran"
            except TypeError as exc:
                said = f"TypeError {'is not supported on' in str(exc)}"
            print(said, torch.npu.memory_allocated() == before)
        """,
        {"ACLSIM_SOC_NAME": soc},
    )
    assert res.returncode == 0, res.stderr[-2000:]
    assert res.stdout.split("\n")[:2] == ["TypeError True True"] * 2
