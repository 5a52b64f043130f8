/* The libFuzzer entry point of a target whose check returns 0, or 1 with a message: the message
 * is printed and the run aborts, so libFuzzer saves the input. Left out when the target's file
 * is included by a test that replays inputs (LN_FUZZ_NO_MAIN). */
#ifndef LN_FUZZ_H
#define LN_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef LN_FUZZ_NO_MAIN
#define LN_FUZZ_ENTRY(target, check)
#else
#define LN_FUZZ_ENTRY(target, check)                              \
    int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size); \
    int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)  \
    {                                                             \
        char msg[1024];                                           \
        if (check(data, size, msg, sizeof msg)) {                 \
            fprintf(stderr, "%s: %s\n", target, msg);             \
            abort();                                              \
        }                                                         \
        return 0;                                                 \
    }
#endif

#endif
