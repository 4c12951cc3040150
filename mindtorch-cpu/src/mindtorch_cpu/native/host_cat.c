/* The cpu kernels of cat and stack as one compiled call each, for their common case (included by
   entry.c).

   mt_cat(general, wrap, host_dtypes, empty, m, tensors, dim=0)
       when every tensor's host array (its `_np`) is C-contiguous, of m's rank and of m.dtype's host
       type itself (host_dtypes[m.dtype]), the result is empty(m.shape, that type) filled by copies
       and handed to wrap(result, m.dtype); anything else is general(m, tensors, dim), the NumPy
       kernel (kernels/indexing.py), which stays the reference. The shape rule has already checked
       the shapes; they are checked again here only so that no copy can go out of bounds.
   mt_stack(general, wrap, host_dtypes, empty, m, tensors, dim=0)
       the same for stack, whose arrays have one dim fewer than m: stacked along dim, their copies
       fall in the result as a cat's do.

   The arrays are read through the buffer protocol, as the rest of the entry reads them. */

static PyObject *s_np = NULL, *s_shape = NULL, *s_dtype = NULL;

enum { CAT_STACK = 8, CAT_UNLOCKED = 1 << 16 /* bytes from which the copies run without the GIL */ };

static int cat_init(void) {
    s_np = PyUnicode_InternFromString("_np");
    s_shape = PyUnicode_InternFromString("shape");
    s_dtype = PyUnicode_InternFromString("dtype");
    return (s_np && s_shape && s_dtype) ? 0 : -1;
}

/* a's attribute `name` is `want` itself (an error reading it counts as no) */
static int attr_is(PyObject *a, PyObject *name, PyObject *want) {
    PyObject *v = PyObject_GetAttr(a, name);
    if (v == NULL) {
        PyErr_Clear();
        return 0;
    }
    Py_DECREF(v);
    return v == want;
}

/* the views of the tensors' host arrays in `views`, *held of them taken (to be released); whether
   each is usable: C-contiguous, of the result's sizes `dims` (nd of them) but along d, where they add
   up to the result's (`stacked`: without dim d, each one along it) */
static int cat_views(PyObject *const *items, Py_ssize_t n, PyObject *want, const Py_ssize_t *dims, int nd, int d,
                     int stacked, Py_buffer *views, Py_ssize_t *held) {
    Py_ssize_t along = 0;
    *held = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *x = PyObject_GetAttr(items[i], s_np);
        if (x == NULL) {
            PyErr_Clear();
            return 0;
        }
        int ok = x != Py_None && attr_is(x, s_dtype, want) && PyObject_GetBuffer(x, &views[i], PyBUF_STRIDES) == 0;
        Py_DECREF(x); /* the view holds the array */
        if (!ok) {
            PyErr_Clear();
            return 0;
        }
        *held = i + 1;
        Py_buffer *v = &views[i];
        if (v->ndim != nd - stacked || !PyBuffer_IsContiguous(v, 'C'))
            return 0;
        for (int j = 0; j < nd; j++)
            if (j != d && v->shape[stacked && j > d ? j - 1 : j] != dims[j])
                return 0;
        along += stacked ? 1 : v->shape[d];
    }
    return along == dims[d];
}

static void cat_copy(Py_buffer *views, Py_ssize_t n, char *dst, Py_ssize_t outer) {
    for (Py_ssize_t o = 0; o < outer; o++) {
        for (Py_ssize_t i = 0; i < n; i++) {
            Py_ssize_t chunk = views[i].len / outer;
            memcpy(dst, (const char *)views[i].buf + o * chunk, (size_t)chunk);
            dst += chunk;
        }
    }
}

/* the common case: 1 with *res set, 0 when it does not apply (nothing set), -1 on an error */
static int cat_common(PyObject *wrap, PyObject *dtypes, PyObject *empty, PyObject *m, PyObject *tensors, PyObject *dim,
                      int stacked, PyObject **res) {
    /* a tuple: no attribute read below can change it under the loop, as it could a list */
    if (!PyTuple_CheckExact(tensors) || !PyLong_CheckExact(dim) || !PyDict_CheckExact(dtypes))
        return 0;
    Py_ssize_t n = PyTuple_GET_SIZE(tensors);
    PyObject *shape = PyObject_GetAttr(m, s_shape), *dtype = PyObject_GetAttr(m, s_dtype);
    PyObject *want = dtype ? PyDict_GetItemWithError(dtypes, dtype) : NULL; /* borrowed */
    Py_ssize_t nd = shape && PyTuple_CheckExact(shape) ? PyTuple_GET_SIZE(shape) : 0;
    long long dl = PyLong_AsLongLong(dim);
    if (want == NULL || nd == 0 || nd > 64 || n == 0 || (dl == -1 && PyErr_Occurred())) {
        PyErr_Clear();
        Py_XDECREF(shape);
        Py_XDECREF(dtype);
        return 0;
    }
    int d = (int)(((dl % nd) + nd) % nd); /* Python's dim % len(m.shape) */
    Py_ssize_t dims[64];
    for (Py_ssize_t j = 0; j < nd; j++) {
        PyObject *s = PyTuple_GET_ITEM(shape, j);
        dims[j] = PyLong_CheckExact(s) ? PyLong_AsSsize_t(s) : -1;
        if (dims[j] < 0) {
            PyErr_Clear();
            Py_DECREF(shape);
            Py_DECREF(dtype);
            return 0;
        }
    }
    Py_buffer stack_views[CAT_STACK];
    Py_buffer *views = n <= CAT_STACK ? stack_views : PyMem_Malloc(sizeof(Py_buffer) * (size_t)n);
    int rc = 0;
    Py_ssize_t held = 0;
    PyObject *out = NULL;
    if (views == NULL) {
        PyErr_NoMemory();
        rc = -1;
        goto done;
    }
    if (!cat_views(PySequence_Fast_ITEMS(tensors), n, want, dims, (int)nd, d, stacked, views, &held))
        goto done;
    PyObject *empty_args[2] = {shape, want};
    out = PyObject_Vectorcall(empty, empty_args, 2, NULL);
    Py_buffer ov;
    if (out == NULL || PyObject_GetBuffer(out, &ov, PyBUF_WRITABLE | PyBUF_STRIDES) < 0) {
        rc = -1;
        goto done;
    }
    Py_ssize_t outer = 1, total = 0;
    for (int j = 0; j < d; j++)
        outer *= dims[j];
    for (Py_ssize_t i = 0; i < n; i++)
        total += views[i].len;
    if (ov.len != total || !PyBuffer_IsContiguous(&ov, 'C')) { /* not what empty() promises */
        PyBuffer_Release(&ov);
        PyErr_SetString(PyExc_RuntimeError, "cat: the result array is not the size its shape says");
        rc = -1;
        goto done;
    }
    if (outer > 0 && total > 0) {
        if (total >= CAT_UNLOCKED) {
            Py_BEGIN_ALLOW_THREADS cat_copy(views, n, ov.buf, outer);
            Py_END_ALLOW_THREADS
        } else {
            cat_copy(views, n, ov.buf, outer);
        }
    }
    PyBuffer_Release(&ov);
    PyObject *wrap_args[2] = {out, dtype};
    *res = PyObject_Vectorcall(wrap, wrap_args, 2, NULL);
    rc = *res == NULL ? -1 : 1;
done:
    for (Py_ssize_t i = 0; i < held; i++)
        PyBuffer_Release(&views[i]);
    if (views != stack_views)
        PyMem_Free(views);
    Py_XDECREF(out);
    Py_DECREF(shape);
    Py_DECREF(dtype);
    return rc;
}

static PyObject *join(PyObject *const *args, Py_ssize_t nargs, int stacked) {
    if (nargs != 6 && nargs != 7) {
        PyErr_Format(PyExc_TypeError, "%s(general, wrap, host_dtypes, empty, m, tensors, dim=0)",
                     stacked ? "mt_stack" : "mt_cat");
        return NULL;
    }
    PyObject *zero = PyLong_FromLong(0), *res = NULL;
    if (zero == NULL)
        return NULL;
    int rc = cat_common(args[1], args[2], args[3], args[4], args[5], nargs == 7 ? args[6] : zero, stacked, &res);
    Py_DECREF(zero);
    if (rc != 0)
        return res;
    return PyObject_Vectorcall(args[0], args + 4, (size_t)(nargs - 4), NULL);
}

static PyObject *py_mt_cat(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    return join(args, nargs, 0);
}

static PyObject *py_mt_stack(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    return join(args, nargs, 1);
}
