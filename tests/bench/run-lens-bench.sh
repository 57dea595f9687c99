#!/bin/sh
# run-lens-bench.sh — the logit lens and the fitted lens, attnscope beside PyTorch in one run.
#
#   1. the logit lens of a distilgpt2-shaped GPT-2 (6 layers, 12 heads, 768, vocab 50257) at
#      T = 128, every hidden state at every position, top 5:
#        attnscope lens --model M --ids ... --top 5 --json     (whole process: load, pass, lens,
#                                                              JSON; median and min of N runs)
#        lens_bench.py logit M --ids ... --top 5               (compute only, after loading)
#   2. the fitted lens on 2,000 lines (CORPUS, or 2,000 lines of 6..30 words drawn from
#      tests/fixtures/long-text.txt with a fixed seed):
#        attnscope lens --model M --fit CORPUS --save LENS.h5  (whole process)
#        lens_bench.py fit M --tokens TOKENS.jsonl              (compute only: passes, sums,
#                                                              solves, the held-out KL)
# Both sides with 2 threads. Prints a markdown report; the files stay in WORK_DIR.
#
# usage: tests/bench/run-lens-bench.sh [--unset-openblas-coretype] [--repeat N] [--lines N]
#            ATTNSCOPE_BIN MODEL_DIR WORK_DIR
# --lines: the corpus's lines (default 2,000). Each result is printed as soon as it is measured.
# MODEL_DIR: a distilgpt2-shaped folder (tests/bench/run-forward-bench.sh makes one in its
# WORK_DIR/distilgpt2-shape). --unset-openblas-coretype unsets OPENBLAS_CORETYPE and
# OPENBLAS_L2_SIZE for both sides, in the benchmark commands only (tests/bench/README.md, "Benchmarks").
set -eu

here=$(cd "$(dirname "$0")" && pwd)
py=${ATTNSCOPE_PYTHON:-/usr/bin/python3}
repeat=5
n_lines=2000
unset_coretype=0
while [ $# -gt 0 ]; do
  case "$1" in
    --unset-openblas-coretype) unset_coretype=1; shift ;;
    --repeat) repeat=$2; shift 2 ;;
    --lines) n_lines=$2; shift 2 ;;
    -h|--help) sed -n '2,23p' "$0"; exit 0 ;;
    --*) echo "run-lens-bench.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
if [ $# -ne 3 ]; then
  echo "usage: $0 [--unset-openblas-coretype] [--repeat N] [--lines N] ATTNSCOPE_BIN MODEL_DIR WORK_DIR" >&2
  exit 2
fi
bin=$1
model=$2
work=$3
mkdir -p "$work"
if [ "$unset_coretype" = 1 ]; then
  unset OPENBLAS_CORETYPE OPENBLAS_L2_SIZE
fi
export OPENBLAS_NUM_THREADS=2 OMP_NUM_THREADS=2 ATTNSCOPE_THREADS=2

corpus="$work/corpus-$n_lines.txt"
if [ ! -f "$corpus" ]; then
  "$py" - "$here/../fixtures/long-text.txt" "$corpus" "$n_lines" <<'PY'
import random, sys
words = open(sys.argv[1], encoding="utf-8").read().split()
rng = random.Random(2026)
with open(sys.argv[2], "w", encoding="utf-8") as f:
    for _ in range(int(sys.argv[3])):
        start = rng.randrange(len(words) - 40)
        f.write(" ".join(words[start:start + rng.randint(6, 30)]) + "\n")
PY
fi
"$bin" tokenize --model "$model" --lines "$corpus" --json >"$work/tokens.jsonl"
echo "- machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GB; load average at the start $(cut -d' ' -f1-3 /proc/loadavg)"
echo "- OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-<unset>} OPENBLAS_L2_SIZE=${OPENBLAS_L2_SIZE:-<unset>}; 2 threads on both sides"
ids=$("$py" -c "import random; r = random.Random(7); print(','.join(str(r.randrange(50257)) for _ in range(128)))")

times=""
for r in $(seq 0 "$repeat"); do
  t0=$(date +%s.%N)
  "$bin" lens --model "$model" --ids "$ids" --top 5 --json >"$work/lens.json"
  t1=$(date +%s.%N)
  [ "$r" = 0 ] || times="$times $(echo "$t1 - $t0" | bc)"
done
a_logit=$("$py" -c "import statistics, sys; v = [float(x) for x in sys.argv[1:]]; print('%.3f %.3f' % (statistics.median(v), min(v)))" $times)
p_logit=$("$py" "$here/lens_bench.py" logit "$model" --ids "$ids" --top 5 --repeat "$repeat")
echo "- logit lens, T = 128, top 5: attnscope median/min s (whole process) $a_logit; PyTorch (compute only) $p_logit; load average $(cut -d' ' -f1-3 /proc/loadavg)"

t0=$(date +%s.%N)
"$bin" lens --model "$model" --fit "$corpus" --save "$work/lens.h5" --force --json >"$work/fit.json"
t1=$(date +%s.%N)
a_fit=$(echo "$t1 - $t0" | bc)
echo "- fitted lens, $n_lines lines: attnscope s (whole process) $a_fit; load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "- attnscope fit report: $(tr -d '\n' <"$work/fit.json" | cut -c1-700)"
p_fit=$("$py" "$here/lens_bench.py" fit "$model" --tokens "$work/tokens.jsonl")
echo "- fitted lens, $n_lines lines: PyTorch s (compute only) $p_fit; load average $(cut -d' ' -f1-3 /proc/loadavg)"
