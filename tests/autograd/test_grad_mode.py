"""no_grad / enable_grad / set_grad_enabled / inference_mode."""

import threading

import mindtorch as torch
import pytest


def leaf():
    return torch.ones(2, dtype=torch.float64).requires_grad_()


def test_no_grad_context_and_nesting():
    x = leaf()
    with torch.no_grad():
        assert not torch.is_grad_enabled()
        y = x * 2
        with torch.enable_grad():
            z = x * 2
    assert torch.is_grad_enabled()
    assert not y.requires_grad and y.grad_fn is None
    assert z.requires_grad


@pytest.mark.parametrize("deco", ["bare", "call"])
def test_no_grad_decorator(deco):
    def f(x):
        return x * 2, torch.is_grad_enabled()

    f = torch.no_grad(f) if deco == "bare" else torch.no_grad()(f)
    y, enabled = f(leaf())
    assert not enabled and not y.requires_grad
    assert torch.is_grad_enabled()


def test_enable_grad_decorator_inside_no_grad():
    @torch.enable_grad()
    def f(x):
        return x * 2

    with torch.no_grad():
        assert f(leaf()).requires_grad


def test_set_grad_enabled_function_context_decorator():
    torch.set_grad_enabled(False)
    try:
        assert not torch.is_grad_enabled()
    finally:
        torch.set_grad_enabled(True)
    assert torch.is_grad_enabled()
    with torch.set_grad_enabled(False):
        assert not torch.is_grad_enabled()
    assert torch.is_grad_enabled()

    @torch.set_grad_enabled(False)
    def f():
        return torch.is_grad_enabled()

    assert torch.is_grad_enabled()  # decorating does not change the mode
    assert f() is False and torch.is_grad_enabled()
    with pytest.raises(TypeError):
        torch.set_grad_enabled("yes")


def test_generator_decorated_mode_applies_inside_only():
    @torch.no_grad()
    def gen():
        for _ in range(2):
            yield torch.is_grad_enabled()

    g = gen()
    assert next(g) is False
    assert torch.is_grad_enabled()  # the caller between yields is unaffected
    assert next(g) is False
    with pytest.raises(StopIteration):
        next(g)


def test_restored_on_exception():
    with pytest.raises(ValueError), torch.no_grad():
        raise ValueError
    assert torch.is_grad_enabled()


def test_inference_mode():
    x = leaf()
    with torch.inference_mode():
        assert not torch.is_grad_enabled() and torch.is_inference_mode_enabled()
        y = x * 2
    assert not y.requires_grad and not torch.is_inference_mode_enabled()
    with torch.inference_mode(False):
        assert torch.is_grad_enabled()

    @torch.inference_mode
    def f():
        return torch.is_grad_enabled()

    assert f() is False


def test_grad_mode_is_thread_local():
    seen = {}
    with torch.no_grad():

        def worker():
            seen["enabled"] = torch.is_grad_enabled()
            seen["rg"] = (leaf() * 2).requires_grad

        t = threading.Thread(target=worker)
        t.start()
        t.join()
        assert not torch.is_grad_enabled()
    assert seen == {"enabled": True, "rg": True}
