#include "replay.h"

#include <stdint.h>
#include <string.h>

#include "cli.h"
#include "outfile.h"

void ln_replay_write_row(const char *path, ln_dtype t, size_t D, const void *x, const void *gamma, const void *beta,
                         double eps)
{
    if (D == 0 || D > 65535) ln_die_usage("a replay file holds rows of 1 to 65535 elements, not %zu", D);
    uint8_t head[13];
    head[0] = (uint8_t)(t | 2 << 2); /* raw values, raw gamma and beta */
    head[1] = 0xff;                  /* eps follows in full */
    head[2] = (uint8_t)(D & 0xff);
    head[3] = (uint8_t)(D >> 8);
    head[4] = D <= LN_REPLAY_MAX_SHORT_D ? 1 : LN_REPLAY_LONG_ROW | 1;
    uint64_t bits;
    memcpy(&bits, &eps, sizeof bits);
    for (int i = 0; i < 8; i++) head[5 + i] = (uint8_t)(bits >> (8 * i));
    size_t es = ln_fmt(t)->size;
    ln_outfile o;
    ln_out_open(&o, path);
    /* the formats' bit patterns, little-endian, as the fuzzer's byte source reads them */
    fwrite(head, 1, sizeof head, o.f);
    fwrite(x, es, D, o.f);
    fwrite(gamma, es, D, o.f);
    fwrite(beta, es, D, o.f);
    ln_out_commit(&o);
}
