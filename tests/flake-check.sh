#!/bin/sh
# flake-check.sh — runs the whole test suite N times under a CPU hog on every core and reports
# every test that failed even once (tests/README.md, "Flaky tests").
#
# usage: tests/flake-check.sh [--runs N] [--hog stress-ng|shell|none] [BUILD_DIR] [-- MESON_ARGS...]
#
# N defaults to 5, BUILD_DIR to build. The hog keeps every core busy for the whole session:
# `stress-ng --cpu 0` (Debian's stress-ng, installed by .ci/install-deps test) or, without it or
# with --hog shell, one shell busy loop per core; --hog none runs without one. Each run is
# `meson test -C BUILD_DIR --no-rebuild --logbase flake-K MESON_ARGS...` (the build must be up to
# date: run ninja first); its log stays in BUILD_DIR/meson-logs/flake-K.txt. The report lists
# every test that did not pass in some run, with how often and how (FAIL, TIMEOUT, ERROR), and
# ends with one line "flake-check: N runs, M tests, F failed at least once"; the exit status is 1
# when F > 0.
set -eu

runs=5
hog=auto
build=build
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs=$2; shift 2 ;;
    --hog) hog=$2; shift 2 ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    --) shift; break ;;
    -*) echo "flake-check.sh: unknown option $1" >&2; exit 2 ;;
    *) build=$1; shift ;;
  esac
done
case "$runs" in
  ''|*[!0-9]*|0) echo "flake-check.sh: --runs takes a number of runs >= 1, not '$runs'" >&2; exit 2 ;;
esac
if [ ! -f "$build/build.ninja" ]; then
  echo "flake-check.sh: $build is not a meson build folder (meson setup $build first)" >&2
  exit 2
fi
py=${ATTNSCOPE_PYTHON:-/usr/bin/python3}
cores=$(nproc)

hog_pids=""
stop_hog() {
  for pid in $hog_pids; do
    kill "$pid" 2>/dev/null || true
  done
  for pid in $hog_pids; do
    wait "$pid" 2>/dev/null || true
  done
  hog_pids=""
}
trap stop_hog EXIT
trap 'stop_hog; exit 130' INT TERM

if [ "$hog" = auto ]; then
  if command -v stress-ng >/dev/null 2>&1; then hog=stress-ng; else hog=shell; fi
fi
case "$hog" in
  stress-ng)
    stress-ng --cpu 0 --quiet >/dev/null 2>&1 &
    hog_pids=$!
    ;;
  shell)
    i=0
    while [ "$i" -lt "$cores" ]; do
      sh -c 'while :; do :; done' &
      hog_pids="$hog_pids $!"
      i=$((i + 1))
    done
    ;;
  none) ;;
  *) echo "flake-check.sh: --hog takes stress-ng, shell or none, not '$hog'" >&2; exit 2 ;;
esac
echo "flake-check: $runs runs of the suite in $build, CPU hog: $hog on $cores cores," \
  "load average $(cut -d' ' -f1-3 /proc/loadavg)"

logs=""
k=1
while [ "$k" -le "$runs" ]; do
  start=$(date +%s)
  # a failing run is what we are looking for: keep going
  meson test -C "$build" --no-rebuild --logbase "flake-$k" "$@" >"$build/meson-logs/flake-$k.out" 2>&1 || true
  echo "flake-check: run $k: $(grep -E '^(Ok|Fail|Timeout|Skipped):' "$build/meson-logs/flake-$k.out" |
    tr -s ' ' | tr '\n' ' ')in $(( $(date +%s) - start )) s, load average $(cut -d' ' -f1-3 /proc/loadavg)"
  logs="$logs $build/meson-logs/flake-$k.json"
  k=$((k + 1))
done
stop_hog

# meson writes one JSON object per test and line; tally the results that are not a pass or skip.
"$py" - $logs <<'EOF'
import collections, json, sys
bad = collections.defaultdict(list)
tests = set()
for run, path in enumerate(sys.argv[1:], 1):
    with open(path) as f:
        for line in f:
            t = json.loads(line)
            tests.add(t["name"])
            if t["result"] not in ("OK", "SKIP", "EXPECTEDFAIL"):
                bad[t["name"]].append("run %d: %s" % (run, t["result"]))
for name in sorted(bad):
    print("flake-check: %s failed %d of %d runs (%s)" % (name, len(bad[name]), len(sys.argv) - 1,
                                                        ", ".join(bad[name])))
print("flake-check: %d runs, %d tests, %d failed at least once" % (len(sys.argv) - 1, len(tests),
                                                                   len(bad)))
sys.exit(1 if bad else 0)
EOF
