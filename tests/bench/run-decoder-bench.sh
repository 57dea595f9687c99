#!/bin/sh
# run-decoder-bench.sh — Llama-family speed and memory, attnscope side by side with PyTorch.
#
# Generates random models with the shapes, config values and BF16 dtype of SmolLM2-135M and
# Llama-3.2-1B once in WORK_DIR (tests/reference/decoder_reference.py make-model --preset), then
# for each case, each side in its own process under /usr/bin/time -v, both with 2 threads and
# the same OpenBLAS environment:
#   attnscope bench --model DIR --tokens T --repeat N --json   the default full trace: every
#                                    attention [L,H,T,T], contexts, attention outputs, hidden
#                                    states, the last position's logits
#   decoder_reference.py bench DIR --tokens T --repeat N --threads 2 --json
#                                    what HF's eager attention computes with
#                                    output_attentions=True and output_hidden_states=True (all
#                                    logits), weights widened to float32
# Speed cases: SmolLM2-135M at T = 64 and 512, Llama-3.2-1B at T = 128 (repeated ROUNDS times,
# alternating the sides). Memory cases: attnscope bench at T = 128 and 1024 on Llama-3.2-1B
# (one pass, peak RSS of the whole process from time(1)), and `attnscope run --ids ... --dump`
# at T = 1024 (all logits, written to HDF5). With --pytorch-mem, decoder_reference.py mem at the
# same T for comparison (it needs ~5 GB of float32 weights plus its outputs). Prints a markdown
# report on stdout; raw JSON lines and time(1) logs stay in WORK_DIR. Builds nothing.
#
# usage: tests/bench/run-decoder-bench.sh [--unset-openblas-coretype] [--repeat 5] [--rounds 1]
#            [--pytorch-mem] [--skip-speed] [--skip-memory] ATTNSCOPE_BIN WORK_DIR
#
# --unset-openblas-coretype unsets OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE for BOTH sides, in the
# benchmark commands only (tests/bench/README.md, "Benchmarks"). Never use it in tests or CI.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
ref="$here/../reference/decoder_reference.py"
py=${ATTNSCOPE_PYTHON:-/usr/bin/python3}
unset_coretype=0
repeat=5
rounds=1
pytorch_mem=0
speed=1
memory=1

while [ $# -gt 0 ]; do
  case "$1" in
    --unset-openblas-coretype) unset_coretype=1; shift ;;
    --repeat) repeat=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --pytorch-mem) pytorch_mem=1; shift ;;
    --skip-speed) speed=0; shift ;;
    --skip-memory) memory=0; shift ;;
    -h|--help) sed -n '2,27p' "$0"; exit 0 ;;
    --*) echo "run-decoder-bench.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
if [ $# -ne 2 ]; then
  echo "usage: $0 [--unset-openblas-coretype] [--repeat N] [--rounds R] [--pytorch-mem]" \
    "[--skip-speed] [--skip-memory] ATTNSCOPE_BIN WORK_DIR" >&2
  exit 2
fi
bin=$1
work=$2
[ -x "$bin" ] || { echo "run-decoder-bench.sh: $bin is not an executable" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "run-decoder-bench.sh: needs /usr/bin/time" >&2; exit 1; }
mkdir -p "$work"
for preset in smollm2-135m llama-3.2-1b; do
  if [ ! -f "$work/$preset/config.json" ]; then
    "$py" "$ref" make-model "$work/$preset" --preset "$preset" >&2
  fi
done

export OPENBLAS_NUM_THREADS=2 OMP_NUM_THREADS=2 ATTNSCOPE_THREADS=2
. "$here/bench-lib.sh"
coretype_note=$(bench_coretype_note)

results="$work/decoder-bench.jsonl"
: > "$results"
# measure SIDE KIND MODEL T ROUND CMD...: runs CMD under time(1), appends its last JSON line
# tagged with the side, the kind of measurement and time(1)'s peak RSS.
measure() {
  side=$1 kind=$2 m=$3 t=$4 round=$5
  shift 5
  log="$work/time-$kind-$side-$m-$t-$round.log"
  out=$(bench_run /usr/bin/time -v -o "$log" "$@") || {
    echo "run-decoder-bench.sh: $side $kind failed on $m at T=$t (see $log)" >&2; exit 1; }
  rss_kb=$(sed -n 's/.*Maximum resident set size (kbytes): *//p' "$log")
  echo "$out" | grep '^{' | tail -n 1 | "$py" -c '
import json, sys
rec = json.loads(sys.stdin.read())
rec.update(side=sys.argv[1], kind=sys.argv[2], model=sys.argv[3], T=int(sys.argv[4]),
           round=int(sys.argv[5]), time_rss_mb=int(sys.argv[6]) / 1024.0,
           load=open("/proc/loadavg").read().split()[0])
print(json.dumps(rec))' "$side" "$kind" "$m" "$t" "$round" "${rss_kb:-0}" >> "$results"
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
if [ "$speed" = 1 ]; then
  r=1
  while [ "$r" -le "$rounds" ]; do
    for c in smollm2-135m:64 smollm2-135m:512 llama-3.2-1b:128; do
      m=${c%%:*} t=${c##*:}
      measure attnscope speed "$m" "$t" "$r" "$bin" bench --model "$work/$m" --tokens "$t" \
        --repeat "$repeat" --json
      measure pytorch speed "$m" "$t" "$r" "$py" "$ref" bench "$work/$m" --tokens "$t" \
        --repeat "$repeat" --threads 2 --json
    done
    r=$((r + 1))
  done
fi
if [ "$memory" = 1 ]; then
  m=llama-3.2-1b
  for t in 128 1024; do
    measure attnscope memory "$m" "$t" 1 "$bin" bench --model "$work/$m" --tokens "$t" \
      --repeat 1 --json
    if [ "$pytorch_mem" = 1 ]; then
      measure pytorch memory "$m" "$t" 1 "$py" "$ref" mem "$work/$m" --tokens "$t" --json
    fi
  done
  ids=$("$py" -c 'print(",".join(str((i * 7919 + 13) % 128256) for i in range(1024)))')
  log="$work/time-dump-attnscope-$m-1024.log"
  bench_run /usr/bin/time -v -o "$log" "$bin" run --model "$work/$m" --ids "$ids" \
    --dump "$work/trace-1024.h5" > /dev/null
  rss_kb=$(sed -n 's/.*Maximum resident set size (kbytes): *//p' "$log")
  echo "{\"side\":\"attnscope\",\"kind\":\"dump\",\"model\":\"$m\",\"T\":1024,\"round\":1,\"time_rss_mb\":$((rss_kb / 1024))}" >> "$results"
  rm -f "$work/trace-1024.h5"
fi
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

torch_version=$("$py" -c 'import torch; print(torch.__version__)' 2>/dev/null || echo unknown)
blas_version=$(bench_blas_version)
cpu=$(bench_cpu)
"$py" - "$results" "$repeat" "$cpu" "$(nproc)" "$torch_version" "$blas_version" \
  "$coretype_note" "$load_before" "$load_after" <<'PYEOF'
import datetime, json, sys

path, repeat, cpu, cores, torch_v, blas_v, coretype, before, after = sys.argv[1:]
rows = [json.loads(line) for line in open(path)]
print("## Llama-family decoders: attnscope vs PyTorch (%s)" % datetime.date.today().isoformat())
print()
print("- machine: %s, %s cores; torch %s; OpenBLAS %s; load average before %s, after %s"
      % (cpu, cores, torch_v, blas_v, before, after))
print("- threads: 2 on both sides (ATTNSCOPE_THREADS = OPENBLAS_NUM_THREADS = OMP_NUM_THREADS = 2, "
      "torch.set_num_threads(2)); %s" % coretype)
print("- models: random weights with the shapes, config values and BF16 dtype of SmolLM2-135M "
      "(30 layers, 9/3 heads, 576, vocab 49152, tied) and Llama-3.2-1B (16 layers, 32/8 heads, "
      "2048, MLP 8192, vocab 128256, llama3 RoPE, tied)")
print("- attnscope: `attnscope bench`, the default full trace (attention [L,H,T,T], contexts, "
      "attention outputs, hidden states, last-position logits) from the BF16 weights kept in "
      "memory; PyTorch: decoder_reference.py bench, HF's eager computation with all attentions, "
      "hidden states and logits, float32 weights; medians of %s passes after a warm-up" % repeat)
print()
speed = [r for r in rows if r["kind"] == "speed"]
if speed:
    print("| model | T | round | attnscope median ms | PyTorch median ms | speed-up | attnscope peak RSS MB | PyTorch peak RSS MB | load (1 min) |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    keys = sorted({(r["model"], r["T"], r["round"]) for r in speed},
                  key=lambda k: (k[0] != "smollm2-135m", k[1], k[2]))
    for k in keys:
        a = next(r for r in speed if (r["model"], r["T"], r["round"]) == k and r["side"] == "attnscope")
        p = next(r for r in speed if (r["model"], r["T"], r["round"]) == k and r["side"] == "pytorch")
        print("| %s | %d | %d | %.1f | %.1f | %.2f× | %.0f | %.0f | %s |" % (
            k[0], k[1], k[2], a["median_ms"], p["median_ms"], p["median_ms"] / a["median_ms"],
            a["time_rss_mb"], p["time_rss_mb"], a["load"]))
    print()
mem = [r for r in rows if r["kind"] in ("memory", "dump")]
if mem:
    print("| Llama-3.2-1B shape | T | peak RSS MB (time -v, whole process) |")
    print("| --- | ---: | ---: |")
    for r in mem:
        what = {"memory": "%s bench (default trace)" % r["side"],
                "dump": "attnscope run --dump (all logits, HDF5)"}[r["kind"]]
        if r["side"] == "pytorch":
            what = "PyTorch decoder_reference.py mem (every output kept)"
        print("| %s | %d | %.0f |" % (what, r["T"], r["time_rss_mb"]))
PYEOF
