"""WeightedRandomSampler, ChainDataset and StackDataset against PyTorch's: the same argument checks and
errors, the same samples for the datasets; the sampler's draws are compared as distributions (the random
streams of the two libraries differ)."""

import collections

import mindtorch
import pytest
from helpers import raises_alike, torch_or_skip
from mindtorch.utils import data as ours

torch = torch_or_skip()
from torch.utils import data as theirs  # noqa: E402


def _data_raises_alike(make):
    """make(data module) raises alike with torch.utils.data and mindtorch.utils.data."""
    raises_alike(lambda lib: make(lib.utils.data))


def test_public_paths():
    for name in ("DistributedSampler", "WeightedRandomSampler", "ChainDataset", "StackDataset"):
        assert hasattr(theirs, name) and hasattr(ours, name)
    assert ours.distributed.DistributedSampler is ours.DistributedSampler
    assert mindtorch.utils.data.sampler.WeightedRandomSampler is ours.WeightedRandomSampler
    assert mindtorch.utils.data.dataset.StackDataset is ours.StackDataset
    assert mindtorch.utils.data.dataset.ChainDataset is ours.ChainDataset


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(weights=[1, 2], num_samples=0),
        dict(weights=[1, 2], num_samples=-3),
        dict(weights=[1, 2], num_samples=2.0),
        dict(weights=[1, 2], num_samples=True),
        dict(weights=[1, 2], num_samples=2, replacement=1),
        dict(weights=[[1, 2]], num_samples=2),
        dict(weights=5.0, num_samples=2),
    ],
)
def test_weighted_sampler_argument_errors(kwargs):
    _data_raises_alike(lambda lib: lib.WeightedRandomSampler(**kwargs))


@pytest.mark.parametrize("weights", [[0.1, 0.2, 0.7], [1, 0, 3, 0], (5, 5)])
def test_weighted_sampler_frequencies(weights):
    n = 20000
    s = ours.WeightedRandomSampler(weights, n)
    t = theirs.WeightedRandomSampler(weights, n)
    assert len(s) == len(t) == n
    assert s.weights.dtype == mindtorch.float64 and t.weights.dtype == torch.float64
    drawn = list(s)
    assert len(drawn) == n and all(isinstance(i, int) for i in drawn)
    counts, total = collections.Counter(drawn), sum(weights)
    for i, w in enumerate(weights):
        assert abs(counts[i] / n - w / total) < 0.02
    assert set(counts) == {i for i, w in enumerate(weights) if w}


def test_weighted_sampler_without_replacement_is_distinct():
    s = ours.WeightedRandomSampler([1, 2, 3, 4, 5], 5, replacement=False)
    t = theirs.WeightedRandomSampler([1, 2, 3, 4, 5], 5, replacement=False)
    assert sorted(s) == sorted(t) == [0, 1, 2, 3, 4]


def test_weighted_sampler_generator_makes_it_reproducible():
    draw = lambda seed: list(
        ours.WeightedRandomSampler([1, 2, 3], 50, generator=mindtorch.Generator().manual_seed(seed))
    )
    assert draw(3) == draw(3) and draw(3) != draw(4)


def test_weighted_sampler_in_a_dataloader():
    loader = ours.DataLoader(list(range(10)), batch_size=4, sampler=ours.WeightedRandomSampler([1] * 10, 12))
    sizes = [len(b) for b in loader]
    assert sizes == [4, 4, 4]


class _Stream:
    """An iterable dataset over range(start, stop), made for either library's IterableDataset."""

    @staticmethod
    def make(lib, start, stop, sized=True):
        class Stream(lib.IterableDataset):
            def __iter__(self):
                return iter(range(start, stop))

        if sized:
            Stream.__len__ = lambda self: stop - start
        return Stream()


def test_chain_dataset_matches():
    for lib in (ours, theirs):
        a, b = _Stream.make(lib, 0, 3), _Stream.make(lib, 10, 12)
        chain = lib.ChainDataset([a, b])
        assert list(chain) == [0, 1, 2, 10, 11] and len(chain) == 5
        added = a + b
        assert type(added).__name__ == "ChainDataset" and list(added) == [0, 1, 2, 10, 11]
        assert isinstance(chain, lib.IterableDataset)


def test_chain_dataset_errors():
    _data_raises_alike(lambda lib: list(lib.ChainDataset([_Stream.make(lib, 0, 2), [1, 2]])))
    _data_raises_alike(lambda lib: len(lib.ChainDataset([[1, 2]])))
    _data_raises_alike(lambda lib: len(lib.ChainDataset([_Stream.make(lib, 0, 2, sized=False)])))


def test_chain_dataset_in_a_dataloader():
    chain = ours.ChainDataset([_Stream.make(ours, 0, 3), _Stream.make(ours, 3, 5)])
    assert [b.tolist() for b in ours.DataLoader(chain, batch_size=2)] == [[0, 1], [2, 3], [4]]


def test_stack_dataset_tuple_and_dict():
    for lib, tl in ((ours, mindtorch), (theirs, torch)):
        x, y = tl.arange(6).reshape(3, 2), tl.tensor([7, 8, 9])
        s = lib.StackDataset(x, y)
        assert len(s) == 3 and isinstance(s[1], tuple)
        assert s[1][0].tolist() == [2, 3] and s[1][1].item() == 8
        k = lib.StackDataset(a=x, b=["p", "q", "r"])
        assert set(k[2]) == {"a", "b"} and k[2]["b"] == "r"
        batch = s.__getitems__([0, 2])
        assert [(e[0].tolist(), e[1].item()) for e in batch] == [([0, 1], 7), ([4, 5], 9)]
        kb = k.__getitems__([2, 0])
        assert [e["b"] for e in kb] == ["r", "p"] and isinstance(kb[0], dict)


def test_stack_dataset_uses_nested_getitems():
    for lib in (ours, theirs):

        class Batched(lib.Dataset):
            def __len__(self):
                return 3

            def __getitems__(self, indices):
                return [f"b{i}" for i in indices]

        assert lib.StackDataset(Batched(), [0, 1, 2]).__getitems__([1, 2]) == [("b1", 1), ("b2", 2)]

    _data_raises_alike(lambda lib: lib.StackDataset(_short(lib), [0, 1, 2]).__getitems__([1, 2]))
    _data_raises_alike(lambda lib: lib.StackDataset(x=_short(lib), y=[0, 1, 2]).__getitems__([1, 2]))


def _short(lib):
    class Short(lib.Dataset):
        def __len__(self):
            return 3

        def __getitems__(self, indices):
            return ["only one"]

    return Short()


@pytest.mark.parametrize(
    "call",
    [
        lambda lib: lib.StackDataset(),
        lambda lib: lib.StackDataset([1], a=[2]),
        lambda lib: lib.StackDataset([1, 2], [3]),
        lambda lib: lib.StackDataset(a=[1, 2], b=[3]),
    ],
)
def test_stack_dataset_errors(call):
    _data_raises_alike(call)


def test_stack_dataset_in_a_dataloader():
    s = ours.StackDataset(mindtorch.arange(4), mindtorch.arange(4) * 10)
    batches = [(a.tolist(), b.tolist()) for a, b in ours.DataLoader(s, batch_size=3)]
    assert batches == [([0, 1, 2], [0, 10, 20]), ([3], [30])]
