# Settings shared by every figure. The caller (scripts/plots.sh) sets:
#   vars  a gnuplot file of settings derived from the data (series files, titles, limits)
#   out   output path without extension;  term  "png" or "svg"
#   W, H  figure size in pixels (set by each figure script before loading this file)
load vars
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

# One colour and point type per kernel, from its index (series.awk: its rank among the kernels
# of its dtype seen in the run), so a kernel looks the same in every figure. Colour-blind-safe
# colours first.
palette = "#0072B2 #D55E00 #009E73 #CC79A7 #E69F00 #56B4E9 #332288 #882255 #117733 #999933 #AA4499 #44AA99 #661100 #E31A1C #6A3D9A #B8860B #2F4F4F #FF7F00 #7570B3 #E7298A #66A61E #A6761D #8C564B #1F78B4"
points = "7 5 9 13 11 15 4 6 8 12 10 14"
kcolor(i) = word(palette, 1 + int(i) % words(palette))
kpoint(i) = word(points, 1 + int(int(i) / words(palette) + i) % words(points)) + 0
probecolor(i) = word("#000000 #777777 #aaaaaa", 1 + (int(i) - 1) % 3)
# Non-finite values are drawn on the top line of a log axis, ringed in red.
NONFINITE = "#d00000"

# Log-axis tics as powers of ten with Unicode superscripts (enhanced text is off). Modes:
# 0 plain; 1 the lowest decade labelled "0" (exact results are drawn there) and the highest
# "inf/NaN" (non-finite results are drawn there); 3 the same but the lowest labelled "<=10^n"
# (smaller errors were drawn there too); 2 the same tics without labels (for a panel that shares
# the axis of its neighbour). At most about MAXTICS labels.
SUP = "⁰ ¹ ² ³ ⁴ ⁵ ⁶ ⁷ ⁸ ⁹"
sup(n) = n < 0 ? "⁻" . sup(-n) : n < 10 ? word(SUP, n + 1) : sup(int(n / 10)) . word(SUP, n % 10 + 1)
pow10(e) = e == 0 ? "1" : e == 1 ? "10" : "10" . sup(e)
decade(v) = floor(log10(v) + 1e-9)
MAXTICS = 11
ticstep(lo, hi) = 1 + int((decade(hi) - decade(lo)) / MAXTICS)
ticlabel(e, lo, hi, mode) = mode == 2 ? "" : mode == 0 ? pow10(e) : \
    e == decade(lo) ? (mode == 3 ? "≤" . pow10(e) : "0") : e == decade(hi) ? "inf/NaN" : pow10(e)
tic(e, lo, hi, mode) = sprintf('"%s" 1e%d', ticlabel(e, lo, hi, mode), e)
ticlist(e, lo, hi, mode, s) = e > decade(hi) ? "" : \
    tic(e, lo, hi, mode) . (e + s <= decade(hi) ? ", " : "") . ticlist(e + s, lo, hi, mode, s)
logtics(axis, lo, hi, mode) = sprintf("set %stics (%s%s)", axis, ticlist(decade(lo), lo, hi, mode, ticstep(lo, hi)), \
    mode && (decade(hi) - decade(lo)) % ticstep(lo, hi) ? ", " . tic(decade(hi), lo, hi, mode) : "")
