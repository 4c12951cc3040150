"""Random ops: distributions, ranges, dtypes, reproducibility, generators and errors."""

import mindtorch as torch
import numpy as np
import pytest

N = 20000


def vals(t):
    return t.float().numpy().astype(np.float64) if t.dtype is torch.bfloat16 else t.numpy().astype(np.float64)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32, torch.float64])
def test_rand_range_and_moments(dtype):
    t = torch.rand(N, dtype=dtype)
    assert t.dtype is dtype and t.shape == (N,)
    v = vals(t)
    assert v.min() >= 0 and v.max() < 1
    assert abs(v.mean() - 0.5) < 0.02 and abs(v.std() - (1 / 12) ** 0.5) < 0.02


@pytest.mark.parametrize("dtype", [torch.float16, torch.float32, torch.float64])
def test_randn_moments(dtype):
    v = vals(torch.randn(100, 200, dtype=dtype))
    assert abs(v.mean()) < 0.03 and abs(v.std() - 1) < 0.03


def test_default_dtype_follows_setting():
    assert torch.rand(2).dtype is torch.float32
    torch.set_default_dtype(torch.float64)
    try:
        assert torch.randn(2).dtype is torch.float64
    finally:
        torch.set_default_dtype(torch.float32)


@pytest.mark.parametrize("fn,name", [(torch.rand, "check_uniform_bounds"), (torch.randn, "normal_kernel_cpu")])
def test_float_only_factories(fn, name):
    with pytest.raises(NotImplementedError, match=name):
        fn(3, dtype=torch.int64)


def test_randint_overloads_and_range():
    a = torch.randint(5, (N,))
    assert a.dtype is torch.int64
    v = a.numpy()
    assert v.min() == 0 and v.max() == 4
    b = torch.randint(-3, 3, (4, 5), dtype=torch.int8).numpy()
    assert b.dtype == np.int8 and b.shape == (4, 5) and b.min() >= -3 and b.max() < 3
    c = torch.randint(0, 10, (100,), dtype=torch.float32)
    assert c.dtype is torch.float32 and np.all(c.numpy() == np.round(c.numpy()))


@pytest.mark.parametrize("args,match", [((5, 2, (3,)), "from=5 >= to=2"), ((0, 300, (3,)), "out of bounds")])
def test_randint_errors(args, match):
    dtype = torch.uint8 if args[1] == 300 else torch.int64
    with pytest.raises(RuntimeError, match=match):
        torch.randint(*args, dtype=dtype)


def test_randperm():
    p = torch.randperm(50)
    assert p.dtype is torch.int64
    assert sorted(p.tolist()) == list(range(50))
    assert torch.randperm(5, dtype=torch.float32).dtype is torch.float32
    with pytest.raises(RuntimeError, match="negative dimension"):
        torch.randperm(-1)


def test_normal_overloads():
    mean = torch.tensor(np.linspace(-5, 5, 10))
    a = torch.normal(mean.unsqueeze(1).expand(10, 2000).contiguous(), 0.5)
    assert a.dtype is torch.float64 and a.shape == (10, 2000)
    v = a.numpy()
    np.testing.assert_allclose(v.mean(1), np.linspace(-5, 5, 10), atol=0.05)
    np.testing.assert_allclose(v.std(1), 0.5, atol=0.05)
    b = torch.normal(3.0, torch.tensor([2.0] * N))
    assert abs(b.numpy().mean() - 3) < 0.1 and abs(b.numpy().std() - 2) < 0.1
    c = torch.normal(torch.zeros(N), torch.tensor([0.1] * N))
    assert abs(c.numpy().std() - 0.1) < 0.01
    d = torch.normal(1.0, 2.0, (N,))
    assert d.dtype is torch.float32 and abs(d.numpy().mean() - 1) < 0.1


def test_normal_errors():
    with pytest.raises(RuntimeError, match="std >= 0.0"):
        torch.normal(torch.zeros(3), -1.0)
    with pytest.raises(RuntimeError, match="std >= 0.0"):
        torch.normal(0.0, -1.0, (3,))
    with pytest.raises(RuntimeError, match="all elements of std"):
        torch.normal(torch.zeros(3), torch.tensor([1.0, -1.0, 1.0]))
    with pytest.raises(RuntimeError, match="must match"):
        torch.normal(torch.zeros(3), torch.ones(2))
    with pytest.raises(NotImplementedError):
        torch.normal(torch.zeros(3, dtype=torch.int64), 1.0)


def test_normal_grad():
    mean = torch.zeros(5, requires_grad=True)
    torch.normal(mean, 2.0).sum().backward()
    np.testing.assert_array_equal(mean.grad.numpy(), np.ones(5))


def test_bernoulli():
    p = torch.tensor(np.linspace(0, 1, 5)).unsqueeze(1).expand(5, 4000).contiguous()
    b = torch.bernoulli(p)
    assert b.dtype is torch.float64
    v = b.numpy()
    assert set(np.unique(v)) <= {0.0, 1.0}
    np.testing.assert_allclose(v.mean(1), np.linspace(0, 1, 5), atol=0.03)
    assert v[0].sum() == 0 and v[-1].sum() == 4000
    q = torch.bernoulli(torch.zeros(N), 0.3)
    assert abs(q.numpy().mean() - 0.3) < 0.02
    with pytest.raises(RuntimeError, match="p_in >= 0"):
        torch.bernoulli(torch.tensor([0.5, 1.5]))
    with pytest.raises(RuntimeError, match="bernoulli_ expects p"):
        torch.bernoulli(torch.zeros(3), 1.3)


def test_multinomial_with_replacement_frequencies():
    probs = torch.tensor([0.1, 0.2, 0.7])
    s = torch.multinomial(probs, N, replacement=True)
    assert s.dtype is torch.int64 and s.shape == (N,)
    freq = np.bincount(s.numpy(), minlength=3) / N
    np.testing.assert_allclose(freq, [0.1, 0.2, 0.7], atol=0.02)


def test_multinomial_without_replacement():
    probs = torch.tensor([[1.0, 1.0, 1.0, 1.0, 0.0], [0.0, 5.0, 1.0, 1.0, 1.0]])
    for _ in range(20):
        s = torch.multinomial(probs, 4).numpy()
        assert s.shape == (2, 4)
        assert sorted(s[0]) == [0, 1, 2, 3]
        assert len(set(s[1])) == 4 and 0 not in s[1]
    # unnormalised weights: the heavy category comes first most of the time
    first = [torch.multinomial(torch.tensor([1.0, 9.0]), 1).item() for _ in range(300)]
    assert 0.8 < np.mean(first) < 0.97


@pytest.mark.parametrize(
    "probs,n,repl,exc,match",
    [
        ([0.2, 0.8], 3, False, RuntimeError, "without replacement"),
        ([0.2, -0.8], 1, False, RuntimeError, "element < 0"),
        ([0.2, float("inf")], 1, False, RuntimeError, "inf"),
        ([0.0, 0.0], 1, True, RuntimeError, "sum of probabilities <= 0"),
        ([0.5, 0.5], 0, True, RuntimeError, "n_sample <= 0"),
    ],
)
def test_multinomial_errors(probs, n, repl, exc, match):
    with pytest.raises(exc, match=match):
        torch.multinomial(torch.tensor(probs), n, repl)


def test_multinomial_dtype_and_dim_errors():
    with pytest.raises(RuntimeError, match="floating-point"):
        torch.multinomial(torch.tensor([1, 2]), 1)
    with pytest.raises(RuntimeError, match="1 or 2 dim"):
        torch.multinomial(torch.ones(2, 2, 2), 1)


def test_inplace_samplers_moments_and_identity():
    t = torch.empty(N)
    assert t.uniform_(-2, 4) is t
    v = t.numpy()
    assert v.min() >= -2 and v.max() < 4 and abs(v.mean() - 1) < 0.1
    t.normal_(5, 0.5)
    assert abs(t.numpy().mean() - 5) < 0.02 and abs(t.numpy().std() - 0.5) < 0.02
    t.exponential_(2.0)
    assert t.numpy().min() >= 0 and abs(t.numpy().mean() - 0.5) < 0.02
    t.bernoulli_(0.25)
    assert set(np.unique(t.numpy())) <= {0.0, 1.0} and abs(t.numpy().mean() - 0.25) < 0.02
    t.bernoulli_(torch.tensor([0.75] * N))
    assert abs(t.numpy().mean() - 0.75) < 0.02


def test_inplace_on_view_writes_base():
    base = torch.zeros(4, 6)
    base.transpose(0, 1).narrow(0, 1, 2).normal_(10, 1)
    v = base.numpy()
    assert np.all(v[:, 1:3] > 3) and np.all(v[:, 0] == 0) and np.all(v[:, 3:] == 0)


@pytest.mark.parametrize(
    "dtype,hi", [(torch.float32, 2**24), (torch.float16, 2**11), (torch.int8, 127), (torch.uint8, 255), (torch.bool, 1)]
)
def test_random_default_range(dtype, hi):
    v = vals(torch.empty(N, dtype=dtype).random_())
    assert v.min() >= 0 and v.max() <= hi and v.max() > hi * 0.9


def test_random_to_and_from():
    v = torch.zeros(N, dtype=torch.int64).random_(7).numpy()
    assert v.min() == 0 and v.max() == 6
    v = torch.zeros(N, dtype=torch.int16).random_(-4, 4).numpy()
    assert v.min() == -4 and v.max() == 3
    with pytest.raises(RuntimeError, match="from=5 >= to=3"):
        torch.zeros(3, dtype=torch.uint8).random_(5, 3)
    with pytest.raises(RuntimeError, match="out of bounds for signed char"):
        torch.zeros(3, dtype=torch.int8).random_(0, 300)


@pytest.mark.parametrize(
    "call,match",
    [
        (lambda: torch.zeros(3).uniform_(2, 1), "from=2 > to=1"),
        (lambda: torch.zeros(3).normal_(0, -1), "std >= 0.0"),
        (lambda: torch.zeros(3).exponential_(-1), "lambda > 0.0"),
        (lambda: torch.zeros(3).bernoulli_(1.3), "p to be in"),
    ],
)
def test_inplace_errors(call, match):
    with pytest.raises(RuntimeError, match=match):
        call()


def test_uniform_int_not_implemented():
    with pytest.raises(NotImplementedError):
        torch.zeros(3, dtype=torch.int64).uniform_()


def test_like_variants():
    x = torch.zeros(3, 4, dtype=torch.float64)
    for t in (torch.rand_like(x), torch.randn_like(x)):
        assert t.shape == (3, 4) and t.dtype is torch.float64
    r = torch.randint_like(x, 5)
    assert r.dtype is torch.float64 and r.numpy().max() < 5
    r = torch.randint_like(torch.zeros(N, dtype=torch.int32), 3, 9)
    assert r.dtype is torch.int32 and r.numpy().min() == 3 and r.numpy().max() == 8
    assert torch.rand_like(x, dtype=torch.float16).dtype is torch.float16
    with pytest.raises(NotImplementedError):
        torch.rand_like(torch.zeros(3, dtype=torch.int64))


SAMPLERS = [
    lambda g: torch.rand(5, generator=g),
    lambda g: torch.randn(5, generator=g),
    lambda g: torch.randint(0, 100, (5,), generator=g),
    lambda g: torch.randperm(10, generator=g),
    lambda g: torch.normal(0.0, 1.0, (5,), generator=g),
    lambda g: torch.normal(torch.zeros(5), 1.0, generator=g),
    lambda g: torch.bernoulli(torch.tensor([0.5] * 20), generator=g),
    lambda g: torch.multinomial(torch.ones(10), 5, generator=g),
    lambda g: torch.empty(5).uniform_(generator=g),
    lambda g: torch.empty(5).normal_(generator=g),
    lambda g: torch.empty(5).exponential_(generator=g),
    lambda g: torch.empty(5, dtype=torch.int64).random_(0, 1000, generator=g),
    lambda g: torch.rand_like(torch.zeros(5), generator=g),
]


@pytest.mark.parametrize("sample", SAMPLERS)
def test_generator_reproducible(sample):
    g = torch.Generator().manual_seed(123)
    a = sample(g).tolist()
    b = sample(g).tolist()
    g.manual_seed(123)
    assert sample(g).tolist() == a
    assert a != b  # the stream advances


@pytest.mark.parametrize("sample", SAMPLERS)
def test_manual_seed_reproducible(sample):
    torch.manual_seed(7)
    a = sample(None).tolist()
    torch.manual_seed(7)
    assert sample(None).tolist() == a
    torch.manual_seed(8)
    assert sample(None).tolist() != a


def test_generator_state_roundtrip():
    g = torch.Generator()
    assert g.initial_seed() == 67280421310721
    g.manual_seed(42)
    assert g.initial_seed() == 42
    state = g.get_state()
    assert state.dtype is torch.uint8
    a = torch.randn(4, generator=g).tolist()
    g.set_state(state)
    assert torch.randn(4, generator=g).tolist() == a


def test_global_rng_state():
    s = torch.get_rng_state()
    a = torch.rand(3).tolist()
    torch.set_rng_state(s)
    assert torch.rand(3).tolist() == a
    assert torch.initial_seed() == 0  # the conftest fixture seeds with 0


def test_generators_independent():
    g1, g2 = torch.Generator().manual_seed(1), torch.Generator().manual_seed(1)
    torch.rand(10, generator=g1)
    a = torch.rand(3, generator=g1).tolist()
    assert torch.rand(3, generator=g2).tolist() != a


def test_generator_device_mismatch():
    g = torch.Generator("meta")
    with pytest.raises(RuntimeError, match="device type for generator"):
        torch.rand(3, generator=g)


def test_bad_generator_type():
    with pytest.raises(TypeError):
        torch.rand(3, generator=5)


@pytest.mark.parametrize("p", [0.0, 0.1, 0.5, 0.9, 1.0])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.int64, torch.bool])
def test_bernoulli_scalar_p_outcomes(p, dtype):
    t = torch.empty(N, dtype=dtype).bernoulli_(p)
    v = vals(t)
    assert t.dtype is dtype and set(np.unique(v)) <= {0.0, 1.0}
    if p in (0.0, 1.0):  # the edges are exact: no draw is below 0, every draw is below 1
        assert v.sum() == p * N
    else:
        assert abs(v.mean() - p) < 0.015


def test_bernoulli_draws_follow_the_generator():
    g = torch.Generator().manual_seed(7)
    a = torch.empty(64).bernoulli_(0.5, generator=g)
    torch.manual_seed(7)  # the default generator, seeded alike, draws the same stream
    b = torch.empty(64).bernoulli_(0.5)
    assert a.tolist() == b.tolist()
    assert torch.empty(64).bernoulli_(0.5).tolist() != b.tolist()


def test_default_generator_by_name_is_the_devices():
    from mindtorch.plugins import default_generator

    g = default_generator("cpu")
    assert g is default_generator(torch.device("cpu")) is default_generator(None) is torch.default_generator
    torch.manual_seed(3)
    first = torch.rand(4).tolist()
    g.manual_seed(3)
    assert torch.rand(4).tolist() == first


def test_dropout_mask_reproducible_and_scaled():
    x = torch.ones(4000)
    torch.manual_seed(11)
    a = torch.nn.functional.dropout(x, 0.25)
    torch.manual_seed(11)
    b = torch.nn.functional.dropout(x, 0.25)
    assert a.tolist() == b.tolist()
    v = a.numpy()
    assert set(np.unique(v)) <= {0.0, np.float32(1 / 0.75)} and abs((v == 0).mean() - 0.25) < 0.03
