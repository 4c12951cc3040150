"""Hand-made checkpoints at the edges of the format, read by torch.load and mindtorch.load: what one
refuses the other refuses (mindtorch with CheckpointError), what one accepts the other accepts alike."""

import collections
import io
import pickle
import warnings
import zipfile

import pytest
from helpers import torch_or_skip

torch = torch_or_skip()

import mindtorch as mt  # noqa: E402
from mindtorch.serialization import CheckpointError  # noqa: E402


class _Storage:
    def __init__(self, location="cpu", numel=4, kind="FloatStorage"):
        self.pid = ("storage", getattr(torch, kind), "0", location, numel)


class _Tensor:
    def __init__(self, storage, offset, size, stride):
        self.args = (storage, offset, size, stride, False, collections.OrderedDict())

    def __reduce__(self):
        return (torch._utils._rebuild_tensor_v2, self.args)


class _Size:
    def __init__(self, values):
        self.values = values

    def __reduce__(self):
        return (torch.Size, (self.values,))


def _checkpoint(obj, extra=()):
    """A zip checkpoint whose data.pkl pickles obj, with one 16-byte storage record."""

    class Pickler(pickle.Pickler):
        def persistent_id(self, o):
            return o.pid if isinstance(o, _Storage) else None

    pkl = io.BytesIO()
    Pickler(pkl, protocol=2).dump(obj)
    out = io.BytesIO()
    with warnings.catch_warnings(), zipfile.ZipFile(out, "w") as z:
        warnings.simplefilter("ignore")  # a duplicate name is one of the cases
        z.writestr("archive/data.pkl", pkl.getvalue())
        z.writestr("archive/data/0", bytes(range(16)))
        z.writestr("archive/version", b"3\n")
        z.writestr("archive/byteorder", b"little")
        for name, data in extra:
            z.writestr(name, data)
    return out.getvalue()


def _tensor(size, stride, offset=0, location="cpu"):
    return _Tensor(_Storage(location), offset, size, stride)


REFUSED = {
    "numel_overflow": _checkpoint(_tensor((2**62, 2**62), (0, 0))),
    "numel_overflow_then_zero": _checkpoint(_tensor((2**62, 2**62, 0), (0, 0, 0))),
    "size_2_63": _checkpoint(_tensor((2**63,), (0,))),
    "size_2_63_with_zero": _checkpoint(_tensor((0, 2**63), (1, 1))),
    "stride_2_63": _checkpoint(_tensor((1,), (2**63,))),
    "offset_2_63": _checkpoint(_tensor((0,), (1,), offset=2**63)),
    "size_of_strings": _checkpoint(_Size(("a", "b"))),
    "size_of_floats": _checkpoint(_Size((1.5,))),
    "location_cpu_3": _checkpoint(_tensor((4,), (1,), location="cpu:3")),
    "location_cpu_0": _checkpoint(_tensor((4,), (1,), location="cpu:0")),
    "location_unknown": _checkpoint(_tensor((4,), (1,), location="parrot")),
    "two_top_level_folders": _checkpoint(_tensor((4,), (1,)), extra=[("other/data.pkl", b"x")]),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refused_as_pytorch_refuses(name):
    with pytest.raises((RuntimeError, TypeError, ValueError)):
        torch.load(io.BytesIO(REFUSED[name]))
    with pytest.raises(CheckpointError):
        mt.load(io.BytesIO(REFUSED[name]))


ACCEPTED = {
    "negative_size_value": (_checkpoint(_Size((-1,))), lambda r: list(r)),
    "duplicate_data_pkl": (
        _checkpoint(_tensor((4,), (1,)), extra=[("archive/data.pkl", pickle.dumps(5, protocol=2))]),
        lambda r: r,
    ),
    "bare_typed_storage": (
        _checkpoint(_Storage()),
        lambda r: (type(r).__name__, str(r.dtype), r.size(), r.tolist()),
    ),
    "bare_untyped_storage": (
        _checkpoint(_Storage(numel=16, kind="ByteStorage")),
        lambda r: (type(r).__name__, str(r.dtype), r.size(), r.tolist()),
    ),
    "location_meta": (_checkpoint(_tensor((4,), (1,), location="meta")), lambda r: (str(r.device), tuple(r.shape))),
}


@pytest.mark.parametrize("name", sorted(ACCEPTED))
def test_accepted_as_pytorch_accepts(name):
    raw, view = ACCEPTED[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # TypedStorage's deprecation
        assert view(mt.load(io.BytesIO(raw))) == view(torch.load(io.BytesIO(raw)))
