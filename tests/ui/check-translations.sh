#!/usr/bin/env bash
# The German catalogue is complete and current: msgfmt --check passes with no fuzzy or
# untranslated message, and every translatable string of the sources (po/POTFILES.in, extracted
# afresh with xgettext) has a translation in po/de.po. Also fails when a source file with
# translatable strings is missing from POTFILES.in.
set -euo pipefail
cd "${ATTNSCOPE_SOURCE_DIR:-$(dirname "$0")/../..}"
po=po/de.po
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

stats=$(LC_ALL=C msgfmt --check --statistics -o "$tmp/de.mo" "$po" 2>&1)
echo "$stats"
if grep -Eq 'untranslated|fuzzy' <<<"$stats"; then
  echo "$po: not every message is translated" >&2
  exit 1
fi

grep -v '^#' po/POTFILES.in | sed '/^$/d' >"$tmp/files"
for f in $(grep -rlE '(\b_ \(|\bN_ \(|ngettext \(|translatable="yes")' app ui/render ui/widgets assets \
             --include='*.c' --include='*.ui' --include='*.xml' | sort); do
  grep -qx "$f" "$tmp/files" || { echo "$f has translatable strings but is not in po/POTFILES.in" >&2; exit 1; }
done

xgettext --from-code=UTF-8 --add-comments=Translators --keyword=_ --keyword=N_ \
  --keyword=C_:1c,2 --keyword=NC_:1c,2 --keyword=ngettext:1,2 -f "$tmp/files" -o "$tmp/attnscope.pot"
if ! LC_ALL=C msgcmp --use-untranslated "$po" "$tmp/attnscope.pot" 2>"$tmp/msgcmp"; then
  head -n 20 "$tmp/msgcmp" >&2
  echo "$po lacks messages of the current sources (ninja attnscope-update-po, then translate)" >&2
  exit 1
fi
echo "$po: complete and current"
