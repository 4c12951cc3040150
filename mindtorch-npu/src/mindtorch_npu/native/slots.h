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

#endif
