"""nn.utils' fusion helpers, skip_init, stateless.functional_call and get_total_norm / clip_grads_with_norm_
against PyTorch's."""

import mindtorch
import numpy as np
import pytest
from helpers import torch_or_skip

torch = torch_or_skip()


def _copy_into(ours, theirs):
    """Give PyTorch's module our module's parameters and buffers."""
    with torch.no_grad():
        for name, t in list(ours.named_parameters()) + list(ours.named_buffers()):
            dest = theirs.get_parameter(name) if "." in name or name in theirs._parameters else None
            dest = dest if dest is not None else theirs.get_buffer(name)
            dest.copy_(torch.from_numpy(t.detach().numpy().copy()))


def _eval_pair(lib, kind, transpose=False):
    nn = lib.nn
    if kind == "conv":
        layer = nn.ConvTranspose2d(3, 4, 3, bias=False) if transpose else nn.Conv2d(3, 4, 3)
        bn = nn.BatchNorm2d(4)
    elif kind == "conv1d":
        layer, bn = nn.Conv1d(3, 4, 2, dtype=lib.float64), nn.BatchNorm1d(4, dtype=lib.float64)
    elif kind == "linear_bn1":
        layer, bn = nn.Linear(3, 4), nn.BatchNorm1d(1)
    else:
        layer, bn = nn.Linear(3, 4), nn.BatchNorm1d(4)
    return layer.eval(), bn.eval()


@pytest.mark.parametrize(
    "kind,transpose", [("conv", False), ("conv", True), ("conv1d", False), ("linear", False), ("linear_bn1", False)]
)
def test_fusion_matches_pytorch(kind, transpose):
    ours_layer, ours_bn = _eval_pair(mindtorch, kind, transpose)
    with mindtorch.no_grad():
        ours_bn.running_mean.normal_()
        ours_bn.running_var.uniform_(0.5, 2.0)
        if ours_bn.weight is not None:
            ours_bn.weight.uniform_(0.5, 1.5)
            ours_bn.bias.normal_()
    theirs_layer, theirs_bn = _eval_pair(torch, kind, transpose)
    _copy_into(ours_layer, theirs_layer)
    _copy_into(ours_bn, theirs_bn)
    if kind.startswith("conv"):
        fuse_o = mindtorch.nn.utils.fuse_conv_bn_eval(ours_layer, ours_bn, transpose)
        fuse_t = torch.nn.utils.fuse_conv_bn_eval(theirs_layer, theirs_bn, transpose)
        shape = (2, 3, 6, 6) if kind == "conv" else (2, 3, 7)
    else:
        fuse_o = mindtorch.nn.utils.fuse_linear_bn_eval(ours_layer, ours_bn)
        fuse_t = torch.nn.utils.fuse_linear_bn_eval(theirs_layer, theirs_bn)
        shape = (5, 3)
    assert fuse_o is not ours_layer and type(fuse_o.weight) is mindtorch.nn.Parameter
    for name in ("weight", "bias"):
        o, t = getattr(fuse_o, name), getattr(fuse_t, name)
        assert str(o.dtype)[-7:] == str(t.dtype)[-7:] and o.requires_grad == t.requires_grad
        np.testing.assert_allclose(o.detach().numpy(), t.detach().numpy(), rtol=1e-5, atol=1e-6)
    if kind == "linear_bn1":  # one statistic for every feature: no unfused layer pair computes this
        return
    x = mindtorch.randn(*shape, dtype=ours_layer.weight.dtype)
    np.testing.assert_allclose(
        fuse_o(x).detach().numpy(), ours_bn(ours_layer(x)).detach().numpy(), rtol=1e-4, atol=1e-5
    )


def test_fuse_weights_directly_and_dtype():
    def run(lib):
        w, rm = lib.ones(2, 3, dtype=lib.float64), lib.tensor([0.5, -1.0])
        rv, bw, bb = lib.tensor([2.0, 0.5]), lib.tensor([1.5, 2.0]), lib.tensor([0.1, 0.2])
        conv = lib.nn.utils.fuse_conv_bn_weights(lib.ones(2, 3, 1, dtype=lib.float64), None, rm, rv, 1e-5, None, None)
        lin = lib.nn.utils.fuse_linear_bn_weights(w, None, rm, rv, 1e-5, bw, bb)
        return conv + lin

    for o, t in zip(run(mindtorch), run(torch)):
        assert str(o.dtype)[-7:] == str(t.dtype)[-7:] and o.requires_grad == t.requires_grad
        np.testing.assert_allclose(o.detach().numpy(), t.detach().numpy(), rtol=1e-6)


@pytest.mark.parametrize("case", ["train_conv", "train_linear", "features"])
def test_fusion_errors(case):
    def run(lib):
        nn = lib.nn
        if case == "train_conv":
            return nn.utils.fuse_conv_bn_eval(nn.Conv2d(1, 2, 1), nn.BatchNorm2d(2).eval())
        if case == "train_linear":
            return nn.utils.fuse_linear_bn_eval(nn.Linear(1, 2).eval(), nn.BatchNorm1d(2))
        return nn.utils.fuse_linear_bn_eval(nn.Linear(1, 2).eval(), nn.BatchNorm1d(3).eval())

    with pytest.raises(AssertionError) as t:
        run(torch)
    with pytest.raises(AssertionError) as o:
        run(mindtorch)
    assert str(o.value) == str(t.value)


def test_skip_init():
    m = mindtorch.nn.utils.skip_init(mindtorch.nn.Linear, 3, 4, dtype=mindtorch.float64)
    t = torch.nn.utils.skip_init(torch.nn.Linear, 3, 4, dtype=torch.float64)
    assert tuple(m.weight.shape) == tuple(t.weight.shape) == (4, 3) and m.weight.device.type == "cpu"
    assert m.weight.dtype is mindtorch.float64 and isinstance(m.weight, mindtorch.nn.Parameter)
    for lib in (mindtorch, torch):
        with pytest.raises(RuntimeError, match="Expected a Module"):
            lib.nn.utils.skip_init(int)
        with pytest.raises(RuntimeError, match="must support a 'device' arg"):
            lib.nn.utils.skip_init(lib.nn.ReLU)


def test_stateless_functional_call_warns_and_calls():
    for lib in (mindtorch, torch):
        m = lib.nn.Linear(3, 2)
        params = {"weight": lib.ones(2, 3), "bias": lib.tensor([1.0, -1.0])}
        with pytest.warns(FutureWarning, match="torch.func.functional_call"):
            out = lib.nn.utils.stateless.functional_call(m, params, (lib.ones(1, 3),))
        assert out.tolist() == [[4.0, 2.0]]
        with pytest.warns(FutureWarning):
            assert lib.nn.utils.stateless.functional_call(m, params, lib.zeros(1, 3)).tolist() == [[1.0, -1.0]]
        assert sorted(lib.nn.utils.stateless.__all__) == ["functional_call"]


@pytest.mark.parametrize("norm_type", [2.0, 1, float("inf"), 3.5])
def test_get_total_norm_and_clip(norm_type):
    def run(lib):
        ps = [lib.nn.Parameter(lib.tensor(v, dtype=lib.float64)) for v in ([3.0, -4.0], [[1.0, 2.0], [0.5, -7.0]])]
        for p in ps:
            p.grad = p.detach() * 2
        total = lib.nn.utils.get_total_norm([p.grad for p in ps], norm_type)
        lib.nn.utils.clip_grads_with_norm_(ps, 1.5, total)
        return total, [p.grad for p in ps]

    (to, go), (tt, gt) = run(mindtorch), run(torch)
    np.testing.assert_allclose(to.numpy(), tt.numpy(), rtol=1e-12)
    for o, t in zip(go, gt):
        np.testing.assert_allclose(o.numpy(), t.numpy(), rtol=1e-12)


def test_get_total_norm_nonfinite_error():
    for lib in (mindtorch, torch):
        with pytest.raises(RuntimeError, match="non-finite"):
            lib.nn.utils.get_total_norm([lib.tensor([float("nan")])], error_if_nonfinite=True)
