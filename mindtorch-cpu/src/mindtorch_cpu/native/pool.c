/* The kernels' own thread pool (included by kernels.c).
 *
 * Python threads hand work over through locks, and waking a sleeping thread costs 10-60 us on a
 * virtual machine: more than a 1M-element add takes. These workers never touch Python: after a
 * region they spin for SPIN_NS waiting for the next one (as OpenMP's do), then sleep on a condition
 * variable. A region is cut into a fixed number of chunks that the caller and the workers claim
 * one at a time, so a worker that wakes late finds its chunks already taken by the caller instead
 * of holding the caller up, and the result never depends on who ran which chunk.
 *
 * One region runs at a time; a caller that finds the pool busy (another thread's region, or a
 * kernel called from inside a chunk) runs every chunk itself, in order. */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

typedef int64_t i64;

/* fn(ctx, chunk, lo, hi): one chunk, units [lo, hi) of the region */
typedef void (*mt_chunk_fn)(const void *ctx, int chunk, i64 lo, i64 hi);

enum { POOL_MAX = 256, CHUNKS_PER_THREAD = 4 };
#define SPIN_NS 200000L /* a worker's wait for the next region before it sleeps: 0.2 ms */

/* The claim word: the region's number (32 bits), its chunk count and the next unclaimed chunk (16
 * each). Claiming is one compare-and-swap on it, so a worker can never take a chunk of a region
 * other than the one whose number it read. */
#define SEQ(t) ((uint32_t)((t) >> 32))
#define NCHUNKS(t) ((int)(((t) >> 16) & 0xffff))
#define NEXT(t) ((int)((t) & 0xffff))

static struct {
    _Atomic uint64_t ticket;
    atomic_int done;     /* chunks of the current region finished */
    atomic_int sleepers; /* workers waiting on `wake` */
    atomic_flag busy;    /* a region is running */
    mt_chunk_fn fn;      /* the current region: written before its ticket is published */
    const void *ctx;
    i64 units, per;
    int workers; /* threads started (the caller is not one of them) */
    pthread_mutex_t lock;
    pthread_cond_t wake;
} pool = {.busy = ATOMIC_FLAG_INIT, .lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER};

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

static i64 now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (i64)ts.tv_sec * 1000000000L + ts.tv_nsec;
}

/* Claim and run chunks of region `seq` until none is left (or the region is over). */
static void run_chunks(uint32_t seq) {
    uint64_t t = atomic_load_explicit(&pool.ticket, memory_order_acquire);
    while (SEQ(t) == seq && NEXT(t) < NCHUNKS(t)) {
        if (!atomic_compare_exchange_weak_explicit(&pool.ticket, &t, t + 1, memory_order_acq_rel,
                                                   memory_order_acquire))
            continue; /* t now holds the current word */
        i64 k = NEXT(t), lo = k * pool.per, hi = lo + pool.per < pool.units ? lo + pool.per : pool.units;
        pool.fn(pool.ctx, (int)k, lo, hi);
        atomic_fetch_add_explicit(&pool.done, 1, memory_order_release);
        t = atomic_load_explicit(&pool.ticket, memory_order_acquire);
    }
}

static void *worker_main(void *arg) {
    uint32_t seen = (uint32_t)(uintptr_t)arg; /* the region number when this worker started */
    sigset_t all; /* signals go to the process's own threads (Python handles them on its main one) */
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    for (;;) {
        uint64_t t = atomic_load_explicit(&pool.ticket, memory_order_acquire);
        if (SEQ(t) == seen) {
            i64 until = now_ns() + SPIN_NS;
            for (int spins = 0; SEQ(t) == seen; spins++) {
                /* a few us of pause, then the core is offered to any other runnable thread between looks
                 * (OpenBLAS's workers, another process): a waiting worker never holds a core from work */
                if (spins < 256)
                    cpu_relax();
                else
                    sched_yield();
                if ((spins & 15) == 15 && now_ns() > until) break;
                t = atomic_load_explicit(&pool.ticket, memory_order_acquire);
            }
            if (SEQ(t) == seen) { /* sleep; the publisher reads `sleepers` after its ticket (seq_cst both) */
                pthread_mutex_lock(&pool.lock);
                atomic_fetch_add(&pool.sleepers, 1);
                while (SEQ(atomic_load(&pool.ticket)) == seen) pthread_cond_wait(&pool.wake, &pool.lock);
                atomic_fetch_sub(&pool.sleepers, 1);
                pthread_mutex_unlock(&pool.lock);
            }
            continue;
        }
        seen = SEQ(t);
        run_chunks(seen);
    }
    return NULL;
}

/* A forked child has none of its parent's threads: it starts its own when it needs them. */
static void pool_after_fork(void) {
    pool.workers = 0;
    atomic_store(&pool.sleepers, 0);
    atomic_flag_clear(&pool.busy);
    pthread_mutex_init(&pool.lock, NULL);
    pthread_cond_init(&pool.wake, NULL);
}

static void pool_grow(int n) {
    static int registered;
    if (!registered) {
        pthread_atfork(NULL, NULL, pool_after_fork);
        registered = 1;
    }
    uint32_t seq = SEQ(atomic_load(&pool.ticket));
    while (pool.workers < n) {
        pthread_t th;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        int failed = pthread_create(&th, &attr, worker_main, (void *)(uintptr_t)seq);
        pthread_attr_destroy(&attr);
        if (failed) break; /* fewer workers: the caller takes the chunks they would have */
        pool.workers++;
    }
}

/* The number of chunks a region of `units` gets on `threads` threads (each ceil(units / chunks) units,
 * none empty): fixed by the two alone, so per-chunk partial results (summed in chunk order) do not
 * depend on timing. */
static int pool_chunks(i64 units, int threads) {
    if (threads <= 1 || units <= 1) return 1;
    if (threads > POOL_MAX) threads = POOL_MAX;
    i64 c = (i64)threads * CHUNKS_PER_THREAD;
    if (c > units) c = units;
    i64 per = (units + c - 1) / c;
    return (int)((units + per - 1) / per);
}

/* fn over `units` cut into pool_chunks(units, threads) chunks, on up to `threads` threads. */
static void pool_run(mt_chunk_fn fn, const void *ctx, i64 units, int threads) {
    if (threads > POOL_MAX) threads = POOL_MAX;
    int nchunks = pool_chunks(units, threads);
    i64 per = (units + nchunks - 1) / nchunks;
    if (nchunks == 1 || atomic_flag_test_and_set_explicit(&pool.busy, memory_order_acquire)) {
        for (int k = 0; k < nchunks; k++) {
            i64 lo = k * per, hi = lo + per < units ? lo + per : units;
            if (lo < hi) fn(ctx, k, lo, hi);
        }
        return;
    }
    if (pool.workers < threads - 1) pool_grow(threads - 1);
    pool.fn = fn;
    pool.ctx = ctx;
    pool.units = units;
    pool.per = per;
    atomic_store_explicit(&pool.done, 0, memory_order_relaxed);
    uint32_t seq = SEQ(atomic_load(&pool.ticket)) + 1;
    atomic_store(&pool.ticket, ((uint64_t)seq << 32) | ((uint64_t)nchunks << 16));
    if (atomic_load(&pool.sleepers) > 0) {
        pthread_mutex_lock(&pool.lock);
        pthread_cond_broadcast(&pool.wake);
        pthread_mutex_unlock(&pool.lock);
    }
    run_chunks(seq);
    /* the chunks still running are on workers; one that lost its core (more threads than cores) is
     * given the caller's after a short spin */
    for (int spins = 0; atomic_load_explicit(&pool.done, memory_order_acquire) < nchunks; spins++) {
        if (spins < 4096)
            cpu_relax();
        else
            sched_yield();
    }
    atomic_flag_clear_explicit(&pool.busy, memory_order_release);
}
