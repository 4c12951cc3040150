"""DistributedDataParallel: one model replica per process, gradients averaged in buckets.

Parameters are bucketed in reverse registration order (roughly the order backward produces their
gradients), the first bucket small so communication starts early. A post-accumulate-grad hook on each
parameter copies its gradient into its bucket; a bucket whose gradients are all in is all-reduced
asynchronously right away (buckets start in index order, the same on every rank), and the hook that
completes the last bucket waits for all of them and writes the averages back into `.grad`.
"""

from contextlib import contextmanager

import mindtorch
from mindtorch import distributed as dist
from mindtorch.distributed.distributed_c10d import _group

from ..modules.module import Module

_MB = 1024 * 1024
_DEFAULT_FIRST_BUCKET_BYTES = 1 * _MB
_DEFAULT_BUCKET_CAP_MB = 25

_NOT_FINISHED = (
    "Expected to have finished reduction in the prior iteration before starting a new one. This error "
    "indicates that your module has parameters that were not used in producing loss. You can enable unused "
    "parameter detection by passing the keyword argument `find_unused_parameters=True` to "
    "`torch.nn.parallel.DistributedDataParallel`, and by making sure all `forward` function outputs "
    "participate in calculating loss."
)


class _Bucket:
    def __init__(self, index, params):
        self.index, self.params = index, params
        self.offsets, n = [], 0
        for p in params:
            self.offsets.append(n)
            n += p.numel()
        self.flat = mindtorch.zeros(n, dtype=params[0].dtype, device=params[0].device)
        self.ready, self.work = set(), None

    def view(self, k):
        p = self.params[k]
        return self.flat[self.offsets[k] : self.offsets[k] + p.numel()].view(p.shape)


def _itemsize(dtype):
    return mindtorch.empty(0, dtype=dtype).element_size()


def _assign_buckets(params, limits):
    """Lists of parameter indices: reverse order, one dtype and device per bucket, the k-th bucket of each
    kind closed once it holds limits[min(k, -1)] bytes (PyTorch's assignment)."""
    done, open_ = [], {}
    for i in reversed(range(len(params))):
        p = params[i]
        key = (p.dtype, str(p.device))
        cur = open_.setdefault(key, {"idx": [], "bytes": 0, "n": 0})
        cur["idx"].append(i)
        cur["bytes"] += p.numel() * _itemsize(p.dtype)
        if cur["bytes"] >= limits[min(cur["n"], len(limits) - 1)]:
            done.append(cur["idx"])
            open_[key] = {"idx": [], "bytes": 0, "n": cur["n"] + 1}
    done += [c["idx"] for c in open_.values() if c["idx"]]
    return done


class DistributedDataParallel(Module):
    def __init__(
        self,
        module,
        device_ids=None,
        output_device=None,
        dim=0,
        broadcast_buffers=True,
        init_sync=True,
        process_group=None,
        bucket_cap_mb=None,
        find_unused_parameters=False,
        check_reduction=False,
        gradient_as_bucket_view=False,
        static_graph=False,
        **kwargs,
    ):
        super().__init__()
        pg = _group(process_group)
        if pg is None:
            raise ValueError("DistributedDataParallel: this process is not a member of process_group")
        params = [p for p in module.parameters() if p.requires_grad]
        if not params:
            raise RuntimeError(
                "DistributedDataParallel is not needed when a module doesn't have any parameter "
                "that requires a gradient."
            )
        self.module = module
        self.process_group = pg
        self.broadcast_buffers = broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.require_backward_grad_sync = True
        self.device_ids, self.output_device, self.dim = device_ids, output_device, dim
        self.bucket_bytes_cap = int((_DEFAULT_BUCKET_CAP_MB if bucket_cap_mb is None else bucket_cap_mb) * _MB)
        self._params = params
        if init_sync:
            self._broadcast(list(module.parameters()) + list(module.buffers()))
        # as PyTorch: a small first bucket only with the default cap; a cap given applies to every bucket
        limits = (
            [_DEFAULT_FIRST_BUCKET_BYTES, self.bucket_bytes_cap] if bucket_cap_mb is None else [self.bucket_bytes_cap]
        )
        self._buckets = [_Bucket(k, [params[i] for i in idx]) for k, idx in enumerate(_assign_buckets(params, limits))]
        self._where = {}
        for b in self._buckets:
            for k, p in enumerate(b.params):
                self._where[id(p)] = (b, k)
        self._handles = [p.register_post_accumulate_grad_hook(self._grad_ready) for p in params]
        self._syncing = False  # this iteration's backward reduces
        self._started = False  # a hook fired this iteration
        self._next = 0  # next bucket to launch
        self._unused = []  # parameters outside this iteration's graph (find_unused_parameters)
        self._used = None  # per-parameter use flags, all-reduced with MAX
        self._used_work = None

    # ---- construction and buffers
    def _broadcast(self, tensors):
        root = self.process_group.ranks[0]
        with mindtorch.no_grad():
            works = [dist.broadcast(t.detach(), src=root, group=self.process_group, async_op=True) for t in tensors]
        for w in works:
            w.wait()

    # ---- forward
    def forward(self, *inputs, **kwargs):
        if self._syncing and self._started:
            raise RuntimeError(_NOT_FINISHED)
        sync = mindtorch.is_grad_enabled() and self.require_backward_grad_sync
        if sync and self.broadcast_buffers:
            bufs = list(self.module.buffers())
            if bufs:
                self._broadcast(bufs)
        out = self.module(*inputs, **kwargs)
        self._prepare(sync, out)
        return out

    def _prepare(self, sync, out):
        self._syncing, self._started, self._next, self._used_work = sync, False, 0, None
        for b in self._buckets:
            b.ready, b.work = set(), None
        self._unused = []
        if sync and self.find_unused_parameters:
            reached = _graph_leaves(out)
            self._unused = [p for p in self._params if id(p) not in reached]
            self._used = mindtorch.tensor(
                [0 if id(p) not in reached else 1 for p in self._params],
                dtype=mindtorch.int32,
                device=self._params[0].device,
            )

    # ---- backward
    def _grad_ready(self, p):
        if not self._syncing:
            return
        if not self._started:
            self._started = True
            if self.find_unused_parameters:
                # every rank starts this all-reduce at its first hook, before any bucket
                self._used_work = dist.all_reduce(
                    self._used, op=dist.ReduceOp.MAX, group=self.process_group, async_op=True
                )
                for q in self._unused:
                    self._mark(q, None)
        self._mark(p, p.grad)

    def _mark(self, p, grad):
        b, k = self._where[id(p)]
        if k in b.ready:
            raise RuntimeError(
                f"Expected to mark a variable ready only once. This error is caused by one of the following "
                f"reasons: 1) Use of a module parameter outside the `forward` function. 2) Reused parameters in "
                f"multiple reentrant backward passes. Parameter of shape {tuple(p.shape)} was marked ready twice."
            )
        with mindtorch.no_grad():
            if grad is None:
                b.view(k).zero_()
            else:
                b.view(k).copy_(grad)
        b.ready.add(k)
        if len(b.ready) == len(b.params):
            self._launch()

    def _launch(self):
        buckets = self._buckets
        while self._next < len(buckets) and len(buckets[self._next].ready) == len(buckets[self._next].params):
            b = buckets[self._next]
            b.work = dist.all_reduce(b.flat, op=dist.ReduceOp.AVG, group=self.process_group, async_op=True)
            self._next += 1
        if self._next == len(buckets):
            self._finalize()

    def _finalize(self):
        used = None
        if self._used_work is not None:
            self._used_work.wait()
            used = {id(p): bool(u) for p, u in zip(self._params, self._used.tolist())}
        with mindtorch.no_grad():
            for b in self._buckets:
                b.work.wait()
                for k, p in enumerate(b.params):
                    if p.grad is None:
                        if used is not None and used[id(p)]:  # unused here, used on another rank
                            p.grad = b.view(k).clone()
                    else:
                        p.grad.copy_(b.view(k))
        self._syncing = self._started = False

    @contextmanager
    def no_sync(self):
        """Gradients accumulate locally inside; the first synced backward after reduces the sum."""
        old = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = old

    # ---- state: the wrapped module's, without a "module." prefix
    def state_dict(self, *args, **kwargs):
        return self.module.state_dict(*args, **kwargs)

    def load_state_dict(self, state_dict, strict=True, assign=False):
        if state_dict and all(k.startswith("module.") for k in state_dict):
            state_dict = {k[len("module.") :]: v for k, v in state_dict.items()}
        return self.module.load_state_dict(state_dict, strict=strict, assign=assign)


def _graph_leaves(out):
    """ids of the leaf tensors whose gradients the autograd graph of `out` reaches."""
    roots, stack = [], [out]
    while stack:
        o = stack.pop()
        if isinstance(o, mindtorch.Tensor):
            if o.grad_fn is not None:
                roots.append(o.grad_fn)
            elif o.requires_grad:  # a parameter returned as it is
                roots.append(o)
        elif isinstance(o, (list, tuple)):
            stack.extend(o)
        elif isinstance(o, dict):
            stack.extend(o.values())
    found, seen = set(), set()
    nodes = list(roots)
    while nodes:
        n = nodes.pop()
        if isinstance(n, mindtorch.Tensor):
            found.add(id(n))
            continue
        if id(n) in seen:
            continue
        seen.add(id(n))
        var = getattr(n, "variable", None)
        if var is not None:
            found.add(id(var))
        for nxt, _ in n.next_functions:
            if nxt is not None:
                nodes.append(nxt)
    return found
