#!/bin/sh
# run-long-bench.sh — long inputs: attnscope's forward pass with the on-demand trace beside
# PyTorch's HF-eager computation with output_attentions=True, peak RSS and time.
#
# Generates (once, in WORK_DIR, never committed) random models with the shapes, config values
# and BF16 dtype of SmolLM2-135M and Llama-3.2-1B (tests/reference/decoder_reference.py
# make-model --preset). For each PRESET:T case, each side in its own process under
# /usr/bin/time -v, 2 threads, the same OpenBLAS environment:
#   attnscope predict --model DIR --ids ... --json   one pass with the full trace (attention on
#                                    demand past 1 GiB of matrices: every view's data), the last
#                                    position's logits; wall time and peak RSS of the process
#   decoder_reference.py mem DIR --tokens T          one HF-eager pass keeping every output
#                                    (attentions [L,H,T,T], hidden states, all logits); peak RSS
# The ids are (i·7919 + 13) mod V for both sides. A side that fails (out of memory, killed) is
# reported with its exit status. Prints a markdown table; logs stay in WORK_DIR.
#
# usage: tests/bench/run-long-bench.sh [--unset-openblas-coretype] [--pytorch CASES]
#            ATTNSCOPE_BIN WORK_DIR CASES
#   CASES: comma-separated PRESET:T (smollm2-135m:8192,llama-3.2-1b:8192); --pytorch: the cases
#   PyTorch runs (default none).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
ref="$here/../reference/decoder_reference.py"
py=${ATTNSCOPE_PYTHON:-/usr/bin/python3}
unset_coretype=0
pytorch=""
while [ $# -gt 0 ]; do
  case "$1" in
    --unset-openblas-coretype) unset_coretype=1; shift ;;
    --pytorch) pytorch=$2; shift 2 ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    --*) echo "run-long-bench.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
[ $# -eq 3 ] || { echo "usage: $0 [--unset-openblas-coretype] [--pytorch CASES] BIN WORK CASES" >&2; exit 2; }
bin=$1 work=$2 cases=$3
mkdir -p "$work"
export OPENBLAS_NUM_THREADS=2 OMP_NUM_THREADS=2 ATTNSCOPE_THREADS=2
. "$here/bench-lib.sh"

vocab() { sed -n 's/.*"vocab_size": *\([0-9]*\).*/\1/p' "$1/config.json"; }
# field NAME LOG: a value of /usr/bin/time -v's report
field() { sed -n "s/^[[:space:]]*$1: //p" "$2" | head -n 1; }

echo "| side | model | T | exit | wall | peak RSS (MB) |"
echo "|---|---|---|---|---|---|"
for c in $(echo "$cases,$pytorch" | tr ',' ' '); do
  preset=${c%%:*} t=${c##*:}
  [ -f "$work/$preset/config.json" ] || "$py" "$ref" make-model "$work/$preset" --preset "$preset" >&2
done
for c in $(echo "$cases" | tr ',' ' '); do
  preset=${c%%:*} t=${c##*:}
  v=$(vocab "$work/$preset")
  ids=$("$py" -c "import sys; print(','.join(str((i*7919+13)%$v) for i in range($t)))")
  log="$work/time-attnscope-$preset-$t.log"
  status=0
  bench_run /usr/bin/time -v -o "$log" "$bin" predict --model "$work/$preset" --ids "$ids" --json \
    --quiet > "$work/attnscope-$preset-$t.json" 2> "$work/attnscope-$preset-$t.err" || status=$?
  rss=$(field "Maximum resident set size (kbytes)" "$log")
  echo "| attnscope (on demand) | $preset | $t | $status | $(field "Elapsed (wall clock) time (h:mm:ss or m:ss)" "$log") | $((rss / 1024)) |"
done
for c in $(echo "$pytorch" | tr ',' ' '); do
  preset=${c%%:*} t=${c##*:}
  log="$work/time-pytorch-$preset-$t.log"
  status=0
  bench_run /usr/bin/time -v -o "$log" "$py" "$ref" mem "$work/$preset" --tokens "$t" --threads 2 \
    --json > "$work/pytorch-$preset-$t.json" 2> "$work/pytorch-$preset-$t.err" || status=$?
  rss=$(field "Maximum resident set size (kbytes)" "$log")
  echo "| PyTorch eager, output_attentions | $preset | $t | $status | $(field "Elapsed (wall clock) time (h:mm:ss or m:ss)" "$log") | $((${rss:-0} / 1024)) |"
done
echo
echo "- $(date -u '+%Y-%m-%d %H:%M UTC'), $(bench_cpu), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "- $(bench_coretype_note); $(bench_blas_version)"
