#!/bin/sh
# bench-heatmap-zoom.sh — issue 15's zoom benchmark: the heatmap view's frame at T = 1024, whole
# and zoomed to 512 … 16 rows, and panning a 64-row view (target: a zoomed frame ≤ 16 ms), timed
# by tests/bench/bench-heatmap-zoom under Xvfb (1280 × 800) with the renderer the app picks
# without a GPU (Cairo; GSK_RENDERER=... chooses another). Prints a markdown table with the date,
# the machine and the load average; the JSON lines go to WORK_DIR/bench-heatmap-zoom.jsonl.
#
# usage: tests/bench/bench-heatmap-zoom.sh [--tokens T] [--repeat N] BUILD_DIR WORK_DIR
set -eu

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
py=${ATTNSCOPE_PYTHON:-/usr/bin/python3}
tokens=1024
repeat=30
while [ $# -gt 0 ]; do
  case "$1" in
    --tokens) tokens=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    --*) echo "bench-heatmap-zoom.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
if [ $# -ne 2 ]; then
  echo "usage: bench-heatmap-zoom.sh [--tokens T] [--repeat N] BUILD_DIR WORK_DIR" >&2
  exit 2
fi
build=$(cd "$1" && pwd)
mkdir -p "$2"
work=$(cd "$2" && pwd)
ninja -C "$build" tests/bench/bench-heatmap-zoom >&2

export GTK_A11Y=none GDK_BACKEND=x11 NO_AT_BRIDGE=1 GSETTINGS_BACKEND=memory LANGUAGE=C
export GSK_RENDERER=${GSK_RENDERER:-cairo}
load_before=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "?")
xvfb-run -a -s '-screen 0 1280x800x24' "$build/tests/bench/bench-heatmap-zoom" \
  --tokens "$tokens" --repeat "$repeat" > "$work/bench-heatmap-zoom.jsonl"
load_after=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "?")
cpu=$(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1)
rev=$(git -C "$src" rev-parse --short HEAD 2>/dev/null || echo "?")

"$py" - "$cpu" "$(nproc)" "$rev" "$load_before -> $load_after" "$work/bench-heatmap-zoom.jsonl" <<'PY'
import datetime, json, sys

cpu, cores, rev, load, path = sys.argv[1:6]
rows = [json.loads(line) for line in open(path) if line.startswith("{")]
env = next(r for r in rows if r.get("env"))
print(f"Date {datetime.date.today().isoformat()}; machine: {cpu}, {cores} cores; load average "
      f"(1, 5, 15 min) before -> after: {load}; attnscope {rev}, GTK {env['gtk']}, renderer "
      f"{env['renderer']}, Xvfb 1280x800x24, heatmap widget {env['width']}x{env['height']} px, "
      f"T = {env['tokens']}, {env['repeat']} frames each.\n")
print("| rows in view | snapshot median / max (ms) | frame median / max (ms) | ≤ 16 ms |")
print("| ---: | ---: | ---: | :---: |")
by = {}
for r in rows:
    if "what" in r:
        by.setdefault((r["view"], r["what"].replace("pan-", "")), {})[r["what"].startswith("pan")] = r
views = []
for r in rows:
    if "what" in r and (r["view"], r["what"].startswith("pan")) not in views:
        views.append((r["view"], r["what"].startswith("pan")))
for view, pan in views:
    s = by[(view, "snapshot")][pan]
    f = by[(view, "frame")][pan]
    name = ("all" if view == 0 else str(view)) + (" (panning)" if pan else "")
    ok = "yes" if f["median_ms"] <= 16 else "no"
    print(f"| {name} | {s['median_ms']:.1f} / {s['max_ms']:.1f} | {f['median_ms']:.1f} / "
          f"{f['max_ms']:.1f} | {ok} |")
PY
