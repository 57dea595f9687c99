#!/usr/bin/env bash
# Fails when a C file of the project is not formatted as .clang-format says.
# Fix with: git ls-files '*.c' '*.h' | xargs clang-format -i
set -euo pipefail
cd "${ATTNSCOPE_SOURCE_DIR:-$(dirname "$0")/..}"
if ! command -v clang-format >/dev/null 2>&1; then
  echo "clang-format is not installed (bash .ci/install-deps test installs it)" >&2
  exit 1
fi
if git rev-parse --git-dir >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files --cached --others --exclude-standard -- '*.c' '*.h')
else
  mapfile -t files < <(find app core ui tests -name '*.c' -o -name '*.h')
fi
present=()
for f in "${files[@]}"; do
  [ -f "$f" ] && present+=("$f")
done
# One clang-format process for all files (fast on a loaded machine); name the culprits only
# when something is off.
if clang-format --dry-run --Werror "${present[@]}" >/dev/null 2>&1; then
  echo "${#present[@]} files formatted"
  exit 0
fi
for f in "${present[@]}"; do
  clang-format --dry-run --Werror "$f" >/dev/null 2>&1 || echo "not formatted: $f" >&2
done
exit 1
