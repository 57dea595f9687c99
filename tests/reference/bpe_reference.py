#!/usr/bin/python3
"""bpe_reference.py — the project's independent GPT-2 byte-level BPE encoder (core/tokenizers/README.md, "Tokenizers").

Written from the format description, separately from the trainer in data/train-mini/ and from
the C tokenizer, so that tests can compare both against it id for id.  It reads any GPT-2-style
model folder (vocab.json + merges.txt).

Subcommands:
  encode MODEL_DIR (--text T ... | --lines FILE)
      one JSON array of ids per text / per line of FILE (the line without its newline; empty
      lines give [])
  selfcheck
      checks the byte table and the merge procedure on a hand-made vocabulary

Algorithm: "<|endoftext|>" is matched whole first; the rest is split with GPT-2's regex
(Unicode \\s, \\p{L}, \\p{N}, via the `regex` module, Debian python3-regex); each piece's UTF-8
bytes are mapped through the byte->unicode table; then the adjacent pair with the lowest merge
rank is merged (every non-overlapping occurrence, left to right) until no ranked pair remains;
symbols are looked up in vocab.json.
"""

import argparse
import json
import sys

import regex

GPT2_SPLIT = regex.compile(
    r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+""")
SPECIAL = "<|endoftext|>"


def byte_table():
    """{byte: unicode char}: printable Latin-1 bytes map to themselves, the other bytes in
    increasing order to U+0100, U+0101, ..."""
    keep = set(range(33, 127)) | set(range(161, 173)) | set(range(174, 256))
    table, shift = {}, 0
    for b in range(256):
        if b in keep:
            table[b] = chr(b)
        else:
            table[b] = chr(256 + shift)
            shift += 1
    return table


class Gpt2Bpe:

    def __init__(self, vocab, merges):
        self.vocab = vocab
        self.rank = {pair: r for r, pair in enumerate(merges)}
        self.table = byte_table()
        self.cache = {}

    @classmethod
    def from_dir(cls, model_dir):
        with open(model_dir + "/vocab.json", encoding="utf-8") as f:
            vocab = json.load(f)
        merges = []
        with open(model_dir + "/merges.txt", encoding="utf-8") as f:
            for n, line in enumerate(f):
                line = line.rstrip("\n")
                if n == 0 and line.startswith("#version"):
                    continue
                if line:
                    a, b = line.split(" ")
                    merges.append((a, b))
        return cls(vocab, merges)

    def word(self, piece):
        """BPE of one pre-token (already mapped to unicode symbols) -> list of symbols."""
        if piece in self.cache:
            return self.cache[piece]
        parts = list(piece)
        while len(parts) > 1:
            ranked = [(self.rank[(x, y)], i) for i, (x, y) in enumerate(zip(parts, parts[1:]))
                      if (x, y) in self.rank]
            if not ranked:
                break
            i = min(ranked)[1]
            first, second = parts[i], parts[i + 1]
            merged, i = [], 0
            while i < len(parts):
                if i + 1 < len(parts) and parts[i] == first and parts[i + 1] == second:
                    merged.append(first + second)
                    i += 2
                else:
                    merged.append(parts[i])
                    i += 1
            parts = merged
        self.cache[piece] = parts
        return parts

    def encode(self, text):
        ids = []
        chunks = text.split(SPECIAL)
        for n, chunk in enumerate(chunks):
            if n > 0:
                ids.append(self.vocab[SPECIAL])
            for piece in GPT2_SPLIT.findall(chunk):
                mapped = "".join(self.table[b] for b in piece.encode("utf-8"))
                ids.extend(self.vocab[s] for s in self.word(mapped))
        return ids


def cmd_encode(a):
    enc = Gpt2Bpe.from_dir(a.model_dir)
    if a.lines:
        with open(a.lines, encoding="utf-8") as f:
            texts = [l[:-1] if l.endswith("\n") else l for l in f]
    else:
        texts = a.text or []
    out = sys.stdout
    for t in texts:
        out.write(json.dumps(enc.encode(t)) + "\n")
    return 0


def cmd_selfcheck(_a):
    t = byte_table()
    assert len(set(t.values())) == 256
    assert t[32] == "\u0120" and t[10] == "\u010a" and t[65] == "A" and t[0] == "\u0100"
    assert t[127] == "\u0121" and t[173] == chr(256 + 32 + 1 + 34)
    syms = [t[b] for b in range(256)]
    vocab = {s: i for i, s in enumerate(syms)}
    merges = [("l", "o"), ("lo", "w"), ("\u0120", "low"), ("e", "r")]
    for a, b in merges:
        vocab.setdefault(a + b, len(vocab))
    vocab[SPECIAL] = len(vocab)
    enc = Gpt2Bpe(vocab, merges)
    got = enc.encode("lower low<|endoftext|>lo")
    want = [vocab["low"], vocab["er"], vocab["\u0120low"], vocab[SPECIAL], vocab["lo"]]
    assert got == want, (got, want)
    # "aaa" with merge a a -> "aa" "a" (left to right, no overlap)
    vocab2 = dict(vocab)
    vocab2.setdefault("aa", len(vocab2))
    enc2 = Gpt2Bpe(vocab2, [("a", "a")])
    assert enc2.encode("aaa") == [vocab2["aa"], vocab2["a"]]
    # the regex: contractions, numbers, punctuation runs, trailing spaces
    assert GPT2_SPLIT.findall("I'll pay 42  dollars!!") == ["I", "'ll", " pay", " 42", " ",
                                                            " dollars", "!!"]
    print("selfcheck ok")
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description="independent GPT-2 byte-level BPE encoder")
    sub = ap.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("encode", help="encode texts or the lines of a file")
    e.add_argument("model_dir")
    g = e.add_mutually_exclusive_group(required=True)
    g.add_argument("--text", action="append")
    g.add_argument("--lines")
    sub.add_parser("selfcheck", help="check the table and the merge loop on a tiny vocabulary")
    a = ap.parse_args(argv)
    return cmd_encode(a) if a.cmd == "encode" else cmd_selfcheck(a)


if __name__ == "__main__":
    sys.exit(main())
