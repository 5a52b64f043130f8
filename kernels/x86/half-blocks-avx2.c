/* See half-blocks.h. hb_load / hb_store lay a block out as two vectors (bf16: the even and the
 * odd elements); these put it back in memory order. */
#include "half-blocks.h"

#include "half-twopass.h"

void ln_half_block_store_avx2(ln_dtype t, const float *in, uint16_t *out)
{
    float a[VF_W], b[VF_W];
    for (int i = 0; i < VF_W; i++) {
        a[i] = t == LN_F16 ? in[i] : in[2 * i];
        b[i] = t == LN_F16 ? in[VF_W + i] : in[2 * i + 1];
    }
    hb_store(t, out, (vf2){vf_load(a), vf_load(b)}, 0);
}

void ln_half_block_load_avx2(ln_dtype t, const uint16_t *in, float *out)
{
    float a[VF_W], b[VF_W];
    vf2 v = hb_load(t, in);
    vf_store(a, v.a), vf_store(b, v.b);
    for (int i = 0; i < VF_W; i++) {
        if (t == LN_F16) out[i] = a[i], out[VF_W + i] = b[i];
        else out[2 * i] = a[i], out[2 * i + 1] = b[i];
    }
}
