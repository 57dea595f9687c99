#!/bin/sh
# bench-tsne.sh — attnscope's t-SNE and PCA side by side with scikit-learn, in one run.
#
# For every N (default 200, 1000, 3000) a labelled Gaussian mixture of N points in 768
# dimensions (5 clusters, seed 1) is written once to WORK_DIR by
# tests/reference/sklearn_reference.py gen. Then, each in its own process, with 2 threads on both
# sides (OMP_NUM_THREADS = OPENBLAS_NUM_THREADS = 2, sklearn n_jobs=2, attnscope --threads 2):
#   bench-tsne --input X.h5 --method M --out Y.h5      attnscope: PCA(2) median of 5, t-SNE once
#   sklearn_reference.py tsne --method M                sklearn TSNE(init="pca", learning_rate=
#                                                      "auto", perplexity 30, n_iter 1000)
#   sklearn_reference.py score                         trustworthiness (k=10) and the exact KL of
#                                                      attnscope's embedding, computed by sklearn
#   sklearn_reference.py bench-pca                     sklearn PCA(2).fit_transform, median of 5
# M is "exact" for N <= 1000 and "barnes_hut" above (exact t-SNE costs O(N²) per iteration).
# Prints a markdown report on stdout; the raw JSON lines stay in WORK_DIR. Builds nothing: pass
# the bench-tsne binary (meson builds it as tests/bench/bench-tsne).
#
# usage: tests/bench/bench-tsne.sh [--sizes 200,1000,3000] [--unset-openblas-coretype]
#            BENCH_TSNE_BIN WORK_DIR
#
# --unset-openblas-coretype unsets OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE for BOTH sides, in the
# benchmark commands only (tests/bench/README.md, "Benchmarks"). Never use it in tests or CI.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
ref="$here/../reference/sklearn_reference.py"
py=${ATTNSCOPE_PYTHON:-/usr/bin/python3}
sizes=200,1000,3000
unset_coretype=0

while [ $# -gt 0 ]; do
  case "$1" in
    --sizes) sizes=$2; shift 2 ;;
    --unset-openblas-coretype) unset_coretype=1; shift ;;
    -h|--help) sed -n '2,23p' "$0"; exit 0 ;;
    --*) echo "bench-tsne.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
if [ $# -ne 2 ]; then
  echo "usage: bench-tsne.sh [--sizes LIST] [--unset-openblas-coretype] BENCH_TSNE_BIN WORK_DIR" >&2
  exit 2
fi
bin=$1
work=$2
[ -x "$bin" ] || { echo "bench-tsne.sh: $bin is not an executable" >&2; exit 1; }
mkdir -p "$work"

export OMP_NUM_THREADS=2 OPENBLAS_NUM_THREADS=2
if [ "$unset_coretype" = 1 ]; then
  unset OPENBLAS_CORETYPE OPENBLAS_L2_SIZE || true
fi

load_before=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "?")
results="$work/results.jsonl"
: > "$results"
for n in $(echo "$sizes" | tr ',' ' '); do
  x="$work/mixture-$n.h5"
  [ -f "$x" ] || "$py" "$ref" gen --out "$x" --n "$n" --d 768 --clusters 5 --seed 1
  if [ "$n" -le 1000 ]; then method=exact; else method=barnes_hut; fi
  echo "N=$n ($method): attnscope..." >&2
  ours=$("$bin" --input "$x" --method "$method" --threads 2 --out "$work/attnscope-$n.h5")
  score=$("$py" "$ref" score --input "$x" --embedding "$work/attnscope-$n.h5" --method "$method")
  echo "N=$n ($method): scikit-learn..." >&2
  theirs=$("$py" "$ref" tsne --input "$x" --out "$work/sklearn-$n.h5" --method "$method" \
             --threads 2)
  pca=$("$py" "$ref" bench-pca --input "$x" --threads 2)
  printf '{"n": %s, "method": "%s", "attnscope": %s, "score": %s, "sklearn": %s, "sklearn_pca": %s}\n' \
    "$n" "$method" "$ours" "$score" "$theirs" "$pca" >> "$results"
done

cpu=$(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1)
gccv=$(gcc -dumpfullversion 2>/dev/null || echo "?")
blas=$(pkg-config --modversion openblas 2>/dev/null || echo "?")
rev=$(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo "?")
load="$load_before -> $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "?")"
"$py" - "$results" "$cpu" "$(nproc)" "$gccv" "$blas" "$rev" "$load" <<'EOF'
import datetime, json, sys
import numpy, scipy, sklearn

path, cpu, cores, gccv, blas, rev, load = sys.argv[1:]
rows = [json.loads(line) for line in open(path)]
print(f"# t-SNE and PCA: attnscope vs scikit-learn ({datetime.date.today().isoformat()})\n")
print(f"Machine: {cpu}, {cores} cores. attnscope {rev} (gcc {gccv}, OpenBLAS {blas}); "
      f"scikit-learn {sklearn.__version__}, numpy {numpy.__version__}, scipy {scipy.__version__}. "
      f"Load average (1, 5, 15 min) before -> after: {load}.")
print("Data: Gaussian mixture, 768 dimensions, 5 clusters (sklearn_reference.py gen, seed 1). "
      "t-SNE: perplexity 30, 1000 iterations, PCA init, learning rate auto, 2 threads each side.\n")
print("| N | method | attnscope ms | sklearn ms | speed-up | KL attnscope | KL sklearn | "
      "KL ratio | trust attnscope | trust sklearn | PCA attnscope ms | PCA sklearn ms |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
for r in rows:
    a, s, sc = r["attnscope"], r["sklearn"], r["score"]
    ms_s = s["seconds"] * 1000.0
    print(f"| {r['n']} | {r['method']} | {a['tsne_ms']:.0f} | {ms_s:.0f} | "
          f"{ms_s / a['tsne_ms']:.1f}× | {a['kl']:.4f} | {s['kl']:.4f} | {a['kl'] / s['kl']:.3f} | "
          f"{sc['trust']:.4f} | {s['trust']:.4f} | {a['pca_ms']:.1f} | {r['sklearn_pca']['ms']:.1f} |")
print("\nKL attnscope is the exact KL of the final embedding (for Barnes-Hut against the sparse "
      "neighbour P that both optimise); KL sklearn is kl_divergence_ (for Barnes-Hut, the tree "
      "estimate). Recomputed exactly by sklearn for both embeddings: "
      + ", ".join(f"N={r['n']}: attnscope {r['score']['exact_kl']:.4f} / sklearn "
                  f"{r['sklearn']['exact_kl']:.4f}" for r in rows) + ".")
EOF
