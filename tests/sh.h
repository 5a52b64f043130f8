/* Running shell commands and reading whole files, for the tests that drive lnbench and the
 * scripts end to end. */
#ifndef LN_TESTS_SH_H
#define LN_TESTS_SH_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

/* Runs a printf-formatted shell command; returns its exit status (-1 if it did not exit). */
static int sh(const char *fmt, ...)
{
    char cmd[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The whole file, NUL-terminated (free() it); NULL if it cannot be read. *len if len. */
static char *slurp_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    size_t got = s ? fread(s, 1, (size_t)n, f) : 0;
    fclose(f);
    if (!s) return NULL;
    s[got] = 0;
    if (len) *len = got;
    return s;
}

#endif
