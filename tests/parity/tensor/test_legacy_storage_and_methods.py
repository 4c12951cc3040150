"""PyTorch's legacy storage API (torch.FloatStorage, ..., TypedStorage, Tensor.storage_type), files mapped
as storages and tensors (torch.from_file, UntypedStorage.from_file, <Legacy>Storage.from_file), and the
rarely used Tensor methods: new, as_subclass, apply_/map_/map2_, float_power_, grad_dtype, module_load,
prelu, const_data_ptr, is_distributed, name, volatile, reinforce. Against PyTorch 2.13."""

import warnings

import numpy as np
import pytest
from helpers import torch_or_skip

torch = torch_or_skip()

import mindtorch as mt  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

LEGACY = [
    "FloatStorage",
    "DoubleStorage",
    "HalfStorage",
    "BFloat16Storage",
    "LongStorage",
    "IntStorage",
    "ShortStorage",
    "CharStorage",
    "ByteStorage",
    "BoolStorage",
    "ComplexFloatStorage",
    "ComplexDoubleStorage",
]


@pytest.mark.parametrize("cls", LEGACY)
def test_legacy_storage_classes(cls):
    res = []
    for L in (torch, mt):
        C = getattr(L, cls)
        s = C([1, 0, 3])
        e = C(4)
        s[1] = 1
        other = LEGACY[(LEGACY.index(cls) + 1) % len(LEGACY)]
        res.append(
            (
                str(C.dtype),
                type(s).__name__,
                isinstance(s, C),
                isinstance(s, getattr(L, other)),
                isinstance(s, L.TypedStorage),
                s.tolist(),
                s[-1],
                s.size(),
                len(e),
                e.nbytes(),
                s.element_size(),
                str(s.device),
                len(C()),
                s.type(),
                s.clone().tolist(),
                s.double().tolist(),
                C([2, 2]).fill_(1).tolist(),
            )
        )
    assert res[0] == res[1]


def test_typed_storage_and_tensor_storage():
    res = []
    for L in (torch, mt):
        x = L.arange(3.0)
        st = x.storage()
        st[0] = 5
        t = L.TypedStorage([1, 2], dtype=L.float64)
        w = L.FloatStorage(wrap_storage=L.arange(2.0).untyped_storage())
        res.append(
            (
                x.tolist(),
                isinstance(st, L.FloatStorage),
                x.storage_type().__name__,
                str(t.dtype),
                t.tolist(),
                str(L.TypedStorage(2).dtype),
                w.tolist(),
                L.zeros(0).set_(L.FloatStorage([4, 5])).tolist(),
            )
        )
    assert res[0] == res[1]


def test_typed_storage_warns_deprecated():
    # PyTorch words the warning so, once per process (an earlier test may have had it)
    for make in (lambda: mt.FloatStorage(2), lambda: mt.zeros(2).storage(), lambda: mt.TypedStorage(2)):
        with pytest.warns(UserWarning, match="TypedStorage is deprecated. It will be removed in the future"):
            make()


BAD_STORAGE = {
    "float size": lambda L: L.FloatStorage(3.5),
    "dtype keyword": lambda L: L.FloatStorage([1, 2], dtype=L.float64),
    "index": lambda L: L.FloatStorage([1, 2])[2],
    "slice": lambda L: L.FloatStorage([1, 2])[0:1],
    "from_file on TypedStorage": lambda L: L.TypedStorage.from_file("x", False, 2),
}


@pytest.mark.parametrize("name", list(BAD_STORAGE))
def test_bad_storage_calls(name):
    raised = []
    for L in (torch, mt):
        with pytest.raises(Exception) as info:
            BAD_STORAGE[name](L)
        raised.append((info.type, str(info.value)))
    assert raised[0] == raised[1]


@pytest.fixture
def data_file(tmp_path):
    path = tmp_path / "data.bin"
    np.arange(6, dtype=np.float32).tofile(path)
    return path


FROM_FILE = {
    "private": lambda L, f: L.from_file(f, shared=False, size=4),
    "default size": lambda L, f: L.from_file(f),
    "float64": lambda L, f: L.from_file(f, size=2, dtype=L.float64),
    "int16": lambda L, f: L.from_file(f, True, 3, dtype=L.int16),
    "shared": lambda L, f: L.from_file(f, shared=True, size=4),
}


@pytest.mark.parametrize("name", list(FROM_FILE))
def test_from_file_values_and_write_through(name, data_file):
    res = []
    for L in (torch, mt):
        np.arange(6, dtype=np.float32).tofile(data_file)
        t = FROM_FILE[name](L, str(data_file))
        got = (str(t.dtype), tuple(t.shape), t.tolist())
        if t.numel():
            t.fill_(9)
        res.append(got + (np.fromfile(data_file, np.float32).tolist(),))
    assert res[0] == res[1]


def test_from_file_shared_creates_and_grows(tmp_path):
    for L in (torch, mt):
        path = tmp_path / f"{L.__name__}.bin"
        t = L.from_file(str(path), shared=True, size=3)
        assert t.tolist() == [0.0, 0.0, 0.0] and path.stat().st_size == 12


BAD_FILE = {
    "too small": lambda L, f: L.from_file(f, size=100),
    "missing": lambda L, f: L.from_file(f + ".missing", size=2),
}


@pytest.mark.parametrize("name", list(BAD_FILE))
def test_from_file_errors(name, data_file):
    msgs = []
    for L in (torch, mt):
        with pytest.raises(RuntimeError) as info:
            BAD_FILE[name](L, str(data_file))
        msgs.append(str(info.value))
    assert msgs[0] == msgs[1]


def test_storage_from_file(data_file):
    res = []
    for L in (torch, mt):
        np.arange(6, dtype=np.float32).tofile(data_file)
        u = L.UntypedStorage.from_file(str(data_file), False, 8)
        typed = L.FloatStorage.from_file(str(data_file), True, 2)
        typed[0] = 100
        t = L.zeros(0).set_(u)
        res.append(
            (u.nbytes(), type(typed).__name__, typed.tolist(), t.tolist(), np.fromfile(data_file, np.float32)[0])
        )
    assert res[0] == res[1]


NEW = {
    "empty": lambda L, x: x.new(),
    "sizes": lambda L, x: x.new(2, 3).shape,
    "tuple": lambda L, x: x.new((2, 3)).shape,
    "Size": lambda L, x: x.new(L.Size([4])).shape,
    "data": lambda L, x: x.new([1, 2]),
    "tensor aliases": lambda L, x: x.new(x).data_ptr() == x.data_ptr(),
    "storage": lambda L, x: x.new(x.untyped_storage()),
    "device": lambda L, x: x.new(2, device="cpu").shape,
}


@pytest.mark.parametrize("name", list(NEW))
def test_new(name):
    got, want = NEW[name](mt, mt.arange(3.0)), NEW[name](torch, torch.arange(3.0))
    if hasattr(want, "dtype"):
        assert str(got.dtype) == str(want.dtype) and tuple(got.shape) == tuple(want.shape)
        if name != "empty":
            assert got.tolist() == want.tolist()
    else:
        assert tuple(got) == tuple(want) if isinstance(want, tuple) else got == want


@pytest.mark.parametrize("bad", [lambda L, x: x.new(2.5), lambda L, x: x.new(L.arange(2))])
def test_new_bad_arguments(bad):
    for L in (torch, mt):
        with pytest.raises(TypeError):
            bad(L, L.arange(3.0))


def test_as_subclass_keeps_data_and_history():
    res = []
    for L in (torch, mt):

        class Sub(L.Tensor):
            pass

        y = L.arange(3.0, requires_grad=True)
        s = y.as_subclass(Sub)
        (s * 2).sum().backward()
        res.append((type(s) is Sub, s.requires_grad, s.data_ptr() == y.data_ptr(), y.grad.tolist()))
        with pytest.raises(TypeError):
            y.as_subclass(int)
    assert res[0] == res[1]


PYTHON_MAPS = {
    "apply_": lambda L: L.arange(4.0).reshape(2, 2).apply_(lambda v: v * 2 + 1),
    "apply_ int": lambda L: L.arange(3).apply_(lambda v: v * 1.7),
    "map_": lambda L: L.arange(4.0).reshape(2, 2).map_(L.ones(2), lambda a, b: a - b),
    "map2_": lambda L: L.arange(4.0).reshape(2, 2).map2_(L.ones(2), L.full((2, 2), 3.0), lambda a, b, c: a * b + c),
}


@pytest.mark.parametrize("name", list(PYTHON_MAPS))
def test_python_maps(name):
    got, want = PYTHON_MAPS[name](mt), PYTHON_MAPS[name](torch)
    assert str(got.dtype) == str(want.dtype) and got.tolist() == want.tolist()


BAD_MAPS = {
    "requires grad": lambda L: L.ones(2, requires_grad=True).apply_(lambda v: v),
    "non-leaf": lambda L: (L.ones(2, requires_grad=True) * 1).apply_(lambda v: v),
    "broadcast": lambda L: L.ones(2, 2).map_(L.ones(3), lambda a, b: a),
    "dtype": lambda L: L.ones(2).map_(L.ones(2, dtype=L.float64), lambda a, b: a),
}


@pytest.mark.parametrize("name", list(BAD_MAPS))
def test_python_maps_errors(name):
    raised = []
    for L in (torch, mt):
        with pytest.raises(Exception) as info:
            BAD_MAPS[name](L)
        raised.append(info.type)
    assert raised[0] is raised[1]


def test_float_power_():
    res = []
    for L in (torch, mt):
        q = L.tensor([1.0, 2.0, 3.0], dtype=L.float64, requires_grad=True)
        w = q * 1
        w.float_power_(L.tensor(2))
        w.sum().backward()
        with pytest.raises(RuntimeError) as info:
            L.tensor([1.0, 2.0]).float_power_(2)
        res.append((w.tolist(), q.grad.tolist(), str(w.dtype), str(info.value)))
    assert res[0] == res[1]


def test_grad_dtype():
    res = []
    for L in (torch, mt):
        x = L.zeros(3, requires_grad=True)
        default = str(x.grad_dtype)
        x.grad_dtype = L.float64
        (x * 2).sum().backward()
        first = str(x.grad.dtype)
        with pytest.raises(RuntimeError) as bad_assign:
            x.grad = L.zeros(3)
        x.grad_dtype = None
        x.grad = L.zeros(3, dtype=L.float16)
        y = x * 1
        errors = []
        for f in (lambda: y.grad_dtype, lambda: setattr(y, "grad_dtype", None), lambda: setattr(x, "grad_dtype", 3)):
            with pytest.raises(RuntimeError) as info:
                f()
            errors.append(str(info.value))
        res.append((default, first, str(bad_assign.value), str(x.grad.dtype), errors))
    assert res[0] == res[1]


def test_small_methods():
    res = []
    for L in (torch, mt):
        x = L.arange(4.0)
        p = L.zeros(4)
        loaded = p.module_load(x)
        assigned = p.module_load(x * 2, assign=True)
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            volatile = x.volatile
        with pytest.raises(RuntimeError) as info:
            x.reinforce(1)
        res.append(
            (
                loaded.tolist(),
                p.tolist(),
                loaded is p,
                assigned.tolist(),
                x.const_data_ptr() == x.data_ptr(),
                x.is_distributed(),
                L.is_distributed(x),
                x.name,
                volatile,
                [str(w.message) for w in rec],
                str(info.value),
                L.tensor([-1.0, 2.0]).prelu(L.tensor([0.5])).tolist(),
            )
        )
    assert res[0] == res[1]
