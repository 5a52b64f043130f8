/* lnbench tune: searches each selected kernel's tunables on this machine, per D, size regime and
 * thread count, and writes the choices to a tuning file (tune/tuning.h, docs/tune.md) that
 * `lnbench bench --tuning FILE` applies. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_plan.h"
#include "cli.h"
#include "defaults.h"
#include "dist.h"
#include "gbench.h"
#include "meta.h"
#include "problem.h"
#include "search.h"
#include "tuning.h"
#include "verbs.h"

static const char tune_help[] =
    "usage: lnbench tune [options]\n"
    "Searches each kernel's tunables (loop structures and distances that never change the output\n"
    "bits) on this machine, for each D, size and thread count: every candidate is first checked to\n"
    "give the defaults' output bits (refused otherwise, loudly), then timed through the same Google\n"
    "Benchmark path as bench, in repetitions alternated with the defaults; exhaustive search over\n"
    "a few combinations, coordinate descent over more; the best is kept only when a final\n"
    "alternated comparison with the defaults finds it faster (Mann-Whitney U, p < 0.05).\n"
    "Writes a tuning file (JSON, docs/tune.md) for bench --tuning; an interrupted tune keeps\n"
    "what it finished. Each choice of a --D applies to the D between the geometric means with its\n"
    "neighbours.\n";
static const char tune_help_more[] =
    "  --bytes LIST     sizes of x, K/M/G suffixes (default 1M,64M: cache and memory regimes)\n"
    "  --seconds S      the whole budget (default 2 s per search: 160 searches, 320 s): each\n"
    "                   search gets an equal share of the time left; searches not started in time\n"
    "                   are left out (said at the end)\n"
    "  --reps N         alternated repetitions per candidate in a round (default 5; the final\n"
    "                   comparison has twice as many)\n"
    "  --out FILE       the tuning file (default results/tuning/<machine>.json); its entries for\n"
    "                   other kernels, regimes or thread counts of this machine are kept\n"
    "  --machine-id     print <machine>, this machine's name (as results/history/ names it), and exit\n"
    "  --defaults-from LIST  tune nothing: from tuning files of several machines (comma list), print\n"
    "                   per machine what was chosen and per kernel the defaults that lose least on\n"
    "                   every machine (Markdown, for docs/tune.md)\n"
    "  --quiet          no line per search (the progress line stays, on a terminal)\n"
    "Exit status 0; 1 when a candidate was refused for changing the output bits (a kernel bug; the\n"
    "file is written all the same); 2 on bad input.\n";

/* tune times kernels on normal rows at eps 1e-5, seed 1: of the shared flags, it takes the
 * kernels, D and thread counts. */
static const ln_problem_spec tune_problem = {.verb = "tune",
                                             .takes = LN_TAKES(LN_OPT_KERNELS) | LN_TAKES(LN_OPT_D) |
                                                      LN_TAKES(LN_OPT_THREADS),
                                             .D_min = 1,
                                             .D_max = 1 << 24,
                                             .D = "768,1024,4096,8192,16384",
                                             .threads = "1",
                                             .kernels = "every kernel this CPU runs that has tunables"};

/* The default budget: enough for a first coordinate-descent pass of a kernel with several
 * tunables at the shortest samples; a fixed whole budget left 41 of 160 searches out on a
 * machine with AVX-512 (twice the kernels of an AVX2 one). */
#define SECONDS_PER_SEARCH 2.0

typedef struct {
    const ln_kernel **k;
    size_t nk;
    size_t *D, nD, *bytes, nbytes, *threads, nthreads;
    double seconds; /* 0: SECONDS_PER_SEARCH for each search */
    int reps, quiet;
    const char *out;
} tune_plan;

/* The D range each tuned D stands for: from just above the geometric mean with the next smaller
 * to the geometric mean with the next larger (0: no end), over the sorted D list. */
static void d_range(const size_t *sorted, size_t n, size_t i, size_t *lo, size_t *hi)
{
    *lo = i == 0 ? 1 : (size_t)floor(sqrt((double)sorted[i - 1] * (double)sorted[i])) + 1;
    *hi = i + 1 == n ? 0 : (size_t)floor(sqrt((double)sorted[i] * (double)sorted[i + 1]));
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

/* Entries of an earlier file of this machine that this run does not redo (other kernels,
 * regimes or thread counts) are kept; a file of another machine, or unreadable, is replaced. */
static void keep_earlier(const char *path, const tune_plan *p, ln_tuning *t, int quiet)
{
    if (access(path, F_OK) != 0) return;
    ln_tuning old;
    char err[512];
    const char *why;
    if (ln_tuning_read(path, &old, err, sizeof err) != 0) {
        fprintf(stderr, "lnbench tune: replacing %s, which cannot be read (%s)\n", path, err);
        return;
    }
    if (!ln_tuning_for_this_machine(&old, &why)) {
        fprintf(stderr, "lnbench tune: replacing %s, made on another machine (its %s differs)\n", path, why);
    } else {
        size_t kept = 0;
        for (size_t i = 0; i < old.n; i++) {
            const ln_tuning_entry *e = &old.e[i];
            int redone = 0;
            for (size_t a = 0; a < p->nk && !redone; a++)
                for (size_t b = 0; b < p->nbytes && !redone; b++)
                    for (size_t c = 0; c < p->nthreads && !redone; c++)
                        redone = !strcmp(p->k[a]->name, e->kernel) && p->k[a]->op == e->op &&
                                 !strcmp(ln_bench_regime(p->bytes[b]), e->regime) && (int)p->threads[c] == e->threads;
            if (!redone) ln_tuning_add(t, e), kept++;
        }
        if (kept) {
            t->seconds_budget = old.seconds_budget, t->seconds_used = old.seconds_used, t->complete = old.complete;
            if (!quiet) printf("tune: keeping %zu entries of %s that this run does not redo\n", kept, path);
        }
    }
    ln_tuning_free(&old);
}

static void say_result(const ln_tuning_entry *e, const ln_kernel *k)
{
    char best[512], chosen[512];
    int bv[LN_TUNING_MAXP], cv[LN_TUNING_MAXP];
    for (int i = 0; i < e->nparams; i++) bv[i] = e->best[i], cv[i] = e->value[i];
    ln_params_format(k, bv, best, sizeof best);
    ln_params_format(k, cv, chosen, sizeof chosen);
    printf("%-28s D %6zu %-6s %2dt  ", e->kernel, e->D, e->regime, e->threads);
    if (e->significant)
        printf("%s  %+.1f%% (p %.3g, %d+%d reps)", chosen, 100 * e->gain, e->p_value, e->repetitions, e->repetitions);
    else if (memcmp(bv, e->def, e->nparams * sizeof *bv))
        printf("defaults kept: best %s %+.1f%%, p %.2g", best, 100 * e->gain, e->p_value);
    else printf("defaults kept: none faster");
    printf("  [%s, %d timed%s, %.1f s]\n", e->search, e->candidates, e->refused ? ", REFUSED some" : "", e->seconds);
}

static void stamp(ln_tuning *t, double used)
{
    time_t now = time(NULL);
    strftime(t->date, sizeof t->date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    snprintf(t->git_commit, sizeof t->git_commit, "%s", ln_meta_git_commit());
    t->seconds_used = used;
}

static int run(const tune_plan *p)
{
    ln_tuning t = {0};
    ln_tuning_machine(&t);
    t.complete = 1;
    keep_earlier(p->out, p, &t, p->quiet);
    /* a file added to by several runs (make tune: LayerNorm, then each op) says their sums */
    double earlier_used = t.seconds_used;
    int earlier_complete = t.complete;
    t.seconds_budget += p->seconds;
    ln_dist dist;
    ln_dist_parse("normal", &dist);
    double start = ln_tune_now();
    ln_tune_options o = {.reps = p->reps,
                         .final_reps = 2 * p->reps,
                         .exhaustive_max = 16,
                         .progress = 1,
                         .deadline = start + p->seconds};
    ln_bench_pool *pool = ln_bench_pool_create();
    size_t ntasks = p->nthreads * p->nk * p->nbytes * p->nD, done = 0, refused = 0;
    for (size_t c = 0; c < p->nthreads; c++)
        for (size_t a = 0; a < p->nk; a++)
            for (size_t b = 0; b < p->nbytes; b++)
                for (size_t d = 0; d < p->nD; d++) {
                    double left = o.deadline - ln_tune_now();
                    if (left <= 0) goto out;
                    char label[32];
                    snprintf(label, sizeof label, "[%zu/%zu]", done + 1, ntasks);
                    ln_tune_task task = {.k = p->k[a],
                                         .D = p->D[d],
                                         .bytes = p->bytes[b],
                                         .threads = (int)p->threads[c],
                                         .dist = &dist,
                                         .eps = 1e-5,
                                         .seed = 1,
                                         .seconds = left / (double)(ntasks - done),
                                         .label = label};
                    ln_tuning_entry e = {0};
                    refused += (size_t)ln_tune_search(pool, &o, &task, &e);
                    d_range(p->D, p->nD, d, &e.D_min, &e.D_max);
                    ln_tuning_add(&t, &e);
                    done++;
                    /* written after each search: an interrupted tune keeps what it finished */
                    t.complete = earlier_complete && done == ntasks;
                    stamp(&t, earlier_used + ln_tune_now() - start);
                    ln_tuning_write(p->out, &t);
                    if (isatty(STDERR_FILENO)) fputs("\r\033[K", stderr);
                    if (!p->quiet) say_result(&e, p->k[a]);
                }
out:
    if (isatty(STDERR_FILENO)) fputs("\r\033[K", stderr);
    if (done == 0) {
        t.complete = 0;
        stamp(&t, earlier_used + ln_tune_now() - start);
        ln_tuning_write(p->out, &t);
    }
    printf("tune: %zu of %zu searches in %.0f s (budget %.0f s); wrote %s (%zu entries)\n", done, ntasks,
           ln_tune_now() - start, p->seconds, p->out, t.n);
    if (done < ntasks)
        fprintf(stderr,
                "lnbench tune: the budget ran out: %zu searches left out (their cases keep the defaults); "
                "give more --seconds\n",
                ntasks - done);
    if (refused)
        fprintf(stderr, "lnbench tune: %zu candidate setting%s REFUSED for changing the output bits (see above)\n",
                refused, refused > 1 ? "s" : "");
    ln_bench_pool_free(pool);
    ln_dist_free(&dist);
    ln_tuning_free(&t);
    return refused ? 1 : 0;
}

int cmd_tune(int argc, char **argv)
{
    static const struct option opts[] = {LN_PROBLEM_OPTIONS,
                                         {"bytes", required_argument, 0, 'b'},
                                         {"seconds", required_argument, 0, 's'},
                                         {"reps", required_argument, 0, 'r'},
                                         {"out", required_argument, 0, 'o'},
                                         {"machine-id", no_argument, 0, 'm'},
                                         {"defaults-from", required_argument, 0, 'f'},
                                         {"quiet", no_argument, 0, 'q'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *defaults_from = NULL, *bytes = "1M,64M";
    tune_plan p = {.reps = 5};
    ln_problem_args pa;
    ln_problem_args_init(&pa, &tune_problem);
    int c, machine_id = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'b': bytes = optarg; break;
        case 's':
            if (!((p.seconds = ln_parse_double(optarg, "--seconds")) > 0))
                ln_die_usage("--seconds: '%s' is not a positive number of seconds", optarg);
            break;
        case 'r': p.reps = (int)ln_parse_int(optarg, "--reps", 2, 100); break;
        case 'o': p.out = optarg; break;
        case 'm': machine_id = 1; break;
        case 'f': defaults_from = optarg; break;
        case 'q': p.quiet = 1; break;
        case 'h':
            return ln_problem_help(stdout, tune_help, &tune_problem, tune_help_more), ln_problem_args_free(&pa), 0;
        default:
            if (!ln_problem_arg(&pa, c, optarg)) ln_die_usage("tune: see 'lnbench tune --help'");
        }
    }
    if (optind < argc) ln_die_usage("tune: unexpected argument '%s'", argv[optind]);
    ln_tuning here = {0};
    ln_tuning_machine(&here);
    if (machine_id || defaults_from) ln_problem_args_free(&pa);
    if (machine_id) return printf("%s\n", here.machine_id), 0;
    if (defaults_from) {
        size_t n;
        char **files = ln_split_list(defaults_from, "--defaults-from", &n);
        int rc = ln_tune_defaults_report(files, n, stdout);
        free(files);
        return rc;
    }

    /* the plan owns the lists from here */
    p.D = pa.D, p.nD = pa.nD, p.threads = pa.threads, p.nthreads = pa.nthreads;
    pa.D = pa.threads = NULL;
    qsort(p.D, p.nD, sizeof *p.D, cmp_size);
    for (size_t i = 1; i < p.nD; i++)
        if (p.D[i] == p.D[i - 1]) ln_die_usage("--D: %zu is given twice", p.D[i]);
    p.bytes = ln_parse_sizes(bytes, &p.nbytes);
    for (size_t i = 0; i < p.nbytes; i++)
        for (size_t j = 0; j < i; j++)
            if (!strcmp(ln_bench_regime(p.bytes[i]), ln_bench_regime(p.bytes[j])))
                ln_die_usage("--bytes: two sizes in the %s regime; a tuning holds one per regime",
                             ln_bench_regime(p.bytes[i]));
    const char *kernels = pa.kernels;
    const ln_kernel **sel;
    size_t nsel = ln_problem_kernels(&pa, &sel);
    p.k = malloc((nsel ? nsel : 1) * sizeof *p.k);
    if (!p.k) ln_die("out of memory");
    for (size_t i = 0; i < nsel; i++) {
        const char *bad = ln_tunables_check(sel[i]);
        if (bad) ln_die_usage("tune: kernel '%s' declares bad tunables: %s", sel[i]->name, bad);
        if (sel[i]->n_tunables) p.k[p.nk++] = sel[i];
        else if (kernels && !strchr(kernels, '*') && !strchr(kernels, '?'))
            fprintf(stderr, "lnbench tune: %s has no tunables: nothing to tune there\n", sel[i]->name);
    }
    free(sel);
    ln_print_skip_note();
    char *out_default = NULL;
    if (!p.out) {
        if (!(out_default = malloc(strlen(here.machine_id) + 32))) ln_die("out of memory");
        sprintf(out_default, "results/tuning/%s.json", here.machine_id);
        p.out = out_default;
    }
    int rc = 0;
    if (p.nk == 0) {
        if (kernels) ln_die_usage("tune: none of the kernels selected has tunables");
        printf("tune: no kernel this CPU runs has tunables: nothing to tune, no file written\n");
    } else {
        char prog[] = "lnbench tune", *gbargv[] = {prog, NULL};
        int gbargc = 1;
        ln_gb_init(&gbargc, gbargv);
        size_t searches = p.nk * p.nD * p.nbytes * p.nthreads;
        if (p.seconds == 0) p.seconds = SECONDS_PER_SEARCH * (double)searches;
        if (!p.quiet)
            printf("tune: %zu kernel%s x %zu D x %zu size%s x %zu thread count%s in %.0f s -> %s\n", p.nk,
                   p.nk > 1 ? "s" : "", p.nD, p.nbytes, p.nbytes > 1 ? "s" : "", p.nthreads, p.nthreads > 1 ? "s" : "",
                   p.seconds, p.out);
        rc = run(&p);
    }
    free(p.k), free(p.D), free(p.bytes), free(p.threads), free(out_default);
    ln_problem_args_free(&pa);
    return rc;
}
