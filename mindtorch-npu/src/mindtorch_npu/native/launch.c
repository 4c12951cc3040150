/* Compiled twin of the launch path's common case in mindtorch_npu.aclnn (the Python versions are the reference).

   setup(tensor, storage, device, scalar, int_array, bool_array, dtype_arg, plan, shared, limit, malloc, free_block)
       learns where these classes keep their slots, the marker of a key's sharing pattern, how many plans
       LaunchPlans keeps before it retires a generation, and the allocator's workspace calls
   plan_key(name, args, device)
       aclnn._plan_key's (key, addresses, device, listed), or False for a call it leaves to the Python version
       (an argument of another kind, no device)
   run(plans, name, args, device, phase2, tls)
       aclnn._run up to its plain repeat: with the call's key taken from plans.plans, a plan at the same
       addresses (or one of its siblings kept for them, which then swap places) on the thread's bound device is
       launched by calling phase 2 (the address of aclnn<name>) here, with its workspace from the allocator, and
       given back: None. Otherwise what the Python path goes on from: False (no key), (key, addresses, device,
       listed, plan or None), or (plan, status) when phase 2 failed (the plan is then the caller's to destroy).
       An error of the allocator is raised with the plan given back (nothing was launched).

   Built by mindtorch_npu/native/build.py; nothing here is required: without it the Python versions run. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <structmember.h>

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

#define AT(obj, off) (*(PyObject **)((char *)(obj) + (off)))

/* the offset of the object slot `name` of type tp, or -1 with TypeError set */
static Py_ssize_t slot_of(PyTypeObject *tp, const char *name)
{
    PyObject *d = PyDict_GetItemString(tp->tp_dict, name); /* borrowed */
    if (d == NULL || Py_TYPE(d) != &PyMemberDescr_Type || ((PyMemberDescrObject *)d)->d_member->type != T_OBJECT_EX) {
        PyErr_Format(PyExc_TypeError, "%s has no slot %s", tp->tp_name, name);
        return -1;
    }
    return ((PyMemberDescrObject *)d)->d_member->offset;
}

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

static inline int put(PyObject *list, PyObject *v) { return v == NULL ? -1 : PyList_Append(list, v); }

/* a tensor's five key fields and its storage address; 1 when done, 0 when the Python version must key it */
static int key_tensor(PyObject *t, PyObject *parts, PyObject *addrs, PyObject **device)
{
    PyObject *st = AT(t, tensor_off[T_ST]);
    if (st == NULL || Py_TYPE(st) != storage_t)
        return 0; /* a lazily built storage, or none */
    PyObject *data = AT(st, st_data), *nbytes = AT(st, st_nbytes);
    PyObject *f[5] = {AT(t, tensor_off[T_SHAPE]), AT(t, tensor_off[T_STRIDE]), AT(t, tensor_off[T_OFFSET]),
                      AT(t, tensor_off[T_DTYPE]), nbytes};
    for (int i = 0; i < 5; i++)
        if (f[i] == NULL || PyList_Append(parts, f[i]) < 0)
            return f[i] == NULL ? 0 : -1;
    if (data == NULL || PyList_Append(addrs, data) < 0)
        return data == NULL ? 0 : -1;
    if (*device == Py_None) {
        PyObject *dev = AT(t, tensor_off[T_DEVICE]);
        if (dev == NULL || Py_TYPE(dev) != device_t || AT(dev, dev_index) == NULL)
            return 0;
        *device = AT(dev, dev_index);
    }
    return 1;
}

/* a double's bytes, as struct.pack("d") gives them (aclnn._float_bits) */
static int put_bits(PyObject *parts, double d)
{
    PyObject *b = PyBytes_FromStringAndSize((const char *)&d, sizeof d);
    int r = b == NULL ? -1 : PyList_Append(parts, b);
    Py_XDECREF(b);
    return r;
}

/* a float by value, or by its bits when equality cannot key it (a zero, a NaN): 1, or -1 with an exception */
static int put_float(PyObject *parts, PyObject *v)
{
    double d = PyFloat_AS_DOUBLE(v);
    return (d == d && d != 0.0 ? PyList_Append(parts, v) : put_bits(parts, d)) < 0 ? -1 : 1;
}

/* mirrors aclnn._plan_key: 1 with *key_out set to (key, addrs, device, listed), 0 when the Python version must
   key the call, -1 with an exception */
static int make_key(PyObject *name, PyObject *args, PyObject *device, PyObject **key_out)
{
    PyObject *parts = PyList_New(2), *addrs = PyList_New(0);
    int listed = 0, ok = -1;
    if (parts == NULL || addrs == NULL)
        goto done;
    Py_INCREF(name);
    PyList_SET_ITEM(parts, 0, name);
    Py_INCREF(Py_None);
    PyList_SET_ITEM(parts, 1, Py_None);
    Py_ssize_t n = PyTuple_GET_SIZE(args);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *a = PyTuple_GET_ITEM(args, i);
        PyTypeObject *cls = Py_TYPE(a);
        int r = 1;
        if (cls == tensor_t || PyType_IsSubtype(cls, tensor_t)) {
            r = key_tensor(a, parts, addrs, &device);
        } else if (cls == scalar_t) {
            PyObject *v = AT(a, sc_value), *dt = AT(a, sc_dtype);
            if (v == NULL || dt == NULL)
                r = 0;
            else if (PyList_Append(parts, dt) < 0 || PyList_Append(parts, (PyObject *)Py_TYPE(v)) < 0)
                r = -1;
            else if (PyFloat_CheckExact(v))
                r = put_float(parts, v);
            else if (PyComplex_CheckExact(v)) {
                Py_complex c = PyComplex_AsCComplex(v);
                r = put_bits(parts, c.real) < 0 || put_bits(parts, c.imag) < 0 ? -1 : 1;
            } else
                r = PyList_Append(parts, v) < 0 ? -1 : 1;
        } else if (a == Py_None || cls == &PyLong_Type || cls == &PyBool_Type || cls == &PyBytes_Type) {
            r = PyList_Append(parts, a) < 0 ? -1 : 1;
        } else if (cls == int_array_t || cls == bool_array_t) {
            PyObject *v = AT(a, cls == int_array_t ? ia_values : ba_values);
            r = v == NULL ? 0 : (PyList_Append(parts, (PyObject *)cls) < 0 || PyList_Append(parts, v) < 0) ? -1 : 1;
        } else if (cls == &PyList_Type || cls == &PyTuple_Type) {
            Py_ssize_t m = PySequence_Fast_GET_SIZE(a);
            PyObject **items = PySequence_Fast_ITEMS(a);
            for (Py_ssize_t j = 0; j < m && r == 1; j++) {
                PyTypeObject *tc = Py_TYPE(items[j]);
                r = (tc == tensor_t || PyType_IsSubtype(tc, tensor_t)) ? key_tensor(items[j], parts, addrs, &device) : 0;
            }
            if (r == 1) {
                PyObject *len = PyLong_FromSsize_t(m);
                r = put(parts, len) < 0 ? -1 : 1;
                Py_XDECREF(len);
                listed = 1;
            }
        } else if (cls == dtype_t) {
            PyObject *v = AT(a, dt_value);
            r = v == NULL ? 0 : (PyList_Append(parts, (PyObject *)cls) < 0 || PyList_Append(parts, v) < 0) ? -1 : 1;
        } else if (cls == &PyFloat_Type) {
            r = PyList_Append(parts, (PyObject *)&PyFloat_Type) < 0 ? -1 : put_float(parts, a);
        } else {
            r = 0; /* a raw ctypes argument: the Python version decides */
        }
        if (r <= 0) {
            ok = r;
            goto done;
        }
    }
    if (device == Py_None) {
        ok = 0;
        goto done;
    }
    Py_INCREF(device);
    Py_SETREF(PyList_GET_ITEM(parts, 1), device);
    /* which tensor arguments share a storage is part of the geometry: the index of the first at each address */
    Py_ssize_t na = PyList_GET_SIZE(addrs);
    PyObject *pattern = NULL;
    for (Py_ssize_t i = 1; i < na && pattern == NULL; i++)
        for (Py_ssize_t j = 0; j < i; j++) {
            int eq = PyObject_RichCompareBool(PyList_GET_ITEM(addrs, i), PyList_GET_ITEM(addrs, j), Py_EQ);
            if (eq < 0)
                goto done;
            if (eq) {
                pattern = PyTuple_New(na);
                break;
            }
        }
    if (pattern != NULL) {
        PyObject *first = PyDict_New();
        for (Py_ssize_t i = 0; first != NULL && i < na; i++) {
            PyObject *idx = PyLong_FromSsize_t(i);
            PyObject *at = idx == NULL ? NULL : PyDict_SetDefault(first, PyList_GET_ITEM(addrs, i), idx);
            Py_XDECREF(idx);
            if (at == NULL) {
                Py_CLEAR(first);
                break;
            }
            Py_INCREF(at);
            PyTuple_SET_ITEM(pattern, i, at);
        }
        int bad = first == NULL || PyList_Append(parts, shared_marker) < 0 || PyList_Append(parts, pattern) < 0;
        Py_XDECREF(first);
        Py_DECREF(pattern);
        if (bad)
            goto done;
    }
    PyObject *key = PyList_AsTuple(parts);
    if (key == NULL)
        goto done;
    *key_out = Py_BuildValue("(NOOO)", key, addrs, device, listed ? Py_True : Py_False);
    ok = *key_out == NULL ? -1 : 1;
done:
    Py_XDECREF(parts);
    Py_XDECREF(addrs);
    return ok;
}

static PyObject *plan_key(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3 || !PyTuple_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "plan_key(name, args: tuple, device)");
        return NULL;
    }
    PyObject *out = NULL;
    int r = make_key(args[0], args[1], args[2], &out);
    if (r < 0)
        return NULL;
    if (r == 0)
        Py_RETURN_FALSE;
    return out;
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

/* 1 when plan is a LaunchPlan at `addrs`, 0 when not, -1 with an exception */
static int same_addrs(PyObject *plan, PyObject *addrs)
{
    if (Py_TYPE(plan) != plan_t || AT(plan, plan_off[P_ADDRS]) == NULL)
        return 0;
    return PyObject_RichCompareBool(addrs, AT(plan, plan_off[P_ADDRS]), Py_EQ);
}

/* LaunchPlans.sibling when it finds a plan kept for `addrs`: that plan swaps places with *plan (1). 0 leaves
   everything as it was for the Python version (none kept for these addresses, or another thread holds the
   lock); -1 with an exception. Nothing here runs Python code, so the swap is one step under the GIL. */
static int swap_sibling(PyObject *plans, PyObject *key, PyObject *addrs, PyObject **plan)
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

static PyObject *run(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 6 || !PyTuple_Check(args[2])) {
        PyErr_SetString(PyExc_TypeError, "run(plans, name, args: tuple, device, phase2, tls)");
        return NULL;
    }
    PyObject *plans = args[0], *tls = args[5], *planned = NULL;
    int r = make_key(args[1], args[2], args[3], &planned);
    if (r <= 0)
        return r < 0 ? NULL : Py_NewRef(Py_False);
    PyObject *key = PyTuple_GET_ITEM(planned, 0), *addrs = PyTuple_GET_ITEM(planned, 1);
    PyObject *device = PyTuple_GET_ITEM(planned, 2), *out = NULL;
    PyObject *table = PyObject_GetAttr(plans, s_plans);
    if (table == NULL || !PyDict_CheckExact(table))
        goto fail;
    PyObject *plan = PyDict_GetItemWithError(table, key); /* borrowed */
    if (plan == NULL) {
        if (PyErr_Occurred())
            goto fail;
        out = Py_BuildValue("(OOOOO)", key, addrs, device, PyTuple_GET_ITEM(planned, 3), Py_None);
        goto done;
    }
    Py_INCREF(plan);
    if (PyDict_DelItem(table, key) < 0) { /* taken out while it runs: no other thread refreshes it meanwhile */
        Py_DECREF(plan);
        goto fail;
    }
    int plain = same_addrs(plan, addrs);
    if (plain == 0) /* a plan kept for these addresses takes its place (LaunchPlans.sibling) */
        plain = swap_sibling(plans, key, addrs, &plan);
    if (plain < 0)
        goto fail_plan;
    uint64_t nbytes = 0; /* the plan's workspace */
    if (plain) {
        PyObject *size = AT(plan, plan_off[P_SIZE]);
        plain = size != NULL && PyLong_CheckExact(size);
        if (plain && (nbytes = PyLong_AsUnsignedLongLong(size)) == (uint64_t)-1 && PyErr_Occurred())
            goto fail_plan;
    }
    if (plain) { /* and the device bound to this thread */
        PyObject *bound = PyObject_GetAttr(tls, s_bound);
        if (bound == NULL)
            goto fail_plan;
        plain = PyObject_RichCompareBool(bound, device, Py_EQ);
        Py_DECREF(bound);
        if (plain < 0)
            goto fail_plan;
    }
    void *stream = NULL, *executor = NULL, *fn = NULL;
    PyObject *handle = NULL; /* the stream as the allocator takes it */
    if (plain) {
        PyObject *streams = PyObject_GetAttr(tls, s_streams);
        if (streams == NULL)
            goto fail_plan;
        if (PyDict_Check(streams) && PyDict_GET_SIZE(streams))
            handle = PyDict_GetItemWithError(streams, device);
        Py_XINCREF(handle);
        Py_DECREF(streams);
        if (handle == NULL && PyErr_Occurred())
            goto fail_plan;
        if (handle == NULL)
            handle = Py_NewRef(zero);
        int bad = as_ptr(handle, &stream) < 0 || as_ptr(AT(plan, plan_off[P_EXECUTOR]), &executor) < 0 ||
                  as_ptr(args[4], &fn) < 0;
        if (bad) {
            Py_DECREF(handle);
            goto fail_plan;
        }
        plain = executor != NULL && fn != NULL;
    }
    if (!plain) {
        Py_XDECREF(handle);
        out = Py_BuildValue("(OOOON)", key, addrs, device, PyTuple_GET_ITEM(planned, 3), plan);
        goto done;
    }
    PyObject *block = NULL; /* the workspace, from the caching allocator on the launch's stream */
    void *ws = NULL;
    if (nbytes) {
        PyObject *margs[3] = {AT(plan, plan_off[P_SIZE]), device, handle};
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
            Py_DECREF(handle);
            if (give_back(plans, key, plan) == 0)
                PyErr_Restore(type, value, tb);
            else {
                Py_XDECREF(type), Py_XDECREF(value), Py_XDECREF(tb);
            }
            Py_DECREF(plan);
            goto fail;
        }
    }
    Py_DECREF(handle);
    int32_t status;
    Py_BEGIN_ALLOW_THREADS
    status = ((phase2_fn)fn)(ws, nbytes, executor, stream);
    Py_END_ALLOW_THREADS
    if (block != NULL) { /* stream-ordered: only later work on this stream can reuse it */
        PyObject *r = PyObject_CallOneArg(ws_free, block);
        Py_DECREF(block);
        if (r == NULL) {
            if (!status && give_back(plans, key, plan) < 0)
                PyErr_Clear(); /* the free's error is the one to raise */
            goto fail_plan;
        }
        Py_DECREF(r);
    }
    if (status) {
        out = Py_BuildValue("(Ni)", plan, (int)status);
        goto done;
    }
    if (give_back(plans, key, plan) < 0)
        goto fail_plan;
    Py_DECREF(plan);
    out = Py_NewRef(Py_None);
    goto done;
fail_plan:
    Py_DECREF(plan);
fail:
    out = NULL;
done:
    Py_XDECREF(table);
    Py_DECREF(planned);
    return out;
}

static PyMethodDef methods[] = {
    {"setup", setup, METH_VARARGS, "Learn the slots of the classes a launch reads."},
    {"plan_key", (PyCFunction)(void (*)(void))plan_key, METH_FASTCALL, "aclnn._plan_key, or False."},
    {"run", (PyCFunction)(void (*)(void))run, METH_FASTCALL, "aclnn._run's plain repeat, or where it goes on."},
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
    zero = PyLong_FromLong(0);
    if (s_plans == NULL || s_bound == NULL || s_streams == NULL || s_give == NULL || s_lock == NULL ||
        s_locked == NULL || s_siblings == NULL || s_ptr == NULL || zero == NULL)
        return NULL;
    return PyModule_Create(&module);
}
