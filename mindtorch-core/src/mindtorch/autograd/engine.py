"""The backward pass: an iterative walk of the graph in dependency order.

Nodes run when every gradient flowing into them has arrived; among ready
nodes the most recently created runs first (as PyTorch's engine does), and
no recursion is involved, so graphs of any depth work. With `inputs`, only
the part of the graph leading to them runs.
"""
import heapq

from .._grad_mode import state as _grad_state
from . import anomaly_mode
from .graph import AccumulateGrad, Node, gradient_edge


def _reduce_to_input(g, shape, dtype, node):
    if g._shape != shape:
        from ..ops.formulas import sum_to
        from .._shape import broadcast_shapes
        try:
            ok = broadcast_shapes(tuple(shape), tuple(g._shape)) == tuple(g._shape)
        except RuntimeError:
            ok = False
        if not ok:
            raise RuntimeError(f"Function {node.name()} returned an invalid gradient at index 0 - got "
                               f"[{', '.join(map(str, g._shape))}] but expected shape compatible with "
                               f"[{', '.join(map(str, shape))}]")
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
    buffers = {}
    start = []
    for t, g in zip(roots, grad_roots):
        node, nr = gradient_edge(t)
        start.append(node)
        buf = buffers.get(node)
        if buf is None:
            buf = buffers[node] = [None] * max(node.num_outputs, 1)
        buf[nr] = g if buf[nr] is None else buf[nr] + g
    # Dependency counts over the reachable graph (iterative DFS).
    deps = {}
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
    wanted = None
    exec_set = None
    if inputs is not None:
        wanted = {}
        targets = set()
        for i, t in enumerate(inputs):
            node, nr = gradient_edge(t)
            wanted.setdefault(node, []).append((nr, i))
            targets.add(node)
        # a node runs only if some target lies strictly below it
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
        relevant = exec_set | targets
        for n in exec_set:
            for c in children[n]:
                if c in relevant:
                    deps[c] = deps.get(c, 0) + 1
    else:
        for kids in children.values():
            for c in kids:
                deps[c] = deps.get(c, 0) + 1
    capture = {} if (inputs is not None and not accumulate) else None
    ready = []
    for n in set(start):
        if deps.get(n, 0) == 0:
            heapq.heappush(ready, (-n.seq, id(n), n))
    prev_enabled = _grad_state.enabled
    _grad_state.enabled = create_graph
    shared = set()  # ids of gradient tensors that something besides one leaf may hold
    try:
        while ready:
            node = heapq.heappop(ready)[2]
            grads = buffers.pop(node, None)
            if grads is None:
                grads = [None] * max(node.num_outputs, 1)
            if node.__class__ is AccumulateGrad:
                g = grads[0]
                var = node.variable
                if g is not None and var is not None:  # a leaf nobody holds any more gets nothing
                    h = _run_leaf_hooks(var, g)
                    if h is not g:  # a hook's return value may be held by the hook's owner
                        shared.add(id(h))
                        g = h
                    if wanted is not None and node in wanted:
                        if capture is not None:
                            for _, i in wanted[node]:
                                capture[i] = g
                        else:
                            _accumulate_leaf(var, g, create_graph, _made_here(g, grad_roots) and id(g) not in shared)
                    elif wanted is None:
                        _accumulate_leaf(var, g, create_graph, _made_here(g, grad_roots) and id(g) not in shared)
                continue
            if node.tensor_pre_hooks or node.retains_grad_hooks:
                grads = _run_tensor_hooks(node, grads)
                shared.update(id(g) for g in grads if g is not None)
            if wanted is not None:
                w = wanted.get(node)
                if w is not None:
                    for nr, i in w:
                        if capture is not None:
                            capture[i] = grads[nr]
                        elif grads[nr] is not None:
                            capture_nonleaf(inputs[i], grads[nr])
                if node not in exec_set:
                    continue
            if node.pre_hooks:
                grads = _run_pre_hooks(node, grads)
                shared.update(id(g) for g in grads if g is not None)
            edges = node.inputs
            if all(g is None for g in grads):
                in_grads = None
            else:
                if len(grads) > 1 and node.op is not None:  # Functions decide themselves
                    grads = _materialize(node, grads)
                try:
                    in_grads = node.apply(grads, create_graph)
                    if node.hooks:
                        gi = tuple(_pick(in_grads, e[0], e[1]) for e in edges)
                        for hook in list(node.hooks.values()):
                            r = hook(gi, tuple(grads))
                            if r is not None:
                                gi = tuple(r)
                        in_grads = {(e[0], e[1]): g for e, g in zip(edges, gi)}
                    if Node.anomaly_enabled and Node.anomaly_check_nan:
                        anomaly_mode.check_nan(node, [_pick(in_grads, e[0], e[1]) for e in edges])
                except Exception:
                    if Node.anomaly_enabled:
                        anomaly_mode.warn_forward_trace(node)
                    raise
            if not retain_graph:
                node.release()
            sent = None
            for e in edges:
                nxt = e[2]
                if nxt is None or (exec_set is not None and nxt not in relevant):
                    continue
                if in_grads is not None:
                    g = _pick(in_grads, e[0], e[1])
                    if g is not None:
                        g = _reduce_to_input(g, e[4], e[5], node)
                        # one tensor sent down two edges (a + b) must not become two leaves' .grad
                        if sent is None:
                            sent = {id(g)}
                        elif id(g) in sent:
                            shared.add(id(g))
                        else:
                            sent.add(id(g))
                        buf = buffers.get(nxt)
                        if buf is None:
                            buf = buffers[nxt] = [None] * max(nxt.num_outputs, 1)
                        nr = e[3]
                        buf[nr] = g if buf[nr] is None else buf[nr] + g
                d = deps[nxt] - 1
                deps[nxt] = d
                if d == 0:
                    heapq.heappush(ready, (-nxt.seq, id(nxt), nxt))
    finally:
        _grad_state.enabled = prev_enabled
    return capture


def _made_here(g, grad_roots):
    """Whether a gradient was computed by the engine (so a leaf may keep it without a copy)."""
    for r in grad_roots:
        if g is r:
            return False
    return True


def capture_nonleaf(t, g):
    """backward(inputs=[non-leaf]): its .grad is populated as with retain_grad."""
    old = t._grad
    t._grad = g.detach().clone() if old is None and not _grad_state.enabled else (g if old is None else old + g)
