#!/usr/bin/env bash
# Builds the libFuzzer harnesses of tests/fuzz (clang, -fsanitize=fuzzer,address,undefined) into
# build-fuzz/ and runs each for SECONDS (default 25), starting from its committed seed corpus and
# crash inputs. Prints one line per harness: executions, corpus size, crashes; a crash input is
# kept under build-fuzz/fuzz-out/NAME/ (commit it to tests/fuzz/regressions/NAME/ once fixed).
# Exits non-zero when a harness crashed. tests/fuzz/README.md ("Fuzzing") says how to run them long.
#   bash tests/fuzz/run-fuzzers.sh [SECONDS] [HARNESS...]
#   bash tests/fuzz/run-fuzzers.sh --build-only     (builds build-fuzz/ and stops)
set -uo pipefail
cd "$(dirname "$0")/../.."
build_only=0
if [ "${1:-}" = --build-only ]; then build_only=1; shift; fi
seconds=${1:-25}
shift || true
harnesses=("$@")
if [ ${#harnesses[@]} -eq 0 ]; then
  harnesses=(keras-h5 config-json vocab-merges bpe-encode matrix-h5 safetensors tokenizer-json
    wordpiece-encode hf-encode spm-model hf-long)
fi

dir=build-fuzz
if [ ! -f "$dir/build.ninja" ]; then
  CC=clang CXX=clang++ meson setup "$dir" -Dfuzzing=true -Db_sanitize=address,undefined -Db_lundef=false \
    -Dbuildtype=debugoptimized >/dev/null || exit 1
fi
ninja -C "$dir" >/dev/null || { ninja -C "$dir"; exit 1; }
[ "$build_only" -eq 1 ] && exit 0

status=0
for name in "${harnesses[@]}"; do
  out="$dir/fuzz-out/$name"
  work="$out/corpus"
  mkdir -p "$work"
  # New inputs go to a scratch corpus; the committed seeds and crash inputs are read only.
  seeds=(tests/fuzz/corpus/"$name")
  [ -d tests/fuzz/regressions/"$name" ] && seeds+=(tests/fuzz/regressions/"$name")
  log="$out/log.txt"
  # keras-probe runs libhdf5 in-process: its leaks are libhdf5's and it stops at libhdf5's crashes.
  leaks=1
  [ "$name" = keras-probe ] && leaks=0
  ATTNSCOPE_SOURCE_DIR=$PWD "$dir/tests/fuzz/fuzz-$name" "$work" "${seeds[@]}" \
    -max_total_time="$seconds" -timeout=60 -rss_limit_mb=4096 -max_len=65536 \
    -detect_leaks=$leaks -artifact_prefix="$out/" -print_final_stats=1 >"$log" 2>&1
  rc=$?
  runs=$(awk '/stat::number_of_executed_units/ {print $2}' "$log" | tail -n 1)
  units=$(find "$work" -type f | wc -l)
  crashes=$(find "$out" -maxdepth 1 -name 'crash-*' -o -maxdepth 1 -name 'leak-*' \
    -o -maxdepth 1 -name 'timeout-*' -o -maxdepth 1 -name 'oom-*' | wc -l)
  echo "fuzz $name: ${runs:-0} executions in ${seconds} s, ${units} new corpus inputs, ${crashes} crashes (exit $rc)"
  if [ "$rc" -ne 0 ]; then
    status=1
    grep -m 5 -E 'ERROR|SUMMARY|fuzz property' "$log"
  fi
done
exit $status
