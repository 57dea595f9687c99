#!/usr/bin/env bash
# Fails when a Markdown file of the project carries clang-format's marks. clang-format reads any
# file as C: run on Markdown (a merge once formatted core/README.md) it glues headings to their
# '#' ("#core — the engine") and spaces the dashes of file names ("as - model.h"). Only C sources are ever formatted (format-check.sh, README.md's
# format command); this check catches a Markdown file that went through it anyway.
set -euo pipefail
cd "${ATTNSCOPE_SOURCE_DIR:-$(dirname "$0")/..}"
if git rev-parse --git-dir >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files --cached --others --exclude-standard -- '*.md')
else
  mapfile -t files < <(find . -name '*.md' -not -path './build*')
fi
status=0
for f in "${files[@]}"; do
  [ -f "$f" ] || continue
  # outside fenced code blocks: a heading without its space, a file name with spaced dashes
  marks=$(perl -ne 'BEGIN { $fence = 0 }
    if (/^\s*```/) { $fence = !$fence; next }
    print "$ARGV:$.: $_" if !$fence
      && (/^#{1,6}[^#\s]/ || /`[a-z0-9_]+ - [a-z0-9_.]+`/)' "$f")
  if [ -n "$marks" ]; then
    printf '%s\n' "$marks" >&2
    status=1
  fi
done
if [ "$status" -ne 0 ]; then
  echo "Markdown formatted as C (clang-format): restore it from git; format only *.c and *.h" >&2
  exit 1
fi
echo "${#files[@]} Markdown files without clang-format's marks"
