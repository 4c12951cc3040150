"""The meta device: creation and random ops allocate nothing; data access fails like PyTorch."""

import mindtorch as mt
import pytest

FACTORIES = [
    ("zeros", lambda d: mt.zeros(2, 3, device=d), (2, 3), mt.float32),
    ("ones", lambda d: mt.ones(4, dtype=mt.int64, device=d), (4,), mt.int64),
    ("empty", lambda d: mt.empty(1, 2, 3, device=d), (1, 2, 3), mt.float32),
    ("arange", lambda d: mt.arange(0, 1, 0.25, device=d), (4,), mt.float32),
    ("arange_int", lambda d: mt.arange(7, device=d), (7,), mt.int64),
    ("linspace", lambda d: mt.linspace(0, 1, 5, device=d), (5,), mt.float32),
    ("logspace", lambda d: mt.logspace(0, 1, 3, device=d), (3,), mt.float32),
    ("eye", lambda d: mt.eye(3, 2, device=d), (3, 2), mt.float32),
    ("tensor", lambda d: mt.tensor([[1, 2]], device=d), (1, 2), mt.int64),
    ("rand", lambda d: mt.rand(5, device=d), (5,), mt.float32),
    ("randn", lambda d: mt.randn(2, 2, dtype=mt.float64, device=d), (2, 2), mt.float64),
    ("randint", lambda d: mt.randint(0, 5, (3,), device=d), (3,), mt.int64),
    ("randperm", lambda d: mt.randperm(6, device=d), (6,), mt.int64),
    ("normal", lambda d: mt.normal(0.0, 1.0, (2,), device=d), (2,), mt.float32),
    ("zeros_like", lambda d: mt.zeros_like(mt.empty(2, device=d)), (2,), mt.float32),
    ("rand_like", lambda d: mt.rand_like(mt.empty(2, device=d)), (2,), mt.float32),
    ("new_zeros", lambda d: mt.empty(2, dtype=mt.int32, device=d).new_zeros(3), (3,), mt.int32),
]


@pytest.mark.parametrize("name,make,shape,dtype", FACTORIES, ids=[f[0] for f in FACTORIES])
def test_meta_factories_have_no_data(name, make, shape, dtype):
    t = make("meta")
    assert t.device.type == "meta" and t.is_meta
    assert tuple(t.shape) == shape and t.dtype is dtype
    assert t.untyped_storage().data is None


def test_meta_huge_tensor_allocates_nothing():
    t = mt.empty(1 << 20, 1 << 20, device="meta")
    assert t.numel() == 1 << 40 and t.untyped_storage().data is None


@pytest.mark.parametrize(
    "make",
    [
        lambda: mt.rand(2, dtype=mt.int64, device="meta"),
        lambda: mt.randint(5, 2, (3,), device="meta"),
        lambda: mt.zeros(-1, device="meta"),
        lambda: mt.arange(0, -1, device="meta"),
    ],
)
def test_meta_checks_arguments(make):
    with pytest.raises((RuntimeError, NotImplementedError)):
        make()


def test_meta_inplace_random_keeps_tensor():
    t = mt.empty(3, device="meta")
    assert t.uniform_() is t and t.normal_() is t and t.bernoulli_(0.5) is t
    with pytest.raises(RuntimeError):
        t.uniform_(2, 1)


def test_meta_views():
    t = mt.empty(2, 3, 4, device="meta")
    v = t.transpose(0, 2)
    assert v.shape == (4, 3, 2) and v.stride() == (1, 4, 12) and v.device.type == "meta"
    assert t.view(6, 4).shape == (6, 4)
    assert t[1].shape == (3, 4) and t[1].storage_offset() == 12


@pytest.mark.parametrize(
    "t,text",
    [
        (lambda: mt.zeros(2, 3, device="meta"), "tensor(..., device='meta', size=(2, 3))"),
        (
            lambda: mt.zeros(2, dtype=mt.int64, device="meta"),
            "tensor(..., device='meta', size=(2,), dtype=torch.int64)",
        ),
        (lambda: mt.tensor(2.5, device="meta"), "tensor(..., device='meta', size=())"),
        (
            lambda: mt.zeros(2, device="meta", requires_grad=True),
            "tensor(..., device='meta', size=(2,), requires_grad=True)",
        ),
    ],
)
def test_meta_repr(t, text):
    assert repr(t()) == text


def test_to_meta_and_back_fails():
    c = mt.arange(6.0).view(2, 3)
    m = c.to("meta")
    assert m.device.type == "meta" and m.shape == (2, 3) and m.dtype is mt.float32
    assert m.untyped_storage().data is None
    m2 = c.to("meta", mt.float16)
    assert m2.dtype is mt.float16
    with pytest.raises(NotImplementedError):
        m.to("cpu")


def test_meta_data_access_errors():
    m = mt.zeros(1, device="meta")
    with pytest.raises(NotImplementedError):
        m.item()
    with pytest.raises(NotImplementedError):
        m.tolist()
    with pytest.raises(TypeError):
        m.numpy()
