"""Graph nodes recorded by the dispatcher when an input requires grad.

record() runs on every differentiable op call with an input requiring grad,
so it avoids per-call imports, keyword handling and optional allocations;
per-op facts (which params get gradients, which are saved) are computed once.
"""

import itertools
import re
import weakref

from .._accel_load import ACCEL as _ACCEL
from .._grad_mode import refuse_inference_write, state as _grad_state
from .._storage import VersionCounter
from .._tensor import Tensor, make_tensor

_seq = itertools.count()
_next_seq = _seq.__next__
_new = object.__new__


class RemovableHandle:
    _ids = itertools.count()

    def __init__(self, table):
        self.id = next(RemovableHandle._ids)
        self._table = table

    def remove(self):
        self._table.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


_NAMES = {}


def _op_node_name(op):
    name = _NAMES.get(op)
    if name is None:
        base = op.name
        name = "".join(w[:1].upper() + w[1:] for w in base.strip("_").split("_")) + "Backward0"
        _NAMES[op] = name
    return name


def _add_hook(table, fn):
    h = RemovableHandle(table)
    table[h.id] = fn
    return h


class Node:
    """A backward function: turns gradients of an op's outputs into gradients of its inputs.

    inputs: one edge per differentiable forward input,
    (param index, list index or None, next node or None, output_nr, shape, dtype).
    """

    __slots__ = ("op", "inputs", "num_outputs", "seq", "_has_saved", "saved", "__dict__", "__weakref__")

    # Set on few nodes, so they live in the instance dict with these defaults (cheaper recording).
    result = None
    _freed = False
    pre_hooks = None
    tensor_pre_hooks = None
    retains_grad_hooks = None
    hooks = None
    out_meta = None
    anomaly_enabled = False  # set by autograd.anomaly_mode
    anomaly_check_nan = True

    def __init__(self, op=None, num_outputs=1):
        self.op = op
        self.inputs = []
        self.num_outputs = num_outputs
        self.seq = _next_seq()
        self._has_saved = False
        self.saved = None
        if Node.anomaly_enabled:
            from .anomaly_mode import record_forward_trace

            record_forward_trace(self)

    def name(self):
        return _op_node_name(self.op) if self.op is not None else type(self).__name__

    @property
    def __name__(self):
        return self.name()

    def __repr__(self):
        return f"<{self.name()} object at {hex(id(self))}>"

    @property
    def next_functions(self):
        return tuple((e[2], e[3]) for e in self.inputs)

    @property
    def metadata(self):
        return {}

    def register_hook(self, fn):
        """fn(grad_inputs, grad_outputs) -> new grad_inputs or None; runs after the node."""
        if self.hooks is None:
            self.hooks = {}
        return _add_hook(self.hooks, fn)

    def register_prehook(self, fn):
        """fn(grad_outputs) -> new grad_outputs or None; runs before the node."""
        if self.pre_hooks is None:
            self.pre_hooks = {}
        return _add_hook(self.pre_hooks, fn)

    def add_tensor_pre_hook(self, output_nr, fn):
        if self.tensor_pre_hooks is None:
            self.tensor_pre_hooks = {}
        table = self.tensor_pre_hooks.setdefault(output_nr, {})
        h = RemovableHandle(table)
        table[h.id] = fn
        return h

    def set_retains_grad_hook(self, output_nr, fn):
        if self.retains_grad_hooks is None:
            self.retains_grad_hooks = {}
        self.retains_grad_hooks[output_nr] = fn

    def _check_freed(self):
        if self._freed and self._has_saved:
            raise RuntimeError(
                "Trying to backward through the graph a second time (or directly access saved tensors after they "
                "have already been freed). Saved intermediate values of the graph are freed when you call "
                ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
                "graph a second time or if you need to access saved tensors after calling backward."
            )

    def unpack_saved(self):
        self._check_freed()
        saved = self.saved
        values = (
            [
                item.unpack(self)
                if type(item) is SavedTensor
                else (item.unpack(self) if type(item) is SavedTensorList else item)
                for item in saved
            ]
            if saved
            else ()
        )
        res = self.result
        if res is not None:
            if type(res) is tuple:
                res = tuple(r.unpack(self) if type(r) is SavedTensor else r for r in res)
            else:
                res = res.unpack(self)
        return values, res

    def needs(self):
        """Which of the op's parameters need a gradient (read off the edges: recording keeps no list)."""
        needs = [False] * len(self.op.params)
        for e in self.inputs:
            if e[2] is not None:
                needs[e[0]] = True
        return needs

    def apply(self, grads, create_graph):
        if self.saved is None and self.result is None and not self._freed:  # nothing to unpack
            return self.op.derivative.fn(grads, self.needs(), None)
        values, res = self.unpack_saved()
        return self.op.derivative.fn(grads, self.needs(), res, *values)

    def release(self):
        if self._has_saved:
            self.saved = None
            self.result = None
        self._freed = True

    def __call__(self, *grads):
        out = self.apply(list(grads), _grad_state.enabled)
        res = []
        for e in self.inputs:
            if isinstance(out, dict):
                res.append(out.get((e[0], e[1])))
            else:
                v = out[e[0]]
                res.append(v[e[1]] if e[1] is not None and v is not None else v)
        return tuple(res) if len(res) != 1 else res[0]


_GRAD_FN_NAME = re.compile(r"Backward\d*$")


class SavedTensor:
    """A tensor kept for backward, with the version it had when saved.

    An op's own output is kept as its raw layout (no tensor object holding
    the grad_fn), so the node does not keep itself alive through a cycle.
    """

    __slots__ = ("tensor", "version", "counter", "layout", "fn", "output_nr", "unpack_hook", "packed", "accumulator")

    def unpack(self, node):
        if self.unpack_hook is not None:
            return self._unpack_hooked(node)
        counter = self.counter
        if counter.value != self.version:
            self._raise_modified(node)
        t = self.tensor
        if t is not None:
            return t
        storage, shape, stride, offset, dtype, device, np_ = self.layout
        out = make_tensor(storage, shape, stride, offset, dtype, device)
        out._version = counter
        out._np = np_
        if self.fn is not None:  # the output required grad: it is again the node's output
            out._requires_grad = True
            out._grad_fn = node
            if self.output_nr:
                out._output_nr = self.output_nr
        return out

    def _unpack_hooked(self, node):
        """The unpack hook's tensor, in the saved tensor's place in the graph (its grad_fn, or the
        accumulator of the leaf it was), so gradients of gradients still flow. Versions are not
        checked: the hooks own the value."""
        t = self.unpack_hook(self.packed)
        if not isinstance(t, Tensor):
            raise TypeError(
                f"Output of saved tensor unpack_hook expected to be a Tensor but got result of type {type(t).__name__}"
            )
        fn = node if self.fn is True else self.fn  # outputs store True for "this node"
        if fn is None and self.accumulator is None:
            return t
        if fn is not None and t._grad_fn is fn:
            return t
        out = make_tensor(t._storage, t._shape, t._stride, t._offset, t.dtype, t.device)
        out._version = t._version
        out._np = t._np
        out._requires_grad = True
        if fn is not None:
            out._grad_fn = fn
            if self.output_nr:
                out._output_nr = self.output_nr
        else:
            out.__dict__["_accumulator"] = self.accumulator
        return out

    def _raise_modified(self, node):
        t = self.tensor
        shape = t._shape if t is not None else self.layout[1]
        dtype = t.dtype if t is not None else self.layout[4]
        # an input is named by its history now (an in-place op since may have changed it)
        fn = (node if self.fn is not None else None) if t is None else t._grad_fn
        output_nr = self.output_nr if t is None else t._output_nr
        where = ""
        if fn is not None:
            where = f", which is output {output_nr} of {_GRAD_FN_NAME.sub('', fn.name())},"
        raise RuntimeError(
            "one of the variables needed for gradient computation has been modified by an inplace operation: "
            f"[{_type_str(dtype)} [{', '.join(map(str, shape))}]]{where} is at version {self.counter.value}; "
            f"expected version {self.version} instead. Hint: enable anomaly detection to find the operation that "
            "failed to compute its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False)."
        )


def _saved(t):
    """A SavedTensor stamped with t's current version."""
    s = _new(SavedTensor)
    v = t._version
    if v is None:
        v = t._version = VersionCounter()
    s.counter = v
    s.version = v.value
    s.unpack_hook = None
    return s


def _saved_input(t):
    """A SavedTensor of the input t at its current version (saved-tensor hooks not applied)."""
    s = _saved(t)
    s.tensor = t
    s.fn = t._grad_fn
    s.output_nr = t._output_nr
    return s


# the Python versions of what mindtorch._accel may replace: the reference its tests compare with
PYTHON_TWINS = {"saved_input": _saved_input}
if _ACCEL is not None:
    _ACCEL.setup_saved(SavedTensor, VersionCounter)
    _saved_input = _ACCEL.saved_input


def save_input(t):
    s = _saved_input(t)
    if _saved_hooks:
        _pack(s, t)
    return s


def save_output(t, output_nr, requires_grad):
    s = _saved(t)
    s.tensor = None
    s.layout = (t._st, t._shape, t._stride, t._offset, t.dtype, t.device, t._np)  # storage built or not
    s.fn = True if requires_grad else None
    s.output_nr = output_nr
    if _saved_hooks:
        _pack(s, t)
    return s


class SavedTensorList(tuple):
    """A list of tensors an op saved for backward, each packed by the saved-tensor hooks."""

    __slots__ = ()

    def unpack(self, node):
        return tuple(item.unpack(node) for item in self)


def _save_list(tensors):
    """A tensor-list argument kept for backward: as it is, or packed when saved-tensor hooks are active."""
    if _saved_hooks:
        return SavedTensorList(save_input(t) for t in tensors)
    return tuple(tensors)


# saved-tensor hooks: a stack of (pack, unpack) pairs, the innermost applying to every tensor saved for
# backward; and the messages of the blocks that forbid registering them
_saved_hooks = []
_hooks_disabled = []


def _pack(s, t):
    pack, unpack = _saved_hooks[-1]
    s.accumulator = grad_accumulator(t) if t._grad_fn is None and t._requires_grad else None
    s.tensor = None
    enabled = _grad_state.enabled
    _grad_state.enabled = False  # the hook's own ops are not recorded (nor packed again)
    try:
        s.packed = pack(t)
    finally:
        _grad_state.enabled = enabled
    s.unpack_hook = unpack


class saved_tensors_hooks:
    """Within the block, each tensor an operation saves for backward is stored as pack_hook(tensor) and
    given back to backward as unpack_hook(packed) (which must return a tensor of the same value)."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        if _hooks_disabled:
            raise RuntimeError(_hooks_disabled[-1])
        _saved_hooks.append((self.pack_hook, self.unpack_hook))
        return self

    def __exit__(self, *exc):
        _saved_hooks.pop()
        return False


class disable_saved_tensors_hooks:
    """Within the block, registering saved-tensor hooks raises RuntimeError(error_message)."""

    def __init__(self, error_message):
        self.error_message = error_message

    def __enter__(self):
        _hooks_disabled.append(self.error_message)
        return self

    def __exit__(self, *exc):
        _hooks_disabled.pop()
        return False


def _type_str(dtype):
    from .._dtype import tensor_type_name

    return tensor_type_name(dtype)


class AccumulateGrad(Node):
    """The sink for a leaf tensor: adds the incoming gradient to `.grad`.

    The leaf holds its accumulator strongly and the accumulator holds the leaf weakly, so
    the accumulator lives as long as the leaf (no rebuild per graph) without a cycle.
    """

    __slots__ = ("_variable",)

    def __init__(self, variable):
        Node.__init__(self, None)
        self._variable = weakref.ref(variable)

    @property
    def variable(self):
        return self._variable()

    def name(self):
        return "torch::autograd::AccumulateGrad"  # PyTorch's C++ node names keep their namespace

    @property
    def next_functions(self):
        return ()


def grad_accumulator(t):
    acc = t.__dict__.get("_accumulator")
    if acc is None:
        acc = t.__dict__["_accumulator"] = AccumulateGrad(t)
    return acc


def gradient_edge(t):
    if t._base is not None:
        from .views import refresh_view_grad_fn

        refresh_view_grad_fn(t)
    fn = t._grad_fn
    if fn is not None:
        return fn, t._output_nr
    return grad_accumulator(t), 0


class _Plan:
    """Per-op facts for record(), computed once."""

    __slots__ = (
        "diff",
        "saves",
        "tensor_saves",
        "saves_result",
        "lists",
        "is_view",
        "shape_only",
        "result_indices",
        "plain_saves",
        "empty_edges",
        "record",
    )

    def __init__(self, op):
        nondiff = op.nondiff or ()
        self.diff = tuple(i for i in op.tensor_params if op.params[i].name not in nondiff)
        d = op.derivative
        self.saves = d.saves
        self.saves_result = d.saves_result
        tp = set(op.tensor_params)
        self.shape_only = d.shape_only
        self.result_indices = d.result_indices
        self.plain_saves = not any(op.params[i].base == "Tensor" for i in d.saves)
        # the (shared, immutable) edge of an input that needs no gradient
        self.empty_edges = {i: (i, None, None, 0, None, None) for i in self.diff}
        self.tensor_saves = any(i in tp and i not in d.shape_only for i in d.saves)
        self.is_view = op.view_fn is not None
        self.lists = any(
            op.params[i].type.startswith("Tensor[") or op.params[i].type.startswith("Tensor?[")
            for i in op.tensor_params
        )
        self.record = _record_generic if self.lists or not self.diff else _compile_record(self)


_PLANS = {}


def _plan(op):
    p = _PLANS.get(op)
    if p is None:
        p = _PLANS[op] = _Plan(op)
    return p


def _connect(plan, args, node):
    """Edges to the inputs' histories; False when no input requires grad."""
    inputs = []
    any_ = False
    empty = plan.empty_edges
    for i in plan.diff:
        a = args[i]
        if a.__class__ is Tensor or isinstance(a, Tensor):
            if a._requires_grad:
                inputs.append(_edge(i, a))
                any_ = True
            else:
                inputs.append(empty[i])
        elif isinstance(a, (list, tuple)):
            for k, t in enumerate(a):
                if isinstance(t, Tensor) and t._requires_grad:
                    nxt, nr = gradient_edge(t)
                    inputs.append((i, k, nxt, nr, t._shape, t.dtype))
                    any_ = True
                else:
                    inputs.append((i, k, None, 0, None, None))
        else:
            inputs.append(empty[i])
    node.inputs = inputs
    return any_


def _edge(i, a):
    """The edge to the history of input `a` (parameter i), which requires grad."""
    if a._base is not None:
        nxt, nr = gradient_edge(a)
    else:
        nxt = a._grad_fn
        if nxt is None:
            nr = 0
            nxt = a.__dict__.get("_accumulator") or grad_accumulator(a)
        else:
            nr = a._output_nr
    return (i, None, nxt, nr, a._shape, a.dtype)


def _compile_record(plan):
    """record() unrolled for one op whose differentiable inputs are single tensors (or numbers):
    the edges become a tuple built in place, the plan's choices are made here once."""
    diff = plan.diff
    lines = [
        "def record(op, args, out):",
        "    if out.__class__ is Tensor and out.dtype._kind < 2:",
        "        return",
        "    node = _new(Node)",
        "    node.op = op",
        "    node.seq = _next_seq()",
    ]
    for i in diff:
        lines += [
            f"    a = args[{i}]",
            "    if (a.__class__ is Tensor or isinstance(a, Tensor)) and a._requires_grad:",
            "        f = a._grad_fn",
            "        if a._base is not None:",
            f"            e{i} = _edge({i}, a)",
            "        elif f is None:",
            f"            e{i} = ({i}, None, a.__dict__.get('_accumulator') or _acc(a), 0, a._shape, a.dtype)",
            "        else:",
            f"            e{i} = ({i}, None, f, a._output_nr, a._shape, a.dtype)",
            f"        r{i} = True",
            "    else:",
            f"        e{i} = _E{i}",
            f"        r{i} = False",
        ]
    lines += [
        f"    if not ({' or '.join(f'r{i}' for i in diff)}):",
        "        return",
        f"    node.inputs = ({', '.join(f'e{i}' for i in diff)},)",
        "    if Node.anomaly_enabled:",
        "        _forward_trace(node)",
    ]
    lines += _compiled_saves(plan)
    lines += [
        "    if out.__class__ is Tensor:",
        "        node.num_outputs = 1",
        "        out._requires_grad = True",
        "        out._grad_fn = node",
    ]
    if plan.is_view:
        lines += [
            "        v = out._version  # the base's version this history is valid for",
            "        out.__dict__['_view_fn_version'] = v.value if v is not None else 0",
        ]
    lines += ["        return", "    _mark_outputs(tuple(out), node)"]
    env = {
        "Tensor": Tensor,
        "_ST": SavedTensor,
        "_VC": VersionCounter,
        "_saved_hooks": _saved_hooks,
        "_pack": _pack,
        "_save_results": _save_results,
        "Node": Node,
        "_new": _new,
        "_next_seq": _next_seq,
        "_edge": _edge,
        "_acc": grad_accumulator,
        "_forward_trace": _forward_trace,
        "_save": _save,
        "_saved_input": _saved_input,
        "_plan": plan,
        "_mark_outputs": _mark_outputs,
    }
    env.update({f"_E{i}": plan.empty_edges[i] for i in diff})
    exec(compile("\n".join(lines), f"<mindtorch autograd record {diff}>", "exec"), env)
    return env["record"]


def _compiled_saves(plan):
    """record()'s lines keeping what backward reads: each saved argument as it is (numbers, dims),
    as its shape, or as a SavedTensor stamped inline (no helper call per tensor), then the result."""
    lines, kept = [], []
    for i in plan.saves:
        if i in plan.shape_only:
            kept.append(f"(tuple(args[{i}]._shape) if isinstance(args[{i}], Tensor) else ())")
        elif not plan.plain_saves:  # any argument may hold a tensor (a Scalar given one, say)
            lines += [f"    a = args[{i}]", "    if a.__class__ is Tensor or isinstance(a, Tensor):"]
            if _ACCEL is not None:  # one compiled call
                lines.append(f"        s{i} = _saved_input(a)")
            else:  # stamped inline: cheaper than a Python call
                lines += ["    " + ln for ln in _stamp_lines(f"s{i}", "a")]
                lines += [
                    f"        s{i}.tensor = a",
                    f"        s{i}.fn = a._grad_fn",
                    f"        s{i}.output_nr = a._output_nr",
                ]
            lines += ["        if _saved_hooks:", f"            _pack(s{i}, a)", "    else:", f"        s{i} = a"]
            kept.append(f"s{i}")
        else:
            kept.append(f"args[{i}]")
    lines.append(f"    node.saved = ({', '.join(kept)},)" if kept else "    node.saved = None")  # a tuple: cheaper
    if plan.saves_result:
        lines += ["    if out.__class__ is Tensor:"]
        lines += ["    " + ln for ln in _stamp_lines("r", "out")]
        lines += [
            "        r.tensor = None",
            "        r.layout = (out._st, out._shape, out._stride, out._offset, out.dtype, out.device, out._np)",
            "        r.fn = True",
            "        r.output_nr = 0",
            "        if _saved_hooks:",
            "            _pack(r, out)",
            "        node.result = r",
            "    else:",
            "        node.result = _save_results(_plan, out)",
        ]
    lines.append(f"    node._has_saved = {plan.tensor_saves or plan.saves_result}")
    return lines


def _stamp_lines(name, t):
    """Lines making `name` a SavedTensor of tensor `t` at its current version (as _saved does)."""
    return [
        f"    {name} = _new(_ST)",
        f"    v = {t}._version",
        "    if v is None:",
        f"        v = {t}._version = _VC()",
        f"    {name}.counter = v",
        f"    {name}.version = v.value",
        f"    {name}.unpack_hook = None",
    ]


def _forward_trace(node):
    from .anomaly_mode import record_forward_trace

    record_forward_trace(node)


def _save(plan, args, out, node):
    if plan.plain_saves:  # only non-tensor arguments (alpha, dims, ...): kept as they are
        saves = plan.saves
        node.saved = [args[saves[0]]] if len(saves) == 1 else [args[i] for i in saves]
    else:
        saved = []
        shape_only = plan.shape_only
        for i in plan.saves:
            a = args[i]
            if i in shape_only:
                saved.append(tuple(a._shape) if isinstance(a, Tensor) else ())
            elif a.__class__ is Tensor or isinstance(a, Tensor):
                saved.append(save_input(a))
            elif isinstance(a, (list, tuple)) and a and isinstance(a[0], Tensor):
                saved.append(_save_list(a))
            else:
                saved.append(a)
        node.saved = saved
    if plan.saves_result:
        node.result = _save_results(plan, out) if isinstance(out, tuple) else save_output(out, 0, True)
    node._has_saved = plan.tensor_saves or plan.saves_result


def _save_results(plan, out):
    """The outputs of a multi-output op that its formula reads (all, or the plan's result_indices)."""
    idx = plan.result_indices
    return tuple(
        save_output(o, k, o.dtype._kind >= 2) if isinstance(o, Tensor) and (idx is None or k in idx) else None
        for k, o in enumerate(out)
    )


def record(op, args, out):
    """Make `out` the output of a new node for `op` applied to `args` (when an input requires grad)."""
    (_PLANS.get(op) or _plan(op)).record(op, args, out)


def recorder(op):
    """record() for `op` alone, with its plan bound (the generated op functions call it)."""
    return _plan(op).record if op.derivative is not None else record


def _record_generic(op, args, out):
    if out.__class__ is Tensor and out.dtype._kind < 2:
        return  # an integer or bool result has no gradient (x.int(), x.to(torch.long)): nothing to record
    plan = _PLANS.get(op) or _plan(op)
    node = _new(Node)
    node.op = op
    node.seq = _next_seq()
    if not _connect(plan, args, node):
        return
    if Node.anomaly_enabled:
        _forward_trace(node)
    _save(plan, args, out, node)
    if out.__class__ is Tensor:
        node.num_outputs = 1
        out._requires_grad = True
        out._grad_fn = node
        if plan.is_view:
            v = out._version  # the base's version this history is valid for
            out.__dict__["_view_fn_version"] = v.value if v is not None else 0
        return
    _mark_outputs(tuple(out), node)


def _mark_outputs(out, node):
    if isinstance(out, Tensor):
        node.num_outputs = 1
        node.out_meta = None
        out._requires_grad = True
        out._grad_fn = node
        return
    metas = []
    for k, o in enumerate(out):
        if isinstance(o, Tensor):
            metas.append((o._shape, o.dtype, o.device))
            if o.dtype._kind >= 2:
                o._requires_grad = True
                o._grad_fn = node
                if k:
                    o._output_nr = k
        else:
            metas.append(None)
    node.num_outputs = len(out)
    node.out_meta = tuple(metas)


def check_inplace(self, grad_recording=True):
    refuse_inference_write(self)
    if not _grad_state.enabled:
        return
    base = self._base
    if (
        base is not None
        and self._view_creation is not None
        and (grad_recording or self._requires_grad or base._requires_grad)
    ):
        raise RuntimeError(_refused_view_write(self))
    if self._grad_fn is None and self._requires_grad:
        if base is None:
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place operation.")
    if base is not None and base._grad_fn is None and base._requires_grad:
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place operation.")


def _refused_view_write(view):
    """PyTorch's words for an in-place write to a view it cannot rebase: a split piece, or one made under
    no_grad or inference mode."""
    made = view._view_creation
    fn = view._grad_fn
    if made == "inference":
        what, block = (
            "A view was created in inference mode and is being modified inplace in normal mode.",
            "inference_mode",
        )
    elif fn is None:
        what, block = (
            "A view was created in no_grad mode and is being modified inplace with grad mode enabled.",
            "no_grad",
        )
    else:
        name = _GRAD_FN_NAME.sub("", fn.name())
        what, block = f"Output {view._output_nr} of {name} is a view and is being modified inplace.", "no_grad"
    if made == "multi-output":
        return (
            f"{what} This view is the output of a function that returns multiple views. Such functions do not "
            "allow the output views to be modified inplace. You should replace the inplace operation by an "
            "out-of-place one."
        )
    return (
        f"{what} Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your "
        f"code by moving both the view and the inplace either both inside the {block} block (if you don't want "
        "the inplace to be tracked) or both outside (if you want the inplace to be tracked)."
    )


def record_inplace(op, args, self, saved_self):
    """Make `self` the output of the in-place op's node (its old history is the node's input)."""
    from .views import rebase_history

    plan = _plan(op)
    node = Node(op, 1)
    if not _connect(plan, args, node):
        return
    saved = []
    for i in plan.saves:
        a = args[i]
        if i in plan.shape_only:
            saved.append(tuple(a._shape) if isinstance(a, Tensor) else ())
        elif i == 0 and saved_self is not None:
            saved.append(save_input(saved_self))
        elif isinstance(a, Tensor):
            saved.append(_save_operand(a, self))
        elif isinstance(a, (list, tuple)) and a and isinstance(a[0], Tensor):
            saved.append(_save_list(a))
        else:
            saved.append(a)
    node.saved = saved
    node._has_saved = plan.tensor_saves or plan.saves_result
    rebase_history(self, node)
    if plan.saves_result:
        node.result = save_output(self, 0, True)


def _save_operand(a, self):
    """An operand of an in-place op on `self`, saved as the op read it: one sharing self's memory
    (`y.mul_(y)`, a view of y) is stamped with the version before the write, so backward sees
    that the op itself changed it."""
    s = save_input(a)
    if a._version is self._version:
        s.version -= 1  # dispatch bumped self's counter once, right before recording
    return s


class save_on_cpu(saved_tensors_hooks):
    """Within the block, tensors saved for backward are kept in host memory and moved back to their
    device when backward needs them (on the cpu device they stay where they are)."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        self.pin_memory = pin_memory
        self.device_type = device_type
        super().__init__(lambda t: (t.device, t.cpu()), lambda packed: packed[1].to(packed[0]))


class GradientEdge(tuple):
    """Where a tensor's gradient is computed in the graph: its node (grad_fn, or a leaf's accumulator) and
    which of the node's outputs it is. autograd.grad accepts one in place of a tensor input."""

    __slots__ = ()

    def __new__(cls, node, output_nr, ownership_token=None):
        return tuple.__new__(cls, (node, output_nr, ownership_token))

    node = property(lambda self: self[0])
    output_nr = property(lambda self: self[1])
    ownership_token = property(lambda self: self[2])

    def __repr__(self):
        return f"GradientEdge(node={self[0]!r}, output_nr={self[1]}, ownership_token={self[2]!r})"


def get_gradient_edge(tensor):
    """The GradientEdge at which the tensor's gradient is computed."""
    if not tensor.requires_grad:
        raise RuntimeError("It is not possible to get the gradient edge for a Tensor that does not require gradients")
    node, nr = gradient_edge(tensor)
    return GradientEdge(node, nr)


def increment_version(tensor):
    """Mark the tensor(s) as modified in place (for writes autograd cannot see), so a saved copy is stale."""
    for t in (tensor,) if isinstance(tensor, Tensor) else tensor:
        v = t._version
        if v is None:
            v = t._version = VersionCounter()
        v.value += 1


# the backward passes under way, innermost last (a hook may start a nested one)
running_tasks = []


def current_task():
    """The innermost backward pass running now, or None outside backward."""
    return running_tasks[-1] if running_tasks else None


def will_execute(node):
    """Whether the running backward pass runs `node` (it lies on a path from the roots to what is wanted)."""
    task = current_task()
    if task is None:
        raise RuntimeError("will_execute can only be called while a backward pass runs")
    if task.relevant is not None:
        return node in task.relevant
    return node in task.start or node in task.deps


class _MultiHandle:
    """Removes all the per-tensor hooks of one multi-grad hook."""

    def __init__(self, handles):
        self.handles = handles

    def remove(self):
        for h in self.handles:
            h.remove()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def register_multi_grad_hook(tensors, fn, *, mode="all"):
    """mode "all": fn(grads) once per backward pass, when the gradients of every tensor that pass computes
    are in (None for the others); mode "any": fn(grad) on the first of them."""
    if mode not in ("all", "any"):
        raise ValueError(f"Expects mode to be one of ('all', 'any') but got {mode}")
    tensors = tuple(tensors)
    if mode == "any":
        fired = weakref.WeakKeyDictionary()

        def any_hook(grad):
            task = current_task()
            if task not in fired:
                fired[task] = True
                fn(grad)

        return _MultiHandle(tuple(t.register_hook(any_hook) for t in tensors if t.requires_grad))
    nodes = [gradient_edge(t)[0] for t in tensors]
    pending = weakref.WeakKeyDictionary()  # task -> [expected count, gradients so far]

    def all_hook(i):
        def hook(grad):
            task = current_task()
            state = pending.get(task)
            if state is None:
                state = pending[task] = [sum(map(will_execute, nodes)), [None] * len(tensors)]
            state[1][i] = grad
            state[0] -= 1
            if state[0] == 0:
                del pending[task]
                fn(state[1])

        return hook

    return _MultiHandle(tuple(t.register_hook(all_hook(i)) for i, t in enumerate(tensors)))


_mutation_allowed = []


class allow_mutation_on_saved_tensors(saved_tensors_hooks):
    """Within the block, tensors saved for backward may be modified in place afterwards: each is kept
    as a copy taken when it is saved, so backward reads the value the forward used. Forward and backward
    both run inside the block."""

    def __init__(self):
        super().__init__(lambda t: t.clone(), lambda copy: copy)

    def __enter__(self):
        if _mutation_allowed:
            raise RuntimeError("allow_mutation_on_saved_tensors contexts cannot be nested")
        super().__enter__()
        _mutation_allowed.append(self)
        return self

    def __exit__(self, *exc):
        _mutation_allowed.pop()
        return super().__exit__(*exc)


def region_activation_memory_budget(budget):
    """The activation memory budget (a ratio in [0, 1]) of a compiled region, for a graph compiler's
    partitioner. mindtorch has no compiler, so, as in eager PyTorch, a valid budget is refused."""
    name = "torch.autograd.graph.region_activation_memory_budget"
    if isinstance(budget, bool) or not isinstance(budget, (int, float)):
        raise TypeError(f"{name}: expects a float, got {type(budget).__name__}")
    if not 0.0 <= budget <= 1.0:
        raise ValueError(f"{name}: must be in [0, 1], got {budget}")
    raise RuntimeError(f"{name} can only be used inside a torch.compile region; it has no effect in eager mode.")


# CUDA stream behaviour of the engine: mindtorch's backward runs on the calling thread in the order of
# its devices' own queues, so there is no stream to override or to warn about; the settings are kept.
_stream_flags = {"override_stale_capture_stream": False, "warn_on_accumulate_grad_stream_mismatch": True}


def set_override_stale_capture_stream(enabled):
    """Whether a stale stream seen during CUDA graph capture is replaced by the capturing stream (no
    CUDA graph capture exists in mindtorch: the setting is kept only)."""
    _stream_flags["override_stale_capture_stream"] = bool(enabled)


def set_warn_on_accumulate_grad_stream_mismatch(enabled):
    """Whether to warn when a leaf's gradient arrives on another stream than its accumulator's (mindtorch
    has no per-node streams: the setting is kept only)."""
    _stream_flags["warn_on_accumulate_grad_stream_mismatch"] = bool(enabled)
