/* Compiled twins of hot-path helpers in mindtorch._tensor (the Python versions are the reference).

   make_lazy_tensor(host, shape, stride, dtype, device)
       a Tensor over a host array, as _tensor.make_lazy_tensor builds it
   make_tensor(storage, shape, stride, offset, dtype, device, cls=Tensor)
       a tensor around a storage, as _tensor.make_tensor builds it
   host_result(device, allocator, limit, host_dtypes, general, a, dtype=None)
       a Tensor over the small C-contiguous ndarray `a`, counted in allocator.lazy, or general(a, dtype);
       as _tensor.host_result
   setup(tensor_type, ndarray_type, c_probe, f_probe)
       learns where Tensor keeps its slots and checks the ndarray layout this file reads on two
       probe arrays; returns whether host_result may read ndarrays directly
   setup_saved(saved_type, counter_type)
       learns where autograd's SavedTensor and VersionCounter keep their slots
   saved_input(t)
       a SavedTensor of the tensor t at its current version, as autograd.graph._saved_input makes it
   set_new(fn)
       fn(Tensor) builds each new tensor instead of the type's allocator (None: the allocator);
       the Python side sets it while tensors must be marked (inference mode)
   setup_cat(meta_type, general)
       learns where TensorMeta keeps its slots, and cat's shape rule in Python
   setup_view(general)
       view_strides' rule in Python (_geometry), for what the compiled one hands on
   view_strides(old_shape, old_stride, new_shape)
       _geometry.view_strides for tuples of plain ints; anything else is general(...)
   cat_meta(tensors, dim=0)
       cat's shape rule (ops/indexing.py's _cat_meta) for tensors of one dtype and rank, matching
       but along dim; anything else is general(tensors, dim), which keeps every check and message
   StorageBase(device, nbytes, data, allocator)
       Storage's slots, constructor and finalizer (_storage._PyStorageBase): nbytes is kept as the int
       subclass setup_storage(byte_count) names; a dying storage calls allocator.free(storage) unless the
       allocator is None, with no Python frame of its own

   Built by mindtorch._accel_build; nothing here is required: without it the Python versions run. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

/* The leading fields of NumPy's array object (numpy/ndarraytypes.h, PyArrayObject_fields): public
   and unchanged across NumPy 1.x and 2.x. setup() checks them on probe arrays before use. */
typedef struct {
    PyObject_HEAD
    char *data;
    int nd;
    Py_ssize_t *dimensions;
    Py_ssize_t *strides;
    PyObject *base;
    PyObject *descr;
    int flags;
} host_array;

#define HOST_C_CONTIGUOUS 0x0001

enum { S_ST, S_SHAPE, S_STRIDE, S_OFFSET, S_DTYPE, S_DEVICE, S_NP, S_RG, S_GRAD_FN, S_VERSION, S_BASE, N_SLOTS };
static const char *SLOT_NAMES[N_SLOTS] = {
    "_st", "_shape", "_stride", "_offset", "dtype", "device", "_np", "_requires_grad", "_grad_fn", "_version", "_base",
};

static PyTypeObject *tensor_type = NULL;
static PyTypeObject *ndarray_type = NULL; /* NULL: host_result never reads arrays directly */
static Py_ssize_t slot_offset[N_SLOTS];
static PyObject *new_fn = NULL; /* NULL: tensor_type->tp_alloc */
static PyObject *zero = NULL;
static PyObject *s_itemsize = NULL, *s_lazy = NULL, *s_sweep_at = NULL, *s_sweep = NULL;

#define SLOT(t, i) (*(PyObject **)((char *)(t) + slot_offset[i]))

/* obj's object slot at byte offset `off` takes a new reference to v */
static inline void store(PyObject *obj, Py_ssize_t off, PyObject *v)
{
    PyObject **at = (PyObject **)((char *)obj + off);
    PyObject *old = *at;
    Py_INCREF(v);
    *at = v;
    Py_XDECREF(old);
}

#define set_slot(t, i, v) store((t), slot_offset[i], (v))

/* a new tensor of type cls (Tensor or a subclass) with every slot set, as _tensor.make_tensor sets them */
static PyObject *build_tensor(PyTypeObject *cls, PyObject *storage, PyObject *host, PyObject *shape, PyObject *stride,
                              PyObject *offset, PyObject *dtype, PyObject *device)
{
    if (tensor_type == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "mindtorch._accel.setup() was not called");
        return NULL;
    }
    PyObject *t = new_fn ? PyObject_CallOneArg(new_fn, (PyObject *)cls) : cls->tp_alloc(cls, 0);
    if (t == NULL)
        return NULL;
    set_slot(t, S_ST, storage);
    set_slot(t, S_SHAPE, shape);
    set_slot(t, S_STRIDE, stride);
    set_slot(t, S_OFFSET, offset);
    set_slot(t, S_DTYPE, dtype);
    set_slot(t, S_DEVICE, device);
    set_slot(t, S_NP, host);
    set_slot(t, S_RG, Py_False);
    set_slot(t, S_GRAD_FN, Py_None);
    set_slot(t, S_VERSION, Py_None);
    set_slot(t, S_BASE, Py_None);
    return t;
}

static PyObject *new_tensor(PyObject *host, PyObject *shape, PyObject *stride, PyObject *dtype, PyObject *device)
{
    return build_tensor(tensor_type, Py_None, host, shape, stride, zero, dtype, device);
}

static PyObject *make_tensor(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    int cls_kw = nkw == 1 && PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, 0), "cls") == 0;
    if (nargs + nkw < 6 || nargs + nkw > 7 || (nkw && !cls_kw) || nargs > 7) {
        PyErr_SetString(PyExc_TypeError, "make_tensor(storage, shape, stride, offset, dtype, device, cls=Tensor)");
        return NULL;
    }
    PyTypeObject *cls = tensor_type;
    if (nargs + nkw == 7) {
        PyObject *c = args[6];
        if (!PyType_Check(c) || tensor_type == NULL || !PyType_IsSubtype((PyTypeObject *)c, tensor_type)) {
            PyErr_SetString(PyExc_TypeError, "make_tensor(): cls must be Tensor or a subclass of it");
            return NULL;
        }
        cls = (PyTypeObject *)c;
    }
    return build_tensor(cls, args[0], Py_None, args[1], args[2], args[3], args[4], args[5]);
}

static PyObject *make_lazy_tensor(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "make_lazy_tensor(host, shape, stride, dtype, device)");
        return NULL;
    }
    return new_tensor(args[0], args[1], args[2], args[3], args[4]);
}

/* shape and C-contiguous strides of `a` as tuples (a dimension of size 0 or 1 steps like one of 1,
   as _geometry.contiguous_strides has it) */
static int shape_and_strides(host_array *a, PyObject **shape, PyObject **stride)
{
    int nd = a->nd;
    *shape = PyTuple_New(nd);
    *stride = PyTuple_New(nd);
    if (*shape == NULL || *stride == NULL)
        goto fail;
    Py_ssize_t acc = 1;
    for (int i = nd - 1; i >= 0; i--) {
        Py_ssize_t n = a->dimensions[i];
        PyObject *dim = PyLong_FromSsize_t(n);
        PyObject *st = PyLong_FromSsize_t(acc);
        if (dim == NULL || st == NULL) {
            Py_XDECREF(dim);
            Py_XDECREF(st);
            goto fail;
        }
        PyTuple_SET_ITEM(*shape, i, dim);
        PyTuple_SET_ITEM(*stride, i, st);
        if (n > 1)
            acc *= n;
    }
    return 0;
fail:
    Py_XDECREF(*shape);
    Py_XDECREF(*stride);
    return -1;
}

/* the small case of host_result: a Tensor, or NULL without an error when `obj` is not a small dense
   ndarray of dtype's host type */
static PyObject *small_result(PyObject *device, PyObject *limit_obj, PyObject *dtypes, PyObject *obj, PyObject *dtype,
                              PyObject *table)
{
    if (ndarray_type == NULL || Py_TYPE(obj) != ndarray_type || !PyDict_Check(dtypes) || !PyDict_Check(table))
        return NULL;
    host_array *a = (host_array *)obj;
    PyObject *want = PyDict_GetItemWithError(dtypes, dtype); /* borrowed */
    if (want == NULL || a->descr != want || !(a->flags & HOST_C_CONTIGUOUS))
        return NULL;
    Py_ssize_t limit = PyLong_AsSsize_t(limit_obj);
    if (limit == -1 && PyErr_Occurred())
        return NULL;
    PyObject *isz = PyObject_GetAttr(want, s_itemsize);
    if (isz == NULL)
        return NULL;
    Py_ssize_t nbytes = PyLong_AsSsize_t(isz);
    Py_DECREF(isz);
    if (nbytes == -1 && PyErr_Occurred())
        return NULL;
    for (int i = 0; i < a->nd; i++)
        nbytes *= a->dimensions[i];
    if (nbytes >= limit)
        return NULL;

    PyObject *key = PyLong_FromVoidPtr(obj); /* id(a) */
    if (key == NULL)
        return NULL;
    PyObject *ref = PyWeakref_NewRef(obj, NULL);
    if (ref == NULL || PyDict_SetItem(table, key, ref) < 0) {
        Py_DECREF(key);
        Py_XDECREF(ref);
        return NULL;
    }
    Py_DECREF(key);
    Py_DECREF(ref);
    PyObject *shape, *stride;
    if (shape_and_strides(a, &shape, &stride) < 0)
        return NULL;
    PyObject *t = new_tensor(obj, shape, stride, dtype, device);
    Py_DECREF(shape);
    Py_DECREF(stride);
    return t;
}

/* sweep the allocator's table of dead entries once it holds more than allocator.sweep_at */
static int sweep_when_due(PyObject *allocator, PyObject *table)
{
    PyObject *at = PyObject_GetAttr(allocator, s_sweep_at);
    if (at == NULL)
        return -1;
    Py_ssize_t due = PyLong_AsSsize_t(at);
    Py_DECREF(at);
    if (due == -1 && PyErr_Occurred())
        return -1;
    if (PyDict_GET_SIZE(table) <= due)
        return 0;
    PyObject *r = PyObject_CallMethodNoArgs(allocator, s_sweep);
    Py_XDECREF(r);
    return r == NULL ? -1 : 0;
}

static PyObject *host_result(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 6 && nargs != 7) {
        PyErr_SetString(PyExc_TypeError, "host_result(device, allocator, limit, host_dtypes, general, a, dtype=None)");
        return NULL;
    }
    PyObject *allocator = args[1], *a = args[5], *dtype = nargs == 7 ? args[6] : Py_None;
    PyObject *table = PyObject_GetAttr(allocator, s_lazy);
    if (table == NULL)
        return NULL;
    PyObject *t = small_result(args[0], args[2], args[3], a, dtype, table);
    if (t != NULL && sweep_when_due(allocator, table) < 0)
        Py_CLEAR(t);
    Py_DECREF(table);
    if (t != NULL || PyErr_Occurred())
        return t;
    PyObject *general_args[2] = {a, dtype};
    return PyObject_Vectorcall(args[4], general_args, 2, NULL);
}

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

/* whether the probes look as host_array says: c_probe a C-ordered (2, 3) array, f_probe an
   F-ordered one of the same shape */
static int layout_matches(PyObject *c_probe, PyObject *f_probe)
{
    if (Py_TYPE(c_probe) != Py_TYPE(f_probe))
        return 0;
    host_array *c = (host_array *)c_probe, *f = (host_array *)f_probe;
    return c->nd == 2 && c->dimensions[0] == 2 && c->dimensions[1] == 3 && (c->flags & HOST_C_CONTIGUOUS) &&
           f->nd == 2 && f->dimensions[0] == 2 && f->dimensions[1] == 3 && !(f->flags & HOST_C_CONTIGUOUS) &&
           c->descr == f->descr;
}

static PyObject *setup(PyObject *self, PyObject *args)
{
    PyObject *tp, *nd_tp, *c_probe, *f_probe;
    if (!PyArg_ParseTuple(args, "O!O!OO", &PyType_Type, &tp, &PyType_Type, &nd_tp, &c_probe, &f_probe))
        return NULL;
    Py_ssize_t offsets[N_SLOTS];
    for (int i = 0; i < N_SLOTS; i++)
        if ((offsets[i] = slot_of((PyTypeObject *)tp, SLOT_NAMES[i])) < 0)
            return NULL;
    memcpy(slot_offset, offsets, sizeof offsets);
    Py_INCREF(tp);
    Py_XSETREF(tensor_type, (PyTypeObject *)tp);
    int direct = Py_TYPE(c_probe) == (PyTypeObject *)nd_tp && layout_matches(c_probe, f_probe);
    Py_XDECREF(ndarray_type);
    ndarray_type = NULL;
    if (direct) {
        Py_INCREF(nd_tp);
        ndarray_type = (PyTypeObject *)nd_tp;
    }
    return PyBool_FromLong(direct);
}

enum { V_TENSOR, V_VERSION, V_COUNTER, V_FN, V_OUTPUT_NR, V_UNPACK_HOOK, N_SAVED_SLOTS };
static const char *SAVED_SLOT_NAMES[N_SAVED_SLOTS] = {"tensor", "version", "counter", "fn", "output_nr", "unpack_hook"};
static PyTypeObject *saved_type = NULL, *counter_type = NULL;
static Py_ssize_t saved_offset[N_SAVED_SLOTS], counter_value_offset;
static PyObject *s_output_nr = NULL;

static PyObject *setup_saved(PyObject *self, PyObject *args)
{
    PyTypeObject *st, *vc;
    if (!PyArg_ParseTuple(args, "O!O!", &PyType_Type, &st, &PyType_Type, &vc))
        return NULL;
    Py_ssize_t offsets[N_SAVED_SLOTS];
    for (int i = 0; i < N_SAVED_SLOTS; i++)
        if ((offsets[i] = slot_of(st, SAVED_SLOT_NAMES[i])) < 0)
            return NULL;
    Py_ssize_t value = slot_of(vc, "value");
    if (value < 0)
        return NULL;
    memcpy(saved_offset, offsets, sizeof offsets);
    counter_value_offset = value;
    Py_INCREF(st);
    Py_XSETREF(saved_type, st);
    Py_INCREF(vc);
    Py_XSETREF(counter_type, vc);
    Py_RETURN_NONE;
}

#define SAVED_SLOT(s, i) (*(PyObject **)((char *)(s) + saved_offset[i]))

#define set_saved(s, i, v) store((s), saved_offset[i], (v))

static PyObject *saved_input(PyObject *self, PyObject *t)
{
    if (saved_type == NULL || tensor_type == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "mindtorch._accel.setup_saved() was not called");
        return NULL;
    }
    if (!PyObject_TypeCheck(t, tensor_type)) {
        PyErr_SetString(PyExc_TypeError, "saved_input() takes a Tensor");
        return NULL;
    }
    PyObject *counter = SLOT(t, S_VERSION);
    if (counter == NULL || counter == Py_None) { /* the first in-place-visible use: the tensor gets its counter */
        counter = PyObject_CallNoArgs((PyObject *)counter_type);
        if (counter == NULL)
            return NULL;
        Py_XSETREF(SLOT(t, S_VERSION), counter);
    }
    if (Py_TYPE(counter) != counter_type) {
        PyErr_SetString(PyExc_TypeError, "a tensor's _version is not a VersionCounter");
        return NULL;
    }
    PyObject *value = *(PyObject **)((char *)counter + counter_value_offset);
    PyObject *fn = SLOT(t, S_GRAD_FN);
    if (value == NULL || fn == NULL) {
        PyErr_SetString(PyExc_AttributeError, "a tensor without its version or grad_fn");
        return NULL;
    }
    PyObject *output_nr = PyObject_GetAttr(t, s_output_nr);
    if (output_nr == NULL)
        return NULL;
    PyObject *s = saved_type->tp_alloc(saved_type, 0);
    if (s == NULL) {
        Py_DECREF(output_nr);
        return NULL;
    }
    set_saved(s, V_COUNTER, counter);
    set_saved(s, V_VERSION, value);
    set_saved(s, V_UNPACK_HOOK, Py_None);
    set_saved(s, V_TENSOR, t);
    set_saved(s, V_FN, fn);
    SAVED_SLOT(s, V_OUTPUT_NR) = output_nr; /* the reference GetAttr gave */
    return s;
}

static PyObject *set_new(PyObject *self, PyObject *fn)
{
    if (fn == Py_None) {
        Py_CLEAR(new_fn);
    } else {
        Py_INCREF(fn);
        Py_XSETREF(new_fn, fn);
    }
    Py_RETURN_NONE;
}

/* cat's shape rule: the common case here, the rest (promotion, legacy empty tensors, errors) in Python */
static PyTypeObject *meta_type = NULL;
static Py_ssize_t meta_shape_offset, meta_dtype_offset;
static PyObject *cat_general = NULL;

static PyObject *setup_cat(PyObject *self, PyObject *args)
{
    PyTypeObject *mt;
    PyObject *general;
    if (!PyArg_ParseTuple(args, "O!O", &PyType_Type, &mt, &general))
        return NULL;
    Py_ssize_t shape = slot_of(mt, "shape"), dtype = slot_of(mt, "dtype");
    if (shape < 0 || dtype < 0)
        return NULL;
    if (mt->tp_dictoffset != 0 || !PyCallable_Check(general)) {
        PyErr_SetString(PyExc_TypeError, "setup_cat(meta_type with slots only, callable general)");
        return NULL;
    }
    meta_shape_offset = shape;
    meta_dtype_offset = dtype;
    Py_INCREF(mt);
    Py_XSETREF(meta_type, mt);
    Py_INCREF(general);
    Py_XSETREF(cat_general, general);
    Py_RETURN_NONE;
}

/* the value of a shape's entry, or -1 when it is not a plain int */
static inline Py_ssize_t size_of(PyObject *v)
{
    if (!PyLong_CheckExact(v))
        return -1;
    Py_ssize_t n = PyLong_AsSsize_t(v);
    if (n == -1)
        PyErr_Clear();
    return n;
}

/* the TensorMeta of the common case, or NULL without an error when it does not apply */
static PyObject *cat_meta_common(PyObject *tensors, PyObject *dim)
{
    if (!(PyTuple_CheckExact(tensors) || PyList_CheckExact(tensors)) || !PyLong_CheckExact(dim))
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(tensors);
    PyObject *const *items = PySequence_Fast_ITEMS(tensors);
    if (n == 0 || Py_TYPE(items[0]) != tensor_type)
        return NULL;
    PyObject *shape = SLOT(items[0], S_SHAPE), *dtype = SLOT(items[0], S_DTYPE);
    if (shape == NULL || dtype == NULL || !PyTuple_CheckExact(shape))
        return NULL;
    Py_ssize_t nd = PyTuple_GET_SIZE(shape);
    int overflow;
    long dl = PyLong_AsLongAndOverflow(dim, &overflow);
    if (nd == 0 || overflow || dl < -nd || dl >= nd || (nd == 1 && size_of(PyTuple_GET_ITEM(shape, 0)) == 0))
        return NULL; /* 0-dim, a dim out of range, or the legacy empty (0,) first */
    Py_ssize_t d = dl < 0 ? dl + nd : dl, total = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *t = items[i];
        if (Py_TYPE(t) != tensor_type || SLOT(t, S_DTYPE) != dtype)
            return NULL;
        PyObject *s = SLOT(t, S_SHAPE);
        if (s == NULL || !PyTuple_CheckExact(s) || PyTuple_GET_SIZE(s) != nd)
            return NULL;
        for (Py_ssize_t j = 0; j < nd && s != shape; j++) {
            PyObject *a = PyTuple_GET_ITEM(s, j), *b = PyTuple_GET_ITEM(shape, j);
            if (j != d && a != b && (size_of(a) < 0 || size_of(a) != size_of(b)))
                return NULL;
        }
        Py_ssize_t k = size_of(PyTuple_GET_ITEM(s, d));
        if (k < 0)
            return NULL;
        total += k;
    }
    PyObject *out_shape = PyTuple_New(nd);
    if (out_shape == NULL)
        return NULL;
    for (Py_ssize_t j = 0; j < nd; j++) {
        PyObject *v = j == d ? PyLong_FromSsize_t(total) : Py_NewRef(PyTuple_GET_ITEM(shape, j));
        if (v == NULL) {
            Py_DECREF(out_shape);
            return NULL;
        }
        PyTuple_SET_ITEM(out_shape, j, v);
    }
    PyObject *m = meta_type->tp_alloc(meta_type, 0);
    if (m != NULL) {
        store(m, meta_shape_offset, out_shape);
        store(m, meta_dtype_offset, dtype);
    }
    Py_DECREF(out_shape);
    return m;
}

static PyObject *cat_meta(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    if (meta_type == NULL || tensor_type == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "mindtorch._accel.setup() and setup_cat() were not called");
        return NULL;
    }
    if (kwnames == NULL && (nargs == 1 || nargs == 2)) {
        PyObject *m = cat_meta_common(args[0], nargs == 2 ? args[1] : zero);
        if (m != NULL || PyErr_Occurred())
            return m;
    }
    return PyObject_Vectorcall(cat_general, args, nargs, kwnames);
}

/* view_strides(old_shape, old_stride, new_shape): _geometry.view_strides for tuples of plain ints (of up
   to VIEW_MAX_DIMS dims, sizes >= 0, no overflow); anything else goes to the Python rule (setup_view) */
#define VIEW_MAX_DIMS 64
static PyObject *view_general = NULL;

static PyObject *setup_view(PyObject *self, PyObject *general)
{
    if (!PyCallable_Check(general)) {
        PyErr_SetString(PyExc_TypeError, "setup_view(callable general)");
        return NULL;
    }
    Py_INCREF(general);
    Py_XSETREF(view_general, general);
    Py_RETURN_NONE;
}

/* the entries of a tuple of plain ints into out; 0 when the tuple does not qualify */
static int read_ints(PyObject *tup, Py_ssize_t *out, Py_ssize_t *n, int nonneg)
{
    if (!PyTuple_CheckExact(tup))
        return 0;
    Py_ssize_t k = PyTuple_GET_SIZE(tup);
    if (k > VIEW_MAX_DIMS)
        return 0;
    for (Py_ssize_t i = 0; i < k; i++) {
        PyObject *v = PyTuple_GET_ITEM(tup, i);
        if (!PyLong_CheckExact(v))
            return 0;
        int overflow;
        long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
        if (overflow || (x == -1 && PyErr_Occurred()) || (nonneg && x < 0)) {
            PyErr_Clear();
            return 0;
        }
        out[i] = (Py_ssize_t)x;
    }
    *n = k;
    return 1;
}

static PyObject *ints_tuple(const Py_ssize_t *v, Py_ssize_t n)
{
    PyObject *t = PyTuple_New(n);
    if (t == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *x = PyLong_FromSsize_t(v[i]);
        if (x == NULL) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, i, x);
    }
    return t;
}

/* _geometry.contiguous_strides: a dimension of size 0 or 1 steps like one of 1 */
static int c_contiguous_strides(const Py_ssize_t *shape, Py_ssize_t n, Py_ssize_t *out)
{
    Py_ssize_t acc = 1;
    for (Py_ssize_t i = n - 1; i >= 0; i--) {
        out[i] = acc;
        if (shape[i] > 1 && __builtin_mul_overflow(acc, shape[i], &acc))
            return 0;
    }
    return 1;
}

/* 1: strides in *res (a new tuple, or None when there is no view); 0: hand the case to Python */
static int view_strides_common(PyObject *old_shape_o, PyObject *old_stride_o, PyObject *new_shape_o, PyObject **res)
{
    Py_ssize_t os_[VIEW_MAX_DIMS], ost[VIEW_MAX_DIMS], ns[VIEW_MAX_DIMS], nst[VIEW_MAX_DIMS], cst[VIEW_MAX_DIMS];
    Py_ssize_t on, stn, nn;
    if (!read_ints(old_shape_o, os_, &on, 1) || !read_ints(old_stride_o, ost, &stn, 0) ||
        !read_ints(new_shape_o, ns, &nn, 1))
        return 0;
    if (!c_contiguous_strides(os_, on, cst))
        return 0;
    int same = stn == on;
    for (Py_ssize_t i = 0; same && i < on; i++)
        same = ost[i] == cst[i];
    if (same) { /* a contiguous tensor views as contiguous */
        if (!c_contiguous_strides(ns, nn, nst))
            return 0;
        *res = ints_tuple(nst, nn);
        return 1;
    }
    if (on == 0) { /* a 0-dim tensor: every new dim steps by 1 */
        for (Py_ssize_t i = 0; i < nn; i++)
            nst[i] = 1;
        *res = ints_tuple(nst, nn);
        return 1;
    }
    if (stn != on)
        return 0;
    Py_ssize_t numel = 1;
    for (Py_ssize_t i = 0; i < on; i++)
        if (__builtin_mul_overflow(numel, os_[i], &numel))
            return 0;
    if (numel == 0) {
        int equal = on == nn;
        for (Py_ssize_t i = 0; equal && i < on; i++)
            equal = os_[i] == ns[i];
        if (equal) {
            *res = PyTuple_GetSlice(old_stride_o, 0, on);
            return 1;
        }
        if (!c_contiguous_strides(ns, nn, nst))
            return 0;
        *res = ints_tuple(nst, nn);
        return 1;
    }
    /* at::detail::computeStride, as the Python loop has it */
    Py_ssize_t view_d = nn - 1, chunk = ost[on - 1], tensor_numel = 1, view_numel = 1, step;
    for (Py_ssize_t d = on - 1; d >= 0; d--) {
        if (__builtin_mul_overflow(tensor_numel, os_[d], &tensor_numel))
            return 0;
        Py_ssize_t span;
        if (d == 0 || (os_[d - 1] != 1 && (__builtin_mul_overflow(tensor_numel, chunk, &span) || ost[d - 1] != span))) {
            while (view_d >= 0 && (view_numel < tensor_numel || ns[view_d] == 1)) {
                if (__builtin_mul_overflow(view_numel, chunk, &step))
                    return 0;
                nst[view_d] = step;
                if (__builtin_mul_overflow(view_numel, ns[view_d], &view_numel))
                    return 0;
                view_d--;
            }
            if (view_numel != tensor_numel) {
                *res = Py_NewRef(Py_None);
                return 1;
            }
            if (d > 0) {
                chunk = ost[d - 1];
                tensor_numel = 1;
                view_numel = 1;
            }
        }
    }
    if (view_d != -1) {
        *res = Py_NewRef(Py_None);
        return 1;
    }
    *res = ints_tuple(nst, nn);
    return 1;
}

static PyObject *view_strides(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (view_general == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "mindtorch._accel.setup_view() was not called");
        return NULL;
    }
    if (nargs == 3) {
        PyObject *res = NULL;
        if (view_strides_common(args[0], args[1], args[2], &res))
            return res; /* NULL only with an error set (a failed allocation) */
    }
    return PyObject_Vectorcall(view_general, args, nargs, NULL);
}

/* ---- StorageBase ------------------------------------------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    PyObject *device, *nbytes, *data, *allocator, *weakrefs;
} storage_obj;

static PyObject *byte_count = NULL, *s_free = NULL;

static PyObject *setup_storage(PyObject *self, PyObject *tp)
{
    if (!PyType_Check(tp)) {
        PyErr_SetString(PyExc_TypeError, "setup_storage() takes the byte-count type");
        return NULL;
    }
    Py_INCREF(tp);
    Py_XSETREF(byte_count, tp);
    Py_RETURN_NONE;
}

static int storage_init(storage_obj *self, PyObject *args, PyObject *kw)
{
    static char *names[] = {"device", "nbytes", "data", "allocator", NULL};
    PyObject *device, *nbytes, *data, *allocator;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOO:Storage", names, &device, &nbytes, &data, &allocator))
        return -1;
    PyObject *nb = byte_count != NULL ? PyObject_CallOneArg(byte_count, nbytes) : PyNumber_Index(nbytes);
    if (nb == NULL)
        return -1;
    Py_INCREF(device);
    Py_INCREF(data);
    Py_INCREF(allocator);
    Py_XSETREF(self->device, device);
    Py_XSETREF(self->nbytes, nb);
    Py_XSETREF(self->data, data);
    Py_XSETREF(self->allocator, allocator);
    return 0;
}

/* __del__: the allocator takes the block back; an error is reported as unraisable, as from __del__ */
static void storage_finalize(storage_obj *self)
{
    PyObject *allocator = self->allocator;
    if (allocator == NULL || allocator == Py_None)
        return;
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    Py_INCREF(allocator);
    PyObject *r = PyObject_CallMethodOneArg(allocator, s_free, (PyObject *)self);
    if (r == NULL)
        PyErr_WriteUnraisable((PyObject *)self);
    Py_XDECREF(r);
    Py_DECREF(allocator);
    PyErr_Restore(type, value, tb);
}

static int storage_traverse(storage_obj *self, visitproc visit, void *arg)
{
    Py_VISIT(self->device);
    Py_VISIT(self->nbytes);
    Py_VISIT(self->data);
    Py_VISIT(self->allocator);
    return 0;
}

static int storage_clear(storage_obj *self)
{
    Py_CLEAR(self->device);
    Py_CLEAR(self->nbytes);
    Py_CLEAR(self->data);
    Py_CLEAR(self->allocator);
    return 0;
}

static void storage_dealloc(storage_obj *self)
{
    if (PyObject_CallFinalizerFromDealloc((PyObject *)self) < 0)
        return; /* resurrected */
    PyObject_GC_UnTrack(self);
    if (self->weakrefs != NULL)
        PyObject_ClearWeakRefs((PyObject *)self);
    storage_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMemberDef storage_members[] = {
    {"device", T_OBJECT_EX, offsetof(storage_obj, device), 0, NULL},
    {"nbytes", T_OBJECT_EX, offsetof(storage_obj, nbytes), 0, NULL},
    {"data", T_OBJECT_EX, offsetof(storage_obj, data), 0, NULL},
    {"_allocator", T_OBJECT_EX, offsetof(storage_obj, allocator), 0, NULL},
    {NULL},
};

static PyTypeObject StorageBaseType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "mindtorch._accel.StorageBase",
    .tp_basicsize = sizeof(storage_obj),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "Storage's slots, constructor and finalizer.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)storage_init,
    .tp_finalize = (destructor)storage_finalize,
    .tp_dealloc = (destructor)storage_dealloc,
    .tp_traverse = (traverseproc)storage_traverse,
    .tp_clear = (inquiry)storage_clear,
    .tp_members = storage_members,
    .tp_weaklistoffset = offsetof(storage_obj, weakrefs),
};

static PyMethodDef methods[] = {
    {"setup_storage", setup_storage, METH_O, "Learn the int subclass Storage keeps nbytes as."},
    {"make_lazy_tensor", (PyCFunction)(void (*)(void))make_lazy_tensor, METH_FASTCALL, "A tensor over a host array."},
    {"make_tensor", (PyCFunction)(void (*)(void))make_tensor, METH_FASTCALL | METH_KEYWORDS,
     "A tensor around a storage."},
    {"host_result", (PyCFunction)(void (*)(void))host_result, METH_FASTCALL, "A tensor over a small host result."},
    {"setup", setup, METH_VARARGS, "Learn Tensor's slots and check the ndarray layout."},
    {"setup_saved", setup_saved, METH_VARARGS, "Learn SavedTensor's and VersionCounter's slots."},
    {"saved_input", saved_input, METH_O, "A SavedTensor of a tensor at its current version."},
    {"set_new", set_new, METH_O, "The constructor of new tensors (None: the type's allocator)."},
    {"setup_cat", setup_cat, METH_VARARGS, "Learn TensorMeta's slots and cat's shape rule in Python."},
    {"cat_meta", (PyCFunction)(void (*)(void))cat_meta, METH_FASTCALL | METH_KEYWORDS, "cat's shape rule."},
    {"setup_view", setup_view, METH_O, "view_strides' rule in Python, for the cases it hands on."},
    {"view_strides", (PyCFunction)(void (*)(void))view_strides, METH_FASTCALL, "Strides of a view, or None."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "mindtorch._accel",
    .m_size = -1,
    .m_methods = methods,
};

PyMODINIT_FUNC PyInit__accel(void)
{
    zero = PyLong_FromLong(0);
    s_itemsize = PyUnicode_InternFromString("itemsize");
    s_output_nr = PyUnicode_InternFromString("_output_nr");
    s_lazy = PyUnicode_InternFromString("lazy");
    s_sweep_at = PyUnicode_InternFromString("sweep_at");
    s_sweep = PyUnicode_InternFromString("sweep");
    s_free = PyUnicode_InternFromString("free");
    if (zero == NULL || s_itemsize == NULL || s_output_nr == NULL || s_lazy == NULL || s_sweep_at == NULL ||
        s_sweep == NULL || s_free == NULL || PyType_Ready(&StorageBaseType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    Py_INCREF(&StorageBaseType);
    if (PyModule_AddObject(m, "StorageBase", (PyObject *)&StorageBaseType) < 0) {
        Py_DECREF(&StorageBaseType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
