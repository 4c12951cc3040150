"""Graph nodes recorded by the dispatcher when an input requires grad."""
import itertools
import weakref

from .._tensor import Tensor, make_tensor
from .. import _dtype as D

_seq = itertools.count()


class RemovableHandle:
    _ids = itertools.count()

    def __init__(self, table):
        self.id = next(RemovableHandle._ids)
        self._table = weakref.ref(table) if not isinstance(table, dict) else (lambda t=table: t)

    def remove(self):
        table = self._table()
        if table is not None:
            table.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


class Node:
    """A backward function: turns gradients of an op's outputs into gradients of its inputs."""

    __slots__ = ("op", "inputs", "saved", "needs", "num_outputs", "seq", "result", "_freed", "pre_hooks",
                 "tensor_pre_hooks", "hooks", "__weakref__", "out_meta", "_name")

    def __init__(self, op, num_outputs=1):
        self.op = op
        self.inputs = []          # (param index, list index or None, next node, output_nr, shape, dtype)
        self.saved = None
        self.needs = None
        self.num_outputs = num_outputs
        self.seq = next(_seq)
        self.result = None
        self._freed = False
        self.pre_hooks = None
        self.tensor_pre_hooks = None
        self.hooks = None
        self.out_meta = None
        self._name = None

    def name(self):
        if self._name is None:
            base = self.op.name if self.op is not None else "Function"
            self._name = "".join(w.capitalize() for w in base.strip("_").split("_")) + "Backward0"
        return self._name

    __name__ = property(name)

    def __repr__(self):
        return f"<{self.name()} object at {hex(id(self))}>"

    @property
    def next_functions(self):
        return tuple((n, nr) for (_, _, n, nr, _, _) in self.inputs)

    def register_hook(self, fn):
        if self.hooks is None:
            self.hooks = {}
        h = RemovableHandle(self.hooks)
        self.hooks[h.id] = fn
        return h

    def register_prehook(self, fn):
        if self.pre_hooks is None:
            self.pre_hooks = {}
        h = RemovableHandle(self.pre_hooks)
        self.pre_hooks[h.id] = fn
        return h

    def add_tensor_pre_hook(self, output_nr, fn):
        if self.tensor_pre_hooks is None:
            self.tensor_pre_hooks = {}
        table = self.tensor_pre_hooks.setdefault(output_nr, {})
        h = RemovableHandle(table)
        table[h.id] = fn
        return h

    def unpack_saved(self, create_graph):
        if self._freed:
            raise RuntimeError(
                "Trying to backward through the graph a second time (or directly access saved tensors after they "
                "have already been freed). Saved intermediate values of the graph are freed when you call "
                ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
                "graph a second time or if you need to access saved tensors after calling backward.")
        values = []
        for item in self.saved:
            if type(item) is SavedTensor:
                values.append(item.unpack(self))
            else:
                values.append(item)
        res = self.result
        if res is not None:
            if isinstance(res, tuple):
                res = tuple(r.unpack(self) if type(r) is SavedTensor else r for r in res)
            else:
                res = res.unpack(self)
        return values, res

    def apply(self, grads, create_graph):
        values, res = self.unpack_saved(create_graph)
        return self.op.derivative.fn(grads, self.needs, res, *values)

    def release(self):
        self.saved = None
        self.result = None
        self._freed = True


class SavedTensor:
    """A tensor kept for backward, with the version it had when saved."""

    __slots__ = ("tensor", "version", "is_output", "output_nr", "requires_grad")

    def __init__(self, t, is_output=False, output_nr=0):
        v = t._version
        self.version = 0 if v is None else v.value
        self.is_output = is_output
        self.output_nr = output_nr
        self.requires_grad = t._requires_grad
        if is_output:
            # keep the data without the grad_fn to avoid a reference cycle
            alias = make_tensor(t._storage, t._shape, t._stride, t._offset, t.dtype, t.device)
            if t._version is None:
                from .._storage import VersionCounter
                t._version = VersionCounter()
            alias._version = t._version
            alias._np = t._np
            alias._base = t._base
            self.tensor = alias
        else:
            self.tensor = t

    def unpack(self, node):
        t = self.tensor
        v = t._version
        now = 0 if v is None else v.value
        if now != self.version:
            raise RuntimeError(
                "one of the variables needed for gradient computation has been modified by an inplace operation: "
                f"[{_type_str(t)} [{', '.join(map(str, t._shape))}]], which is output {self.output_nr} of "
                f"{node.name()}, is at version {now}; expected version {self.version} instead. Hint: the "
                "backtrace further above can point to the operation that failed to compute its gradient.")
        if self.is_output and self.requires_grad:
            out = make_tensor(t._storage, t._shape, t._stride, t._offset, t.dtype, t.device)
            out._version = t._version
            out._np = t._np
            out._requires_grad = True
            out._grad_fn = node
            if self.output_nr:
                out._output_nr = self.output_nr
            return out
        return t


def _type_str(t):
    return "torch." + {"float32": "FloatTensor", "float64": "DoubleTensor", "float16": "HalfTensor"}.get(
        t.dtype.name, t.dtype.name)


class AccumulateGrad(Node):
    """The sink for a leaf tensor: adds the incoming gradient to `.grad`."""

    __slots__ = ("variable",)

    def __init__(self, variable):
        Node.__init__(self, None)
        self.variable = variable

    def name(self):
        return "AccumulateGrad"

    @property
    def next_functions(self):
        return ()


def grad_accumulator(t):
    ref = t.__dict__.get("_accumulator")
    acc = ref() if ref is not None else None
    if acc is None:
        acc = AccumulateGrad(t)
        t.__dict__["_accumulator"] = weakref.ref(acc)
    return acc


def gradient_edge(t):
    if t._base is not None:
        from .views import refresh_view_grad_fn
        refresh_view_grad_fn(t)
    fn = t._grad_fn
    if fn is not None:
        return fn, t._output_nr
    return grad_accumulator(t), 0


def _save(op, args, out, node):
    d = op.derivative
    saved = []
    for i in d.saves:
        a = args[i]
        if a.__class__ is Tensor or isinstance(a, Tensor):
            saved.append(SavedTensor(a))
        elif isinstance(a, (list, tuple)) and a and isinstance(a[0], Tensor):
            saved.append(tuple(a))
        else:
            saved.append(a)
    node.saved = saved
    if d.saves_result:
        if isinstance(out, tuple):
            node.result = tuple(SavedTensor(o, True, k) if isinstance(o, Tensor) else o for k, o in enumerate(out))
        else:
            node.result = SavedTensor(out, True, 0)


def _connect(op, args, node):
    needs = [False] * len(args)
    inputs = node.inputs
    nondiff = op.nondiff
    for i in op.tensor_params:
        a = args[i]
        if a.__class__ is Tensor or isinstance(a, Tensor):
            if a._requires_grad and (not nondiff or op.params[i].name not in nondiff):
                n, nr = gradient_edge(a)
                inputs.append((i, None, n, nr, a._shape, a.dtype))
                needs[i] = True
        elif isinstance(a, (list, tuple)):
            for k, t in enumerate(a):
                if isinstance(t, Tensor) and t._requires_grad:
                    n, nr = gradient_edge(t)
                    inputs.append((i, k, n, nr, t._shape, t.dtype))
                    needs[i] = True
    node.needs = needs
    return any(needs)


def _mark_outputs(out, node):
    if isinstance(out, Tensor):
        out._requires_grad = True
        out._grad_fn = node
        node.out_meta = ((out._shape, out.dtype, out.device),)
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
    node.out_meta = tuple(metas)


def record(op, args, out):
    num = len(out) if isinstance(out, (tuple, list)) else 1
    node = Node(op, num)
    if not _connect(op, args, node):
        return
    _save(op, args, out, node)
    if isinstance(out, list):
        out = tuple(out)
    _mark_outputs(out, node)


def check_inplace(self, grad_recording):
    from .._grad_mode import state
    if not state.enabled:
        return
    if self._grad_fn is None and self._requires_grad:
        if self._base is None:
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place operation.")
    base = self._base
    if base is not None and base._grad_fn is None and base._requires_grad:
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place operation.")


def record_inplace(op, args, self, saved_self):
    """Make `self` the output of the in-place op's node (its old history is the node's input)."""
    from .views import rebase_history
    node = Node(op, 1)
    if not _connect(op, args, node):
        return
    d = op.derivative
    saved = []
    for i in d.saves:
        a = args[i]
        if i == 0 and saved_self is not None:
            saved.append(saved_self)
        elif isinstance(a, Tensor):
            saved.append(SavedTensor(a))
        else:
            saved.append(a)
    node.saved = saved
    rebase_history(self, node)
    if d.saves_result:
        node.result = SavedTensor(self, True, 0)
