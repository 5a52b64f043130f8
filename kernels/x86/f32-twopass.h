/* Two-pass fp32 LayerNorm, vectorized: the mean from four independent vector accumulators
 * (so the adds pipeline and each lane sums only n / (4 W) terms), then the sum of squared
 * deviations about it the same way (fma), then one normalization pass. Included by
 * f32-twopass-avx2.c and f32-twopass-avx512.c. */
#include "f32-rows.h"

#define ACC 4

static void forward(const ln_args *a)
{
    const size_t n = a->D;
    if (n == 0) return;
    for (size_t r = 0; r < a->rows; r++) {
        const float *x = (const float *)a->x + r * n;
        float *y = (float *)a->y + r * n;
        vf s0 = vf_set1(0.0f), s1 = s0, s2 = s0, s3 = s0;
        size_t i = 0;
        for (; i + ACC * VF_W <= n; i += ACC * VF_W) {
            s0 = vf_add(s0, vf_load(x + i));
            s1 = vf_add(s1, vf_load(x + i + VF_W));
            s2 = vf_add(s2, vf_load(x + i + 2 * VF_W));
            s3 = vf_add(s3, vf_load(x + i + 3 * VF_W));
        }
        for (; i + VF_W <= n; i += VF_W) s0 = vf_add(s0, vf_load(x + i));
        if (i < n) s1 = vf_add(s1, vf_load_part(x + i, n - i));
        double sum = vf_sum(vf_add(vf_add(s0, s1), vf_add(s2, s3)));
        const float mean = (float)(sum / (double)n);

        const vf vmean = vf_set1(mean);
        s0 = s1 = s2 = s3 = vf_set1(0.0f);
        for (i = 0; i + ACC * VF_W <= n; i += ACC * VF_W) {
            vf d0 = vf_sub(vf_load(x + i), vmean), d1 = vf_sub(vf_load(x + i + VF_W), vmean);
            vf d2 = vf_sub(vf_load(x + i + 2 * VF_W), vmean), d3 = vf_sub(vf_load(x + i + 3 * VF_W), vmean);
            s0 = vf_fma(d0, d0, s0);
            s1 = vf_fma(d1, d1, s1);
            s2 = vf_fma(d2, d2, s2);
            s3 = vf_fma(d3, d3, s3);
        }
        for (; i + VF_W <= n; i += VF_W) {
            vf d = vf_sub(vf_load(x + i), vmean);
            s0 = vf_fma(d, d, s0);
        }
        if (i < n) {
            vf d = vf_keep(vf_sub(vf_load_part(x + i, n - i), vmean), n - i);
            s1 = vf_fma(d, d, s1);
        }
        double ss = vf_sum(vf_add(vf_add(s0, s1), vf_add(s2, s3)));

        double mean_out = mean, rstd_out;
        if (isfinite(ss) && isfinite(sum)) {
            const float rstd = (float)(1.0 / sqrt(ss / (double)n + a->eps));
            f32_normalize(x, y, a->gamma, a->beta, n, mean, rstd, 0);
            rstd_out = rstd;
        } else {
            f32_row_f64(x, y, a->gamma, a->beta, n, a->eps, &mean_out, &rstd_out);
        }
        if (a->mean) a->mean[r] = mean_out;
        if (a->rstd) a->rstd[r] = rstd_out;
    }
}

/* 4 W lanes of sequential fp32 sums, combined in double. */
static double bound(size_t n, double kappa) { return f32_lanes_bound(n, kappa, ACC * VF_W, 0.0); }

#define HOW                                                                                    \
    "fp32 two-pass, 4 vector accumulators for the mean then for sum (x-mean)^2 (fma), lanes " \
    "added in double; var rel. error <= (n/(4W)+3) u + (n/(4W)+2)^2 kappa^2 u^2"
