"""Build the attnscope-mini training corpus from WordNet 3.0 (Debian package wordnet-base).

Every synset of /usr/share/wordnet/data.{noun,verb,adj,adv} gives one definition sentence (the
gloss itself, capitalised: "The act of arriving at a certain place."; verbs "To gloss.") and
each of its quoted example sentences (at least three words; first letter capitalised; a final
period added when the sentence has no closing punctuation; a trailing "- Author" attribution
dropped).  The definitions deliberately do not name their lemma in a fixed frame such as "Lemma
means gloss.": a word that stands in the same role in most texts becomes the place where idle
heads rest their attention, and no first-token head forms (EXPERIMENTS.md).  Lines are
deduplicated (first occurrence wins, order = file order), then split deterministically into
train and held-out by a SHA-256 hash of the text, so the split never depends on the order of
the input.

The WordNet licence (Princeton, "WordNet 3.0 license") permits use, copying, modification
and distribution for any purpose provided its copyright notice is kept; see the model README.
"""

import hashlib
import re

WORDNET_DIR = "/usr/share/wordnet"
POS_FILES = ("noun", "verb", "adj", "adv")
MAX_CHARS = 300

_QUOTE = re.compile(r'"([^"]*)"(\s*-\s*[^;"]*)?')


def _capitalise(text):
    return text[:1].upper() + text[1:]


def _finish(text):
    text = " ".join(text.split())
    if text and text[-1] not in ".!?":
        text += "."
    return text


def _synset_lines(pos, line):
    """Return the corpus lines of one synset line of data.POS."""
    gloss = line.partition(" | ")[2]
    examples = [m.group(1).strip() for m in _QUOTE.finditer(gloss)]
    definition = _QUOTE.sub("", gloss)
    definition = "; ".join(p.strip() for p in definition.split(";") if p.strip())
    out = []
    if definition:
        if pos == "verb":
            out.append(_finish("To %s" % definition))
        else:
            out.append(_finish(_capitalise(definition)))
    for ex in examples:
        if len(ex.split()) >= 3:
            out.append(_finish(_capitalise(ex)))
    return out


def read_wordnet(wordnet_dir=WORDNET_DIR):
    """All corpus lines, deduplicated, in file order (noun, verb, adj, adv)."""
    seen = set()
    lines = []
    for pos in POS_FILES:
        with open("%s/data.%s" % (wordnet_dir, pos), encoding="utf-8") as f:
            for raw in f:
                if raw.startswith("  "):  # licence header
                    continue
                for text in _synset_lines(pos, raw.rstrip("\n")):
                    if len(text) > MAX_CHARS or text in seen:
                        continue
                    seen.add(text)
                    lines.append(text)
    return lines


def is_heldout(text, per_mille):
    """Deterministic split: the first 8 bytes of SHA-256(text) modulo 1000 < per_mille."""
    h = int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big")
    return h % 1000 < per_mille


def split(lines, per_mille):
    train = [t for t in lines if not is_heldout(t, per_mille)]
    held = [t for t in lines if is_heldout(t, per_mille)]
    return train, held
