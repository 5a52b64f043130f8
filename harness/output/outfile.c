#include "outfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

/* Temporary files not yet committed or aborted, removed at exit so that a run ending in
 * ln_die (or any other exit) leaves no half-written file behind. */
#define MAX_PENDING 16
static char *pending[MAX_PENDING];

static void remove_pending(void)
{
    for (int i = 0; i < MAX_PENDING; i++)
        if (pending[i]) {
            unlink(pending[i]);
            free(pending[i]);
            pending[i] = NULL;
        }
}

static void track(const char *tmp, int add)
{
    static int registered;
    if (!registered) atexit(remove_pending), registered = 1;
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

void ln_out_open(ln_outfile *o, const char *path)
{
    size_t len = strlen(path);
    if (len == 0 || path[len - 1] == '/') ln_die_usage("output file '%s' is not a file name", path);
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) ln_die_usage("output file '%s' is a directory", path);
    int err = make_parents(path);
    if (err) ln_die_usage("cannot create the folder of output file '%s': %s", path, strerror(err));
    o->path = strdup(path);
    o->tmp = malloc(len + 16);
    if (!o->path || !o->tmp) ln_die("out of memory");
    /* Beside the target, so the final rename stays within one file system. */
    snprintf(o->tmp, len + 16, "%s.tmp.XXXXXX", path);
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
