"""The object collectives: picklable Python objects between the processes of a group, as bytes in
uint8 tensors through the tensor collectives (their sizes travel first, as int64 tensors)."""

import pickle

import numpy as np

from .distributed_c10d import _group, _root, all_gather, broadcast, gather, recv, scatter, send

__all__ = [
    "all_gather_object",
    "broadcast_object_list",
    "gather_object",
    "scatter_object_list",
    "send_object_list",
    "recv_object_list",
]


def _tensor(data, size=None):
    import mindtorch

    arr = np.zeros(len(data) if size is None else size, np.uint8)
    arr[: len(data)] = np.frombuffer(data, np.uint8)
    return mindtorch.from_numpy(arr)


def _sizes(values):
    import mindtorch

    return mindtorch.tensor(list(values), dtype=mindtorch.int64)


def _lengths(data, n, group):
    """Every member's length of its pickled bytes: each pads its own to the longest."""
    sizes = [_sizes([0]) for _ in range(n)]
    all_gather(sizes, _sizes([len(data)]), group=group)
    return [int(s.item()) for s in sizes]


def _load(t, n):
    return pickle.loads(t.numpy()[:n].tobytes())


def all_gather_object(object_list, obj, group=None):
    """object_list[k] = group rank k's `obj`, on every member."""
    g = _group(group)
    if g is None:
        return
    n = g.size()
    data = pickle.dumps(obj)
    sizes = _lengths(data, n, group)
    longest = max(sizes)
    pieces = [_tensor(b"", longest) for _ in range(n)]
    all_gather(pieces, _tensor(data, longest), group=group)
    for k in range(n):
        object_list[k] = _load(pieces[k], sizes[k])


def gather_object(obj, object_gather_list=None, dst=None, group=None, group_dst=None):
    """object_gather_list[k] = group rank k's `obj`, on the destination only."""
    g = _group(group)
    if g is None:
        return
    n = g.size()
    root = _root(g, dst, group_dst, "dst")
    mine = g.rank() == root
    if mine and object_gather_list is None:
        raise ValueError("Argument ``object_gather_list`` must be specified on destination rank.")
    data = pickle.dumps(obj)
    sizes = _lengths(data, n, group)
    longest = max(sizes)
    pieces = [_tensor(b"", longest) for _ in range(n)] if mine else None
    gather(_tensor(data, longest), pieces, group=group, group_dst=root)
    if mine:
        for k in range(n):
            object_gather_list[k] = _load(pieces[k], sizes[k])


def broadcast_object_list(object_list, src=None, group=None, device=None, group_src=None):
    """The source's objects into object_list on every member (the lists have the same length)."""
    g = _group(group)
    if g is None:
        return
    root = _root(g, src, group_src, "src")
    if g.rank() == root:
        blobs = [pickle.dumps(o) for o in object_list]
        sizes = _sizes(len(b) for b in blobs)
    else:
        sizes = _sizes([0] * len(object_list))
    broadcast(sizes, group=group, group_src=root)
    counts = [int(c) for c in sizes.tolist()]
    payload = _tensor(b"".join(blobs) if g.rank() == root else b"", sum(counts))
    broadcast(payload, group=group, group_src=root)
    if g.rank() != root:
        _fill(object_list, payload, counts)


def _fill(object_list, payload, counts):
    raw, start = payload.numpy().tobytes(), 0
    for i, c in enumerate(counts):
        object_list[i] = pickle.loads(raw[start : start + c])
        start += c


def scatter_object_list(
    scatter_object_output_list, scatter_object_input_list=None, src=None, group=None, group_src=None
):
    """scatter_object_output_list[0] = the source's scatter_object_input_list[k] on group rank k."""
    if not isinstance(scatter_object_output_list, list) or len(scatter_object_output_list) < 1:
        raise ValueError("Expected argument scatter_object_output_list to be a list of size at least 1.")
    g = _group(group)
    if g is None:
        return
    root = _root(g, src, group_src, "src")
    mine = g.rank() == root
    blobs = [pickle.dumps(o) for o in scatter_object_input_list] if mine else []
    longest = _sizes([max(map(len, blobs)) if mine else 0])
    broadcast(longest, group=group, group_src=root)
    width = int(longest.item())
    size = _sizes([0])
    scatter(size, [_sizes([len(b)]) for b in blobs] if mine else None, group=group, group_src=root)
    out = _tensor(b"", width)
    scatter(out, [_tensor(b, width) for b in blobs] if mine else None, group=group, group_src=root)
    scatter_object_output_list[0] = _load(out, int(size.item()))


def send_object_list(object_list, dst=None, group=None, device=None, group_dst=None, use_batch=False):
    blobs = [pickle.dumps(o) for o in object_list]
    send(_sizes(len(b) for b in blobs), dst=dst, group=group, group_dst=group_dst)
    send(_tensor(b"".join(blobs)), dst=dst, group=group, group_dst=group_dst)


def recv_object_list(object_list, src=None, group=None, device=None, group_src=None, use_batch=False):
    """Fill object_list from a sender (any member when no source is named); its global rank."""
    sizes = _sizes([0] * len(object_list))
    sender = recv(sizes, src=src, group=group, group_src=group_src)
    counts = [int(c) for c in sizes.tolist()]
    payload = _tensor(b"", sum(counts))
    recv(payload, src=sender, group=group)
    _fill(object_list, payload, counts)
    return sender
