#!/bin/sh
# run-forward-ab.sh — attnscope's forward pass before and after a change, against nothing but
# itself: two attnscope binaries, the same models, the same machine, interleaved.
#
# Generates (once, in WORK_DIR) the random distilgpt2-shaped GPT-2 of run-forward-bench.sh
# (tests/reference/gpt2_reference.py make-model) and the Llama-3.2-1B-shaped BF16 decoder of
# run-decoder-bench.sh (tests/reference/decoder_reference.py make-model --preset llama-3.2-1b),
# then for ROUNDS rounds times, for each case, each binary in its own processes, BEFORE then AFTER
# (so that a change of the machine's load hits both alike):
#   attnscope bench --model M --tokens T --repeat N --json    the default full trace
# under time(1), and the same with --repeat 1: the difference of the two processes' CPU time
# (user + system, every thread) divided by N − 1 is the CPU time of one pass, which a loaded
# machine disturbs far less than the wall time (the passes wait for a core, they do not do more).
# Cases: distilgpt2 shape at T = 64 and 512, Llama-3.2-1B shape at T = 128. Prints a markdown
# report (medians over the rounds of each round's median, the best minimum, the median CPU time
# per pass) with the date, the machine (CPU model, cores, memory) and the load average; raw JSON
# lines stay in WORK_DIR. Builds nothing: copy the two binaries somewhere the build will not
# replace them.
#
# usage: tests/bench/run-forward-ab.sh [--unset-openblas-coretype] [--repeat 5] [--rounds 3]
#            BEFORE_BIN AFTER_BIN WORK_DIR
#
# --unset-openblas-coretype unsets OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE for both binaries, in
# the benchmark commands only (tests/bench/README.md, "Benchmarks"). Never use it in tests or CI.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
py=${ATTNSCOPE_PYTHON:-/usr/bin/python3}
unset_coretype=0
repeat=5
rounds=3

while [ $# -gt 0 ]; do
  case "$1" in
    --unset-openblas-coretype) unset_coretype=1; shift ;;
    --repeat) repeat=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
    --*) echo "run-forward-ab.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
if [ $# -ne 3 ]; then
  echo "usage: $0 [--unset-openblas-coretype] [--repeat N] [--rounds R] BEFORE_BIN AFTER_BIN" \
    "WORK_DIR" >&2
  exit 2
fi
before=$1
after=$2
work=$3
[ -x /usr/bin/time ] || { echo "run-forward-ab.sh: needs /usr/bin/time" >&2; exit 1; }
for bin in "$before" "$after"; do
  [ -x "$bin" ] || { echo "run-forward-ab.sh: $bin is not an executable" >&2; exit 1; }
done
mkdir -p "$work"

if [ ! -f "$work/distilgpt2-shape/tf_model.h5" ]; then
  set -- --layers 6 --heads 12 --embd 768 --vocab 50257 --positions 1024 --std 0.05 --seed 1
  tok="$here/../fixtures/gpt2-tokenizer"
  if [ -f "$tok/vocab.json" ]; then set -- "$@" --tokenizer-from "$tok"; fi
  "$py" "$here/../reference/gpt2_reference.py" make-model "$work/distilgpt2-shape" "$@" >&2
fi
if [ ! -f "$work/llama-3.2-1b/config.json" ]; then
  "$py" "$here/../reference/decoder_reference.py" make-model "$work/llama-3.2-1b" \
    --preset llama-3.2-1b >&2
fi

export OPENBLAS_NUM_THREADS=2 OMP_NUM_THREADS=2 ATTNSCOPE_THREADS=2
. "$here/bench-lib.sh"
coretype_note=$(bench_coretype_note)

results="$work/forward-ab.jsonl"
: > "$results"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
r=1
while [ "$r" -le "$rounds" ]; do
  for c in distilgpt2-shape:64 distilgpt2-shape:512 llama-3.2-1b:128; do
    m=${c%%:*} t=${c##*:}
    for side in before after; do
      if [ "$side" = before ]; then bin=$before; else bin=$after; fi
      out=$(bench_run /usr/bin/time -f '%U %S' -o "$work/time-n.txt" "$bin" bench \
        --model "$work/$m" --tokens "$t" --repeat "$repeat" --json) || {
        echo "run-forward-ab.sh: $side failed on $m at T=$t" >&2; exit 1; }
      bench_run /usr/bin/time -f '%U %S' -o "$work/time-1.txt" "$bin" bench --model "$work/$m" \
        --tokens "$t" --repeat 1 --json > /dev/null || {
        echo "run-forward-ab.sh: $side failed on $m at T=$t" >&2; exit 1; }
      echo "$out" | grep '^{' | tail -n 1 | "$py" -c '
import json, sys
rec = json.loads(sys.stdin.read())
cpu_n, cpu_1 = (sum(map(float, open(f).read().split()[-2:])) for f in sys.argv[5:7])
rec.update(side=sys.argv[1], model=sys.argv[2], T=int(sys.argv[3]), round=int(sys.argv[4]),
           cpu_ms_per_pass=1000 * (cpu_n - cpu_1) / (rec["repeat"] - 1),
           load=open("/proc/loadavg").read().split()[0])
print(json.dumps(rec))' "$side" "$m" "$t" "$r" "$work/time-n.txt" "$work/time-1.txt" >> "$results"
    done
  done
  r=$((r + 1))
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

mem_gb=$(awk '/^MemTotal:/ { printf "%.1f", $2 / 1048576 }' /proc/meminfo)
"$py" - "$results" "$repeat" "$rounds" "$(bench_cpu)" "$(nproc)" "$mem_gb" "$(bench_blas_version)" \
  "$coretype_note" "$load_before" "$load_after" "$before" "$after" <<'PYEOF'
import datetime, json, statistics, sys

path, repeat, rounds, cpu, cores, mem, blas, coretype, lb, la, before, after = sys.argv[1:]
rows = [json.loads(line) for line in open(path)]
print("## Forward pass before and after (%s)" % datetime.date.today().isoformat())
print()
print("- machine: %s, %s cores, %s GiB; OpenBLAS %s; load average (1, 5, 15 min) before %s, "
      "after %s" % (cpu, cores, mem, blas, lb, la))
print("- threads: ATTNSCOPE_THREADS = OPENBLAS_NUM_THREADS = 2; %s" % coretype)
print("- before: `%s`; after: `%s`; `attnscope bench --tokens T --repeat %s --json` (the default "
      "full trace), each in its own process, before then after, %s rounds" % (before, after, repeat,
                                                                              rounds))
print()
print("| model | T | before median ms | after median ms | after / before | before min ms "
      "| after min ms | before CPU ms / pass | after CPU ms / pass | after / before (CPU) |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
cases = []
for r in rows:
    if (r["model"], r["T"]) not in cases:
        cases.append((r["model"], r["T"]))
for m, t in cases:
    med, low, cpu = {}, {}, {}
    for side in ("before", "after"):
        mine = [r for r in rows if r["model"] == m and r["T"] == t and r["side"] == side]
        med[side] = statistics.median(r["median_ms"] for r in mine)
        low[side] = min(r["min_ms"] for r in mine)
        cpu[side] = statistics.median(r["cpu_ms_per_pass"] for r in mine)
    print("| %s | %d | %.1f | %.1f | %.3f | %.1f | %.1f | %.1f | %.1f | %.3f |" % (
        m, t, med["before"], med["after"], med["after"] / med["before"], low["before"],
        low["after"], cpu["before"], cpu["after"], cpu["after"] / cpu["before"]))
PYEOF
