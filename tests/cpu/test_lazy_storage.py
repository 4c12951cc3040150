"""Small cpu results own their NumPy array and get a Storage only when something asks for one."""

import gc

import mindtorch as torch
import pytest
from mindtorch_cpu.allocator import ALLOCATOR, LAZY_MAX


def _in_use():
    gc.collect()
    return ALLOCATOR.bytes_in_use()


def _small():
    a = torch.arange(8, dtype=torch.float32)
    return a + a


def test_small_result_has_no_storage_until_asked():
    r = _small()
    assert r._st is None
    st = r.untyped_storage()
    assert r._st is st and r.untyped_storage() is st  # built once, then kept
    assert st.nbytes == 32 and st.data is r.numpy()  # over the very array the kernel made


def test_views_share_the_storage_built_on_demand():
    r = _small()
    v = r.view(2, 4)
    w = r[2:5]
    assert v.untyped_storage() is r.untyped_storage() is w.untyped_storage()
    w.fill_(7.0)  # a write through a view is seen by the base and its other views
    assert r.tolist()[2:5] == [7.0, 7.0, 7.0] and v[0].tolist()[2:] == [7.0, 7.0]
    assert w.data_ptr() == r.data_ptr() + 2 * 4


def test_large_results_get_their_storage_at_once():
    n = LAZY_MAX // 4
    x = torch.ones(n, dtype=torch.float32)
    r = x + x
    assert r._st is not None


def test_bytes_in_use_counts_lazy_results_while_they_live():
    base = _in_use()
    r = _small()
    assert _in_use() == base + 32
    r.untyped_storage()  # the bytes move to the storage: counted once
    assert _in_use() == base + 32
    s = _small()
    t = s.view(8)
    assert _in_use() == base + 64
    del r, s
    assert _in_use() == base + 32  # t keeps s's memory
    del t
    assert _in_use() == base


def test_many_dead_results_are_swept():
    a = torch.ones(4)
    base = _in_use()
    for _ in range(3 * ALLOCATOR.sweep_at):
        a + a
    assert len(ALLOCATOR.lazy) <= ALLOCATOR.sweep_at
    assert _in_use() == base


def test_saved_result_without_storage_unpacks_for_backward():
    x = torch.arange(1.0, 9.0, requires_grad=True)
    y = x.exp()  # exp saves its result
    assert y._st is None
    y.sum().backward()
    assert torch.allclose(x.grad, x.detach().exp())


def test_storage_of_lazy_result_after_in_place_growth():
    base = _in_use()
    r = _small()
    r.resize_(16)  # a resize grows the storage: the lazy array is adopted first
    assert r.untyped_storage().nbytes == 64 and r.shape == (16,)
    assert _in_use() == base + 64
    del r
    assert _in_use() == base


@pytest.mark.parametrize("make", [lambda r: r.clone(), lambda r: r.detach(), lambda r: r.data])
def test_aliases_and_copies_of_lazy_results(make):
    r = _small()
    o = make(r)
    same = o.data_ptr() == r.data_ptr()
    r.add_(1.0)
    assert (o.tolist() == r.tolist()) == same
