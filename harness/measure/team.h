/* A team of threads for timing one call split over several CPUs: thread 0 is the caller, the
 * others are helpers started once and pinned each to its own CPU (where the system allows;
 * silently unpinned otherwise). A job runs fn(ctx, i) on threads 0..n-1 for a given count of
 * iterations, every thread ending each iteration at one shared barrier, so an iteration ends
 * when the slowest thread's share is done. */
#ifndef LN_TEAM_H
#define LN_TEAM_H

#include <stdint.h>

typedef struct ln_team ln_team;
typedef void (*ln_team_fn)(void *ctx, int thread);

/* A team of up to `threads` threads (threads - 1 helpers; none for 1). */
ln_team *ln_team_create(int threads);
void ln_team_free(ln_team *t);

/* Starts a job of `iterations` iterations on threads 1..threads-1 and pins the caller to the
 * team's first CPU (when threads > 1). The caller then runs its own share, thread 0, ending
 * each iteration with ln_team_step, and calls ln_team_finish after the last one. */
void ln_team_start(ln_team *t, int threads, ln_team_fn fn, void *ctx, int64_t iterations);
/* The caller's end of one iteration: waits at the barrier for the helpers' shares. */
void ln_team_step(ln_team *t);
/* After the caller's last step: runs the steps it did not take (so the helpers are released)
 * and restores the caller's CPU set. */
void ln_team_finish(ln_team *t);
/* A whole job of one iteration: fn(ctx, i) on each of the threads, returning when all are done. */
void ln_team_run(ln_team *t, int threads, ln_team_fn fn, void *ctx);

#endif
