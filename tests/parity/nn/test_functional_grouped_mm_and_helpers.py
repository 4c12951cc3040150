"""nn.functional.grouped_mm in its four operand forms (values and gradients on the groups PyTorch
defines), and the helpers nn.functional exports: the __torch_function__ protocol checks
(has_torch_function*, handle_torch_function), boolean_dispatch, assert_int_or_pair and the grid-sample
mode tables. Against PyTorch 2.13."""

import numpy as np
import pytest
from helpers import check_grad, torch_or_skip

torch = torch_or_skip()

import mindtorch as mt  # noqa: E402
import mindtorch.nn.functional as MF  # noqa: E402

R = np.random.default_rng(2)
OFFS = [4, 8, 12]
# name -> (a, b, the slice of the result PyTorch defines)
FORMS = {
    "2d x 3d": (R.standard_normal((12, 4)), R.standard_normal((3, 8, 4)).transpose(0, 2, 1), np.s_[:12]),
    "2d x 2d": (R.standard_normal((4, 12)), R.standard_normal((12, 8)), np.s_[:]),
    "3d x 2d": (R.standard_normal((3, 4, 4)), R.standard_normal((4, 12)), np.s_[:, :12]),
    "3d x 3d": (R.standard_normal((3, 4, 4)), R.standard_normal((3, 8, 4)).transpose(0, 2, 1), np.s_[:]),
}


def _run(L, name):
    a, b, _ = FORMS[name]
    ta = L.tensor(a.astype(np.float32), requires_grad=True)
    tb = L.tensor(np.ascontiguousarray(b).astype(np.float32))
    if name in ("2d x 3d", "3d x 3d"):  # PyTorch wants the second operand column-major there
        tb = L.tensor(np.ascontiguousarray(b.transpose(0, 2, 1)).astype(np.float32)).transpose(-2, -1)
    elif name == "3d x 2d":
        tb = L.tensor(np.ascontiguousarray(b.T).astype(np.float32)).t()
    tb.requires_grad_()
    offs = None if name == "3d x 3d" else L.tensor(OFFS, dtype=L.int32)
    out = L.nn.functional.grouped_mm(ta, tb, offs=offs)
    return out, ta, tb


@pytest.mark.parametrize("name", list(FORMS))
def test_grouped_mm(name):
    got, want = _run(mt, name), _run(torch, name)
    keep = FORMS[name][2]
    assert tuple(got[0].shape) == tuple(want[0].shape) and str(got[0].dtype) == str(want[0].dtype)
    np.testing.assert_allclose(got[0].detach().numpy()[keep], want[0].detach().numpy()[keep], rtol=1e-5, atol=1e-5)
    if name != "2d x 3d":  # PyTorch's backward reads the unset rows past the last offset there
        for L, r in ((mt, got), (torch, want)):
            # a dense gradient: PyTorch's cpu backward refuses an expanded one
            r[0].backward(L.arange(r[0].numel(), dtype=L.float32).reshape(r[0].shape) / 10)
        for a, b in zip(got[1:], want[1:]):
            np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-5, atol=1e-5)


def test_grouped_mm_gradcheck():
    a = mt.tensor(R.standard_normal((6, 3)), requires_grad=True)
    b = mt.tensor(R.standard_normal((2, 3, 2)), requires_grad=True)
    offs = mt.tensor([2, 6], dtype=mt.int32)
    check_grad(lambda a, b: MF.grouped_mm(a, b, offs=offs), a, b)


class Overriding:
    """An object taking over the torch functions it is passed to."""

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return ("overridden", func.__name__, len(args))


class Declining:
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return NotImplemented


def test_torch_function_helpers():
    for L in (mt, torch):
        F = L.nn.functional
        t = L.ones(2)
        assert not F.has_torch_function((t, 1)) and not F.has_torch_function_unary(t)
        assert F.has_torch_function((t, Overriding())) and F.has_torch_function_variadic(t, Overriding())

        def api(x, y):
            return "plain"

        assert F.handle_torch_function(api, (Overriding(),), Overriding(), 2) == ("overridden", "api", 2)
        with pytest.raises(TypeError, match="no implementation found for"):
            F.handle_torch_function(api, (Declining(),), Declining(), 2)


def test_boolean_dispatch_and_small_helpers():
    for L in (mt, torch):
        F = L.nn.functional

        def with_indices(x, flag=False):
            """Documented."""
            return "true"

        def without(x, flag=False):
            return "false"

        fn = F.boolean_dispatch("flag", 1, False, with_indices, without, "m", "chosen")
        assert (fn(1), fn(1, True), fn(1, flag=True)) == ("false", "true", "true")
        assert fn.__name__ == "chosen" and fn.__doc__ == "Documented." and fn.__module__ == "m"
        F.assert_int_or_pair(3, "k", "{} bad")
        with pytest.raises(AssertionError, match="k bad"):
            F.assert_int_or_pair((1, 2, 3), "k", "{} bad")
        assert F.GRID_SAMPLE_INTERPOLATION_MODES == {"bilinear": 0, "nearest": 1, "bicubic": 2}
        assert F.GRID_SAMPLE_PADDING_MODES == {"zeros": 0, "border": 1, "reflection": 2}
        assert F.TYPE_CHECKING is False
        assert set(F.reproducibility_notes) == {
            "forward_reproducibility_note",
            "backward_reproducibility_note",
            "cudnn_reproducibility_note",
        }
        assert set(F.tf32_notes) == {"tf32_note"}
