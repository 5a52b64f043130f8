#include "outfile.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

/* Temporary files not yet committed or aborted, removed at exit, on a fatal signal (SIGINT,
 * SIGTERM, SIGHUP, SIGQUIT, and the crash signals of a kernel run in-process) so that a run
 * ending early leaves no half-written file behind. Only the process that created them removes
 * them: a child forked to run a kernel inherits the list and its atexit handlers. */
#define MAX_PENDING 16
static char *pending[MAX_PENDING];
static pid_t owner;

static void remove_pending(void)
{
    if (getpid() != owner) return;
    for (int i = 0; i < MAX_PENDING; i++)
        if (pending[i]) {
            unlink(pending[i]);
            free(pending[i]);
            pending[i] = NULL;
        }
}

void ln_out_remove_on_signal(int sig)
{
    /* async-signal-safe: unlink only, the strings stay (the process is ending) */
    if (getpid() == owner)
        for (int i = 0; i < MAX_PENDING; i++)
            if (pending[i]) unlink(pending[i]);
    signal(sig, SIG_DFL);
    raise(sig);
}

static void install_handlers(void)
{
    static const int fatal[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
    for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++) {
        struct sigaction old;
        sigaction(fatal[i], NULL, &old);
        if (old.sa_handler != SIG_DFL) continue; /* a handler of the verb's own (accuracy's Ctrl-C) stays */
        struct sigaction sa = {.sa_handler = ln_out_remove_on_signal, .sa_flags = SA_RESETHAND | SA_NODEFER};
        sigemptyset(&sa.sa_mask);
        sigaction(fatal[i], &sa, NULL);
    }
}

static void track(const char *tmp, int add)
{
    static int registered;
    if (!registered) atexit(remove_pending), owner = getpid(), install_handlers(), registered = 1;
    for (int i = 0; i < MAX_PENDING; i++) {
        if (add && !pending[i]) {
            if (!(pending[i] = strdup(tmp))) ln_die("out of memory");
            return;
        }
        if (!add && pending[i] && !strcmp(pending[i], tmp)) {
            free(pending[i]);
            pending[i] = NULL;
            return;
        }
    }
    if (add) ln_die("too many result files open at once");
}

/* mkdir -p of the folder part of path; returns 0 or an errno. */
static int make_parents(const char *path)
{
    char *dir = strdup(path);
    if (!dir) ln_die("out of memory");
    int err = 0;
    for (char *s = dir + 1; *s && !err; s++) {
        if (*s != '/') continue;
        *s = 0;
        if (mkdir(dir, 0777) != 0 && errno != EEXIST) err = errno;
        *s = '/';
    }
    free(dir);
    return err;
}

/* The file a write to path lands in: path itself, or the end of its chain of symbolic links (a
 * link is written through, never replaced by a regular file). */
static char *resolve_target(const char *path)
{
    char *target = strdup(path);
    if (!target) ln_die("out of memory");
    for (int hops = 0; hops < 40; hops++) {
        struct stat st;
        if (lstat(target, &st) != 0 || !S_ISLNK(st.st_mode)) return target;
        char link[PATH_MAX];
        ssize_t n = readlink(target, link, sizeof link - 1);
        if (n < 0) ln_die_usage("output file '%s': cannot read the link '%s': %s", path, target, strerror(errno));
        link[n] = 0;
        char *next;
        const char *slash = strrchr(target, '/');
        if (link[0] == '/' || !slash) next = strdup(link);
        else if (asprintf(&next, "%.*s/%s", (int)(slash - target), target, link) < 0) next = NULL;
        if (!next) ln_die("out of memory");
        free(target);
        target = next;
    }
    ln_die_usage("output file '%s': too many levels of symbolic links", path);
}

void ln_out_open(ln_outfile *o, const char *path)
{
    size_t len = strlen(path);
    if (len == 0 || path[len - 1] == '/') ln_die_usage("output file '%s' is not a file name", path);
    char *target = resolve_target(path);
    struct stat st;
    if (stat(target, &st) == 0 && S_ISDIR(st.st_mode)) ln_die_usage("output file '%s' is a directory", path);
    /* a device, a pipe or a socket would be replaced by the rename: never */
    if (stat(target, &st) == 0 && !S_ISREG(st.st_mode))
        ln_die_usage("output file '%s' is not a regular file (a device, pipe or socket): results are written only to "
                     "regular files",
                     path);
    int err = make_parents(target);
    if (err) ln_die_usage("cannot create the folder of output file '%s': %s", path, strerror(err));
    len = strlen(target);
    o->path = target;
    o->tmp = malloc(len + 16);
    if (!o->tmp) ln_die("out of memory");
    /* Beside the target, so the final rename stays within one file system. */
    snprintf(o->tmp, len + 16, "%s.tmp.XXXXXX", target);
    int fd = mkstemp(o->tmp);
    if (fd < 0) ln_die_usage("cannot write output file '%s': %s", path, strerror(errno));
    /* mkstemp makes the file 0600; give the result the usual umask-derived mode. */
    mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, 0666 & ~mask);
    track(o->tmp, 1);
    o->f = fdopen(fd, "w");
    if (!o->f) ln_die("cannot open output file '%s': %s", path, strerror(errno));
}

static void release(ln_outfile *o)
{
    free(o->path);
    free(o->tmp);
    o->f = NULL;
    o->path = o->tmp = NULL;
}

void ln_out_commit(ln_outfile *o)
{
    int bad = fflush(o->f) != 0 || ferror(o->f);
    bad |= fsync(fileno(o->f)) != 0 && errno != EINVAL; /* EINVAL: a pipe or special file */
    bad |= fclose(o->f) != 0;
    if (bad || rename(o->tmp, o->path) != 0) {
        int err = errno;
        unlink(o->tmp);
        track(o->tmp, 0);
        ln_die("writing '%s' failed: %s", o->path, strerror(err));
    }
    track(o->tmp, 0);
    release(o);
}

void ln_out_abort(ln_outfile *o)
{
    if (!o->f) return;
    fclose(o->f);
    unlink(o->tmp);
    track(o->tmp, 0);
    release(o);
}

void ln_out_csv_field(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

void ln_out_safe_name(char *out, size_t len, const char *name)
{
    size_t i = 0;
    for (; name[i] && i + 1 < len; i++) {
        char ch = name[i];
        int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || strchr(".+-", ch);
        out[i] = ok ? ch : '_';
    }
    out[i] = 0;
    if (out[0] == '.') out[0] = '_'; /* no ".." and no hidden file */
}
