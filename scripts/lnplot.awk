# Shared awk functions for the plot and report scripts (POSIX awk; mawk is enough).
# Result CSVs are read by column name, never by position: call csv_header() on each file's first
# line (FNR == 1), then get("max_ulp") returns that column of the current row ("" if absent).

function csv_header(   i, name) {
    split("", C)
    for (i = 1; i <= NF; i++) {
        name = $i
        gsub(/^[ "]+|[ "\r]+$/, "", name)
        C[name] = i
    }
}

function has(name) { return (name in C) }

function get(name,   v) {
    if (!(name in C)) return ""
    v = $(C[name])
    gsub(/^[ "]+|[ "\r]+$/, "", v)
    return v
}

# printf's %g writes "inf", "-inf", "nan" (or "-nan"); anything else numeric is finite.
function is_nonfinite(v) { return tolower(v) ~ /^[-+]?(inf|infinity|nan)$/ }
function is_nan(v) { return tolower(v) ~ /^[-+]?nan$/ }

# Worse of two error values: NaN > Inf > larger finite > smaller finite; "" means no value.
function worse(a, b) {
    if (a == "") return b
    if (b == "") return a
    if (is_nan(a) || is_nan(b)) return "nan"
    if (is_nonfinite(a) || is_nonfinite(b)) return "inf"
    return (b + 0 > a + 0) ? b : a
}

function max_num(a, b) { return (a == "" || b + 0 > a + 0) ? b : a }

# A distribution spec is family[:param], e.g. "offset:1e4" (M = 1e4), "outlier:1000", "normal".
function dist_family(d) { sub(/:.*/, "", d); return d }
function dist_param(d) { return (d ~ /:/) ? substr(d, index(d, ":") + 1) + 0 : 0 }

# Display order of distributions: benign first, then growing difficulty, then the eps-driven
# and range cases; unknown families after those, in name order (sort -k1n -k2g -k3).
function dist_rank(d,   f, order, n, i, names) {
    f = dist_family(d)
    order = "normal uniform shifted heavy outlier offset exact const zero tiny huge file"
    n = split(order, names, " ")
    for (i = 1; i <= n; i++) if (names[i] == f) return i
    return n + 1
}

# Numbers for tables and sentences: 3 significant digits, non-finite values as written.
function fmt(v) {
    if (v == "") return "-"
    if (is_nonfinite(v)) return tolower(v)
    return sprintf("%.3g", v)
}

# Powers of ten as "1e4", others as %g: the way offset distributions are written.
function fmt_exp(v,   e) {
    if (v + 0 <= 0) return sprintf("%g", v)
    e = log(v) / log(10)
    e = (e < 0) ? -int(-e + 0.5) : int(e + 0.5)   # nearest power of ten
    if ((e < 0 || e > 2) && sprintf("%.6g", v) == sprintf("%.6g", 10 ^ e)) return "1e" e
    return sprintf("%g", v)
}

function log10(v) { return log(v) / log(10) }

# Log-axis range [floor, top] around the finite positive values lo..hi: one decade of room
# below for exact zeros (drawn at floor) and above for non-finite values (drawn at top).
function log_floor(lo) { return 10 ^ (int(log10(lo) + 100) - 100 - 1) }
function log_top(hi) { return 10 ^ (int(log10(hi) + 100) - 100 + 2) }

# Value as drawn on a log axis with those limits.
function on_log_axis(v, floor, top) {
    if (is_nonfinite(v)) return top
    if (v + 0 <= floor) return floor
    return v + 0
}
