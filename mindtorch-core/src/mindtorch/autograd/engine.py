"""The backward pass: an iterative walk of the graph in dependency order.

Nodes run when every gradient flowing into them has arrived; among ready
nodes the most recently created runs first (as PyTorch's engine does), and
no recursion is involved, so graphs of any depth work.
"""
import heapq

from .._tensor import Tensor
from .._grad_mode import state as _grad_state
from .graph import AccumulateGrad, gradient_edge


def _pick(out, pi, k):
    if isinstance(out, dict):
        return out.get((pi, k))
    v = out[pi]
    if k is not None and v is not None:
        return v[k]
    return v


def _reduce_to_input(g, shape, dtype):
    if g._shape != shape:
        from ..ops.grad_helpers import sum_to
        from .._shape import broadcast_shapes
        try:
            ok = broadcast_shapes(tuple(shape), tuple(g._shape)) == tuple(g._shape)
        except RuntimeError:
            ok = False
        if not ok:
            raise RuntimeError(f"Function returned an invalid gradient - got [{', '.join(map(str, g._shape))}] but "
                               f"expected shape compatible with [{', '.join(map(str, shape))}]")
        g = sum_to(g, shape)
    if g.dtype is not dtype:
        g = g.to(dtype)
    return g


def _accumulate(buffers, key, g):
    prev = buffers.get(key)
    buffers[key] = g if prev is None else prev + g


def _run_tensor_prehooks(node, grads):
    if node.tensor_pre_hooks:
        for nr, table in node.tensor_pre_hooks.items():
            for hook in list(table.values()):
                if grads[nr] is None:
                    continue
                r = hook(grads[nr])
                if r is not None:
                    grads[nr] = r
    if node.pre_hooks:
        for hook in list(node.pre_hooks.values()):
            r = hook(tuple(grads))
            if r is not None:
                grads = list(r)
    return grads


def _accumulate_leaf(node, grad, create_graph):
    var = node.variable
    hooks = var._hooks
    if hooks:
        for hook in list(hooks.values()):
            r = hook(grad)
            if r is not None:
                grad = r
    if var._grad is None:
        if not create_graph:
            grad = grad.detach()
            if not grad.is_contiguous() or grad._base is not None or grad is var:
                grad = grad.contiguous() if grad._base is None and not grad.is_contiguous() else grad.clone()
        var._grad = grad
    else:
        if create_graph or var._grad._requires_grad:
            var._grad = var._grad + grad
        else:
            var._grad.add_(grad.detach())
    post = var.__dict__.get("_post_accumulate_hooks")
    if post:
        for hook in list(post.values()):
            hook(var)


def _materialize(node, grads):
    """Multi-output nodes get zeros for outputs no gradient reached."""
    import mindtorch
    for k, g in enumerate(grads):
        if g is None and node.out_meta and node.out_meta[k] is not None:
            shape, dtype, dev = node.out_meta[k]
            if dtype._kind >= 2:
                grads[k] = mindtorch.zeros(shape, dtype=dtype, device=dev)
    return grads


def run_backward(roots, grad_roots, retain_graph, create_graph, inputs=None, accumulate=True):
    """roots: tensors; grad_roots: their gradients. Returns captured grads for `inputs` when not accumulating."""
    # Collect graph roots as (node, output_nr)
    buffers = {}
    start = []
    for t, g in zip(roots, grad_roots):
        node, nr = gradient_edge(t)
        start.append(node)
        _accumulate(buffers, (id(node), nr), g)
    # Dependency counts over the reachable graph.
    deps = {}
    nodes = {}
    stack = list(start)
    seen = set()
    while stack:
        n = stack.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        nodes[id(n)] = n
        for entry in n.inputs:
            nxt = entry[2]
            deps[id(nxt)] = deps.get(id(nxt), 0) + 1
            if id(nxt) not in seen:
                stack.append(nxt)
    capture = None
    if inputs is not None:
        capture = {}
        wanted = {}
        for i, t in enumerate(inputs):
            node, nr = gradient_edge(t)
            wanted[(id(node), nr)] = i
            nodes.setdefault(id(node), node)
    # PyTorch prunes to the subgraph leading to `inputs`; here every node runs, but leaves
    # outside `inputs` are not accumulated into when inputs were given.
    ready = []
    for n in {id(n): n for n in start}.values():
        if deps.get(id(n), 0) == 0:
            heapq.heappush(ready, (-n.seq, id(n), n))
    prev_enabled = _grad_state.enabled
    _grad_state.enabled = create_graph
    try:
        while ready:
            _, nid, node = heapq.heappop(ready)
            n_out = max(node.num_outputs, 1)
            grads = [buffers.pop((nid, k), None) for k in range(n_out)]
            if capture is not None:
                for k, g in enumerate(grads):
                    idx = wanted.get((nid, k))
                    if idx is not None:
                        capture[idx] = g
            if isinstance(node, AccumulateGrad):
                if grads[0] is not None and (inputs is None or accumulate and (id(node), 0) in wanted):
                    if capture is None or accumulate:
                        _accumulate_leaf(node, grads[0], create_graph)
                continue
            grads = _run_tensor_prehooks(node, grads)
            if all(g is None for g in grads):
                in_grads = None
            else:
                if n_out > 1:
                    grads = _materialize(node, grads)
                in_grads = node.apply(grads, create_graph)
                if node.hooks:
                    for hook in list(node.hooks.values()):
                        hook(tuple(_pick(in_grads, e[0], e[1]) for e in node.inputs), tuple(grads))
            if not retain_graph:
                node.release()
            for (pi, k, nxt, nr, shape, dtype) in node.inputs:
                g = _pick(in_grads, pi, k) if in_grads is not None else None
                if g is not None:
                    _accumulate(buffers, (id(nxt), nr), _reduce_to_input(g, shape, dtype))
                key = id(nxt)
                deps[key] -= 1
                if deps[key] == 0:
                    heapq.heappush(ready, (-nxt.seq, key, nxt))
    finally:
        _grad_state.enabled = prev_enabled
    return capture
