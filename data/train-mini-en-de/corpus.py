#!/usr/bin/python3
"""corpus.py — English->German sentence pairs from the German gettext catalogues Debian installs
(/usr/share/locale/de/LC_MESSAGES/*.mo: msgid -> msgstr), cleaned, deduplicated and split into
train / held-out deterministically.

Reproduce: on Debian 12 install the packages in PACKAGES (apt-get install --no-install-recommends
...; they are data/locale packages with few dependencies), then
    /usr/bin/python3 corpus.py OUT_DIR
which writes OUT_DIR/train.en, train.de, heldout.en, heldout.de (one sentence a line, aligned)
and OUT_DIR/corpus-stats.json (pairs per catalogue and per package, what each rule dropped).
The catalogues are read with Python's own .mo reader (gettext.GNUTranslations); every .mo file in
the directory is used, the ones from the base system as well.

Cleaning, per entry (msgctxt is dropped, it only disambiguates):
  * plural entries: only form 0 (the singular msgid with msgstr[0]) is kept;
  * fuzzy or empty translations are not in .mo files; untranslated (msgstr == msgid) are dropped;
  * multi-line entries are split on newlines and kept line by line only when both sides have the
    same number of non-empty lines;
  * accelerators: "_" or "&" directly before a letter is removed ("_Open" -> "Open"; "&&" -> "&");
  * dropped: any printf/Qt/brace placeholder (%s, %d, %1, %<, %(name)s, {0}, ${x}), markup
    (<b>, &amp;), URLs, paths, file names, command-line options, e-mail addresses, strings
    without two letter-words on each side, more than 30 words or 200 characters on either
    side, strings that are mostly not letters,
    strings whose German side has no lower-case letter while the English has (codes, labels
    left in English or shouted);
  * whitespace collapsed; pairs deduplicated on the English side: the German translation seen
    most often wins (ties: the alphabetically first), so each English string appears once.
Split: held-out = the pairs whose md5(English) mod 100 < 2 (about 2%), the rest is training.
"""

import collections
import gettext
import glob
import hashlib
import json
import os
import re
import subprocess
import sys

LOCALE_DIR = "/usr/share/locale/de/LC_MESSAGES"
# The packages that carry the large German catalogues this corpus was built from (beyond the
# base system of a Debian 12 machine with the project's build dependencies).
# (abiword-common, krita-data and kdevelop-data were tried too: no German catalogue there.)
PACKAGES = ["gcc-12-locales", "freeciv-data", "gnucash-common", "vlc-l10n", "evolution-common",
            "gimp-data", "audacity-data", "gnumeric-common", "pidgin-data", "aptitude-common",
            "calligra-data"]

PLACEHOLDER = re.compile(r"%[-+ #0']*(\d+\$)?\d*(\.\d+)?(hh|h|ll|l|L|z|j|t|I64)?[a-zA-Z%]"
                         r"|%[<>\d]|%\(\w+\)|\{[\w.:]*\}|\$\{|\$\(|\$\w+")
MARKUP = re.compile(r"<[a-zA-Z/!][^>]*>|&[a-z]+;|&#\d+;")
URLISH = re.compile(r"https?:|www\.|\w@\w|\S/\S|\\|::|->|=>|`|(^|\s)--?[a-z]|\w\.\w{2,4}\b")
WORD = re.compile(r"[^\W\d_]{2,}")
ACCEL = re.compile(r"[_&](?=[^\W\d_])")


def _package_of(path):
    r = subprocess.run(["dpkg", "-S", path], capture_output=True, text=True)
    return r.stdout.split(":")[0] if r.returncode == 0 else "?"


def entries(path):
    """(msgid, msgstr) of one .mo: singulars, and form 0 of plural entries."""
    with open(path, "rb") as f:
        cat = gettext.GNUTranslations(f)._catalog
    for key, value in cat.items():
        if isinstance(key, tuple):
            if key[1] != 0:
                continue
            key = key[0]
        if not key:
            continue  # the header
        yield key.split("\x04")[-1], value


def clean(en, de, drops):
    """A list of clean (en, de) pairs made from one entry (several for multi-line ones)."""
    if en.strip() == de.strip():
        drops["untranslated"] += 1
        return []
    en_lines = [x for x in en.split("\n") if x.strip()]
    de_lines = [x for x in de.split("\n") if x.strip()]
    if len(en_lines) != len(de_lines):
        drops["lines differ"] += 1
        return []
    out = []
    for e, d in zip(en_lines, de_lines):
        reason = _reject(e, d)
        if reason:
            drops[reason] += 1
            continue
        e, d = (" ".join(ACCEL.sub("", x).replace("&&", "&").split()) for x in (e, d))
        out.append((e, d))
    return out


def _reject(e, d):
    both = e + "\n" + d
    if PLACEHOLDER.search(both):
        return "placeholder"
    if MARKUP.search(both):
        return "markup"
    if URLISH.search(both):
        return "url/path/code"
    if len(WORD.findall(e)) < 2 or len(WORD.findall(d)) < 2:
        return "fewer than two words"
    if max(len(e.split()), len(d.split())) > 30 or max(len(e), len(d)) > 200:
        return "too long"
    for x in (e, d):
        letters = sum(ch.isalpha() or ch.isspace() for ch in x)
        if letters < 0.8 * len(x):
            return "mostly not letters"
    if re.search(r"[a-z]", e) and not re.search(r"[a-zäöüß]", d):
        return "German side without lower case"
    return None


def build(locale_dir=LOCALE_DIR):
    drops = collections.Counter()
    per_cat = collections.Counter()
    votes = collections.defaultdict(collections.Counter)  # en -> {de: count}
    first_cat, skipped = {}, {}
    for path in sorted(glob.glob(os.path.join(locale_dir, "*.mo"))):
        name = os.path.basename(path)
        try:
            rows = list(entries(path))
        except (UnicodeDecodeError, IndexError, ValueError) as e:
            # e.g. no charset in the header (Python then assumes ASCII) or a malformed
            # Plural-Forms line: Python's reader refuses the file, and so do we.
            skipped[name] = type(e).__name__
            continue
        for en, de in rows:
            for e, d in clean(en, de, drops):
                votes[e][d] += 1
                first_cat.setdefault(e, name)
    pairs = []
    for e in sorted(votes):
        d = sorted(votes[e].items(), key=lambda kv: (-kv[1], kv[0]))[0][0]
        pairs.append((e, d))
        per_cat[first_cat[e]] += 1
    return pairs, per_cat, drops, skipped


def is_heldout(en):
    return int(hashlib.md5(en.encode("utf-8")).hexdigest(), 16) % 100 < 2


def main(out_dir):
    os.makedirs(out_dir, exist_ok=True)
    pairs, per_cat, drops, skipped = build()
    split = {"train": [p for p in pairs if not is_heldout(p[0])],
             "heldout": [p for p in pairs if is_heldout(p[0])]}
    for name, rows in split.items():
        for side, lang in ((0, "en"), (1, "de")):
            with open(os.path.join(out_dir, "%s.%s" % (name, lang)), "w", encoding="utf-8") as f:
                f.writelines(r[side] + "\n" for r in rows)
    per_pkg = collections.Counter()
    for cat, n in per_cat.items():
        per_pkg[_package_of(os.path.join(LOCALE_DIR, cat))] += n
    stats = {"pairs": len(pairs), "train": len(split["train"]),
             "heldout": len(split["heldout"]),
             "pairs_per_catalogue": dict(per_cat.most_common()),
             "pairs_per_package": dict(per_pkg.most_common()),
             "dropped": dict(drops.most_common()), "catalogues_unreadable": skipped,
             "packages_installed_for_corpus": PACKAGES}
    with open(os.path.join(out_dir, "corpus-stats.json"), "w", encoding="utf-8") as f:
        json.dump(stats, f, indent=1, ensure_ascii=False)
        f.write("\n")
    print("%d pairs: %d train, %d held-out" % (len(pairs), len(split["train"]),
                                               len(split["heldout"])))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "corpus")
