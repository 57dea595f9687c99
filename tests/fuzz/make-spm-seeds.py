#!/usr/bin/python3
"""Writes the seeds of the spm-model fuzz harness (tests/fuzz/README.md, "Fuzzing").

corpus/spm-model/: four small SentencePiece models trained with Debian's spm_train on a generated
corpus — unigram with a character map of its own (rules.tsv below: a 1 KB charsmap), BPE with
byte fallback and no map, char with the same map and no dummy prefix, word with user-defined
symbols — and the same unigram's map alone, as the harness's charsmap mode reads it (a first
byte that is not 0x0A, then the map). data/spm-small.model is that unigram: the model the
charsmap mode puts a map into. regressions/spm-model/: maps that hurt libsentencepiece 0.1.97
(normalizer.cc reads them without bounds checks): a root past the array, replacements cut short
or without their NUL, a key that passes 40 values (more than the 32-entry array on the stack; the
library crashed with SIGSEGV), a loop. Run from anywhere: python3 tests/fuzz/make-spm-seeds.py
"""
import os
import random
import struct
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
RULES = [("FB01", "66 69"), ("FF21", "41"), ("FF22", "42"), ("FF23", "43"), ("2460", "31"),
         ("00BD", "31 2044 32"), ("3000", "20")]


def varint(n):
    out = b""
    while True:
        b, n = n & 0x7F, n >> 7
        out += bytes([b | 0x80]) if n else bytes([b])
        if not n:
            return out


def field(number, payload):
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def fields(data):
    """(field number, wire type, value) of a protobuf message."""
    i = 0

    def read_varint(i):
        value, shift = 0, 0
        while True:
            byte = data[i]
            i += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if byte < 0x80:
                return value, i

    while i < len(data):
        key, i = read_varint(i)
        wire = key & 7
        if wire == 0:
            value, i = read_varint(i)
        elif wire == 1:
            value, i = data[i:i + 8], i + 8
        elif wire == 5:
            value, i = data[i:i + 4], i + 4
        else:
            length, i = read_varint(i)
            value, i = data[i:i + length], i + length
        yield key >> 3, wire, value


def charsmap_of(model):
    for number, _, spec in fields(model):
        if number == 3:
            for inner, _, value in fields(spec):
                if inner == 2:
                    return value
    raise SystemExit("the model has no precompiled_charsmap")


def charsmap(units, strings):
    trie = b"".join(struct.pack("<I", u) for u in units)
    return struct.pack("<I", len(trie)) + trie + strings


def chain(levels, loop=False):
    """A map whose key "aaa..." passes LEVELS values (or loops back without any). Unused units
    are value units (bit 31), which no byte matches."""
    units = [0x80000000] * (256 * (levels + 2))
    units[0] = 256 << 10  # the root's children start at unit 256
    for i in range(levels):
        base, after = 256 * (i + 1), 256 * (i + 2)
        q = base ^ ord("a")
        target = base if loop else after
        units[q] = (q ^ target) << 10 | (0 if loop else 1 << 8) | ord("a")
        if not loop:
            units[after] = 0x80000000  # value 0: the string "b"
    return charsmap(units, b"b\0")


def train(work, prefix, *options):
    subprocess.run(["spm_train", "--input=" + os.path.join(work, "corpus.txt"),
                    "--model_prefix=" + os.path.join(work, prefix), "--character_coverage=1.0",
                    *options], check=True, capture_output=True)
    with open(os.path.join(work, prefix + ".model"), "rb") as f:
        return f.read()


def main():
    random.seed(1)
    words = ("the cat sat on a mat with the dog and ran far away over hills while birds sang "
             "songs of old days").split()
    lines = [" ".join(random.choice(words) for _ in range(random.randint(3, 12)))
             for _ in range(400)]
    lines += ["ﬁ ﬂ Ａ Ｂ Ｃ ① ② ½ café naïve Über straße", "日本語 テキスト 123 456"]
    with tempfile.TemporaryDirectory() as work:
        with open(os.path.join(work, "corpus.txt"), "w") as f:
            f.write("\n".join(lines) + "\n")
        rules = os.path.join(work, "rules.tsv")
        with open(rules, "w") as f:
            f.write("".join(f"{a}\t{b}\n" for a, b in RULES))
        models = {
            "unigram-rules.model": train(work, "uni", "--vocab_size=60", "--model_type=unigram",
                                         "--normalization_rule_tsv=" + rules),
            "bpe-byte-fallback.model": train(work, "bpe", "--vocab_size=330", "--model_type=bpe",
                                             "--normalization_rule_name=identity",
                                             "--byte_fallback=true"),
            "char-no-prefix.model": train(work, "char", "--vocab_size=60", "--model_type=char",
                                          "--normalization_rule_tsv=" + rules,
                                          "--remove_extra_whitespaces=false",
                                          "--add_dummy_prefix=false"),
            "word-user-symbols.model": train(work, "word", "--vocab_size=36", "--model_type=word",
                                             "--normalization_rule_name=identity",
                                             "--user_defined_symbols=<sep>,<cls>"),
        }
    corpus = os.path.join(HERE, "corpus", "spm-model")
    regressions = os.path.join(HERE, "regressions", "spm-model")
    os.makedirs(corpus, exist_ok=True)
    os.makedirs(regressions, exist_ok=True)
    for name, data in models.items():
        with open(os.path.join(corpus, name), "wb") as f:
            f.write(data)
    base = models["unigram-rules.model"]
    with open(os.path.join(HERE, "data", "spm-small.model"), "wb") as f:
        f.write(base)
    good = charsmap_of(base)
    with open(os.path.join(corpus, "charsmap-rules.bin"), "wb") as f:
        f.write(b"\x01" + good)
    size = struct.unpack("<I", good[:4])[0]
    trie, strings = good[4:4 + size], good[4 + size:]
    hostile = {
        "root-outside": struct.pack("<II", size, 0x3FFFFF << 10) + trie[4:] + strings,
        "strings-cut": struct.pack("<I", size) + trie + strings[:2],
        "strings-without-nul": struct.pack("<I", size) + trie + strings.replace(b"\0", b"x"),
        "forty-values": chain(40),
        "loop": chain(3, loop=True),
    }
    for name, blob in hostile.items():
        # the whole model, its map replaced (protobuf merges a repeated message field: the last
        # precompiled_charsmap wins) ...
        with open(os.path.join(regressions, name + ".model"), "wb") as f:
            f.write(base + field(3, field(2, blob)))
        # ... and the map alone, for the charsmap mode
        with open(os.path.join(regressions, name + ".bin"), "wb") as f:
            f.write(b"\x01" + blob)


if __name__ == "__main__":
    main()
