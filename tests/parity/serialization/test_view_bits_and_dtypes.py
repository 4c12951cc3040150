"""PyTorch checkpoints whose tensors carry the lazy conjugate / negative bits, and the unsigned dtypes
PyTorch stores but cannot compute with (uint16, uint32, uint64): written by real torch, read by mindtorch,
and back."""

import io
import zipfile

import pytest
from helpers import assert_same, torch_or_skip

torch = torch_or_skip()

import mindtorch as mt  # noqa: E402

_C = [1 + 2j, -3.5 + 0.25j, 0 - 1j]


def _torch_saved(obj):
    buf = io.BytesIO()
    torch.save(obj, buf)
    buf.seek(0)
    return buf


VIEW_BITS = {
    "conj": lambda c: c.conj(),
    "conj_imag": lambda c: c.conj().imag,
    "conj_real": lambda c: c.conj().real,
    "neg_view": lambda c: torch._neg_view(c),
    "conj_of_neg_view": lambda c: torch._neg_view(c).conj(),
    "conj_slice": lambda c: c.conj()[1:],
    "conj_transposed": lambda c: c.reshape(1, 3).expand(2, 3).conj().mT,
    "conj_float64": lambda c: c.to(torch.complex128).conj(),
}


@pytest.mark.parametrize("name", sorted(VIEW_BITS))
def test_view_bits_are_applied_on_load(name):
    t = VIEW_BITS[name](torch.tensor(_C))
    loaded = mt.load(_torch_saved(t))
    assert_same(loaded, t.resolve_conj().resolve_neg())


def test_view_bits_with_shared_storage_and_grad():
    c = torch.tensor(_C, requires_grad=False)
    p = c.conj().requires_grad_()
    loaded = mt.load(_torch_saved({"plain": c, "conj": p}))
    assert_same(loaded["plain"], c)
    assert_same(loaded["conj"].detach(), p.detach().resolve_conj())
    assert loaded["conj"].requires_grad


def _with_pickle_edit(buf, old, new):
    """The checkpoint in `buf` with one byte string of its data.pkl replaced."""
    zin = zipfile.ZipFile(buf)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zout:
        for info in zin.infolist():
            data = zin.read(info)
            if info.filename.endswith("data.pkl"):
                assert old in data
                data = data.replace(old, new)
            zout.writestr(info, data)
    out.seek(0)
    return out.getvalue()


def test_conj_bit_on_a_real_tensor_is_refused_as_pytorch_does():
    from mindtorch.serialization import CheckpointError

    raw = _with_pickle_edit(
        _torch_saved(torch._neg_view(torch.tensor([1.0, 2.0]))), b"X\x03\x00\x00\x00neg", b"X\x04\x00\x00\x00conj"
    )
    with pytest.raises(RuntimeError):
        torch.load(io.BytesIO(raw))
    with pytest.raises(CheckpointError):
        mt.load(io.BytesIO(raw))


WIDE_UINTS = ["uint16", "uint32", "uint64"]
_WIDE = [0, 1, 300, 65535]


@pytest.mark.parametrize("dtype", WIDE_UINTS)
def test_wide_unsigned_tensors_pickle(dtype):
    import pickle

    t = mt.tensor(_WIDE, dtype=getattr(mt, dtype))[1:]
    back = pickle.loads(pickle.dumps(t))
    assert back.dtype is t.dtype
    assert back.tolist() == t.tolist()


@pytest.mark.parametrize("dtype", WIDE_UINTS)
def test_torch_checkpoint_of_wide_unsigned_loads(dtype):
    t = torch.tensor(_WIDE, dtype=getattr(torch, dtype))
    loaded = mt.load(_torch_saved({"whole": t, "tail": t[2:], "grid": t.reshape(2, 2).t()}))
    for key, want in (("whole", t), ("tail", t[2:]), ("grid", t.reshape(2, 2).t())):
        assert str(loaded[key].dtype) == str(want.dtype)
        assert loaded[key].shape == want.shape and loaded[key].stride() == want.stride()
        assert loaded[key].tolist() == want.tolist()


@pytest.mark.parametrize("dtype", WIDE_UINTS)
def test_mindtorch_checkpoint_of_wide_unsigned_loads_in_torch(dtype):
    t = mt.tensor(_WIDE, dtype=getattr(mt, dtype))
    buf = io.BytesIO()
    mt.save({"whole": t, "tail": t[2:], "f": mt.ones(2)}, buf)
    buf.seek(0)
    loaded = torch.load(buf)
    assert str(loaded["whole"].dtype) == str(t.dtype)
    assert loaded["whole"].tolist() == _WIDE and loaded["tail"].tolist() == _WIDE[2:]
    assert loaded["tail"].untyped_storage().data_ptr() == loaded["whole"].untyped_storage().data_ptr()
    buf.seek(0)
    again = mt.load(buf)
    assert again["whole"].dtype is t.dtype and again["tail"].tolist() == _WIDE[2:]


def test_untyped_storage_too_small_for_its_dtype_is_refused():
    from mindtorch.serialization import CheckpointError

    raw = _with_pickle_edit(_torch_saved(torch.tensor(_WIDE, dtype=torch.uint64)), b"K\x04\x85", b"K\x05\x85")
    for lib, err in ((torch, RuntimeError), (mt, CheckpointError)):
        with pytest.raises(err):
            lib.load(io.BytesIO(raw))
