#!/bin/sh
# Writes RESULTS_DIR/REPORT.md from a run's results: machine metadata, summary tables, the
# figures of scripts/plots.sh (run it first; `make report` does) and what each one shows.
#   scripts/report.sh [RESULTS_DIR]        (default: results)
set -e
here=$(cd "$(dirname "$0")" && pwd)
res=${1:-results}
data=$res/plots/data
if [ ! -d "$data" ]; then
    echo "report: no figures in $res/plots/ yet: run 'make plots' (or scripts/plots.sh $res) first" >&2
    exit 1
fi
tab=$(printf '\t')
part() { p=$1; shift; awk -F "$tab" -f "$here/lnplot.awk" -f "$here/report.awk" -v part="$p" "$@"; }
# figure NAME CAPTION: the PNG (relative to REPORT.md) with a link to its SVG
figure() { printf '![%s](plots/%s.png)\n\n*%s* ([SVG](plots/%s.svg))\n\n' "$1" "$1" "$2" "$1"; }
has() { [ -s "$res/plots/$1.png" ]; }
keys() { cut -f "$2" "$data/$1.tsv" | sort -u; }
# per_dtype FIGURE CAPTION ABSENT: for each dtype with a FIGURE-dtype image, its sentences and
# the image (CAPTION: %s is the dtype); ABSENT is said when there is none.
per_dtype() {
    drew=""
    for dt in $(keys "$1" 1); do
        has "$1-$dt" || continue
        printf '### %s\n\n' "$dt"
        part "$1" -v key="$dt" "$data/$1.tsv"
        echo
        figure "$1-$dt" "$(printf "$2" "$dt")"
        drew=1
    done
    [ -n "$drew" ] || printf '%s\n\n' "$3"
}

tmp=$res/.REPORT.md.tmp
trap 'rm -f "$tmp"' EXIT
{
    echo "# lnbench report"
    echo
    printf 'Made by scripts/report.sh on %s from:' "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
    for f in accuracy conditioning eps bench; do [ -s "$res/$f.csv" ] && printf ' %s.csv' "$f"; done
    echo ". Figures in plots/ (PNG and SVG), tidy tables behind them in plots/data/."
    echo
    echo "## Machine and run"
    echo
    set -- "$res"/*.meta.json
    if [ -e "$1" ]; then part meta "$@"; else echo "No metadata files (*.meta.json) found."; fi
    echo

    echo "## Throughput"
    echo
    echo "GB/s = 1e9 bytes per second of x read plus y written (gamma and beta not counted); the"
    echo "probes stream the same bytes (probe-copy: ordinary stores, probe-stream: non-temporal stores)."
    echo "Columns: GB/s at each row length D, the median over D, the best fraction of probe-copy reached."
    echo
    for g in $(keys throughput 1); do
        for dt in $(awk -F "$tab" -v g="$g" '$1 == g { print $2 }' "$data/throughput.tsv" | sort -u); do
            echo "### $dt, $g"
            echo
            part throughput -v key="$g$tab$dt" "$data/throughput.tsv"
            echo
            has "throughput-$g-$dt" && figure "throughput-$g-$dt" \
                "Throughput vs D, $dt, $g: one line per kernel (median, bars from fastest to slowest repetition); dashed: the streaming probes, the attainable rate."
        done
    done
    [ -s "$data/throughput.tsv" ] || { echo "No bench.csv in this run."; echo; }

    echo "## Accuracy by input distribution"
    echo
    echo "max_ulp: largest error of an output in ulps of the dtype (0.5 = correctly rounded); max_norm:"
    echo "max|y - y_exact| / max|y_exact| per row, in units of the dtype's unit roundoff u. Exact results"
    echo "are drawn on the line marked 0, non-finite ones on the line marked inf/NaN, ringed in red."
    echo
    per_dtype accuracy "Max ulp (top), mean ulp (middle) and normwise (bottom) error of each %s kernel per input distribution, worst over D and eps." \
        "No accuracy.csv in this run."

    echo "## Conditioning: error vs offset"
    echo
    echo "Rows drawn from normal(M, 1): the variance's condition number grows like M, and algorithms"
    echo "that subtract large sums (one-pass E[x^2] - E[x]^2) lose all their digits first."
    echo
    per_dtype conditioning "Normwise error vs offset M for each %s kernel (log-log): where each algorithm breaks." \
        "No offset:M sweep in this run (make sweeps)."

    echo "## eps on degenerate rows"
    echo
    echo "Constant, zero and tiny rows have (almost) no variance, so eps decides the output; a kernel"
    echo "that loses eps (1e-12 underflows in f16) or gets a negative variance returns NaN or Inf."
    echo
    per_dtype eps "Max ulp error (top) and count of non-finite outputs (bottom) vs eps, %s kernels, per row type." \
        "No eps sweep in this run (make sweeps)."

    echo "## Speed vs accuracy"
    echo
    per_dtype pareto "Each %s kernel: memory-resident throughput vs worst normwise error on offset:1e4..1e6 rows; dashed: the Pareto frontier." \
        "Needs both bench.csv (memory-resident rows) and accuracy rows on offset:1e4..1e6."
} >"$tmp"
mv "$tmp" "$res/REPORT.md"
trap - EXIT
echo "report: wrote $res/REPORT.md"
