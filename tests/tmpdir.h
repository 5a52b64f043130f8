/* A scratch folder for tests that write files: created by setup, removed by teardown. Include
 * after <cmocka.h>. */
#ifndef LN_TESTS_TMPDIR_H
#define LN_TESTS_TMPDIR_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char test_dir[64];

/* test_dir/name (a few static buffers in rotation, so several can be used in one call). */
__attribute__((unused)) static const char *test_path(const char *name)
{
    static char buf[4][320];
    static int i;
    i = (i + 1) % 4;
    snprintf(buf[i], sizeof buf[i], "%s/%s", test_dir, name);
    return buf[i];
}

static int test_dir_create(void **state)
{
    (void)state;
    snprintf(test_dir, sizeof test_dir, "/tmp/lnbench-test-XXXXXX");
    return mkdtemp(test_dir) ? 0 : -1;
}

static int test_dir_remove(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", test_dir);
    return system(cmd);
}

/* Result files are renamed into place: no temporary file may be left beside them. */
__attribute__((unused)) static void assert_no_temp_files(void)
{
    DIR *dp = opendir(test_dir);
    assert_non_null(dp);
    for (struct dirent *e; (e = readdir(dp));)
        if (strstr(e->d_name, ".tmp")) fail_msg("temporary file left: %s", e->d_name);
    closedir(dp);
}

#endif
