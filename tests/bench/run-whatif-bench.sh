#!/bin/sh
# run-whatif-bench.sh — `attnscope ablate --scan` and `attnscope patch --what resid` side by side
# with the same experiments in PyTorch with hooks (tests/reference/whatif_reference.py), in one
# run, on a random distilgpt2-shaped model (6 layers, 12 heads, 768, vocabulary 50257) at T = 32.
#
#   scan   every one of the 72 heads switched off in turn, the logit difference " the" − " man"
#          at the last position: attnscope starts each ablated pass at the head's layer from the
#          clean pass's residual stream (prefix reuse); the PyTorch peer runs a hooked forward
#          pass per head from the embeddings, as run_with_hooks does
#   resid  the residual stream at each of the 6 × 32 (layer, position) cells patched from B into
#          A, the same measure normalised
# The peer also checks attnscope's numbers (1e-4 relative, 1e-4 absolute), so both sides are
# exact against each other. Both sides use 2 threads; times are wall seconds of the whole
# attnscope command (load included) against the peer's compute loop only (model load excluded).
#
# usage: tests/bench/run-whatif-bench.sh [--unset-openblas-coretype] ATTNSCOPE_BIN WORK_DIR
set -eu

here=$(cd "$(dirname "$0")" && pwd)
. "$here/bench-lib.sh"
py=${ATTNSCOPE_PYTHON:-/usr/bin/python3}
unset_coretype=0
if [ "${1:-}" = --unset-openblas-coretype ]; then unset_coretype=1; shift; fi
bin=$1
work=$2
mkdir -p "$work"
model="$work/distilgpt2-shaped"
if [ ! -f "$model/config.json" ]; then
  "$py" "$here/../reference/gpt2_reference.py" make-model "$model" --layers 6 --heads 12 \
    --embd 768 --vocab 50257 --positions 1024 --seed 3 >/dev/null
  cp "$here/../fixtures/tiny-gpt2/vocab.json" "$here/../fixtures/tiny-gpt2/merges.txt" "$model/"
fi
# 32 tokens each with the tiny tokenizer, differing at one word
a="the man is with the heads of every man that is with the man of the heads that is with every man of the man that is with the man of"
b="the man is with the heads of every man that is with the man of the heads that is with every man of the heads that is with the man of"
export ATTNSCOPE_THREADS=2 OPENBLAS_NUM_THREADS=2

seconds() { date +%s.%N; }
t0=$(seconds)
bench_run "$bin" ablate --scan --model "$model" --text "$a" --token " the" --vs-token " man" \
  --json >"$work/scan.json"
t1=$(seconds)
bench_run "$bin" patch --model "$model" --text "$a" --text "$b" --token " the" \
  --vs-token " man" --what resid --json >"$work/resid.json"
t2=$(seconds)
scan_peer=$(bench_run "$py" "$here/../reference/whatif_reference.py" check-scan --family gpt2 \
  --model "$model" --json "$work/scan.json")
resid_peer=$(bench_run "$py" "$here/../reference/whatif_reference.py" check-patch --family gpt2 \
  --model "$model" --json "$work/resid.json")

layers() { "$py" -c "import json,sys; d=json.load(open(sys.argv[1])); print('%d passes, %d of %d layers computed' % (d['passes'], d['layers_computed'], d['layers_full']))" "$1"; }
echo "date: $(date -u '+%Y-%m-%d %H:%M UTC'); CPU: $(bench_cpu), $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GB;"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); $(bench_coretype_note); $(bench_blas_version)"
echo
echo "| experiment | attnscope (s, whole command) | passes / layers | PyTorch hooks (s, compute) | speed-up | peer's check |"
echo "|---|---|---|---|---|---|"
for kind in scan resid; do
  if [ $kind = scan ]; then ours=$(echo "$t1 - $t0" | bc); peer=$scan_peer; else ours=$(echo "$t2 - $t1" | bc); peer=$resid_peer; fi
  peer_s=$(echo "$peer" | sed -n 's/.*, \([0-9.]*\) s$/\1/p')
  err=$(echo "$peer" | sed -n 's/.*largest relative error \([^,]*\),.*/\1/p')
  echo "| $kind | $(printf %.3f "$ours") | $(layers "$work/$kind.json") | $peer_s | $(echo "scale=2; $peer_s / $ours" | bc)x | largest rel. error $err |"
done
