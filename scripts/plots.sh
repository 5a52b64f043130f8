#!/bin/sh
# Draws the figures (PNG and SVG) of a run's results:
#   scripts/plots.sh [RESULTS_DIR]        (default: results; figures in RESULTS_DIR/plots/)
# `lnbench report --figure-data` computes the tables behind the figures (plots/data/: per
# figure a data file, a settings file, and figures.txt listing what the data supports), then
# gnuplot draws each with scripts/<kind>.gp. Only files this script wrote are ever removed:
# they are listed in plots/.plots-written. HISTORY_KERNEL=name picks the kernel of the history
# figure (drawn when RESULTS_DIR/history/<this machine>/ holds two runs or more).
set -e
here=$(cd "$(dirname "$0")" && pwd)
res=${1:-results}
lnbench=${LNBENCH:-$here/../build/lnbench}
out=$res/plots
data=$out/data

if ! command -v gnuplot >/dev/null 2>&1; then
    echo "plots: gnuplot not found (Debian package gnuplot-nox; scripts/install-deps.sh installs it)" >&2
    exit 1
fi
if [ ! -x "$lnbench" ]; then
    echo "plots: $lnbench not built (make build/lnbench, or set LNBENCH)" >&2
    exit 1
fi
mkdir -p "$out"
manifest=$out/.plots-written
if [ -f "$manifest" ]; then
    while read -r f; do rm -f "$out/$f"; done <"$manifest"
    rm -f "$manifest"
fi
"$lnbench" report --figure-data ${HISTORY_KERNEL:+--history-kernel "$HISTORY_KERNEL"} "$res"

# gnuplot's start-up dominates: the PNG and the SVG of a figure are drawn at once
drawn=""
failed=""
while read -r name script; do
    for term in png svg; do
        (cd "$here/.." && gnuplot -e "vars='$data/$name.gp'; data='$data/$name.dat'; out='$out/$name'; term='$term'" \
            "scripts/$script.gp" >"$data/$name.$term.log" 2>&1 || echo failed >>"$data/$name.$term.log") &
    done
    wait
    for term in png svg; do
        if grep -q '^failed$' "$data/$name.$term.log"; then
            cat "$data/$name.$term.log" >&2
            failed="$failed $name.$term"
        fi
    done
    drawn="$drawn $name"
done <"$data/figures.txt"
{
    for b in $drawn; do echo "$b.png"; echo "$b.svg"; done
    (cd "$out" && ls data/* 2>/dev/null)
} >"$manifest"
if [ -n "$failed" ]; then
    echo "plots: gnuplot failed on$failed" >&2
    exit 1
fi
echo "plots: wrote $(echo "$drawn" | wc -w | tr -d ' ') figures (.png and .svg) to $out/:$drawn"
