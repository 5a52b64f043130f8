/* `make test ARCH=aarch64` runs the kernel tests once per SVE vector length; tests/run.sh sets
 * LNBENCH_VL_REPEAT at the second and later lengths. A test that cannot depend on the vector
 * length (the MPFR reference, conversions in C, a fixed-width NEON layer) calls this first and
 * runs at the first length only. Include after cmocka.h. */
#ifndef LN_TESTS_VL_REPEAT_H
#define LN_TESTS_VL_REPEAT_H

#include <stdlib.h>

#define SKIP_ON_VL_REPEAT()                           \
    do {                                              \
        const char *r_ = getenv("LNBENCH_VL_REPEAT"); \
        if (r_ && *r_) skip();                        \
    } while (0)

#endif
