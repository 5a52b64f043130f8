#!/bin/sh
# Runs each cmocka test binary given and prints one closing line with the totals.
# LNBENCH_RUN: a command each binary runs under (scripts/run-aarch64 for a cross build);
# LNBENCH_VLS: SVE vector lengths in bits: the whole list runs once per length (LNBENCH_VL set
# for it), and the closing line sums them all.
passed=0 failed=0 broken=""
for vl in ${LNBENCH_VLS:-native}; do
    if [ "$vl" != native ]; then
        export LNBENCH_VL=$vl
        echo "== tests at SVE vector length $vl bits"
    fi
    for t in "$@"; do
        out=$(CMOCKA_MESSAGE_OUTPUT=stdout $LNBENCH_RUN "$t" 2>&1)
        status=$?
        printf '%s\n' "$out"
        p=$(printf '%s\n' "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | tail -n 1)
        f=$(printf '%s\n' "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | tail -n 1)
        passed=$((passed + ${p:-0}))
        failed=$((failed + ${f:-0}))
        if [ "$status" != 0 ] && [ -z "$f" ]; then
            broken="$broken $t${LNBENCH_VL:+@$vl}"
            failed=$((failed + 1))
        fi
    done
done
[ -n "$broken" ] && echo "crashed or failed outside a test:$broken"
echo "tests: $passed passed, $failed failed"
[ "$failed" = 0 ]
