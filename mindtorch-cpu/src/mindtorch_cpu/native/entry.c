/* The fused kernels (kernels.c, compiled into this same shared object) as a CPython extension module.
 *
 * ctypes costs 1.5-3 us per call in argument conversion; these METH_FASTCALL functions take the
 * arrays themselves through the buffer protocol (no NumPy headers) and cost a few hundred ns. Each
 * function has the name and argument order of its C kernel, with an array (or None for a NULL
 * pointer) in place of each pointer. The caller guarantees what the ctypes entry needs too: every
 * array C-contiguous, of the kernel's element type and size. The GIL is released during the
 * kernel, as ctypes does, so blocks still run in parallel on the backend's thread pool.
 *
 * Built by build.py only when Python.h is found; MT_MODULE names the module (the file's stem). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "kernels.c"

#ifndef MT_MODULE
#error "MT_MODULE (the module name) must be defined"
#endif
#define MT_STR2(x) #x
#define MT_STR(x) MT_STR2(x)
#define MT_CAT2(a, b) a##b
#define MT_CAT(a, b) MT_CAT2(a, b)

enum { MAX_ARGS = 16 };

typedef union {
    void *p;
    i64 n;
    int i;
    float f;
} arg_t;

typedef struct {
    arg_t a[MAX_ARGS];
    Py_buffer views[MAX_ARGS];
    int nviews;
} call_t;

static void release(call_t *c) {
    for (int k = 0; k < c->nviews; k++) PyBuffer_Release(&c->views[k]);
    c->nviews = 0;
}

/* One argument by its letter: r a read buffer, w a written buffer (either may be None: NULL),
 * n an int64, i an int (or a flag), f a float. */
static int parse_one(PyObject *o, char kind, arg_t *out, call_t *c) {
    switch (kind) {
    case 'r':
    case 'w':
        if (o == Py_None) {
            out->p = NULL;
            return 0;
        }
        if (PyObject_GetBuffer(o, &c->views[c->nviews], kind == 'w' ? PyBUF_WRITABLE : PyBUF_SIMPLE) < 0) return -1;
        out->p = c->views[c->nviews++].buf;
        return 0;
    case 'n':
        out->n = (i64)PyLong_AsLongLong(o);
        return (out->n == -1 && PyErr_Occurred()) ? -1 : 0;
    case 'i': /* an int, or anything with a truth value (a flag) */
        if (PyLong_Check(o)) {
            out->i = (int)PyLong_AsLong(o);
            return (out->i == -1 && PyErr_Occurred()) ? -1 : 0;
        }
        out->i = PyObject_IsTrue(o);
        return out->i < 0 ? -1 : 0;
    default: /* 'f' */
        out->f = (float)PyFloat_AsDouble(o);
        return (out->f == -1.0f && PyErr_Occurred()) ? -1 : 0;
    }
}

/* The arguments by the kernel's signature (one letter each); on failure every view is released. */
static int parse(PyObject *const *args, Py_ssize_t nargs, const char *sig, const char *name, call_t *c) {
    Py_ssize_t want = (Py_ssize_t)strlen(sig);
    c->nviews = 0;
    if (nargs != want) {
        PyErr_Format(PyExc_TypeError, "%s() takes %zd arguments (%zd given)", name, want, nargs);
        return -1;
    }
    for (Py_ssize_t k = 0; k < nargs; k++) {
        if (parse_one(args[k], sig[k], &c->a[k], c) < 0) {
            release(c);
            return -1;
        }
    }
    return 0;
}

#define A(k) c.a[k]
/* A kernel returning nothing (None) or an int64 (an int); CALL is the call with its arguments A(k). */
#define ENTRY_VOID(name, sig, CALL)                                                            \
    static PyObject *py_##name(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {     \
        (void)self;                                                                            \
        call_t c;                                                                              \
        if (parse(args, nargs, sig, #name, &c) < 0) return NULL;                               \
        Py_BEGIN_ALLOW_THREADS CALL;                                                           \
        Py_END_ALLOW_THREADS release(&c);                                                      \
        Py_RETURN_NONE;                                                                        \
    }
#define ENTRY_I64(name, sig, CALL)                                                             \
    static PyObject *py_##name(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {     \
        (void)self;                                                                            \
        call_t c;                                                                              \
        i64 r;                                                                                 \
        if (parse(args, nargs, sig, #name, &c) < 0) return NULL;                               \
        Py_BEGIN_ALLOW_THREADS r = CALL;                                                       \
        Py_END_ALLOW_THREADS release(&c);                                                      \
        return PyLong_FromLongLong((long long)r);                                              \
    }

ENTRY_VOID(mt_exp_f32, "rwni", mt_exp_f32(A(0).p, A(1).p, A(2).n, A(3).i))
ENTRY_VOID(mt_relu_f32, "rwni", mt_relu_f32(A(0).p, A(1).p, A(2).n, A(3).i))
ENTRY_VOID(mt_threshold_backward_f32, "rrwnfi",
           mt_threshold_backward_f32(A(0).p, A(1).p, A(2).p, A(3).n, A(4).f, A(5).i))
ENTRY_VOID(mt_gelu_f32, "rwni", mt_gelu_f32(A(0).p, A(1).p, A(2).n, A(3).i))
ENTRY_VOID(mt_gelu_backward_f32, "rrwni", mt_gelu_backward_f32(A(0).p, A(1).p, A(2).p, A(3).n, A(4).i))
ENTRY_VOID(mt_gelu_tanh_f32, "rwni", mt_gelu_tanh_f32(A(0).p, A(1).p, A(2).n, A(3).i))
ENTRY_VOID(mt_gelu_tanh_backward_f32, "rrwni",
           mt_gelu_tanh_backward_f32(A(0).p, A(1).p, A(2).p, A(3).n, A(4).i))
ENTRY_VOID(mt_binary_f32, "rrwnifi", mt_binary_f32(A(0).p, A(1).p, A(2).p, A(3).n, A(4).i, A(5).f, A(6).i))
ENTRY_VOID(mt_softmax_f32, "rwnnii", mt_softmax_f32(A(0).p, A(1).p, A(2).n, A(3).n, A(4).i, A(5).i))
ENTRY_VOID(mt_softmax_backward_f32, "rrwnnii",
           mt_softmax_backward_f32(A(0).p, A(1).p, A(2).p, A(3).n, A(4).n, A(5).i, A(6).i))
ENTRY_VOID(mt_attn_softmax_f32, "wrwnnnfi",
           mt_attn_softmax_f32(A(0).p, A(1).p, A(2).p, A(3).n, A(4).n, A(5).n, A(6).f, A(7).i))
ENTRY_VOID(mt_attn_probs_f32, "wrrnnnfi",
           mt_attn_probs_f32(A(0).p, A(1).p, A(2).p, A(3).n, A(4).n, A(5).n, A(6).f, A(7).i))
ENTRY_VOID(mt_adam_f32, "wrwwwnfffffffii",
           mt_adam_f32(A(0).p, A(1).p, A(2).p, A(3).p, A(4).p, A(5).n, A(6).f, A(7).f, A(8).f, A(9).f, A(10).f,
                       A(11).f, A(12).f, A(13).i, A(14).i))
ENTRY_VOID(mt_sum_rows_f32, "rwnni", mt_sum_rows_f32(A(0).p, A(1).p, A(2).n, A(3).n, A(4).i))
ENTRY_VOID(mt_norm_f32, "rrrwwwnnfii",
           mt_norm_f32(A(0).p, A(1).p, A(2).p, A(3).p, A(4).p, A(5).p, A(6).n, A(7).n, A(8).f, A(9).i, A(10).i))
ENTRY_I64(mt_norm_backward_f32, "rrrrrwwwnnnii",
          mt_norm_backward_f32(A(0).p, A(1).p, A(2).p, A(3).p, A(4).p, A(5).p, A(6).p, A(7).p, A(8).n, A(9).n,
                               A(10).n, A(11).i, A(12).i))
ENTRY_I64(mt_nll_f32, "rrrwwnnn", mt_nll_f32(A(0).p, A(1).p, A(2).p, A(3).p, A(4).p, A(5).n, A(6).n, A(7).n))
ENTRY_I64(mt_cross_entropy_f32, "rrrwwwnnni",
          mt_cross_entropy_f32(A(0).p, A(1).p, A(2).p, A(3).p, A(4).p, A(5).p, A(6).n, A(7).n, A(8).n, A(9).i))
ENTRY_VOID(mt_cross_entropy_backward_f32, "rrrwnni",
           mt_cross_entropy_backward_f32(A(0).p, A(1).p, A(2).p, A(3).p, A(4).n, A(5).n, A(6).i))
ENTRY_VOID(mt_max_pool2d_f32, "rwwnnnnnnnnnnnnn",
           mt_max_pool2d_f32(A(0).p, A(1).p, A(2).p, A(3).n, A(4).n, A(5).n, A(6).n, A(7).n, A(8).n, A(9).n,
                             A(10).n, A(11).n, A(12).n, A(13).n, A(14).n, A(15).n))
ENTRY_VOID(mt_max_pool2d_backward_f32, "rrwnnn",
           mt_max_pool2d_backward_f32(A(0).p, A(1).p, A(2).p, A(3).n, A(4).n, A(5).n))
ENTRY_VOID(mt_im2col_f32, "rwnnnnnnnnnnnnnn",
           mt_im2col_f32(A(0).p, A(1).p, A(2).n, A(3).n, A(4).n, A(5).n, A(6).n, A(7).n, A(8).n, A(9).n, A(10).n,
                         A(11).n, A(12).n, A(13).n, A(14).n, A(15).n))
ENTRY_VOID(mt_col2im_f32, "rwnnnnnnnnnnnnnn",
           mt_col2im_f32(A(0).p, A(1).p, A(2).n, A(3).n, A(4).n, A(5).n, A(6).n, A(7).n, A(8).n, A(9).n, A(10).n,
                         A(11).n, A(12).n, A(13).n, A(14).n, A(15).n))

ENTRY_I64(mt_conv2d_f32, "rrrwri", mt_conv2d_f32(A(0).p, A(1).p, A(2).p, A(3).p, A(4).p, A(5).i))
ENTRY_I64(mt_conv2d_input_f32, "rrwri", mt_conv2d_input_f32(A(0).p, A(1).p, A(2).p, A(3).p, A(4).i))
ENTRY_I64(mt_conv2d_weight_f32, "rrwri", mt_conv2d_weight_f32(A(0).p, A(1).p, A(2).p, A(3).p, A(4).i))

#include "host_cat.c" /* a whole kernel over tensors, not a wrapper of kernels.c: no ctypes twin */

#define M(name) {#name, (PyCFunction)(void (*)(void))py_##name, METH_FASTCALL, NULL}
static PyMethodDef methods[] = {
    M(mt_exp_f32),
    M(mt_relu_f32),
    M(mt_threshold_backward_f32),
    M(mt_gelu_f32),
    M(mt_gelu_backward_f32),
    M(mt_gelu_tanh_f32),
    M(mt_gelu_tanh_backward_f32),
    M(mt_binary_f32),
    M(mt_softmax_f32),
    M(mt_softmax_backward_f32),
    M(mt_sum_rows_f32),
    M(mt_adam_f32),
    M(mt_attn_softmax_f32),
    M(mt_attn_probs_f32),
    M(mt_norm_f32),
    M(mt_norm_backward_f32),
    M(mt_nll_f32),
    M(mt_cross_entropy_f32),
    M(mt_cross_entropy_backward_f32),
    M(mt_max_pool2d_f32),
    M(mt_max_pool2d_backward_f32),
    M(mt_im2col_f32),
    M(mt_col2im_f32),
    M(mt_conv2d_f32),
    M(mt_conv2d_input_f32),
    M(mt_conv2d_weight_f32),
    M(mt_cat),
    M(mt_stack),
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, MT_STR(MT_MODULE), "The fused float32 kernels, called with arrays.", -1, methods,
    NULL, NULL, NULL, NULL,
};

MT_API PyObject *MT_CAT(PyInit_, MT_MODULE)(void) { return cat_init() < 0 ? NULL : PyModule_Create(&module); }

/* The Python version (major << 8 | minor) this entry was compiled for: the loader asks it through
 * ctypes before importing, since an extension built for another version must not be imported. */
MT_API int mt_entry_python(void) { return PY_VERSION_HEX >> 16; }
