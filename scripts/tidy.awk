# Turns the long result CSVs into small tab-separated tables, one per figure, that the gnuplot
# scripts and the report read. Run with -f scripts/lnplot.awk -f scripts/tidy.awk and
# -v table=NAME; output has no header, columns as listed per table below. Rows of one
# (kernel, case) measured more than once (several D, eps, seeds) keep the worst value.
#
# kernels (any result CSV): dtype kernel, probes left out
# throughput (bench.csv): group dtype kernel D gbps gbps_min gbps_max bw_fraction
#   group = regime (cache|memory|mixed; "all" if the CSV has no regime column), "-<n>t" appended
#   for multi-threaded rows. Only rows of one input distribution: normal if present. Probe rows
#   (probe-copy, probe-stream: one per input size) are repeated at each kernel row's D, taking
#   the probe of the same group whose size is nearest that row's bytes.
# accuracy (accuracy.csv): dtype kernel dist rank param max_ulp mean_ulp max_norm nonfinite
# conditioning (accuracy CSVs): dtype kernel D M max_norm max_ulp nonfinite, offset:M rows
# eps (accuracy CSVs): dtype kernel D dist eps max_ulp max_norm nonfinite, const/zero/tiny rows
#   conditioning and eps keep, per dtype, the one D that has the most points.
# pareto (throughput table, then accuracy CSVs): dtype kernel gbps error frontier regime
#   gbps: median over D of the memory-resident rate; error: worst max_norm on the hard cases
#   (offset:M, 1e4 <= M <= 1e6), non-finite if any output was; frontier 1 if no other kernel
#   of the dtype is at least as fast and at least as accurate.

FNR == 1 && FILENAME !~ /\.tsv$/ { csv_header(); next }

table == "kernels" { if (get("kernel") !~ /^probe-|^$/) print get("dtype") "\t" get("kernel"); next }

table == "throughput" {
    k = get("kernel")
    if (k == "") next
    n++
    R_k[n] = k; R_dt[n] = get("dtype"); R_D[n] = get("D"); R_g[n] = get("gbps")
    R_min[n] = has("gbps_min") ? get("gbps_min") : R_g[n]
    R_max[n] = has("gbps_max") ? get("gbps_max") : R_g[n]
    R_bw[n] = get("bw_fraction")
    R_grp[n] = has("regime") ? get("regime") : "all"
    if (has("threads") && get("threads") + 0 > 1) R_grp[n] = R_grp[n] "-" (get("threads") + 0) "t"
    R_bytes[n] = get("bytes") + 0
    R_dist[n] = get("dist")
    if (k !~ /^probe-/) dists[R_dist[n]]++
    next
}

table == "accuracy" {
    key = get("dtype") "\t" get("kernel") "\t" get("dist")
    seen[key] = 1
    A_ulp[key] = worse(A_ulp[key], get("max_ulp"))
    A_mean[key] = worse(A_mean[key], get("mean_ulp"))
    A_norm[key] = worse(A_norm[key], get("max_norm"))
    A_nf[key] = max_num(A_nf[key], get("nonfinite") + 0)
    next
}

table == "conditioning" || table == "eps" {
    d = get("dist"); f = dist_family(d)
    if (table == "conditioning" && (f != "offset" || dist_param(d) <= 0)) next
    if (table == "eps" && f != "const" && f != "zero" && f != "tiny") next
    dt = get("dtype"); D = get("D")
    x = (table == "conditioning") ? dist_param(d) : get("eps") + 0
    key = dt "\t" get("kernel") "\t" D "\t" (table == "eps" ? d "\t" : "") x
    if (!(key in seen)) points[dt SUBSEP D]++
    seen[key] = dt SUBSEP D
    A_ulp[key] = worse(A_ulp[key], get("max_ulp"))
    A_norm[key] = worse(A_norm[key], get("max_norm"))
    A_nf[key] = max_num(A_nf[key], get("nonfinite") + 0)
    next
}

table == "pareto" && FILENAME ~ /\.tsv$/ {
    # throughput table: group dtype kernel D gbps ...
    split($0, t, "\t")
    if (t[3] ~ /^probe-/) next
    key = t[2] "\t" t[3]
    nrate[t[1], key]++
    rate[t[1], key, nrate[t[1], key]] = t[5]
    groups[t[1]]++; kernels[key] = 1
    next
}

table == "pareto" {
    d = get("dist")
    if (dist_family(d) != "offset" || dist_param(d) < 1e4 || dist_param(d) > 1e6) next
    key = get("dtype") "\t" get("kernel")
    err[key] = worse(err[key], get("max_norm"))
    if (get("nonfinite") + 0 > 0) err[key] = worse(err[key], "nan")
    next
}

END {
    if (table == "throughput") {
        chosen = ""
        for (d in dists) if (chosen == "" || dists[d] > dists[chosen]) chosen = d
        if ("normal" in dists) chosen = "normal"
        for (i = 1; i <= n; i++) {
            if (R_k[i] ~ /^probe-/ || R_dist[i] != chosen) continue
            key = R_grp[i] "\t" R_dt[i] "\t" R_k[i] "\t" R_D[i]
            out[key] = R_g[i] "\t" R_min[i] "\t" R_max[i] "\t" R_bw[i]
            for (j = 1; j <= n; j++) {
                if (R_k[j] !~ /^probe-/ || R_grp[j] != R_grp[i]) continue
                pk = R_grp[i] "\t" R_dt[i] "\t" R_k[j] "\t" R_D[i]
                dist_b = (R_bytes[j] > R_bytes[i]) ? R_bytes[j] / (R_bytes[i] + 1) : R_bytes[i] / (R_bytes[j] + 1)
                if (pk in pdist && pdist[pk] <= dist_b) continue
                pdist[pk] = dist_b
                out[pk] = R_g[j] "\t" R_min[j] "\t" R_max[j] "\t" R_bw[j]
            }
        }
        for (key in out) print key "\t" out[key]
    } else if (table == "accuracy") {
        for (key in seen) {
            split(key, t, "\t")
            print key "\t" dist_rank(t[3]) "\t" dist_param(t[3]) "\t" A_ulp[key] "\t" A_mean[key] "\t" A_norm[key] "\t" A_nf[key]
        }
    } else if (table == "conditioning" || table == "eps") {
        for (p in points) {
            split(p, t, SUBSEP)
            if (!(t[1] in bestD) || points[p] > points[t[1], bestD[t[1]]] ||
                (points[p] == points[t[1], bestD[t[1]]] && t[2] + 0 > bestD[t[1]] + 0))
                bestD[t[1]] = t[2]
        }
        for (key in seen) {
            split(seen[key], t, SUBSEP)
            if (bestD[t[1]] != t[2]) continue
            if (table == "conditioning") print key "\t" A_norm[key] "\t" A_ulp[key] "\t" A_nf[key]
            else print key "\t" A_ulp[key] "\t" A_norm[key] "\t" A_nf[key]
        }
    } else if (table == "pareto") {
        regime = ("memory" in groups) ? "memory" : ("all" in groups) ? "all" : "cache"
        if (!(regime in groups)) exit
        m = 0
        for (key in kernels) {
            if (!(key in err) || !((regime, key) in nrate)) continue
            c = nrate[regime, key]
            for (i = 1; i <= c; i++) v[i] = rate[regime, key, i] + 0
            for (i = 2; i <= c; i++)    # insertion sort, c is small (the D values)
                for (j = i; j > 1 && v[j - 1] > v[j]; j--) { tmp = v[j]; v[j] = v[j - 1]; v[j - 1] = tmp }
            med = (c % 2) ? v[(c + 1) / 2] : (v[c / 2] + v[c / 2 + 1]) / 2
            m++; P_key[m] = key; P_gbps[m] = med; P_err[m] = err[key]
        }
        for (i = 1; i <= m; i++) {
            split(P_key[i], t, "\t")
            front = !is_nonfinite(P_err[i])
            for (j = 1; j <= m && front; j++) {
                if (j == i || index(P_key[j], t[1] "\t") != 1 || is_nonfinite(P_err[j])) continue
                if (P_gbps[j] >= P_gbps[i] && P_err[j] + 0 <= P_err[i] + 0 &&
                    (P_gbps[j] > P_gbps[i] || P_err[j] + 0 < P_err[i] + 0)) front = 0
            }
            print P_key[i] "\t" P_gbps[i] "\t" P_err[i] "\t" front "\t" regime
        }
    }
}
