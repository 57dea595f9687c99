#!/bin/sh
# bench-projection-ab.sh — one projection benchmark binary before and after a change, interleaved.
#
# For every HDF5 input (dataset "x") runs BEFORE and AFTER alternately REPEAT times each with the
# same arguments (e.g. "--threads 2" for bench-tsne, whose method defaults to AUTO, or
# "--threads 1" for bench-umap) and prints one markdown row per input: the median wall time of
# the projection as the binary reports it (tsne_ms or umap_ms) and the median CPU time of the
# whole process (user + system, GNU time), before and after, and their ratios.
#
# usage: tests/bench/bench-projection-ab.sh [--repeat 3] [--args "ARGS"] BEFORE AFTER INPUT.h5...
# Benchmarks only: OPENBLAS_CORETYPE stays as the environment sets it.
set -eu

repeat=3
args=""
while [ $# -gt 0 ]; do
  case "$1" in
    --repeat) repeat=$2; shift 2 ;;
    --args) args=$2; shift 2 ;;
    --*) echo "bench-projection-ab.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
if [ $# -lt 3 ]; then
  echo "usage: bench-projection-ab.sh [--repeat N] [--args ARGS] BEFORE AFTER INPUT.h5..." >&2
  exit 2
fi
before=$1
after=$2
shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# median of the numbers on stdin
median() {
  sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# run BIN INPUT TAG: appends the wall ms to TAG.wall and the CPU s to TAG.cpu
run() {
  # shellcheck disable=SC2086
  /usr/bin/time -f '%U %S' -o "$tmp/time" "$1" --input "$2" $args > "$tmp/out" 2> /dev/null
  sed -n 's/.*"\(tsne\|umap\)_ms": *\([0-9.e+-]*\).*/\2/p' "$tmp/out" >> "$tmp/$3.wall"
  awk '{ print $1 + $2 }' "$tmp/time" >> "$tmp/$3.cpu"
}

echo "| input | wall ms before | wall ms after | after/before | CPU s before | CPU s after | after/before |"
echo "|---|---|---|---|---|---|---|"
for x in "$@"; do
  rm -f "$tmp"/*.wall "$tmp"/*.cpu
  i=0
  while [ "$i" -lt "$repeat" ]; do
    run "$before" "$x" b
    run "$after" "$x" a
    i=$((i + 1))
  done
  wb=$(median < "$tmp/b.wall"); wa=$(median < "$tmp/a.wall")
  cb=$(median < "$tmp/b.cpu"); ca=$(median < "$tmp/a.cpu")
  awk -v n="$(basename "$x" .h5)" -v wb="$wb" -v wa="$wa" -v cb="$cb" -v ca="$ca" 'BEGIN {
    printf "| %s | %.0f | %.0f | %.2f | %.2f | %.2f | %.2f |\n", n, wb, wa, wa / wb, cb, ca, ca / cb }'
done
