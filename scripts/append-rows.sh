#!/bin/sh
# Appends the data rows of CSV files to DEST, whose header they must share (the op runs of
# `make bench` into results/accuracy.csv and bench.csv: their op column tells the rows apart).
# DEST is rewritten whole or not at all (a temporary file beside it, then renamed).
#   scripts/append-rows.sh DEST SRC...
set -e
dest=$1
shift
header=$(head -n 1 "$dest")
for f in "$@"; do
    if [ "$(head -n 1 "$f")" != "$header" ]; then
        echo "append-rows: $f has another header than $dest" >&2
        exit 1
    fi
done
tmp=$dest.tmp.$$
{ cat "$dest"; for f in "$@"; do tail -n +2 "$f"; done; } >"$tmp"
mv "$tmp" "$dest"
