"""mindtorch.library.custom_op against torch.library."""

from helpers import torch_or_skip

torch = torch_or_skip()

import itertools  # noqa: E402

import mindtorch  # noqa: E402
import mindtorch.library  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

_ids = itertools.count()


def _define(lib, with_autograd):
    name = f"mtlibtest::scaled_sin{next(_ids)}_{lib.__name__}"

    @lib.library.custom_op(name, mutates_args=())
    def scaled_sin(x: lib.Tensor, scale: float) -> lib.Tensor:
        return x.sin() * scale

    @scaled_sin.register_fake
    def _(x, scale):
        return lib.empty_like(x)

    if with_autograd:

        def setup_context(ctx, inputs, output):
            x, scale = inputs
            ctx.save_for_backward(x)
            ctx.scale = scale

        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * x.cos() * ctx.scale, None

        scaled_sin.register_autograd(backward, setup_context=setup_context)
    return scaled_sin


@pytest.mark.parametrize("with_autograd", [True, False])
def test_custom_op_forward_and_backward(with_autograd):
    arr = np.array([0.1, -0.5, 2.0], dtype=np.float32)
    out = []
    for lib in (mindtorch, torch):
        op = _define(lib, with_autograd)
        x = lib.tensor(arr, requires_grad=True)
        y = op(x, 3.0)
        assert y.requires_grad
        try:
            y.sum().backward()
            out.append((y.detach().numpy(), x.grad.numpy()))
        except RuntimeError as e:
            out.append(("raise", str(e).split(" through ")[0], "no autograd formula" in str(e)))
        with lib.no_grad():
            assert not op(x, 1.0).requires_grad
    if isinstance(out[1][0], str):
        assert out[0] == out[1]
    else:
        np.testing.assert_allclose(out[0][0], out[1][0], rtol=1e-6)
        np.testing.assert_allclose(out[0][1], out[1][1], rtol=1e-6)


def test_keyword_arguments_and_kernel_registration():
    for lib in (mindtorch, torch):
        op = _define(lib, True)
        x = lib.tensor([1.0, 2.0])
        assert op(x, scale=2.0).tolist() == pytest.approx((x.sin() * 2.0).tolist())
        calls = []

        @op.register_kernel("cpu")
        def _(x, scale):
            calls.append(1)
            return x.cos() * scale

        assert op(x, 1.0).tolist() == pytest.approx(x.cos().tolist()) and calls == [1]
