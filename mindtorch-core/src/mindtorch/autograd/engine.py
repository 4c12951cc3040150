"""The backward pass: an iterative walk of the graph in dependency order.

Nodes run when every gradient flowing into them has arrived; among ready
nodes the most recently created runs first (as PyTorch's engine does), and
no recursion is involved, so graphs of any depth work. With `inputs`, only
the part of the graph leading to them runs.
"""

import heapq
import sys

from .._grad_mode import state as _grad_state
from .._profiling import ACTIVE as _PROFILING
from . import anomaly_mode
from .graph import AccumulateGrad, GradientEdge, Node, gradient_edge, running_tasks

_refcount = sys.getrefcount


def _reduce_to_input(g, shape, dtype, node):
    if g._shape != shape:
        from .._geometry import broadcast_shapes
        from ..ops.formulas import sum_to

        try:
            ok = broadcast_shapes(tuple(shape), tuple(g._shape)) == tuple(g._shape)
        except RuntimeError:
            ok = False
        if not ok:
            raise RuntimeError(
                f"Function {node.name()} returned an invalid gradient at index 0 - got "
                f"[{', '.join(map(str, g._shape))}] but expected shape compatible with "
                f"[{', '.join(map(str, shape))}]"
            )
        g = sum_to(g, shape)
    if g.dtype is not dtype:
        if g.dtype.is_complex and not dtype.is_complex:  # a real input's gradient is the real part
            from ..ops.complex import _real

            g = _real(g)
        g = g.to(dtype)
    return g


def _run_tensor_hooks(node, grads):
    """Tensor hooks (per output), then retain_grad hooks, then the node's pre-hooks."""
    table = node.tensor_pre_hooks
    if table:
        for nr, hooks in table.items():
            for hook in list(hooks.values()):
                if grads[nr] is None:
                    continue
                r = hook(grads[nr])
                if r is not None:
                    grads[nr] = r
    table = node.retains_grad_hooks
    if table:
        for nr, hook in list(table.items()):
            if grads[nr] is not None:
                hook(grads[nr])
    return grads


def _run_pre_hooks(node, grads):
    for hook in list(node.pre_hooks.values()):
        r = hook(tuple(grads))
        if r is not None:
            grads = list(r)
    return grads


def _run_leaf_hooks(var, grad):
    hooks = var._hooks
    if hooks:
        for hook in list(hooks.values()):
            r = hook(grad)
            if r is not None:
                grad = r
    return grad


def _accumulate_leaf(var, grad, create_graph, owned):
    """AccumulateGrad: the first gradient is stored (copied unless the engine made it), later ones added."""
    old = var._grad
    wanted = var.__dict__.get("_grad_dtype", grad.dtype)  # the leaf's grad_dtype, when it was set
    if wanted is not None and wanted is not grad.dtype:
        grad, owned = grad.to(wanted), True
    if old is None:
        if not create_graph:
            # keep the engine's own buffer when nothing else can see it (PyTorch steals it too)
            if not owned or grad._base is not None or not grad.is_contiguous():
                grad = grad.detach().clone()
            elif grad._requires_grad:
                grad = grad.detach()
        var._grad = grad
    elif create_graph or old._requires_grad:
        var._grad = old + grad
    else:
        prev = _grad_state.enabled
        _grad_state.enabled = False
        try:
            old.add_(grad)
        finally:
            _grad_state.enabled = prev
    post = var.__dict__.get("_post_accumulate_hooks")
    if post:
        for hook in list(post.values()):
            hook(var)


def _materialize(node, grads):
    """Multi-output nodes get zeros for outputs no gradient reached (only for the gradients their
    derivative formulas read: cross_entropy's log-probabilities output needs none)."""
    import mindtorch

    meta = node.out_meta
    d = node.op.derivative
    wanted = d.grad_indices if d is not None else None
    for k, g in enumerate(grads):
        if g is None and meta and meta[k] is not None and (wanted is None or k in wanted):
            shape, dtype, dev = meta[k]
            if dtype._kind >= 2:
                grads[k] = mindtorch.zeros(shape, dtype=dtype, device=dev)
    return grads


def _pick(out, pi, k):
    if type(out) is dict:
        return out.get((pi, k))
    v = out[pi]
    if k is not None and v is not None:
        return v[k]
    return v


def run_backward(roots, grad_roots, retain_graph, create_graph, inputs=None, accumulate=True):
    """Propagate grad_roots from roots. With `inputs`: returns {input index: grad} (accumulate=False) or
    accumulates only into them (accumulate=True)."""
    buffers, start = _seed_buffers(roots, grad_roots)
    task = _GraphTask(buffers, grad_roots, retain_graph, create_graph)
    if inputs is None:
        task.deps = _count_dependencies(start)
    else:
        task.select(inputs, start, _reachable(start), capture=not accumulate)
    task.start = set(start)
    prev_enabled = _grad_state.enabled
    _grad_state.enabled = create_graph
    running_tasks.append(task)
    try:
        task.run(start)
    finally:
        running_tasks.pop()
        _grad_state.enabled = prev_enabled
    return task.capture


def _deposit(buffers, node, nr, g):
    """Add g to the gradient arriving at output nr of node."""
    buf = buffers.get(node)
    if buf is None:
        buf = buffers[node] = [None] * max(node.num_outputs, 1)
        buf[nr] = g
        return
    old = buf[nr]
    buf[nr] = g if old is None else _sum_gradients(old, g)


def _sum_gradients(old, g):
    """old + g, written into old when nothing but the buffer holds it or its memory (as PyTorch's
    engine does): the buffer's reference, _deposit's or _send's `old`, this frame's and getrefcount's
    argument are all there are, it is no view, and no graph will be built over it."""
    if (
        old._st is not None
        and _refcount(old) == 4
        and old._base is None
        and not _grad_state.enabled
        and not old._requires_grad
        and old._shape == g._shape
        and old.dtype is g.dtype
        and _sole_owner(old)
    ):
        return old.add_(g)
    return old + g


def _sole_owner(t):
    """Whether no other tensor or array can see t's memory: its storage object and its host array (when
    it has one) are referenced by t alone, and that array's base, if any, by the array alone. A tensor
    whose storage was never built (the cpu backend's small results) is summed out of place: a new small
    block costs less than an in-place op's checks. Each count includes this frame's variable and
    getrefcount's argument."""
    st = t._st
    if st is None or _refcount(st) != 3:
        return False
    a = t._np
    if a is None:
        return True
    if st.data is not a or _refcount(a) != 4:  # t._np and the storage's data
        return False
    b = a.base
    return b is None or (b.base is None and _refcount(b) == 3)


def _input_edge(x):
    """(node, output_nr) of an input given as a tensor or as a GradientEdge."""
    if isinstance(x, GradientEdge):
        return x.node, x.output_nr
    return gradient_edge(x)


def _seed_buffers(roots, grad_roots):
    """The roots' gradients in their nodes' buffers, and the root nodes."""
    buffers = {}
    start = []
    for t, g in zip(roots, grad_roots):
        node, nr = gradient_edge(t)
        start.append(node)
        _deposit(buffers, node, nr, g)
    return buffers, start


def _reachable(start):
    """{node: the nodes its input edges lead to} over the graph reachable from start (iterative DFS)."""
    children = {}
    stack = list(start)
    seen = set(start)
    while stack:
        n = stack.pop()
        kids = []
        for e in n.inputs:
            nxt = e[2]
            if nxt is None:
                continue
            kids.append(nxt)
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
        children[n] = kids
    return children


def _count_dependencies(start):
    """How many edges lead into each node reachable from start, in one walk of the graph (no lists of
    children): a node is ready when that many gradients have arrived."""
    deps = {}
    roots = set(start)
    stack = list(roots)
    while stack:
        for e in stack.pop().inputs:
            nxt = e[2]
            if nxt is None:
                continue
            c = deps.get(nxt)
            if c is None:
                deps[nxt] = 1
                if nxt not in roots:  # the roots are on the stack already
                    stack.append(nxt)
            else:
                deps[nxt] = c + 1
    return deps


def _dependencies(children, parents, relevant=None):
    """How many edges from `parents` lead into each node (counting only edges into `relevant` if given):
    a node is ready when that many gradients have arrived."""
    deps = {}
    for n in parents:
        for c in children[n]:
            if relevant is None or c in relevant:
                deps[c] = deps.get(c, 0) + 1
    return deps


def _leading_to(targets, start, children):
    """The nodes with some target strictly below them: with `inputs`, only they run (post-order DFS)."""
    exec_set = set()
    below = {}
    stack = [(n, False) for n in set(start)]
    done = set()
    while stack:
        n, post = stack.pop()
        if post:
            hit = False
            for c in children.get(n, ()):
                if c in targets or below.get(c):
                    hit = True
                    break
            below[n] = hit
            if hit:
                exec_set.add(n)
            continue
        if n in done:
            continue
        done.add(n)
        stack.append((n, True))
        for c in children.get(n, ()):
            if c not in done:
                stack.append((c, False))
    return exec_set


def _apply(node, grads, edges, create_graph):
    """The node's backward on its output gradients, then its post-hooks; the anomaly mode checks the
    result for NaN and names the forward call of a node that raised."""
    if len(grads) > 1 and node.op is not None:  # Functions decide themselves
        grads = _materialize(node, grads)
    try:
        in_grads = node.apply(grads, create_graph)
        if node.hooks:
            in_grads = _run_post_hooks(node, edges, in_grads, grads)
        if Node.anomaly_enabled and Node.anomaly_check_nan:
            anomaly_mode.check_nan(node, [_pick(in_grads, e[0], e[1]) for e in edges])
    except Exception:
        if Node.anomaly_enabled:
            anomaly_mode.warn_forward_trace(node)
        raise
    return in_grads


def _apply_profiled(node, grads, edges, create_graph):
    """`_apply` as one range of the profile, named as PyTorch's engine names a node's evaluation."""
    recorder = _PROFILING[0]
    span = recorder.open(f"autograd::engine::evaluate_function: {node.name()}", "cpu_op")
    try:
        return _apply(node, grads, edges, create_graph)
    finally:
        recorder.close(span)


def _run_post_hooks(node, edges, in_grads, grads):
    """Node hooks see (grad_inputs, grad_outputs) and may replace grad_inputs."""
    gi = tuple(_pick(in_grads, e[0], e[1]) for e in edges)
    for hook in list(node.hooks.values()):
        r = hook(gi, tuple(grads))
        if r is not None:
            gi = tuple(r)
    return {(e[0], e[1]): g for e, g in zip(edges, gi)}


def _mark_shared(shared, grads):
    """Gradients a hook saw or returned may be held elsewhere: a leaf must not keep them as its .grad."""
    shared.update(id(g) for g in grads if g is not None)
    return grads


class _GraphTask:
    """One backward call: the gradient buffers of nodes not yet run, the count of gradients each still
    waits for, and the heap of ready nodes (the most recently created first). With `inputs`, `wanted`
    maps their nodes to (output nr, input index) pairs and only `exec_set` (the nodes leading to them)
    runs."""

    __slots__ = (
        "buffers",
        "grad_roots",
        "retain_graph",
        "create_graph",
        "deps",
        "ready",
        "shared",
        "inputs",
        "start",
        "__weakref__",
        "wanted",
        "exec_set",
        "relevant",
        "capture",
    )

    def __init__(self, buffers, grad_roots, retain_graph, create_graph):
        self.buffers, self.grad_roots = buffers, grad_roots
        self.retain_graph, self.create_graph = retain_graph, create_graph
        self.deps = None
        self.ready = []
        self.shared = set()  # ids of gradient tensors that something besides one leaf may hold
        self.inputs = self.wanted = self.exec_set = self.relevant = self.capture = None
        self.start = ()

    def select(self, inputs, start, children, capture):
        """Restrict the walk to the nodes leading to `inputs`; with `capture`, their gradients are
        returned instead of accumulated."""
        self.inputs = inputs
        wanted = self.wanted = {}
        for i, t in enumerate(inputs):
            node, nr = _input_edge(t)
            wanted.setdefault(node, []).append((nr, i))
        targets = set(wanted)
        self.exec_set = _leading_to(targets, start, children)
        self.relevant = self.exec_set | targets
        self.capture = {} if capture else None
        self.deps = _dependencies(children, self.exec_set, self.relevant)

    def run(self, start):
        """Run every node once all its awaited gradients are in, starting from the roots waiting for none."""
        ready, buffers, wanted, exec_set, deps = self.ready, self.buffers, self.wanted, self.exec_set, self.deps
        for n in set(start):
            if deps.get(n, 0) == 0:
                heapq.heappush(ready, (-n.seq, id(n), n))
        create_graph, release, send = self.create_graph, not self.retain_graph, self._send
        while ready:
            node = heapq.heappop(ready)[2]
            grads = buffers.pop(node, None)
            if grads is None:
                grads = [None] * max(node.num_outputs, 1)
            if node.__class__ is AccumulateGrad:
                self._accumulate(node, grads[0])
                continue
            if node.tensor_pre_hooks or node.retains_grad_hooks:
                grads = _mark_shared(self.shared, _run_tensor_hooks(node, grads))
            if wanted is not None:
                if node in wanted:
                    self._capture(node, grads)
                if node not in exec_set:
                    continue
            if node.pre_hooks:
                grads = _mark_shared(self.shared, _run_pre_hooks(node, grads))
            edges = node.inputs
            # any gradient at all? (a present first one settles it without walking the list)
            if grads and grads[0] is not None or not all(g is None for g in grads):
                if _PROFILING:
                    in_grads = _apply_profiled(node, grads, edges, create_graph)
                else:
                    in_grads = _apply(node, grads, edges, create_graph)
            else:
                in_grads = None
            if release:
                node.release()
            send(node, edges, in_grads)

    def _accumulate(self, node, g):
        """AccumulateGrad: the leaf's hooks, then its .grad (or the captured result)."""
        var = node.variable
        if g is None or var is None:  # a leaf nobody holds any more gets nothing
            return
        if var._hooks:  # a hook may keep the gradient it saw, or return one its owner holds
            g = _run_leaf_hooks(var, g)
            self.shared.add(id(g))
        if self.wanted is not None:
            slots = self.wanted.get(node)
            if slots is None:
                return
            if self.capture is not None:
                for _, i in slots:
                    self.capture[i] = g
                return
        owned = _made_here(g, self.grad_roots) and id(g) not in self.shared
        _accumulate_leaf(var, g, self.create_graph, owned)

    def _capture(self, node, grads):
        """Record the gradients of `inputs` that are outputs of this (non-leaf) node."""
        capture = self.capture
        for nr, i in self.wanted[node]:
            if capture is not None:
                capture[i] = grads[nr]
            elif grads[nr] is not None:
                capture_nonleaf(self.inputs[i], grads[nr])

    def _send(self, node, edges, in_grads):
        """Pass each input edge its gradient (reduced to the input's shape and dtype); a node whose last
        awaited gradient arrives becomes ready."""
        deps, relevant, buffers = self.deps, self.relevant, self.buffers
        many = len(edges) > 1
        sent = None
        for e in edges:
            nxt = e[2]
            if nxt is None or (relevant is not None and nxt not in relevant):
                continue
            if in_grads is not None:
                if in_grads.__class__ is dict:
                    g = in_grads.get((e[0], e[1]))
                else:
                    g = in_grads[e[0]]
                    if e[1] is not None and g is not None:
                        g = g[e[1]]
                if g is not None:
                    if g._shape != e[4] or g.dtype is not e[5]:
                        g = _reduce_to_input(g, e[4], e[5], node)
                    if many:  # one tensor sent down two edges (a + b) must not become two leaves' .grad
                        if sent is None:
                            sent = [g]
                        else:
                            for h in sent:
                                if h is g:
                                    self.shared.add(id(g))
                                    break
                            else:
                                sent.append(g)
                    buf = buffers.get(nxt)
                    if buf is None:
                        buf = buffers[nxt] = [None] * (nxt.num_outputs or 1)
                        buf[e[3]] = g
                    else:
                        old = buf[e[3]]
                        buf[e[3]] = g if old is None else _sum_gradients(old, g)
            d = deps[nxt] - 1
            deps[nxt] = d
            if d == 0:
                heapq.heappush(self.ready, (-nxt.seq, id(nxt), nxt))


def _made_here(g, grad_roots):
    """Whether a gradient was computed by the engine (so a leaf may keep it without a copy)."""
    return all(g is not r for r in grad_roots)


def capture_nonleaf(t, g):
    """backward(inputs=[non-leaf]): its .grad is populated as with retain_grad."""
    old = t._grad
    t._grad = g.detach().clone() if old is None and not _grad_state.enabled else (g if old is None else old + g)
