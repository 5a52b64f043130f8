/* Running the lnbench binary ($LNBENCH, set by `make test`) from a test, as a user would. Include
 * after <cmocka.h>. */
#ifndef LN_TESTS_RUN_LNBENCH_H
#define LN_TESTS_RUN_LNBENCH_H

#include <stdio.h>
#include <sys/wait.h>

static const char *lnbench;
static char output[65536];

/* Runs lnbench with args (shell syntax), stdout and stderr into `output`; returns the status. */
static int run(const char *args)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "'%s' %s 2>&1", lnbench, args);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t n = fread(output, 1, sizeof output - 1, p);
    output[n] = 0;
    int status = pclose(p);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

#endif
