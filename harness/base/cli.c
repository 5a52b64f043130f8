#include "cli.h"

#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "plugin.h"
static void vreport(const char *fmt, va_list ap)
{
    fputs("lnbench: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

void ln_die_usage(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport(fmt, ap);
    va_end(ap);
    exit(LN_EXIT_USAGE);
}

void ln_die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport(fmt, ap);
    va_end(ap);
    exit(1);
}

double ln_parse_double(const char *s, const char *what)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno == ERANGE || !isfinite(v)) ln_die_usage("%s: '%s' is not a finite number", what, s);
    return v;
}

long long ln_parse_int(const char *s, const char *what, long long min, long long max)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (end == s || *end || errno == ERANGE) ln_die_usage("%s: '%s' is not a whole number", what, s);
    if (v < min || v > max) ln_die_usage("%s: %s is out of range [%lld, %lld]", what, s, min, max);
    return v;
}

size_t ln_parse_size(const char *s, const char *what)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    double scale = 1;
    if (end != s && *end) {
        switch (*end) {
        case 'K':
        case 'k': scale = 1024.0; break;
        case 'M':
        case 'm': scale = 1024.0 * 1024; break;
        case 'G':
        case 'g': scale = 1024.0 * 1024 * 1024; break;
        default: scale = 0;
        }
        if (end[1] && !(end[1] == 'B' && !end[2]) && !(end[1] == 'i' && end[2] == 'B' && !end[3])) scale = 0;
    }
    if (end == s || scale == 0 || errno == ERANGE || !(v > 0) || v * scale > 1e15)
        ln_die_usage("%s: '%s' is not a size (a positive number with an optional K, M or G suffix)", what, s);
    return (size_t)(v * scale);
}

ln_shard ln_parse_shard(const char *s)
{
    const char *slash = strchr(s, '/');
    char k[32];
    if (!slash || (size_t)(slash - s) >= sizeof k)
        ln_die_usage("--shard: '%s' is not K/N (this machine's share K of N, 1 <= K <= N)", s);
    memcpy(k, s, (size_t)(slash - s));
    k[slash - s] = 0;
    long long n = ln_parse_int(slash + 1, "--shard N", 1, 1 << 20), i = ln_parse_int(k, "--shard K", 1, n);
    return (ln_shard){(unsigned)(i - 1), (unsigned)n};
}

char **ln_split_list(const char *s, const char *what, size_t *count)
{
    size_t n = 1, len = strlen(s);
    for (const char *p = s; *p; p++) n += *p == ',';
    char **items = malloc((n + 1) * sizeof *items + len + 1);
    if (!items) ln_die("out of memory");
    char *buf = (char *)(items + n + 1);
    memcpy(buf, s, len + 1);
    size_t k = 0;
    for (char *tok = buf;; tok++) {
        char *comma = strchr(tok, ',');
        if (comma) *comma = 0;
        if (!*tok) {
            free(items);
            ln_die_usage("%s: '%s' has an empty item", what, s);
        }
        items[k++] = tok;
        if (!comma) break;
        tok = comma;
    }
    items[k] = NULL;
    if (count) *count = k;
    return items;
}

/* Levenshtein distance, two rows; words here are short (kernel and distribution names). */
static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    size_t *prev = malloc((lb + 1) * sizeof *prev), *cur = malloc((lb + 1) * sizeof *cur);
    if (!prev || !cur) ln_die("out of memory");
    for (size_t j = 0; j <= lb; j++) prev[j] = j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]), del = prev[j] + 1, ins = cur[j - 1] + 1;
            cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
        }
        size_t *t = prev;
        prev = cur, cur = t;
    }
    size_t d = prev[lb];
    free(prev), free(cur);
    return d;
}

const char *ln_did_you_mean(const char *word, const char *const *choices, size_t n)
{
    const char *best = NULL;
    size_t best_d = (size_t)-1, limit = strlen(word) / 3 > 1 ? strlen(word) / 3 : 1;
    for (size_t i = 0; i < n; i++) {
        size_t d = edit_distance(word, choices[i]);
        if (d < best_d) best_d = d, best = choices[i];
    }
    return best && best_d > 0 && best_d <= limit ? best : NULL;
}

ln_op ln_cli_op; /* 0: the table's first line, LayerNorm forward */
int ln_cli_op_given;

const char *ln_op_list(void)
{
    static char list[LN_NOPS * 32];
    if (!*list)
        for (int op = 0; op < LN_NOPS; op++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", op ? ", " : "", ln_ops[op].name);
    return list;
}

ln_op ln_parse_op(const char *name)
{
    for (int op = 0; op < LN_NOPS; op++)
        if (!strcmp(name, ln_op_name((ln_op)op))) return (ln_op)op;
    ln_die_usage("--op: unknown operator '%s'; valid: %s", name, ln_op_list());
}

int ln_op_take_args(int argc, char **argv, int first)
{
    int out = first;
    for (int i = first; i < argc; i++) {
        const char *v = NULL;
        if (!strcmp(argv[i], "--op")) {
            if (i + 1 >= argc) ln_die_usage("--op: an operator is needed (%s)", ln_op_list());
            v = argv[++i];
        } else if (!strncmp(argv[i], "--op=", 5)) {
            v = argv[i] + 5;
        } else {
            argv[out++] = argv[i];
            continue;
        }
        ln_cli_op = ln_parse_op(v);
        ln_cli_op_given = 1;
    }
    argv[out] = NULL;
    return out;
}

/* The run's kernels of the selected op: the i-th of them, and their count. */
static size_t op_kernel_count(void)
{
    size_t n = 0;
    for (size_t i = 0; i < ln_kernel_count(); i++) n += ln_kernel_at(i)->op == ln_cli_op;
    return n;
}

static const ln_kernel *op_kernel_at(size_t i)
{
    for (size_t j = 0; j < ln_kernel_count(); j++)
        if (ln_kernel_at(j)->op == ln_cli_op && i-- == 0) return ln_kernel_at(j);
    return NULL;
}

static char skip_note[256];

void ln_print_skip_note(void)
{
    fputs(skip_note, stderr);
    skip_note[0] = 0;
}

size_t ln_select_kernels(const char *list, const ln_kernel ***out, int keep_unavailable)
{
    size_t nitems, nall = op_kernel_count();
    char **items = ln_split_list(list, "--kernels", &nitems);
    char *chosen = calloc(nall, 1);
    const ln_kernel **ks = malloc((nall + 1) * sizeof *ks);
    if (!chosen || !ks) ln_die("out of memory");
    for (size_t j = 0; j < nitems; j++) {
        int matched = 0;
        for (size_t i = 0; i < nall; i++)
            if (fnmatch(items[j], op_kernel_at(i)->name, 0) == 0) chosen[i] = 1, matched = 1;
        if (!matched && !strncmp(items[j], "probe", 5)) {
            /* the bandwidth probes are not kernels: lnbench bench times them in every run */
            fprintf(stderr, "lnbench: note: --kernels: '%s': the probes always run beside the kernels\n", items[j]);
            continue;
        }
        if (!matched) {
            const char **names = malloc(nall * sizeof *names);
            if (!names) ln_die("out of memory");
            for (size_t i = 0; i < nall; i++) names[i] = op_kernel_at(i)->name;
            const char *near = ln_did_you_mean(items[j], names, nall);
            const ln_kernel *other = NULL; /* a kernel of another op: the --op is missing, not the kernel */
            for (size_t i = 0; i < ln_kernel_count() && !other; i++)
                if (fnmatch(items[j], ln_kernel_at(i)->name, 0) == 0) other = ln_kernel_at(i);
            if (other)
                fprintf(stderr, "lnbench: --kernels: '%s' is a kernel of --op %s (this run's op is %s): add --op %s\n",
                        items[j], ln_op_name(other->op), ln_op_name(ln_cli_op), ln_op_name(other->op));
            else if (near)
                fprintf(stderr, "lnbench: --kernels: no kernel named '%s'; did you mean '%s'?\n", items[j], near);
            else
                fprintf(stderr, "lnbench: --kernels: no kernel matches '%s' ('lnbench list' shows the %zu kernels)\n",
                        items[j], nall);
            free(names), free(items), free(chosen), free(ks); /* so the leak checker keeps exit status 2 */
            exit(LN_EXIT_USAGE);
        }
    }
    size_t n = 0, skipped = 0;
    unsigned missing = 0; /* the ISA bits the skipped kernels need and this CPU (or the cap) lacks */
    for (size_t i = 0; i < nall; i++) {
        if (!chosen[i]) continue;
        if (!keep_unavailable && !ln_kernel_available(op_kernel_at(i))) {
            skipped++, missing |= op_kernel_at(i)->isa & ~ln_cpu_features();
            continue;
        }
        ks[n++] = op_kernel_at(i);
    }
    /* one short line, naming what is missing, held until the arguments have all parsed
     * (ln_print_skip_note); LNBENCH_SKIP_NOTED (set by make for the runs after its first)
     * leaves it out, so a make bench says it once */
    skip_note[0] = 0;
    if (skipped && !getenv("LNBENCH_SKIP_NOTED")) {
        char isa[128] = "";
        if (missing) ln_isa_names(missing, isa, sizeof isa);
        snprintf(skip_note, sizeof skip_note, "lnbench: note: %zu kernel%s skipped: %s%s (lnbench list names them)\n",
                 skipped, skipped == 1 ? "" : "s",
                 missing ? (getenv("LNBENCH_ISA") ? "LNBENCH_ISA caps out " : "this CPU lacks ") : "",
                 missing ? isa : "a peer library is unusable here");
    }
    free(chosen);
    free(items);
    *out = ks;
    return n;
}
