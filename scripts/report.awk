# Markdown pieces of results/REPORT.md, computed from the tidy tables of scripts/plots.sh
# (columns documented in tidy.awk). Run with -F'\t' -f scripts/lnplot.awk -f scripts/report.awk
# -v part=NAME [-v key=FIGURE-KEY] TABLE. Parts:
#   meta        (FILE.meta.json ...) machine and run metadata, one column per file
#   throughput  (throughput.tsv, key = group<TAB>dtype) table kernel x D of GB/s, then a sentence
#   accuracy    (accuracy.tsv, key = dtype) tables kernel x distribution, then sentences
#   conditioning(conditioning.tsv, key = dtype) where each kernel breaks
#   eps         (eps.tsv, key = dtype) non-finite outputs and the largest errors
#   pareto      (pareto.tsv, key = dtype) table and the frontier
# BREAK is the normwise error (units of u) taken as "broken" in the conditioning sentences.

BEGIN { BREAK = 1e3 }

function md(s) { gsub(/\|/, "\\|", s); return s }
function add(list, w, sep) { return list == "" ? w : list sep w }
function row(n, cells,   i, s) { s = "|"; for (i = 1; i <= n; i++) s = s " " cells[i] " |"; print s }
function rule(n, align,   i, s) { s = "|"; for (i = 1; i <= n; i++) s = s (i == 1 || align == "left" ? "---|" : "---:|"); print s }
function pct(v) { return sprintf("%.0f%%", 100 * v) }

# ---- meta: flat JSON objects as lnbench writes them, one "key": value per line ----
part == "meta" && FNR == 1 { nf++; fname = FILENAME; sub(/.*\//, "", fname); sub(/\.meta\.json$/, "", fname); fnames[nf] = fname }
part == "meta" && /^ *"[^"]+" *:/ {
    line = $0
    sub(/^ *"/, "", line); k = line; sub(/".*/, "", k)
    v = line; sub(/^[^"]*" *: */, "", v); sub(/,? *$/, "", v)
    if (v ~ /^".*"$/) { v = substr(v, 2, length(v) - 2); gsub(/\\"/, "\"", v); gsub(/\\\\/, "\\", v) }
    if (!(k in kseen)) { kseen[k] = 1; keys[++nk] = k }
    val[nf, k] = v
    next
}

# ---- the tidy tables: keep the rows of the figure asked for ----
part == "throughput" { split(key, kk, "\t"); if ($1 == kk[1] && $2 == kk[2]) keep(); next }
part == "accuracy" || part == "conditioning" || part == "eps" || part == "pareto" { if ($1 == key) keep(); next }
function keep(   i) { n++; for (i = 1; i <= NF; i++) T[n, i] = $i }

function col_index(list, w, ncol, cols,   i) {   # position of w in cols[1..ncol], added if new
    for (i = 1; i <= ncol; i++) if (cols[i] == w) return i
    return 0
}

END {
    if (part == "meta") meta()
    else if (part == "throughput") throughput()
    else if (part == "accuracy") accuracy()
    else if (part == "conditioning") conditioning()
    else if (part == "eps") eps()
    else if (part == "pareto") pareto()
}

function meta(   i, j, c) {
    if (nf == 0) { print "No metadata files (*.meta.json) found."; return }
    c[1] = "field"; for (j = 1; j <= nf; j++) c[j + 1] = fnames[j]
    row(nf + 1, c); rule(nf + 1, "left")
    for (i = 1; i <= nk; i++) {
        c[1] = keys[i]
        for (j = 1; j <= nf; j++) c[j + 1] = ((j, keys[i]) in val) ? md(val[j, keys[i]]) : "-"
        row(nf + 1, c)
    }
}

# Distinct values of column cix over T, in first-seen order (T is sorted as needed).
function distinct(cix, out,   i, m, s) {
    m = 0; split("", s)
    for (i = 1; i <= n; i++) if (!(T[i, cix] in s)) { s[T[i, cix]] = 1; out[++m] = T[i, cix] }
    return m
}

# throughput.tsv: group dtype kernel D gbps gbps_min gbps_max bw_fraction
function throughput(   Ds, nD, ks, nk2, i, j, c, cell, med, v, m, best, worst, probe, a, b, tmp, nv) {
    nD = distinct(4, Ds)
    for (i = 2; i <= nD; i++) for (j = i; j > 1 && Ds[j] + 0 < Ds[j - 1] + 0; j--) { tmp = Ds[j]; Ds[j] = Ds[j - 1]; Ds[j - 1] = tmp }
    nk2 = distinct(3, ks)
    c[1] = "kernel"; for (j = 1; j <= nD; j++) c[j + 1] = "D=" Ds[j]; c[nD + 2] = "median"; c[nD + 3] = "of probe-copy"
    row(nD + 3, c); rule(nD + 3)
    for (i = 1; i <= nk2; i++) {
        nv = 0
        for (j = 1; j <= nD; j++) cell[j] = "-"
        bw = ""
        for (m = 1; m <= n; m++) {
            if (T[m, 3] != ks[i]) continue
            for (j = 1; j <= nD; j++) if (T[m, 4] == Ds[j]) cell[j] = sprintf("%.3g", T[m, 5])
            v[++nv] = T[m, 5] + 0
            if (T[m, 8] != "") bw = max_num(bw, T[m, 8])
        }
        for (a = 2; a <= nv; a++) for (b = a; b > 1 && v[b - 1] > v[b]; b--) { tmp = v[b]; v[b] = v[b - 1]; v[b - 1] = tmp }
        med[ks[i]] = (nv % 2) ? v[(nv + 1) / 2] : (v[nv / 2] + v[nv / 2 + 1]) / 2
        c[1] = ks[i]; for (j = 1; j <= nD; j++) c[j + 1] = cell[j]
        c[nD + 2] = sprintf("%.3g", med[ks[i]])
        c[nD + 3] = (ks[i] ~ /^probe-/ || bw == "") ? "" : "up to " pct(bw)
        row(nD + 3, c)
        if (ks[i] ~ /^probe-copy$/) probe = med[ks[i]]
        else if (ks[i] !~ /^probe-/) {
            if (best == "" || med[ks[i]] > med[best]) best = ks[i]
            if (worst == "" || med[ks[i]] < med[worst]) worst = ks[i]
        }
    }
    print ""
    if (best == "") return
    printf "Fastest here: %s, median %.3g GB/s over D", best, med[best]
    if (probe != "") printf " (%s of the probe-copy rate, %.3g GB/s)", pct(med[best] / probe), probe
    if (worst != best) printf "; slowest: %s, %.3g GB/s (%.2gx slower)", worst, med[worst], med[best] / med[worst]
    print "."
}

# accuracy.tsv: dtype kernel dist rank param max_ulp mean_ulp max_norm nonfinite (sorted by
# kernel, then distribution order)
function accuracy(   ds, nd, ks, nk2, i, j, m, c, cell, metric, title, broken, worst_k, worst_d, worst_v, best_k, kw, s, nb) {
    nd = order_dists(ds)
    nk2 = distinct(2, ks)
    split("6 8", metric, " "); split("max_ulp (ulp)|max_norm (units of u)", title, "|")
    for (s = 1; s <= 2; s++) {
        print "Worst " title[s] " per kernel and distribution, over D and eps:"
        print ""
        c[1] = "kernel"; for (j = 1; j <= nd; j++) c[j + 1] = ds[j]
        row(nd + 1, c); rule(nd + 1)
        for (i = 1; i <= nk2; i++) {
            c[1] = ks[i]; for (j = 1; j <= nd; j++) c[j + 1] = "-"
            for (m = 1; m <= n; m++) {
                if (T[m, 2] != ks[i]) continue
                j = col_index("", T[m, 3], nd, ds)
                c[j + 1] = fmt(T[m, metric[s]]) (T[m, 9] + 0 > 0 ? " (" T[m, 9] " non-finite)" : "")
            }
            row(nd + 1, c)
        }
        print ""
    }
    # sentences: the most accurate kernel overall, the largest finite error, non-finite outputs
    for (m = 1; m <= n; m++) {
        k = T[m, 2]
        if (T[m, 9] + 0 > 0 || is_nonfinite(T[m, 6])) { broken = add(broken, k " on " T[m, 3], ", "); kbroken[k] = 1; continue }
        kw[k] = max_num(kw[k], T[m, 6])
        if (worst_v == "" || T[m, 6] + 0 > worst_v + 0) { worst_v = T[m, 6]; worst_k = k; worst_d = T[m, 3] }
    }
    for (i = 1; i <= nk2; i++) if (!(ks[i] in kbroken) && (best_k == "" || kw[ks[i]] + 0 < kw[best_k] + 0)) best_k = ks[i]
    if (best_k != "") printf "Smallest worst-case error over all distributions: %s (max_ulp %s). ", best_k, fmt(kw[best_k])
    if (worst_k != "") printf "Largest finite error: %s on %s (max_ulp %s). ", worst_k, worst_d, fmt(worst_v)
    if (broken != "") print "Non-finite outputs (NaN or Inf where the exact result is finite, or the reverse): " broken "."
    else print "No kernel produced a non-finite output."
}

function order_dists(ds,   m, i, j, tmp, r) {   # distributions by rank, then parameter
    m = 0; split("", r)
    for (i = 1; i <= n; i++) if (!(T[i, 3] in r)) { r[T[i, 3]] = T[i, 4] "\t" T[i, 5]; ds[++m] = T[i, 3] }
    for (i = 2; i <= m; i++)
        for (j = i; j > 1 && rank_before(r[ds[j]], r[ds[j - 1]]); j--) { tmp = ds[j]; ds[j] = ds[j - 1]; ds[j - 1] = tmp }
    return m
}
function rank_before(a, b,   x, y) {
    split(a, x, "\t"); split(b, y, "\t")
    return (x[1] + 0 != y[1] + 0) ? x[1] + 0 < y[1] + 0 : x[2] + 0 < y[2] + 0
}

# conditioning.tsv: dtype kernel D M max_norm max_ulp nonfinite, sorted by kernel then M.
# A kernel breaks from the smallest M from which on every point exceeds BREAK u or is non-finite.
function conditioning(   i, k, from, nanfrom, fine, mmax, last, s, top) {
    for (i = n; i >= 1; i--) {   # walk each kernel's points from the largest M down
        k = T[i, 2]
        if (!(k in state)) { state[k] = "bad"; order[++nk2] = k; top[k] = T[i, 4] }
        bad = T[i, 7] + 0 > 0 || is_nonfinite(T[i, 5]) || T[i, 5] + 0 > BREAK
        if (state[k] == "bad" && bad) from[k] = T[i, 4]; else state[k] = "ok"
        if (!(k in nstate)) nstate[k] = "nan"
        if (nstate[k] == "nan" && (T[i, 7] + 0 > 0 || is_nonfinite(T[i, 5]))) nanfrom[k] = T[i, 4]; else nstate[k] = "ok"
        if (!bad) mmax[k] = max_num(mmax[k], T[i, 5])
    }
    s = ""
    for (i = nk2; i >= 1; i--) {
        k = order[i]
        if (k in from) {
            printf "%s's max_norm exceeds %s u from offset:%s on", k, fmt_exp(BREAK), fmt_exp(from[k])
            if (k in nanfrom) printf " (non-finite output from offset:%s)", fmt_exp(nanfrom[k])
            print "."
        } else fine = add(fine, k " (" fmt(mmax[k]) " u)", ", ")
        if (last == "" || top[k] + 0 > last + 0) last = top[k]
    }
    if (fine != "") print "Below " fmt_exp(BREAK) " u at every offset up to offset:" fmt_exp(last) ", largest normwise error in brackets: " fine "."
    print "D = " T[1, 3] "."
}

# eps.tsv: dtype kernel D dist eps max_ulp max_norm nonfinite
function eps(   i, k, key, e, list, wv, wk) {
    for (i = 1; i <= n; i++) {
        key = T[i, 2] " on " T[i, 4] " rows"
        if (T[i, 8] + 0 > 0 || is_nonfinite(T[i, 6])) {
            if (!(key in list)) order[++m] = key
            list[key] = add(list[key], fmt_exp(T[i, 5] + 0), ", ")
        } else if (wv == "" || T[i, 6] + 0 > wv + 0) { wv = T[i, 6]; wk = key " at eps = " fmt_exp(T[i, 5] + 0) }
    }
    if (m == 0) print "No kernel produced a non-finite output on const, zero or tiny rows at any eps tried."
    for (i = 1; i <= m; i++) print "Non-finite outputs from " order[i] " at eps = " list[order[i]] "."
    if (wk != "") print "Largest finite error: " wk " (max_ulp " fmt(wv) ")."
}

# pareto.tsv: dtype kernel gbps error frontier regime
function pareto(   i, c, front, broken) {
    c[1] = "kernel"; c[2] = "GB/s (" T[1, 6] ")"; c[3] = "worst max_norm on offset:1e4..1e6 (u)"; c[4] = "Pareto-optimal"
    row(4, c); rule(4)
    for (i = 1; i <= n; i++) {
        c[1] = T[i, 2]; c[2] = sprintf("%.3g", T[i, 3]); c[3] = fmt(T[i, 4]); c[4] = T[i, 5] ? "yes" : ""
        row(4, c)
        if (T[i, 5]) front = add(front, T[i, 2] " (" sprintf("%.3g", T[i, 3]) " GB/s, " fmt(T[i, 4]) " u)", ", ")
        if (is_nonfinite(T[i, 4])) broken = add(broken, T[i, 2], ", ")
    }
    print ""
    if (front != "") print "Pareto-optimal (no other kernel of this dtype is both at least as fast and at least as accurate): " front "."
    if (broken != "") print "Non-finite outputs on the hard rows: " broken "."
}
