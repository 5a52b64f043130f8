#!/bin/sh
# `make compare`: lnbench compare on two runs, or on two builds of lnbench timed here.
#   scripts/compare.sh BASE NEW [RESULTS_DIR]
# BASE, NEW: results folders or bench.json files, compared as they are. A BASE that is neither
# but a git revision is built in a temporary git worktree (removed after); then both binaries,
# the revision's and this tree's build/lnbench, time the same cases here, alternating one
# repetition each (the order swapped every round, so drift in the machine's speed falls on both),
# COMPARE_REPS rounds of `lnbench bench COMPARE_BENCH_ARGS`, and the two sets of repetitions are
# compared; the kernels compare flags (slower, faster, inconclusive) are timed COMPARE_REPS rounds
# more, alternated likewise, and compared again on all their repetitions (COMPARE_RETIME=0: not). Writes compare.csv and compare.png/.svg (RESULTS_DIR/compare/ for revisions).
# COMPARE_FLAGS: lnbench compare's options. COMPARE_LOCK=FILE: the timing (not the build) holds
# flock(1) on FILE, so that it never overlaps another benchmark on a shared machine.
# Exit status: lnbench compare's (1: a kernel slower; 3: inconclusive; 2: bad input).
set -e
here=$(cd "$(dirname "$0")" && pwd)
base=$1
new=$2
res=${3:-results}
lnbench=${LNBENCH:-$here/../build/lnbench}
reps=${COMPARE_REPS:-5}
bench_args=${COMPARE_BENCH_ARGS:---D 768,4096 --bytes 1M,256M}

figure() {   # compare.csv -> compare.png and compare.svg beside it
    command -v gnuplot >/dev/null 2>&1 || return 0
    for term in png svg; do
        (cd "$here/.." && gnuplot -e "csv='$1'; out='${1%.csv}'; term='$term'" scripts/compare.gp) ||
            echo "compare: gnuplot failed on ${1%.csv}.$term" >&2
    done
}

if [ -e "$base" ]; then
    status=0
    # shellcheck disable=SC2086
    "$lnbench" compare $COMPARE_FLAGS "$base" "$new" || status=$?
    if [ "$status" -le 1 ] || [ "$status" = 3 ]; then
        csv=$new/compare.csv
        [ -d "$new" ] || csv=$(dirname "$new")/compare.csv
        figure "$csv"
    fi
    exit "$status"
fi

rev=$(git rev-parse --verify --quiet "$base^{commit}") || {
    echo "compare: '$base' is neither a results folder, a bench.json nor a git revision" >&2
    exit 2
}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/lnbench-compare.XXXXXX")
cleanup() { git worktree remove --force "$tmp/src" 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT INT TERM
git worktree add --quiet --detach "$tmp/src" "$rev"
echo "compare: building $base ($(git rev-parse --short "$rev")) in a temporary worktree" >&2
nice -n 10 make -C "$tmp/src" -j2 build/lnbench >"$tmp/build.log" 2>&1 || {
    tail -n 20 "$tmp/build.log" >&2
    echo "compare: $base does not build" >&2
    exit 2
}
out=$res/compare
mkdir -p "$out"
rm -rf "$out/base" "$out/new"
if [ -n "$COMPARE_LOCK" ]; then
    exec 9>"$COMPARE_LOCK"
    flock 9
fi
# rounds FROM..TO of both binaries, one repetition each, the order swapped every round (drift in
# the machine's speed falls on both sides); extra arguments go to lnbench bench (--kernels ...)
rounds() {
    i=$1 last=$2
    shift 2
    while [ "$i" -le "$last" ]; do
        if [ $((i % 2)) = 1 ]; then order="base new"; else order="new base"; fi
        for side in $order; do
            bin=$lnbench
            [ "$side" = base ] && bin=$tmp/src/build/lnbench
            echo "compare: round $i of $last, $side" >&2
            # shellcheck disable=SC2086
            "$bin" bench --quiet $bench_args "$@" --benchmark_repetitions=1 --out "$out/$side/run$i/bench.csv" \
                >/dev/null 2>>"$tmp/bench.log"
        done
        i=$((i + 1))
    done
}
rounds 1 "$reps"
status=0
# shellcheck disable=SC2086
"$lnbench" compare $COMPARE_FLAGS --out "$out/compare.csv" "$out/base" "$out/new" >"$tmp/first" || status=$?
# A flagged kernel (slower, faster or inconclusive) is timed again, alternated, as many rounds
# more, before the verdict: a one-off disturbance of the shared machine does not make a verdict,
# and the pooled repetitions can test what the first ones could not.
flagged=$(awk -F, 'NR > 1 && $1 !~ /^probe/ && ($11 == "slower" || $11 == "faster" || $11 == "inconclusive") {print $1}' \
    "$out/compare.csv" | sort -u | paste -sd, -)
if { [ "$status" = 1 ] || [ "$status" = 3 ]; } && [ -n "$flagged" ] && [ "${COMPARE_RETIME:-1}" != 0 ]; then
    echo "compare: first verdict exit $status; timing the flagged kernels again ($reps rounds, alternated): $flagged" >&2
    rounds $((reps + 1)) $((2 * reps)) --kernels "$flagged"
    status=0
    # shellcheck disable=SC2086
    "$lnbench" compare $COMPARE_FLAGS --out "$out/compare.csv" "$out/base" "$out/new" || status=$?
else
    cat "$tmp/first"
fi
[ -n "$COMPARE_LOCK" ] && flock -u 9
{ [ "$status" -le 1 ] || [ "$status" = 3 ]; } && figure "$out/compare.csv"
exit "$status"
