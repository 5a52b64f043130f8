#!/bin/sh
# Keeps a copy of a run's result files under RESULTS/history/<machine>/<date>-<commit>/, the
# machine named by its CPU model and ISA (lnbench report --machine-id), so that the report can
# draw a kernel's GB/s across the commits run on this machine.
#   scripts/history.sh [RESULTS_DIR]        (default: results)
set -e
here=$(cd "$(dirname "$0")" && pwd)
res=${1:-results}
lnbench=${LNBENCH:-$here/../build/lnbench}
meta=$res/bench.csv.meta.json
[ -s "$meta" ] || meta=$res/accuracy.csv.meta.json
if [ ! -s "$meta" ]; then
    echo "history: no results in $res/ to keep" >&2
    exit 1
fi
field() { sed -n "s/^ *\"$1\": *\"\\([^\"]*\\)\".*/\\1/p" "$meta" | head -n 1; }
id=$("$lnbench" report --machine-id "$res")
stamp=$(field date | tr -d ':')
dest=$res/history/$id/$stamp-$(field git_commit)
mkdir -p "$dest"
for f in bench.csv bench.json accuracy.csv conditioning.csv eps.csv; do
    [ -f "$res/$f" ] && cp "$res/$f" "$dest/"
    [ -f "$res/$f.meta.json" ] && cp "$res/$f.meta.json" "$dest/"
done
# the tuning the run used (bench --tuning: its metadata names the file), so that the report of the
# kept run still finds it (in tuning/ beside the results)
tuning=$(sed -n 's/^ *"tuning": *"\([^"]*\) (tuned .*/\1/p' "$res/bench.csv.meta.json" 2>/dev/null | head -n 1)
if [ -n "$tuning" ] && [ -f "$tuning" ]; then
    mkdir -p "$dest/tuning"
    cp "$tuning" "$dest/tuning/"
fi
# the op runs of make bench-ops, read with the folder (results/README.md)
for f in "$res"/ops/accuracy-*.csv* "$res"/ops/bench-*; do
    [ -f "$f" ] || continue
    mkdir -p "$dest/ops"
    cp "$f" "$dest/ops/"
done
echo "history: results kept in $dest/"
