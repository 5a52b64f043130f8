/* Fuzzing the .npy reader (harness/inputs/npy.h): any bytes as a file. The reader must either return
 * a message (non-empty, and no array) or an array that the file really holds: 1 or 2
 * dimensions, at least one element, no more element bytes than the file has after its header.
 * AddressSanitizer checks every read; LeakSanitizer that nothing is left allocated.
 *
 * The bytes are written to an in-memory file (memfd) read through /proc/self/fd, so a run
 * touches no disk. tests/test_edge.c replays tests/regress/fuzz_npy/ and the seed corpus
 * through ln_fuzz_npy_check() below. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"
#include "npy.h"

/* Returns 0, or 1 with a message in msg. */
int ln_fuzz_npy_check(const uint8_t *data, size_t size, char *msg, size_t len);
int ln_fuzz_npy_check(const uint8_t *data, size_t size, char *msg, size_t len)
{
    static int fd = -1;
    static char path[64];
    if (fd < 0) {
        fd = memfd_create("fuzz_npy", 0);
        if (fd < 0) {
            snprintf(msg, len, "memfd_create failed");
            return 1;
        }
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    }
    if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size) {
        snprintf(msg, len, "cannot write the in-memory file");
        return 1;
    }
    ln_npy_array a;
    const char *err = ln_npy_read(path, &a);
    if (err) {
        if (!*err) return snprintf(msg, len, "empty error message"), 1;
        if (a.data) return snprintf(msg, len, "error '%s' but data returned", err), 1;
        return 0;
    }
    int bad = 0;
    if (a.ndim != 1 && a.ndim != 2) bad = snprintf(msg, len, "success with ndim %d", a.ndim);
    else if (a.rows == 0 || a.cols == 0 || !a.data) bad = snprintf(msg, len, "success with no elements");
    else if (a.ndim == 1 && a.rows != 1) bad = snprintf(msg, len, "1-D array with %zu rows", a.rows);
    /* the smallest header is 10 bytes; elements are at least 4 bytes */
    else if (a.cols > size / 4 || a.rows > size / 4 / a.cols || 10 + 4 * a.rows * a.cols > size)
        bad = snprintf(msg, len, "%zu x %zu elements read from a %zu-byte file", a.rows, a.cols, size);
    else {
        /* every element is inside the allocation (AddressSanitizer checks these reads) */
        volatile double sink = 0;
        for (size_t i = 0; i < a.rows * a.cols; i++) sink += a.data[i];
        (void)sink;
    }
    free(a.data);
    return bad != 0;
}

LN_FUZZ_ENTRY("fuzz_npy", ln_fuzz_npy_check)
