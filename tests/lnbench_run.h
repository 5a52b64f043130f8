/* Running the lnbench binary ($LNBENCH) from a test: a printf-style command line, its stdout
 * and stderr into run_output, its exit status returned (-1 if it did not exit). Include after
 * <cmocka.h>. */
#ifndef LN_TESTS_LNBENCH_RUN_H
#define LN_TESTS_LNBENCH_RUN_H

#include <stdarg.h>
#include <stdio.h>
#include <sys/wait.h>

static const char *lnbench;
static char run_output[65536];

static int run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int run(const char *fmt, ...)
{
    char args[8192], cmd[9000];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    snprintf(cmd, sizeof cmd, "'%s' %s 2>&1", lnbench, args);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t n = fread(run_output, 1, sizeof run_output - 1, p);
    run_output[n] = 0;
    int status = pclose(p);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

#endif
