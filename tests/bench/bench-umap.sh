#!/bin/sh
# bench-umap.sh — attnscope's UMAP side by side with umap-js (npm), in one run.
#
# Data: scikit-learn's digits (1797 × 64, tests/reference/umap_reference.py digits) and, for
# every N of --sizes (default 2000, 5000, 10000), a labelled Gaussian mixture of N points in 128
# dimensions (the width of attnscope-mini's vectors; 10 clusters, seed 1, written once to
# WORK_DIR by tests/reference/sklearn_reference.py gen). For each, each side in its own process:
#   bench-umap --threads 1 and --threads 2   attnscope: the whole run (exact k-NN, graph,
#                                             spectral init, descent)
#   node peer-umap.js                          umap-js 1.4.0: fit() (NN-descent, graph, random
#                                             init, descent); JavaScript runs on one thread
#   umap_reference.py trust                    trustworthiness (k = 15) of both embeddings
# Both with 15 neighbours, min_dist 0.1 and the same epochs (umap-learn's default: 500 up to
# 10,000 points, 200 above), seed 1. Prints a markdown report on stdout; the raw JSON lines stay
# in WORK_DIR. umap-js is installed by npm into WORK_DIR/npm on the first run.
#
# usage: tests/bench/bench-umap.sh [--sizes 2000,5000,10000] [--unset-openblas-coretype]
#            BENCH_UMAP_BIN WORK_DIR
#
# --unset-openblas-coretype unsets OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE for BOTH sides, in the
# benchmark commands only (tests/bench/README.md, "Benchmarks"). Never use it in tests or CI.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
sk="$here/../reference/sklearn_reference.py"
ur="$here/../reference/umap_reference.py"
peer="$here/../reference/umap-peer/peer-umap.js"
py=${ATTNSCOPE_PYTHON:-/usr/bin/python3}
sizes=2000,5000,10000
unset_coretype=0

while [ $# -gt 0 ]; do
  case "$1" in
    --sizes) sizes=$2; shift 2 ;;
    --unset-openblas-coretype) unset_coretype=1; shift ;;
    -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
    --*) echo "bench-umap.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
if [ $# -ne 2 ]; then
  echo "usage: bench-umap.sh [--sizes LIST] [--unset-openblas-coretype] BENCH_UMAP_BIN WORK_DIR" >&2
  exit 2
fi
bin=$1
work=$2
[ -x "$bin" ] || { echo "bench-umap.sh: $bin is not an executable" >&2; exit 1; }
mkdir -p "$work"
export OMP_NUM_THREADS=2 OPENBLAS_NUM_THREADS=2
if [ "$unset_coretype" = 1 ]; then
  unset OPENBLAS_CORETYPE OPENBLAS_L2_SIZE || true
fi

# NAME.h5 (dataset x) -> NAME.f32 for the peer; prints "N D"
shape() {
  "$py" - "$1" "$2" <<'EOF'
import sys, h5py, numpy as np
x = np.asarray(h5py.File(sys.argv[1], "r")["x"], dtype=np.float32)
x.tofile(sys.argv[2])
print(x.shape[0], x.shape[1])
EOF
}

# embedding F.f32 [n][2] -> F.h5 dataset y
to_h5() {
  "$py" - "$1" "$2" <<'EOF'
import sys, h5py, numpy as np
y = np.fromfile(sys.argv[1], dtype=np.float32).reshape(-1, 2)
with h5py.File(sys.argv[2], "w") as f:
    f["y"] = y
EOF
}

# Runs the command after FILE; writes its process CPU seconds (user + system, GNU time) to FILE.
cpu() {
  out=$1
  shift
  /usr/bin/time -f '%U %S' -o "$out.raw" "$@"
  awk '{print $1 + $2}' "$out.raw" > "$out"
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "?")
results="$work/results.jsonl"
: > "$results"
[ -f "$work/digits.h5" ] || "$py" "$ur" digits --out "$work/digits.h5"
sets=digits
for n in $(echo "$sizes" | tr ',' ' '); do
  [ -f "$work/mixture-$n.h5" ] || "$py" "$sk" gen --out "$work/mixture-$n.h5" --n "$n" --d 128 \
    --clusters 10 --seed 1
  sets="$sets mixture-$n"
done
for s in $sets; do
  x="$work/$s.h5"
  set -- $(shape "$x" "$work/$s.f32")
  n=$1 d=$2
  if [ "$n" -le 10000 ]; then epochs=500; else epochs=200; fi
  echo "$s (n=$n, d=$d): attnscope..." >&2
  one=$(cpu "$work/cpu-ours1" "$bin" --input "$x" --threads 1 --seed 1 --out "$work/ours1-$s.h5")
  two=$("$bin" --input "$x" --threads 2 --seed 1 --out "$work/ours-$s.h5")
  echo "$s: umap-js..." >&2
  js=$(cpu "$work/cpu-js" node "$peer" "$work/npm" "$work/$s.f32" "$n" "$d" "$work/js-$s.f32" \
         --seed 1 --epochs "$epochs")
  to_h5 "$work/js-$s.f32" "$work/js-$s.h5"
  echo "$s: trustworthiness..." >&2
  t_ours=$("$py" "$ur" trust --input "$x" --embedding "$work/ours-$s.h5")
  t_js=$("$py" "$ur" trust --input "$x" --embedding "$work/js-$s.h5")
  printf '{"set": "%s", "n": %s, "d": %s, "ours1": %s, "ours2": %s, "js": %s, "trust_ours": %s, "trust_js": %s, "cpu_ours1": %s, "cpu_js": %s}\n' \
    "$s" "$n" "$d" "$one" "$two" "$js" "$t_ours" "$t_js" "$(cat "$work/cpu-ours1")" \
    "$(cat "$work/cpu-js")" >> "$results"
done

cpu=$(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1)
gccv=$(gcc -dumpfullversion 2>/dev/null || echo "?")
blas=$(pkg-config --modversion openblas 2>/dev/null || echo "?")
nodev=$(node --version 2>/dev/null || echo "?")
rev=$(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo "?")
load="$load_before -> $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "?")"
"$py" - "$results" "$cpu" "$(nproc)" "$gccv" "$blas" "$nodev" "$rev" "$load" <<'EOF'
import datetime, json, sys

path, cpu, cores, gccv, blas, nodev, rev, load = sys.argv[1:]
rows = [json.loads(line) for line in open(path)]
print(f"# UMAP: attnscope vs umap-js ({datetime.date.today().isoformat()})\n")
print(f"Machine: {cpu}, {cores} cores. attnscope {rev} (gcc {gccv}, OpenBLAS {blas}); umap-js 1.4.0 "
      f"on Node.js {nodev}. Load average (1, 5, 15 min) before -> after: {load}.")
print("Both: 15 neighbours, min_dist 0.1, 500 epochs, seed 1. attnscope: exact k-NN, spectral "
      "initialisation; umap-js: NN-descent, random initialisation, one thread (JavaScript).\n")
print("| data | n | d | attnscope 1 thread s | attnscope 2 threads s | umap-js s | speed-up "
      "(umap-js / attnscope 1 thread) | CPU s attnscope 1 thread | CPU s umap-js | CPU speed-up | "
      "trust attnscope | trust umap-js |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
for r in rows:
    a1, a2, js = r["ours1"]["umap_ms"] / 1000, r["ours2"]["umap_ms"] / 1000, r["js"]["seconds"]
    c1, cj = r["cpu_ours1"], r["cpu_js"]
    print(f"| {r['set']} | {r['n']} | {r['d']} | {a1:.2f} | {a2:.2f} | {js:.2f} | {js / a1:.1f}× | "
          f"{c1:.2f} | {cj:.2f} | {cj / c1:.1f}× | "
          f"{r['trust_ours']['trust']:.4f} | {r['trust_js']['trust']:.4f} |")
print("\nTimes in seconds. Wall: attnscope's whole as_umap_run (neighbours included), umap-js's "
      "UMAP.fit() (neighbours included), without reading the data. CPU: user + system time of the "
      "whole process (GNU time; reading the data, and for umap-js starting Node.js, included), "
      "the measure that a loaded machine inflates least. Trustworthiness: "
      "sklearn.manifold.trustworthiness with n_neighbors = 15, of the 2-thread attnscope run.")
EOF
