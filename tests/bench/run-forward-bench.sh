#!/bin/sh
# run-forward-bench.sh — attnscope's forward pass side by side with PyTorch, in one run.
#
# Generates a random distilgpt2-shaped model (6 layers, 12 heads, 768, vocab 50257, 1024
# positions) once in WORK_DIR with tests/reference/gpt2_reference.py, then for every T times
#   attnscope bench --model DIR --tokens T --repeat N --json     (full trace, all logits)
#   gpt2_reference.py bench DIR --tokens T --repeat N --json     (what HF's GPT2LMHeadModel
#                                      computes with output_attentions + output_hidden_states)
# each in its own process under /usr/bin/time -v, both with 2 threads and the same OpenBLAS
# environment. Also reports model load time (attnscope's load_ms vs h5py reading every dataset
# of tf_model.h5) and peak RSS. Prints a markdown report on stdout; raw JSON lines and time(1)
# logs stay in WORK_DIR. Builds nothing: pass the attnscope binary.
#
# usage: tests/bench/run-forward-bench.sh [--unset-openblas-coretype] [--repeat N]
#            [--tokens 8,64,256,1024] [--last-logits] ATTNSCOPE_BIN WORK_DIR
#
# Both sides compute the logits of every position, as HF does (attnscope bench --all-logits);
# --last-logits makes both compute only the last position's.
# --unset-openblas-coretype unsets OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE for BOTH sides, in the
# benchmark commands only (tests/bench/README.md, "Benchmarks": the environment's setting halves OpenBLAS speed on
# these CPUs). Never use it in tests or CI.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
ref="$here/../reference/gpt2_reference.py"
py=${ATTNSCOPE_PYTHON:-/usr/bin/python3}
unset_coretype=0
last_logits=0
repeat=10
tokens=8,64,256,1024

while [ $# -gt 0 ]; do
  case "$1" in
    --unset-openblas-coretype) unset_coretype=1; shift ;;
    --repeat) repeat=$2; shift 2 ;;
    --tokens) tokens=$2; shift 2 ;;
    --last-logits) last_logits=1; shift ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    --*) echo "run-forward-bench.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
if [ $# -ne 2 ]; then
  echo "usage: $0 [--unset-openblas-coretype] [--repeat N] [--tokens LIST] [--last-logits]" \
    "ATTNSCOPE_BIN WORK_DIR" >&2
  exit 2
fi
bin=$1
work=$2
[ -x "$bin" ] || { echo "run-forward-bench.sh: $bin is not an executable" >&2; exit 1; }
if [ ! -x /usr/bin/time ]; then
  echo "run-forward-bench.sh: needs /usr/bin/time (apt-get install time)" >&2
  exit 1
fi
mkdir -p "$work"
model="$work/distilgpt2-shape"

if [ ! -f "$model/tf_model.h5" ]; then
  tok="$here/../fixtures/gpt2-tokenizer"
  set -- --layers 6 --heads 12 --embd 768 --vocab 50257 --positions 1024 --std 0.05 --seed 1
  if [ -f "$tok/vocab.json" ]; then set -- "$@" --tokenizer-from "$tok"; fi
  "$py" "$ref" make-model "$model" "$@" >&2
fi

# The same environment for both sides: 2 threads for OpenBLAS, OpenMP and torch.
export OPENBLAS_NUM_THREADS=2 OMP_NUM_THREADS=2
coretype_note="OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-<unset>}"
coretype_note="$coretype_note OPENBLAS_L2_SIZE=${OPENBLAS_L2_SIZE:-<unset>}"
run() {
  if [ "$unset_coretype" = 1 ]; then
    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE "$@"
  else
    "$@"
  fi
}
if [ "$unset_coretype" = 1 ]; then
  coretype_note="unset for both sides (--unset-openblas-coretype)"
fi

results="$work/results.jsonl"
: > "$results"
for t in $(echo "$tokens" | tr ',' ' '); do
  for side in attnscope pytorch; do
    log="$work/time-$side-$t.log"
    if [ "$side" = attnscope ]; then
      set -- "$bin" bench --model "$model" --tokens "$t" --repeat "$repeat" --json
      if [ "$last_logits" = 0 ]; then set -- "$@" --all-logits; fi
    else
      set -- "$py" "$ref" bench "$model" --tokens "$t" --repeat "$repeat" --threads 2 --json
      if [ "$last_logits" = 1 ]; then set -- "$@" --last-logits; fi
    fi
    out=$(run /usr/bin/time -v -o "$log" "$@") || {
      echo "run-forward-bench.sh: $side failed at T=$t (see $log)" >&2; exit 1; }
    rss_kb=$(sed -n 's/.*Maximum resident set size (kbytes): *//p' "$log")
    # Keep the last JSON object the command printed, tagged with the side and time(1)'s RSS.
    echo "$out" | grep '^{' | tail -n 1 | "$py" -c '
import json, sys
rec = json.loads(sys.stdin.read())
rec.update(side=sys.argv[1], T=int(sys.argv[2]), time_rss_mb=int(sys.argv[3]) / 1024.0)
print(json.dumps(rec))' "$side" "$t" "${rss_kb:-0}" >> "$results"
  done
done

torch_version=$("$py" -c 'import torch; print(torch.__version__)' 2>/dev/null || echo unknown)
blas_version=$(dpkg-query -W -f '${Package} ${Version}\n' 'libopenblas0*' 2>/dev/null \
  | awk 'NF == 2' | head -n 1)
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)

"$py" - "$results" "$repeat" "$cpu" "$(nproc)" "$torch_version" "${blas_version:-unknown}" \
  "$coretype_note" "$(du -m "$model/tf_model.h5" | cut -f1)" "$last_logits" <<'EOF'
import datetime, json, sys

path, repeat, cpu, cores, torch_v, blas_v, coretype, size_mb, last = sys.argv[1:]
logits = "last-position logits only" if last == "1" else "logits for all positions"
rows = {}
for line in open(path):
    r = json.loads(line)
    rows.setdefault(r["T"], {})[r["side"]] = r

def f(x, digits=1):
    return "—" if x is None else ("%.*f" % (digits, x))

print("## Forward pass: attnscope vs PyTorch (%s)" % datetime.date.today().isoformat())
print()
print("- machine: %s, %s cores; torch %s; OpenBLAS %s" % (cpu, cores, torch_v, blas_v))
print("- model: random distilgpt2-shaped GPT-2 (6 layers, 12 heads, 768, vocab 50257), "
      "tf_model.h5 %s MiB; %s; median and min of %s timed passes after a warm-up"
      % (size_mb, logits, repeat))
print("- threads: 2 on both sides (OPENBLAS_NUM_THREADS=2, OMP_NUM_THREADS=2, "
      "torch.set_num_threads(2)); %s" % coretype)
print("- attnscope: `attnscope bench` (full trace: attention, q/k/v/contexts, attention outputs, "
      "hidden states, logits); PyTorch: the HF GPT2LMHeadModel computation with "
      "output_attentions and output_hidden_states, torch.no_grad, float32")
print()
print("| T | attnscope median ms | attnscope min ms | PyTorch median ms | PyTorch min ms "
      "| speed-up (PyTorch / attnscope, medians) | attnscope peak RSS MB | PyTorch peak RSS MB |")
print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
for t in sorted(rows):
    a, p = rows[t].get("attnscope", {}), rows[t].get("pytorch", {})
    am, pm = a.get("median_ms"), p.get("median_ms")
    ratio = "%.2f×" % (pm / am) if am and pm else "—"
    print("| %d | %s | %s | %s | %s | %s | %s | %s |" % (
        t, f(am, 2), f(a.get("min_ms"), 2), f(pm, 2), f(p.get("min_ms"), 2), ratio,
        f(a.get("time_rss_mb"), 0), f(p.get("time_rss_mb"), 0)))
print()
loads_a = [r["attnscope"]["load_ms"] for r in rows.values() if "load_ms" in r.get("attnscope", {})]
loads_p = [r["pytorch"]["load_ms"] for r in rows.values() if "load_ms" in r.get("pytorch", {})]
print("Model load (tf_model.h5, %s MiB, warm page cache; min over the %d runs): attnscope %s ms "
      "(load_ms: open, validate, read all weights), h5py reading every dataset %s ms."
      % (size_mb, len(rows), f(min(loads_a) if loads_a else None),
         f(min(loads_p) if loads_p else None)))
print()
print("Peak RSS is time(1)'s maximum resident set size of each whole process (one process per T "
      "and side; PyTorch's includes the Python interpreter and torch itself).")
EOF
