#!/bin/sh
# Runs each cmocka test binary given and prints one closing line with the totals.
# LNBENCH_RUN: a command each binary runs under (scripts/run-aarch64 for a cross build), each
# binary's wall time then printed after it. LNBENCH_VLS: SVE vector lengths in bits: the list runs
# at the first length (LNBENCH_VL set), and at each further one (LNBENCH_VL_REPEAT=1 too) the
# binaries named in LNBENCH_VL_TESTS (their tests that cannot depend on the vector length skip:
# tests/vl_repeat.h); the closing line sums them all. The lengths run side by side (each under
# its own emulator process, one core each), their outputs shown in order once all are done.

# run_at VL FIRST BINARY...: the binaries at one vector length (native: none); its output, then a
# last line "totals PASSED FAILED BROKEN..."
run_at() {
    vl=$1 first=$2 passed=0 failed=0 broken=""
    shift 2
    if [ "$vl" != native ]; then
        export LNBENCH_VL=$vl
        [ "$first" = 1 ] || export LNBENCH_VL_REPEAT=1
        echo "== tests at SVE vector length $vl bits"
    fi
    for t in "$@"; do
        if [ "$first" = 0 ]; then
            case " $LNBENCH_VL_TESTS " in
            *" $(basename "$t") "*) ;;
            *) continue ;;
            esac
        fi
        start=$(date +%s)
        out=$(CMOCKA_MESSAGE_OUTPUT=stdout $LNBENCH_RUN "$t" 2>&1)
        status=$?
        printf '%s\n' "$out"
        [ -n "$LNBENCH_RUN" ] && echo "== $(basename "$t")${LNBENCH_VL:+ at $vl bits}: $(($(date +%s) - start)) s"
        p=$(printf '%s\n' "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | tail -n 1)
        f=$(printf '%s\n' "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | tail -n 1)
        passed=$((passed + ${p:-0}))
        failed=$((failed + ${f:-0}))
        if [ "$status" != 0 ] && [ -z "$f" ]; then
            broken="$broken $t${LNBENCH_VL:+@$vl}"
            failed=$((failed + 1))
        fi
    done
    echo "totals $passed $failed$broken"
}

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT INT TERM
k=0
for vl in ${LNBENCH_VLS:-native}; do
    k=$((k + 1))
    [ $k = 1 ] && first_vl=$vl && continue
    (run_at "$vl" 0 "$@" > "$dir/$k" 2>&1) &
done
# the first length in the foreground, its output as it comes
run_at "$first_vl" 1 "$@" 2>&1 | tee "$dir/1" | sed -u '/^totals /d'
wait
passed=0 failed=0 broken=""
i=0
while [ $i -lt $k ]; do
    i=$((i + 1))
    [ $i = 1 ] || sed '$d' "$dir/$i"
    last=$(tail -n 1 "$dir/$i")
    case $last in
    "totals "*)
        set -- $last
        passed=$((passed + $2)) failed=$((failed + $3))
        shift 3
        broken="$broken $*"
        ;;
    *) failed=$((failed + 1)) broken="$broken (run $i ended early)" ;;
    esac
done
broken=$(echo $broken)
[ -n "$broken" ] && echo "crashed or failed outside a test: $broken"
echo "tests: $passed passed, $failed failed"
[ "$failed" = 0 ]
