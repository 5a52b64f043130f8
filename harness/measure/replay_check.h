#ifndef LN_REPLAY_CHECK_H
#define LN_REPLAY_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "replay.h"

/* Replays a file with an op record: every available kernel of its op and dtype (not a peer
 * library's) on the row, measured with the MPFR reference and judged as `lnbench accuracy`
 * judges (ln_judge). Returns 0 when every one passes or is outside its domain; 1 with a message
 * naming the kernel, op, D and eps in msg; -1 (message too) when the bytes are not such a file.
 * Used by the fuzzer's check (tests/regress/fuzz_kernels/) and by hunt's tests. */
int ln_replay_check(const uint8_t *data, size_t size, char *msg, size_t len);

#endif
