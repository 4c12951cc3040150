"""Names of smaller namespaces PyTorch programs reach for: nn.utils.convert_conv2d/3d_weight_memory_format,
optim.swap_in_optimizer_params_and_state, utils.data._DatasetKind's fetchers and torch.fft.Tensor. Against
PyTorch 2.13."""

import numpy as np
import pytest
from helpers import torch_or_skip

torch = torch_or_skip()

import mindtorch as mt  # noqa: E402


@pytest.mark.parametrize("rank", [2, 3])
def test_convert_conv_weight_memory_format(rank):
    res = []
    for L in (mt, torch):
        L.manual_seed(0)
        conv, tconv = getattr(L.nn, f"Conv{rank}d"), getattr(L.nn, f"ConvTranspose{rank}d")
        model = L.nn.Sequential(conv(2, 3, 1), L.nn.Sequential(tconv(3, 2, 1)), L.nn.Linear(2, 2))
        before = [p.detach().clone() for p in model.parameters()]
        fmt = L.channels_last if rank == 2 else L.channels_last_3d
        convert = getattr(L.nn.utils, f"convert_conv{rank}d_weight_memory_format")
        out = convert(model, fmt)
        same = [bool((a == p.detach()).all()) for a, p in zip(before, model.parameters())]
        fresh = [model[0].weight.data_ptr() != before[0].data_ptr()]
        res.append((out is model, same, fresh, [type(p).__name__ for p in model.parameters()]))
    assert res[0] == res[1]


def _optimizer(L):
    L.manual_seed(0)
    w = L.nn.Parameter(L.tensor([1.0, 2.0]))
    b = L.nn.Parameter(L.tensor([0.5]))
    opt = L.optim.Adam([{"params": [w]}, {"params": [b], "lr": 0.5}], lr=0.1)
    (w.sum() + b.sum()).backward()
    opt.step()
    return w, b, opt


def test_swap_in_optimizer_params_and_state():
    res = []
    for L in (mt, torch):
        w, b, opt = _optimizer(L)
        live_state = opt.state
        sd = opt.state_dict()
        sd["param_groups"][0]["lr"] = 1.0
        sd["state"] = {k: {n: v.clone() for n, v in s.items()} for k, s in sd["state"].items()}
        new_w = L.nn.Parameter(L.tensor([10.0, 20.0]))
        new_b = L.nn.Parameter(L.tensor([5.0]))
        new_w.grad, new_b.grad = L.ones(2), L.ones(1)
        with L.optim.swap_in_optimizer_params_and_state(opt, {"w": new_w, "b": new_b}, sd):
            inside = (opt.param_groups[0]["params"][0] is new_w, opt.param_groups[0]["lr"], len(opt.state))
            opt.step()
        res.append(
            (
                inside,
                new_w.tolist(),
                new_b.tolist(),
                w.tolist(),
                opt.param_groups[0]["lr"],
                opt.param_groups[0]["params"][0] is w,
                opt.state is live_state,
                sd["state"][0]["step"].item(),
            )
        )
    for k in (1, 2, 3):  # the swapped-in parameters stepped, the live ones left alone
        np.testing.assert_allclose(res[0][k], res[1][k], rtol=1e-6)
    assert res[0][0] == res[1][0] and res[0][4:] == res[1][4:]


BAD_SWAPS = {
    "uninitialized": lambda L, opt, sd, p: L.optim.swap_in_optimizer_params_and_state(
        L.optim.SGD([L.nn.Parameter(L.zeros(1))], lr=0.1), {}, sd
    ),
    "not a dict": lambda L, opt, sd, p: L.optim.swap_in_optimizer_params_and_state(opt, p, [1]),
    "too few parameters": lambda L, opt, sd, p: L.optim.swap_in_optimizer_params_and_state(opt, {"w": p["w"]}, sd),
}


@pytest.mark.parametrize("name", list(BAD_SWAPS))
def test_swap_in_errors(name):
    msgs = []
    for L in (mt, torch):
        w, b, opt = _optimizer(L)
        with pytest.raises(RuntimeError) as info, BAD_SWAPS[name](L, opt, opt.state_dict(), {"w": w, "b": b}):
            pass
        msgs.append(str(info.value))
    assert msgs[0] == msgs[1]


class Squares:
    def __getitem__(self, i):
        return i * i

    def __len__(self):
        return 5


class Counter:
    def __iter__(self):
        return iter(range(5))


@pytest.mark.parametrize("batched,drop_last", [(True, False), (True, True), (False, False)])
def test_dataset_kind_fetchers(batched, drop_last):
    res = []
    for L in (mt, torch):
        kind = L.utils.data._DatasetKind
        collate = L.utils.data.default_collate if batched else L.utils.data.default_convert
        got = []
        m = kind.create_fetcher(kind.Map, Squares(), batched, collate, drop_last)
        got.append(m.fetch([1, 3]) if batched else m.fetch(3))
        it = kind.create_fetcher(kind.Iterable, Counter(), batched, collate, drop_last)
        try:
            while True:
                got.append(it.fetch([0, 0]) if batched else it.fetch(None))
        except StopIteration:
            pass
        res.append(([g.tolist() if hasattr(g, "tolist") else g for g in got], kind.Map, kind.Iterable))
    assert res[0] == res[1]


def test_fft_tensor_is_the_tensor_class():
    assert mt.fft.Tensor is mt.Tensor and torch.fft.Tensor is torch.Tensor
    assert "Tensor" in mt.fft.__all__ and "Tensor" in torch.fft.__all__
