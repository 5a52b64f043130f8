#!/bin/sh
# The other operators' runs of `make bench` (make bench-ops): per op an accuracy sweep and a
# timing run of its kernels, each written whole to its own files in RESULTS/ops/
# (accuracy-OP.csv, bench-OP.csv, bench-OP.json, their .meta.json). A rerun replaces them;
# accuracy.csv and bench.csv beside ops/ (the LayerNorm runs) are left alone. lnbench report,
# summary, merge and compare read a results folder as its files plus those of its ops/.
#   scripts/bench-ops.sh RESULTS_DIR
# Environment: LNBENCH (the binary), BENCH_OPS (the ops), BENCH_THREADS (the rmsnorm run's
# --threads; the others run on 1), ACCURACY_FLAGS, TIMING_FLAGS (the runs' other flags).
set -e -f # -f: the flags hold kernel globs, never file names
here=$(cd "$(dirname "$0")" && pwd)
res=${1:-results}
lnbench=${LNBENCH:-$here/../build/lnbench}
mkdir -p "$res/ops"
for op in ${BENCH_OPS:-rmsnorm layernorm-bwd rmsnorm-bwd}; do
    threads=1
    [ "$op" = rmsnorm ] && threads=${BENCH_THREADS:-1}
    echo "bench-ops: $op (accuracy, timing at --threads $threads)"
    # shellcheck disable=SC2086 # the flags are words
    "$lnbench" accuracy --op "$op" --quiet $ACCURACY_FLAGS --out "$res/ops/accuracy-$op.csv" >/dev/null
    # shellcheck disable=SC2086
    "$lnbench" bench --op "$op" --quiet $TIMING_FLAGS --threads "$threads" --out "$res/ops/bench-$op.csv" >/dev/null
done
