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
# One clang-format for all files (one process per file takes longer than the test's timeout on a
# busy machine); its complaints start with the file's name.
status=0
errors=$(clang-format --dry-run --Werror "${present[@]}" 2>&1 >/dev/null) || status=$?
if [ "$status" -ne 0 ]; then
  printf '%s\n' "$errors" | grep ': error: ' | cut -d: -f1 | sort -u | sed 's/^/not formatted: /' >&2
  exit 1
fi
echo "${#present[@]} files formatted"
