#!/bin/sh
# run-gemm-efficiency.sh — how close the GPT-2 forward pass comes to the machine's sgemm, in one run.
#
# On the random distilgpt2-shaped model of run-forward-bench.sh (6 layers, 12 heads, 768, vocab
# 50257, generated once in WORK_DIR by tests/reference/gpt2_reference.py), alternating ROUNDS
# times:
#   attnscope bench --model DIR --tokens T --repeat N --json   (the default full trace: every
#                                                              attention, contexts, attention
#                                                              outputs, hidden states, the last
#                                                              position's logits)
#   bench-sgemm 2048 THREADS N                                 (one 2048 x 2048 x 2048 sgemm)
# with the same threads (ATTNSCOPE_THREADS = OPENBLAS_NUM_THREADS = THREADS) and the same
# OpenBLAS environment, and reports both throughputs and their ratio. The forward pass's FLOPs
# are counted from the shapes: per layer 2·T·D·(3D + D + 2F) for the projections and
# 2·2·H·hd·T(T+1)/2 for q·kᵀ and P·v over the causal triangle, plus 2·D·V for the last
# position's logits (layer norms, softmax and gelu are not counted). Prints a markdown report on
# stdout; raw JSON lines stay in WORK_DIR. Builds nothing.
#
# usage: tests/bench/run-gemm-efficiency.sh [--unset-openblas-coretype] [--tokens 512]
#            [--repeat 10] [--rounds 3] [--threads 2] ATTNSCOPE_BIN BENCH_SGEMM_BIN WORK_DIR
#
# --unset-openblas-coretype unsets OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE for BOTH sides, in the
# benchmark commands only (tests/bench/README.md, "Benchmarks"). Never use it in tests or CI.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
ref="$here/../reference/gpt2_reference.py"
py=${ATTNSCOPE_PYTHON:-/usr/bin/python3}
unset_coretype=0
tokens=512
repeat=10
rounds=3
threads=2

while [ $# -gt 0 ]; do
  case "$1" in
    --unset-openblas-coretype) unset_coretype=1; shift ;;
    --tokens) tokens=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    --*) echo "run-gemm-efficiency.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
if [ $# -ne 3 ]; then
  echo "usage: $0 [--unset-openblas-coretype] [--tokens T] [--repeat N] [--rounds R]" \
    "[--threads N] ATTNSCOPE_BIN BENCH_SGEMM_BIN WORK_DIR" >&2
  exit 2
fi
bin=$1
sgemm=$2
work=$3
for b in "$bin" "$sgemm"; do
  [ -x "$b" ] || { echo "run-gemm-efficiency.sh: $b is not an executable" >&2; exit 1; }
done
mkdir -p "$work"
model="$work/distilgpt2-shape"
if [ ! -f "$model/tf_model.h5" ]; then
  "$py" "$ref" make-model "$model" --layers 6 --heads 12 --embd 768 --vocab 50257 \
    --positions 1024 --std 0.05 --seed 1 >&2
fi

export ATTNSCOPE_THREADS=$threads OPENBLAS_NUM_THREADS=$threads OMP_NUM_THREADS=$threads
. "$here/bench-lib.sh"
coretype_note=$(bench_coretype_note)

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
results="$work/gemm-efficiency.jsonl"
: > "$results"
r=1
while [ "$r" -le "$rounds" ]; do
  out=$(bench_run "$bin" bench --model "$model" --tokens "$tokens" --repeat "$repeat" --json)
  echo "$out" | grep '^{' | tail -n 1 | sed "s/^{/{\"side\":\"forward\",\"round\":$r,/" >> "$results"
  out=$(bench_run "$sgemm" 2048 "$threads" "$repeat")
  echo "$out" | grep '^{' | tail -n 1 | sed "s/^{/{\"side\":\"sgemm\",\"round\":$r,/" >> "$results"
  r=$((r + 1))
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

blas_version=$(bench_blas_version)
cpu=$(bench_cpu)
"$py" - "$results" "$model/config.json" "$tokens" "$repeat" "$threads" "$cpu" "$(nproc)" \
  "$blas_version" "$coretype_note" "$load_before" "$load_after" <<'PYEOF'
import datetime, json, sys

path, config, T, repeat, threads, cpu, cores, blas, coretype, before, after = sys.argv[1:]
T = int(T)
c = json.load(open(config))
L, D, H, V = c["n_layer"], c["n_embd"], c["n_head"], c["vocab_size"]
F = c.get("n_inner") or 4 * D
hd = D // H
flops = L * (2 * T * D * (3 * D + D + 2 * F) + 2 * 2 * H * hd * T * (T + 1) // 2) + 2 * D * V
rows = [json.loads(line) for line in open(path)]
fwd = [r for r in rows if r["side"] == "forward"]
sg = [r for r in rows if r["side"] == "sgemm"]
print("## GPT-2 forward pass against one large sgemm (%s)" % datetime.date.today().isoformat())
print()
print("- machine: %s, %s cores; OpenBLAS %s; load average before %s, after %s"
      % (cpu, cores, blas, before, after))
print("- threads: %s on both sides (ATTNSCOPE_THREADS = OPENBLAS_NUM_THREADS = %s); %s"
      % (threads, threads, coretype))
print("- forward: random distilgpt2-shaped GPT-2, T = %d, the default full trace (last-position "
      "logits), %.2f GFLOP per pass counted from the shapes; median of %s passes per round"
      % (T, flops / 1e9, repeat))
print("- sgemm: 2048 x 2048 x 2048 float32, %.2f GFLOP; median of %s per round" % (2 * 2048**3 / 1e9, repeat))
print()
print("| round | forward median ms | forward GFLOP/s | sgemm median ms | sgemm GFLOP/s | forward / sgemm |")
print("| ---: | ---: | ---: | ---: | ---: | ---: |")
ratios = []
for f, s in zip(fwd, sg):
    g = flops / (f["median_ms"] * 1e6)
    ratios.append(g / s["gflops"])
    print("| %d | %.2f | %.1f | %.2f | %.1f | %.0f %% |" % (f["round"], f["median_ms"], g,
          s["median_ms"], s["gflops"], 100 * ratios[-1]))
ratios.sort()
print()
print("Median over the rounds: the forward pass reaches %.0f %% of the sgemm's throughput."
      % (100 * ratios[len(ratios) // 2]))
PYEOF
