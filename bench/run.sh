#!/bin/sh
# Runs every benchmark (bench/bench_*.sh) against the built binary given as $1.
# Each prints ratios against a baseline it measures in the same run.
set -eu
bin=${1:?usage: bench/run.sh PATH-TO-MECHA}
dir=$(dirname "$0")
status=0
for b in "$dir"/bench_*.sh; do
  [ -e "$b" ] || continue
  echo "== $(basename "$b" .sh)"
  sh "$b" "$bin" || status=1
done
exit $status
