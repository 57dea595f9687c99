#!/bin/sh
# bench-heatmap-zoom.sh — the zoom benchmark: the heatmap view's frame at T = 1024, whole
# and zoomed to 512 … 16 rows, the view moving (every frame draws anew; target: a zoomed frame
# ≤ 16 ms) and the same view redrawn (the widget keeps its drawing), timed
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
print("| rows in view | view moved: snapshot median / max (ms) | view moved: frame median / max "
      "(ms) | ≤ 16 ms | same view redrawn: snapshot / frame median (ms) |")
print("| ---: | ---: | ---: | :---: | ---: |")
by = {(r["view"], r["what"]): r for r in rows if "what" in r}
for view in dict.fromkeys(r["view"] for r in rows if "what" in r):
    ms, mf = by[(view, "moved-snapshot")], by[(view, "moved-frame")]
    s, f = by[(view, "snapshot")], by[(view, "frame")]
    name = "all" if view == 0 else str(view)
    ok = "yes" if mf["median_ms"] <= 16 else "no"
    print(f"| {name} | {ms['median_ms']:.1f} / {ms['max_ms']:.1f} | {mf['median_ms']:.1f} / "
          f"{mf['max_ms']:.1f} | {ok} | {s['median_ms']:.1f} / {f['median_ms']:.1f} |")
PY
