"""mindtorch.save / load round trips and the restricted unpickler (no PyTorch)."""

import io
import pickle
import zipfile
from collections import OrderedDict

import mindtorch as torch
import mindtorch.nn as nn
import pytest
from mindtorch import serialization


def _round_trip(obj, **kw):
    buf = io.BytesIO()
    serialization.save(obj, buf)
    buf.seek(0)
    return serialization.load(buf, **kw)


def test_zip_layout(tmp_path):
    path = tmp_path / "ckpt.pt"
    serialization.save({"w": torch.ones(2, 3), "i": torch.arange(4)}, path)
    names = zipfile.ZipFile(path).namelist()
    assert "ckpt/data.pkl" in names and "ckpt/data/0" in names and "ckpt/data/1" in names
    assert "ckpt/byteorder" in names and "ckpt/version" in names
    with zipfile.ZipFile(path) as zf:
        for info in zf.infolist():
            if "/data/" in info.filename:
                assert (info.header_offset + 30 + len(info.filename) + len(info.extra)) % 64 == 0
        assert zf.read("ckpt/data/1") == torch.arange(4).numpy().tobytes()
        pkl = zf.read("ckpt/data.pkl")
    assert b"torch._utils\n_rebuild_tensor_v2" in pkl and b"torch\nFloatStorage" in pkl


def test_tensors_views_and_dtypes():
    base = torch.arange(12).float()
    obj = {
        "view": base[2:6],
        "mat": base.view(3, 4),
        "t": base.view(3, 4).t(),
        "bf": torch.ones(3, dtype=torch.bfloat16),
        "h": torch.tensor([1.5], dtype=torch.float16),
        "b": torch.tensor([True, False]),
        "g": torch.ones(2, requires_grad=True),
        "dt": torch.int32,
        "size": torch.Size([2, 3]),
    }
    out = _round_trip(obj)
    assert out["view"].tolist() == [2.0, 3.0, 4.0, 5.0] and out["view"].storage_offset() == 2
    assert out["t"].stride() == (1, 4) and out["t"].tolist() == base.view(3, 4).t().tolist()
    assert out["view"].untyped_storage() is out["mat"].untyped_storage()  # shared storage stays shared
    assert out["bf"].dtype is torch.bfloat16 and out["h"].dtype is torch.float16 and out["b"].tolist() == [True, False]
    assert out["g"].requires_grad and out["dt"] is torch.int32 and out["size"] == torch.Size([2, 3])


def test_state_dicts_and_nested_containers():
    model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4))
    opt = torch.optim.Adam(model.parameters())
    model(torch.randn(5, 3)).sum().backward()
    opt.step()
    ckpt = {"model": model.state_dict(), "opt": opt.state_dict(), "epoch": 3, "nested": [(1, "a"), {"x": None}]}
    out = _round_trip(ckpt)
    assert isinstance(out["model"], OrderedDict) and list(out["model"]) == list(model.state_dict())
    assert out["model"]._metadata["1"] == {"version": 2}
    m2 = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4))
    m2.load_state_dict(out["model"])
    assert m2[0].weight.tolist() == model[0].weight.tolist()
    assert out["opt"]["state"][0]["step"].item() == 1.0 and out["epoch"] == 3
    assert out["nested"] == [(1, "a"), {"x": None}]
    p = _round_trip(nn.Parameter(torch.ones(2)))
    assert isinstance(p, nn.Parameter) and p.requires_grad


def test_map_location_forms():
    t = torch.arange(3).float()
    assert _round_trip(t, map_location="cpu").tolist() == [0.0, 1.0, 2.0]
    assert _round_trip(t, map_location=torch.device("cpu")).device.type == "cpu"
    assert _round_trip(t, map_location={"cpu": "cpu"}).tolist() == [0.0, 1.0, 2.0]
    seen = []
    assert _round_trip(t, map_location=lambda s, loc: seen.append(loc) or s).tolist() == [0.0, 1.0, 2.0]
    assert seen == ["cpu"]


def test_refuses_unknown_globals():
    class Evil:
        def __reduce__(self):
            return (print, ("pwned",))

    buf = io.BytesIO()
    serialization.save({"x": Evil()}, buf)
    buf.seek(0)
    with pytest.raises(pickle.UnpicklingError, match="Unsupported global: GLOBAL builtins.print"):
        serialization.load(buf)
    with pytest.raises(RuntimeError, match="neither PyTorch.s zip format nor its legacy format"):
        serialization.load(io.BytesIO(b"not a zip"))


def test_plain_pickle_and_deepcopy_of_tensors():
    x = torch.arange(6).float().view(2, 3).requires_grad_()
    y = pickle.loads(pickle.dumps(x))
    assert y.tolist() == x.tolist() and y.requires_grad
    p = pickle.loads(pickle.dumps(nn.Parameter(torch.ones(2))))
    assert isinstance(p, nn.Parameter)


@pytest.mark.parametrize(
    "old, name",
    [
        ("mindtorch.nn.modules.misc", "Dropout"),
        ("mindtorch.nn.modules.activation_more", "Hardswish"),
        ("mindtorch.nn.modules.conv_more", "ConvTranspose2d"),
        ("mindtorch.optim._more", "RMSprop"),
        ("mindtorch.optim._schedulers_more", "OneCycleLR"),
        ("mindtorch.distributions.families", "Gamma"),
    ],
)
def test_whole_object_checkpoints_find_classes_that_moved(old, name):
    # a pickle naming a module an earlier mindtorch kept the class in
    new = serialization._MOVED_MODULES[old]
    buf = io.BytesIO()
    serialization.save(0, buf)
    with zipfile.ZipFile(buf) as zf:
        prefix = zf.namelist()[0].split("/")[0]
        others = {n: zf.read(n) for n in zf.namelist() if not n.endswith("data.pkl")}
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        zf.writestr(f"{prefix}/data.pkl", b"c" + old.encode() + b"\n" + name.encode() + b"\n.")
        for n, data in others.items():
            zf.writestr(n, data)
    out.seek(0)
    cls = serialization.load(out, weights_only=False)
    assert cls is getattr(__import__(new, fromlist=[name]), name)
    out.seek(0)
    with pytest.raises(pickle.UnpicklingError):
        serialization.load(out)  # weights-only refuses them as any other global
