#!/bin/sh
# run-seq2seq-bench.sh — attnscope beside PyTorch eager on the same random weights, one run:
#   flan-t5-small  a Flan-T5-small-shaped T5 (t5_reference.py make-model: 8 + 8 layers, 6 heads,
#                  d_model 512, d_kv 64, d_ff 1024 gated-GELU, 32,128 tokens, untied, F32;
#                  weights of std 0.04 ≈ HF's d_model^-½ init: at 0.1 the activations grow until
#                  the top logits of a greedy step lie within float32 rounding of each other)
#                  translating a 20-token source greedily (max_length 21) with every attention
#                  captured: bench-translate (the step decoder's search, then one
#                  as_forward_translation keeping both stacks' attention, cross-attention, hidden
#                  states and all logits) against t5_reference.py bench (a greedy search that
#                  keeps keys and values as HF's generate() does with use_cache, checked to give
#                  the uncached search's ids, then one pass keeping the same arrays);
#   gemma-3-270m   a Gemma-3-270M-shaped decoder (decoder_reference.py make-model --preset
#                  gemma-3-270m, BF16) at T = 512 with the full trace: attnscope bench
#                  --all-logits against decoder_reference.py bench (HF's eager computation with
#                  every attention, hidden state and logit, weights widened to float32); and
#                  the same with the last position's logits only on both sides (--last-logits,
#                  HF's logits_to_keep=1).
# Both sides 2 threads, the same OpenBLAS environment, min and median of REPEAT timed runs
# after a warm-up, load excluded. Models are made once in WORK_DIR (never committed). Prints a
# markdown table.
#
# usage: tests/bench/run-seq2seq-bench.sh [--unset-openblas-coretype] [--repeat N]
#            [--cases t5,gemma] BUILD_DIR WORK_DIR
set -eu

here=$(cd "$(dirname "$0")" && pwd)
py=${ATTNSCOPE_PYTHON:-/usr/bin/python3}
unset_coretype=0
repeat=5
cases=t5,gemma
while [ $# -gt 0 ]; do
  case "$1" in
    --unset-openblas-coretype) unset_coretype=1; shift ;;
    --repeat) repeat=$2; shift 2 ;;
    --cases) cases=$2; shift 2 ;;
    -h|--help) sed -n '2,26p' "$0"; exit 0 ;;
    --*) echo "run-seq2seq-bench.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
[ $# -eq 2 ] || { echo "usage: $0 [--unset-openblas-coretype] [--repeat N] BUILD_DIR WORK_DIR" >&2; exit 2; }
build=$1 work=$2
mkdir -p "$work"
export OPENBLAS_NUM_THREADS=2 OMP_NUM_THREADS=2 ATTNSCOPE_THREADS=2
. "$here/bench-lib.sh"

t5="$work/flan-t5-small"
[ -f "$t5/config.json" ] || "$py" "$here/../reference/t5_reference.py" make-model "$t5" \
  --ff-proj gated-gelu --layers 8 --decoder-layers 8 --heads 6 --d-model 512 --d-kv 64 \
  --d-ff 1024 --vocab 32128 --no-tie --seed 3 --std 0.04 >/dev/null
gemma="$work/gemma-3-270m"
[ -f "$gemma/config.json" ] || "$py" "$here/../reference/decoder_reference.py" make-model \
  "$gemma" --preset gemma-3-270m >/dev/null

src=""
for i in $(seq 0 18); do src="$src$(( (i * 7919 + 13) % 32000 + 2 )),"; done
src="${src}1" # 19 ids and </s>

ms() { sed -n "s/.*\"$1\": *\([0-9.]*\).*/\1/p" "$2" | head -n 1; }

case ",$cases," in *,t5,*)
  bench_run "$build/tests/bench/bench-translate" "$t5" "$src" 21 "$repeat" >"$work/t5-attnscope.json"
  bench_run "$py" "$here/../reference/t5_reference.py" bench "$t5" --src-ids "$src" \
    --max-length 21 --repeat "$repeat" --threads 2 --json >"$work/t5-pytorch.json" ;;
esac
case ",$cases," in *,gemma,*)
  bench_run "$build/app/attnscope" bench --model "$gemma" --tokens 512 --repeat "$repeat" \
    --all-logits --json >"$work/gemma-attnscope.json"
  bench_run "$py" "$here/../reference/decoder_reference.py" bench "$gemma" --tokens 512 \
    --repeat "$repeat" --threads 2 --json >"$work/gemma-pytorch.json"
  # the same pass keeping the last position's logits only (HF's logits_to_keep=1), as the
  # window's and predict's passes do: the [512][262144] output product, the same sgemm on both
  # sides, is then left out
  bench_run "$build/app/attnscope" bench --model "$gemma" --tokens 512 --repeat "$repeat" \
    --json >"$work/gemma-last-attnscope.json"
  bench_run "$py" "$here/../reference/decoder_reference.py" bench "$gemma" --tokens 512 \
    --repeat "$repeat" --threads 2 --last-logits --json >"$work/gemma-last-pytorch.json" ;;
esac

echo "$(bench_coretype_note); $(bench_blas_version); $(bench_cpu); load $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| case | attnscope min ms | PyTorch eager min ms | speed-up |"
echo "|---|---:|---:|---:|"
if [ -f "$work/t5-pytorch.json" ]; then
  t5_a=$(ms min_ms "$work/t5-attnscope.json")
  t5_p=$(awk '{ if (match($0, /"seconds": *[0-9.e-]+/)) print substr($0, RSTART + 11, RLENGTH - 11) * 1000 }' "$work/t5-pytorch.json")
  awk -v a="$t5_a" -v p="$t5_p" 'BEGIN { printf "| flan-t5-small, 20-token source, greedy, capture | %.1f | %.1f | %.2f× |\n", a, p, p / a }'
fi
if [ -f "$work/gemma-pytorch.json" ]; then
  g_a=$(ms min_ms "$work/gemma-attnscope.json")
  g_p=$(ms min_ms "$work/gemma-pytorch.json")
  awk -v a="$g_a" -v p="$g_p" 'BEGIN { printf "| gemma-3-270m, T = 512, full capture, all logits | %.1f | %.1f | %.2f× |\n", a, p, p / a }'
fi
if [ -f "$work/gemma-last-pytorch.json" ]; then
  g_a=$(ms min_ms "$work/gemma-last-attnscope.json")
  g_p=$(ms min_ms "$work/gemma-last-pytorch.json")
  awk -v a="$g_a" -v p="$g_p" 'BEGIN { printf "| gemma-3-270m, T = 512, full capture, last logits | %.1f | %.1f | %.2f× |\n", a, p, p / a }'
fi
if [ -f "$work/t5-pytorch.json" ]; then
  echo
  echo "ids: attnscope $(sed -n 's/.*"ids": *\[\([^]]*\)\].*/\1/p' "$work/t5-attnscope.json")"
  echo "ids: pytorch   $(sed -n 's/.*"ids": *\[\([^]]*\)\].*/\1/p' "$work/t5-pytorch.json" | tr -d ' ')"
fi
