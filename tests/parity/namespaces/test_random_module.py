"""mindtorch.random against torch.random: the same names, the same seeding and state answers, and
fork_rng restoring the generator as PyTorch's does (draws themselves differ between the libraries)."""

import mindtorch
import pytest
from helpers import torch_or_skip

torch = torch_or_skip()


def test_names_and_attribute():
    assert sorted(mindtorch.random.__all__) == sorted(torch.random.__all__)
    import mindtorch.random as module

    assert module is mindtorch.random
    for name in ("manual_seed", "seed", "initial_seed", "get_rng_state", "set_rng_state"):
        assert getattr(mindtorch.random, name) is getattr(mindtorch, name)


@pytest.mark.parametrize("lib", [mindtorch, torch], ids=["mindtorch", "torch"])
def test_seeding_and_state(lib):
    g = lib.random.manual_seed(1234)
    assert isinstance(g, lib.Generator) and lib.random.initial_seed() == 1234
    state = lib.random.get_rng_state()
    assert state.dtype == lib.uint8 and state.dim() == 1
    a = lib.rand(5)
    lib.random.set_rng_state(state)
    assert lib.equal(lib.rand(5), a)
    s = lib.random.seed()
    assert isinstance(s, int) and lib.random.initial_seed() == s


@pytest.mark.parametrize("lib", [mindtorch, torch], ids=["mindtorch", "torch"])
def test_fork_rng_restores(lib):
    lib.manual_seed(7)
    before = lib.random.get_rng_state()
    with lib.random.fork_rng():
        inside = lib.rand(4)
    assert lib.equal(lib.random.get_rng_state(), before) and lib.equal(lib.rand(4), inside)
    lib.manual_seed(7)
    with lib.random.fork_rng(devices=(d for d in [])):
        lib.rand(3)
    assert lib.equal(lib.random.get_rng_state(), before)
    with lib.random.fork_rng(device_type="meta"):
        lib.rand(3)
    assert not lib.equal(lib.random.get_rng_state(), before)


@pytest.mark.parametrize("lib", [mindtorch, torch], ids=["mindtorch", "torch"])
def test_fork_rng_disabled_and_on_error(lib):
    lib.manual_seed(3)
    before = lib.random.get_rng_state()
    with lib.random.fork_rng(enabled=False):
        lib.rand(2)
    assert not lib.equal(lib.random.get_rng_state(), before)
    lib.random.set_rng_state(before)
    with pytest.raises(KeyError), lib.random.fork_rng():
        lib.rand(2)
        raise KeyError("inside")
    assert lib.equal(lib.random.get_rng_state(), before)


def test_fork_rng_on_a_missing_cuda_device():
    with pytest.raises(Exception) as theirs, torch.random.fork_rng(devices=[0], device_type="cuda"):
        pass
    with pytest.raises(type(theirs.value)), mindtorch.random.fork_rng(devices=[0], device_type="cuda"):
        pass


def test_thread_safe_generator_outside_thread_workers():
    assert mindtorch.random.thread_safe_generator() is None and torch.random.thread_safe_generator() is None

    class Probe(mindtorch.utils.data.Dataset):
        def __len__(self):
            return 2

        def __getitem__(self, i):
            return mindtorch.random.thread_safe_generator() is None

    loader = mindtorch.utils.data.DataLoader(Probe(), batch_size=None, num_workers=1)
    assert [bool(x) for x in loader] == [True, True]
