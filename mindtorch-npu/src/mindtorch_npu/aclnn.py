"""The ACLNN calling convention, once for every kernel.

`launch("Add", out_or_inputs...)` passes a descriptor for each argument (aclTensor with view dims,
strides, offset and storage dims, so strided views reach the device without a copy; aclScalar;
aclIntArray; aclBoolArray; aclTensorList), runs phase 1 (aclnnAddGetWorkspaceSize), takes the workspace
from the caching allocator on the op's stream and runs phase 2 on the current stream. Descriptors are
descriptions, so they are cached by what they describe (DescriptorCache) and made once; the few that
cannot be (a 0.0 or NaN scalar) are destroyed after the call whatever happens. The executor belongs to
phase 2, which consumes it; only when phase 2 never runs (the workspace could not be allocated) is it
released here, by making it repeatable and destroying it, as the opbase documentation prescribes for
executors that outlive their launch.
"""

import ctypes
import struct
import threading

from mindtorch.plugins import Storage, Tensor, device as Device, dtypes as D

from . import chips
from .acl import types as A
from .acl.prototypes import bind_op
from .native import load as load_native
from .state import ALLOCATOR, RUNTIME

ACL_DTYPE = {
    D.float32: A.ACL_FLOAT,
    D.float16: A.ACL_FLOAT16,
    D.bfloat16: A.ACL_BF16,
    D.float64: A.ACL_DOUBLE,
    D.int8: A.ACL_INT8,
    D.uint8: A.ACL_UINT8,
    D.int16: A.ACL_INT16,
    D.int32: A.ACL_INT32,
    D.int64: A.ACL_INT64,
    D.bool_: A.ACL_BOOL,
    D.complex64: A.ACL_COMPLEX64,
    D.complex128: A.ACL_COMPLEX128,
}

_I64 = ctypes.c_int64
_arrays = {}  # shape/stride tuple -> c_int64 array (shapes repeat; building arrays is the costly part)


def _int64s(values):
    a = _arrays.get(values)
    if a is None:
        a = (_I64 * len(values))(*values)
        if len(_arrays) < 8192:
            _arrays[values] = a
    return a


class Scalar:
    """A host value passed as aclScalar of an explicit ACL dtype."""

    __slots__ = ("value", "dtype")

    _CTYPE = {
        A.ACL_DOUBLE: ctypes.c_double,
        A.ACL_FLOAT: ctypes.c_float,
        A.ACL_INT64: ctypes.c_int64,
        A.ACL_INT32: ctypes.c_int32,
        A.ACL_BOOL: ctypes.c_bool,
        A.ACL_COMPLEX64: ctypes.c_float * 2,  # (real, imaginary), as C's float complex lies in memory
        A.ACL_COMPLEX128: ctypes.c_double * 2,
    }

    def __init__(self, value, acl_dtype=None):
        if acl_dtype is None:
            acl_dtype = (
                A.ACL_BOOL if isinstance(value, bool) else A.ACL_INT64 if isinstance(value, int) else A.ACL_DOUBLE
            )
        self.value, self.dtype = value, acl_dtype

    def create(self, nn):
        """A new aclScalar holding the value (aclCreateScalar copies it)."""
        v = self.value
        box = Scalar._CTYPE[self.dtype](*((v.real, v.imag) if v.__class__ is complex else (v,)))
        h = nn.aclCreateScalar(ctypes.cast(ctypes.pointer(box), ctypes.c_void_p), self.dtype)
        if not h:
            _null("aclCreateScalar")
        return h


# (int, dtype) -> Scalar: alphas and constants (1, -1, 0) come with nearly every call; the compiled binary
# kernel looks an int up here before it calls scalar_for (never a float: -0.0 equals 0 but is another Scalar)
SMALL_INT_SCALARS = {}


def scalar_for(value, dtype):
    """`value` as an aclScalar in the computation dtype family of `dtype` (a mindtorch dtype)."""
    if value.__class__ is int and -8 <= value <= 8:
        s = SMALL_INT_SCALARS.get((value, dtype))
        if s is None:
            s = SMALL_INT_SCALARS[value, dtype] = _scalar_for(value, dtype)
        return s
    return _scalar_for(value, dtype)


def _scalar_for(value, dtype):
    if dtype.is_complex:
        return Scalar(complex(value), A.ACL_COMPLEX128)
    if dtype.is_floating_point:
        return Scalar(float(value), A.ACL_DOUBLE)
    if dtype is D.bool_:
        return Scalar(bool(value), A.ACL_BOOL)
    return Scalar(int(value), A.ACL_INT64)


class IntArray:
    __slots__ = ("values",)

    def __init__(self, values):
        self.values = tuple(map(int, values))


class BoolArray:
    __slots__ = ("values",)

    def __init__(self, values):
        self.values = tuple(map(bool, values))


class DType:
    """An aclDataType enum argument (aclnnCast's target)."""

    __slots__ = ("value",)

    def __init__(self, dtype):
        self.value = acl_dtype(dtype)


_DTYPE_ARGS = {}  # mindtorch dtype -> its DType argument (casts and reductions pass one per call)


def dtype_arg(dtype):
    """`DType(dtype)`, made once per dtype."""
    d = _DTYPE_ARGS.get(dtype)
    if d is None:
        d = _DTYPE_ARGS[dtype] = DType(dtype)
    return d


def acl_dtype(dtype):
    code = ACL_DTYPE.get(dtype)
    if code is None:
        raise TypeError(f"the npu backend cannot hold {dtype} tensors")
    return code


def _list_key(ts):
    """DescriptorCache.tensor_list's key (the reference for _NATIVE.list_key)."""
    return tuple((t._storage.data, t._storage.nbytes, t._shape, t._stride, t._offset, t.dtype) for t in ts)


class DescriptorCache:
    """aclTensor / aclScalar / aclIntArray / aclBoolArray / aclTensorList descriptors kept for reuse.

    A descriptor is only a description (device address, view dims, strides, offset, storage dims,
    dtype; a scalar value; array values; a list of tensor descriptions), so one built for the same
    description serves again: parameters, outputs the caching allocator hands the same block again,
    reduction dims and an optimizer group's lists hit every step. Creating and destroying them is
    most of an op's host time otherwise. When full, the oldest
    generation is retired and destroyed one generation later, so a launch in flight never sees its
    descriptors destroyed; `clear()` (from empty_cache and at exit) destroys them all.
    """

    LIMIT = 4096

    def __init__(self):
        self.tensors, self.scalars, self.lists, self.arrays = {}, {}, {}, {}
        self.retired = []

    def tensor(self, t, nn):
        st = t._storage
        key = (st.data, st.nbytes, t._shape, t._stride, t._offset, t.dtype)
        h = self.tensors.get(key)
        if h is None:
            h = _new_tensor(t, nn)
            if len(self.tensors) >= self.LIMIT:
                self._retire()
            self.tensors[key] = h
        return h

    def scalar(self, s, nn):
        value = s.value
        cls = value.__class__
        key = (s.dtype, cls, value)
        # equality cannot find a NaN, nor tell -0.0 from 0.0: such values are described afresh
        if cls is float:
            cacheable = value == value and value != 0.0
        else:
            cacheable = cls is not complex or (value == value and value.real != 0.0 and value.imag != 0.0)
        h = self.scalars.get(key) if cacheable else None
        if h is None:
            h = s.create(nn)
            if not cacheable:
                return h, True
            if len(self.scalars) >= self.LIMIT:
                self._retire()
            self.scalars[key] = h
        return h, False

    def array(self, a, nn):
        """aclIntArray / aclBoolArray by value (reduction dims, window sizes, output masks repeat every step)."""
        key = (a.__class__, a.values)
        h = self.arrays.get(key)
        if h is None:
            h = _new_array(a, nn)
            if len(self.arrays) >= self.LIMIT:
                self._retire()
            self.arrays[key] = h
        return h

    def tensor_list(self, ts, nn):
        """A list owns its tensors (aclDestroyTensorList destroys them), so a cached list holds its own
        descriptors; optimizer groups pass the same lists every step."""
        key = _LIST_KEY(ts)
        if key is None:  # a member the compiled version leaves to the Python one
            key = _list_key(ts)
        h = self.lists.get(key)
        if h is None:
            h = _new_tensor_list(ts, nn)
            if len(self.lists) >= self.LIMIT // 16:
                self._retire()
            self.lists[key] = h
        return h

    def _retire(self):
        nn = RUNTIME.nn
        for tensors, scalars, lists, arrays in self.retired:
            for h in tensors.values():
                nn.aclDestroyTensor(h)
            for h in scalars.values():
                nn.aclDestroyScalar(h)
            for h in lists.values():
                nn.aclDestroyTensorList(h)
            for (cls, _), h in arrays.items():
                (nn.aclDestroyIntArray if cls is IntArray else nn.aclDestroyBoolArray)(h)
        self.retired = [(self.tensors, self.scalars, self.lists, self.arrays)]
        self.tensors, self.scalars, self.lists, self.arrays = {}, {}, {}, {}

    def clear(self):
        if RUNTIME.state == "ready":
            PLANS.clear()
            self._retire()
            self._retire()


CACHE = DescriptorCache()


# the format by rank, as torch_npu passes it: ops-nn's convolution and pooling operators read N, C and the
# spatial dims from it and refuse ND; every other operator takes these plain formats like ND
_FORMAT_BY_RANK = {3: A.ACL_FORMAT_NCL, 4: A.ACL_FORMAT_NCHW, 5: A.ACL_FORMAT_NCDHW}


def _new_tensor(t, nn):
    """An aclTensor for t: view dims, strides and offset over the whole storage (in elements)."""
    st, shape = t._storage, t._shape
    h = nn.aclCreateTensor(
        _int64s(shape),
        len(shape),
        acl_dtype(t.dtype),
        _int64s(t._stride),
        t._offset,
        _FORMAT_BY_RANK.get(len(shape), A.ACL_FORMAT_ND),
        _int64s((st.nbytes // t.dtype.itemsize,)),
        1,
        st.data,
    )
    if not h:
        _null("aclCreateTensor")
    return h


def _new_array(a, nn):
    n = len(a.values)
    if a.__class__ is IntArray:
        h = nn.aclCreateIntArray(_int64s(a.values), n)
    else:
        h = nn.aclCreateBoolArray((ctypes.c_bool * n)(*a.values), n)
    if not h:
        _null("aclCreateIntArray" if a.__class__ is IntArray else "aclCreateBoolArray")
    return h


def _new_tensor_list(ts, nn):
    """An aclTensorList of fresh descriptors (the list owns and destroys them)."""
    made = []
    try:
        for t in ts:
            made.append(_new_tensor(t, nn))
        h = nn.aclCreateTensorList((ctypes.c_void_p * len(made))(*made), len(made))
    except BaseException:
        for h in made:
            nn.aclDestroyTensor(h)
        raise
    if not h:
        for t in made:
            nn.aclDestroyTensor(t)
        _null("aclCreateTensorList")
    return h


def _null(call):
    raise RuntimeError(f"{call} returned NULL: {(RUNTIME.rt.aclGetRecentErrMsg() or b'').decode(errors='replace')}")


_bound = {}


def _op(name):
    fns = _bound.get(name)
    if fns is None:
        RUNTIME.ensure()
        fns = bind_op(RUNTIME.libs.opapi, name)
        if fns is None:
            raise NotImplementedError(f"aclnn{name} is not provided by the loaded libopapi.so")
        fns = _bound[name] = (*fns, ctypes.cast(fns[1], ctypes.c_void_p).value)  # phase 2's address: for _NATIVE
    return fns


_out = threading.local()  # per-thread phase-1 out-parameters (ctypes releases the GIL during calls)


def _out_params():
    o = getattr(_out, "params", None)
    if o is None:
        ws, ex = ctypes.c_uint64(), ctypes.c_void_p()
        o = _out.params = (ws, ex, ctypes.byref(ws), ctypes.byref(ex))
    return o


_gated = {}  # operators this process's chip has (chips.check_op passed), bound


def _gate(name):
    RUNTIME.ensure()
    chips.check_op(name, f"aclnn{name}")  # NotImplementedError (a RuntimeError) naming the chip and the doc
    fns = _gated[name] = _op(name)
    return fns


def _launch_py(name, *args, device=None):
    """Run ACLNN operator `name` on the current stream of the first tensor argument's device; an operator
    the chip's product lacks (optable.json) is refused before anything reaches the device."""
    fns = _gated.get(name) or _gate(name)
    if _NATIVE is not None and PLANS.enabled and RUNTIME.plans_possible:  # _run's first step, inlined
        taken = _NATIVE.run(PLANS, name, args, device, fns[2], RUNTIME._tls)
        if taken is not None:
            _go_on(name, fns, args, device, True, taken)
        return
    _run(name, fns, args, device, True)


launch = _launch_py


def device_launch(name, *args, device=None):
    """`launch` without the chip table's gate: what the device itself answers (for tests of its own checks)."""
    return _run(name, _bound.get(name) or _op(name), args, device, False)


def _run(name, fns, args, device, gated):
    if not (PLANS.enabled and RUNTIME.plans_possible):
        _run_described(name, fns, args, device, gated)
        return
    # the plain repeat launched in C; else what the Python path goes on from
    taken = _NATIVE.run(PLANS, name, args, device, fns[2], RUNTIME._tls) if _NATIVE is not None else False
    if taken is not None:
        _go_on(name, fns, args, device, gated, taken)


def _go_on(name, fns, args, device, gated, taken):
    """The Python path from where _NATIVE.run left a call: not keyed (False), a failed phase 2 (plan, status), or
    (key, addresses, device, listed, plan or None) with the key's plan taken out."""
    if taken is False:
        planned = _plan_key(name, args, device)
        if planned is None:
            _run_described(name, fns, args, device, gated)
            return
        taken = (*planned, PLANS.plans.pop(planned[0], None))
    elif len(taken) == 2:
        plan, code = taken
        plan.destroy(RUNTIME.nn)
        RUNTIME.check(f"aclnn{name}", code)
    key, addrs, device, listed, plan = taken
    _run_taken(name, fns, args, gated, key, addrs, device, listed, plan)


def _run_taken(name, fns, args, gated, key, addrs, device, listed, plan):
    """A planned call once its key's plan (or None) is taken out of PLANS."""
    plans = PLANS
    if plan is not None and addrs == plan.addrs:  # the common case: the same call again, nothing to refresh
        tls = RUNTIME._tls
        try:
            if plan.size or tls.bound != device:
                _phase2(name, fns, plan.executor, plan.size, device, consumed=False)
            else:  # no workspace, the device bound: phase 2 is the one C call
                streams = tls.streams
                code = fns[1](None, 0, plan.executor, streams.get(device, 0) if streams else 0)
                if code:
                    RUNTIME.check(f"aclnn{name}", code)
        except BaseException:
            plan.destroy(RUNTIME.nn)
            raise
        plans.give(key, plan)
        return
    if plan is not None:  # other addresses: a plan kept for them, else a new one or the oldest kept, refreshed
        _run_planned(name, fns, args, key, addrs, device, gated, plans.sibling(key, addrs, plan))
        return
    plan = plans.old.pop(key, None) if plans.old else None  # (each lookup hashes the whole key)
    if plan is None and ((plans.refused and key in plans.refused) or (listed and not plans.seen_before(key))):
        _run_described(name, fns, args, device, gated)
        return
    _run_planned(name, fns, args, key, addrs, device, gated, plan)


def _run_described(name, fns, args, device, gated):
    rt = RUNTIME
    nn = rt.nn
    cache = CACHE
    tensors = cache.tensors
    cargs = []
    own = None  # descriptors made for this launch only (uncacheable scalars), destroyed after it
    for a in args:  # every description is cached: tensors by geometry and address, the rest by value
        cls = a.__class__
        if cls is Tensor or isinstance(a, Tensor):
            st = a._storage
            h = tensors.get((st.data, st.nbytes, a._shape, a._stride, a._offset, a.dtype))
            if h is None:  # a new description: a dtype the chip cannot hold is refused by name, not by ACL
                if gated:
                    chips.check_chip_dtype(a.dtype, f"aclnn{name} on {a.device}")
                h = cache.tensor(a, nn)
            cargs.append(h)
            if device is None:
                device = a.device.index
        elif a is None:
            cargs.append(None)
        elif cls is Scalar:
            h, mine = cache.scalar(a, nn)
            if mine:
                own = (own or []) + [h]
            cargs.append(h)
        elif cls is IntArray or cls is BoolArray:
            cargs.append(cache.array(a, nn))
        elif cls is DType:
            cargs.append(a.value)
        elif cls is list or cls is tuple:
            if device is None and a:
                device = a[0].device.index
            cargs.append(cache.tensor_list(a, nn))
        else:
            cargs.append(a)  # plain C values (int8_t cubeMathType, ...)
    try:
        executor, size = _phase1(name, fns, cargs, device, args, gated)
        _phase2(name, fns, executor, size, device, consumed=True)
    finally:
        if own:
            for h in own:
                nn.aclDestroyScalar(h)


def _phase1(name, fns, cargs, device, args, gated):
    """aclnn<name>GetWorkspaceSize on `device`: (executor, workspace size). A `gated` launch whose dtype the
    operator's doc omits for this chip raises chips' DtypeRefused, naming it."""
    rt = RUNTIME
    if rt._tls.bound != device:
        rt.use(device)
    ws_size, executor, ws_ref, ex_ref = _out_params()
    code = fns[0](*cargs, ws_ref, ex_ref)
    if code:
        why = gated and chips.refusal(name, args, code)
        if why:
            raise why
        rt.check(f"aclnn{name}GetWorkspaceSize", code)
    return executor.value, ws_size.value


def _phase2(name, fns, executor, size, device, consumed):
    """aclnn<name> on the current stream of `device`, with a workspace of `size` bytes from the caching
    allocator. A `consumed` executor that never reaches its launch is released here."""
    rt = RUNTIME
    tls = rt._tls
    if tls.bound != device:
        rt.use(device)
    streams = tls.streams
    stream = streams.get(device, 0) if streams else 0
    if not size:
        code = fns[1](None, 0, executor, stream)
    else:
        try:
            block = ALLOCATOR.malloc(size, device, stream)
        except BaseException:
            if consumed:
                _release(executor)
            raise
        try:
            code = fns[1](block.ptr, size, executor, stream)
        finally:  # stream-ordered: only later work on this stream can reuse it
            ALLOCATOR.free_block(block)
    if code:
        rt.check(f"aclnn{name}", code)


# ---- launch plans -------------------------------------------------------------------------------------


class LaunchPlan:
    """One operator's phase 1 kept for reuse: a repeatable executor (aclSetAclOpExecutorRepeatable) with the
    descriptors it was made from, which it owns. Phase 1 depends only on what the plan's key holds (the
    operator, the device, each tensor's shape, strides, offset, dtype and storage size, scalar and array
    values, which arguments share storage), never on addresses: a call with a new address refreshes it through
    aclSetTensorAddr (acl_meta.h) and launches phase 2 alone. `index` counts the operator's tensor arguments in
    header order, list members one by one, as aclSetTensorAddr's documentation counts them."""

    __slots__ = ("executor", "size", "handles", "addrs", "owned")

    def __init__(self, executor, size, handles, addrs, owned):
        self.executor, self.size, self.handles, self.addrs, self.owned = executor, size, handles, addrs, owned

    def destroy(self, nn):
        if self.executor:
            nn.aclDestroyAclOpExecutor(self.executor)
            self.executor = None
        _destroy_owned(self.owned, nn)


def _plan_key(name, args, device):
    """(key, tensor addresses, device, listed) of a call whose phase 1 the key determines, or None (a raw ctypes
    argument such as an out descriptor the operator rewrites). A zero or NaN float is keyed by its bits.
    `listed`: the call passes a tensor list."""
    parts = [name, None]
    addrs = []
    listed = False
    for a in args:
        cls = a.__class__
        if cls is Tensor or isinstance(a, Tensor):
            st = a._storage
            parts += (a._shape, a._stride, a._offset, a.dtype, st.nbytes)  # one extend, not five appends
            addrs.append(st.data)
            if device is None:
                device = a.device.index
        elif cls is Scalar:
            v = a.value
            if v.__class__ is float and v == v and v != 0.0 or v.__class__ is int or v.__class__ is bool:
                parts += (a.dtype, v.__class__, v)
            else:
                parts += _exact_scalar_key(a)
        elif a is None or cls is int or cls is bool or cls is bytes:  # bytes: a char* attribute
            parts.append(a)
        elif cls is IntArray or cls is BoolArray:
            parts += (cls, a.values)
        elif cls is list or cls is tuple:
            if device is None and a:
                device = a[0].device.index
            for t in a:
                st = t._storage
                parts += (t._shape, t._stride, t._offset, t.dtype, st.nbytes)
                addrs.append(st.data)
            parts.append(len(a))
            listed = True
        elif cls is DType:
            parts += (DType, a.value)
        elif cls is float:
            parts += (float, a) if a == a and a != 0.0 else (float, _float_bits(a))
        else:
            return None
    if device is None:
        return None
    parts[1] = device
    if len(set(addrs)) != len(addrs):  # which tensor arguments share a storage is part of the geometry
        first = {}  # address -> the first argument at it: linear in the arguments (an optimizer's lists are long)
        parts += (_SHARED, tuple([first.setdefault(x, i) for i, x in enumerate(addrs)]))
    return tuple(parts), addrs, device, listed


_SHARED = object()  # marks the sharing pattern at the end of a key
_DOUBLE = struct.Struct("d")


def _float_bits(v):
    return _DOUBLE.pack(v)


def _exact_scalar_key(s):
    """A scalar's key by the bits of its value: equality cannot tell 0.0 from -0.0, nor find a NaN."""
    v = s.value
    if v.__class__ is complex:
        return (s.dtype, complex, _float_bits(v.real), _float_bits(v.imag))
    if v.__class__ is float:
        return (s.dtype, float, _float_bits(v))
    return (s.dtype, v.__class__, v)


def _run_planned(name, fns, args, key, addrs, device, gated, plan):
    """A planned call that is not the plain repeat: its plan's addresses need refreshing, or it has no plan
    yet."""
    if plan is None:
        plan = _new_plan(name, fns, args, key, addrs, device, gated)
        if plan is None:
            return  # the executor could not be made repeatable: it ran once, consumed
    elif addrs != plan.addrs and not _refresh(plan, addrs):
        plan.destroy(RUNTIME.nn)
        PLANS.refuse(key)
        _run_described(name, fns, args, device, gated)
        return
    try:
        _phase2(name, fns, plan.executor, plan.size, device, consumed=False)
    except BaseException:
        plan.destroy(RUNTIME.nn)
        raise
    PLANS.give(key, plan)


def _refresh(plan, addrs):
    """Point the plan's executor at this call's addresses; False if the library refuses (the plan is then
    dropped and the call described afresh)."""
    rt = RUNTIME
    nn = rt.nn
    old, handles, executor = plan.addrs, plan.handles, plan.executor
    for i, a in enumerate(addrs):
        if a != old[i] and nn.aclSetTensorAddr(executor, i, handles[i], a):
            rt.rt.aclGetRecentErrMsg()  # read, so the refusal does not stay the thread's last message
            return False
    plan.addrs = addrs
    return True


def _new_plan(name, fns, args, key, addrs, device, gated):
    """Phase 1 on descriptors of the plan's own, made repeatable; None when the executor cannot be (it is then
    launched once as made and the key is not planned again)."""
    nn = RUNTIME.nn
    owned, handles = [], []
    try:
        if gated:  # a dtype the chip cannot hold is refused by name, not by ACL
            for a in args:
                if isinstance(a, Tensor):
                    chips.check_chip_dtype(a.dtype, f"aclnn{name} on {a.device}")
        cargs = [_owned_arg(a, nn, owned, handles) for a in args]
        executor, size = _phase1(name, fns, cargs, device, args, gated)
    except BaseException:
        _destroy_owned(owned, nn)
        raise
    if nn.aclSetAclOpExecutorRepeatable(executor):
        RUNTIME.rt.aclGetRecentErrMsg()
        PLANS.refuse(key)
        try:
            _phase2(name, fns, executor, size, device, consumed=True)
        finally:
            _destroy_owned(owned, nn)
        return None
    return LaunchPlan(executor, size, handles, addrs, owned)


def _owned_arg(a, nn, owned, handles):
    """The C argument for `a`, its descriptors made for a plan (listed in `owned`; tensors in `handles`)."""
    cls = a.__class__
    if cls is Tensor or isinstance(a, Tensor):
        h = _new_tensor(a, nn)
        owned.append((nn.aclDestroyTensor, h))
        handles.append(h)
        return h
    if cls is Scalar:
        h = a.create(nn)
        owned.append((nn.aclDestroyScalar, h))
        return h
    if cls is IntArray or cls is BoolArray:
        h = _new_array(a, nn)
        owned.append((nn.aclDestroyIntArray if cls is IntArray else nn.aclDestroyBoolArray, h))
        return h
    if cls is list or cls is tuple:
        members = []
        for t in a:
            members.append(_new_tensor(t, nn))
            handles.append(members[-1])
        h = nn.aclCreateTensorList((ctypes.c_void_p * len(members))(*members), len(members))
        if not h:
            for m in members:
                nn.aclDestroyTensor(m)
            _null("aclCreateTensorList")
        owned.append((nn.aclDestroyTensorList, h))  # the list owns its members
        return h
    if cls is DType:
        return a.value
    return a


def _destroy_owned(owned, nn):
    for destroy, h in reversed(owned):
        destroy(h)
    owned.clear()


class LaunchPlans:
    """Plans by key. A plan is taken out while it runs (so two threads never refresh one executor at once) and
    given back after; when full, the oldest generation is destroyed, as DescriptorCache retires descriptors.
    `refused` holds the keys whose executor the library would not make repeatable. A call passing tensor lists
    is planned when its key comes a second time: such a plan holds a descriptor per member, and a key that
    never repeats (an optimizer step's scalars change every step) is cheaper described from the cache."""

    LIMIT = 2048
    # plans kept per key beside the one in `plans`, each for other addresses: a training step's tensors take a
    # few address sets in turn (new gradients alternate between two places; one geometry serves every layer)
    SIBLINGS = 3

    def __init__(self):
        self.enabled = True
        self.plans, self.old, self.refused, self.sightings = {}, {}, set(), set()
        self.siblings = {}  # key -> plans for other addresses, oldest first
        self.lock = threading.Lock()

    def sibling(self, key, addrs, plan):
        """The plan to run a call at `addrs` whose key's current `plan` has other addresses: a kept plan made for
        them, else None (make one) while fewer than SIBLINGS are kept, else the oldest kept (to refresh). `plan`
        is kept in its stead."""
        with self.lock:
            kept = self.siblings.get(key)
            if kept is None:
                kept = self.siblings[key] = []
            for i, other in enumerate(kept):
                if other.addrs == addrs:
                    kept[i] = plan
                    return other
            kept.append(plan)
            return kept.pop(0) if len(kept) > self.SIBLINGS else None

    def give(self, key, plan):
        if len(self.plans) >= self.LIMIT:
            self._retire()
        if self.plans.setdefault(key, plan) is not plan:  # another thread planned the key meanwhile
            plan.destroy(RUNTIME.nn)

    def refuse(self, key):
        if len(self.refused) >= self.LIMIT:
            self.refused.clear()
        self.refused.add(key)

    def seen_before(self, key):
        """True when `key` came before (since the last clear); the first sighting is noted. Only the key's hash
        is kept: a foreach key holds hundreds of parts, most never come again, and a set of ints costs the
        garbage collector nothing. Two keys of one hash make a plan early, nothing worse."""
        sightings = self.sightings
        n = len(sightings)
        h = hash(key)
        sightings.add(h)
        if len(sightings) == n:
            sightings.discard(h)
            return True
        if n >= self.LIMIT:
            sightings.clear()
            sightings.add(h)
        return False

    def _retire(self):
        nn = RUNTIME.nn
        for plan in self.old.values():
            plan.destroy(nn)
        with self.lock:
            kept, self.siblings = self.siblings, {}
        for plans in kept.values():
            for plan in plans:
                plan.destroy(nn)
        self.old, self.plans = self.plans, {}

    def clear(self):
        if RUNTIME.state == "ready":
            self._retire()
            self._retire()
            self.sightings.clear()


PLANS = LaunchPlans()

_NATIVE = load_native("launch")  # the compiled twin of _plan_key and _run's plain repeat, or None
if _NATIVE is not None:
    _classes = (Tensor, Storage, Device, Scalar, IntArray, BoolArray, DType, LaunchPlan)
    _NATIVE.setup(*_classes, _SHARED, LaunchPlans.LIMIT, ALLOCATOR.malloc, ALLOCATOR.free_block)
    # launch itself in C: every operator call passes through it (the Python version above is the reference)
    launch = _NATIVE.Launcher(globals(), _NATIVE, _gated, _gate, PLANS, RUNTIME, RUNTIME._tls, _go_on, _run)
_LIST_KEY = _NATIVE.list_key if _NATIVE is not None else _list_key
PYTHON_TWINS = {"launch": _launch_py, "list_key": _list_key}


_libc = ctypes.CDLL(None)
_libc.free.argtypes = [ctypes.c_void_p]


def launch_rewriting_out(name, *args):
    """Run operator `name` whose last argument is an output the operator reshapes when it runs (aclnnNonzero
    rewrites its out descriptor's view shape to [count, ndim]); returns that shape, read back as torch_npu does
    (aclGetViewShape after the stream synchronizes). The descriptor is made for this launch alone and destroyed
    after it, so no cached descriptor ever carries a rewritten shape."""
    *ins, out = args
    rt, index = RUNTIME, out.device.index
    nn = rt.nn
    h = _new_tensor(out, nn)
    try:
        launch(name, *ins, ctypes.c_void_p(h), device=index)
        rt.synchronize_stream(index, rt.current_stream(index))
        dims, n = ctypes.POINTER(_I64)(), ctypes.c_uint64()
        rt.check("aclGetViewShape", nn.aclGetViewShape(h, ctypes.byref(dims), ctypes.byref(n)))
        try:
            return tuple(dims[i] for i in range(n.value))
        finally:
            _libc.free(ctypes.cast(dims, ctypes.c_void_p))  # the array is the caller's to free
    finally:
        nn.aclDestroyTensor(h)


def _release(executor):
    nn = RUNTIME.nn
    nn.aclSetAclOpExecutorRepeatable(executor)
    nn.aclDestroyAclOpExecutor(executor)
