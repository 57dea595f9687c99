#!/usr/bin/env bash
# Screenshots of the real application for the README: starts it under Xvfb (1280 × 800) on a
# text, shows every page and saves `import -window root` shots (ImageMagick) to data/screenshots/;
# then attnscope-mini-bert on a sentence pair and a masked text (encoder-*.png), and the translation
# window on attnscope-mini-en-de (cross-attention and alignment, translation-*.png).
#   bash tests/ui/make-screenshots.sh [BUILD_DIR] [MODEL]
# Needs xvfb-run and import (Debian: xvfb, xauth, imagemagick). PNGs are quantised to keep each
# under 300 KB.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
model=${2:-attnscope-mini}
out=data/screenshots
text=${ATTNSCOPE_SCREENSHOT_TEXT:-"The man hit the car because he was angry"}
compare=${ATTNSCOPE_SCREENSHOT_COMPARE:-"The car hit the man because he was angry"}
# The compare page: short texts keep the per-layer chart on screen (the minimal pair).
compare_a="The man hit the car"
compare_b="The car hit the man"
ninja -C "$build" tests/ui/make-screenshots >/dev/null
mkdir -p "$out"
export GTK_A11Y=none GDK_BACKEND=x11 NO_AT_BRIDGE=1 GSETTINGS_BACKEND=memory LANGUAGE=C
export GSETTINGS_SCHEMA_DIR="$PWD/$build/assets"
for scheme in light dark; do
  xvfb-run -a -s '-screen 0 1280x800x24' "$build/tests/ui/make-screenshots" "$out" "$model" \
    "$text" "$compare" "$compare_a" "$compare_b" "$scheme"
done
# An encoder: a sentence pair with the sentence filter, its heads, the masked predictions.
xvfb-run -a -s '-screen 0 1280x800x24' "$build/tests/ui/make-screenshots" "$out" \
  attnscope-mini-bert "the cat sat on the mat ." "a small dog ran in the park ." \
  "a small [MASK] that lives in the water" encoder
# The translation window: the shipped English–German model translating a sentence.
xvfb-run -a -s '-screen 0 1280x800x24' "$build/tests/ui/make-screenshots" "$out" \
  attnscope-mini-en-de "The group went home." --translation
for f in "$out"/*.png; do
  # 256 colours, no dithering: UI screenshots stay sharp and small.
  convert "$f" -dither None -colors 256 "PNG8:$f"
  printf '%s %s\n' "$(du -k "$f" | cut -f1)K" "$f"
done
