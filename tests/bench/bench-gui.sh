#!/bin/sh
# bench-gui.sh — the GUI benchmark: the real window under Xvfb (1280 × 800), timed by
# tests/bench/bench-gui (see the top of bench-gui.c for exactly what is measured):
#   keystroke → new heatmap on screen, 30 texts of T ≤ 32 tokens     target: median ≤ 100 ms
#   the 6 × 12 all-heads grid at T = 32: render, snapshot, frame      target: ≤ 16 ms
#   the attention view at T = 512: render, snapshot, frame, head
#   switches, hover hit test and tooltip                             target: ≤ 16 ms per frame
#   at T = 1024: the longest UI-thread stall of page switches, token clicks,
#   annotation toggles and layer/head steps                          target: ≤ 16 ms each
# on a distilgpt2-shaped random model (6 layers, 12 heads, 768 wide, vocabulary 50257, 1024
# positions, GPT-2's tokenizer), made once in WORK_DIR by tests/reference/gpt2_reference.py
# make-model unless --model names an existing one.
#
# The program runs once per GSK renderer of --renderers (default "default,cairo": GTK's own
# choice, which under Xvfb is the GL renderer on Mesa's software rasteriser, and the Cairo
# renderer). Prints a markdown report on stdout; the JSON lines stay in WORK_DIR. Builds
# tests/bench/bench-gui in BUILD_DIR first (and the compiled settings schema).
#
# usage: tests/bench/bench-gui.sh [--model DIR] [--repeat N] [--switches N] [--stall-repeat N]
#            [--stalls-only] [--renderers default,cairo,gl] [--unset-openblas-coretype]
#            BUILD_DIR WORK_DIR
#
# --unset-openblas-coretype unsets OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE in the benchmark
# command only (tests/bench/README.md, "Benchmarks"). Never use it in tests or CI.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
py=${ATTNSCOPE_PYTHON:-/usr/bin/python3}
model=
repeat=100
switches=30
stall_repeat=5
stalls_only=
renderers=default,cairo
unset_coretype=0

while [ $# -gt 0 ]; do
  case "$1" in
    --model) model=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --switches) switches=$2; shift 2 ;;
    --stall-repeat) stall_repeat=$2; shift 2 ;;
    --stalls-only) stalls_only=--stalls-only; shift ;;
    --renderers) renderers=$2; shift 2 ;;
    --unset-openblas-coretype) unset_coretype=1; shift ;;
    -h|--help) sed -n '2,26p' "$0"; exit 0 ;;
    --*) echo "bench-gui.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
if [ $# -ne 2 ]; then
  echo "usage: bench-gui.sh [--model DIR] [--repeat N] [--switches N] [--stall-repeat N]" \
    "[--stalls-only] [--renderers LIST] [--unset-openblas-coretype] BUILD_DIR WORK_DIR" >&2
  exit 2
fi
build=$(cd "$1" && pwd)
work=$2
mkdir -p "$work"
work=$(cd "$work" && pwd)

ninja -C "$build" tests/bench/bench-gui assets/gschemas.compiled >&2
bin="$build/tests/bench/bench-gui"

if [ -z "$model" ]; then
  model="$work/distilgpt2-shape"
  if [ ! -f "$model/tf_model.h5" ]; then
    "$py" "$src/tests/reference/gpt2_reference.py" make-model "$model" --layers 6 --heads 12 \
      --embd 768 --vocab 50257 --positions 1024 --std 0.05 --seed 1 \
      --tokenizer-from "$src/tests/fixtures/gpt2-tokenizer" >&2
  fi
fi
[ -f "$model/config.json" ] || { echo "bench-gui.sh: no model in $model" >&2; exit 1; }

# As the GUI tests run: no accessibility bus, X11, the build tree's schema, settings in memory.
export GTK_A11Y=none GDK_BACKEND=x11 NO_AT_BRIDGE=1 GSETTINGS_BACKEND=memory LANGUAGE=C
export GSETTINGS_SCHEMA_DIR="$build/assets"
if [ "$unset_coretype" = 1 ]; then
  unset OPENBLAS_CORETYPE OPENBLAS_L2_SIZE || true
fi

load_before=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "?")
runs=
for renderer in $(echo "$renderers" | tr ',' ' '); do
  out="$work/bench-gui-$renderer.jsonl"
  echo "bench-gui: renderer $renderer..." >&2
  if [ "$renderer" = default ]; then
    env -u GSK_RENDERER xvfb-run -a -s '-screen 0 1280x800x24' "$bin" --model "$model" \
      --repeat "$repeat" --switches "$switches" --stall-repeat "$stall_repeat" $stalls_only \
      > "$out"
  else
    GSK_RENDERER=$renderer xvfb-run -a -s '-screen 0 1280x800x24' "$bin" --model "$model" \
      --repeat "$repeat" --switches "$switches" --stall-repeat "$stall_repeat" $stalls_only \
      > "$out"
  fi
  runs="$runs $out"
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "?")

cpu=$(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1)
rev=$(git -C "$src" rev-parse --short HEAD 2>/dev/null || echo "?")
"$py" - "$cpu" "$(nproc)" "$rev" "$load_before -> $load_after" $runs <<'EOF'
import datetime, json, sys

cpu, cores, rev, load = sys.argv[1:5]
runs = []
for path in sys.argv[5:]:
    rows = [json.loads(line) for line in open(path) if line.startswith("{")]
    env = next(r for r in rows if r["kind"] == "env")
    summaries = {r["name"]: r for r in rows if r["kind"] == "summary"}
    keys = [r for r in rows if r["kind"] == "keystroke"]
    grid = next((r for r in rows if r["kind"] == "grid"), None)
    attn = next((r for r in rows if r["kind"] == "attention"), None)
    stalls = next((r for r in rows if r["kind"] == "stalls"), None)
    runs.append((env, summaries, keys, grid, attn, stalls))

env0, summaries0, keys0, grid0, attn0, stalls0 = runs[0]
print(f"# GUI benchmark ({datetime.date.today().isoformat()})\n")
print(f"Machine: {cpu}, {cores} cores; load average (1, 5, 15 min) before -> after: {load}. "
      f"attnscope {rev}, GTK {env0['gtk']}, libadwaita {env0['adwaita']}, Xvfb 1280x800x24 "
      f"(no GPU: the GL renderer runs on Mesa's software rasteriser), window "
      f"{env0['window'][0]}x{env0['window'][1]}, scale {env0['scale']}, "
      f"{env0['threads']} forward threads.")
text = (f"Model: {env0['model']} ({env0['layers']} layers, {env0['heads']} heads, "
        f"{env0['embd']} wide, vocabulary {env0['vocab']}).")
if keys0:
    text += (f" Attention view on layer {env0['layer']}, head {env0['head']}. Keystroke texts: "
             f"{len(keys0)} texts of {min(k['tokens'] for k in keys0)}.."
             f"{max(k['tokens'] for k in keys0)} tokens. Grid widget "
             f"{grid0['width']}x{grid0['height']} px at T = {grid0['tokens']}; heatmap widget "
             f"{attn0['width']}x{attn0['height']} px at T = {attn0['tokens']}.")
if stalls0:
    text += (f" Stalls: T = {stalls0['tokens']} with a second text of as many tokens; each "
             f"page switch {stalls0['repeat']} times, clicks and toggles twice as often, layer "
             f"and head steps 5 up and 5 down per round.")
print(text + "\n")


def table(rows, judged):
    header = "| measurement (ms) | target |"
    rule = "|---|---|"
    for env, *_ in runs:
        header += f" {env['renderer']}: {judged} | met |"
        rule += "---|---|"
    print(header)
    print(rule)
    for name, label in rows:
        if name not in summaries0:
            continue
        target = summaries0[name]["target_ms"]
        line = f"| {label} | {'<= %g' % target if target else ''} |"
        for _, summaries, *rest in runs:
            s = summaries[name]
            by_max = s.get("judged_by") == "max"
            if by_max:
                cell = f"{s['max_ms']:.2f} (median {s['median_ms']:.2f}), n={s['n']}"
            else:
                cell = f"{s['median_ms']:.2f} ({s['min_ms']:.2f}..{s['max_ms']:.2f}), n={s['n']}"
            value = s["max_ms"] if by_max else s["median_ms"]
            met = "" if not target else ("yes" if value <= target else "**no**")
            line += f" {cell} | {met} |"
        print(line)


if keys0:
    table([
        ("keystroke_to_heatmap", "keystroke -> new heatmap on screen, T <= 32"),
        ("keystroke_forward", "  of which keystroke -> trace lands (forward pass, worker thread)"),
        ("keystroke_landed_to_screen", "  of which trace lands -> frame painted"),
        ("grid_render", "6x12 grid, T = 32: ar_grid_render at on-screen size"),
        ("grid_snapshot", "  grid widget snapshot"),
        ("grid_frame", "  whole frame redrawing the grid"),
        ("attention_render", "attention heatmap, T = 512: ar_heatmap_render at on-screen size"),
        ("attention_snapshot", "  heatmap widget snapshot"),
        ("attention_frame", "  whole frame redrawing the heatmap"),
        ("switch_work", "  head switch: page update + frame (main thread)"),
        ("switch_to_screen", "  head switch -> new head on screen (incl. waiting for the frame)"),
        ("hover_hit", "  hover: ar_heatmap_hit, per call"),
        ("hover_tooltip", "  hover: query-tooltip handler, per call"),
    ], "median (min..max)")
if stalls0:
    print(f"\nT = {stalls0['tokens']}: the longest UI-thread stall of each kind of action "
          f"(target: each <= 16 ms, so judged by the maximum), the longest frame within it, and "
          f"the longest stall in which no frame was drawn (page updates, builders, results "
          f"landing):\n")
    names = [n for n in summaries0 if n.startswith("stall_")]
    table([(n, ("&nbsp;&nbsp;" if n.endswith(("_frame", "_other")) else "")
                + summaries0[n]["what"]) for n in names], "max (median), n")
print("\nrender: the ui/render call into a Cairo image surface of the widget's size (the pixels "
      "of one redraw). snapshot: the widget's snapshot vfunc (records the Cairo node). frame: "
      "the window's frame clock from before-paint to the end of the paint phase, which "
      "snapshots the changed widgets and lets GSK render the window. Keystroke: the last "
      "character inserted into the entry's buffer until the end of the first frame whose "
      "heatmap snapshot holds the new trace. Stall: the longest time the UI thread spent "
      "between two polls of its main loop (dispatching input, idles, results landing and "
      "frames, and the action itself) from the action until the window settled (no run or "
      "analysis in flight, the page showing its result, then 150 ms more).")
EOF
