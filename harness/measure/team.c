#include "team.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "cli.h"

/* Spins with a pause before yielding: a barrier is passed in well under a microsecond when
 * every thread has a CPU, and a thread whose partner was descheduled gives its CPU away. */
#define SPINS_BEFORE_YIELD 4096

typedef struct {
    struct ln_team *team;
    int index;
} helper;

struct ln_team {
    int size;
    int *cpus; /* CPU of thread i, from the caller's allowed set; -1: none */
    pthread_t *threads;
    helper *helpers;
    /* the job, posted under the lock; generation counts the posts */
    pthread_mutex_t lock;
    pthread_cond_t posted;
    uint64_t generation;
    int job_threads, job_sense, quit;
    ln_team_fn fn;
    void *ctx;
    int64_t iterations;
    /* a sense-reversing barrier over job_threads threads */
    atomic_int arrived, sense;
    /* the caller's side of the job in progress */
    int caller_sense;
    int64_t caller_steps;
    int caller_pinned;
    cpu_set_t caller_cpus;
};

static void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

static void barrier_wait(ln_team *t, int *local_sense)
{
    *local_sense = !*local_sense;
    if (atomic_fetch_add(&t->arrived, 1) == t->job_threads - 1) {
        atomic_store_explicit(&t->arrived, 0, memory_order_relaxed);
        atomic_store(&t->sense, *local_sense); /* releases the others, and publishes the reset */
        return;
    }
    for (unsigned spins = 0; atomic_load(&t->sense) != *local_sense; spins++) {
        if (spins < SPINS_BEFORE_YIELD) cpu_relax();
        else sched_yield();
    }
}

/* Pinning is a request: a container or cgroup may refuse it, and the run goes on unpinned. */
static void pin(pthread_t thread, int cpu)
{
    if (cpu < 0) return;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    (void)pthread_setaffinity_np(thread, sizeof set, &set);
}

static void *helper_main(void *arg)
{
    helper *h = arg;
    ln_team *t = h->team;
    pin(pthread_self(), t->cpus[h->index]);
    uint64_t seen = 0;
    for (;;) {
        pthread_mutex_lock(&t->lock);
        while (t->generation == seen) pthread_cond_wait(&t->posted, &t->lock);
        seen = t->generation;
        int quit = t->quit, threads = t->job_threads, sense = t->job_sense;
        ln_team_fn fn = t->fn;
        void *ctx = t->ctx;
        int64_t iterations = t->iterations;
        pthread_mutex_unlock(&t->lock);
        if (quit) return NULL;
        if (h->index >= threads) continue;
        for (int64_t i = 0; i < iterations; i++) {
            fn(ctx, h->index);
            barrier_wait(t, &sense);
        }
    }
}

/* Thread i gets the i-th CPU the caller may run on (wrapping around if there are fewer). */
static void choose_cpus(ln_team *t)
{
    cpu_set_t allowed;
    int count = 0;
    if (sched_getaffinity(0, sizeof allowed, &allowed) == 0) count = CPU_COUNT(&allowed);
    for (int i = 0; i < t->size; i++) t->cpus[i] = -1;
    for (int cpu = 0, n = 0; count > 0 && cpu < CPU_SETSIZE; cpu++)
        if (CPU_ISSET(cpu, &allowed))
            for (int i = n++; i < t->size; i += count) t->cpus[i] = cpu;
}

ln_team *ln_team_create(int threads)
{
    ln_team *t = calloc(1, sizeof *t);
    if (!t || !(t->cpus = malloc(threads * sizeof *t->cpus)) || !(t->threads = malloc(threads * sizeof *t->threads)) ||
        !(t->helpers = malloc(threads * sizeof *t->helpers)))
        ln_die("out of memory");
    t->size = threads;
    choose_cpus(t);
    pthread_mutex_init(&t->lock, NULL);
    pthread_cond_init(&t->posted, NULL);
    for (int i = 1; i < threads; i++) {
        t->helpers[i] = (helper){.team = t, .index = i};
        if (pthread_create(&t->threads[i], NULL, helper_main, &t->helpers[i]) != 0)
            ln_die("cannot start thread %d of %d", i + 1, threads);
    }
    return t;
}

static void post(ln_team *t, int threads, ln_team_fn fn, void *ctx, int64_t iterations, int quit)
{
    pthread_mutex_lock(&t->lock);
    t->job_threads = threads;
    t->fn = fn;
    t->ctx = ctx;
    t->iterations = iterations;
    t->quit = quit;
    t->job_sense = t->caller_sense = atomic_load(&t->sense);
    t->generation++;
    pthread_cond_broadcast(&t->posted);
    pthread_mutex_unlock(&t->lock);
}

void ln_team_free(ln_team *t)
{
    if (!t) return;
    post(t, 0, NULL, NULL, 0, 1);
    for (int i = 1; i < t->size; i++) pthread_join(t->threads[i], NULL);
    pthread_cond_destroy(&t->posted);
    pthread_mutex_destroy(&t->lock);
    free(t->helpers), free(t->threads), free(t->cpus), free(t);
}

void ln_team_start(ln_team *t, int threads, ln_team_fn fn, void *ctx, int64_t iterations)
{
    if (threads < 1 || threads > t->size) ln_die("a job of %d threads on a team of %d", threads, t->size);
    t->caller_steps = 0;
    t->caller_pinned = 0;
    if (threads == 1) {
        t->job_threads = 1, t->iterations = iterations;
        return;
    }
    pthread_t self = pthread_self();
    if (t->cpus[0] >= 0 && pthread_getaffinity_np(self, sizeof t->caller_cpus, &t->caller_cpus) == 0) {
        pin(self, t->cpus[0]);
        t->caller_pinned = 1;
    }
    post(t, threads, fn, ctx, iterations, 0);
}

void ln_team_step(ln_team *t)
{
    t->caller_steps++;
    if (t->job_threads > 1) barrier_wait(t, &t->caller_sense);
}

void ln_team_finish(ln_team *t)
{
    while (t->caller_steps < t->iterations) ln_team_step(t);
    if (t->caller_pinned) (void)pthread_setaffinity_np(pthread_self(), sizeof t->caller_cpus, &t->caller_cpus);
    t->caller_pinned = 0;
}

void ln_team_run(ln_team *t, int threads, ln_team_fn fn, void *ctx)
{
    ln_team_start(t, threads, fn, ctx, 1);
    fn(ctx, 0);
    ln_team_step(t);
    ln_team_finish(t);
}
