/* The thread team behind `lnbench bench --threads`: every thread runs its share of every
 * iteration, and no thread starts iteration k+1 before all have finished iteration k. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <unistd.h>

#include "team.h"

#define MAX_THREADS 4
#define ITERATIONS 2000

typedef struct {
    atomic_long done;        /* shares finished, over all threads */
    long count[MAX_THREADS]; /* shares each thread ran */
    int threads;
    atomic_int order_broken;
} job;

/* Iteration k of thread i: every share of iterations before k must be done already. */
static void share(void *ctx, int i)
{
    job *j = ctx;
    long k = j->count[i]++;
    if (atomic_load(&j->done) < k * j->threads) atomic_store(&j->order_broken, 1);
    atomic_fetch_add(&j->done, 1);
}

static void test_iterations_meet_at_the_barrier(void **state)
{
    (void)state;
    int cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
    int most = cpus < MAX_THREADS ? cpus : MAX_THREADS;
    ln_team *t = ln_team_create(most);
    for (int threads = 1; threads <= most; threads++) {
        job j = {.threads = threads};
        ln_team_start(t, threads, share, &j, ITERATIONS);
        for (int k = 0; k < ITERATIONS; k++) {
            share(&j, 0);
            ln_team_step(t);
        }
        ln_team_finish(t);
        for (int i = 0; i < threads; i++) assert_int_equal(j.count[i], ITERATIONS);
        for (int i = threads; i < MAX_THREADS; i++) assert_int_equal(j.count[i], 0);
        assert_int_equal(atomic_load(&j.order_broken), 0);
        /* a one-iteration job after it, on the same team */
        job once = {.threads = threads};
        ln_team_run(t, threads, share, &once);
        assert_int_equal(atomic_load(&once.done), threads);
    }
    ln_team_free(t);
}

/* A caller that stops early still releases the helpers (ln_team_finish takes the steps left). */
static void test_finish_releases_helpers(void **state)
{
    (void)state;
    if (sysconf(_SC_NPROCESSORS_ONLN) < 2) skip();
    ln_team *t = ln_team_create(2);
    job j = {.threads = 2};
    ln_team_start(t, 2, share, &j, 10);
    share(&j, 0);
    ln_team_step(t);
    ln_team_finish(t);
    assert_int_equal(j.count[1], 10);
    ln_team_free(t);
}

/* During a job each thread runs on its own CPU (where pinning is allowed), and afterwards the
 * caller has its CPU set back. */
typedef struct {
    cpu_set_t seen[2];
} affinity_job;

static void record_affinity(void *ctx, int i)
{
    affinity_job *j = ctx;
    pthread_getaffinity_np(pthread_self(), sizeof j->seen[i], &j->seen[i]);
}

static void test_threads_pinned_apart(void **state)
{
    (void)state;
    if (sysconf(_SC_NPROCESSORS_ONLN) < 2) skip();
    cpu_set_t before, after;
    pthread_getaffinity_np(pthread_self(), sizeof before, &before);
    if (CPU_COUNT(&before) < 2) skip();
    ln_team *t = ln_team_create(2);
    affinity_job j;
    ln_team_run(t, 2, record_affinity, &j);
    pthread_getaffinity_np(pthread_self(), sizeof after, &after);
    ln_team_free(t);
    assert_true(CPU_EQUAL(&before, &after));
    if (CPU_COUNT(&j.seen[0]) != 1 || CPU_COUNT(&j.seen[1]) != 1) skip(); /* pinning refused here */
    assert_false(CPU_EQUAL(&j.seen[0], &j.seen[1]));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_threads_pinned_apart), /* first: the caller's CPU set is untouched yet */
        cmocka_unit_test(test_iterations_meet_at_the_barrier),
        cmocka_unit_test(test_finish_releases_helpers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
