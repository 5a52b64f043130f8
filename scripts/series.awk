# Splits a tidy table (see tidy.awk) into one data file per plotted series, because gnuplot
# draws a line through consecutive rows only, and writes per figure a gnuplot file of settings
# taken from the data (series files, titles, colour indices, axis limits). Prints the name of
# each figure it prepared, one per line. Arguments: kernels.txt (the sorted list of every dtype
# and kernel seen: a kernel's colour is its rank among its dtype's kernels, so it is the same
# in every figure, and figures, which are per dtype, use as many colours as they can), then the
# table, twice (two passes: the first sizes the axes). Variables: fig = throughput|accuracy|conditioning|eps|pareto, dir = where
# to write.

function q(s) { return "\"" s "\"" }
function fname(s) { gsub(/[^A-Za-z0-9._-]/, "_", s); return s }
function setvar(f, name, value) { print name " = " value > f }
function add(list, w) { return list == "" ? w : list " " w }

# Appends a row to a series file, closing the previous file when the series changes (mawk has
# a small limit of open files).
function emit(file, row) {
    if (file != open_file) { if (open_file != "") close(open_file); open_file = file }
    print row > file
}

function regime_text(g,   r, t) {
    r = g; t = ""
    if (g ~ /-[0-9]+t$/) { r = g; sub(/-[0-9]+t$/, "", r); t = g; sub(/.*-/, "", t); sub(/t$/, "", t) }
    r = (r == "cache") ? "cache-resident" : (r == "memory") ? "memory-resident" : (r == "all") ? "" : r
    if (t != "") r = r (r == "" ? "" : ", ") t " threads"
    return r
}

BEGIN { SPAN = 16 }
FILENAME ~ /kernels\.txt$/ { color[$2] = ncolor[$1]++; next }
FNR == 1 { pass++ }
{ split($0, c, "\t") }

# ---- throughput: one figure per (group, dtype); rows sorted by group, dtype, kernel, D ----
fig == "throughput" && pass == 1 { next }
fig == "throughput" {
    g = c[1]; dt = c[2]; k = c[3]
    if (k ~ /^probe-/) { add_series("throughput-" g "-" dt, k, c[4] " " c[5], 1); next }
    add_series("throughput-" g "-" dt, k, c[4] " " c[5] " " c[6] " " c[7], 0)
    title[base] = "LayerNorm throughput, " dt (regime_text(g) == "" ? "" : ", " regime_text(g))
    next
}

function add_series(b, k, row, is_probe,   file) {
    base = b
    file = dir "/" fname(b "--" k) ".dat"
    if (!((b, k) in has_series)) {
        has_series[b, k] = 1
        if (!(b in figs)) { figs[b] = 1; nfig++; fig_order[nfig] = b }
        if (is_probe) { probes[b] = add(probes[b], file); probenames[b] = add(probenames[b], k) }
        else { files[b] = add(files[b], file); names[b] = add(names[b], k); idx[b] = add(idx[b], color[k]) }
    }
    emit(file, row)
}

# ---- accuracy: one figure per dtype, kernels clustered per distribution; series files hold
# "x max_ulp mean_ulp max_norm" ----
# columns: dtype kernel dist rank param max_ulp mean_ulp max_norm nonfinite
fig == "accuracy" && pass == 1 {
    dt = c[1]
    if (!((dt, c[2]) in kseen)) { kseen[dt, c[2]] = nk[dt]++ }
    if (!((dt, c[3]) in dseen)) { dseen[dt, c[3]] = 1; D_rank[dt, ++nd[dt]] = c[4] "\t" c[5] "\t" c[3] }
    range_of(dt "max", c[6]); range_of(dt "mean", c[7]); range_of(dt "norm", c[8])
    next
}
fig == "accuracy" {
    dt = c[1]; k = c[2]; b = "accuracy-" dt
    if (!(b in figs)) start_accuracy(dt, b)
    x = dpos[dt, c[3]] + (kseen[dt, k] - (nk[dt] - 1) / 2) * 0.8 / nk[dt]
    broken = c[9] + 0 > 0
    ymax = on_log_axis(c[6], lo[dt "max"], hi[dt "max"])
    ymean = on_log_axis(c[7], lo[dt "mean"], hi[dt "mean"])
    if (broken || is_nonfinite(c[6])) { ymax = hi[dt "max"]; print x, ymax > (dir "/" b "--nonfinite-max.dat"); nnf[b, "max"]++ }
    if (broken || is_nonfinite(c[7])) { ymean = hi[dt "mean"]; print x, ymean > (dir "/" b "--nonfinite-mean.dat"); nnf[b, "mean"]++ }
    ynorm = on_log_axis(c[8], lo[dt "norm"], hi[dt "norm"])
    if (broken || is_nonfinite(c[8])) { ynorm = hi[dt "norm"]; print x, ynorm > (dir "/" b "--nonfinite-norm.dat"); nnf[b, "norm"]++ }
    file = dir "/" fname(b "--" k) ".dat"
    if (!((b, k) in has_series)) {
        has_series[b, k] = 1
        files[b] = add(files[b], file); names[b] = add(names[b], k); idx[b] = add(idx[b], color[k])
    }
    emit(file, x " " ymax " " ymean " " ynorm)
    next
}

# Finite positive extent of the values of one axis; limits() turns it into [floor, top].
function range_of(a, v) {
    if (v == "" || is_nonfinite(v) || v + 0 <= 0) return
    if (!(a in lo) || v + 0 < lo[a]) lo[a] = v + 0
    if (!(a in hi) || v + 0 > hi[a]) hi[a] = v + 0
}
# At most SPAN decades: smaller values are drawn at the floor, which is then labelled "<=10^n"
# instead of "0" (floorlab_<axis> = 1 in the figure's settings).
function limits(a,   f) {
    if (!(a in lo)) { lo[a] = 1; hi[a] = 1 }
    if (a in done) return
    done[a] = 1
    f = log_floor(lo[a]); hi[a] = log_top(hi[a])
    clamped[a] = (log10(f) < log10(hi[a]) - SPAN - 0.5)
    if (clamped[a]) lo[a] = 10 ^ (int(log10(hi[a]) + 100.5) - 100 - SPAN)
    else lo[a] = f
}

function start_accuracy(dt, b,   i, j, n, t, tmp, list) {
    figs[b] = 1; nfig++; fig_order[nfig] = b
    title[b] = "LayerNorm accuracy by input distribution, " dt " (worst over D and eps)"
    n = nd[dt]
    for (i = 1; i <= n; i++) order[i] = D_rank[dt, i]
    for (i = 2; i <= n; i++)   # by family rank, then parameter, then name
        for (j = i; j > 1 && dist_before(order[j], order[j - 1]); j--) { tmp = order[j]; order[j] = order[j - 1]; order[j - 1] = tmp }
    list = ""
    for (i = 1; i <= n; i++) { split(order[i], t, "\t"); dpos[dt, t[3]] = i; list = add(list, t[3]) }
    dists[b] = list
    limits(dt "max"); limits(dt "mean"); limits(dt "norm")
    extra[b] = "floor_max = " lo[dt "max"] "; top_max = " hi[dt "max"] "; floor_mean = " lo[dt "mean"] "; top_mean = " hi[dt "mean"] \
               "; floor_norm = " lo[dt "norm"] "; top_norm = " hi[dt "norm"] \
               "; floorcut_max = " clamped[dt "max"] "; floorcut_mean = " clamped[dt "mean"] "; floorcut_norm = " clamped[dt "norm"]
}
function dist_before(a, b,   x, y) {
    split(a, x, "\t"); split(b, y, "\t")
    if (x[1] + 0 != y[1] + 0) return x[1] + 0 < y[1] + 0
    if (x[2] + 0 != y[2] + 0) return x[2] + 0 < y[2] + 0
    return x[3] < y[3]
}

# ---- conditioning: one figure per dtype, max_norm vs M; rows sorted by dtype, kernel, M ----
# columns: dtype kernel D M max_norm max_ulp nonfinite
fig == "conditioning" && pass == 1 {
    if (!((c[1], c[4]) in mseen)) { mseen[c[1], c[4]] = 1; nm[c[1]]++ }
    range_of(c[1], c[5]); Dof[c[1]] = c[3]
    if (!(c[1] in mlo) || c[4] + 0 < mlo[c[1]]) mlo[c[1]] = c[4] + 0
    if (!(c[1] in mhi) || c[4] + 0 > mhi[c[1]]) mhi[c[1]] = c[4] + 0
    next
}
fig == "conditioning" {
    dt = c[1]; k = c[2]; b = "conditioning-" dt
    if (nm[dt] < 3) { if (!(dt in warned)) { warned[dt] = 1; print "plots: conditioning, " dt ": fewer than 3 offsets, skipped" > "/dev/stderr" } next }
    if (!(b in figs)) {
        figs[b] = 1; nfig++; fig_order[nfig] = b; limits(dt)
        title[b] = "Error vs offset M (inputs normal(M, 1)), " dt ", D = " Dof[dt]
        extra[b] = "floor = " lo[dt] "; top = " hi[dt] "; floorcut = " clamped[dt] "; mmin = " mlo[dt] "; mmax = " mhi[dt]
    }
    y = on_log_axis(c[5], lo[dt], hi[dt])
    if (c[7] + 0 > 0 || is_nonfinite(c[5])) { y = hi[dt]; print c[4], y > (dir "/" b "--nonfinite.dat"); nnf[b, "all"]++ }
    file = dir "/" fname(b "--" k) ".dat"
    if (!((b, k) in has_series)) {
        has_series[b, k] = 1
        files[b] = add(files[b], file); names[b] = add(names[b], k); idx[b] = add(idx[b], color[k])
    }
    emit(file, c[4] " " y)
    next
}

# ---- eps: one figure per dtype, a column of panels per distribution ----
# columns: dtype kernel D dist eps max_ulp max_norm nonfinite; sorted by dtype, dist, kernel, eps
fig == "eps" && pass == 1 {
    if (!((c[1], c[5]) in eseen)) { eseen[c[1], c[5]] = 1; ne[c[1]]++ }
    range_of(c[1], c[6]); Dof[c[1]] = c[3]
    if (!((c[1], c[4]) in dseen)) { dseen[c[1], c[4]] = 1; dl[c[1]] = add(dl[c[1]], c[4]) }
    if (!(c[1] in elo) || c[5] + 0 < elo[c[1]]) elo[c[1]] = c[5] + 0
    if (!(c[1] in ehi) || c[5] + 0 > ehi[c[1]]) ehi[c[1]] = c[5] + 0
    if (c[8] + 0 > nfmax[c[1]]) nfmax[c[1]] = c[8] + 0
    next
}
fig == "eps" {
    dt = c[1]; k = c[2]; d = c[4]; b = "eps-" dt
    if (ne[dt] < 2) { if (!(dt in warned)) { warned[dt] = 1; print "plots: eps, " dt ": fewer than 2 eps values, skipped" > "/dev/stderr" } next }
    if (!(b in figs)) {
        figs[b] = 1; nfig++; fig_order[nfig] = b; limits(dt)
        npanel = split(dl[dt], pn, " ")
        for (i = 2; i <= npanel; i++)   # panels in the usual order of distributions
            for (j = i; j > 1 && dist_rank(pn[j]) < dist_rank(pn[j - 1]); j--) { tmp = pn[j]; pn[j] = pn[j - 1]; pn[j - 1] = tmp }
        dl[dt] = ""
        for (i = 1; i <= npanel; i++) { panel[dt, pn[i]] = i; dl[dt] = add(dl[dt], pn[i]) }
        panels[b] = npanel
        title[b] = "Error and non-finite outputs vs eps on degenerate rows, " dt ", D = " Dof[dt]
        dists[b] = dl[dt]
        extra[b] = "floor = " lo[dt] "; top = " hi[dt] "; floorcut = " clamped[dt] "; emin = " elo[dt] "; emax = " ehi[dt] "; nfmax = " (nfmax[dt] + 0)
    }
    p = panel[dt, d]
    y = on_log_axis(c[6], lo[dt], hi[dt])
    if (c[8] + 0 > 0 || is_nonfinite(c[6])) {
        y = hi[dt]; nnf[b, p]++
        print c[5], y > (dir "/" b "--nonfinite-" p ".dat")
    }
    file = dir "/" fname(b "--" d "--" k) ".dat"
    if (!((b, d, k) in has_series)) {
        has_series[b, d, k] = 1
        pfiles[b, p] = add(pfiles[b, p], file); pnames[b, p] = add(pnames[b, p], k); pidx[b, p] = add(pidx[b, p], color[k])
        if (!((b, k) in in_legend)) { in_legend[b, k] = 1; names[b] = add(names[b], k); idx[b] = add(idx[b], color[k]) }
    }
    emit(file, c[5] " " y " " c[8])
    next
}

# ---- pareto: one figure per dtype; columns: dtype kernel gbps error frontier regime ----
fig == "pareto" && pass == 1 {
    n = ++np[c[1]]
    P_k[c[1], n] = c[2]; P_x[c[1], n] = c[3] + 0; P_e[c[1], n] = c[4]; P_f[c[1], n] = c[5]; P_reg[c[1]] = c[6]
    range_of(c[1], c[4])
    next
}
fig == "pareto" { next }

END {
    if (fig == "pareto") for (dt in np) write_pareto(dt)
    for (i = 1; i <= nfig; i++) {
        b = fig_order[i]; f = dir "/" b ".gp"
        setvar(f, "title", q(title[b]))
        setvar(f, "files", q(files[b])); setvar(f, "names", q(names[b])); setvar(f, "idx", q(idx[b]))
        setvar(f, "probes", q(probes[b])); setvar(f, "probenames", q(probenames[b]))
        setvar(f, "dists", q(dists[b]))
        # non-finite markers: file "nonfinite" (or nonfinite_<panel>), and how many points it has
        for (p = 1; p <= panels[b]; p++) {
            setvar(f, "files_" p, q(pfiles[b, p])); setvar(f, "names_" p, q(pnames[b, p])); setvar(f, "idx_" p, q(pidx[b, p]))
            setvar(f, "nnf_" p, nnf[b, p] + 0); setvar(f, "nonfinite_" p, q(dir "/" b "--nonfinite-" p ".dat"))
        }
        split("all max mean norm", sfx, " ")
        for (p = 1; p <= 4; p++) {
            s = (sfx[p] == "all") ? "" : "_" sfx[p]
            setvar(f, "nnf" s, nnf[b, sfx[p]] + 0); setvar(f, "nonfinite" s, q(dir "/" b "--nonfinite" (s == "" ? "" : "-" sfx[p]) ".dat"))
        }
        if (b in extra) print extra[b] > f
        close(f)
        print b
    }
}

# Pareto figure: points, frontier line and labels placed so that they overlap neither each
# other nor the points (greedy, in the plot's unit square; linear x, log y).
function write_pareto(dt,   b, n, i, j, xlo, xhi, span, u, v, w, h, cand, best, lx, ly, f, order, tmp) {
    n = np[dt]; b = "pareto-" dt
    figs[b] = 1; nfig++; fig_order[nfig] = b; limits(dt)
    xlo = xhi = P_x[dt, 1]
    for (i = 2; i <= n; i++) { if (P_x[dt, i] < xlo) xlo = P_x[dt, i]; if (P_x[dt, i] > xhi) xhi = P_x[dt, i] }
    span = xhi - xlo; if (span < 0.2 * xhi) span = 0.2 * xhi + (xhi == 0)
    xlo -= 0.15 * span; if (xlo < 0) xlo = 0
    xhi += 0.15 * span
    title[b] = "Speed vs accuracy, " dt " kernels"
    extra[b] = "floor = " lo[dt] "; top = " hi[dt] "; floorcut = " clamped[dt] "; xmin = " xlo "; xmax = " xhi "; regime = " q(P_reg[dt]) \
               "; frontier = " q(dir "/" b "--frontier.dat") "; labelfile = " q(dir "/" b "--labels.dat")
    f = dir "/" b "--frontier.dat"
    for (i = 1; i <= n; i++) order[i] = i
    for (i = 2; i <= n; i++)
        for (j = i; j > 1 && P_x[dt, order[j]] < P_x[dt, order[j - 1]]; j--) { tmp = order[j]; order[j] = order[j - 1]; order[j - 1] = tmp }
    for (i = 1; i <= n; i++) if (P_f[dt, order[i]]) print P_x[dt, order[i]], P_e[dt, order[i]] > f
    close(f)
    # label geometry in units of the plot area (a 7 px wide character on a ~780 x 470 px area)
    h = 0.04
    for (i = 1; i <= n; i++) {
        PU[i] = (P_x[dt, i] - xlo) / (xhi - xlo)
        PV[i] = (log10(on_log_axis(P_e[dt, i], lo[dt], hi[dt])) - log10(lo[dt])) / (log10(hi[dt]) - log10(lo[dt]))
    }
    nbox = 0
    for (i = 1; i <= n; i++) { nbox++; BX0[nbox] = PU[i] - 0.012; BX1[nbox] = PU[i] + 0.012; BY0[nbox] = PV[i] - 0.02; BY1[nbox] = PV[i] + 0.02 }
    f = dir "/" b "--labels.dat"
    for (j = 1; j <= n; j++) {
        i = order[j]; u = PU[i]; v = PV[i]; w = 0.009 * length(P_k[dt, i]) + 0.01
        best = ""
        for (cand = 0; cand < 24 && best == ""; cand++) {
            # right, left, above, below, then the same four further out
            lx = (cand % 4 == 0) ? u + 0.015 : (cand % 4 == 1) ? u - 0.015 - w : u - w / 2
            ly = v + ((cand % 4 == 2) ? 1 : (cand % 4 == 3) ? -1 : 0) * (h + 0.01) * (1 + int(cand / 4))
            if (cand % 4 < 2 && cand >= 4) ly = v + ((int(cand / 4) % 2) ? 1 : -1) * h * int((cand + 4) / 8)
            if (label_fits(lx, ly, w, h)) best = lx SUBSEP ly
        }
        if (best == "") { lx = u + 0.015; ly = v } else split(best, t, SUBSEP)
        if (best != "") { lx = t[1]; ly = t[2] }
        nbox++; BX0[nbox] = lx; BX1[nbox] = lx + w; BY0[nbox] = ly - h / 2; BY1[nbox] = ly + h / 2
        printf "%.6g %.6g %s\n", xlo + lx * (xhi - xlo), 10 ^ (log10(lo[dt]) + ly * (log10(hi[dt]) - log10(lo[dt]))), P_k[dt, i] > f
    }
    close(f)
    for (i = 1; i <= n; i++) {
        file = dir "/" fname(b "--" P_k[dt, i]) ".dat"
        print P_x[dt, i], on_log_axis(P_e[dt, i], lo[dt], hi[dt]) > file; close(file)
        if (is_nonfinite(P_e[dt, i])) { print P_x[dt, i], hi[dt] > (dir "/" b "--nonfinite.dat"); nnf[b, "all"]++ }
        files[b] = add(files[b], file); names[b] = add(names[b], P_k[dt, i]); idx[b] = add(idx[b], color[P_k[dt, i]])
    }
    close(dir "/" b "--nonfinite.dat")
}

function label_fits(x, y, w, h,   i) {
    if (x < 0.005 || x + w > 0.995 || y - h / 2 < 0.005 || y + h / 2 > 0.995) return 0
    for (i = 1; i <= nbox; i++)
        if (x < BX1[i] && x + w > BX0[i] && y - h / 2 < BY1[i] && y + h / 2 > BY0[i]) return 0
    return 1
}
