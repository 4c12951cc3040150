"""utils.data: datasets, samplers, DataLoader and collation (no PyTorch)."""

from collections import namedtuple

import mindtorch as torch
import numpy as np
import pytest
from mindtorch.utils.data import (
    BatchSampler,
    DataLoader,
    Dataset,
    RandomSampler,
    SequentialSampler,
    Subset,
    TensorDataset,
    default_collate,
    random_split,
)


def test_tensor_dataset_and_sequential_loader():
    ds = TensorDataset(torch.arange(10).float(), torch.arange(10) * 2)
    assert len(ds) == 10 and ds[3][1].item() == 6
    dl = DataLoader(ds, batch_size=4)
    batches = list(dl)
    assert len(dl) == 3 and [b[0].shape[0] for b in batches] == [4, 4, 2]
    assert batches[0][1].tolist() == [0, 2, 4, 6] and batches[0][0].dtype is torch.float32
    assert len(DataLoader(ds, batch_size=4, drop_last=True)) == 2
    with pytest.raises(AssertionError, match="Size mismatch between tensors"):
        TensorDataset(torch.ones(3), torch.ones(4))


def test_shuffle_is_a_permutation_and_reproducible():
    ds = TensorDataset(torch.arange(20))
    run = lambda seed: [
        x.item()
        for (b,) in DataLoader(ds, batch_size=3, shuffle=True, generator=torch.Generator().manual_seed(seed))
        for x in b
    ]
    a, b = run(1), run(1)
    assert a == b and sorted(a) == list(range(20)) and a != list(range(20))


def test_samplers():
    assert list(SequentialSampler(range(4))) == [0, 1, 2, 3]
    r = list(RandomSampler(range(6), generator=torch.Generator().manual_seed(0)))
    assert sorted(r) == list(range(6))
    assert len(list(RandomSampler(range(6), replacement=True, num_samples=40))) == 40
    assert list(BatchSampler(range(5), 2, drop_last=False)) == [[0, 1], [2, 3], [4]]
    assert list(BatchSampler(range(5), 2, drop_last=True)) == [[0, 1], [2, 3]]
    with pytest.raises(ValueError, match="batch_size should be a positive integer value"):
        BatchSampler(range(5), 0, False)
    dl = DataLoader(range(6), batch_sampler=BatchSampler(SequentialSampler(range(6)), 4, False))
    assert [b.tolist() for b in dl] == [[0, 1, 2, 3], [4, 5]]
    with pytest.raises(ValueError, match="mutually exclusive"):
        DataLoader(range(6), batch_size=2, batch_sampler=[[0]])
    with pytest.raises(ValueError, match="sampler option is mutually exclusive with shuffle"):
        DataLoader(range(6), sampler=[0, 1], shuffle=True)


def test_random_split_and_subset():
    parts = random_split(range(10), [0.5, 0.3, 0.2], generator=torch.Generator().manual_seed(0))
    assert [len(p) for p in parts] == [5, 3, 2]
    assert sorted(sum((list(p) for p in parts), [])) == list(range(10))
    parts = random_split(range(7), [0.5, 0.5])
    assert [len(p) for p in parts] == [4, 3]
    with pytest.raises(ValueError, match="Sum of input lengths does not equal"):
        random_split(range(10), [3, 3])
    s = Subset([10, 11, 12, 13], [3, 0])
    assert len(s) == 2 and list(s) == [13, 10]


def test_default_collate_structures():
    Point = namedtuple("Point", "x y")
    out = default_collate(
        [
            {"a": 1.0, "b": np.ones(2, dtype=np.float32), "s": "u"},
            {"a": 2.0, "b": np.zeros(2, dtype=np.float32), "s": "v"},
        ]
    )
    assert out["a"].dtype is torch.float64 and out["a"].tolist() == [1.0, 2.0]
    assert out["b"].shape == (2, 2) and out["b"].dtype is torch.float32 and out["s"] == ["u", "v"]
    p = default_collate([Point(1, torch.ones(2)), Point(2, torch.zeros(2))])
    assert isinstance(p, Point) and p.x.tolist() == [1, 2] and p.y.shape == (2, 2)
    assert default_collate([(1, True), (2, False)])[1].dtype is torch.bool
    with pytest.raises(RuntimeError, match="each element in list of batch should be of equal size"):
        default_collate([[1, 2], [3]])


def test_custom_dataset_and_collate_fn():
    class Squares(Dataset):
        def __len__(self):
            return 5

        def __getitem__(self, i):
            return {"x": torch.tensor([float(i)]), "y": i * i}

    batches = list(DataLoader(Squares(), batch_size=2))
    assert batches[0]["x"].shape == (2, 1) and batches[2]["y"].tolist() == [16]
    assert list(DataLoader(Squares(), batch_size=5, collate_fn=len)) == [5]
    assert [b["y"] for b in DataLoader(Squares(), batch_size=None)] == [0, 1, 4, 9, 16]
