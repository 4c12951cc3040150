"""torch.load beyond plain state dicts, against PyTorch: classes allowed through add_safe_globals /
safe_globals, the unsafe-globals report, an explicit pickle_module, and PyTorch's legacy (pre-zip) format."""

import io
import pickle
import struct
import sys
import types

import numpy as np
import pytest
from helpers import torch_or_skip

torch = torch_or_skip()

import mindtorch as mt  # noqa: E402
from mindtorch.serialization import CheckpointError  # noqa: E402


class Point:
    """A user class a checkpoint may carry (module-level, so both libraries pickle it by name)."""

    def __init__(self, lib, scale):
        self.weight = lib.arange(4.0) * scale
        self.label = f"p{scale}"


class Stateful(Point):
    def __getstate__(self):
        return {"w": self.weight, "tag": self.label.upper()}

    def __setstate__(self, state):
        self.weight, self.label = state["w"], state["tag"]


def _saved(lib, obj):
    buf = io.BytesIO()
    lib.save(obj, buf)
    return buf.getvalue()


def _as_np(t):
    return t.detach().numpy() if hasattr(t, "detach") else t


@pytest.fixture(autouse=True)
def _clean_allowlists():
    yield
    torch.serialization.clear_safe_globals()
    mt.serialization.clear_safe_globals()


@pytest.mark.parametrize("cls", [Point, Stateful])
@pytest.mark.parametrize("writer", ["torch", "mindtorch"])
@pytest.mark.parametrize("how", ["add", "context", "tuple"])
def test_allowlisted_classes_load_under_weights_only(cls, writer, how):
    for lib in (torch, mt):
        src = torch if writer == "torch" else mt
        data = _saved(src, {"p": cls(src, 2), "n": 1})
        with pytest.raises(pickle.UnpicklingError, match=f"{cls.__module__}.{cls.__qualname__}"):
            lib.load(io.BytesIO(data))
        if how == "add":
            lib.serialization.add_safe_globals([cls])
            got = lib.load(io.BytesIO(data))
        elif how == "tuple":
            lib.serialization.add_safe_globals([(cls, f"{cls.__module__}.{cls.__qualname__}")])
            got = lib.load(io.BytesIO(data))
        else:
            with lib.serialization.safe_globals([cls]):
                got = lib.load(io.BytesIO(data))
            with pytest.raises(pickle.UnpicklingError):
                lib.load(io.BytesIO(data))  # the context's allowance ends with it
        assert type(got["p"]) is cls and got["n"] == 1
        np.testing.assert_array_equal(_as_np(got["p"].weight), np.arange(4.0) * 2)
        assert got["p"].label == ("P2" if cls is Stateful else "p2")
        lib.serialization.clear_safe_globals()


def test_unsafe_globals_report_and_bad_allowlist_entries_match():
    data = _saved(torch, {"p": Point(torch, 1), "s": {1, 2}, "t": torch.ones(2)})
    report = {lib: lib.serialization.get_unsafe_globals_in_checkpoint(io.BytesIO(data)) for lib in (torch, mt)}
    assert report[mt] == sorted(report[torch]) == [f"{__name__}.Point"]
    for bad in ([(Point, "a", "b")], [(Point, 3)]):
        outcome = {}
        for lib in (torch, mt):
            lib.serialization.add_safe_globals(bad)
            with pytest.raises((ValueError, TypeError)) as info:
                lib.load(io.BytesIO(data))
            outcome[lib] = (info.type, str(info.value))
            lib.serialization.clear_safe_globals()
        assert outcome[mt] == outcome[torch]


def _counting_pickle_module():
    module = types.ModuleType("counting_pickle")
    module.__dict__.update({k: getattr(pickle, k) for k in dir(pickle) if not k.startswith("__")})
    seen = []

    class Unpickler(pickle.Unpickler):
        def find_class(self, mod, name):
            seen.append(f"{mod}.{name}")
            return super().find_class(mod, name)

    module.Unpickler = Unpickler
    return module, seen


def test_an_explicit_pickle_module_means_a_full_unpickle_through_it():
    for lib in (torch, mt):
        data = _saved(lib, {"p": Point(lib, 3)})
        with pytest.raises(RuntimeError, match="Can not safely load weights when explicit pickle_module"):
            lib.load(io.BytesIO(data), pickle_module=pickle, weights_only=True)
        assert type(lib.load(io.BytesIO(data), pickle_module=pickle)["p"]) is Point
        module, seen = _counting_pickle_module()
        got = lib.load(io.BytesIO(data), pickle_module=module)
        assert f"{__name__}.Point" in seen
        np.testing.assert_array_equal(_as_np(got["p"].weight), np.arange(4.0) * 3)


LEGACY_OBJECTS = {
    "float": lambda: torch.arange(6.0).view(2, 3),
    "view of a shared storage": lambda: (lambda w: {"w": w, "col": w[:, 1], "t": w.t()})(torch.arange(6.0).view(2, 3)),
    "dtypes": lambda: {
        str(d): torch.arange(5).to(d)
        for d in (torch.float64, torch.float16, torch.bfloat16, torch.int8, torch.uint8, torch.int32, torch.bool)
    },
    "complex": lambda: torch.tensor([1 + 2j, -3j]),
    "parameter": lambda: torch.nn.Parameter(torch.ones(3)),
    "state dict": lambda: torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.ReLU()).state_dict(),
    "optimizer": lambda: torch.optim.Adam([torch.nn.Parameter(torch.ones(2))]).state_dict(),
    "empty": lambda: torch.empty(0, 3),
}


def _legacy_bytes(obj):
    buf = io.BytesIO()
    torch.save(obj, buf, _use_new_zipfile_serialization=False)
    return buf.getvalue()


def _same(a, b):
    if isinstance(a, dict):
        assert list(a) == list(b)
        for k in a:
            _same(a[k], b[k])
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y)
    elif isinstance(a, torch.Tensor):
        assert str(b.dtype).split(".")[-1] == str(a.dtype).split(".")[-1]
        assert tuple(b.shape) == tuple(a.shape) and b.stride() == a.stride()
        assert type(b).__name__ == type(a).__name__
        np.testing.assert_array_equal(
            b.detach().float().numpy() if a.dtype == torch.bfloat16 else b.detach().numpy(),
            a.detach().float().numpy() if a.dtype == torch.bfloat16 else a.detach().numpy(),
        )
    else:
        assert a == b


@pytest.mark.parametrize("name", list(LEGACY_OBJECTS))
def test_legacy_format_checkpoints_load_as_pytorch_loads_them(name):
    data = _legacy_bytes(LEGACY_OBJECTS[name]())
    want = torch.load(io.BytesIO(data))
    got = mt.load(io.BytesIO(data))
    _same(want, got)


def test_legacy_views_share_their_storage_after_load():
    got = mt.load(io.BytesIO(_legacy_bytes(LEGACY_OBJECTS["view of a shared storage"]())))
    got["w"][0, 1] = 100.0
    assert got["col"][0].item() == 100.0 and got["t"][1, 0].item() == 100.0


def test_legacy_format_keeps_weights_only_and_refuses_damage():
    data = _legacy_bytes({"p": Point(torch, 1)})
    with pytest.raises(pickle.UnpicklingError, match="Point"):
        mt.load(io.BytesIO(data))
    with mt.serialization.safe_globals([Point]):
        assert type(mt.load(io.BytesIO(data))["p"]) is Point
    good = _legacy_bytes({"w": torch.arange(4.0)})
    for damaged in (good[:-3], good[:20], b"\x80\x02K\x05." + good[20:]):
        with pytest.raises(CheckpointError):
            mt.load(io.BytesIO(damaged))
    # a storage whose element count disagrees with its pickle
    count_at = len(good) - 4 * 4 - 8
    (count,) = struct.unpack("<q", good[count_at : count_at + 8])
    assert count == 4
    wrong = good[:count_at] + struct.pack("<q", 3) + good[count_at + 8 :]
    with pytest.raises(CheckpointError, match="4"):
        mt.load(io.BytesIO(wrong))


def test_legacy_format_honours_map_location():
    data = _legacy_bytes({"w": torch.arange(3.0)})
    got = mt.load(io.BytesIO(data), map_location="meta")
    assert got["w"].device.type == "meta" and tuple(got["w"].shape) == (3,)
    seen = []
    mt.load(io.BytesIO(data), map_location=lambda s, loc: seen.append(loc))
    assert seen == ["cpu"]


def test_a_whole_model_checkpoint_round_trips_as_the_word_language_model_example_does():
    model = mt.nn.Sequential(mt.nn.Embedding(10, 4), mt.nn.Linear(4, 10))
    data = _saved(mt, model)
    with pytest.raises(pickle.UnpicklingError):
        mt.load(io.BytesIO(data))
    reloaded = mt.load(io.BytesIO(data), weights_only=False)
    x = mt.tensor([[1, 2, 3]])
    np.testing.assert_array_equal(reloaded(x).detach().numpy(), model(x).detach().numpy())
    needed = mt.serialization.get_unsafe_globals_in_checkpoint(io.BytesIO(data))
    classes = [getattr(sys.modules[n.rsplit(".", 1)[0]], n.rsplit(".", 1)[1]) for n in needed]
    with mt.serialization.safe_globals(classes):
        safe = mt.load(io.BytesIO(data))
    np.testing.assert_array_equal(safe(x).detach().numpy(), model(x).detach().numpy())
