#include "meta.h"

#include <inttypes.h>
#include <mpfr.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "cpu.h"
#include "outfile.h"
#if LN_HAVE_ONEDNN
#include <oneapi/dnnl/dnnl.h>
#endif

/* Set by the Makefile; the fallbacks keep other builds (a test compiled by hand) working. */
#ifndef LN_GIT_COMMIT
#define LN_GIT_COMMIT "unknown"
#endif
#ifndef LN_GBENCH_VERSION
#define LN_GBENCH_VERSION "unknown"
#endif
#ifndef LN_CFLAGS
#define LN_CFLAGS "unknown"
#endif

#ifdef __clang__
#define LN_COMPILER "clang " __clang_version__
#elif defined(__GNUC__)
#define LN_COMPILER "gcc " __VERSION__
#else
#define LN_COMPILER "unknown"
#endif

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') fprintf(f, "\\%c", *p);
        else if (*p == '\n') fputs("\\n", f);
        else if (*p == '\t') fputs("\\t", f);
        else if (*p < 0x20) fprintf(f, "\\u%04x", *p);
        else fputc(*p, f);
    }
    fputc('"', f);
}

/* "none" unless built with oneDNN */
static void onednn_version(char *buf, size_t n)
{
    snprintf(buf, n, "none");
#if LN_HAVE_ONEDNN
    const dnnl_version_t *v = dnnl_version();
    snprintf(buf, n, "%d.%d.%d", v->major, v->minor, v->patch);
#endif
}

/* The command as a JSON array of strings (malloc'ed). */
static char *command_json(int argc, char **argv)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) ln_die("out of memory");
    fputc('[', f);
    for (int i = 0; i < argc; i++) {
        if (i) fputs(", ", f);
        json_string(f, argv[i]);
    }
    fputc(']', f);
    if (fclose(f) != 0) ln_die("out of memory");
    return text;
}

/* A user-mode emulator betrays itself in /proc/cpuinfo, which is the host's: its format is not
 * the one this build's architecture's kernel writes (x86 "vendor_id", aarch64 "CPU implementer").
 * An emulator that fakes the file is still caught on aarch64 by the host's binfmt handler for it. */
const char *ln_emulator(void)
{
    static int known;
    static const char *name;
    if (known) return name;
    known = 1;
#if defined(__x86_64__) || defined(__i386__)
    const char *native = "vendor_id", *binfmt = "/proc/sys/fs/binfmt_misc/qemu-x86_64";
#elif defined(__aarch64__)
    const char *native = "CPU implementer", *binfmt = "/proc/sys/fs/binfmt_misc/qemu-aarch64";
#else
    return name;
#endif
    FILE *f = fopen("/proc/cpuinfo", "r");
    int lines = 0, found = 0;
    char line[512];
    while (f && fgets(line, sizeof line, f) && !found) found = !strncmp(line, native, strlen(native)), lines++;
    if (f) fclose(f);
    if ((lines > 0 && !found) || access(binfmt, F_OK) == 0) name = "qemu-user";
    return name;
}

void ln_meta_fields(uint64_t seed, int argc, char **argv, ln_meta_field_fn fn, void *ctx)
{
    char isa[128], date[32], host[256] = "unknown", onednn[64] = "none", cores[32], seed_text[32];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    if (gethostname(host, sizeof host - 1) != 0) snprintf(host, sizeof host, "unknown");
    host[sizeof host - 1] = 0;
    const char *cap = getenv("LNBENCH_ISA");
    onednn_version(onednn, sizeof onednn);
    char model[128];
    snprintf(model, sizeof model, "%s", ln_cpu_model());
    for (size_t n = strlen(model); n > 0 && model[n - 1] == ' ';) model[--n] = 0; /* cpuid pads */
    snprintf(cores, sizeof cores, "%ld", sysconf(_SC_NPROCESSORS_ONLN));
    snprintf(seed_text, sizeof seed_text, "%" PRIu64, seed);
    char *command = command_json(argc, argv);
    fn(ctx, "cpu_model", model, 1);
    fn(ctx, "isa_features", ln_isa_names(ln_cpu_features_hw(), isa, sizeof isa), 1);
    fn(ctx, "isa_cap", cap && *cap ? cap : "native", 1);
    fn(ctx, "emulator", ln_emulator() ? ln_emulator() : "none", 1);
    fn(ctx, "cores", cores, 0);
    fn(ctx, "compiler", LN_COMPILER, 1);
    fn(ctx, "cflags", LN_CFLAGS, 1);
    fn(ctx, "mpfr_version", mpfr_get_version(), 1);
    fn(ctx, "gbench_version", LN_GBENCH_VERSION, 1);
    fn(ctx, "onednn", onednn, 1);
    fn(ctx, "git_commit", LN_GIT_COMMIT, 1);
    fn(ctx, "date", date, 1);
    fn(ctx, "hostname", host, 1);
    fn(ctx, "seed", seed_text, 0);
    fn(ctx, "command", command, 0);
    free(command);
}

typedef struct {
    FILE *f;
    int written;
} json_writer;

static void write_field(void *ctx, const char *key, const char *value, int quoted)
{
    json_writer *w = ctx;
    fprintf(w->f, "%s  \"%s\": ", w->written++ ? ",\n" : "{\n", key);
    if (quoted) json_string(w->f, value);
    else fputs(value, w->f);
}

void ln_meta_write_json(FILE *f, uint64_t seed, int argc, char **argv)
{
    ln_meta_write_json_extra(f, seed, argc, argv, NULL, NULL);
}

void ln_meta_write_json_extra(FILE *f, uint64_t seed, int argc, char **argv, const char *key, const char *value)
{
    json_writer w = {.f = f};
    ln_meta_fields(seed, argc, argv, write_field, &w);
    if (key) write_field(&w, key, value, 1);
    fputs("\n}", f);
}

void ln_meta_write_file(const char *path, uint64_t seed, int argc, char **argv)
{
    ln_outfile o;
    ln_out_open(&o, path);
    ln_meta_write_json(o.f, seed, argc, argv);
    fputc('\n', o.f);
    ln_out_commit(&o);
}

const char *ln_meta_git_commit(void) { return LN_GIT_COMMIT; }

void ln_meta_print_version(FILE *f)
{
    char onednn[64];
    onednn_version(onednn, sizeof onednn);
    fprintf(f, "lnbench %s\ncompiler: %s (%s)\nMPFR %s, Google Benchmark %s, oneDNN %s\n", LN_GIT_COMMIT, LN_COMPILER,
            LN_CFLAGS, mpfr_get_version(), LN_GBENCH_VERSION, onednn);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

void ln_machine_id(const char *cpu, const char *isa_in, char *out, size_t n)
{
    /* the ISA words sorted, so that their order in the metadata does not matter */
    char words[256], isa[256] = "", *w[32], *save = NULL;
    size_t nw = 0;
    snprintf(words, sizeof words, "%s", isa_in);
    for (char *t = strtok_r(words, " ", &save); t && nw < 32; t = strtok_r(NULL, " ", &save)) w[nw++] = t;
    qsort(w, nw, sizeof *w, cmp_str);
    for (size_t i = 0; i < nw; i++)
        strncat(strncat(isa, i ? " " : "", sizeof isa - strlen(isa) - 1), w[i], sizeof isa - strlen(isa) - 1);
    size_t k = 0;
    const char *parts[2] = {*cpu ? cpu : "unknown-cpu", isa};
    for (int p = 0; p < 2; p++) {
        if (p && *isa && k + 1 < n) out[k++] = '_';
        int dash = 0;
        for (const char *s = parts[p]; *s && k + 1 < n; s++) {
            if (!strncmp(s, "(R)", 3) || !strncmp(s, "(TM)", 4)) {
                s += s[1] == 'R' ? 2 : 3;
                continue;
            }
            int ok = (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '.' ||
                     *s == '_';
            if (ok) out[k++] = *s, dash = 0;
            else if (!dash && k && out[k - 1] != '_') out[k++] = '-', dash = 1;
        }
        while (k && out[k - 1] == '-') k--;
    }
    out[k] = 0;
}
