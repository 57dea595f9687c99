#!/bin/sh
# bench-attribution.sh — "why this prediction" for one text, attnscope against PyTorch with hooks
# in one run.
#
# Generates a random distilgpt2-shaped model (6 layers, 12 heads, 768, vocab 50257) once in
# WORK_DIR with tests/reference/gpt2_reference.py, then times REPEAT requests after a warm-up on
# each side, in process: a forward pass keeping q, k and v, the direct logit attribution of one
# logit difference at the last position, the attention norms of every head (value norms, each
# head's share, first-token ratios), one head's query–key view and the logit lens of every hidden
# state at every position (top 5). attnscope:
# build/tests/bench/bench-attribution; PyTorch: attribution_reference.py bench (the reference's
# forward pass with hooks, the same quantities vectorised in torch). Both sides on 2 threads.
# Prints a markdown table with the load average before and after. With --rounds R both sides run
# R times in turn (attnscope, PyTorch, attnscope, ...), a table each, then every round's total
# ratio and their median: this virtual machine's speed drifts by 10-20 % within minutes, and the
# two sides of one round run ~15 s apart.
#
# usage: tests/bench/bench-attribution.sh [--tokens T] [--repeat N] [--rounds R] BENCH_BIN WORK_DIR
set -eu

here=$(cd "$(dirname "$0")" && pwd)
py=${ATTNSCOPE_PYTHON:-/usr/bin/python3}
tokens=128
repeat=10
rounds=1
while [ $# -gt 2 ]; do
  case $1 in
  --tokens) tokens=$2 ;;
  --repeat) repeat=$2 ;;
  --rounds) rounds=$2 ;;
  *) break ;;
  esac
  shift 2
done
if [ $# -ne 2 ]; then
  sed -n '2,18p' "$0"
  exit 2
fi
bench=$1
work=$2
model="$work/distilgpt2-shaped"
mkdir -p "$work"
if [ ! -f "$model/tf_model.h5" ]; then
  "$py" "$here/../reference/gpt2_reference.py" make-model --layers 6 --heads 12 --embd 768 \
    --vocab 50257 --positions 1024 --tokenizer-from "$here/../fixtures/gpt2-tokenizer" \
    "$model" >/dev/null
fi
export ATTNSCOPE_THREADS=2 OPENBLAS_NUM_THREADS=2 OMP_NUM_THREADS=2
ratios=""
round=1
while [ "$round" -le "$rounds" ]; do
  [ "$rounds" -gt 1 ] && echo "round $round of $rounds"
  echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
  c=$("$bench" "$model" "$tokens" "$repeat")
  t=$("$py" "$here/../reference/attribution_reference.py" bench --family gpt2 --model "$model" \
    --tokens "$tokens" --repeat "$repeat")
  echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo
  echo "| step (T = $tokens, median of $repeat) | attnscope ms | PyTorch ms | PyTorch / attnscope |"
  echo "| --- | ---: | ---: | ---: |"
  for step in forward attribution norms qk lens total; do
    a=$(echo "$c" | sed -n "s/.*\"$step\":{\"median_ms\":\([0-9.]*\).*/\1/p")
    b=$(echo "$t" | sed -n "s/.*\"$step\": {\"median_ms\": \([0-9.]*\).*/\1/p")
    awk -v s="$step" -v a="$a" -v b="$b" \
      'BEGIN { printf "| %s | %.2f | %.2f | %.2f× |\n", s, a, b, (a > 0 ? b / a : 0) }'
    [ "$step" = total ] && ratios="$ratios $(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", b / a }')"
  done
  echo
  round=$((round + 1))
done
if [ "$rounds" -gt 1 ]; then
  echo "total PyTorch / attnscope per round:$ratios; median $(echo "$ratios" | tr ' ' '\n' |
    sed '/^$/d' | sort -n | awk '{ v[NR] = $1 } END { m = (NR + 1) / 2;
      printf "%.2f", (NR % 2 ? v[m] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }')×"
fi
