#!/bin/sh
# Draws the figures (PNG and SVG) from the result CSVs of a run:
#   scripts/plots.sh [RESULTS_DIR [OUT_DIR]]      (defaults: results, RESULTS_DIR/plots)
# Reads, each if present: accuracy.csv, conditioning.csv (offset:M sweep), eps.csv (eps sweep
# on const/zero/tiny rows), bench.csv. Figures whose data is absent are skipped with a message.
# The tidy tables behind the figures are kept in OUT_DIR/data/ (scripts/report.sh reads them).
set -e
here=$(cd "$(dirname "$0")" && pwd)
res=${1:-results}
out=${2:-$res/plots}
tab=$(printf '\t')

if ! command -v gnuplot >/dev/null 2>&1; then
    echo "plots: gnuplot not found (Debian package gnuplot-nox; scripts/install-deps.sh installs it)" >&2
    exit 1
fi
found=""
for f in accuracy conditioning eps bench; do [ -s "$res/$f.csv" ] && found="$found $f"; done
if [ -z "$found" ]; then
    echo "plots: no results in $res/ yet (accuracy.csv, bench.csv...): run 'make bench' first" >&2
    exit 1
fi

mkdir -p "$out"
out=$(cd "$out" && pwd)
data=$out/data
rm -rf "$data"
rm -f "$out"/*.png "$out"/*.svg
mkdir -p "$data/series"

csv() { [ -s "$res/$1.csv" ] && echo "$res/$1.csv" || true; }
acc=$(csv accuracy); cond=$(csv conditioning); eps=$(csv eps); bench=$(csv bench)
tidy() { awk -F, -f "$here/lnplot.awk" -f "$here/tidy.awk" -v table="$@"; }

# Every kernel seen in the run, sorted by dtype and name: its rank in its dtype is its colour.
for f in $acc $cond $eps $bench; do
    tidy kernels "$f"
done | sort -u >"$data/kernels.txt"

: >"$data/throughput.tsv"; : >"$data/accuracy.tsv"; : >"$data/conditioning.tsv"; : >"$data/eps.tsv"; : >"$data/pareto.tsv"
[ -n "$bench" ] && tidy throughput "$bench" | sort -t "$tab" -k1,1 -k2,2 -k3,3 -k4,4n >"$data/throughput.tsv"
[ -n "$acc" ] && tidy accuracy "$acc" | sort -t "$tab" -k1,1 -k2,2 -k4,4n -k5,5g -k3,3 >"$data/accuracy.tsv"
[ -n "$cond$acc" ] && tidy conditioning $cond $acc | sort -t "$tab" -k1,1 -k2,2 -k4,4g >"$data/conditioning.tsv"
[ -n "$eps$acc" ] && tidy eps $eps $acc | sort -t "$tab" -k1,1 -k4,4 -k2,2 -k5,5g >"$data/eps.tsv"
[ -s "$data/throughput.tsv" ] && [ -n "$cond$acc" ] &&
    tidy pareto "$data/throughput.tsv" $acc $cond | sort -t "$tab" -k1,1 -k3,3g >"$data/pareto.tsv"

skip() { echo "plots: $1 figure skipped: $2" >&2; }
[ -s "$data/throughput.tsv" ] || skip throughput "no $res/bench.csv (make bench)"
[ -s "$data/accuracy.tsv" ] || skip accuracy "no $res/accuracy.csv (make bench)"
[ -s "$data/conditioning.tsv" ] || skip conditioning "no offset:M rows in $res/conditioning.csv or accuracy.csv (make sweeps)"
[ -s "$data/eps.tsv" ] || skip eps "no const/zero/tiny rows in $res/eps.csv or accuracy.csv (make sweeps)"
[ -s "$data/pareto.tsv" ] || skip pareto "needs memory-resident bench.csv rows and offset:1e4..1e6 accuracy rows"

# gnuplot's start-up dominates: draw every figure in both formats at once
drawn=""
for fig in throughput accuracy conditioning eps pareto; do
    [ -s "$data/$fig.tsv" ] || continue
    figs=$(awk -f "$here/lnplot.awk" -f "$here/series.awk" -v fig=$fig -v dir="$data/series" \
        "$data/kernels.txt" "$data/$fig.tsv" "$data/$fig.tsv")
    for b in $figs; do
        for term in png svg; do
            (cd "$here/.." && gnuplot -e "vars='$data/series/$b.gp'; out='$out/$b'; term='$term'" \
                "scripts/$fig.gp" >"$data/$b.$term.log" 2>&1 || echo failed >>"$data/$b.$term.log") &
        done
        drawn="$drawn $b"
    done
done
wait
for b in $drawn; do
    for term in png svg; do
        if grep -q '^failed$' "$data/$b.$term.log"; then
            cat "$data/$b.$term.log" >&2
            echo "plots: gnuplot failed on $b.$term" >&2
            exit 1
        fi
    done
done
echo "plots: wrote$(echo "$drawn" | wc -w | tr -d ' ' | sed 's/^/ /') figures (.png and .svg) to $out/:$drawn"
