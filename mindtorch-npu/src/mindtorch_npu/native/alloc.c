/* The caching allocator's common case in C (mindtorch_npu.allocator is the reference).

   setup(block, segment, pool, device_state, device, heappop, heappush, small_size, min_block, deferred_limit,
         fallbacks)
       learns where the allocator's classes keep their slots; `fallbacks` are CachingAllocator's
       allocate, free, malloc and free_block, run whenever the case is not the common one
   Hot()
       allocator._Hot with its counters as C int64 fields, read and written by Python as the same attributes;
       the common case below needs its pools' counters to be Hots
   Fast(allocator, storage_type)
       allocate / free / malloc / free_block for one CachingAllocator, bound as its instance attributes
   Empty(dense, allocator, make_tensor, fallback)
       copy.empty(shape, dtype, device) without its Python frame: for a tuple shape found in `dense` ({shape:
       (elements, C-contiguous strides)}), make_tensor(allocator.allocate(elements * dtype.itemsize, device),
       shape, strides, 0, dtype, device); anything else is fallback(shape, dtype, device)

   The common case: an exact-size free block is on top of the stream's pool heap (allocate, malloc), or a
   block goes back to a pool that already has a heap of its size (free, free_block), on a device with no
   record_stream events outstanding, with the allocator's token free. Anything else (carving, splitting,
   new segments, events, a long deferred list, bad arguments) returns to the Python version before
   anything changed. Every counter, block field and heap ends as the Python code leaves it. */

#include "slots.h"

enum { B_PTR, B_SIZE, B_REQUESTED, B_POOL, B_SEG, B_PREV, B_NEXT, B_STATE, B_STREAM_USES, NB };
static const char *B_NAMES[NB] = {"ptr", "size", "requested", "pool", "seg", "prev", "next", "state", "stream_uses"};
enum { G_SIZE, G_USED, NG };
static const char *G_NAMES[NG] = {"size", "used"};
enum { P_DEV, P_HOT, P_OTHER, P_ALL, P_SIZES, P_DEFERRED, NP };
static const char *P_NAMES[NP] = {"dev", "hot", "other", "all", "sizes", "deferred"};
/* Hot's counters, in allocator._Hot's slot order (its docstring says what each counts) */
enum { H_N, H_B, H_R, H_PN, H_PB, H_PR, H_FN, H_FB, H_FR, H_N0, H_B0, H_R0, H_QN, H_QB, H_QR, H_XN, H_XB, H_XR,
       H_SN, H_SB, H_SPN, H_SPB, H_SFN, H_SFB, H_SN0, H_SB0, NH };
static const char *H_NAMES[NH] = {"n",  "b",  "r",  "pn", "pb", "pr", "fn", "fb",  "fr",  "n0",  "b0",  "r0",  "qn",
                                  "qb", "qr", "xn", "xb", "xr", "sn", "sb", "spn", "spb", "sfn", "sfb", "sn0", "sb0"};
enum { D_DEVICE, D_POOLS, D_ACTIVE, D_EVENTS, ND };
static const char *D_NAMES[ND] = {"device", "pools", "active", "events"};

static Py_ssize_t b_off[NB], g_off[NG], p_off[NP], d_off[ND], index_off = -1;
static PyTypeObject *block_type, *segment_type, *pool_type, *dstate_type, *device_type;
static PyObject *heappop_fn, *heappush_fn;
static PyObject *fb_allocate, *fb_free, *fb_malloc, *fb_free_block; /* the Python versions */
static long long small_size, min_block, deferred_limit;
static PyObject *s_drain, *s_index, *s_data, *s_device, *zero;

#define B(o, i) AT(o, b_off[i])
#define G(o, i) AT(o, g_off[i])
#define P(o, i) AT(o, p_off[i])
#define D(o, i) AT(o, d_off[i])

/* the slot at offset `off` of obj takes `v` (a new reference, stolen) */
static inline void put(PyObject *obj, Py_ssize_t off, PyObject *v)
{
    PyObject **at = (PyObject **)((char *)obj + off);
    PyObject *old = *at;
    *at = v;
    Py_XDECREF(old);
}

static int slots_of(PyObject *tp, const char **names, int n, Py_ssize_t *out, PyTypeObject **type)
{
    if (!PyType_Check(tp)) {
        PyErr_SetString(PyExc_TypeError, "setup() takes types");
        return -1;
    }
    for (int i = 0; i < n; i++)
        if ((out[i] = slot_of((PyTypeObject *)tp, names[i])) < 0)
            return -1;
    Py_INCREF(tp);
    Py_XSETREF(*type, (PyTypeObject *)tp);
    return 0;
}

/* ---- integers: read into C while |v| <= 2**62, so sums of two never overflow; larger values go to Python */
#define LIMIT (1LL << 62)

static int small_int(PyObject *x, long long *out)
{
    if (x == NULL || !PyLong_CheckExact(x))
        return 0;
    int overflow;
    long long v = PyLong_AsLongLongAndOverflow(x, &overflow);
    if (overflow || v > LIMIT || v < -LIMIT)
        return 0;
    *out = v;
    return 1;
}

/* ---- Hot: allocator._Hot with C integers. Python reads and writes the counters as attributes of the same
   names (int64, as PyTorch's Stat); the C path below works on copies and stores them when nothing can fail */
typedef struct {
    PyObject_HEAD
    long long v[NH];
    PyObject *qi, *qo; /* lists, as in _Hot */
} Hot;

/* counter i as an attribute: the setter stores nothing when the value does not fit (structmember's T_LONGLONG
   would leave -1 behind) */
static PyObject *hot_get(Hot *h, void *i) { return PyLong_FromLongLong(h->v[(intptr_t)i]); }

static int hot_set(Hot *h, PyObject *x, void *i)
{
    if (x == NULL) {
        PyErr_Format(PyExc_TypeError, "can't delete the counter %s", H_NAMES[(intptr_t)i]);
        return -1;
    }
    long long v = PyLong_AsLongLong(x);
    if (v == -1 && PyErr_Occurred())
        return -1;
    h->v[(intptr_t)i] = v;
    return 0;
}

static PyGetSetDef Hot_getset[NH + 1]; /* filled from H_NAMES at import */
static PyMemberDef Hot_members[] = {
    {"qi", T_OBJECT_EX, offsetof(Hot, qi), 0, NULL},
    {"qo", T_OBJECT_EX, offsetof(Hot, qo), 0, NULL},
    {NULL},
};

static PyObject *Hot_new(PyTypeObject *tp, PyObject *args, PyObject *kw)
{
    if (PyTuple_GET_SIZE(args) || (kw != NULL && PyDict_GET_SIZE(kw))) {
        PyErr_SetString(PyExc_TypeError, "Hot() takes no arguments");
        return NULL;
    }
    Hot *h = (Hot *)tp->tp_alloc(tp, 0); /* zeroed: every counter 0 */
    if (h == NULL)
        return NULL;
    if ((h->qi = Py_BuildValue("[iii]", 0, 0, 0)) == NULL || (h->qo = Py_BuildValue("[iii]", 0, 0, 0)) == NULL)
        Py_CLEAR(h);
    return (PyObject *)h;
}

FIELDS_GC(Hot, qi, 2)

static PyTypeObject HotType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "mindtorch_npu.native._alloc.Hot",
    .tp_basicsize = sizeof(Hot),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "allocator._Hot's counters as C integers (qi, qo stay lists).",
    .tp_new = Hot_new,
    .tp_dealloc = (destructor)Hot_dealloc,
    .tp_traverse = (traverseproc)Hot_traverse,
    .tp_clear = (inquiry)Hot_clear,
    .tp_members = Hot_members,
    .tp_getset = Hot_getset,
};

static int hot_ready(void)
{
    for (intptr_t i = 0; i < NH; i++)
        Hot_getset[i] = (PyGetSetDef){H_NAMES[i], (getter)hot_get, (setter)hot_set, NULL, (void *)i};
    return PyType_Ready(&HotType);
}

/* a pool's three Hots: the kind's and all's counters as copies (the other kind's are only read) */
typedef struct {
    Hot *k, *o, *a; /* the pool's kind, the other kind, all */
    long long kv[NH], av[NH];
    int bad; /* a sum overflowed int64: not the common case (Python raises the setter's OverflowError) */
} counters;

#define K(i) (c->kv[i])
#define O(i) (c->o->v[i])
#define A(i) (c->av[i])

static inline long long add(counters *c, long long x, long long y)
{
    long long r;
    if (__builtin_add_overflow(x, y, &r))
        c->bad = 1;
    return r;
}

static int counters_init(counters *c, PyObject *pool)
{
    PyObject *k = P(pool, P_HOT), *o = P(pool, P_OTHER), *a = P(pool, P_ALL);
    if (k == NULL || o == NULL || a == NULL || Py_TYPE(k) != &HotType || Py_TYPE(o) != &HotType ||
        Py_TYPE(a) != &HotType || k == o || k == a || o == a)
        return 0;
    c->k = (Hot *)k, c->o = (Hot *)o, c->a = (Hot *)a;
    memcpy(c->kv, c->k->v, sizeof c->kv);
    memcpy(c->av, c->a->v, sizeof c->av);
    c->bad = 0;
    return 1;
}

/* stores the new counters: it cannot fail, so it runs once every step that can has succeeded */
static void counters_commit(counters *c)
{
    memcpy(c->k->v, c->kv, sizeof c->kv);
    memcpy(c->a->v, c->av, sizeof c->av);
}

/* _Hot's peak rule: counter i of the kind becomes v, its peak follows; "all" peaks over both kinds */
static void raise_to(counters *c, int i, int peak, long long v)
{
    K(i) = v;
    if (v > K(peak))
        K(peak) = v;
    v = add(c, v, O(i));
    if (v > A(peak))
        A(peak) = v;
}

/* CachingAllocator._inactive_split */
static void inactive_split(counters *c, long long dn, long long db)
{
    if (dn > 0)
        raise_to(c, H_SN, H_SPN, add(c, K(H_SN), dn));
    else if (dn < 0) {
        K(H_SN) = add(c, K(H_SN), dn);
        K(H_SFN) = add(c, K(H_SFN), -dn);
    }
    if (db > 0)
        raise_to(c, H_SB, H_SPB, add(c, K(H_SB), db));
    else if (db < 0) {
        K(H_SB) = add(c, K(H_SB), db);
        K(H_SFB) = add(c, K(H_SFB), -db);
    }
}

/* heapq on a pool's heap of one size. A heap of one entry (the usual case: a step frees what it took) pops as a
   list pops, and onto an empty heap a push is an append: heapq's own steps there, without calling it */
static PyObject *heap_pop(PyObject *stack)
{
    if (PyList_GET_SIZE(stack) != 1)
        return PyObject_CallOneArg(heappop_fn, stack);
    PyObject *top = PyList_GET_ITEM(stack, 0); /* the list's reference, now the caller's */
    Py_SET_SIZE(stack, 0);                     /* list.pop without shrinking the array */
    return top;
}

static int heap_push(PyObject *stack, PyObject *entry)
{
    if (PyList_GET_SIZE(stack) == 0)
        return PyList_Append(stack, entry);
    PyObject *args[2] = {stack, entry};
    PyObject *r = PyObject_Vectorcall(heappush_fn, args, 2, NULL);
    Py_XDECREF(r);
    return r == NULL ? -1 : 0;
}

/* block.state, or -1 when it is not a small int */
static long long state_of(PyObject *block)
{
    long long v;
    return small_int(B(block, B_STATE), &v) ? v : -1;
}

/* whether neighbour `x` (None or a Block) is a free block; -1 when it is neither */
static int free_side(PyObject *x)
{
    if (x == Py_None)
        return 0;
    if (x == NULL || Py_TYPE(x) != block_type)
        return -1;
    long long st = state_of(x);
    return st < 0 ? -1 : st == 0;
}

/* ---- the two halves of the common case (the caller holds the token) ------------------------------------ */

/* CachingAllocator._malloc when an exact-size free block heads the pool's heap: 1 with *out the block (a
   new reference), 0 when it is not that case (nothing changed), -1 on error */
static int take_exact(PyObject *d, PyObject *nbytes_obj, long long nbytes, long long pad, PyObject *stream,
                      PyObject **out)
{
    PyObject *events = D(d, D_EVENTS), *pools = D(d, D_POOLS), *active = D(d, D_ACTIVE);
    if (events == NULL || !PyDict_CheckExact(events) || PyDict_GET_SIZE(events) || pools == NULL ||
        !PyDict_CheckExact(pools) || active == NULL || !PyDict_CheckExact(active))
        return 0;
    long long size = (nbytes + pad + min_block - 1) & -min_block;
    PyObject *pair = PyDict_GetItemWithError(pools, stream);
    if (pair == NULL)
        return PyErr_Occurred() ? -1 : 0;
    if (!PyTuple_CheckExact(pair) || PyTuple_GET_SIZE(pair) != 2)
        return 0;
    PyObject *pool = PyTuple_GET_ITEM(pair, size <= small_size ? 0 : 1);
    PyObject *sizes = Py_TYPE(pool) == pool_type ? P(pool, P_SIZES) : NULL;
    if (sizes == NULL || !PyDict_CheckExact(sizes))
        return 0;
    PyObject *key = PyLong_FromLongLong(size);
    if (key == NULL)
        return -1;
    PyObject *stack = PyDict_GetItemWithError(sizes, key);
    Py_DECREF(key);
    if (stack == NULL)
        return PyErr_Occurred() ? -1 : 0;
    if (!PyList_CheckExact(stack) || PyList_GET_SIZE(stack) == 0)
        return 0;
    PyObject *top = PyList_GET_ITEM(stack, 0);
    if (!PyTuple_CheckExact(top) || PyTuple_GET_SIZE(top) != 2)
        return 0;
    PyObject *block = PyTuple_GET_ITEM(top, 1);
    if (Py_TYPE(block) != block_type)
        return 0;
    PyObject *seg = B(block, B_SEG), *prev = B(block, B_PREV), *next = B(block, B_NEXT), *ptr = B(block, B_PTR);
    long long s, used, seg_size;
    if (seg == NULL || Py_TYPE(seg) != segment_type || ptr == NULL || !small_int(B(block, B_SIZE), &s) ||
        !small_int(G(seg, G_USED), &used) || !small_int(G(seg, G_SIZE), &seg_size))
        return 0;
    int fp = free_side(prev), fn = free_side(next);
    if (fp < 0 || fn < 0)
        return 0;
    counters cs, *c = &cs;
    if (!counters_init(c, pool) || A(H_QN) != 0)
        return 0; /* blocks wait for events: the active peaks move too */
    if (prev != Py_None || next != Py_None) {
        int free_sides = fp + fn;
        if (!used)
            inactive_split(c, free_sides, seg_size - s);
        else {
            K(H_SB) = add(c, K(H_SB), -s);
            K(H_SFB) = add(c, K(H_SFB), s);
            if (free_sides == 0) {
                K(H_SN) = add(c, K(H_SN), -1);
                K(H_SFN) = add(c, K(H_SFN), 1);
            } else if (free_sides == 2)
                inactive_split(c, 1, 0);
        }
    }
    raise_to(c, H_N, H_PN, add(c, K(H_N), 1));
    raise_to(c, H_B, H_PB, add(c, K(H_B), s));
    raise_to(c, H_R, H_PR, add(c, K(H_R), nbytes));
    if (c->bad)
        return 0;
    /* the steps that can fail first, each undone if a later one does; then the stores that cannot */
    PyObject *used_obj = PyLong_FromLongLong(used + 1);
    if (used_obj == NULL)
        return -1;
    Py_INCREF(block);
    if (PyDict_SetItem(active, ptr, block) < 0) {
        Py_DECREF(used_obj);
        Py_DECREF(block);
        return -1;
    }
    PyObject *popped = heap_pop(stack);
    if (popped == NULL) {
        PyObject *type, *value, *tb;
        PyErr_Fetch(&type, &value, &tb);
        if (PyDict_DelItem(active, ptr) < 0)
            PyErr_Clear();
        PyErr_Restore(type, value, tb);
        Py_DECREF(used_obj);
        Py_DECREF(block);
        return -1;
    }
    Py_DECREF(popped); /* `top`: the heap's head */
    put(block, b_off[B_STATE], PyLong_FromLong(1)); /* _ALLOCATED: a cached small int */
    Py_INCREF(nbytes_obj);
    put(block, b_off[B_REQUESTED], nbytes_obj);
    counters_commit(c);
    put(seg, g_off[G_USED], used_obj);
    *out = block;
    return 1;
}

/* CachingAllocator._release of allocated `block` (under key `ptr` of d.active) when it has no stream uses and
   its pool has a heap of its size: 1 done, 0 not that case (nothing changed), -1 on error */
static int give_back(PyObject *d, PyObject *block, PyObject *ptr)
{
    PyObject *active = D(d, D_ACTIVE), *events = D(d, D_EVENTS);
    if (active == NULL || !PyDict_CheckExact(active) || events == NULL || !PyDict_CheckExact(events) ||
        PyDict_GET_SIZE(events))
        return 0;
    PyObject *uses = B(block, B_STREAM_USES);
    if (uses == NULL || (uses != Py_None && (!PyAnySet_CheckExact(uses) || PySet_GET_SIZE(uses))))
        return 0;
    if (state_of(block) != 1)
        return 0;
    PyObject *pool = B(block, B_POOL), *seg = B(block, B_SEG), *prev = B(block, B_PREV), *next = B(block, B_NEXT);
    PyObject *sizes = pool != NULL && Py_TYPE(pool) == pool_type ? P(pool, P_SIZES) : NULL;
    PyObject *deferred = sizes != NULL ? P(pool, P_DEFERRED) : NULL;
    PyObject *size_obj = B(block, B_SIZE), *block_ptr = B(block, B_PTR);
    long long s, r, used, seg_size;
    if (sizes == NULL || !PyDict_CheckExact(sizes) || deferred == NULL || !PyList_CheckExact(deferred) ||
        seg == NULL || Py_TYPE(seg) != segment_type || block_ptr == NULL || !small_int(size_obj, &s) ||
        !small_int(B(block, B_REQUESTED), &r) || !small_int(G(seg, G_USED), &used) ||
        !small_int(G(seg, G_SIZE), &seg_size))
        return 0;
    PyObject *stack = PyDict_GetItemWithError(sizes, size_obj);
    if (stack == NULL)
        return PyErr_Occurred() ? -1 : 0; /* a size new to the pool: its sorted keys grow */
    if (!PyList_CheckExact(stack))
        return 0;
    int fp = free_side(prev), fn = free_side(next);
    if (fp < 0 || fn < 0)
        return 0;
    int free_sides = fp + fn, split = prev != Py_None || next != Py_None, defer = 0;
    if (split && free_sides) {
        Py_ssize_t n = PyList_GET_SIZE(deferred);
        defer = n == 0 || PyList_GET_ITEM(deferred, n - 1) != block;
        if (defer && n + 1 > deferred_limit)
            return 0; /* the list is tidied */
    }
    counters cs, *c = &cs;
    if (!counters_init(c, pool))
        return 0;
    K(H_N) = add(c, K(H_N), -1);
    K(H_B) = add(c, K(H_B), -s);
    K(H_R) = add(c, K(H_R), -r);
    K(H_FN) = add(c, K(H_FN), 1);
    K(H_FB) = add(c, K(H_FB), s);
    K(H_FR) = add(c, K(H_FR), r);
    used -= 1;
    if (split) {
        if (!used)
            inactive_split(c, -free_sides, s - seg_size);
        else if (free_sides == 1)
            raise_to(c, H_SB, H_SPB, add(c, K(H_SB), s));
        else
            inactive_split(c, 1 - free_sides, s);
    }
    if (c->bad)
        return 0;
    PyObject *used_obj = PyLong_FromLongLong(used);
    PyObject *entry = used_obj != NULL ? PyTuple_Pack(2, block_ptr, block) : NULL;
    if (entry == NULL) {
        Py_XDECREF(used_obj);
        return -1;
    }
    Py_INCREF(block); /* d.active held it */
    Py_INCREF(stack);
    int rc = -1;
    if (PyDict_DelItem(active, ptr) < 0)
        goto done;
    if (heap_push(stack, entry) < 0) { /* still allocated, as free() leaves it when _release raises */
        PyObject *type, *value, *tb;
        PyErr_Fetch(&type, &value, &tb);
        if (PyDict_SetItem(active, ptr, block) < 0)
            PyErr_Clear();
        PyErr_Restore(type, value, tb);
        goto done;
    }
    /* the block is free from here: what follows cannot fail, but the note of a merge still to do */
    counters_commit(c);
    put(block, b_off[B_STATE], PyLong_FromLong(0)); /* _FREE */
    put(seg, g_off[G_USED], used_obj);
    used_obj = NULL;
    if (defer && PyList_Append(deferred, block) < 0)
        goto done;
    rc = 1;
done:
    Py_XDECREF(used_obj);
    Py_DECREF(entry);
    Py_DECREF(stack);
    Py_DECREF(block);
    return rc;
}

/* ---- Fast: one allocator's entry points ------------------------------------------------------------------ */

typedef struct {
    PyObject_HEAD
    PyObject *owner;          /* the CachingAllocator */
    PyObject *token;          /* its _token list */
    PyObject *deferred;       /* its _deferred list */
    PyObject *devices;        /* its _devices dict */
    PyObject *current_stream; /* its _current_stream */
    PyObject *storage_type;
    PyObject *nbytes_type; /* Storage keeps nbytes as this int subclass; NULL: build storages by calling the class */
    PyObject *nbytes_cache; /* {nbytes: nbytes_type(nbytes)} */
    long long pad;
} Fast;

/* Storage's slots, for a Storage built without its Python __init__ when build_storage() checked that is the same */
enum { S_DEVICE, S_NBYTES, S_DATA, S_ALLOCATOR, NS };
static const char *S_NAMES[NS] = {"device", "nbytes", "data", "_allocator"};
static Py_ssize_t s_off[NS];

/* whether Storage(device, nbytes, data, allocator) only stores its arguments (nbytes as an int subclass): a
   probe built the Python way must read back as the slots say; sets f->nbytes_type when it does */
static int learn_storage(Fast *f, PyTypeObject *tp)
{
    Py_ssize_t off[NS];
    for (int i = 0; i < NS; i++)
        if ((off[i] = slot_of(tp, S_NAMES[i])) < 0) {
            PyErr_Clear();
            return 0;
        }
    if ((tp->tp_new != PyBaseObject_Type.tp_new && tp->tp_new != PyType_GenericNew) || tp->tp_dictoffset != 0)
        return 0;
    PyObject *device = PyTuple_New(0), *seven = PyLong_FromLong(7), *data = PyLong_FromLong(4097);
    PyObject *probe = NULL;
    if (device != NULL && seven != NULL && data != NULL) {
        PyObject *args[4] = {device, seven, data, Py_None};
        probe = PyObject_Vectorcall((PyObject *)tp, args, 4, NULL);
    }
    int ok = 0;
    if (probe != NULL && Py_TYPE(probe) == tp) {
        PyObject *nb = AT(probe, off[S_NBYTES]);
        ok = AT(probe, off[S_DEVICE]) == device && AT(probe, off[S_DATA]) == data &&
             AT(probe, off[S_ALLOCATOR]) == Py_None && nb != NULL && PyLong_Check(nb) &&
             PyLong_AsLong(nb) == 7 && Py_TYPE(nb)->tp_dictoffset == 0;
        if (ok) {
            memcpy(s_off, off, sizeof off);
            Py_INCREF(Py_TYPE(nb));
            f->nbytes_type = (PyObject *)Py_TYPE(nb);
        }
    }
    Py_XDECREF(probe);
    Py_XDECREF(device);
    Py_XDECREF(seven);
    Py_XDECREF(data);
    PyErr_Clear();
    return ok;
}

/* Storage(device, nbytes, data, owner) */
static PyObject *new_storage(Fast *f, PyObject *device, PyObject *nbytes, PyObject *data)
{
    if (f->nbytes_type == NULL) {
        PyObject *args[4] = {device, nbytes, data, f->owner};
        return PyObject_Vectorcall(f->storage_type, args, 4, NULL);
    }
    /* results come in a few sizes, over and over: one immutable byte count per size */
    PyObject *nb = PyDict_GetItemWithError(f->nbytes_cache, nbytes);
    if (nb != NULL)
        Py_INCREF(nb);
    else if (PyErr_Occurred() || (nb = PyObject_CallOneArg(f->nbytes_type, nbytes)) == NULL)
        return NULL;
    else if (PyDict_GET_SIZE(f->nbytes_cache) < 4096 && PyDict_SetItem(f->nbytes_cache, nbytes, nb) < 0) {
        Py_DECREF(nb);
        return NULL;
    }
    PyTypeObject *tp = (PyTypeObject *)f->storage_type;
    PyObject *st = tp->tp_alloc(tp, 0);
    if (st == NULL) {
        Py_DECREF(nb);
        return NULL;
    }
    Py_INCREF(device);
    Py_INCREF(data);
    Py_INCREF(f->owner);
    put(st, s_off[S_DEVICE], device);
    put(st, s_off[S_NBYTES], nb);
    put(st, s_off[S_DATA], data);
    put(st, s_off[S_ALLOCATOR], f->owner);
    return st;
}

/* the token protocol of CachingAllocator: list.pop / list.append on a list of True (the GIL is held) */
static int take_token(PyObject *token)
{
    Py_ssize_t n = PyList_GET_SIZE(token);
    if (n == 0)
        return 0;
    PyObject *item = PyList_GET_ITEM(token, n - 1);
    Py_SET_SIZE(token, n - 1); /* list.pop without shrinking the array */
    Py_DECREF(item);
    return 1;
}

static int drain(Fast *f)
{
    if (PyList_GET_SIZE(f->deferred) == 0)
        return 0;
    PyObject *r = PyObject_CallMethodNoArgs(f->owner, s_drain);
    Py_XDECREF(r);
    return r == NULL ? -1 : 0;
}

/* drain() run as a `finally:` block runs it: an exception it raises replaces the one being raised */
static void drain_finally(Fast *f)
{
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    if (drain(f) < 0) {
        Py_XDECREF(type);
        Py_XDECREF(value);
        Py_XDECREF(tb);
    } else
        PyErr_Restore(type, value, tb);
}

/* the Python version with the same arguments */
static PyObject *fallback(Fast *f, PyObject *fn, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf), total = nargs + (kwnames ? PyTuple_GET_SIZE(kwnames) : 0);
    PyObject *small[8], **stack = small;
    if (total + 1 > 8 && (stack = PyMem_Malloc((total + 1) * sizeof(PyObject *))) == NULL)
        return PyErr_NoMemory();
    stack[0] = f->owner;
    for (Py_ssize_t i = 0; i < total; i++)
        stack[i + 1] = args[i];
    PyObject *r = PyObject_Vectorcall(fn, stack, nargs + 1, kwnames);
    if (stack != small)
        PyMem_Free(stack);
    return r;
}

/* the allocator state of device `index`, borrowed; NULL (no error) when there is none yet */
static PyObject *device_state(Fast *f, PyObject *index)
{
    PyObject *d = PyDict_GetItemWithError(f->devices, index);
    return d != NULL && Py_TYPE(d) == dstate_type ? d : NULL;
}

static PyObject *device_index(PyObject *device)
{
    if (device != NULL && Py_TYPE(device) == device_type) {
        PyObject *index = AT(device, index_off);
        Py_XINCREF(index);
        if (index == NULL)
            PyErr_SetString(PyExc_AttributeError, "index");
        return index;
    }
    return PyObject_GetAttr(device, s_index);
}

/* allocate(nbytes, device) -> Storage */
static PyObject *fast_allocate(Fast *f, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (nargs != 2 || kwnames != NULL)
        return fallback(f, fb_allocate, args, nargsf, kwnames);
    PyObject *nbytes_obj = args[0];
    long long nbytes;
    if (!small_int(nbytes_obj, &nbytes) || nbytes <= 0)
        return fallback(f, fb_allocate, args, nargsf, kwnames);
    PyObject *index = device_index(args[1]);
    if (index == NULL)
        return NULL;
    PyObject *d = index != Py_None ? device_state(f, index) : NULL;
    if (d == NULL) {
        Py_DECREF(index);
        return PyErr_Occurred() ? NULL : fallback(f, fb_allocate, args, nargsf, kwnames);
    }
    PyObject *stream = PyObject_CallOneArg(f->current_stream, index);
    Py_DECREF(index);
    if (stream == NULL)
        return NULL;
    if (!take_token(f->token)) {
        Py_DECREF(stream);
        return fallback(f, fb_allocate, args, nargsf, kwnames);
    }
    Py_INCREF(d);
    PyObject *block = NULL;
    int rc = take_exact(d, nbytes_obj, nbytes, f->pad, stream, &block);
    Py_DECREF(stream);
    if (PyList_Append(f->token, Py_True) < 0)
        rc = -1;
    if (rc <= 0) {
        Py_DECREF(d);
        Py_XDECREF(block);
        return rc < 0 ? NULL : fallback(f, fb_allocate, args, nargsf, kwnames);
    }
    PyObject *storage = drain(f) == 0 ? new_storage(f, D(d, D_DEVICE), nbytes_obj, B(block, B_PTR)) : NULL;
    Py_DECREF(block);
    Py_DECREF(d);
    return storage;
}

/* free(storage) */
static PyObject *fast_free(Fast *f, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    if (PyVectorcall_NARGS(nargsf) != 1 || kwnames != NULL)
        return fallback(f, fb_free, args, nargsf, kwnames);
    PyObject *storage = args[0], *ptr, *dev;
    if (f->nbytes_type != NULL && Py_TYPE(storage) == (PyTypeObject *)f->storage_type) {
        ptr = AT(storage, s_off[S_DATA]), dev = AT(storage, s_off[S_DEVICE]);
        if (ptr == NULL || dev == NULL)
            return fallback(f, fb_free, args, nargsf, kwnames);
        Py_INCREF(ptr);
        Py_INCREF(dev);
    } else {
        if ((ptr = PyObject_GetAttr(storage, s_data)) == NULL)
            return NULL;
        if ((dev = PyObject_GetAttr(storage, s_device)) == NULL) {
            Py_DECREF(ptr);
            return NULL;
        }
    }
    long long p;
    if (!small_int(ptr, &p) || p == 0) {
        Py_DECREF(ptr);
        Py_DECREF(dev);
        return fallback(f, fb_free, args, nargsf, kwnames);
    }
    PyObject *index = device_index(dev);
    Py_DECREF(dev);
    if (index == NULL) {
        Py_DECREF(ptr);
        return NULL;
    }
    int rc = 0;
    if (take_token(f->token)) {
        PyObject *d = device_state(f, index);
        PyObject *block = d != NULL ? PyDict_GetItemWithError(D(d, D_ACTIVE), ptr) : NULL;
        if (block != NULL && Py_TYPE(block) == block_type)
            rc = give_back(d, block, ptr);
        else if (PyErr_Occurred())
            rc = -1;
        if (PyList_Append(f->token, Py_True) < 0)
            rc = -1;
    }
    Py_DECREF(index);
    Py_DECREF(ptr);
    if (rc == 0)
        return fallback(f, fb_free, args, nargsf, kwnames);
    if (rc < 0 || drain(f) < 0)
        return NULL;
    Py_RETURN_NONE;
}

/* malloc(nbytes, device_index=None, stream=None) -> Block */
static PyObject *fast_malloc(Fast *f, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (nargs < 2 || nargs > 3 || kwnames != NULL || !PyLong_CheckExact(args[1]))
        return fallback(f, fb_malloc, args, nargsf, kwnames);
    long long nbytes;
    PyObject *stream = nargs == 3 ? args[2] : Py_None;
    PyObject *d = device_state(f, args[1]);
    if (d == NULL || !small_int(args[0], &nbytes) || nbytes <= 0 || (stream != Py_None && !PyLong_CheckExact(stream)))
        return PyErr_Occurred() ? NULL : fallback(f, fb_malloc, args, nargsf, kwnames);
    if (stream == Py_None) {
        if ((stream = PyObject_CallOneArg(f->current_stream, args[1])) == NULL)
            return NULL;
    } else
        Py_INCREF(stream);
    if (!take_token(f->token)) {
        Py_DECREF(stream);
        return fallback(f, fb_malloc, args, nargsf, kwnames);
    }
    PyObject *block = NULL;
    int rc = take_exact(d, args[0], nbytes, f->pad, stream, &block);
    Py_DECREF(stream);
    if (PyList_Append(f->token, Py_True) < 0 && rc >= 0) {
        Py_CLEAR(block);
        rc = -1;
    }
    if (rc == 0)
        return fallback(f, fb_malloc, args, nargsf, kwnames);
    drain_finally(f);
    if (PyErr_Occurred())
        Py_CLEAR(block);
    return block;
}

/* free_block(block) */
static PyObject *fast_free_block(Fast *f, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    if (PyVectorcall_NARGS(nargsf) != 1 || kwnames != NULL || Py_TYPE(args[0]) != block_type)
        return fallback(f, fb_free_block, args, nargsf, kwnames);
    PyObject *block = args[0], *pool = B(block, B_POOL), *ptr = B(block, B_PTR);
    PyObject *d = pool != NULL && Py_TYPE(pool) == pool_type ? P(pool, P_DEV) : NULL;
    if (d == NULL || Py_TYPE(d) != dstate_type || ptr == NULL || !take_token(f->token))
        return fallback(f, fb_free_block, args, nargsf, kwnames);
    Py_INCREF(d);
    Py_INCREF(ptr);
    int rc = 0;
    PyObject *active = D(d, D_ACTIVE);
    PyObject *held = active != NULL && PyDict_CheckExact(active) ? PyDict_GetItemWithError(active, ptr) : NULL;
    if (held == block)
        rc = give_back(d, block, ptr);
    else if (PyErr_Occurred())
        rc = -1;
    Py_DECREF(ptr);
    Py_DECREF(d);
    if (PyList_Append(f->token, Py_True) < 0)
        rc = -1;
    if (rc == 0)
        return fallback(f, fb_free_block, args, nargsf, kwnames);
    drain_finally(f);
    if (PyErr_Occurred())
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *Fast_new(PyTypeObject *tp, PyObject *args, PyObject *kw)
{
    PyObject *owner, *storage_type;
    if (fb_allocate == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "mindtorch_npu.native._alloc.setup() was not called");
        return NULL;
    }
    if (!PyArg_ParseTuple(args, "OO!:Fast", &owner, &PyType_Type, &storage_type))
        return NULL;
    PyObject *token = PyObject_GetAttrString(owner, "_token");
    PyObject *deferred = PyObject_GetAttrString(owner, "_deferred");
    PyObject *devices = PyObject_GetAttrString(owner, "_devices");
    PyObject *current = PyObject_GetAttrString(owner, "_current_stream");
    PyObject *pad = PyObject_GetAttrString(owner, "_pad");
    Fast *f = NULL;
    long long pad_v;
    if (token == NULL || deferred == NULL || devices == NULL || current == NULL || pad == NULL)
        goto out;
    if (!PyList_CheckExact(token) || !PyList_CheckExact(deferred) || !PyDict_CheckExact(devices) ||
        !small_int(pad, &pad_v) || pad_v < 0) {
        PyErr_SetString(PyExc_TypeError, "Fast: the allocator's _token, _deferred, _devices or _pad is not as expected");
        goto out;
    }
    if ((f = (Fast *)tp->tp_alloc(tp, 0)) == NULL)
        goto out;
    Py_INCREF(owner);
    Py_INCREF(storage_type);
    f->owner = owner, f->storage_type = storage_type, f->pad = pad_v;
    f->token = token, f->deferred = deferred, f->devices = devices, f->current_stream = current;
    token = deferred = devices = current = NULL;
    if ((f->nbytes_cache = PyDict_New()) == NULL) {
        Py_CLEAR(f);
        goto out;
    }
    learn_storage(f, (PyTypeObject *)storage_type);
out:
    Py_XDECREF(token);
    Py_XDECREF(deferred);
    Py_XDECREF(devices);
    Py_XDECREF(current);
    Py_XDECREF(pad);
    return (PyObject *)f;
}

FIELDS_GC(Fast, owner, 8)

/* a cleared Fast (the garbage collector broke a cycle) may still be called by a Storage's __del__ */
#define GUARD(name)                                                                                          \
    static PyObject *name##_m(Fast *f, PyObject *const *args, size_t nargsf, PyObject *kwnames)             \
    {                                                                                                        \
        if (f->owner == NULL) {                                                                              \
            PyErr_SetString(PyExc_RuntimeError, "the allocator is gone");                                    \
            return NULL;                                                                                     \
        }                                                                                                    \
        return name(f, args, nargsf, kwnames);                                                               \
    }
GUARD(fast_allocate)
GUARD(fast_free)
GUARD(fast_malloc)
GUARD(fast_free_block)

#define FASTM(name, fn, doc) {name, (PyCFunction)(void (*)(void))fn, METH_FASTCALL | METH_KEYWORDS, doc}
static PyMethodDef Fast_methods[] = {
    FASTM("allocate", fast_allocate_m, "CachingAllocator.allocate, its common case in C."),
    FASTM("free", fast_free_m, "CachingAllocator.free, its common case in C."),
    FASTM("malloc", fast_malloc_m, "CachingAllocator.malloc, its common case in C."),
    FASTM("free_block", fast_free_block_m, "CachingAllocator.free_block, its common case in C."),
    {NULL},
};

static PyTypeObject FastType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "mindtorch_npu.native._alloc.Fast",
    .tp_basicsize = sizeof(Fast),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "The common case of one CachingAllocator's allocate/free/malloc/free_block.",
    .tp_new = Fast_new,
    .tp_dealloc = (destructor)Fast_dealloc,
    .tp_traverse = (traverseproc)Fast_traverse,
    .tp_clear = (inquiry)Fast_clear,
    .tp_methods = Fast_methods,
};

static PyObject *setup(PyObject *self, PyObject *args)
{
    PyObject *bt, *gt, *pt, *dt, *vt, *pop, *push, *fallbacks;
    long long small, minb, limit;
    if (!PyArg_ParseTuple(args, "OOOOOOOLLLO!:setup", &bt, &gt, &pt, &dt, &vt, &pop, &push, &small, &minb, &limit,
                          &PyTuple_Type, &fallbacks))
        return NULL;
    if (PyTuple_GET_SIZE(fallbacks) != 4 || minb <= 0 || (minb & (minb - 1))) {
        PyErr_SetString(PyExc_ValueError, "setup: four fallbacks and a power-of-two block size");
        return NULL;
    }
    Py_ssize_t vi;
    if (slots_of(bt, B_NAMES, NB, b_off, &block_type) < 0 || slots_of(gt, G_NAMES, NG, g_off, &segment_type) < 0 ||
        slots_of(pt, P_NAMES, NP, p_off, &pool_type) < 0 || slots_of(dt, D_NAMES, ND, d_off, &dstate_type) < 0)
        return NULL;
    const char *vnames[1] = {"index"};
    if (slots_of(vt, vnames, 1, &vi, &device_type) < 0)
        return NULL;
    index_off = vi;
    small_size = small, min_block = minb, deferred_limit = limit;
    Py_INCREF(pop);
    Py_XSETREF(heappop_fn, pop);
    Py_INCREF(push);
    Py_XSETREF(heappush_fn, push);
    PyObject **fb[4] = {&fb_allocate, &fb_free, &fb_malloc, &fb_free_block};
    for (int i = 0; i < 4; i++) {
        PyObject *fn = PyTuple_GET_ITEM(fallbacks, i);
        Py_INCREF(fn);
        Py_XSETREF(*fb[i], fn);
    }
    Py_RETURN_NONE;
}

/* ---- Empty: copy.empty ----------------------------------------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject *dense, *allocator, *make_tensor, *fallback;
} Empty;

static PyObject *s_allocate, *s_itemsize;

static PyObject *empty_call(Empty *e, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    PyObject *dense = NULL;
    if (nargs == 3 && kwnames == NULL && PyTuple_CheckExact(args[0])) {
        dense = PyDict_GetItemWithError(e->dense, args[0]);
        if (dense == NULL && PyErr_Occurred())
            return NULL;
    }
    if (dense == NULL || !PyTuple_CheckExact(dense) || PyTuple_GET_SIZE(dense) != 2)
        return PyObject_Vectorcall(e->fallback, args, nargsf, kwnames);
    PyObject *itemsize = PyObject_GetAttr(args[1], s_itemsize);
    if (itemsize == NULL)
        return NULL;
    PyObject *nbytes = PyNumber_Multiply(PyTuple_GET_ITEM(dense, 0), itemsize);
    Py_DECREF(itemsize);
    if (nbytes == NULL)
        return NULL;
    PyObject *aargs[3] = {e->allocator, nbytes, args[2]};
    PyObject *storage = PyObject_VectorcallMethod(s_allocate, aargs, 3 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
    Py_DECREF(nbytes);
    if (storage == NULL)
        return NULL;
    PyObject *targs[6] = {storage, args[0], PyTuple_GET_ITEM(dense, 1), zero, args[1], args[2]};
    PyObject *t = PyObject_Vectorcall(e->make_tensor, targs, 6, NULL);
    Py_DECREF(storage);
    return t;
}

static PyObject *Empty_new(PyTypeObject *tp, PyObject *args, PyObject *kw)
{
    PyObject *dense, *allocator, *make, *fallback;
    if (!PyArg_ParseTuple(args, "O!OOO:Empty", &PyDict_Type, &dense, &allocator, &make, &fallback))
        return NULL;
    Empty *e = (Empty *)tp->tp_alloc(tp, 0);
    if (e == NULL)
        return NULL;
    e->dense = Py_NewRef(dense), e->allocator = Py_NewRef(allocator);
    e->make_tensor = Py_NewRef(make), e->fallback = Py_NewRef(fallback);
    e->vectorcall = (vectorcallfunc)empty_call;
    return (PyObject *)e;
}

FIELDS_GC(Empty, dense, 4)

CALLABLE_TYPE(Empty, "mindtorch_npu.native._alloc.Empty",
              "copy.empty in C: empty(shape, dtype, device).", NULL);

static PyMethodDef methods[] = {
    {"setup", setup, METH_VARARGS, "Learn the allocator classes' slots and the Python versions to fall back on."},
    {NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "mindtorch_npu.native._alloc",
    .m_size = -1,
    .m_methods = methods,
};

PyMODINIT_FUNC PyInit__alloc(void)
{
    s_drain = PyUnicode_InternFromString("_drain");
    s_index = PyUnicode_InternFromString("index");
    s_data = PyUnicode_InternFromString("data");
    s_device = PyUnicode_InternFromString("device");
    zero = PyLong_FromLong(0);
    s_allocate = PyUnicode_InternFromString("allocate");
    s_itemsize = PyUnicode_InternFromString("itemsize");
    if (s_allocate == NULL || s_itemsize == NULL || PyType_Ready(&EmptyType) < 0)
        return NULL;
    if (s_drain == NULL || s_index == NULL || s_data == NULL || s_device == NULL || zero == NULL ||
        PyType_Ready(&FastType) < 0 || hot_ready() < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    PyTypeObject *types[3] = {&FastType, &EmptyType, &HotType};
    if (add_types(m, types, 3) < 0)
        Py_CLEAR(m);
    return m;
}
