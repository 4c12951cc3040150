"""torch.serialization's settings and location registry, against PyTorch's."""

import io
import mmap
import sys
import types
import warnings
import zipfile

import numpy as np
import pytest
from helpers import torch_or_skip

torch = torch_or_skip()

import mindtorch as mt  # noqa: E402
from mindtorch import serialization as ms  # noqa: E402

ts = torch.serialization


def test_load_endianness_enum_matches():
    assert [(e.name, e.value) for e in ms.LoadEndianness] == [(e.name, e.value) for e in ts.LoadEndianness]


@pytest.mark.parametrize("lib", [ms, ts], ids=["mindtorch", "torch"])
def test_settings_round_trip_and_reject(lib):
    assert lib.get_default_load_endianness() is None
    assert lib.get_crc32_options() is True
    assert lib.get_default_mmap_options() == mmap.MAP_PRIVATE
    lib.set_default_load_endianness(lib.LoadEndianness.LITTLE)
    try:
        assert lib.get_default_load_endianness() is lib.LoadEndianness.LITTLE
        with pytest.raises(TypeError, match="Invalid argument type"):
            lib.set_default_load_endianness("little")
    finally:
        lib.set_default_load_endianness(None)
    with lib.set_default_mmap_options(mmap.MAP_SHARED):
        assert lib.get_default_mmap_options() == mmap.MAP_SHARED
    assert lib.get_default_mmap_options() == mmap.MAP_PRIVATE
    with pytest.raises(ValueError, match="Invalid argument in function set_default_mmap_options"):
        lib.set_default_mmap_options(12345)
    lib.set_crc32_options(False)
    assert lib.get_crc32_options() is False
    lib.set_crc32_options(True)


def _no_byteorder(buf):
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(buf.getvalue())) as src, zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            if not info.filename.endswith("/byteorder"):
                dst.writestr(info, src.read(info))
    out.seek(0)
    return out


def test_big_endian_fallback_is_refused_without_a_byteorder_record():
    buf = io.BytesIO()
    ms.save(mt.arange(4.0), buf)
    buf.seek(0)
    data = _no_byteorder(buf)
    assert mt.load(data).tolist() == [0.0, 1.0, 2.0, 3.0]
    ms.set_default_load_endianness(ms.LoadEndianness.BIG)
    try:
        data.seek(0)
        with pytest.raises(RuntimeError, match="big-endian"):
            mt.load(data)
    finally:
        ms.set_default_load_endianness(None)


@pytest.mark.parametrize("writer", ["mindtorch", "torch"])
def test_skip_data_keeps_records_sized_and_loads_zeros(writer):
    lib, mod = (mt, ms) if writer == "mindtorch" else (torch, ts)
    t = lib.arange(1, 7, dtype=lib.float32).reshape(2, 3)
    buf = io.BytesIO()
    with mod.skip_data():
        lib.save({"t": t, "v": t[1]}, buf)
    with zipfile.ZipFile(io.BytesIO(buf.getvalue())) as zf:
        rec = next(n for n in zf.namelist() if n.endswith("data/0"))
        assert zf.getinfo(rec).file_size == 24
    for loader, lmod in ((mt, ms), (torch, ts)):
        buf.seek(0)
        with lmod.skip_data():
            out = loader.load(buf, weights_only=True)
        assert tuple(out["t"].shape) == (2, 3) and tuple(out["v"].shape) == (3,)
    if writer == "mindtorch":  # our records are zero bytes with a true crc32, so a full load reads zeros
        buf.seek(0)
        assert mt.load(buf)["t"].tolist() == [[0.0] * 3] * 2


@pytest.mark.parametrize("lib", [ms, ts], ids=["mindtorch", "torch"])
def test_skip_data_refuses_the_legacy_format(lib):
    save = mt.save if lib is ms else torch.save
    x = mt.ones(2) if lib is ms else torch.ones(2)
    with lib.skip_data(), pytest.raises(RuntimeError, match="Cannot use skip_data=True"):
        save(x, io.BytesIO(), _use_new_zipfile_serialization=False)


def test_mkdtemp_removes_its_directory():
    import os

    with ms.mkdtemp() as path:
        open(os.path.join(path, "f"), "w").close()
        assert os.path.isdir(path)
    assert not os.path.exists(path)


@pytest.mark.parametrize(
    "version, want, malformed_ok",
    [("1.2.3", (1, 2), True), ("1.2.3", (1, 3), True), ("2.0", (1, 9, 9), False), ("1.x", (1, 2), False)],
)
def test_check_module_version(version, want, malformed_ok):
    mod = types.SimpleNamespace(__version__=version, __name__="fake")
    try:
        expected = ts.check_module_version_greater_or_equal(mod, want)
    except RuntimeError as exc:
        with pytest.raises(RuntimeError, match="malformed"):
            ms.check_module_version_greater_or_equal(mod, want)
        assert "malformed" in str(exc)
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            assert ms.check_module_version_greater_or_equal(mod, want, error_if_malformed=False) is True
        assert seen
        return
    assert ms.check_module_version_greater_or_equal(mod, want) == expected


def test_source_change_warning_is_a_warning():
    assert issubclass(ms.SourceChangeWarning, Warning)


def test_location_tag_and_default_restore_location():
    st = mt.ones(2).untyped_storage()
    assert ms.location_tag(st) == ts.location_tag(torch.ones(2).untyped_storage()) == "cpu"
    assert ms.default_restore_location(st, "cpu") is st
    for lib, storage in ((ms, st), (ts, torch.ones(2).untyped_storage())):
        with pytest.raises(RuntimeError, match=r"don't know how to restore data location .*\(tagged with foo\)"):
            lib.default_restore_location(storage, "foo")
    assert ms.location_tag(mt.ones(2, device="meta").untyped_storage()) == "meta"


@pytest.mark.parametrize("fn", ["validate_cuda_device", "validate_hpu_device"])
def test_validate_device_raises_without_the_device(fn):
    with pytest.raises(RuntimeError) as want:
        getattr(ts, fn)(fn.split("_")[1] + ":0")
    with pytest.raises(RuntimeError) as got:
        getattr(ms, fn)(fn.split("_")[1] + ":0")
    assert str(got.value) == str(want.value)


def test_registered_package_tags_saves_and_restores_loads():
    from mindtorch._storage_locations import _registry

    t = mt.arange(3.0)
    mine, seen = {id(t.untyped_storage())}, []

    def tag(storage):
        return "mine:0" if id(storage) in mine else None

    def restore(storage, location):
        if location == "mine:0":
            seen.append(location)
            return storage
        return None

    ms.register_package(5, tag, restore)
    try:
        assert ms.location_tag(t.untyped_storage()) == "mine:0"
        buf = io.BytesIO()
        ms.save(t, buf)
        with zipfile.ZipFile(io.BytesIO(buf.getvalue())) as zf:
            assert b"mine:0" in zf.read(next(n for n in zf.namelist() if n.endswith("data.pkl")))
        buf.seek(0)
        assert mt.load(buf).tolist() == [0.0, 1.0, 2.0]
        assert seen == ["mine:0"]
    finally:
        _registry.remove((5, tag, restore))
    buf.seek(0)
    with pytest.raises(RuntimeError, match="tagged with mine:0"):
        mt.load(buf)


def test_storage_type_helpers():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert ms.normalize_storage_type(mt.FloatStorage) is mt.FloatStorage
        assert ts.normalize_storage_type(torch.FloatStorage) is torch.FloatStorage
        # a typed storage's class is TypedStorage, so both look for a TypedTensor and fail alike
        for name in ("Float", "Long", "Bool"):
            with pytest.raises(AttributeError, match="TypedTensor"):
                ts.storage_to_tensor_type(getattr(torch, name + "Storage")(2))
            with pytest.raises(AttributeError, match="TypedTensor"):
                ms.storage_to_tensor_type(getattr(mt, name + "Storage")(2))
    fake = types.ModuleType("fake_storages")
    fake.FakeStorage = type("FakeStorage", (), {"__module__": "fake_storages"})
    fake.FakeTensor = object
    sys.modules["fake_storages"] = fake
    try:
        assert ms.storage_to_tensor_type(fake.FakeStorage()) is object
        assert ts.storage_to_tensor_type(fake.FakeStorage()) is object
    finally:
        del sys.modules["fake_storages"]


def test_checkpoints_saved_without_crc32_load():
    ts.set_crc32_options(False)
    try:
        buf = io.BytesIO()
        torch.save({"w": torch.arange(6.0).reshape(2, 3), "n": 3}, buf)
    finally:
        ts.set_crc32_options(True)
    with zipfile.ZipFile(io.BytesIO(buf.getvalue())) as zf:
        assert all(i.CRC == 0 for i in zf.infolist() if i.file_size)
    buf.seek(0)
    out = mt.load(buf)
    assert out["w"].tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]] and out["n"] == 3


def test_a_wrong_nonzero_crc_is_still_caught():
    buf = io.BytesIO()
    ms.save(mt.arange(16.0), buf)
    raw = bytearray(buf.getvalue())
    at = raw.index(np.arange(16.0, dtype=np.float32).tobytes())
    raw[at] ^= 0xFF
    with pytest.raises(RuntimeError, match="CRC"):
        mt.load(io.BytesIO(bytes(raw)))
