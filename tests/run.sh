#!/bin/sh
# Runs each cmocka test binary given and prints one closing line with the totals.
passed=0 failed=0 broken=""
for t in "$@"; do
    out=$(CMOCKA_MESSAGE_OUTPUT=stdout "$t" 2>&1)
    status=$?
    printf '%s\n' "$out"
    p=$(printf '%s\n' "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | tail -n 1)
    f=$(printf '%s\n' "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | tail -n 1)
    passed=$((passed + ${p:-0}))
    failed=$((failed + ${f:-0}))
    if [ "$status" != 0 ] && [ -z "$f" ]; then broken="$broken $t"; failed=$((failed + 1)); fi
done
[ -n "$broken" ] && echo "crashed or failed outside a test:$broken"
echo "tests: $passed passed, $failed failed"
[ "$failed" = 0 ]
