/* libascendcl.so: init, devices, device memory, streams (one worker thread each), events, error messages. */
#define _GNU_SOURCE
#include "aclsim.h"

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define GRAIN 512u          /* allocation granularity */
#define PUNCH_MIN (64u << 10) /* freed blocks at least this large give their pages back */
#define SPIN_NS 50000u        /* an idle worker polls this long before sleeping on its condition */

/* ---------------------------------------------------------------- errors and counters */
static _Thread_local char t_err[1024];
static _Thread_local int t_has_err;

EXPORT void aclsim_set_err(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t_err, sizeof t_err, fmt, ap);
    va_end(ap);
    t_has_err = 1;
}

/* gets and clears (acl docs): the returned text stays valid until this thread's next call */
EXPORT const char *aclGetRecentErrMsg(void) {
    static _Thread_local char out[sizeof t_err];
    if (!t_has_err) return NULL;
    memcpy(out, t_err, sizeof out);
    t_has_err = 0;
    return out;
}

static _Atomic int64_t g_count[K_COUNT];
static const char *const k_names[K_COUNT] = {
    "device_allocations", "device_bytes", "host_allocations", "streams", "events", "tensors", "scalars",
    "int_arrays", "float_arrays", "bool_arrays", "tensor_lists", "scalar_lists", "executors", "hccl_comms",
    "model_ris"};

EXPORT void aclsim_count(int kind, int64_t delta) { atomic_fetch_add(&g_count[kind], delta); }

EXPORT int64_t aclsimLiveCount(const char *kind) {
    if (!kind) return -1;
    for (int k = 0; k < K_COUNT; k++)
        if (!strcmp(kind, k_names[k])) return atomic_load(&g_count[k]);
    return -1;
}

#define FAIL(code, ...) do { aclsim_set_err(__VA_ARGS__); return (code); } while (0)

/* ---------------------------------------------------------------- state */
typedef struct block {
    uint64_t off, size;
    int used;
    struct block *prev, *next;
} block;

typedef struct stream stream;
typedef struct model model;
typedef struct {
    int fd;
    char *host;    /* the simulator's own read-write mapping of the device memory */
    char *dbase;   /* reserved PROT_NONE range handed out as device addresses */
    block *blocks; /* address-ordered list covering the whole range */
    uint64_t used;
    int refs;      /* aclrtSetDevice count */
    stream *dflt;
} device;

enum { T_FN, T_RECORD, T_WAIT, T_RESET };
typedef struct event event;
typedef struct task {
    int kind;
    int (*run)(void *, int, char *, size_t);
    void (*release)(void *);
    void *arg;
    event *ev;
    uint64_t target;
    int sync, done, rc; /* sync tasks are owned by the waiting caller, their error returned directly */
    char msg[512];
    struct task *next;
} task;

struct stream {
    uint64_t id;
    int dev, is_default, paused, stop, running, sleeping, refs;
    task *head, *tail;
    int sticky;
    char sticky_msg[512];
    model *cap; /* the model instance this stream's tasks are captured into (aclmdlRICaptureBegin), or NULL */
    pthread_t th;
    pthread_cond_t cv;
};

struct event {
    uint64_t id;
    uint32_t flags;
    uint64_t rec_seq;  /* number of the most recent record (0: none) */
    uint64_t *pend;    /* records issued but not yet executed, any stream */
    int npend, cappend;
    uint64_t t_ns;     /* completion time of the most recent record, once it completed */
    int refs, timing;
    /* a record that ran behind a failed task carries the failure to the streams waiting for it: on a device
     * the failed stream stops and whoever waits for it never gets a good result */
    uint64_t fail_seq;
    int fail_rc;
    char fail_msg[512];
    model *cap; /* the most recent record was captured into this model (it has not run): not queryable */
};

static int pending(const event *e, uint64_t seq) {
    for (int i = 0; i < e->npend; i++)
        if (e->pend[i] == seq) return 1;
    return 0;
}
static void pend_del(event *e, uint64_t seq) {
    for (int i = 0; i < e->npend; i++)
        if (e->pend[i] == seq) { e->pend[i] = e->pend[--e->npend]; return; }
}
static void event_free(event *e) { free(e->pend); free(e); }
static uint64_t new_record(event *e) { /* the number of a record being queued, pending until it runs */
    if (e->npend == e->cappend) {
        e->cappend = e->cappend ? 2 * e->cappend : 4;
        e->pend = realloc(e->pend, (size_t)e->cappend * sizeof *e->pend);
    }
    return e->pend[e->npend++] = ++e->rec_seq;
}

/* stream capture (aclmdlRI*, at the end of this file); every caller holds g_lock */
static int g_ncapturing; /* captures in progress: the checks below cost nothing when there are none */
struct task;
static void capture_add(stream *s, struct task *t);
static aclError capture_forbids(stream *s, const char *fn);
static aclError capture_unsafe(const char *fn);
static aclError capture_on_device(int dev, const char *fn);
static aclError capture_event(event *e, const char *fn);

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER; /* state, streams, events */
static pthread_mutex_t g_mem = PTHREAD_MUTEX_INITIALIZER;  /* device block lists; taken after g_lock, never before */
static pthread_cond_t g_done = PTHREAD_COND_INITIALIZER; /* broadcast whenever a task completes */
static int g_state;                                       /* 0 never initialised, 1 live, 2 finalised */
static int g_ndev;
static uint64_t g_devmem;
static char g_soc[128];
static int g_cann;   /* ACLSIM_CANN_VERSION as major * 100 + minor: the documented behaviour of that release */
static device *g_dev;
static unsigned g_gen; /* bumped by aclInit: a thread's current device from an earlier init is void */
static _Thread_local int t_dev_raw = -1;
static _Thread_local unsigned t_gen;
#define t_dev (t_gen == g_gen ? t_dev_raw : -1)
static void set_cur_dev(int d) { t_dev_raw = d; t_gen = g_gen; }

/* handles are tagged ids (never reused, never dereferenceable), looked up in growable tables */
#define TAG_STREAM 0x5d00000000000000ull
#define TAG_EVENT 0x5e00000000000000ull
static stream **g_streams;
static uint64_t g_nstreams, g_capstreams;
static event **g_events;
static uint64_t g_nevents, g_capevents;

typedef struct hostblk { void *p; size_t n; struct hostblk *next; } hostblk;
static hostblk *g_host;

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void *grow(void *arr, uint64_t *cap, uint64_t need, size_t elem) {
    if (need <= *cap) return arr;
    uint64_t nc = *cap ? *cap * 2 : 64;
    while (nc < need) nc *= 2;
    void *n = realloc(arr, nc * elem);
    if (!n) return NULL;
    memset((char *)n + *cap * elem, 0, (nc - *cap) * elem);
    *cap = nc;
    return n;
}

/* ---------------------------------------------------------------- device memory */
static int dev_of_addr(const void *p) { /* caller holds g_lock or g_mem (g_dev lives from init to finalize) */
    uintptr_t a = (uintptr_t)p;
    for (int d = 0; d < g_ndev; d++)
        if (g_dev[d].dbase && a >= (uintptr_t)g_dev[d].dbase && a < (uintptr_t)g_dev[d].dbase + g_devmem) return d;
    return -1;
}

static block *find_block(device *dv, uint64_t off) { /* the block containing off */
    for (block *b = dv->blocks; b; b = b->next)
        if (off >= b->off && off < b->off + b->size) return b;
    return NULL;
}

/* host pointer for [p, p+n) inside one live allocation (of want_dev, if >= 0) */
static char *translate(const void *p, uint64_t n, int want_dev, int *dev_out) {
    char *h = NULL;
    pthread_mutex_lock(&g_mem);
    int d = g_dev ? dev_of_addr(p) : -1;
    if (d >= 0 && (want_dev < 0 || d == want_dev)) {
        device *dv = &g_dev[d];
        uint64_t off = (uint64_t)((uintptr_t)p - (uintptr_t)dv->dbase);
        block *b = find_block(dv, off);
        if (b && b->used && off + n <= b->off + b->size) {
            if (dev_out) *dev_out = d;
            h = dv->host + off;
        }
    }
    pthread_mutex_unlock(&g_mem);
    return h;
}

EXPORT char *aclsim_dev2host(const void *p, uint64_t n, int device) { return translate(p, n, device, NULL); }

static int dev_mem_init(device *dv) {
    dv->fd = memfd_create("aclsim-device", MFD_CLOEXEC);
    if (dv->fd < 0 || ftruncate(dv->fd, (off_t)g_devmem) != 0) return -1;
    dv->host = mmap(NULL, g_devmem, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, dv->fd, 0);
    dv->dbase = mmap(NULL, g_devmem, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (dv->host == MAP_FAILED || dv->dbase == MAP_FAILED) return -1;
    dv->blocks = calloc(1, sizeof(block));
    dv->blocks->size = g_devmem;
    return 0;
}

static void dev_mem_fini(device *dv) {
    for (block *b = dv->blocks, *n; b; b = n) {
        n = b->next;
        if (b->used) { aclsim_count(K_DEV_ALLOC, -1); aclsim_count(K_DEV_BYTES, -(int64_t)b->size); }
        free(b);
    }
    if (dv->host && dv->host != MAP_FAILED) munmap(dv->host, g_devmem);
    if (dv->dbase && dv->dbase != MAP_FAILED) munmap(dv->dbase, g_devmem);
    if (dv->fd >= 0) close(dv->fd);
    memset(dv, 0, sizeof *dv);
}

/* ---------------------------------------------------------------- streams */
static void *worker(void *arg);

static stream *stream_new(int dev, int is_default) { /* caller holds g_lock */
    stream *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    g_streams = grow(g_streams, &g_capstreams, g_nstreams + 1, sizeof *g_streams);
    s->id = g_nstreams++;
    s->dev = dev;
    s->is_default = is_default;
    s->refs = 1;
    pthread_cond_init(&s->cv, NULL);
    g_streams[s->id] = s;
    pthread_create(&s->th, NULL, worker, s);
    if (!is_default) aclsim_count(K_STREAMS, 1);
    return s;
}

static void task_free(task *t) { /* event references are dropped by the worker under g_lock */
    if (t->release) t->release(t->arg);
    free(t);
}

static int stream_idle(stream *s) { return !s->head && !s->running; }

/* stop the worker after it drained the queue, then free; caller holds g_lock (released while joining) */
static void capture_abandon(model *m);
static void stream_kill(stream *s) {
    if (s->cap) capture_abandon(s->cap); /* a device reset or aclFinalize ends the capture: the model is invalid */
    s->paused = 0;
    s->stop = 1;
    pthread_cond_signal(&s->cv);
    g_streams[s->id] = NULL;
    pthread_t th = s->th;
    pthread_mutex_unlock(&g_lock);
    pthread_join(th, NULL);
    pthread_mutex_lock(&g_lock);
    if (!s->is_default) aclsim_count(K_STREAMS, -1);
    pthread_cond_destroy(&s->cv);
    free(s);
}

/* The worker takes the whole queue at once and runs it in order; g_lock is held only for the
 * bookkeeping (events, completion), never while a kernel or copy runs. */
static void *worker(void *arg) {
    stream *s = arg;
    pthread_mutex_lock(&g_lock);
    for (;;) {
        if (!s->head && !s->stop && !s->paused) { /* idle: poll briefly before sleeping (launches come in bursts) */
            uint64_t until = now_ns() + SPIN_NS;
            pthread_mutex_unlock(&g_lock);
            while (!__atomic_load_n(&s->head, __ATOMIC_RELAXED) && now_ns() < until) sched_yield();
            pthread_mutex_lock(&g_lock);
        }
        while ((!s->head || s->paused) && !s->stop) {
            s->sleeping = 1;
            pthread_cond_wait(&s->cv, &g_lock);
            s->sleeping = 0;
        }
        if (!s->head) break; /* stopping, and drained */
        task *batch = s->head;
        s->head = s->tail = NULL;
        s->running = 1;
        pthread_mutex_unlock(&g_lock);
        for (task *t = batch, *next; t; t = next) {
            next = t->next;
            int rc = 0, wake = t->sync || t->kind != T_FN;
            char msg[512] = "";
            if (t->kind == T_FN) rc = t->run(t->arg, s->dev, msg, sizeof msg);
            pthread_mutex_lock(&g_lock);
            switch (t->kind) {
            case T_RECORD:
                pend_del(t->ev, t->target);
                if (t->target == t->ev->rec_seq) t->ev->t_ns = now_ns(); /* a superseded record stamps nothing */
                t->ev->fail_rc = s->sticky;
                t->ev->fail_seq = t->target;
                if (s->sticky) memcpy(t->ev->fail_msg, s->sticky_msg, sizeof t->ev->fail_msg);
                break;
            case T_WAIT:
                while (pending(t->ev, t->target)) pthread_cond_wait(&g_done, &g_lock);
                if (t->ev->fail_rc && t->ev->fail_seq == t->target && !s->sticky) {
                    s->sticky = t->ev->fail_rc;
                    snprintf(s->sticky_msg, sizeof s->sticky_msg, "waited for an event recorded after a failed task: %.400s",
                             t->ev->fail_msg);
                }
                break;
            case T_RESET:
                if (!t->ev->npend) t->ev->rec_seq = 0; /* back to "never recorded" */
                break;
            }
            if (t->ev && --t->ev->refs == 0) event_free(t->ev);
            t->ev = NULL;
            if (t->sync) { /* owned by the waiting caller */
                t->rc = rc;
                memcpy(t->msg, msg, sizeof msg);
                t->done = 1;
                t = NULL;
            } else if (rc && !s->sticky) {
                s->sticky = rc;
                memcpy(s->sticky_msg, msg, sizeof msg);
            }
            if (!next) { /* the batch is done: idle the moment its last event completes, not a lock round later */
                s->running = 0;
                wake = 1;
            }
            if (wake) pthread_cond_broadcast(&g_done); /* a caller or an event waiter may proceed */
            pthread_mutex_unlock(&g_lock);
            if (t) task_free(t);
        }
        pthread_mutex_lock(&g_lock);
    }
    pthread_mutex_unlock(&g_lock);
    return NULL;
}

static void push(stream *s, task *t) { /* caller holds g_lock */
    if (s->tail) s->tail->next = t; else __atomic_store_n(&s->head, t, __ATOMIC_RELEASE); /* polled unlocked */
    s->tail = t;
    if (s->sleeping && !s->paused) pthread_cond_signal(&s->cv); /* a busy worker finds it on its next round */
}

/* resolve a stream handle; NULL means the current device's default stream. caller holds g_lock */
static stream *get_stream(aclrtStream h, const char *fn, aclError *err) {
    if (g_state != 1) { *err = ACL_ERROR_UNINITIALIZE; aclsim_set_err("%s: aclInit has not been called", fn); return NULL; }
    if (!h) {
        if (t_dev < 0) {
            *err = ACL_ERROR_RT_CONTEXT_NULL;
            aclsim_set_err("%s: no current device on this thread (call aclrtSetDevice)", fn);
            return NULL;
        }
        device *dv = &g_dev[t_dev];
        if (!dv->dflt) dv->dflt = stream_new(t_dev, 1); /* released by a reset, recreated on use */
        return dv->dflt;
    }
    uint64_t v = (uint64_t)(uintptr_t)h;
    if ((v & 0xff00000000000000ull) == TAG_STREAM && (v & 0xffffffffffffull) < g_nstreams) {
        stream *s = g_streams[v & 0xffffffffffffull];
        if (s) return s;
    }
    *err = ACL_ERROR_RT_INVALID_HANDLE;
    aclsim_set_err("%s: stream %p is not a live stream (destroyed or never created)", fn, h);
    return NULL;
}

static event *get_event(aclrtEvent h, const char *fn, aclError *err) {
    if (g_state != 1) { *err = ACL_ERROR_UNINITIALIZE; aclsim_set_err("%s: aclInit has not been called", fn); return NULL; }
    if (!h) { *err = ACL_ERROR_INVALID_PARAM; aclsim_set_err("%s: event is NULL", fn); return NULL; }
    uint64_t v = (uint64_t)(uintptr_t)h;
    if ((v & 0xff00000000000000ull) == TAG_EVENT && (v & 0xffffffffffffull) < g_nevents) {
        event *e = g_events[v & 0xffffffffffffull];
        if (e) return e;
    }
    *err = ACL_ERROR_RT_INVALID_HANDLE;
    aclsim_set_err("%s: event %p is not a live event (destroyed or never created)", fn, h);
    return NULL;
}

static aclrtStream stream_handle(stream *s) { return (aclrtStream)(uintptr_t)(TAG_STREAM | s->id); }

/* wait until the stream drained; returns and clears its sticky error. caller holds g_lock */
static aclError drain(stream *s, const char *fn) {
    s->refs++;
    while (!stream_idle(s)) pthread_cond_wait(&g_done, &g_lock);
    s->refs--;
    aclError rc = s->sticky;
    if (rc) {
        aclsim_set_err("%s: a task on the stream failed: %s", fn, s->sticky_msg);
        s->sticky = 0;
    }
    return rc;
}

#define LOCKED_INIT(fn)                                                                   \
    pthread_mutex_lock(&g_lock);                                                          \
    if (g_state != 1) {                                                                   \
        pthread_mutex_unlock(&g_lock);                                                    \
        FAIL(ACL_ERROR_UNINITIALIZE, "%s: aclInit has not been called", fn);              \
    }
#define UNLOCK_FAIL(code, ...) do { pthread_mutex_unlock(&g_lock); FAIL(code, __VA_ARGS__); } while (0)
#define UNLOCK_RET(rc) do { aclError r__ = (rc); pthread_mutex_unlock(&g_lock); return r__; } while (0)

/* ---------------------------------------------------------------- init / devices */
/* an unset variable gives the default; a malformed one is an error (-1), not silently ignored */
static int env_u64(const char *name, uint64_t dflt, uint64_t *out) {
    const char *v = getenv(name);
    *out = dflt;
    if (!v || !*v) return 0;
    char *end;
    unsigned long long x = strtoull(v, &end, 0);
    if (*end || *v == '-') return -1;
    *out = (uint64_t)x;
    return 0;
}

EXPORT aclError aclInit(const char *configPath) {
    (void)configPath;
    pthread_mutex_lock(&g_lock);
    if (g_state == 1) { pthread_mutex_unlock(&g_lock); FAIL(ACL_ERROR_REPEAT_INITIALIZE, "aclInit: already initialised"); }
    uint64_t ndev, mem;
    if (env_u64("ACLSIM_DEVICE_COUNT", 2, &ndev) || ndev > 1024 || env_u64("ACLSIM_DEVICE_MEMORY", 1ull << 30, &mem) ||
        mem == 0) {
        pthread_mutex_unlock(&g_lock);
        FAIL(ACL_ERROR_INVALID_PARAM, "aclInit: ACLSIM_DEVICE_COUNT='%s' / ACLSIM_DEVICE_MEMORY='%s' is not a valid "
             "count (0..1024) / byte size", getenv("ACLSIM_DEVICE_COUNT") ? getenv("ACLSIM_DEVICE_COUNT") : "",
             getenv("ACLSIM_DEVICE_MEMORY") ? getenv("ACLSIM_DEVICE_MEMORY") : "");
    }
    const char *ver = getenv("ACLSIM_CANN_VERSION");
    unsigned vmaj = 8, vmin = 0;
    char vtail;
    if (ver && *ver && sscanf(ver, "%u.%u%c", &vmaj, &vmin, &vtail) != 2) {
        pthread_mutex_unlock(&g_lock);
        FAIL(ACL_ERROR_INVALID_PARAM, "aclInit: ACLSIM_CANN_VERSION='%s' is not MAJOR.MINOR (e.g. 8.0, 8.5)", ver);
    }
    g_cann = (int)(vmaj * 100 + vmin);
    g_ndev = (int)ndev;
    g_devmem = (mem + 4095) & ~4095ull;
    const char *soc = getenv("ACLSIM_SOC_NAME");
    snprintf(g_soc, sizeof g_soc, "%s", soc && *soc ? soc : "Ascend910B1");
    g_dev = calloc(g_ndev ? (size_t)g_ndev : 1, sizeof(device));
    for (int d = 0; d < g_ndev; d++) {
        if (dev_mem_init(&g_dev[d]) != 0) {
            for (int e = 0; e <= d; e++) dev_mem_fini(&g_dev[e]);
            free(g_dev);
            g_dev = NULL;
            pthread_mutex_unlock(&g_lock);
            FAIL(ACL_ERROR_RT_MEMORY_ALLOCATION, "aclInit: cannot map %llu bytes of simulated device memory",
                 (unsigned long long)g_devmem);
        }
    }
    g_state = 1;
    g_gen++;
    pthread_mutex_unlock(&g_lock);
    return ACL_SUCCESS;
}

static void models_release_all(void);
EXPORT aclError aclFinalize(void) {
    pthread_mutex_lock(&g_lock);
    if (g_state == 0) { pthread_mutex_unlock(&g_lock); FAIL(ACL_ERROR_UNINITIALIZE, "aclFinalize: aclInit has not been called"); }
    if (g_state == 2) { pthread_mutex_unlock(&g_lock); FAIL(ACL_ERROR_REPEAT_FINALIZE, "aclFinalize: already finalised"); }
    for (uint64_t i = 0; i < g_nstreams; i++) /* resume all first: a queued wait may depend on another stream */
        if (g_streams[i]) { g_streams[i]->paused = 0; pthread_cond_signal(&g_streams[i]->cv); }
    for (uint64_t i = 0; i < g_nstreams; i++)
        if (g_streams[i]) stream_kill(g_streams[i]);
    models_release_all(); /* after the streams drained: queued executions borrow the models' tasks */
    for (uint64_t i = 0; i < g_nevents; i++)
        if (g_events[i]) {
            event *e = g_events[i];
            g_events[i] = NULL;
            aclsim_count(K_EVENTS, -1);
            if (--e->refs == 0) event_free(e);
        }
    pthread_mutex_lock(&g_mem);
    for (int d = 0; d < g_ndev; d++) dev_mem_fini(&g_dev[d]);
    free(g_dev);
    g_dev = NULL;
    pthread_mutex_unlock(&g_mem);
    for (hostblk *h = g_host, *n; h; h = n) { n = h->next; free(h->p); free(h); aclsim_count(K_HOST_ALLOC, -1); }
    g_host = NULL;
    g_state = 2;
    set_cur_dev(-1);
    pthread_mutex_unlock(&g_lock);
    return ACL_SUCCESS;
}

EXPORT const char *aclrtGetSocName(void) {
    pthread_mutex_lock(&g_lock);
    const char *r = g_state == 1 ? g_soc : NULL;
    pthread_mutex_unlock(&g_lock);
    return r;
}

EXPORT aclError aclrtGetDeviceCount(uint32_t *count) {
    if (!count) FAIL(ACL_ERROR_INVALID_PARAM, "aclrtGetDeviceCount: count is NULL");
    LOCKED_INIT("aclrtGetDeviceCount");
    *count = (uint32_t)g_ndev;
    UNLOCK_RET(ACL_SUCCESS);
}

EXPORT aclError aclrtSetDevice(int32_t deviceId) {
    LOCKED_INIT("aclrtSetDevice");
    if (deviceId < 0 || deviceId >= g_ndev) {
        pthread_mutex_unlock(&g_lock);
        FAIL(ACL_ERROR_RT_INVALID_DEVICEID, "aclrtSetDevice: device id %d is out of range [0, %d)", deviceId, g_ndev);
    }
    device *dv = &g_dev[deviceId];
    if (!dv->dflt) dv->dflt = stream_new(deviceId, 1);
    dv->refs++;
    set_cur_dev(deviceId);
    UNLOCK_RET(ACL_SUCCESS);
}

/* the last reset releases the device's streams (default and user-created) after they drained; caller holds g_lock */
static void release_device(device *dv, int32_t deviceId) {
    for (uint64_t i = 0; i < g_nstreams; i++)
        if (g_streams[i] && g_streams[i]->dev == deviceId) stream_kill(g_streams[i]);
    dv->dflt = NULL;
}

EXPORT aclError aclrtResetDevice(int32_t deviceId) {
    LOCKED_INIT("aclrtResetDevice");
    if (deviceId < 0 || deviceId >= g_ndev) {
        pthread_mutex_unlock(&g_lock);
        FAIL(ACL_ERROR_RT_INVALID_DEVICEID, "aclrtResetDevice: device id %d is out of range [0, %d)", deviceId, g_ndev);
    }
    device *dv = &g_dev[deviceId];
    if (dv->refs == 0) { /* the count already reached zero (acl docs: a further reset is an error) */
        pthread_mutex_unlock(&g_lock);
        FAIL(ACL_ERROR_RT_PARAM_INVALID, "aclrtResetDevice: device %d is not set (or already reset)", deviceId);
    }
    if (--dv->refs == 0) release_device(dv, deviceId);
    if (t_dev == deviceId) set_cur_dev(-1);
    UNLOCK_RET(ACL_SUCCESS);
}

/* one call releases the device whatever its aclrtSetDevice count; once released, a second call fails */
EXPORT aclError aclrtResetDeviceForce(int32_t deviceId) {
    LOCKED_INIT("aclrtResetDeviceForce");
    if (deviceId < 0 || deviceId >= g_ndev) {
        pthread_mutex_unlock(&g_lock);
        FAIL(ACL_ERROR_RT_INVALID_DEVICEID, "aclrtResetDeviceForce: device id %d is out of range [0, %d)", deviceId,
             g_ndev);
    }
    device *dv = &g_dev[deviceId];
    if (dv->refs == 0) {
        pthread_mutex_unlock(&g_lock);
        FAIL(ACL_ERROR_RT_PARAM_INVALID, "aclrtResetDeviceForce: device %d is not set (or already reset)", deviceId);
    }
    dv->refs = 0;
    release_device(dv, deviceId);
    if (t_dev == deviceId) set_cur_dev(-1);
    UNLOCK_RET(ACL_SUCCESS);
}

EXPORT aclError aclrtGetDevice(int32_t *deviceId) {
    if (!deviceId) FAIL(ACL_ERROR_INVALID_PARAM, "aclrtGetDevice: deviceId is NULL");
    LOCKED_INIT("aclrtGetDevice");
    if (t_dev < 0) {
        pthread_mutex_unlock(&g_lock);
        FAIL(ACL_ERROR_RT_CONTEXT_NULL, "aclrtGetDevice: no current device on this thread (call aclrtSetDevice)");
    }
    *deviceId = t_dev;
    UNLOCK_RET(ACL_SUCCESS);
}

EXPORT aclError aclrtSynchronizeDevice(void) {
    LOCKED_INIT("aclrtSynchronizeDevice");
    if (t_dev < 0) {
        pthread_mutex_unlock(&g_lock);
        FAIL(ACL_ERROR_RT_CONTEXT_NULL, "aclrtSynchronizeDevice: no current device on this thread");
    }
    aclError rc = g_ncapturing ? capture_on_device(t_dev, "aclrtSynchronizeDevice") : 0;
    if (rc) UNLOCK_RET(rc);
    for (uint64_t i = 0; i < g_nstreams; i++) {
        stream *s = g_streams[i];
        if (s && s->dev == t_dev) {
            aclError r = drain(s, "aclrtSynchronizeDevice");
            if (r && !rc) rc = r;
        }
    }
    UNLOCK_RET(rc);
}

/* ---------------------------------------------------------------- memory */
EXPORT aclError aclrtMalloc(void **devPtr, size_t size, int policy) {
    (void)policy;
    if (!devPtr) FAIL(ACL_ERROR_INVALID_PARAM, "aclrtMalloc: devPtr is NULL");
    if (size == 0) FAIL(ACL_ERROR_INVALID_PARAM, "aclrtMalloc: size must be greater than 0");
    LOCKED_INIT("aclrtMalloc");
    if (t_dev < 0) {
        pthread_mutex_unlock(&g_lock);
        FAIL(ACL_ERROR_RT_CONTEXT_NULL, "aclrtMalloc: no current device on this thread (call aclrtSetDevice)");
    }
    device *dv = &g_dev[t_dev];
    /* ALIGN_UP(size, 32) + 32 (acl docs: kernels may touch 32 bytes past the end), in GRAIN units */
    uint64_t need = (((uint64_t)size + 31) / 32 * 32 + 32 + GRAIN - 1) / GRAIN * GRAIN;
    block *best = NULL;
    pthread_mutex_lock(&g_mem);
    for (block *b = dv->blocks; b; b = b->next) /* best fit */
        if (!b->used && b->size >= need && (!best || b->size < best->size)) best = b;
    if (!best) {
        pthread_mutex_unlock(&g_mem);
        pthread_mutex_unlock(&g_lock);
        FAIL(ACL_ERROR_RT_MEMORY_ALLOCATION,
             "aclrtMalloc: out of device memory on device %d: requested %zu bytes, %llu of %llu bytes in use", t_dev,
             size, (unsigned long long)dv->used, (unsigned long long)g_devmem);
    }
    if (best->size > need) { /* split: the tail stays free */
        block *rest = calloc(1, sizeof *rest);
        rest->off = best->off + need;
        rest->size = best->size - need;
        rest->prev = best;
        rest->next = best->next;
        if (best->next) best->next->prev = rest;
        best->next = rest;
        best->size = need;
    }
    best->used = 1;
    dv->used += need;
    aclsim_count(K_DEV_ALLOC, 1);
    aclsim_count(K_DEV_BYTES, (int64_t)need);
    *devPtr = dv->dbase + best->off;
    pthread_mutex_unlock(&g_mem);
    UNLOCK_RET(ACL_SUCCESS);
}

EXPORT aclError aclrtFree(void *devPtr) {
    if (!devPtr) FAIL(ACL_ERROR_INVALID_PARAM, "aclrtFree: devPtr is NULL");
    LOCKED_INIT("aclrtFree");
    pthread_mutex_lock(&g_mem);
    int d = dev_of_addr(devPtr);
    block *b = NULL;
    if (d >= 0) b = find_block(&g_dev[d], (uint64_t)((char *)devPtr - g_dev[d].dbase));
    if (!b || !b->used || g_dev[d].dbase + b->off != (char *)devPtr) {
        pthread_mutex_unlock(&g_mem);
        pthread_mutex_unlock(&g_lock);
        FAIL(ACL_ERROR_RT_PARAM_INVALID, "aclrtFree: %p is not the start of a live device allocation%s", devPtr,
             b && b->used ? " (interior pointer)" : "");
    }
    device *dv = &g_dev[d];
    b->used = 0;
    dv->used -= b->size;
    aclsim_count(K_DEV_ALLOC, -1);
    aclsim_count(K_DEV_BYTES, -(int64_t)b->size);
    if (b->size >= PUNCH_MIN)
        fallocate(dv->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)b->off, (off_t)b->size);
    if (b->next && !b->next->used) { /* coalesce with free neighbours */
        block *n = b->next;
        b->size += n->size;
        b->next = n->next;
        if (n->next) n->next->prev = b;
        free(n);
    }
    if (b->prev && !b->prev->used) {
        block *p = b->prev;
        p->size += b->size;
        p->next = b->next;
        if (b->next) b->next->prev = p;
        free(b);
    }
    pthread_mutex_unlock(&g_mem);
    UNLOCK_RET(ACL_SUCCESS);
}

EXPORT aclError aclrtMallocHost(void **hostPtr, size_t size) {
    if (!hostPtr) FAIL(ACL_ERROR_INVALID_PARAM, "aclrtMallocHost: hostPtr is NULL");
    if (size == 0) FAIL(ACL_ERROR_INVALID_PARAM, "aclrtMallocHost: size must be greater than 0");
    LOCKED_INIT("aclrtMallocHost");
    void *p = NULL;
    hostblk *h = malloc(sizeof *h);
    if (!h || posix_memalign(&p, 64, size) != 0) {
        free(h);
        pthread_mutex_unlock(&g_lock);
        FAIL(ACL_ERROR_RT_MEMORY_ALLOCATION, "aclrtMallocHost: cannot allocate %zu bytes", size);
    }
    h->p = p;
    h->n = size;
    h->next = g_host;
    g_host = h;
    aclsim_count(K_HOST_ALLOC, 1);
    *hostPtr = p;
    UNLOCK_RET(ACL_SUCCESS);
}

EXPORT aclError aclrtFreeHost(void *hostPtr) {
    if (!hostPtr) FAIL(ACL_ERROR_INVALID_PARAM, "aclrtFreeHost: hostPtr is NULL");
    LOCKED_INIT("aclrtFreeHost");
    for (hostblk **pp = &g_host; *pp; pp = &(*pp)->next)
        if ((*pp)->p == hostPtr) {
            hostblk *h = *pp;
            *pp = h->next;
            free(h->p);
            free(h);
            aclsim_count(K_HOST_ALLOC, -1);
            UNLOCK_RET(ACL_SUCCESS);
        }
    pthread_mutex_unlock(&g_lock);
    FAIL(ACL_ERROR_RT_PARAM_INVALID, "aclrtFreeHost: %p was not returned by aclrtMallocHost (or already freed)", hostPtr);
}

EXPORT aclError aclrtGetMemInfo(int attr, size_t *freeb, size_t *total) {
    if (!freeb || !total) FAIL(ACL_ERROR_INVALID_PARAM, "aclrtGetMemInfo: free or total is NULL");
    if (attr < 0 || attr > 17 /* ACL_MEM_P2P_HUGE1G */) FAIL(ACL_ERROR_INVALID_PARAM, "aclrtGetMemInfo: invalid aclrtMemAttr %d", attr);
    LOCKED_INIT("aclrtGetMemInfo");
    if (t_dev < 0) {
        pthread_mutex_unlock(&g_lock);
        FAIL(ACL_ERROR_RT_CONTEXT_NULL, "aclrtGetMemInfo: no current device on this thread");
    }
    *total = g_devmem;
    pthread_mutex_lock(&g_mem);
    *freeb = g_devmem - g_dev[t_dev].used;
    pthread_mutex_unlock(&g_mem);
    UNLOCK_RET(ACL_SUCCESS);
}

/* ---------------------------------------------------------------- copies and memset (tasks) */
enum { H2H, H2D, D2H, D2D, KIND_DEFAULT, H2BUF2D, INNER_D2D, INTER_D2D };
typedef struct {
    void *dst;
    const void *src;
    size_t n;
    int dst_dev, src_dev; /* -1 = host */
    int value, is_set;
} copy_args;

static int copy_run(void *arg, int dev, char *msg, size_t len) {
    (void)dev;
    copy_args *c = arg;
    char *d = c->dst, *s = (char *)c->src;
    if (c->dst_dev >= 0) d = translate(c->dst, c->n, c->dst_dev, NULL);
    if (!c->is_set && c->src_dev >= 0) s = translate(c->src, c->n, c->src_dev, NULL);
    if (!d || !s) {
        snprintf(msg, len, "%s: device address %p is no longer a live allocation of %zu bytes",
                 c->is_set ? "memset" : "memcpy", !d ? c->dst : c->src, c->n);
        return ACL_ERROR_RT_SYS_DMA;
    }
    if (c->is_set) memset(d, c->value, c->n);
    else memmove(d, s, c->n);
    return 0;
}

/* validate a copy against the pointers' locations; caller holds g_lock */
static aclError copy_check(const char *fn, void *dst, size_t destMax, const void *src, size_t count, int kind,
                           copy_args *c) {
    if (!dst || !src) FAIL(ACL_ERROR_INVALID_PARAM, "%s: dst or src is NULL", fn);
    if (count > destMax) FAIL(ACL_ERROR_INVALID_PARAM, "%s: count %zu exceeds destMax %zu", fn, count, destMax);
    if (kind < H2H || kind > INTER_D2D) FAIL(ACL_ERROR_INVALID_PARAM, "%s: invalid aclrtMemcpyKind %d", fn, kind);
    int dd = dev_of_addr(dst), sd = dev_of_addr(src);
    int want_dd, want_sd;
    switch (kind) {
    case H2H: want_dd = 0; want_sd = 0; break;
    case H2D: case H2BUF2D: want_dd = 1; want_sd = 0; break;
    case D2H: want_dd = 0; want_sd = 1; break;
    case KIND_DEFAULT: want_dd = dd >= 0; want_sd = sd >= 0; break;
    default: want_dd = 1; want_sd = 1; break;
    }
    static const char *const names[] = {"HOST_TO_HOST", "HOST_TO_DEVICE", "DEVICE_TO_HOST", "DEVICE_TO_DEVICE",
                                        "DEFAULT", "HOST_TO_BUF_TO_DEVICE", "INNER_DEVICE_TO_DEVICE",
                                        "INTER_DEVICE_TO_DEVICE"};
    if ((dd >= 0) != want_dd || (sd >= 0) != want_sd)
        FAIL(ACL_ERROR_RT_PARAM_INVALID, "%s: kind ACL_MEMCPY_%s does not match the pointers (dst is %s, src is %s)",
             fn, names[kind], dd >= 0 ? "device" : "host", sd >= 0 ? "device" : "host");
    if (dd >= 0 && !translate(dst, count, dd, NULL))
        FAIL(ACL_ERROR_RT_PARAM_INVALID, "%s: dst %p + %zu bytes is not inside a live device allocation", fn, dst, count);
    if (sd >= 0 && !translate(src, count, sd, NULL))
        FAIL(ACL_ERROR_RT_PARAM_INVALID, "%s: src %p + %zu bytes is not inside a live device allocation", fn, src, count);
    memset(c, 0, sizeof *c);
    c->dst = dst;
    c->src = src;
    c->n = count;
    c->dst_dev = dd;
    c->src_dev = sd;
    return 0;
}

static aclError set_check(const char *fn, void *p, size_t maxCount, size_t count, copy_args *c) {
    if (!p) FAIL(ACL_ERROR_INVALID_PARAM, "%s: devPtr is NULL", fn);
    if (count > maxCount) FAIL(ACL_ERROR_INVALID_PARAM, "%s: count %zu exceeds maxCount %zu", fn, count, maxCount);
    int d = dev_of_addr(p);
    if (d >= 0 && !translate(p, count, d, NULL))
        FAIL(ACL_ERROR_RT_PARAM_INVALID, "%s: %p + %zu bytes is not inside a live device allocation", fn, p, count);
    memset(c, 0, sizeof *c);
    c->dst = p;
    c->src = p;
    c->n = count;
    c->dst_dev = d;
    c->src_dev = -1;
    c->is_set = 1;
    return 0;
}

/* a synchronous copy or memset acts at once, with no implicit device or stream synchronization (acl docs:
 * aclrtMemcpy, aclrtMemset): work still queued on a stream is not waited for. caller holds g_lock */
static aclError run_now(const char *fn, copy_args *c) {
    char msg[512] = "";
    aclError rc = copy_run(c, -1, msg, sizeof msg);
    if (rc) FAIL(rc, "%s: %s", fn, msg);
    return 0;
}

/* host memory from aclrtMallocHost (page-locked); caller holds g_lock */
static int pinned(const void *p, size_t n) {
    for (hostblk *h = g_host; h; h = h->next)
        if ((const char *)p >= (const char *)h->p && (const char *)p + n <= (const char *)h->p + h->n) return 1;
    return 0;
}

/* a task the caller waits for: pageable-memory async copies in CANN >= 8.5 return when the copy is done */
static aclError run_on_stream(const char *fn, copy_args *c, stream *s) {
    task *t = calloc(1, sizeof *t); /* owned here: the worker leaves sync tasks to their caller */
    t->kind = T_FN;
    t->run = copy_run;
    t->arg = c;
    t->sync = 1;
    push(s, t);
    while (!t->done) pthread_cond_wait(&g_done, &g_lock);
    aclError rc = t->rc;
    if (rc) aclsim_set_err("%s: %s", fn, t->msg);
    free(t);
    return rc;
}

static void free_arg(void *p) { free(p); }

static aclError enqueue_copy(const char *fn, copy_args *c, aclrtStream sh) {
    aclError err = 0;
    stream *s = get_stream(sh, fn, &err);
    if (!s) return err;
    if (!c->is_set && g_cann < 805 && (((uintptr_t)c->dst | (uintptr_t)c->src) & 63))
        FAIL(ACL_ERROR_RT_PARAM_INVALID, "%s: dst %p and src %p must both be 64-byte aligned (CANN %d.%d docs)", fn,
             c->dst, c->src, g_cann / 100, g_cann % 100);
    const void *host = c->is_set ? NULL : c->dst_dev < 0 ? c->dst : c->src_dev < 0 ? c->src : NULL;
    if (host && !pinned(host, c->n)) {
        /* before CANN 8.5 an async copy from / to pageable host memory is documented as unpredictable:
         * refused loudly here; from 8.5 on it is documented to return once the copy has completed */
        if (g_cann < 805)
            FAIL(ACL_ERROR_RT_PARAM_INVALID, "%s: host memory %p is not page-locked (aclrtMallocHost); CANN %d.%d "
                 "documents an async copy from pageable memory as unpredictable (ACLSIM_CANN_VERSION)", fn, host,
                 g_cann / 100, g_cann % 100);
        if (g_ncapturing) { /* a synchronous copy in disguise: one of the capture modes' unsafe functions */
            aclError rc = capture_unsafe(fn);
            if (rc) return rc;
            if (s->cap) return run_now(fn, c); /* relaxed: done once, now, and not captured */
        }
        return run_on_stream(fn, c, s);
    }
    copy_args *heap = malloc(sizeof *heap);
    task *t = calloc(1, sizeof *t);
    *heap = *c;
    t->kind = T_FN;
    t->run = copy_run;
    t->release = free_arg;
    t->arg = heap;
    if (s->cap) capture_add(s, t);
    else push(s, t);
    return 0;
}

EXPORT aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count, int kind) {
    LOCKED_INIT("aclrtMemcpy");
    copy_args c;
    aclError rc = g_ncapturing ? capture_unsafe("aclrtMemcpy") : 0;
    if (!rc) rc = copy_check("aclrtMemcpy", dst, destMax, src, count, kind, &c);
    if (!rc && count) rc = run_now("aclrtMemcpy", &c);
    UNLOCK_RET(rc);
}

EXPORT aclError aclrtMemcpyAsync(void *dst, size_t destMax, const void *src, size_t count, int kind,
                                 aclrtStream stream) {
    LOCKED_INIT("aclrtMemcpyAsync");
    copy_args c;
    aclError rc = copy_check("aclrtMemcpyAsync", dst, destMax, src, count, kind, &c);
    if (!rc) rc = enqueue_copy("aclrtMemcpyAsync", &c, stream);
    UNLOCK_RET(rc);
}

EXPORT aclError aclrtMemset(void *devPtr, size_t maxCount, int32_t value, size_t count) {
    LOCKED_INIT("aclrtMemset");
    copy_args c;
    aclError rc = g_ncapturing ? capture_unsafe("aclrtMemset") : 0;
    if (!rc) rc = set_check("aclrtMemset", devPtr, maxCount, count, &c);
    c.value = value;
    if (!rc && count) rc = run_now("aclrtMemset", &c);
    UNLOCK_RET(rc);
}

EXPORT aclError aclrtMemsetAsync(void *devPtr, size_t maxCount, int32_t value, size_t count, aclrtStream stream) {
    LOCKED_INIT("aclrtMemsetAsync");
    copy_args c;
    aclError rc = set_check("aclrtMemsetAsync", devPtr, maxCount, count, &c);
    c.value = value;
    if (!rc) rc = enqueue_copy("aclrtMemsetAsync", &c, stream);
    UNLOCK_RET(rc);
}

/* ---------------------------------------------------------------- streams (API) */
EXPORT aclError aclrtCreateStream(aclrtStream *out) {
    if (!out) FAIL(ACL_ERROR_INVALID_PARAM, "aclrtCreateStream: stream is NULL");
    LOCKED_INIT("aclrtCreateStream");
    if (t_dev < 0) {
        pthread_mutex_unlock(&g_lock);
        FAIL(ACL_ERROR_RT_CONTEXT_NULL, "aclrtCreateStream: no current device on this thread (call aclrtSetDevice)");
    }
    stream *s = stream_new(t_dev, 0);
    *out = stream_handle(s);
    UNLOCK_RET(ACL_SUCCESS);
}

EXPORT aclError aclrtDestroyStream(aclrtStream h) {
    LOCKED_INIT("aclrtDestroyStream");
    aclError err = 0;
    if (!h) { pthread_mutex_unlock(&g_lock); FAIL(ACL_ERROR_INVALID_PARAM, "aclrtDestroyStream: stream is NULL"); }
    stream *s = get_stream(h, "aclrtDestroyStream", &err);
    if (!s) UNLOCK_RET(err);
    if (s->is_default) {
        pthread_mutex_unlock(&g_lock);
        FAIL(ACL_ERROR_RT_PARAM_INVALID, "aclrtDestroyStream: the default stream cannot be destroyed");
    }
    if (s->cap)
        UNLOCK_FAIL(ACL_ERROR_RT_STREAM_CAPTURED,
                    "aclrtDestroyStream: the stream is capturing (end the capture first)");
    stream_kill(s); /* drains first */
    UNLOCK_RET(ACL_SUCCESS);
}

EXPORT aclError aclrtSynchronizeStream(aclrtStream h) {
    LOCKED_INIT("aclrtSynchronizeStream");
    aclError err = 0;
    stream *s = get_stream(h, "aclrtSynchronizeStream", &err);
    if (!s) UNLOCK_RET(err);
    if (s->cap) UNLOCK_RET(capture_forbids(s, "aclrtSynchronizeStream"));
    UNLOCK_RET(drain(s, "aclrtSynchronizeStream"));
}

EXPORT aclError aclrtStreamQuery(aclrtStream h, int *status) {
    if (!status) FAIL(ACL_ERROR_INVALID_PARAM, "aclrtStreamQuery: status is NULL");
    LOCKED_INIT("aclrtStreamQuery");
    aclError err = 0;
    stream *s = get_stream(h, "aclrtStreamQuery", &err);
    if (!s) UNLOCK_RET(err);
    if (s->cap) UNLOCK_RET(capture_forbids(s, "aclrtStreamQuery"));
    *status = stream_idle(s) ? 0 /* ACL_STREAM_STATUS_COMPLETE */ : 1 /* NOT_READY */;
    UNLOCK_RET(ACL_SUCCESS);
}

static aclError set_paused(aclrtStream h, int paused, const char *fn) {
    LOCKED_INIT(fn);
    aclError err = 0;
    stream *s = get_stream(h, fn, &err);
    if (!s) UNLOCK_RET(err);
    s->paused = paused;
    pthread_cond_signal(&s->cv);
    UNLOCK_RET(ACL_SUCCESS);
}
EXPORT aclError aclsimPauseStream(aclrtStream h) { return set_paused(h, 1, "aclsimPauseStream"); }
EXPORT aclError aclsimResumeStream(aclrtStream h) { return set_paused(h, 0, "aclsimResumeStream"); }

EXPORT int aclsim_stream_device(aclrtStream h, aclError *err) {
    pthread_mutex_lock(&g_lock);
    stream *s = get_stream(h, "aclnn launch", err);
    int d = s ? s->dev : -1;
    pthread_mutex_unlock(&g_lock);
    return d;
}

EXPORT aclError aclsim_enqueue(aclrtStream h, int (*run)(void *, int, char *, size_t), void (*release)(void *),
                               void *arg) {
    pthread_mutex_lock(&g_lock);
    aclError err = 0;
    stream *s = get_stream(h, "aclnn launch", &err);
    if (!s) UNLOCK_RET(err);
    task *t = calloc(1, sizeof *t);
    t->kind = T_FN;
    t->run = run;
    t->release = release;
    t->arg = arg;
    if (s->cap) capture_add(s, t); /* recorded into the model instance, not run */
    else push(s, t);
    UNLOCK_RET(ACL_SUCCESS);
}

/* ---------------------------------------------------------------- events */
#define ACL_EVENT_TIME_LINE 0x00000008u

static aclError event_create(aclrtEvent *out, uint32_t flags, int timing, const char *fn) {
    if (!out) FAIL(ACL_ERROR_INVALID_PARAM, "%s: event is NULL", fn);
    LOCKED_INIT(fn);
    if (t_dev < 0) {
        pthread_mutex_unlock(&g_lock);
        FAIL(ACL_ERROR_RT_CONTEXT_NULL, "%s: no current device on this thread (call aclrtSetDevice)", fn);
    }
    event *e = calloc(1, sizeof *e);
    g_events = grow(g_events, &g_capevents, g_nevents + 1, sizeof *g_events);
    e->id = g_nevents++;
    e->flags = flags;
    e->timing = timing;
    e->refs = 1;
    g_events[e->id] = e;
    aclsim_count(K_EVENTS, 1);
    *out = (aclrtEvent)(uintptr_t)(TAG_EVENT | e->id);
    UNLOCK_RET(ACL_SUCCESS);
}

EXPORT aclError aclrtCreateEvent(aclrtEvent *event) { return event_create(event, 0, 1, "aclrtCreateEvent"); }
EXPORT aclError aclrtCreateEventWithFlag(aclrtEvent *event, uint32_t flag) {
    return event_create(event, flag, (flag & ACL_EVENT_TIME_LINE) != 0, "aclrtCreateEventWithFlag");
}

EXPORT aclError aclrtDestroyEvent(aclrtEvent h) {
    LOCKED_INIT("aclrtDestroyEvent");
    aclError err = 0;
    event *e = get_event(h, "aclrtDestroyEvent", &err);
    if (!e) UNLOCK_RET(err);
    g_events[e->id] = NULL; /* pending record/wait tasks keep their reference */
    aclsim_count(K_EVENTS, -1);
    if (--e->refs == 0) event_free(e);
    UNLOCK_RET(ACL_SUCCESS);
}

static aclError capture_event_task(event *e, stream *s, int kind, const char *fn);
static aclError event_task(aclrtEvent eh, aclrtStream sh, int kind, const char *fn) {
    LOCKED_INIT(fn);
    aclError err = 0;
    event *e = get_event(eh, fn, &err);
    stream *s = e ? get_stream(sh, fn, &err) : NULL;
    if (!s) UNLOCK_RET(err);
    if (kind == T_RECORD && !s->cap) e->cap = NULL; /* a record outside the capture supersedes a captured one */
    if (e->cap || s->cap) {
        err = capture_event_task(e, s, kind, fn);
        UNLOCK_RET(err < 0 ? ACL_SUCCESS : err);
    }
    if (kind == T_WAIT && e->rec_seq == 0) UNLOCK_RET(ACL_SUCCESS); /* nothing captured: nothing to wait for */
    task *t = calloc(1, sizeof *t);
    t->kind = kind;
    t->ev = e;
    e->refs++;
    /* a wait sees the most recent record as of this call */
    t->target = kind == T_RECORD ? new_record(e) : e->rec_seq;
    push(s, t);
    UNLOCK_RET(ACL_SUCCESS);
}

EXPORT aclError aclrtRecordEvent(aclrtEvent e, aclrtStream s) { return event_task(e, s, T_RECORD, "aclrtRecordEvent"); }
EXPORT aclError aclrtResetEvent(aclrtEvent e, aclrtStream s) { return event_task(e, s, T_RESET, "aclrtResetEvent"); }
EXPORT aclError aclrtStreamWaitEvent(aclrtStream s, aclrtEvent e) {
    return event_task(e, s, T_WAIT, "aclrtStreamWaitEvent");
}

EXPORT aclError aclrtQueryEventStatus(aclrtEvent h, int *status) {
    if (!status) FAIL(ACL_ERROR_INVALID_PARAM, "aclrtQueryEventStatus: status is NULL");
    LOCKED_INIT("aclrtQueryEventStatus");
    aclError err = 0;
    event *e = get_event(h, "aclrtQueryEventStatus", &err);
    if (!e) UNLOCK_RET(err);
    if (e->cap) UNLOCK_RET(capture_event(e, "aclrtQueryEventStatus"));
    *status = !pending(e, e->rec_seq) ? 1 /* ACL_EVENT_RECORDED_STATUS_COMPLETE */ : 0 /* NOT_READY */;
    UNLOCK_RET(ACL_SUCCESS);
}

EXPORT aclError aclrtSynchronizeEvent(aclrtEvent h) {
    LOCKED_INIT("aclrtSynchronizeEvent");
    aclError err = 0;
    event *e = get_event(h, "aclrtSynchronizeEvent", &err);
    if (!e) UNLOCK_RET(err);
    if (e->cap) UNLOCK_RET(capture_event(e, "aclrtSynchronizeEvent"));
    uint64_t target = e->rec_seq;
    e->refs++;
    while (pending(e, target)) pthread_cond_wait(&g_done, &g_lock);
    if (--e->refs == 0) event_free(e);
    UNLOCK_RET(ACL_SUCCESS);
}

EXPORT aclError aclrtEventElapsedTime(float *ms, aclrtEvent start, aclrtEvent end) {
    if (!ms) FAIL(ACL_ERROR_INVALID_PARAM, "aclrtEventElapsedTime: ms is NULL");
    LOCKED_INIT("aclrtEventElapsedTime");
    aclError err = 0;
    event *a = get_event(start, "aclrtEventElapsedTime", &err);
    event *b = a ? get_event(end, "aclrtEventElapsedTime", &err) : NULL;
    if (!b) UNLOCK_RET(err);
    if (!a->timing || !b->timing) {
        pthread_mutex_unlock(&g_lock);
        FAIL(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID,
             "aclrtEventElapsedTime: event created without ACL_EVENT_TIME_LINE has no timestamp");
    }
    if (a->rec_seq == 0 || b->rec_seq == 0) {
        pthread_mutex_unlock(&g_lock);
        FAIL(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID, "aclrtEventElapsedTime: event has not been recorded");
    }
    if (pending(a, a->rec_seq) || pending(b, b->rec_seq)) {
        pthread_mutex_unlock(&g_lock);
        FAIL(ACL_ERROR_RT_EVENT_NOT_COMPLETE, "aclrtEventElapsedTime: event has not completed yet");
    }
    *ms = (float)(((double)b->t_ns - (double)a->t_ns) / 1e6);
    UNLOCK_RET(ACL_SUCCESS);
}

/* ---------------------------------------------------------------- stream capture: model run instances (aclmdlRI)
 * Between aclmdlRICaptureBegin and aclmdlRICaptureEnd the tasks issued on the stream (kernel launches, async copies
 * and memsets, event records / waits / resets) are recorded into a model instance instead of running;
 * aclmdlRIExecuteAsync queues the recorded tasks again on any stream of the device, as often as asked; the model
 * owns their arguments until aclmdlRIDestroy. What CANN documents as illegal while capturing (runtime docs:
 * "ACL Graph捕获过程中任务提交限制", aclmdlRICaptureBegin / aclmdlRICaptureThreadExchangeMode) fails here:
 * synchronizing or querying the capturing stream, its device or an event recorded into the capture returns
 * ACL_ERROR_RT_CAPTURE_MODE_BLOCK_ASYNC and invalidates the capture (aclmdlRICaptureEnd then returns
 * ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED); the unsafe functions (aclrtMemcpy, aclrtMemset, async copies of
 * pageable memory) follow the capture modes; capturing the default stream is refused, and so is capture on the
 * Atlas training series (910A), which the docs list as unsupported. A stream joining a capture through an event
 * wait (multi-stream capture) is not simulated: such a wait is refused with ACL_ERROR_RT_CAPTURE_DEPENDENCY. */
enum { CAP_GLOBAL, CAP_THREAD_LOCAL, CAP_RELAXED };      /* aclmdlRICaptureMode (acl_rt.h) */
enum { CAP_STATUS_NONE, CAP_STATUS_ACTIVE, CAP_STATUS_INVALIDATED }; /* aclmdlRICaptureStatus */
#define TAG_MODEL 0x5f00000000000000ull
#define MAX_CAPTURES 64

struct model {
    uint64_t id;
    int dev, status, mode; /* status: ACTIVE while capturing, INVALIDATED, NONE once captured */
    pthread_t thread;      /* the thread that began the capture */
    stream *origin;
    task **tasks;
    uint64_t ntasks, captasks;
    int inflight; /* executions queued and not finished (atomic: decremented by the workers) */
    char why[400]; /* what invalidated the capture */
};

static model **g_models;
static uint64_t g_nmodels, g_capmodels;
static model *g_active[MAX_CAPTURES];
static _Thread_local int t_mode = CAP_GLOBAL; /* aclmdlRICaptureThreadExchangeMode */

static model *get_model(aclmdlRI h, const char *fn, aclError *err) {
    uint64_t v = (uint64_t)(uintptr_t)h;
    if (h && (v & 0xff00000000000000ull) == TAG_MODEL && (v & 0xffffffffffffull) < g_nmodels) {
        model *m = g_models[v & 0xffffffffffffull];
        if (m) return m;
    }
    *err = ACL_ERROR_RT_INVALID_HANDLE;
    aclsim_set_err("%s: model run instance %p is not live (destroyed or never created)", fn, h);
    return NULL;
}

static aclmdlRI model_handle(model *m) { return (aclmdlRI)(uintptr_t)(TAG_MODEL | m->id); }

static void capture_add(stream *s, task *t) {
    model *m = s->cap;
    task **n = grow(m->tasks, &m->captasks, m->ntasks + 1, sizeof *m->tasks);
    m->tasks = n;
    m->tasks[m->ntasks++] = t;
}

static void invalidate(model *m, const char *fn) {
    if (m->status != CAP_STATUS_ACTIVE) return;
    m->status = CAP_STATUS_INVALIDATED;
    snprintf(m->why, sizeof m->why, "%s was called while capturing", fn);
}

static aclError capture_forbids(stream *s, const char *fn) {
    invalidate(s->cap, fn);
    FAIL(ACL_ERROR_RT_CAPTURE_MODE_BLOCK_ASYNC, "%s: operation not permitted when a stream is capturing (the "
         "capture is invalidated)", fn);
}

static aclError capture_on_device(int dev, const char *fn) {
    int hit = 0;
    for (int i = 0; i < MAX_CAPTURES; i++)
        if (g_active[i] && g_active[i]->dev == dev) { invalidate(g_active[i], fn); hit = 1; }
    if (!hit) return 0;
    FAIL(ACL_ERROR_RT_CAPTURE_MODE_BLOCK_ASYNC, "%s: operation not permitted when a stream of device %d is capturing "
         "(the capture is invalidated)", fn, dev);
}

static aclError capture_event(event *e, const char *fn) {
    invalidate(e->cap, fn);
    FAIL(ACL_ERROR_RT_CAPTURE_MODE_BLOCK_ASYNC, "%s: the event's most recent record was captured into a model run "
         "instance and has not run: operation not permitted", fn);
}

/* the capture modes' rule for the unsafe functions (aclrtMemcpy, aclrtMemset, async copies of pageable memory) */
static aclError capture_unsafe(const char *fn) {
    pthread_t me = pthread_self();
    for (int i = 0; i < MAX_CAPTURES; i++) {
        model *m = g_active[i];
        if (!m || m->status != CAP_STATUS_ACTIVE) continue;
        int own = pthread_equal(me, m->thread);
        int refused = m->mode == CAP_GLOBAL ? (own ? t_mode != CAP_RELAXED : t_mode == CAP_GLOBAL)
                      : m->mode == CAP_THREAD_LOCAL ? own && t_mode != CAP_RELAXED : 0;
        if (refused)
            FAIL(ACL_ERROR_RT_CAPTURE_MODE_BLOCK_ASYNC, "%s: operation not permitted when a stream is capturing and "
                 "the specified capture mode is not relaxed", fn);
    }
    return 0;
}

/* an event record / wait / reset where a capture is involved; returns -1 when there is nothing to do */
static aclError capture_event_task(event *e, stream *s, int kind, const char *fn) {
    if (!s->cap) /* a stream outside the capture waiting for (or resetting) an event recorded into it */
        FAIL(ACL_ERROR_RT_CAPTURE_DEPENDENCY, "%s: the event's most recent record is inside a capture; a stream "
             "joining a capture through an event (multi-stream capture) is not supported by the simulator", fn);
    if (kind == T_WAIT && e->cap != s->cap) {
        if (e->cap || (e->rec_seq && pending(e, e->rec_seq)))
            FAIL(ACL_ERROR_RT_CAPTURE_DEPENDENCY, "%s: a capturing stream cannot wait for work outside its capture "
                 "(the event's most recent record is %s)", fn, e->cap ? "in another capture" : "still pending");
        return -1; /* completed before the capture: no dependency to record */
    }
    task *t = calloc(1, sizeof *t);
    t->kind = kind;
    t->ev = e;
    e->refs++;
    if (kind == T_RECORD) e->cap = s->cap;
    capture_add(s, t);
    return 0;
}

static int capture_supported(void) { /* the docs list the Atlas training series (910A parts) as unsupported */
    if (!strcmp(g_soc, "Ascend910B") ) return 0;
    if (!strncmp(g_soc, "Ascend910B", 10) || !strncmp(g_soc, "Ascend910_93", 12)) return 1;
    return strncmp(g_soc, "Ascend910", 9) != 0;
}

static void model_free(model *m) { /* caller holds g_lock; nothing of it is queued any more */
    for (uint64_t i = 0; i < m->ntasks; i++) {
        task *t = m->tasks[i];
        if (t->ev) {
            if (t->ev->cap == m) t->ev->cap = NULL;
            if (--t->ev->refs == 0) event_free(t->ev);
        }
        task_free(t);
    }
    free(m->tasks);
    g_models[m->id] = NULL;
    aclsim_count(K_MODELS, -1);
    free(m);
}

static void capture_stop(model *m) {
    for (int i = 0; i < MAX_CAPTURES; i++)
        if (g_active[i] == m) g_active[i] = NULL;
    g_ncapturing--;
    m->origin->cap = NULL;
    m->origin = NULL;
    for (uint64_t i = 0; i < g_nevents; i++) /* a record captured and never run is no record */
        if (g_events[i] && g_events[i]->cap == m) g_events[i]->cap = NULL;
}

static void capture_abandon(model *m) {
    m->status = CAP_STATUS_INVALIDATED;
    snprintf(m->why, sizeof m->why, "the stream was released while capturing");
    capture_stop(m);
}

EXPORT aclError aclmdlRICaptureBegin(aclrtStream sh, int mode) {
    LOCKED_INIT("aclmdlRICaptureBegin");
    aclError err = 0;
    if (!capture_supported())
        UNLOCK_FAIL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                    "aclmdlRICaptureBegin: not supported on %s (Atlas training series)", g_soc);
    if (mode < CAP_GLOBAL || mode > CAP_RELAXED)
        UNLOCK_FAIL(ACL_ERROR_INVALID_PARAM, "aclmdlRICaptureBegin: invalid aclmdlRICaptureMode %d", mode);
    if (!sh)
        UNLOCK_FAIL(ACL_ERROR_RT_PARAM_INVALID,
                    "aclmdlRICaptureBegin: the default stream cannot be captured (create a stream)");
    stream *s = get_stream(sh, "aclmdlRICaptureBegin", &err);
    if (!s) UNLOCK_RET(err);
    if (s->cap) UNLOCK_FAIL(ACL_ERROR_RT_STREAM_CAPTURED, "aclmdlRICaptureBegin: the stream is already capturing");
    int slot = -1;
    for (int i = 0; i < MAX_CAPTURES && slot < 0; i++)
        if (!g_active[i]) slot = i;
    if (slot < 0)
        UNLOCK_FAIL(ACL_ERROR_RT_PARAM_INVALID, "aclmdlRICaptureBegin: more than %d captures at once", MAX_CAPTURES);
    model *m = calloc(1, sizeof *m);
    g_models = grow(g_models, &g_capmodels, g_nmodels + 1, sizeof *g_models);
    m->id = g_nmodels++;
    m->dev = s->dev;
    m->mode = mode;
    m->status = CAP_STATUS_ACTIVE;
    m->thread = pthread_self();
    m->origin = s;
    g_models[m->id] = m;
    g_active[slot] = m;
    g_ncapturing++;
    s->cap = m;
    aclsim_count(K_MODELS, 1);
    UNLOCK_RET(ACL_SUCCESS);
}

EXPORT aclError aclmdlRICaptureGetInfo(aclrtStream sh, int *status, aclmdlRI *modelRI) {
    if (!status || !modelRI) FAIL(ACL_ERROR_INVALID_PARAM, "aclmdlRICaptureGetInfo: status or modelRI is NULL");
    LOCKED_INIT("aclmdlRICaptureGetInfo");
    aclError err = 0;
    stream *s = get_stream(sh, "aclmdlRICaptureGetInfo", &err);
    if (!s) UNLOCK_RET(err);
    *status = s->cap ? s->cap->status : CAP_STATUS_NONE;
    *modelRI = s->cap ? model_handle(s->cap) : NULL;
    UNLOCK_RET(ACL_SUCCESS);
}

EXPORT aclError aclmdlRICaptureThreadExchangeMode(int *mode) {
    if (!mode || *mode < CAP_GLOBAL || *mode > CAP_RELAXED)
        FAIL(ACL_ERROR_INVALID_PARAM, "aclmdlRICaptureThreadExchangeMode: mode is NULL or not an aclmdlRICaptureMode");
    int old = t_mode;
    t_mode = *mode;
    *mode = old;
    return ACL_SUCCESS;
}

EXPORT aclError aclmdlRICaptureEnd(aclrtStream sh, aclmdlRI *modelRI) {
    if (!modelRI) FAIL(ACL_ERROR_INVALID_PARAM, "aclmdlRICaptureEnd: modelRI is NULL");
    LOCKED_INIT("aclmdlRICaptureEnd");
    aclError err = 0;
    stream *s = get_stream(sh, "aclmdlRICaptureEnd", &err);
    if (!s) UNLOCK_RET(err);
    model *m = s->cap;
    if (!m) UNLOCK_FAIL(ACL_ERROR_RT_STREAM_NOT_CAPTURED, "aclmdlRICaptureEnd: the stream is not capturing");
    if (m->mode != CAP_RELAXED && !pthread_equal(pthread_self(), m->thread))
        UNLOCK_FAIL(ACL_ERROR_RT_STREAM_CAPTURE_WRONG_THREAD,
                    "aclmdlRICaptureEnd: the capture was begun on another thread (only "
                    "ACL_MODEL_RI_CAPTURE_MODE_RELAXED captures may end elsewhere)");
    capture_stop(m);
    *modelRI = NULL;
    if (m->status == CAP_STATUS_INVALIDATED) {
        char why[sizeof m->why];
        memcpy(why, m->why, sizeof why);
        model_free(m);
        pthread_mutex_unlock(&g_lock);
        FAIL(ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED, "aclmdlRICaptureEnd: the capture was invalidated: %s", why);
    }
    m->status = CAP_STATUS_NONE;
    *modelRI = model_handle(m);
    UNLOCK_RET(ACL_SUCCESS);
}

static int model_done(void *arg, int dev, char *msg, size_t len) {
    (void)dev, (void)msg, (void)len;
    __atomic_fetch_sub(&((model *)arg)->inflight, 1, __ATOMIC_RELEASE);
    return 0;
}

EXPORT aclError aclmdlRIExecuteAsync(aclmdlRI h, aclrtStream sh) {
    LOCKED_INIT("aclmdlRIExecuteAsync");
    aclError err = 0;
    model *m = get_model(h, "aclmdlRIExecuteAsync", &err);
    stream *s = m ? get_stream(sh, "aclmdlRIExecuteAsync", &err) : NULL;
    if (!s) UNLOCK_RET(err);
    if (m->origin)
        UNLOCK_FAIL(ACL_ERROR_RT_MODEL_CAPTURED, "aclmdlRIExecuteAsync: the model run instance is still capturing");
    if (s->cap) UNLOCK_FAIL(ACL_ERROR_RT_STREAM_CAPTURED, "aclmdlRIExecuteAsync: the stream is capturing");
    if (s->dev != m->dev)
        UNLOCK_FAIL(ACL_ERROR_RT_PARAM_INVALID,
                    "aclmdlRIExecuteAsync: the model was captured on device %d, the stream is on device %d", m->dev,
                    s->dev);
    for (uint64_t i = 0; i <= m->ntasks; i++) { /* the tasks, then a marker counting the execution finished */
        task *t = calloc(1, sizeof *t);
        if (i == m->ntasks) {
            t->kind = T_FN;
            t->run = model_done;
            t->arg = m;
            __atomic_fetch_add(&m->inflight, 1, __ATOMIC_RELAXED);
        } else {
            const task *r = m->tasks[i];
            t->kind = r->kind;
            t->run = r->run;
            t->arg = r->arg; /* borrowed: the model releases it */
            if ((t->ev = r->ev)) {
                event *e = t->ev;
                e->refs++;
                t->target = t->kind == T_RECORD ? new_record(e) : e->rec_seq;
            }
        }
        push(s, t);
    }
    UNLOCK_RET(ACL_SUCCESS);
}

EXPORT aclError aclmdlRIDestroy(aclmdlRI h) {
    LOCKED_INIT("aclmdlRIDestroy");
    aclError err = 0;
    model *m = get_model(h, "aclmdlRIDestroy", &err);
    if (!m) UNLOCK_RET(err);
    if (m->origin)
        UNLOCK_FAIL(ACL_ERROR_RT_MODEL_CAPTURED, "aclmdlRIDestroy: the model run instance is still capturing");
    while (__atomic_load_n(&m->inflight, __ATOMIC_ACQUIRE)) pthread_cond_wait(&g_done, &g_lock); /* executions */
    model_free(m);
    UNLOCK_RET(ACL_SUCCESS);
}

/* the recorded tasks as JSON (flags are accepted and ignored) */
EXPORT aclError aclmdlRIDebugJsonPrint(aclmdlRI h, const char *path, uint32_t flags) {
    (void)flags;
    if (!path) FAIL(ACL_ERROR_INVALID_PARAM, "aclmdlRIDebugJsonPrint: path is NULL");
    LOCKED_INIT("aclmdlRIDebugJsonPrint");
    aclError err = 0;
    model *m = get_model(h, "aclmdlRIDebugJsonPrint", &err);
    if (!m) UNLOCK_RET(err);
    FILE *f = fopen(path, "w");
    if (!f) UNLOCK_FAIL(ACL_ERROR_INVALID_PARAM, "aclmdlRIDebugJsonPrint: cannot open %s for writing", path);
    fprintf(f, "{\"modelRI\": %llu, \"device\": %d, \"tasks\": [", (unsigned long long)m->id, m->dev);
    for (uint64_t i = 0; i < m->ntasks; i++) {
        const task *t = m->tasks[i];
        const char *type = t->kind == T_RECORD ? "EVENT_RECORD" : t->kind == T_WAIT ? "EVENT_WAIT"
                         : t->kind == T_RESET ? "EVENT_RESET"
                         : t->run == copy_run ? (((copy_args *)t->arg)->is_set ? "MEMSET" : "MEMCPY") : "KERNEL";
        fprintf(f, "%s{\"seq\": %llu, \"type\": \"%s\"}", i ? ", " : "", (unsigned long long)i, type);
    }
    fprintf(f, "]}\n");
    fclose(f);
    UNLOCK_RET(ACL_SUCCESS);
}

static void models_release_all(void) {
    for (uint64_t i = 0; i < g_nmodels; i++)
        if (g_models[i]) {
            if (g_models[i]->origin) capture_stop(g_models[i]);
            model_free(g_models[i]);
        }
    g_ncapturing = 0;
}
