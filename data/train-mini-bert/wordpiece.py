"""BERT's tokenizer (BasicTokenizer + WordPiece, as Hugging Face's BertTokenizer in
tokenization_bert.py) and a small WordPiece vocabulary trainer, for attnscope-mini-bert.

Tokenizing (HF BertTokenizer with do_lower_case=True, tokenize_chinese_chars=True,
strip_accents=None which follows do_lower_case):
  1. clean: drop NUL, U+FFFD and control characters (Unicode category C*, except \\t \\n \\r);
     every whitespace character (\\t \\n \\r, space, category Zs) becomes a space;
  2. put spaces around CJK ideographs (the code point blocks of _is_chinese_char);
  3. Unicode NFC, split on whitespace;
  4. per word: lower-case, NFD and drop combining marks (category Mn), then split off every
     punctuation character as its own word (ASCII 33-47, 58-64, 91-96, 123-126, or category P*);
  5. WordPiece per word: a word longer than 100 characters is [UNK]; otherwise greedy
     longest-match-first from the left, pieces after the first carry "##"; if some position
     has no match the whole word is [UNK].

Training (what HF's `tokenizers` WordPieceTrainer does, simplified): the words of step 1-4
are counted; every word starts as its characters, the first plain ("a") and the others as
continuations ("##b"); then, as in BPE, the most frequent adjacent pair (counts weighted by
word frequency; ties to the smaller pair of strings) is merged, repeatedly: "a" + "##b" gives
"ab", "##a" + "##b" gives "##ab".  Each merge adds its result to the vocabulary until it
reaches the requested size.  Characters seen fewer than MIN_CHAR_COUNT times are left out
(they become [UNK]).

vocab.txt (one token a line; the line number is the id) follows bert-base-uncased's layout:
[PAD] 0, [unused0]..[unused98] 1-99, [UNK] 100, [CLS] 101, [SEP] 102, [MASK] 103, then the
characters (plain, then "##" forms, each in code point order), then the merges in order.
"""

import heapq
import unicodedata
from collections import Counter, defaultdict

SPECIALS = ["[PAD]"] + ["[unused%d]" % i for i in range(99)] + ["[UNK]", "[CLS]", "[SEP]",
                                                                "[MASK]"]
PAD, UNK, CLS, SEP, MASK = 0, 100, 101, 102, 103
MAX_WORD_CHARS = 100
MIN_CHAR_COUNT = 3


def _is_whitespace(c):
    return c in " \t\n\r" or unicodedata.category(c) == "Zs"


def _is_control(c):
    if c in "\t\n\r":
        return False
    return unicodedata.category(c).startswith("C")


def _is_punctuation(c):
    cp = ord(c)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(c).startswith("P")


def _is_chinese_char(cp):
    return (0x4E00 <= cp <= 0x9FFF or 0x3400 <= cp <= 0x4DBF or 0x20000 <= cp <= 0x2A6DF
            or 0x2A700 <= cp <= 0x2B73F or 0x2B740 <= cp <= 0x2B81F
            or 0x2B820 <= cp <= 0x2CEAF or 0xF900 <= cp <= 0xFAFF or 0x2F800 <= cp <= 0x2FA1F)


def basic_tokenize(text, lower=True):
    """Steps 1-4 of the module docstring: the list of words."""
    out = []
    for c in text:
        cp = ord(c)
        if cp == 0 or cp == 0xFFFD or _is_control(c):
            continue
        if _is_whitespace(c):
            out.append(" ")
        elif _is_chinese_char(cp):
            out.append(" %s " % c)
        else:
            out.append(c)
    words = []
    for word in unicodedata.normalize("NFC", "".join(out)).split():
        if lower:
            word = word.lower()
            word = "".join(c for c in unicodedata.normalize("NFD", word)
                           if unicodedata.category(c) != "Mn")
        cur = []
        for c in word:
            if _is_punctuation(c):
                if cur:
                    words.append("".join(cur))
                    cur = []
                words.append(c)
            else:
                cur.append(c)
        if cur:
            words.append("".join(cur))
    return words


class Tokenizer:
    """vocab.txt tokens -> ids; encode() = basic_tokenize + WordPiece, with a word cache."""

    def __init__(self, tokens):
        self.tokens = list(tokens)
        self.ids = {t: i for i, t in enumerate(self.tokens)}
        self.unk = self.ids["[UNK]"]
        self._cache = {}

    @classmethod
    def load(cls, path):
        with open(path, encoding="utf-8") as f:
            return cls([line.rstrip("\n") for line in f])

    def wordpiece(self, word):
        hit = self._cache.get(word)
        if hit is not None:
            return hit
        if len(word) > MAX_WORD_CHARS:
            return [self.unk]
        out, start = [], 0
        while start < len(word):
            end, found = len(word), None
            while start < end:
                piece = word[start:end] if start == 0 else "##" + word[start:end]
                if piece in self.ids:
                    found = self.ids[piece]
                    break
                end -= 1
            if found is None:
                out = [self.unk]
                break
            out.append(found)
            start = end
        self._cache[word] = out
        return out

    def encode(self, text):
        return [i for w in basic_tokenize(text) for i in self.wordpiece(w)]

    def decode(self, ids):
        text = ""
        for i in ids:
            t = self.tokens[i]
            text += t[2:] if t.startswith("##") else (" " + t if text else t)
        return text


def _merge(symbols, a, b):
    out, i = [], 0
    while i < len(symbols):
        if i + 1 < len(symbols) and symbols[i] == a and symbols[i + 1] == b:
            out.append(a + b[2:])
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return tuple(out)


def train(lines, vocab_size, log=None):
    """The vocab.txt token list (length vocab_size, or fewer when no pair is left)."""
    counts = Counter()
    for line in lines:
        counts.update(basic_tokenize(line))
    chars = Counter()
    for w, c in counts.items():
        for ch in w:
            chars[ch] += c
    keep = {ch for ch, c in chars.items() if c >= MIN_CHAR_COUNT}
    words, freqs = [], []
    for w in sorted(counts):
        if all(ch in keep for ch in w) and len(w) <= MAX_WORD_CHARS:
            words.append(tuple([w[0]] + ["##" + ch for ch in w[1:]]))
            freqs.append(counts[w])
    initial = sorted({s for w in words for s in w[:1]})
    cont = sorted({s for w in words for s in w[1:]})
    vocab = SPECIALS + initial + cont
    seen = set(vocab)
    pair_count, where = defaultdict(int), defaultdict(set)
    for i, w in enumerate(words):
        for p in zip(w, w[1:]):
            pair_count[p] += freqs[i]
            where[p].add(i)
    heap = [(-c, p) for p, c in pair_count.items()]
    heapq.heapify(heap)
    n_merges = 0
    while len(vocab) < vocab_size and heap:
        negc, pair = heapq.heappop(heap)
        if pair_count.get(pair, 0) != -negc or negc == 0:
            continue  # stale heap entry
        a, b = pair
        new_tok = a + b[2:]
        if new_tok not in seen:
            seen.add(new_tok)
            vocab.append(new_tok)
        n_merges += 1
        changed = defaultdict(int)
        for i in sorted(where.pop(pair)):
            old, f = words[i], freqs[i]
            new = _merge(old, a, b)
            for p in zip(old, old[1:]):
                pair_count[p] -= f
                changed[p] -= f
            for p in zip(new, new[1:]):
                pair_count[p] += f
                changed[p] += f
                where[p].add(i)
            words[i] = new
        pair_count.pop(pair, None)
        for p, d in changed.items():
            if d != 0 and p != pair and pair_count.get(p, 0) > 0:
                heapq.heappush(heap, (-pair_count[p], p))
        if log and n_merges % 1000 == 0:
            log("wordpiece: %d merges, vocab %d" % (n_merges, len(vocab)))
    return vocab


def write_vocab(tokens, path):
    with open(path, "w", encoding="utf-8") as f:
        f.writelines(t + "\n" for t in tokens)
