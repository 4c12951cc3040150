"""DistributedSampler against PyTorch's: the same shares without shuffling; with shuffling the same
sizes and a permutation per epoch (the generators' streams differ)."""

import pytest
from helpers import torch_or_skip
from mindtorch.utils.data.distributed import DistributedSampler


@pytest.mark.parametrize(
    "n,replicas,drop_last", [(10, 3, False), (10, 3, True), (12, 4, False), (2, 5, False), (7, 7, True), (9, 2, True)]
)
def test_shares_match_pytorch(n, replicas, drop_last):
    torch = torch_or_skip()
    from torch.utils.data.distributed import DistributedSampler as TorchSampler

    for rank in range(replicas):
        ours = DistributedSampler(range(n), replicas, rank, shuffle=False, drop_last=drop_last)
        theirs = TorchSampler(range(n), replicas, rank, shuffle=False, drop_last=drop_last)
        assert list(ours) == list(theirs) and len(ours) == len(theirs)
    del torch


def test_shuffle_is_a_seeded_permutation_per_epoch():
    shares = lambda epoch, seed=0: [list(_at(epoch, r, seed)) for r in range(3)]
    e0, e1 = shares(0), shares(1)
    assert sorted(sum(e0, [])) == list(range(12)) == sorted(sum(e1, []))
    assert e0 != e1 and e0 == shares(0) and shares(0, seed=5) != e0


def _at(epoch, rank, seed):
    s = DistributedSampler(range(12), 3, rank, shuffle=True, seed=seed)
    s.set_epoch(epoch)
    return s


def test_invalid_rank():
    torch = torch_or_skip()
    from torch.utils.data.distributed import DistributedSampler as TorchSampler

    for rank in (3, -1):
        with pytest.raises(ValueError):
            TorchSampler(range(4), 3, rank)
        with pytest.raises(ValueError):
            DistributedSampler(range(4), 3, rank)
    del torch
