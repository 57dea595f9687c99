#!/bin/sh
# bench-load.sh — model loading time, before and after a change, in one interleaved run.
#
# Generates a random distilgpt2-shaped model (6 layers, 12 heads, 768, vocab 50257, 1024
# positions; tf_model.h5 of 313 MiB) once in WORK_DIR with tests/reference/gpt2_reference.py,
# then ROUNDS times, alternating between the binaries given (e.g. main's build and this one),
#   ATTNSCOPE_BIN bench --model DIR --tokens 1 --repeat 1 --json     (its load_ms)
# each in its own process with a warm page cache, and finally BENCH_LOAD_BIN DIR ROUNDS (the
# steps of the loader: the whole model, the HDF5 child's listing, every weight fetched). Prints
# a markdown report with the load average before and after.
#
# usage: tests/bench/bench-load.sh [--rounds N] BENCH_LOAD_BIN WORK_DIR ATTNSCOPE_BIN...
set -eu

here=$(cd "$(dirname "$0")" && pwd)
ref="$here/../reference/gpt2_reference.py"
py=${ATTNSCOPE_PYTHON:-/usr/bin/python3}
rounds=10
if [ "${1:-}" = --rounds ]; then
  rounds=$2
  shift 2
fi
if [ $# -lt 3 ]; then
  sed -n '2,14p' "$0"
  exit 2
fi
bench_load=$1
work=$2
shift 2
model="$work/distilgpt2-shaped"
if [ ! -f "$model/tf_model.h5" ]; then
  "$py" "$ref" make-model --layers 6 --heads 12 --embd 768 --vocab 50257 --positions 1024 \
    --tokenizer-from "$here/../fixtures/gpt2-tokenizer" "$model" >/dev/null
fi
cat "$model/tf_model.h5" >/dev/null # warm the page cache

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| binary | load_ms min | load_ms median |"
echo "| --- | ---: | ---: |"
i=0
for bin in "$@"; do
  : >"$work/load-$i.txt"
  i=$((i + 1))
done
r=0
while [ $r -lt "$rounds" ]; do
  i=0
  for bin in "$@"; do
    "$bin" bench --model "$model" --tokens 1 --repeat 1 --json |
      sed -n 's/.*"load_ms":\([0-9.]*\).*/\1/p' >>"$work/load-$i.txt"
    i=$((i + 1))
  done
  r=$((r + 1))
done
i=0
for bin in "$@"; do
  sort -n "$work/load-$i.txt" | awk -v bin="$bin" '{ v[NR] = $1 }
    END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
          printf "| %s | %.1f | %.1f |\n", bin, v[1], m }'
  i=$((i + 1))
done
echo
echo "Steps of the loader ($bench_load, $rounds runs each):"
echo
"$bench_load" "$model" "$rounds" | sed 's/^/    /'
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
