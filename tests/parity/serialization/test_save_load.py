"""Checkpoints cross the library boundary: PyTorch loads mindtorch.save files and vice versa."""

import io
from collections import OrderedDict

import numpy as np
import pytest
from helpers import assert_same, torch_or_skip

torch = torch_or_skip()

import mindtorch as mt  # noqa: E402
from mindtorch import serialization  # noqa: E402


def _mt_model():
    return mt.nn.Sequential(mt.nn.Linear(4, 3), mt.nn.BatchNorm1d(3), mt.nn.Linear(3, 2))


def _torch_model():
    return torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.BatchNorm1d(3), torch.nn.Linear(3, 2))


def test_torch_loads_mindtorch_checkpoint(tmp_path):
    model = _mt_model()
    opt = mt.optim.AdamW(model.parameters(), lr=0.01)
    model(mt.randn(5, 4)).sum().backward()
    opt.step()
    base = mt.arange(10).float()
    path = tmp_path / "mt.pt"
    serialization.save(
        {
            "model": model.state_dict(),
            "opt": opt.state_dict(),
            "view": base[3:7],
            "whole": base,
            "bf16": mt.tensor([1.5, -2.0], dtype=mt.bfloat16),
            "half": mt.ones(2, dtype=mt.float16),
            "p": mt.nn.Parameter(mt.ones(2)),
            "i": mt.arange(3, dtype=mt.int32),
            "dtype": mt.float64,
            "size": mt.Size([1, 2]),
            "meta": {"epoch": 2, "names": ("a", "b")},
        },
        path,
    )
    ck = torch.load(path, weights_only=True)
    tm = _torch_model()
    tm.load_state_dict(ck["model"])
    for k, v in model.state_dict().items():
        assert_same(v, ck["model"][k])
    assert ck["model"]._metadata["1"] == {"version": 2}
    topt = torch.optim.AdamW(tm.parameters(), lr=0.01)
    topt.load_state_dict(ck["opt"])
    assert_same(opt.state_dict()["state"][0]["exp_avg"], topt.state_dict()["state"][0]["exp_avg"])
    assert ck["view"].tolist() == [3.0, 4.0, 5.0, 6.0] and ck["view"].storage_offset() == 3
    assert ck["view"].untyped_storage().data_ptr() == ck["whole"].untyped_storage().data_ptr()
    assert ck["bf16"].dtype == torch.bfloat16 and ck["bf16"].tolist() == [1.5, -2.0]
    assert ck["half"].dtype == torch.float16 and ck["i"].dtype == torch.int32
    assert isinstance(ck["p"], torch.nn.Parameter) and ck["p"].requires_grad
    assert ck["dtype"] == torch.float64 and ck["size"] == torch.Size([1, 2])
    assert ck["meta"] == {"epoch": 2, "names": ("a", "b")}


def test_mindtorch_loads_torch_checkpoint(tmp_path):
    torch.manual_seed(0)
    tm = _torch_model()
    topt = torch.optim.SGD(tm.parameters(), lr=0.1, momentum=0.9)
    tm(torch.randn(5, 4)).sum().backward()
    topt.step()
    t = torch.randn(3, 4)
    path = tmp_path / "torch.pt"
    torch.save(
        {
            "model": tm.state_dict(),
            "opt": topt.state_dict(),
            "t": t.t(),
            "narrow": t[1:, 2:],
            "p": torch.nn.Parameter(torch.ones(3)),
            "bf": torch.ones(2, dtype=torch.bfloat16) / 3,
            "b": torch.tensor([True, False]),
            "c": torch.tensor([1 + 2j]),
            "step": 7,
        },
        path,
    )
    ck = mt.load(path)
    model = _mt_model()
    model.load_state_dict(ck["model"])
    for k, v in tm.state_dict().items():
        assert_same(model.state_dict()[k], v)
    assert isinstance(ck["model"], OrderedDict) and ck["model"]._metadata["1"] == {"version": 2}
    opt = mt.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    opt.load_state_dict(ck["opt"])
    assert_same(opt.state[model[0].weight]["momentum_buffer"], topt.state[tm[0].weight]["momentum_buffer"])
    assert_same(ck["t"], t.t(), check_stride=True)
    assert_same(ck["narrow"], t[1:, 2:], check_stride=True)
    assert isinstance(ck["p"], mt.nn.Parameter) and ck["p"].requires_grad
    assert_same(ck["bf"], torch.ones(2, dtype=torch.bfloat16) / 3)
    assert ck["b"].tolist() == [True, False] and ck["c"].dtype is mt.complex64 and ck["step"] == 7
    for ml in ("cpu", mt.device("cpu"), {"cpu": "cpu"}, lambda s, loc: s):
        assert_same(mt.load(path, map_location=ml)["t"], t.t())


def test_full_module_pickle_is_refused_like_weights_only(tmp_path):
    path = tmp_path / "module.pt"
    torch.save(torch.nn.Linear(2, 2), path)
    import pickle

    with pytest.raises(pickle.UnpicklingError, match="Unsupported global: GLOBAL torch.nn.modules.linear.Linear"):
        mt.load(path)
    with pytest.raises(pickle.UnpicklingError):
        torch.load(path, weights_only=True)


def test_in_memory_buffers_round_trip():
    buf = io.BytesIO()
    serialization.save({"w": mt.tensor(np.arange(6, dtype=np.float64).reshape(2, 3))}, buf)
    buf.seek(0)
    out = torch.load(buf, weights_only=True)
    assert out["w"].dtype == torch.float64 and out["w"].tolist() == [[0, 1, 2], [3, 4, 5]]
    buf = io.BytesIO()
    torch.save({"w": torch.arange(4)}, buf)
    buf.seek(0)
    assert mt.load(buf)["w"].tolist() == [0, 1, 2, 3]
