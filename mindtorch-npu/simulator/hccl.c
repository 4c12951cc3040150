/* libhccl.so: HCCL's collectives among the processes of one host (hccl.h, hccl_types.h).
 *
 * HcclGetRootInfo names a POSIX shared-memory segment; HcclCommInitRootInfo maps it in every rank. A
 * collective is a task on the caller's stream: on the stream's worker it moves the data through per-rank
 * slots of the segment in chunks, the ranks meeting at a barrier after each step. A barrier that waits
 * too long (ACLSIM_HCCL_TIMEOUT seconds, default 60) or sees a peer process gone fails the task; the
 * communicator is then aborted for every rank. Send/Recv use a mailbox per (source, destination) pair. */
#define _GNU_SOURCE
#include "aclsim.h"
#include "half.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* hccl_types.h */
typedef enum {
    HCCL_SUCCESS = 0, HCCL_E_PARA = 1, HCCL_E_PTR = 2, HCCL_E_MEMORY = 3, HCCL_E_INTERNAL = 4,
    HCCL_E_NOT_SUPPORT = 5, HCCL_E_NOT_FOUND = 6, HCCL_E_UNAVAIL = 7, HCCL_E_SYSCALL = 8, HCCL_E_TIMEOUT = 9,
    HCCL_E_RUNTIME = 15, HCCL_E_REMOTE = 21
} HcclResult;
typedef enum { HCCL_REDUCE_SUM = 0, HCCL_REDUCE_PROD = 1, HCCL_REDUCE_MAX = 2, HCCL_REDUCE_MIN = 3 } HcclReduceOp;
enum {
    HT_INT8 = 0, HT_INT16 = 1, HT_INT32 = 2, HT_FP16 = 3, HT_FP32 = 4, HT_INT64 = 5, HT_UINT64 = 6, HT_UINT8 = 7,
    HT_UINT16 = 8, HT_UINT32 = 9, HT_FP64 = 10, HT_BFP16 = 11
};
#define HCCL_ROOT_INFO_BYTES 4108
typedef struct { char internal[HCCL_ROOT_INFO_BYTES]; } HcclRootInfo;

/* runtime error codes a failed collective leaves on the stream (rt_error_codes.h) */
#define ACL_ERROR_RT_TASK_TIMEOUT 107020
#define ACL_ERROR_RT_SUSPECT_REMOTE_ERROR 507057

#define MAX_RANKS 64
#define SLOT_BYTES (4u << 20) /* per rank, per collective step */
#define MAIL_BYTES (1u << 20) /* per (source, destination) pair */
#define SEG_MAGIC 0x4843434cu
#define COMM_MAGIC 0x636f6d6du

typedef struct {
    _Atomic uint64_t posted, taken; /* bytes the sender has written / the receiver has consumed, ever */
} mailbox;

typedef struct {
    _Atomic uint32_t magic, nranks, joined, aborted;
    _Atomic uint32_t arrive, gen;
    _Atomic int32_t pid[MAX_RANKS];
    char why[256];
    /* then: mailbox[n*n], slots[n][SLOT_BYTES], mail data[n*n][MAIL_BYTES] */
} segment;

typedef struct {
    uint32_t magic;
    segment *seg;
    size_t seg_bytes;
    uint32_t rank, n;
    int device;
    _Atomic int refs;        /* the handle plus every queued task */
    _Atomic int async_error; /* HcclResult of the first failed task */
} comm;

static size_t seg_size(uint32_t n) {
    return sizeof(segment) + (size_t)n * n * sizeof(mailbox) + (size_t)n * SLOT_BYTES + (size_t)n * n * MAIL_BYTES;
}
static mailbox *boxes(segment *s) { return (mailbox *)(s + 1); }
static char *slot(segment *s, uint32_t r) {
    return (char *)(boxes(s) + (size_t)s->nranks * s->nranks) + (size_t)r * SLOT_BYTES;
}
static char *mail(segment *s, uint32_t src, uint32_t dst) {
    return slot(s, s->nranks) + ((size_t)src * s->nranks + dst) * MAIL_BYTES;
}

static double timeout_s(void) {
    const char *v = getenv("ACLSIM_HCCL_TIMEOUT");
    double t = v ? atof(v) : 60.0;
    return t > 0 ? t : 60.0;
}
static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}
static void nap(void) {
    struct timespec ts = {0, 20000};
    nanosleep(&ts, NULL);
}

static int dt_bytes(int dt) {
    switch (dt) {
    case HT_INT8: case HT_UINT8: return 1;
    case HT_INT16: case HT_UINT16: case HT_FP16: case HT_BFP16: return 2;
    case HT_INT32: case HT_UINT32: case HT_FP32: return 4;
    case HT_INT64: case HT_UINT64: case HT_FP64: return 8;
    default: return 0; /* int128, fp8 formats: not simulated */
    }
}

/* ---------------------------------------------------------------- failure and waiting */
/* mark the communicator failed for every rank; the first reason wins */
static void abort_all(comm *c, const char *why) {
    uint32_t z = 0;
    if (atomic_compare_exchange_strong(&c->seg->aborted, &z, 1u)) snprintf(c->seg->why, sizeof c->seg->why, "%s", why);
}

/* 0 while every peer is alive and the communicator healthy, else the runtime error code (msg set) */
static int health(comm *c, double deadline, char *msg, size_t len) {
    segment *s = c->seg;
    if (atomic_load(&s->aborted)) {
        snprintf(msg, len, "HCCL communicator aborted: %s", s->why);
        return ACL_ERROR_RT_SUSPECT_REMOTE_ERROR;
    }
    for (uint32_t r = 0; r < c->n; r++) {
        int32_t pid = atomic_load(&s->pid[r]);
        if (r != c->rank && pid > 0 && kill(pid, 0) != 0 && errno == ESRCH) {
            char why[128];
            snprintf(why, sizeof why, "rank %u (pid %d) exited while the others waited for it", r, pid);
            abort_all(c, why);
            snprintf(msg, len, "HCCL communicator aborted: %s", why);
            return ACL_ERROR_RT_SUSPECT_REMOTE_ERROR;
        }
    }
    if (now_s() > deadline) {
        char why[128];
        snprintf(why, sizeof why, "rank %u timed out after %.0f s waiting for its peers", c->rank, timeout_s());
        abort_all(c, why);
        snprintf(msg, len, "HCCL %s", why);
        return ACL_ERROR_RT_TASK_TIMEOUT;
    }
    return 0;
}

/* all ranks meet; sense by generation number */
static int barrier(comm *c, char *msg, size_t len) {
    segment *s = c->seg;
    uint32_t g = atomic_load(&s->gen);
    if (atomic_fetch_add(&s->arrive, 1) + 1 == c->n) {
        atomic_store(&s->arrive, 0);
        atomic_fetch_add(&s->gen, 1);
        return atomic_load(&s->aborted) ? health(c, 1e300, msg, len) : 0;
    }
    double deadline = now_s() + timeout_s();
    for (unsigned spin = 0; atomic_load(&s->gen) == g; spin++) {
        if ((spin & 63) == 63) {
            int rc = health(c, deadline, msg, len);
            if (rc) return rc;
        }
        nap();
    }
    return 0;
}

/* ---------------------------------------------------------------- reduction */
#define RED(a, b) (op == HCCL_REDUCE_SUM ? (a) + (b) : op == HCCL_REDUCE_PROD ? (a) * (b) : \
                   op == HCCL_REDUCE_MAX ? ((a) > (b) || (a) != (a) ? (a) : (b)) : ((a) < (b) || (a) != (a) ? (a) : (b)))
#define LOOP(T) do { T *d = (T *)dst; const T *x = (const T *)src; \
                     for (uint64_t i = 0; i < n; i++) d[i] = RED(d[i], x[i]); } while (0)
#define LOOP16(TO, FROM) do { uint16_t *d = (uint16_t *)dst; const uint16_t *x = (const uint16_t *)src; \
                              for (uint64_t i = 0; i < n; i++) { float a = TO(d[i]), b = TO(x[i]); d[i] = FROM(RED(a, b)); } } while (0)

/* dst[i] = dst[i] (op) src[i] for n elements; half formats combine in float and round once per step */
static void reduce_into(void *dst, const void *src, uint64_t n, int dt, int op) {
    switch (dt) {
    case HT_FP32: LOOP(float); break;
    case HT_FP64: LOOP(double); break;
    case HT_FP16: LOOP16(h2f, f2h); break;
    case HT_BFP16: LOOP16(b2f, f2b); break;
    case HT_INT8: LOOP(int8_t); break;
    case HT_UINT8: LOOP(uint8_t); break;
    case HT_INT16: LOOP(int16_t); break;
    case HT_UINT16: LOOP(uint16_t); break;
    case HT_INT32: LOOP(int32_t); break;
    case HT_UINT32: LOOP(uint32_t); break;
    case HT_INT64: LOOP(int64_t); break;
    case HT_UINT64: LOOP(uint64_t); break;
    }
}

/* ---------------------------------------------------------------- what a chip reduces
 * The dataType / op sections of hccl's docs (docs/zh/api_ref/comm_op_interface/HcclAllReduce.md, HcclReduce.md,
 * HcclReduceScatter.md), by product: 910B-class (Atlas A2, A3): int8 int16 int32 int64 fp16 fp32 bf16, prod not
 * int16 / bf16; 950: those plus uint64 and fp64; the training series (910A): int8 int32 int64 fp16 fp32; 310P
 * (Atlas 300I Duo): int8 int16 int32 fp16 fp32, prod / max / min not int16. Unsupported: HCCL_E_NOT_SUPPORT. */
#define DT(x) (1u << (x))
enum { FAM_910B, FAM_950, FAM_910A, FAM_310P };
static int chip_family(void) {
    const char *soc = aclrtGetSocName();
    if (!soc || !strncmp(soc, "Ascend910B", 10) || !strncmp(soc, "Ascend910_93", 12)) return FAM_910B;
    if (!strncmp(soc, "Ascend950", 9)) return FAM_950;
    if (!strncmp(soc, "Ascend310P", 10)) return FAM_310P;
    return FAM_910A;
}
static const char *reduce_refusal(int dt, int op) {
    static const uint32_t sets[] = {
        [FAM_910B] = DT(HT_INT8) | DT(HT_INT16) | DT(HT_INT32) | DT(HT_INT64) | DT(HT_FP16) | DT(HT_FP32) | DT(HT_BFP16),
        [FAM_950] = DT(HT_INT8) | DT(HT_INT16) | DT(HT_INT32) | DT(HT_INT64) | DT(HT_UINT64) | DT(HT_FP16) |
                    DT(HT_FP32) | DT(HT_FP64) | DT(HT_BFP16),
        [FAM_910A] = DT(HT_INT8) | DT(HT_INT32) | DT(HT_INT64) | DT(HT_FP16) | DT(HT_FP32),
        [FAM_310P] = DT(HT_INT8) | DT(HT_INT16) | DT(HT_INT32) | DT(HT_FP16) | DT(HT_FP32),
    };
    int fam = chip_family();
    if (dt < 0 || dt > HT_BFP16 || !(sets[fam] & DT(dt))) return "this data type cannot be reduced on this chip";
    if (op == HCCL_REDUCE_PROD && (fam == FAM_910B || fam == FAM_950) && (dt == HT_INT16 || dt == HT_BFP16))
        return "prod does not take int16 or bfloat16";
    if (op != HCCL_REDUCE_SUM && fam == FAM_310P && dt == HT_INT16) return "prod, max and min do not take int16";
    return NULL;
}

/* ---------------------------------------------------------------- the collectives, as stream tasks */
enum { C_ALLREDUCE, C_BROADCAST, C_REDUCE, C_ALLGATHER, C_REDUCESCATTER, C_SCATTER, C_SEND, C_RECV, C_BARRIER };
static const char *const c_names[] = {"HcclAllReduce", "HcclBroadcast", "HcclReduce", "HcclAllGather",
                                      "HcclReduceScatter", "HcclScatter", "HcclSend", "HcclRecv", "HcclBarrier"};

typedef struct {
    int kind, dt, op;
    void *send, *recv;
    uint64_t count;   /* elements: per rank for allgather/reducescatter/scatter, else total */
    uint32_t root;    /* root, or the peer of send/recv */
    comm *c;
} task;

static void comm_unref(comm *c) {
    if (atomic_fetch_sub(&c->refs, 1) == 1) {
        munmap(c->seg, c->seg_bytes);
        c->magic = 0;
        free(c);
        aclsim_count(K_HCCL_COMMS, -1);
    }
}

static void task_release(void *arg) {
    task *t = arg;
    comm_unref(t->c);
    free(t);
}

/* the device buffer as host memory, or NULL with msg set */
static char *host_of(const task *t, const void *p, uint64_t bytes, int dev, const char *what, char *msg, size_t len) {
    if (!bytes) return (char *)p;
    char *h = aclsim_dev2host(p, bytes, dev);
    if (!h) snprintf(msg, len, "%s: %s %p is not a live allocation of %llu bytes on device %d", c_names[t->kind],
                     what, p, (unsigned long long)bytes, dev);
    return h;
}

static int p2p(task *t, char *buf, uint64_t bytes, char *msg, size_t len) {
    comm *c = t->c;
    int sending = t->kind == C_SEND;
    mailbox *b = &boxes(c->seg)[sending ? (size_t)c->rank * c->n + t->root : (size_t)t->root * c->n + c->rank];
    char *data = sending ? mail(c->seg, c->rank, t->root) : mail(c->seg, t->root, c->rank);
    double deadline = now_s() + timeout_s();
    for (uint64_t done = 0; done < bytes;) {
        uint64_t posted = atomic_load(&b->posted), taken = atomic_load(&b->taken);
        uint64_t room = sending ? MAIL_BYTES - (posted - taken) : posted - taken;
        if (!room) { /* the mailbox is full (send) or empty (recv): wait for the peer */
            int rc = health(c, deadline, msg, len);
            if (rc) return rc;
            nap();
            continue;
        }
        uint64_t step = bytes - done < room ? bytes - done : room;
        uint64_t at = (sending ? posted : taken) % MAIL_BYTES;
        if (step > MAIL_BYTES - at) step = MAIL_BYTES - at; /* up to the ring's end */
        if (sending) memcpy(data + at, buf + done, step), atomic_fetch_add(&b->posted, step);
        else memcpy(buf + done, data + at, step), atomic_fetch_add(&b->taken, step);
        done += step;
        deadline = now_s() + timeout_s();
    }
    return 0;
}

static int run(void *arg, int dev, char *msg, size_t len) {
    task *t = arg;
    comm *c = t->c;
    segment *s = c->seg;
    int es = dt_bytes(t->dt);
    uint32_t n = c->n, me = c->rank;
    uint64_t in_elems = t->count, out_elems = t->count;
    switch (t->kind) {
    case C_ALLGATHER: out_elems = t->count * n; break;
    case C_REDUCESCATTER: case C_SCATTER: in_elems = t->count * n; break;
    case C_BARRIER: in_elems = out_elems = 0; break;
    }
    int has_in = t->kind != C_RECV && t->kind != C_BARRIER && (t->kind != C_SCATTER || me == t->root);
    int has_out = t->kind != C_SEND && t->kind != C_BARRIER && (t->kind != C_REDUCE || me == t->root);
    char *in = has_in ? host_of(t, t->send, in_elems * es, dev, "send buffer", msg, len) : NULL;
    char *out = has_out ? host_of(t, t->recv, out_elems * es, dev, "receive buffer", msg, len) : NULL;
    if ((has_in && in_elems && !in) || (has_out && out_elems && !out)) {
        abort_all(c, msg);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    int rc = 0;
    if (t->kind == C_SEND || t->kind == C_RECV) {
        rc = p2p(t, t->kind == C_SEND ? in : out, t->count * es, msg, len);
    } else if (t->kind == C_BARRIER) {
        rc = barrier(c, msg, len);
    } else {
        /* per step every rank publishes up to SLOT_BYTES; reduce-scatter and scatter publish one piece per
         * destination, so their step is a rank's share of the slot */
        int split = t->kind == C_REDUCESCATTER || t->kind == C_SCATTER;
        uint64_t step = (SLOT_BYTES / es) / (split ? n : 1);
        for (uint64_t at = 0; at < t->count && !rc; at += step) {
            uint64_t k = t->count - at < step ? t->count - at : step, b = k * es;
            char *mine = slot(s, me);
            switch (t->kind) { /* publish */
            case C_ALLREDUCE: case C_REDUCE: case C_ALLGATHER: memcpy(mine, in + at * es, b); break;
            case C_BROADCAST: if (me == t->root) memcpy(mine, in + at * es, b); break;
            case C_REDUCESCATTER:
                for (uint32_t d = 0; d < n; d++) memcpy(mine + d * b, in + (d * t->count + at) * es, b);
                break;
            case C_SCATTER:
                if (me == t->root)
                    for (uint32_t d = 0; d < n; d++) memcpy(mine + d * b, in + (d * t->count + at) * es, b);
                break;
            }
            if ((rc = barrier(c, msg, len))) break;
            switch (t->kind) { /* combine */
            case C_ALLREDUCE: case C_REDUCE:
                if (out) {
                    memcpy(out + at * es, slot(s, 0), b);
                    for (uint32_t r = 1; r < n; r++) reduce_into(out + at * es, slot(s, r), k, t->dt, t->op);
                }
                break;
            case C_BROADCAST: if (me != t->root) memcpy(out + at * es, slot(s, t->root), b); break;
            case C_ALLGATHER:
                for (uint32_t r = 0; r < n; r++) memcpy(out + (r * t->count + at) * es, slot(s, r), b);
                break;
            case C_REDUCESCATTER:
                memcpy(out + at * es, slot(s, 0) + me * b, b);
                for (uint32_t r = 1; r < n; r++) reduce_into(out + at * es, slot(s, r) + me * b, k, t->dt, t->op);
                break;
            case C_SCATTER: memcpy(out + at * es, slot(s, t->root) + me * b, b); break;
            }
            rc = barrier(c, msg, len); /* nobody overwrites a slot another rank still reads */
        }
    }
    if (rc) {
        int z = 0;
        atomic_compare_exchange_strong(&c->async_error, &z,
                                       rc == ACL_ERROR_RT_TASK_TIMEOUT ? HCCL_E_TIMEOUT : HCCL_E_REMOTE);
    }
    return rc;
}

/* ---------------------------------------------------------------- API */
static _Atomic uint64_t g_root_seq;

/* HcclRootInfo is binary, as HCCL's (device ip, port, identifiers): a header with NUL bytes in it, the
 * segment's name, and a checksum over everything before it in the last four bytes. A copy that stops at
 * the first NUL, or loses any byte, is refused by HcclCommInitRootInfo. */
#define ROOT_MAGIC 0x534d4900u /* stored little-endian: the very first byte is NUL */
#define ROOT_NAME_AT 32
typedef struct {
    uint32_t magic;
    int32_t device, pid;
    uint32_t reserved;
    uint64_t seq, stamp;
} root_head;
_Static_assert(sizeof(root_head) <= ROOT_NAME_AT, "root info header");

static uint32_t root_sum(const HcclRootInfo *r) { /* FNV-1a over all but the checksum */
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < HCCL_ROOT_INFO_BYTES - 4; i++) h = (h ^ (unsigned char)r->internal[i]) * 16777619u;
    return h;
}

EXPORT const char *HcclGetErrorString(HcclResult code) {
    static const char *const names[] = {"success", "parameter error", "empty pointer", "memory error",
                                        "internal error", "not support feature", "not found specific resource",
                                        "resource unavailable", "call system interface error", "timeout"};
    if ((unsigned)code < sizeof names / sizeof *names) return names[code];
    if (code == HCCL_E_RUNTIME) return "call runtime api fail";
    if (code == HCCL_E_REMOTE) return "error cqe";
    return "unknown error";
}

#define FAILH(code, ...) do { aclsim_set_err(__VA_ARGS__); return (code); } while (0)

/* the root info names the calling thread's device (HCCL's samples call aclrtSetDevice first) */
EXPORT HcclResult HcclGetRootInfo(HcclRootInfo *root) {
    if (!root) FAILH(HCCL_E_PTR, "HcclGetRootInfo: rootInfo is NULL");
    aclError err = 0;
    int dev = aclsim_stream_device(NULL, &err);
    if (dev < 0) FAILH(HCCL_E_RUNTIME, "HcclGetRootInfo: no current device on this thread (call aclrtSetDevice first)");
    memset(root, 0, sizeof *root);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    root_head h = {.magic = ROOT_MAGIC, .device = dev, .pid = (int32_t)getpid(),
                   .seq = atomic_fetch_add(&g_root_seq, 1), .stamp = (uint64_t)ts.tv_nsec};
    memcpy(root->internal, &h, sizeof h);
    snprintf(root->internal + ROOT_NAME_AT, 128, "/aclsim-hccl-%d-%llu-%lx", (int)getpid(),
             (unsigned long long)h.seq, (unsigned long)ts.tv_nsec);
    uint32_t sum = root_sum(root);
    memcpy(root->internal + HCCL_ROOT_INFO_BYTES - 4, &sum, 4);
    return HCCL_SUCCESS;
}

/* the segment name of a well-formed root info, or NULL */
static const char *root_name(const HcclRootInfo *r) {
    root_head h;
    uint32_t sum;
    memcpy(&h, r->internal, sizeof h);
    memcpy(&sum, r->internal + HCCL_ROOT_INFO_BYTES - 4, 4);
    if (h.magic != ROOT_MAGIC || sum != root_sum(r) || r->internal[ROOT_NAME_AT] != '/') return NULL;
    return r->internal + ROOT_NAME_AT;
}

static comm *live_comm(void *h) {
    comm *c = h;
    return c && c->magic == COMM_MAGIC ? c : NULL;
}

EXPORT HcclResult HcclCommInitRootInfo(uint32_t nRanks, const HcclRootInfo *root, uint32_t rank, void **out) {
    if (!root || !out) FAILH(HCCL_E_PTR, "HcclCommInitRootInfo: rootInfo or comm is NULL");
    if (nRanks == 0 || nRanks > MAX_RANKS || rank >= nRanks)
        FAILH(HCCL_E_PARA, "HcclCommInitRootInfo: rank %u of %u ranks is invalid (at most %d ranks)", rank, nRanks,
              MAX_RANKS);
    const char *name = root_name(root);
    if (!name)
        FAILH(HCCL_E_PARA, "HcclCommInitRootInfo: rootInfo is not the %d bytes HcclGetRootInfo made (truncated or "
              "altered)", HCCL_ROOT_INFO_BYTES);
    aclError err = 0;
    int dev = aclsim_stream_device(NULL, &err);
    if (dev < 0) FAILH(HCCL_E_RUNTIME, "HcclCommInitRootInfo: no current device (call aclrtSetDevice first)");
    size_t bytes = seg_size(nRanks);
    int fd = shm_open(name, O_RDWR | O_CREAT, 0600);
    if (fd < 0) FAILH(HCCL_E_SYSCALL, "HcclCommInitRootInfo: shm_open(%s): %s", name, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || ((size_t)st.st_size < bytes && ftruncate(fd, (off_t)bytes) != 0)) {
        close(fd);
        FAILH(HCCL_E_SYSCALL, "HcclCommInitRootInfo: sizing %s: %s", name, strerror(errno));
    }
    segment *s = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (s == MAP_FAILED) FAILH(HCCL_E_MEMORY, "HcclCommInitRootInfo: mmap: %s", strerror(errno));
    uint32_t zero = 0;
    if (!atomic_compare_exchange_strong(&s->nranks, &zero, nRanks) && s->nranks != nRanks) {
        uint32_t have = s->nranks;
        munmap(s, bytes);
        FAILH(HCCL_E_PARA, "HcclCommInitRootInfo: rank %u says %u ranks, another rank said %u", rank, nRanks, have);
    }
    int32_t none = 0;
    if (!atomic_compare_exchange_strong(&s->pid[rank], &none, (int32_t)getpid())) {
        munmap(s, bytes);
        FAILH(HCCL_E_PARA, "HcclCommInitRootInfo: rank %u joined twice", rank);
    }
    comm *c = calloc(1, sizeof *c);
    *c = (comm){.magic = COMM_MAGIC, .seg = s, .seg_bytes = bytes, .rank = rank, .n = nRanks, .device = dev};
    atomic_store(&c->refs, 1);
    atomic_fetch_add(&s->joined, 1);
    /* like HCCL, initialisation returns once every rank has joined */
    double deadline = now_s() + timeout_s();
    char msg[256];
    while (atomic_load(&s->joined) < nRanks) {
        if (health(c, deadline, msg, sizeof msg)) {
            atomic_store(&s->pid[rank], 0);
            munmap(s, bytes);
            free(c);
            FAILH(HCCL_E_TIMEOUT, "HcclCommInitRootInfo: %s (%u of %u ranks joined)", msg, atomic_load(&s->joined),
                  nRanks);
        }
        nap();
    }
    if (rank == 0) shm_unlink(name); /* everyone has it mapped: nothing stays behind in /dev/shm */
    atomic_store(&s->magic, SEG_MAGIC);
    aclsim_count(K_HCCL_COMMS, 1);
    *out = c;
    return HCCL_SUCCESS;
}

EXPORT HcclResult HcclCommDestroy(void *h) {
    comm *c = live_comm(h);
    if (!c) FAILH(HCCL_E_PARA, "HcclCommDestroy: %p is not a live communicator", h);
    c->magic = 0xdeadu; /* the handle is dead; queued tasks still hold the memory */
    atomic_store(&c->seg->pid[c->rank], -1);
    comm_unref(c);
    return HCCL_SUCCESS;
}

EXPORT HcclResult HcclGetRankSize(void *h, uint32_t *size) {
    comm *c = live_comm(h);
    if (!c || !size) FAILH(c ? HCCL_E_PTR : HCCL_E_PARA, "HcclGetRankSize: bad communicator or NULL output");
    *size = c->n;
    return HCCL_SUCCESS;
}

EXPORT HcclResult HcclGetRankId(void *h, uint32_t *rank) {
    comm *c = live_comm(h);
    if (!c || !rank) FAILH(c ? HCCL_E_PTR : HCCL_E_PARA, "HcclGetRankId: bad communicator or NULL output");
    *rank = c->rank;
    return HCCL_SUCCESS;
}

EXPORT HcclResult HcclGetCommAsyncError(void *h, HcclResult *err) {
    comm *c = live_comm(h);
    if (!c || !err) FAILH(c ? HCCL_E_PTR : HCCL_E_PARA, "HcclGetCommAsyncError: bad communicator or NULL output");
    *err = (HcclResult)atomic_load(&c->async_error);
    return HCCL_SUCCESS;
}

static HcclResult submit(int kind, void *send, void *recv, uint64_t count, int dt, int op, uint32_t root, void *h,
                         aclrtStream stream) {
    const char *fn = c_names[kind];
    /* every collective refuses a NULL stream (hccl src/ops/<op>/<op>_op.cc: CHK_PTR_NULL(stream)) */
    if (!stream) FAILH(HCCL_E_PTR, "%s: stream is NULL (HCCL needs a created stream)", fn);
    comm *c = live_comm(h);
    if (!c) FAILH(HCCL_E_PARA, "%s: %p is not a live communicator", fn, h);
    if (kind != C_BARRIER) {
        if (!dt_bytes(dt)) FAILH(HCCL_E_NOT_SUPPORT, "%s: data type %d is not supported", fn, dt);
        int reduces = kind == C_ALLREDUCE || kind == C_REDUCE || kind == C_REDUCESCATTER;
        if (reduces && (op < HCCL_REDUCE_SUM || op > HCCL_REDUCE_MIN))
            FAILH(HCCL_E_PARA, "%s: reduce op %d is invalid", fn, op);
        const char *no = reduces ? reduce_refusal(dt, op) : NULL;
        if (no) FAILH(HCCL_E_NOT_SUPPORT, "%s: data type %d with reduce op %d: %s", fn, dt, op, no);
        if (root >= c->n) FAILH(HCCL_E_PARA, "%s: rank %u is outside the communicator of %u ranks", fn, root, c->n);
        if ((kind == C_SEND || kind == C_RECV) && root == c->rank)
            FAILH(HCCL_E_PARA, "%s: a rank cannot %s itself", fn, kind == C_SEND ? "send to" : "receive from");
        int needs_send = kind != C_RECV && kind != C_BROADCAST && (kind != C_SCATTER || c->rank == root);
        int needs_recv = kind != C_SEND && (kind != C_REDUCE || c->rank == root);
        if (count && ((needs_send && !send) || (needs_recv && !recv)))
            FAILH(HCCL_E_PTR, "%s: a buffer is NULL", fn);
    }
    aclError err = 0;
    int dev = aclsim_stream_device(stream, &err);
    if (dev < 0) FAILH(HCCL_E_RUNTIME, "%s: invalid stream", fn);
    if (dev != c->device)
        FAILH(HCCL_E_PARA, "%s: the stream is on device %d, the communicator on device %d", fn, dev, c->device);
    task *t = malloc(sizeof *t);
    *t = (task){.kind = kind, .dt = dt, .op = op, .send = send, .recv = recv, .count = count, .root = root, .c = c};
    if (kind == C_BROADCAST) t->recv = send; /* one buffer, in place */
    atomic_fetch_add(&c->refs, 1);
    if (aclsim_enqueue(stream, run, task_release, t)) {
        task_release(t);
        return HCCL_E_RUNTIME;
    }
    return HCCL_SUCCESS;
}

EXPORT HcclResult HcclAllReduce(void *send, void *recv, uint64_t count, int dt, int op, void *comm, aclrtStream s) {
    return submit(C_ALLREDUCE, send, recv, count, dt, op, 0, comm, s);
}
EXPORT HcclResult HcclBroadcast(void *buf, uint64_t count, int dt, uint32_t root, void *comm, aclrtStream s) {
    return submit(C_BROADCAST, buf, buf, count, dt, 0, root, comm, s);
}
EXPORT HcclResult HcclReduce(void *send, void *recv, uint64_t count, int dt, int op, uint32_t root, void *comm,
                             aclrtStream s) {
    return submit(C_REDUCE, send, recv, count, dt, op, root, comm, s);
}
EXPORT HcclResult HcclAllGather(void *send, void *recv, uint64_t sendCount, int dt, void *comm, aclrtStream s) {
    return submit(C_ALLGATHER, send, recv, sendCount, dt, 0, 0, comm, s);
}
EXPORT HcclResult HcclReduceScatter(void *send, void *recv, uint64_t recvCount, int dt, int op, void *comm,
                                    aclrtStream s) {
    return submit(C_REDUCESCATTER, send, recv, recvCount, dt, op, 0, comm, s);
}
EXPORT HcclResult HcclScatter(void *send, void *recv, uint64_t recvCount, int dt, uint32_t root, void *comm,
                              aclrtStream s) {
    return submit(C_SCATTER, send, recv, recvCount, dt, 0, root, comm, s);
}
EXPORT HcclResult HcclSend(void *send, uint64_t count, int dt, uint32_t dest, void *comm, aclrtStream s) {
    return submit(C_SEND, send, NULL, count, dt, 0, dest, comm, s);
}
EXPORT HcclResult HcclRecv(void *recv, uint64_t count, int dt, uint32_t src, void *comm, aclrtStream s) {
    return submit(C_RECV, NULL, recv, count, dt, 0, src, comm, s);
}
EXPORT HcclResult HcclBarrier(void *comm, aclrtStream s) {
    return submit(C_BARRIER, NULL, NULL, 0, HT_INT8, 0, 0, comm, s);
}
