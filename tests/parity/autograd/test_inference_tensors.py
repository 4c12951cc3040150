"""Inference tensors: what inference_mode makes answers is_inference() as in PyTorch."""

import threading

import pytest
from helpers import raises_alike, torch_or_skip

torch = torch_or_skip()

import mindtorch as mt  # noqa: E402


def _scenario(lib):
    """Tensors made inside and outside (nested) inference modes, and views across the boundary."""
    normal = lib.ones(3, requires_grad=False)
    leaf = lib.ones(3, requires_grad=True)
    out = {"normal": normal}
    with lib.inference_mode():
        out["factory"] = lib.zeros(2, 2)
        out["from_data"] = lib.tensor([1.0, 2.0])
        out["op_on_normal"] = normal * 2
        out["op_on_leaf"] = leaf + 1
        out["view_of_normal"] = normal[1:]
        out["reshape_of_normal"] = normal.view(3, 1)
        out["inplace_normal"] = normal.add_(1)
        out["view_of_inference"] = out["factory"][0]
        out["clone_of_normal"] = normal.clone()
        with lib.inference_mode(False):
            out["nested_off"] = lib.ones(2)
            out["nested_off_op_on_inference"] = out["factory"] + 1
        with lib.no_grad():
            out["no_grad_inside"] = lib.ones(2)
    out["after_exit"] = lib.ones(2)
    out["op_on_inference_after"] = out["factory"] + 1
    out["view_of_inference_after"] = out["factory"][1:]
    with lib.no_grad():
        out["no_grad_only"] = lib.ones(2)

    @lib.inference_mode()
    def decorated():
        return lib.ones(1)

    out["decorated"] = decorated()
    return out


def test_is_inference_matches_torch():
    ours, theirs = _scenario(mt), _scenario(torch)
    assert {k: t.is_inference() for k, t in ours.items()} == {k: t.is_inference() for k, t in theirs.items()}
    assert {k: mt.is_inference(t) for k, t in ours.items()} == {k: torch.is_inference(t) for k, t in theirs.items()}


@pytest.mark.parametrize("arg", [3, [1.0], None])
def test_is_inference_rejects_non_tensors(arg):
    raises_alike(lambda lib: lib.is_inference(arg))


def test_inference_mode_is_per_thread():
    started, release, made = threading.Event(), threading.Event(), {}

    def worker():
        with mt.inference_mode():
            made["worker"] = mt.ones(1)
            started.set()
            release.wait(10)

    th = threading.Thread(target=worker)
    th.start()
    started.wait(10)
    made["main"] = mt.ones(1)  # made while the other thread is in inference mode
    release.set()
    th.join()
    assert made["worker"].is_inference() and not made["main"].is_inference()
    assert not mt.ones(1).is_inference()
