# Settings shared by every figure. The caller (scripts/plots.sh) sets:
#   vars  the figure's settings file (plots/data/NAME.gp: title, names, limits), loaded by each
#         figure script before this file;  data  its data file (one block per series)
#   out   output path without extension;  term  "png" or "svg"
#   W, H  figure size in pixels (set by each figure script before loading this file)
if (term eq "svg") {
    set terminal svg size W, H dynamic font "DejaVu Sans,12" background "#ffffff"
    set output out . ".svg"
} else {
    set terminal pngcairo size W, H font "DejaVu Sans,11" background "#ffffff"
    set output out . ".png"
}
# kernel names are full of dashes and underscores: no enhanced-text markup
set termoption noenhanced
set encoding utf8
set border 3 lw 1.2
set tics nomirror out
set grid lw 0.6 lc rgb "#e4e4e4"
set key noautotitle

# At most 8 series a panel, each with its own colour (colour-blind-safe, no yellow) and point
# type; a peer library's kernel (ext-*) is drawn dashed.
palette = "#0072B2 #D55E00 #009E73 #CC79A7 #000000 #56B4E9 #E69F00 #882255"
points = "7 5 9 13 11 15 4 6"
kcolor(i) = word(palette, 1 + int(i) % 8)
kpoint(i) = word(points, 1 + int(i) % 8) + 0
# One colour and point type per kernel in every figure: from its place in allk (every kernel of
# the results folder, sorted; written by lnbench report --figure-data), the pair (k % 8, (k / 8 +
# k) % 8), distinct for 64 kernels; a name not in allk falls back to its place in the figure.
if (!exists("allk")) allk = ""
kplace(name, j) = j > words(allk) ? -1 : word(allk, j) eq name ? j - 1 : kplace(name, j + 1)
kid(name, i) = (kplace(name, 1) >= 0 ? kplace(name, 1) : i)
kc(name, i) = word(palette, 1 + int(kid(name, i)) % 8)
kp(name, i) = word(points, 1 + int(kid(name, i) / 8 + kid(name, i)) % 8) + 0
peer(name) = strstrt(name, "ext-") == 1
kdash(name) = peer(name) ? 2 : 1
# Non-finite values are drawn on the top line of a log axis, ringed in red.
NONFINITE = "#d00000"

# Log-axis tics as powers of ten with Unicode superscripts (enhanced text is off). Modes:
# 0 plain; 1 the lowest decade labelled "0" (exact results are drawn there) and the highest
# "inf/NaN" (non-finite results are drawn there); 2 the same tics without labels.
SUP = "⁰ ¹ ² ³ ⁴ ⁵ ⁶ ⁷ ⁸ ⁹"
sup(n) = n < 0 ? "⁻" . sup(-n) : n < 10 ? word(SUP, n + 1) : sup(int(n / 10)) . word(SUP, n % 10 + 1)
pow10(e) = e == 0 ? "1" : e == 1 ? "10" : "10" . sup(e)
decade(v) = floor(log10(v) + 1e-9)
MAXTICS = 10
ticstep(lo, hi) = 1 + int((decade(hi) - decade(lo)) / MAXTICS)
ticlabel(e, lo, hi, mode) = mode == 2 ? "" : mode == 0 ? pow10(e) : \
    e == decade(lo) ? "≤" . pow10(e) : e == decade(hi) ? "inf/NaN" : pow10(e)
tic(e, lo, hi, mode) = sprintf('"%s" 1e%d', ticlabel(e, lo, hi, mode), e)
ticlist(e, lo, hi, mode, s) = e > decade(hi) ? "" : \
    tic(e, lo, hi, mode) . (e + s <= decade(hi) ? ", " : "") . ticlist(e + s, lo, hi, mode, s)
logtics(axis, lo, hi, mode) = sprintf("set %stics (%s%s)", axis, ticlist(decade(lo), lo, hi, mode, ticstep(lo, hi)), \
    mode && (decade(hi) - decade(lo)) % ticstep(lo, hi) ? ", " . tic(decade(hi), lo, hi, mode) : "")
