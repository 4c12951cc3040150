/* Compiled twin of the launch path's common case in mindtorch_npu.aclnn (the Python versions are the reference).

   setup(tensor, storage, device, scalar, int_array, bool_array, dtype_arg, plan, shared, limit, malloc, free_block)
       learns where these classes keep their slots, the marker of a key's sharing pattern, how many plans
       LaunchPlans keeps before it retires a generation, and the allocator's workspace calls
   plan_key(name, args, device)
       aclnn._plan_key's (key, addresses, device, listed), or False for a call it leaves to the Python version
       (an argument of another kind, no device)
   run(plans, name, args, device, phase2, tls)
       aclnn._run up to its plain repeat: the call's plan in plans.plans at the same addresses (or one of its
       siblings kept for them, which then swap places) on the thread's bound device is launched by calling
       phase 2 (the address of aclnn<name>) here, with its workspace from the allocator: None. Otherwise what the Python path goes on from: False (no key), (key, addresses, device,
       listed, plan or None), or (plan, status) when phase 2 failed (the plan is then the caller's to destroy).
       An error of the allocator is raised with the plan given back (nothing was launched).
   list_key(tensors)
       DescriptorCache.tensor_list's key for a list of tensors, or None when the Python version keys it
   Binary(op, with_alpha, empty, launch, small_scalars, scalar_for, python)
       kernels/_common.binary's out-of-place kernel: kernel(m, a, b[, alpha]) for two plain Tensors is
       launch(op, a, b[, alpha's Scalar], out) into out = empty(m.shape, m.dtype, a.device), the Scalar from
       small_scalars[(alpha, m.dtype)] for an int, else scalar_for(alpha, m.dtype); anything else is python(...)
   Unary(op, through, empty, launch, python)
       a unary operator's out-of-place kernel: kernel(m, a) for a plain Tensor whose (op, a.dtype, m.dtype) the
       `through` table maps to no cast either way is launch(op, a, out) into out = empty(m.shape, m.dtype,
       a.device); anything else is python(m, a)
   CurrentStream(tls, fallback)
       Runtime.current_stream(index) for the thread state `tls`: its `streams` (None or {index: handle}) read
       here, 0 when it holds none for the device; anything else is fallback(index)
   Launcher(globals, module, gated, gate, plans, runtime, tls, go_on, run)
       aclnn.launch without its Python frame: launcher(name, *args, device=None) takes the operator's bound
       functions from `gated` (else gate(name)), and while aclnn's _NATIVE (read from `globals` per call) is set,
       plans.enabled and runtime.plans_possible, runs as run() above (here when _NATIVE is `module`), then
       go_on(name, fns, args, device, True, taken) unless that launched it; otherwise run(name, fns, args,
       device, True)

   Built by mindtorch_npu/native/build.py; nothing here is required: without it the Python versions run. */

#include <stdint.h>

#include "slots.h"

typedef int32_t (*phase2_fn)(void *workspace, uint64_t size, void *executor, void *stream);

enum { T_ST, T_SHAPE, T_STRIDE, T_OFFSET, T_DTYPE, T_DEVICE, N_TENSOR };
static const char *TENSOR_SLOTS[N_TENSOR] = {"_st", "_shape", "_stride", "_offset", "dtype", "device"};
enum { P_EXECUTOR, P_SIZE, P_ADDRS, N_PLAN };
static const char *PLAN_SLOTS[N_PLAN] = {"executor", "size", "addrs"};

static PyTypeObject *tensor_t, *storage_t, *device_t, *scalar_t, *int_array_t, *bool_array_t, *dtype_t, *plan_t;
static Py_ssize_t tensor_off[N_TENSOR], plan_off[N_PLAN];
static Py_ssize_t st_data, st_nbytes, dev_index, sc_value, sc_dtype, ia_values, ba_values, dt_value;
static PyObject *shared_marker, *ws_malloc, *ws_free, *zero;
static Py_ssize_t plans_limit;
static PyObject *s_plans, *s_bound, *s_streams, *s_give, *s_lock, *s_locked, *s_siblings, *s_ptr;

static PyObject *setup(PyObject *self, PyObject *args)
{
    PyTypeObject *tp[8];
    PyObject *shared, *malloc_fn, *free_fn;
    Py_ssize_t limit;
    if (!PyArg_ParseTuple(args, "O!O!O!O!O!O!O!O!OnOO", &PyType_Type, &tp[0], &PyType_Type, &tp[1], &PyType_Type, &tp[2],
                          &PyType_Type, &tp[3], &PyType_Type, &tp[4], &PyType_Type, &tp[5], &PyType_Type, &tp[6],
                          &PyType_Type, &tp[7], &shared, &limit, &malloc_fn, &free_fn))
        return NULL;
    Py_ssize_t t_off[N_TENSOR], p_off[N_PLAN];
    for (int i = 0; i < N_TENSOR; i++)
        if ((t_off[i] = slot_of(tp[0], TENSOR_SLOTS[i])) < 0)
            return NULL;
    for (int i = 0; i < N_PLAN; i++)
        if ((p_off[i] = slot_of(tp[7], PLAN_SLOTS[i])) < 0)
            return NULL;
    Py_ssize_t o[8] = {
        slot_of(tp[1], "data"),   slot_of(tp[1], "nbytes"), slot_of(tp[2], "index"),  slot_of(tp[3], "value"),
        slot_of(tp[3], "dtype"),  slot_of(tp[4], "values"), slot_of(tp[5], "values"), slot_of(tp[6], "value"),
    };
    for (int i = 0; i < 8; i++)
        if (o[i] < 0)
            return NULL;
    memcpy(tensor_off, t_off, sizeof t_off);
    memcpy(plan_off, p_off, sizeof p_off);
    st_data = o[0], st_nbytes = o[1], dev_index = o[2], sc_value = o[3], sc_dtype = o[4];
    ia_values = o[5], ba_values = o[6], dt_value = o[7];
    PyTypeObject **keep[8] = {&tensor_t, &storage_t, &device_t, &scalar_t, &int_array_t, &bool_array_t, &dtype_t, &plan_t};
    for (int i = 0; i < 8; i++) {
        Py_INCREF(tp[i]);
        Py_XSETREF(*keep[i], tp[i]);
    }
    Py_INCREF(shared);
    Py_XSETREF(shared_marker, shared);
    plans_limit = limit;
    Py_INCREF(malloc_fn);
    Py_XSETREF(ws_malloc, malloc_fn);
    Py_INCREF(free_fn);
    Py_XSETREF(ws_free, free_fn);
    Py_RETURN_NONE;
}

/* A call's key as it is built: its parts and the tensor arguments' storage addresses, owned references in
   arrays that start on the stack (a few tensors' worth) and move to the heap when an argument list is long. */
#define INLINE 64
typedef struct {
    PyObject **v;
    Py_ssize_t n, cap;
    PyObject *inline_v[INLINE];
} vec_t;

static void vec_init(vec_t *a)
{
    a->v = a->inline_v;
    a->n = 0;
    a->cap = INLINE;
}

static void vec_free(vec_t *a)
{
    for (Py_ssize_t i = 0; i < a->n; i++)
        Py_DECREF(a->v[i]);
    if (a->v != a->inline_v)
        PyMem_Free(a->v);
}

/* appends a new reference to o (o may be NULL: a failed constructor, -1); 0 or -1 with an exception */
static int vec_put(vec_t *a, PyObject *o, int steal)
{
    if (o == NULL)
        return -1;
    if (a->n == a->cap) {
        Py_ssize_t cap = a->cap * 4;
        PyObject **v = PyMem_Malloc(cap * sizeof *v);
        if (v == NULL) {
            if (steal)
                Py_DECREF(o);
            PyErr_NoMemory();
            return -1;
        }
        memcpy(v, a->v, a->n * sizeof *v);
        if (a->v != a->inline_v)
            PyMem_Free(a->v);
        a->v = v, a->cap = cap;
    }
    if (!steal)
        Py_INCREF(o);
    a->v[a->n++] = o;
    return 0;
}

#define PUT(a, o) vec_put((a), (o), 0)
#define PUT_NEW(a, o) vec_put((a), (o), 1)

typedef struct {
    vec_t parts, addrs;
    PyObject *device; /* borrowed */
    int listed;
} callkey_t;

/* a tensor's five key fields and its storage address; 1 when done, 0 when the Python version must key it */
static int key_tensor(PyObject *t, callkey_t *k)
{
    PyObject *st = AT(t, tensor_off[T_ST]);
    if (st == NULL || Py_TYPE(st) != storage_t)
        return 0; /* a lazily built storage, or none */
    PyObject *f[6] = {AT(t, tensor_off[T_SHAPE]), AT(t, tensor_off[T_STRIDE]), AT(t, tensor_off[T_OFFSET]),
                      AT(t, tensor_off[T_DTYPE]),  AT(st, st_nbytes),          AT(st, st_data)};
    for (int i = 0; i < 6; i++)
        if (f[i] == NULL)
            return 0;
    for (int i = 0; i < 5; i++)
        if (PUT(&k->parts, f[i]) < 0)
            return -1;
    if (PUT(&k->addrs, f[5]) < 0)
        return -1;
    if (k->device == Py_None) {
        PyObject *dev = AT(t, tensor_off[T_DEVICE]);
        if (dev == NULL || Py_TYPE(dev) != device_t || AT(dev, dev_index) == NULL)
            return 0;
        k->device = AT(dev, dev_index);
    }
    return 1;
}

/* a double's bytes, as struct.pack("d") gives them (aclnn._float_bits) */
static int put_bits(vec_t *parts, double d) { return PUT_NEW(parts, PyBytes_FromStringAndSize((const char *)&d, sizeof d)); }

/* a float by value, or by its bits when equality cannot key it (a zero, a NaN): 1, or -1 with an exception */
static int put_float(vec_t *parts, PyObject *v)
{
    double d = PyFloat_AS_DOUBLE(v);
    return (d == d && d != 0.0 ? PUT(parts, v) : put_bits(parts, d)) < 0 ? -1 : 1;
}

static inline int is_tensor(PyObject *a) { return Py_TYPE(a) == tensor_t || PyType_IsSubtype(Py_TYPE(a), tensor_t); }

/* one argument's parts: 1, 0 when the Python version must key the call, -1 with an exception */
static int key_arg(PyObject *a, callkey_t *k)
{
    PyTypeObject *cls = Py_TYPE(a);
    vec_t *parts = &k->parts;
    if (cls == tensor_t || PyType_IsSubtype(cls, tensor_t))
        return key_tensor(a, k);
    if (cls == scalar_t) {
        PyObject *v = AT(a, sc_value), *dt = AT(a, sc_dtype);
        if (v == NULL || dt == NULL)
            return 0;
        if (PUT(parts, dt) < 0 || PUT(parts, (PyObject *)Py_TYPE(v)) < 0)
            return -1;
        if (PyFloat_CheckExact(v))
            return put_float(parts, v);
        if (PyComplex_CheckExact(v)) {
            Py_complex c = PyComplex_AsCComplex(v);
            return put_bits(parts, c.real) < 0 || put_bits(parts, c.imag) < 0 ? -1 : 1;
        }
        return PUT(parts, v) < 0 ? -1 : 1;
    }
    if (a == Py_None || cls == &PyLong_Type || cls == &PyBool_Type || cls == &PyBytes_Type)
        return PUT(parts, a) < 0 ? -1 : 1;
    if (cls == int_array_t || cls == bool_array_t || cls == dtype_t) {
        PyObject *v = AT(a, cls == int_array_t ? ia_values : cls == bool_array_t ? ba_values : dt_value);
        return v == NULL ? 0 : PUT(parts, (PyObject *)cls) < 0 || PUT(parts, v) < 0 ? -1 : 1;
    }
    if (cls == &PyList_Type || cls == &PyTuple_Type) {
        Py_ssize_t m = PySequence_Fast_GET_SIZE(a);
        PyObject **items = PySequence_Fast_ITEMS(a);
        for (Py_ssize_t j = 0; j < m; j++) {
            int r = is_tensor(items[j]) ? key_tensor(items[j], k) : 0;
            if (r <= 0)
                return r;
        }
        k->listed = 1;
        return PUT_NEW(parts, PyLong_FromSsize_t(m)) < 0 ? -1 : 1;
    }
    if (cls == &PyFloat_Type)
        return PUT(parts, (PyObject *)&PyFloat_Type) < 0 ? -1 : put_float(parts, a);
    return 0; /* a raw ctypes argument: the Python version decides */
}

/* which tensor arguments share a storage is part of the geometry: the index of the first at each address */
static int key_sharing(callkey_t *k)
{
    vec_t *addrs = &k->addrs;
    Py_ssize_t na = addrs->n;
    int shared = 0;
    /* addresses compared as C integers while they fit (a foreach call's lists hold dozens) */
    unsigned long long small[INLINE], *at = na <= INLINE ? small : PyMem_Malloc(na * sizeof *at);
    int exact = at != NULL;
    for (Py_ssize_t i = 0; exact && i < na; i++) {
        int overflow = 0;
        at[i] = PyLong_CheckExact(addrs->v[i]) ? (unsigned long long)PyLong_AsLongLongAndOverflow(addrs->v[i], &overflow) : 0;
        exact = PyLong_CheckExact(addrs->v[i]) && !overflow && !PyErr_Occurred();
    }
    PyErr_Clear();
    for (Py_ssize_t i = 1; exact && i < na && !shared; i++)
        for (Py_ssize_t j = 0; j < i && !shared; j++)
            shared = at[i] == at[j];
    if (at != NULL && at != small)
        PyMem_Free(at);
    for (Py_ssize_t i = 1; !exact && i < na && !shared; i++)
        for (Py_ssize_t j = 0; j < i && !shared; j++)
            if ((shared = PyObject_RichCompareBool(addrs->v[i], addrs->v[j], Py_EQ)) < 0)
                return -1;
    if (!shared)
        return 0;
    PyObject *pattern = PyTuple_New(na), *first = PyDict_New();
    int bad = pattern == NULL || first == NULL;
    for (Py_ssize_t i = 0; !bad && i < na; i++) {
        PyObject *idx = PyLong_FromSsize_t(i);
        PyObject *at = idx == NULL ? NULL : PyDict_SetDefault(first, addrs->v[i], idx);
        Py_XDECREF(idx);
        bad = at == NULL;
        if (!bad)
            PyTuple_SET_ITEM(pattern, i, Py_NewRef(at));
    }
    Py_XDECREF(first);
    if (bad) {
        Py_XDECREF(pattern);
        return -1;
    }
    return PUT(&k->parts, shared_marker) < 0 || PUT_NEW(&k->parts, pattern) < 0 ? -1 : 0;
}

/* mirrors aclnn._plan_key into k (which the caller frees): 1 when keyed, 0 when the Python version must key the
   call, -1 with an exception */
static int make_key(PyObject *name, PyObject *args, PyObject *device, callkey_t *k)
{
    vec_init(&k->parts);
    vec_init(&k->addrs);
    k->device = device;
    k->listed = 0;
    if (PUT(&k->parts, name) < 0 || PUT(&k->parts, Py_None) < 0)
        return -1;
    Py_ssize_t n = PyTuple_GET_SIZE(args);
    for (Py_ssize_t i = 0; i < n; i++) {
        int r = key_arg(PyTuple_GET_ITEM(args, i), k);
        if (r <= 0)
            return r;
    }
    if (k->device == Py_None)
        return 0;
    Py_SETREF(k->parts.v[1], Py_NewRef(k->device));
    return key_sharing(k) < 0 ? -1 : 1;
}

static void key_free(callkey_t *k)
{
    vec_free(&k->parts);
    vec_free(&k->addrs);
}

/* a new tuple of the vector's items */
static PyObject *vec_tuple(vec_t *a)
{
    PyObject *t = PyTuple_New(a->n);
    for (Py_ssize_t i = 0; t != NULL && i < a->n; i++)
        PyTuple_SET_ITEM(t, i, Py_NewRef(a->v[i]));
    return t;
}

static PyObject *vec_list(vec_t *a)
{
    PyObject *l = PyList_New(a->n);
    for (Py_ssize_t i = 0; l != NULL && i < a->n; i++)
        PyList_SET_ITEM(l, i, Py_NewRef(a->v[i]));
    return l;
}

/* (key, addrs, device, listed[, plan]) for the Python version to go on from; plan: a reference taken, or NULL */
static PyObject *handed_over(PyObject *key, callkey_t *k, PyObject *plan)
{
    PyObject *addrs = vec_list(&k->addrs), *out = NULL;
    if (addrs != NULL)
        out = plan == NULL ? PyTuple_Pack(4, key, addrs, k->device, k->listed ? Py_True : Py_False)
                           : PyTuple_Pack(5, key, addrs, k->device, k->listed ? Py_True : Py_False, plan);
    Py_XDECREF(addrs);
    Py_XDECREF(plan);
    return out;
}

static PyObject *plan_key(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3 || !PyTuple_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "plan_key(name, args: tuple, device)");
        return NULL;
    }
    callkey_t k;
    PyObject *out = NULL, *key = NULL;
    int r = make_key(args[0], args[1], args[2], &k);
    if (r == 0)
        out = Py_NewRef(Py_False);
    else if (r > 0 && (key = vec_tuple(&k.parts)) != NULL)
        out = handed_over(key, &k, NULL);
    Py_XDECREF(key);
    key_free(&k);
    return out;
}

/* whether plan is a LaunchPlan whose addresses are the call's: 1, 0, or -1 with an exception */
static int same_addrs(PyObject *plan, vec_t *addrs)
{
    PyObject *their = Py_TYPE(plan) == plan_t ? AT(plan, plan_off[P_ADDRS]) : NULL;
    if (their == NULL || !PyList_CheckExact(their) || PyList_GET_SIZE(their) != addrs->n)
        return 0;
    for (Py_ssize_t i = 0; i < addrs->n; i++) {
        PyObject *x = PyList_GET_ITEM(their, i), *y = addrs->v[i];
        int eq = x == y ? 1 : PyObject_RichCompareBool(x, y, Py_EQ);
        if (eq <= 0)
            return eq;
    }
    return 1;
}

/* a handle held as a Python int (or None for NULL) */
static inline int as_ptr(PyObject *v, void **out)
{
    if (v == Py_None) {
        *out = NULL;
        return 0;
    }
    *out = PyLong_AsVoidPtr(v);
    return *out == NULL && PyErr_Occurred() ? -1 : 0;
}

/* LaunchPlans.sibling when it finds a plan kept for the call's addresses: that plan swaps places with *plan (1).
   0 leaves everything as it was for the Python version (none kept for these addresses, or another thread holds
   the lock); -1 with an exception. Nothing here runs Python code, so the swap is one step under the GIL. */
static int swap_sibling(PyObject *plans, PyObject *key, vec_t *addrs, PyObject **plan)
{
    PyObject *lock = PyObject_GetAttr(plans, s_lock);
    PyObject *held = lock == NULL ? NULL : PyObject_CallMethodNoArgs(lock, s_locked);
    Py_XDECREF(lock);
    if (held == NULL)
        return -1;
    int busy = PyObject_IsTrue(held);
    Py_DECREF(held);
    if (busy)
        return busy < 0 ? -1 : 0;
    PyObject *table = PyObject_GetAttr(plans, s_siblings);
    if (table == NULL)
        return -1;
    int found = 0;
    PyObject *kept = PyDict_CheckExact(table) ? PyDict_GetItemWithError(table, key) : NULL; /* borrowed */
    if (kept == NULL && PyErr_Occurred())
        found = -1;
    else if (kept != NULL && PyList_CheckExact(kept)) {
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(kept) && !found; i++) {
            PyObject *other = PyList_GET_ITEM(kept, i);
            found = same_addrs(other, addrs);
            if (found == 1) {
                PyList_SET_ITEM(kept, i, *plan); /* the list's reference and ours trade places */
                *plan = other;
            }
        }
    }
    Py_DECREF(table);
    return found;
}

/* plan back into plans.plans under key, as LaunchPlans.give: the Python method when the table is full or another
   thread planned the key meanwhile */
static int give_back(PyObject *plans, PyObject *key, PyObject *plan)
{
    PyObject *now = PyObject_GetAttr(plans, s_plans);
    if (now == NULL)
        return -1;
    PyObject *kept =
        PyDict_CheckExact(now) && PyDict_GET_SIZE(now) < plans_limit ? PyDict_SetDefault(now, key, plan) : NULL;
    Py_DECREF(now);
    if (kept == plan)
        return 0;
    if (PyErr_Occurred())
        return -1;
    PyObject *given = PyObject_CallMethodObjArgs(plans, s_give, key, plan, NULL);
    Py_XDECREF(given);
    return given == NULL ? -1 : 0;
}

/* what phase 2 of a plan needs */
typedef struct {
    uint64_t nbytes; /* the workspace */
    void *stream, *executor, *fn;
    PyObject *handle; /* the stream as the allocator takes it (owned) */
} launch_t;

/* 1 with l filled (l->handle the caller's) when the plan can be launched here: a LaunchPlan at the call's
   addresses, the thread bound to the device. 0 when the Python version launches it, -1 with an exception. */
static int ready(PyObject *plan, PyObject *tls, PyObject *device, PyObject *phase2, launch_t *l)
{
    PyObject *size = AT(plan, plan_off[P_SIZE]);
    if (size == NULL || !PyLong_CheckExact(size))
        return 0;
    if ((l->nbytes = PyLong_AsUnsignedLongLong(size)) == (uint64_t)-1 && PyErr_Occurred())
        return -1;
    PyObject *bound = PyObject_GetAttr(tls, s_bound);
    if (bound == NULL)
        return -1;
    int here = bound == device ? 1 : PyObject_RichCompareBool(bound, device, Py_EQ);
    Py_DECREF(bound);
    if (here <= 0)
        return here;
    PyObject *streams = PyObject_GetAttr(tls, s_streams), *handle = NULL;
    if (streams == NULL)
        return -1;
    if (PyDict_Check(streams) && PyDict_GET_SIZE(streams))
        handle = PyDict_GetItemWithError(streams, device);
    l->handle = Py_NewRef(handle != NULL ? handle : zero);
    Py_DECREF(streams);
    if ((handle == NULL && PyErr_Occurred()) || as_ptr(l->handle, &l->stream) < 0 ||
        as_ptr(AT(plan, plan_off[P_EXECUTOR]), &l->executor) < 0 || as_ptr(phase2, &l->fn) < 0) {
        Py_CLEAR(l->handle);
        return -1;
    }
    if (l->executor == NULL || l->fn == NULL) {
        Py_CLEAR(l->handle);
        return 0;
    }
    return 1;
}

/* phase 2 of a plan taken out of the table, with its workspace from the caching allocator (the GIL released
   during the call, as ctypes does), then the plan given back: None, (plan, status) when phase 2 failed, or
   NULL with an exception. An allocator error leaves the plan given back unlaunched. Takes the plan's reference. */
static PyObject *launch_taken(PyObject *plans, PyObject *key, PyObject *plan, PyObject *device, launch_t *l)
{
    PyObject *block = NULL;
    void *ws = NULL;
    if (l->nbytes) {
        PyObject *margs[3] = {AT(plan, plan_off[P_SIZE]), device, l->handle};
        block = PyObject_Vectorcall(ws_malloc, margs, 3, NULL);
        PyObject *ptr = block == NULL ? NULL : PyObject_GetAttr(block, s_ptr);
        int bad = ptr == NULL || as_ptr(ptr, &ws) < 0;
        Py_XDECREF(ptr);
        if (bad) { /* nothing launched: the plan stays good */
            PyObject *type, *value, *tb;
            PyErr_Fetch(&type, &value, &tb);
            if (block != NULL) {
                PyObject *r = PyObject_CallOneArg(ws_free, block);
                Py_XDECREF(r);
                Py_DECREF(block);
            }
            if (give_back(plans, key, plan) == 0)
                PyErr_Restore(type, value, tb);
            else
                Py_XDECREF(type), Py_XDECREF(value), Py_XDECREF(tb);
            Py_DECREF(plan);
            return NULL;
        }
    }
    int32_t status;
    Py_BEGIN_ALLOW_THREADS
    status = ((phase2_fn)l->fn)(ws, l->nbytes, l->executor, l->stream);
    Py_END_ALLOW_THREADS
    if (block != NULL) { /* stream-ordered: only later work on this stream can reuse it */
        PyObject *r = PyObject_CallOneArg(ws_free, block);
        Py_DECREF(block);
        if (r == NULL) {
            if (!status && give_back(plans, key, plan) < 0)
                PyErr_Clear(); /* the free's error is the one to raise */
            Py_DECREF(plan);
            return NULL;
        }
        Py_DECREF(r);
    }
    if (status)
        return Py_BuildValue("(Ni)", plan, (int)status);
    int r = give_back(plans, key, plan);
    Py_DECREF(plan);
    return r < 0 ? NULL : Py_NewRef(Py_None);
}

static PyObject *run_call(PyObject *plans, PyObject *name, PyObject *targs, PyObject *device, PyObject *phase2,
                          PyObject *tls)
{
    PyObject *key = NULL, *table = NULL, *out = NULL;
    callkey_t k;
    launch_t l = {0};
    int r = make_key(name, targs, device, &k);
    if (r <= 0) {
        out = r < 0 ? NULL : Py_NewRef(Py_False);
        goto done;
    }
    if ((key = vec_tuple(&k.parts)) == NULL || (table = PyObject_GetAttr(plans, s_plans)) == NULL)
        goto done;
    if (!PyDict_CheckExact(table)) {
        PyErr_SetString(PyExc_TypeError, "LaunchPlans.plans must be a dict");
        goto done;
    }
    PyObject *plan = PyDict_GetItemWithError(table, key); /* borrowed */
    if (plan == NULL) {
        if (!PyErr_Occurred())
            out = handed_over(key, &k, Py_NewRef(Py_None));
        goto done;
    }
    int same = same_addrs(plan, &k.addrs);
    if (same < 0 || (same && (r = ready(plan, tls, k.device, phase2, &l)) < 0))
        goto done;
    if (same && r && !l.nbytes) {
        /* the plain repeat: the plan stays in the table, and the GIL is held through the call, so no other thread
           can take the plan meanwhile (the Python version takes it out instead) */
        int32_t status = ((phase2_fn)l.fn)(NULL, 0, l.executor, l.stream);
        if (!status)
            out = Py_NewRef(Py_None);
        else if (PyDict_DelItem(table, key) == 0) /* a failed plan is the caller's to destroy */
            out = Py_BuildValue("(Oi)", plan, (int)status);
        goto done;
    }
    Py_INCREF(plan); /* taken out while it runs or while the Python version goes on with it */
    if (PyDict_DelItem(table, key) < 0) {
        Py_DECREF(plan);
        goto done;
    }
    if (!same && (same = swap_sibling(plans, key, &k.addrs, &plan)) > 0)
        r = ready(plan, tls, k.device, phase2, &l); /* l was not filled: the plan was at other addresses */
    if (same < 0 || (same && r < 0)) {
        Py_DECREF(plan);
        goto done;
    }
    if (same && r)
        out = launch_taken(plans, key, plan, k.device, &l);
    else
        out = handed_over(key, &k, plan);
done:
    Py_XDECREF(l.handle);
    Py_XDECREF(table);
    Py_XDECREF(key);
    key_free(&k);
    return out;
}

/* DescriptorCache.tensor_list's key: a tuple of (data, nbytes, shape, stride, offset, dtype) per tensor, or None
   for a list the Python version keys (a member that is not a tensor over a built Storage) */
static PyObject *list_key(PyObject *self, PyObject *ts)
{
    if (!PyList_CheckExact(ts) && !PyTuple_CheckExact(ts))
        Py_RETURN_NONE;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(ts);
    PyObject **items = PySequence_Fast_ITEMS(ts), *key = PyTuple_New(n);
    for (Py_ssize_t i = 0; key != NULL && i < n; i++) {
        PyObject *t = items[i], *st = is_tensor(t) ? AT(t, tensor_off[T_ST]) : NULL;
        PyObject *f[6] = {NULL};
        if (st != NULL && Py_TYPE(st) == storage_t) {
            f[0] = AT(st, st_data), f[1] = AT(st, st_nbytes);
            f[2] = AT(t, tensor_off[T_SHAPE]), f[3] = AT(t, tensor_off[T_STRIDE]);
            f[4] = AT(t, tensor_off[T_OFFSET]), f[5] = AT(t, tensor_off[T_DTYPE]);
        }
        int whole = 1;
        for (int j = 0; j < 6; j++)
            whole = whole && f[j] != NULL;
        if (!whole) {
            Py_DECREF(key);
            Py_RETURN_NONE;
        }
        PyObject *entry = PyTuple_Pack(6, f[0], f[1], f[2], f[3], f[4], f[5]);
        if (entry == NULL)
            Py_CLEAR(key);
        else
            PyTuple_SET_ITEM(key, i, entry);
    }
    return key;
}

static PyObject *run(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 6 || !PyTuple_Check(args[2])) {
        PyErr_SetString(PyExc_TypeError, "run(plans, name, args: tuple, device, phase2, tls)");
        return NULL;
    }
    return run_call(args[0], args[1], args[2], args[3], args[4], args[5]);
}

/* ---- Binary: a binary operator's out-of-place kernel (kernels/_common.binary) -------------------------- */

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject *op, *empty, *launch, *small, *scalar_for, *python;
    int with_alpha;
} Binary;

static PyObject *s_shape, *s_dtype, *one;

/* kernel(m, a, b[, alpha]): two plain Tensors into a new tensor of m's shape and dtype; anything else is the
   Python version's */
static PyObject *binary_call(Binary *k, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (kwnames != NULL || nargs < 3 || nargs > 3 + k->with_alpha || Py_TYPE(args[1]) != tensor_t ||
        Py_TYPE(args[2]) != tensor_t || AT(args[1], tensor_off[T_DEVICE]) == NULL)
        return PyObject_Vectorcall(k->python, args, nargsf, kwnames);
    PyObject *a = args[1], *b = args[2], *device = AT(a, tensor_off[T_DEVICE]);
    PyObject *shape = PyObject_GetAttr(args[0], s_shape), *dtype = shape ? PyObject_GetAttr(args[0], s_dtype) : NULL;
    PyObject *out = NULL, *scalar = NULL;
    if (dtype == NULL)
        goto done;
    PyObject *eargs[3] = {shape, dtype, device};
    if ((out = PyObject_Vectorcall(k->empty, eargs, 3, NULL)) == NULL)
        goto done;
    if (k->with_alpha) {
        PyObject *alpha = nargs == 4 ? args[3] : one;
        if (PyLong_CheckExact(alpha)) { /* an int's Scalar from the table, as the Python version looks it up */
            PyObject *key = PyTuple_Pack(2, alpha, dtype);
            scalar = key ? PyDict_GetItemWithError(k->small, key) : NULL;
            Py_XDECREF(key);
            Py_XINCREF(scalar);
        }
        if (scalar == NULL && !PyErr_Occurred()) {
            PyObject *sargs[2] = {alpha, dtype};
            scalar = PyObject_Vectorcall(k->scalar_for, sargs, 2, NULL);
        }
        if (scalar == NULL)
            goto fail;
    }
    PyObject *largs[5] = {k->op, a, b, scalar != NULL ? scalar : out, out};
    PyObject *r = PyObject_Vectorcall(k->launch, largs, scalar != NULL ? 5 : 4, NULL);
    if (r == NULL)
        goto fail;
    Py_DECREF(r);
    goto done;
fail:
    Py_CLEAR(out);
done:
    Py_XDECREF(scalar);
    Py_XDECREF(shape);
    Py_XDECREF(dtype);
    return out;
}

static PyObject *Binary_new(PyTypeObject *tp, PyObject *args, PyObject *kw)
{
    PyObject *v[6];
    int with_alpha;
    if (!PyArg_ParseTuple(args, "UpOOO!OO:Binary", &v[0], &with_alpha, &v[1], &v[2], &PyDict_Type, &v[3], &v[4], &v[5]))
        return NULL;
    if (tensor_t == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "mindtorch_npu.native._launch.setup() was not called");
        return NULL;
    }
    Binary *k = (Binary *)tp->tp_alloc(tp, 0);
    if (k == NULL)
        return NULL;
    PyObject **slots[6] = {&k->op, &k->empty, &k->launch, &k->small, &k->scalar_for, &k->python};
    for (int i = 0; i < 6; i++)
        *slots[i] = Py_NewRef(v[i]);
    k->with_alpha = with_alpha;
    k->vectorcall = (vectorcallfunc)binary_call;
    return (PyObject *)k;
}

FIELDS_GC(Binary, op, 6)

static PyMemberDef binary_members[] = {
    {"python", T_OBJECT_EX, offsetof(Binary, python), READONLY, "the Python version (the reference)"},
    {NULL},
};

CALLABLE_TYPE(Binary, "mindtorch_npu.native._launch.Binary",
              "A binary operator's out-of-place kernel in C: kernel(m, a, b[, alpha]).", binary_members);

/* ---- Unary: a unary operator's out-of-place kernel (kernels/pointwise._unary over _common.run) ------------ */

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject *op, *through, *empty, *launch, *python;
} Unary;

/* kernel(m, a): a plain Tensor the operator takes in its own dtype and writes in m's (the `through` table says
   so, once the Python version filled it), into a new tensor of m's shape; anything else is the Python version's */
static PyObject *unary_call(Unary *k, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    if (kwnames != NULL || PyVectorcall_NARGS(nargsf) != 2 || Py_TYPE(args[1]) != tensor_t)
        return PyObject_Vectorcall(k->python, args, nargsf, kwnames);
    PyObject *a = args[1], *adt = AT(a, tensor_off[T_DTYPE]), *device = AT(a, tensor_off[T_DEVICE]);
    PyObject *dtype = PyObject_GetAttr(args[0], s_dtype), *key = NULL, *out = NULL, *shape = NULL;
    if (dtype == NULL)
        return NULL;
    if (adt == NULL || device == NULL || (key = PyTuple_Pack(3, k->op, adt, dtype)) == NULL)
        goto python;
    PyObject *dtypes = PyDict_GetItemWithError(k->through, key); /* borrowed */
    if (dtypes == NULL && PyErr_Occurred())
        goto done;
    if (dtypes == NULL || !PyTuple_CheckExact(dtypes) || PyTuple_GET_SIZE(dtypes) != 2 ||
        PyTuple_GET_ITEM(dtypes, 0) != adt || PyTuple_GET_ITEM(dtypes, 1) != dtype)
        goto python; /* a cast on the way in or out, or a pair not seen yet */
    if ((shape = PyObject_GetAttr(args[0], s_shape)) == NULL)
        goto done;
    PyObject *eargs[3] = {shape, dtype, device};
    if ((out = PyObject_Vectorcall(k->empty, eargs, 3, NULL)) == NULL)
        goto done;
    PyObject *largs[3] = {k->op, a, out};
    PyObject *r = PyObject_Vectorcall(k->launch, largs, 3, NULL);
    if (r == NULL)
        Py_CLEAR(out);
    Py_XDECREF(r);
    goto done;
python:
    PyErr_Clear();
    out = PyObject_Vectorcall(k->python, args, nargsf, kwnames);
done:
    Py_XDECREF(shape);
    Py_XDECREF(key);
    Py_DECREF(dtype);
    return out;
}

static PyObject *Unary_new(PyTypeObject *tp, PyObject *args, PyObject *kw)
{
    PyObject *v[5];
    if (!PyArg_ParseTuple(args, "UO!OOO:Unary", &v[0], &PyDict_Type, &v[1], &v[2], &v[3], &v[4]))
        return NULL;
    if (tensor_t == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "mindtorch_npu.native._launch.setup() was not called");
        return NULL;
    }
    Unary *k = (Unary *)tp->tp_alloc(tp, 0);
    if (k == NULL)
        return NULL;
    PyObject **slots[5] = {&k->op, &k->through, &k->empty, &k->launch, &k->python};
    for (int i = 0; i < 5; i++)
        *slots[i] = Py_NewRef(v[i]);
    k->vectorcall = (vectorcallfunc)unary_call;
    return (PyObject *)k;
}

FIELDS_GC(Unary, op, 5)

static PyMemberDef unary_members[] = {
    {"python", T_OBJECT_EX, offsetof(Unary, python), READONLY, "the Python version (the reference)"},
    {NULL},
};

CALLABLE_TYPE(Unary, "mindtorch_npu.native._launch.Unary",
              "A unary operator's out-of-place kernel in C: kernel(m, a).", unary_members);

/* ---- CurrentStream: Runtime.current_stream ---------------------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject *tls, *fallback;
} CurrentStream;

/* current_stream(index): the thread's stream handle on the device, 0 (the default stream) when it set none */
static PyObject *current_stream_call(CurrentStream *c, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    if (PyVectorcall_NARGS(nargsf) != 1 || kwnames != NULL)
        return PyObject_Vectorcall(c->fallback, args, nargsf, kwnames);
    PyObject *streams = PyObject_GetAttr(c->tls, s_streams), *handle = NULL;
    if (streams == NULL)
        return NULL;
    if (streams != Py_None && !PyDict_CheckExact(streams)) {
        Py_DECREF(streams);
        return PyObject_Vectorcall(c->fallback, args, nargsf, kwnames);
    }
    if (streams != Py_None && PyDict_GET_SIZE(streams))
        handle = PyDict_GetItemWithError(streams, args[0]);
    PyObject *r = handle != NULL ? handle : PyErr_Occurred() ? NULL : zero;
    Py_XINCREF(r);
    Py_DECREF(streams);
    return r;
}

static PyObject *CurrentStream_new(PyTypeObject *tp, PyObject *args, PyObject *kw)
{
    PyObject *tls, *fallback;
    if (!PyArg_ParseTuple(args, "OO:CurrentStream", &tls, &fallback))
        return NULL;
    CurrentStream *c = (CurrentStream *)tp->tp_alloc(tp, 0);
    if (c == NULL)
        return NULL;
    c->tls = Py_NewRef(tls), c->fallback = Py_NewRef(fallback);
    c->vectorcall = (vectorcallfunc)current_stream_call;
    return (PyObject *)c;
}

FIELDS_GC(CurrentStream, tls, 2)

CALLABLE_TYPE(CurrentStream, "mindtorch_npu.native._launch.CurrentStream",
              "Runtime.current_stream in C: current_stream(index).", NULL);

/* ---- Launcher: aclnn.launch --------------------------------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject *globals; /* aclnn's namespace: _NATIVE is read from it per call, as the Python version does */
    PyObject *native;  /* this module: run here without a call through its attribute */
    PyObject *gated, *gate, *plans, *runtime, *tls, *go_on, *run_py;
} Launcher;

static PyObject *s_native, *s_enabled, *s_possible, *s_run, *s_device;

/* 1 when _NATIVE is set and PLANS.enabled and RUNTIME.plans_possible, 0 when not, -1 on error */
static int plans_on(Launcher *L, PyObject **native)
{
    *native = PyDict_GetItemWithError(L->globals, s_native);
    if (*native == NULL)
        return PyErr_Occurred() ? -1 : 0;
    if (*native == Py_None)
        return 0;
    PyObject *objs[2] = {L->plans, L->runtime}, *names[2] = {s_enabled, s_possible};
    for (int i = 0; i < 2; i++) {
        PyObject *v = PyObject_GetAttr(objs[i], names[i]);
        int on = v == NULL ? -1 : PyObject_IsTrue(v);
        Py_XDECREF(v);
        if (on <= 0)
            return on;
    }
    return 1;
}

static PyObject *launcher_call(Launcher *L, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    PyObject *device = Py_None;
    for (Py_ssize_t i = 0; kwnames != NULL && i < PyTuple_GET_SIZE(kwnames); i++) {
        PyObject *kw = PyTuple_GET_ITEM(kwnames, i);
        int is_device = PyUnicode_Compare(kw, s_device) == 0;
        if (!is_device) {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_TypeError, "launch() got an unexpected keyword argument '%S'", kw);
            return NULL;
        }
        device = args[nargs + i];
    }
    if (nargs < 1) {
        PyErr_SetString(PyExc_TypeError, "launch() missing 1 required positional argument: 'name'");
        return NULL;
    }
    PyObject *name = args[0], *fns = PyDict_GetItemWithError(L->gated, name), *native, *out = NULL;
    if (fns != NULL)
        Py_INCREF(fns);
    else if (PyErr_Occurred() || (fns = PyObject_CallOneArg(L->gate, name)) == NULL)
        return NULL;
    PyObject *targs = PyTuple_New(nargs - 1);
    if (targs == NULL)
        goto done;
    for (Py_ssize_t i = 1; i < nargs; i++)
        PyTuple_SET_ITEM(targs, i - 1, Py_NewRef(args[i]));
    int on = plans_on(L, &native);
    if (on < 0)
        goto done;
    if (!on) {
        PyObject *rargs[5] = {name, fns, targs, device, Py_True};
        out = PyObject_Vectorcall(L->run_py, rargs, 5, NULL);
        goto done;
    }
    if (!PyTuple_Check(fns) || PyTuple_GET_SIZE(fns) < 3) {
        PyErr_SetString(PyExc_TypeError, "launch: an operator's bound functions are not a tuple of three");
        goto done;
    }
    PyObject *phase2 = PyTuple_GET_ITEM(fns, 2), *taken;
    if (native == L->native)
        taken = run_call(L->plans, name, targs, device, phase2, L->tls);
    else {
        PyObject *nargs_[7] = {native, L->plans, name, targs, device, phase2, L->tls};
        taken = PyObject_VectorcallMethod(s_run, nargs_, 7 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
    }
    if (taken == NULL)
        goto done;
    if (taken == Py_None)
        out = taken;
    else {
        PyObject *gargs[6] = {name, fns, targs, device, Py_True, taken};
        out = PyObject_Vectorcall(L->go_on, gargs, 6, NULL);
        Py_DECREF(taken);
    }
done:
    Py_XDECREF(targs);
    Py_DECREF(fns);
    if (out == NULL)
        return NULL;
    Py_DECREF(out);
    Py_RETURN_NONE;
}

static PyObject *Launcher_new(PyTypeObject *tp, PyObject *args, PyObject *kw)
{
    PyObject *v[9];
    if (!PyArg_ParseTuple(args, "O!OO!OOOOOO:Launcher", &PyDict_Type, &v[0], &v[1], &PyDict_Type, &v[2], &v[3], &v[4],
                          &v[5], &v[6], &v[7], &v[8]))
        return NULL;
    Launcher *L = (Launcher *)tp->tp_alloc(tp, 0);
    if (L == NULL)
        return NULL;
    PyObject **slots[9] = {&L->globals, &L->native, &L->gated, &L->gate, &L->plans, &L->runtime, &L->tls, &L->go_on,
                           &L->run_py};
    for (int i = 0; i < 9; i++)
        *slots[i] = Py_NewRef(v[i]);
    L->vectorcall = (vectorcallfunc)launcher_call;
    return (PyObject *)L;
}

FIELDS_GC(Launcher, globals, 9)

CALLABLE_TYPE(Launcher, "mindtorch_npu.native._launch.Launcher",
              "aclnn.launch in C: launch(name, *args, device=None).", NULL);

static PyMethodDef methods[] = {
    {"setup", setup, METH_VARARGS, "Learn the slots of the classes a launch reads."},
    {"plan_key", (PyCFunction)(void (*)(void))plan_key, METH_FASTCALL, "aclnn._plan_key, or False."},
    {"run", (PyCFunction)(void (*)(void))run, METH_FASTCALL, "aclnn._run's plain repeat, or where it goes on."},
    {"list_key", list_key, METH_O, "DescriptorCache.tensor_list's key, or None."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "mindtorch_npu.native._launch",
    .m_size = -1,
    .m_methods = methods,
};

PyMODINIT_FUNC PyInit__launch(void)
{
    s_plans = PyUnicode_InternFromString("plans");
    s_bound = PyUnicode_InternFromString("bound");
    s_streams = PyUnicode_InternFromString("streams");
    s_give = PyUnicode_InternFromString("give");
    s_lock = PyUnicode_InternFromString("lock");
    s_locked = PyUnicode_InternFromString("locked");
    s_siblings = PyUnicode_InternFromString("siblings");
    s_ptr = PyUnicode_InternFromString("ptr");
    s_shape = PyUnicode_InternFromString("shape");
    s_dtype = PyUnicode_InternFromString("dtype");
    one = PyLong_FromLong(1);
    if (s_shape == NULL || s_dtype == NULL || one == NULL)
        return NULL;
    s_native = PyUnicode_InternFromString("_NATIVE");
    s_enabled = PyUnicode_InternFromString("enabled");
    s_possible = PyUnicode_InternFromString("plans_possible");
    s_run = PyUnicode_InternFromString("run");
    s_device = PyUnicode_InternFromString("device");
    zero = PyLong_FromLong(0);
    if (s_plans == NULL || s_bound == NULL || s_streams == NULL || s_give == NULL || s_lock == NULL ||
        s_locked == NULL || s_siblings == NULL || s_ptr == NULL || zero == NULL || s_native == NULL ||
        s_enabled == NULL || s_possible == NULL || s_run == NULL || s_device == NULL ||
        PyType_Ready(&LauncherType) < 0 || PyType_Ready(&CurrentStreamType) < 0 || PyType_Ready(&BinaryType) < 0 ||
        PyType_Ready(&UnaryType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    PyTypeObject *types[4] = {&LauncherType, &CurrentStreamType, &BinaryType, &UnaryType};
    if (add_types(m, types, 4) < 0)
        Py_CLEAR(m);
    return m;
}
