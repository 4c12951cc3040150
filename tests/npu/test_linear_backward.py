"""linear_backward's npu kernel against the op's decomposition on the same device: the same launches, so the same
bits, over input ranks, layouts, dtypes and output masks; and a linear layer's gradients as on the cpu."""

import mindtorch as torch
import numpy as np
import pytest
from mindtorch.plugins import OPS

NPU = torch.device("npu", 0)


SHAPES = [(shape, dtype) for shape in ((5,), (3, 5), (2, 3, 5), (2, 1, 3, 5)) for dtype in ("float32", "float16")]
LAYOUTS = ["transposed input", "expanded grad", "strided 3-D grad"]


def _case(case):
    """(input, grad, weight) on the npu, made inside the test: tensors made at collection would hold device
    memory through the whole session."""
    g = np.random.default_rng(0)
    if isinstance(case, tuple):
        shape, dtype = case
        x = torch.tensor(g.normal(size=shape).astype(dtype)).to(NPU)
        w = torch.tensor(g.normal(size=(4, 5)).astype(dtype)).to(NPU)
        return x, torch.tensor(g.normal(size=shape[:-1] + (4,)).astype(dtype)).to(NPU), w
    x = torch.tensor(g.normal(size=(6, 5)).astype("float32")).to(NPU)
    w = torch.tensor(g.normal(size=(4, 5)).astype("float32")).to(NPU)
    if case == "transposed input":
        return x.t().contiguous().t(), torch.ones(6, 4).to(NPU), w
    if case == "expanded grad":  # a mean loss's gradient
        return x, torch.tensor(0.5).to(NPU).expand(6, 4), w
    return x.reshape(2, 3, 5), torch.ones(2, 4, 3).to(NPU).transpose(1, 2), w


@pytest.mark.parametrize("case", SHAPES + LAYOUTS, ids=str)
def test_the_kernel_matches_the_decomposition_bit_for_bit(case):
    x, grad, w = _case(case)
    op = OPS["linear_backward"]
    for mask in ([True, True, True], [True, False, False], [False, True, True]):
        got = op.kernels["npu"](op.meta(x, grad, w, mask), x, grad, w, mask)
        want = op.composite(x, grad, w, mask)
        for a, b in zip(got, want):
            assert (a is None) == (b is None)
            if a is not None:
                assert (a.shape, a.dtype) == (b.shape, b.dtype)
                assert np.array_equal(a.cpu().numpy(), b.cpu().numpy()), case


def test_a_linear_layer_s_gradients_match_the_cpu():
    torch.manual_seed(0)
    layer = torch.nn.Linear(5, 4)
    x = torch.randn(2, 3, 5)
    grads = []
    for dev in ("cpu", NPU):
        lin = torch.nn.Linear(5, 4).to(dev)
        lin.load_state_dict(layer.state_dict())
        xd = x.detach().to(dev).requires_grad_()
        lin(xd).square().mean().backward()
        grads.append([t.cpu().numpy() for t in (xd.grad, lin.weight.grad, lin.bias.grad)])
    for a, b in zip(*grads):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
