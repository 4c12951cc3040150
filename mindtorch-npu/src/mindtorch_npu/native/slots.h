/* Reading the __slots__ of the Python classes a compiled twin mirrors: a slot's byte offset, learnt once from
   its member descriptor, then read and written like a struct field. */
#ifndef MINDTORCH_NPU_SLOTS_H
#define MINDTORCH_NPU_SLOTS_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

/* the object slot at byte offset `off` of obj (borrowed, NULL when unset) */
#define AT(obj, off) (*(PyObject **)((char *)(obj) + (off)))

/* the offset of the object slot `name` of type tp (its own or a base's), or -1 with TypeError set */
static Py_ssize_t slot_of(PyTypeObject *tp, const char *name)
{
    PyObject *key = PyUnicode_FromString(name);
    if (key == NULL)
        return -1;
    PyObject *d = _PyType_Lookup(tp, key); /* borrowed; along the MRO */
    Py_DECREF(key);
    if (d == NULL || Py_TYPE(d) != &PyMemberDescr_Type || ((PyMemberDescrObject *)d)->d_member->type != T_OBJECT_EX) {
        PyErr_Format(PyExc_TypeError, "%s has no slot %s", tp->tp_name, name);
        return -1;
    }
    return ((PyMemberDescrObject *)d)->d_member->offset;
}

/* A compiled type whose object fields are one run of N PyObject pointers from FIRST: its garbage-collector
   support (T_traverse, T_clear, T_dealloc) in one line */
#define FIELDS_GC(T, FIRST, N)                                                                                   \
    static PyObject **T##_fields(T *o) { return (PyObject **)((char *)o + offsetof(T, FIRST)); }                \
    static int T##_traverse(T *o, visitproc visit, void *arg)                                                   \
    {                                                                                                           \
        for (int i = 0; i < (N); i++)                                                                           \
            Py_VISIT(T##_fields(o)[i]);                                                                         \
        return 0;                                                                                               \
    }                                                                                                           \
    static int T##_clear(T *o)                                                                                  \
    {                                                                                                           \
        for (int i = 0; i < (N); i++)                                                                           \
            Py_CLEAR(T##_fields(o)[i]);                                                                         \
        return 0;                                                                                               \
    }                                                                                                           \
    static void T##_dealloc(T *o)                                                                              \
    {                                                                                                           \
        PyObject_GC_UnTrack(o);                                                                                 \
        T##_clear(o);                                                                                           \
        Py_TYPE(o)->tp_free((PyObject *)o);                                                                     \
    }

/* the type object of a callable T (a `vectorcall` field, T_new, FIELDS_GC) named NAME */
#define CALLABLE_TYPE(T, NAME, DOC, MEMBERS)                                                                    \
    static PyTypeObject T##Type = {                                                                             \
        PyVarObject_HEAD_INIT(NULL, 0).tp_name = NAME,                                                          \
        .tp_basicsize = sizeof(T),                                                                              \
        .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,                        \
        .tp_doc = DOC,                                                                                          \
        .tp_new = T##_new,                                                                                      \
        .tp_call = PyVectorcall_Call,                                                                           \
        .tp_vectorcall_offset = offsetof(T, vectorcall),                                                        \
        .tp_traverse = (traverseproc)T##_traverse,                                                              \
        .tp_clear = (inquiry)T##_clear,                                                                         \
        .tp_dealloc = (destructor)T##_dealloc,                                                                  \
        .tp_members = MEMBERS,                                                                                  \
    }

/* adds each type to module m under its name after the last dot: 0, or -1 with an exception */
static inline int add_types(PyObject *m, PyTypeObject **types, int n)
{
    for (int i = 0; i < n; i++) {
        const char *dot = strrchr(types[i]->tp_name, '.');
        Py_INCREF(types[i]);
        if (PyModule_AddObject(m, dot ? dot + 1 : types[i]->tp_name, (PyObject *)types[i]) < 0) {
            Py_DECREF(types[i]);
            return -1;
        }
    }
    return 0;
}

#endif
