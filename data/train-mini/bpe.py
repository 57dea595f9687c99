"""Byte-level BPE exactly as GPT-2: learning merges from a corpus, encoding, and writing
vocab.json / merges.txt in GPT-2's formats.

Algorithm (learning): pre-tokenize every line with GPT-2's regex, map each piece's UTF-8
bytes through GPT-2's byte->unicode table, count the pieces ("words").  Start from single
byte symbols; repeatedly merge the most frequent adjacent symbol pair (frequency summed over
words weighted by their counts; ties broken by the smaller (left, right) string pair, so the
result is deterministic), applying it to every word left to right without overlap.  The vocab
is the 256 byte symbols in GPT-2's table order, then each merge's result in merge order (a
result already present keeps its first id, as in HF's trainer), then <|endoftext|>.

Encoding: the standard GPT-2 procedure (lowest-rank pair first, all occurrences left to
right, until no ranked pair remains), with a per-word cache.
"""

import heapq
import json
from collections import Counter, defaultdict

import regex

PATTERN = regex.compile(
    r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+""")
EOT = "<|endoftext|>"


def bytes_to_unicode():
    """GPT-2's table: list of (byte, char) in GPT-2's id order for the first 256 ids."""
    bs = (list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1))
          + list(range(ord("®"), ord("ÿ") + 1)))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return [(b, chr(c)) for b, c in zip(bs, cs)]


BYTE_TABLE = bytes_to_unicode()
BYTE_ENCODER = dict(BYTE_TABLE)


def pretokenize(text):
    """GPT-2 pieces of text, each mapped to its byte-level unicode string."""
    return ["".join(BYTE_ENCODER[b] for b in piece.encode("utf-8"))
            for piece in PATTERN.findall(text)]


def _pairs(symbols):
    return zip(symbols, symbols[1:])


def _merge_word(symbols, a, b):
    out = []
    i = 0
    n = len(symbols)
    while i < n:
        if i + 1 < n and symbols[i] == a and symbols[i + 1] == b:
            out.append(a + b)
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return tuple(out)


def learn(lines, vocab_size, log=None):
    """Learn merges until the vocab (incl. <|endoftext|>) has vocab_size entries.
    Returns (vocab dict token->id, merges list of (a, b))."""
    counts = Counter()
    for line in lines:
        counts.update(pretokenize(line))
    words = [tuple(w) for w in sorted(counts)]
    freqs = [counts[w] for w in sorted(counts)]
    pair_count = defaultdict(int)
    where = defaultdict(set)  # pair -> indices of words containing it
    for i, w in enumerate(words):
        for p in _pairs(w):
            pair_count[p] += freqs[i]
            where[p].add(i)
    heap = [(-c, p) for p, c in pair_count.items()]
    heapq.heapify(heap)
    vocab = {ch: i for i, (_, ch) in enumerate(BYTE_TABLE)}
    merges = []
    while len(vocab) < vocab_size - 1 and heap:
        negc, pair = heapq.heappop(heap)
        if pair_count.get(pair, 0) != -negc or negc == 0:
            continue  # stale heap entry
        a, b = pair
        merges.append(pair)
        if a + b not in vocab:
            vocab[a + b] = len(vocab)
        changed = defaultdict(int)
        for i in sorted(where.pop(pair)):
            old = words[i]
            new = _merge_word(old, a, b)
            f = freqs[i]
            for p in _pairs(old):
                pair_count[p] -= f
                changed[p] -= f
            for p in _pairs(new):
                pair_count[p] += f
                changed[p] += f
                where[p].add(i)
            words[i] = new
        pair_count.pop(pair, None)
        for p, d in changed.items():
            if d != 0 and p != pair and pair_count.get(p, 0) > 0:
                heapq.heappush(heap, (-pair_count[p], p))
        if log and len(merges) % 1000 == 0:
            log("bpe: %d merges, vocab %d" % (len(merges), len(vocab)))
    vocab[EOT] = len(vocab)
    return vocab, merges


def write(vocab, merges, vocab_path, merges_path):
    with open(vocab_path, "w", encoding="utf-8") as f:
        json.dump(vocab, f, ensure_ascii=False)
    with open(merges_path, "w", encoding="utf-8") as f:
        f.write("#version: 0.2\n")
        for a, b in merges:
            f.write("%s %s\n" % (a, b))


class Encoder:
    """GPT-2 BPE encoder over a learned vocab/merges (EOT is not matched inside text here:
    the corpus never contains it)."""

    def __init__(self, vocab, merges):
        self.vocab = vocab
        self.ranks = {tuple(m): r for r, m in enumerate(merges)}
        self.cache = {}

    def _bpe(self, word):
        symbols = tuple(word)
        while len(symbols) > 1:
            best = min(_pairs(symbols), key=lambda p: self.ranks.get(p, float("inf")))
            if best not in self.ranks:
                break
            symbols = _merge_word(symbols, *best)
        return [self.vocab[s] for s in symbols]

    def encode(self, text):
        ids = []
        for w in pretokenize(text):
            if w not in self.cache:
                self.cache[w] = self._bpe(w)
            ids.extend(self.cache[w])
        return ids
