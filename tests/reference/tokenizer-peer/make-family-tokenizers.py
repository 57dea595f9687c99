#!/usr/bin/python3
"""make-family-tokenizers.py — T5, Flan-T5, mT5, BART and Gemma tokenizer.json files in the shape
of the real hub files, built here (the real vocabularies are not downloadable on the build
machines).

Each is assembled as transformers' convert_slow_tokenizer.py assembles that family's file, on a
vocabulary made here:

t5          SentencePiece Unigram (Debian's python3-sentencepiece, nmt_nfkc, 4,000 pieces, <pad> 0,
            </s> 1, <unk> 2) + T5Converter: the 100 <extra_id_N> at the END of the vocabulary in
            reverse order (<extra_id_99> first, <extra_id_0> last, score 0) and special added
            tokens; normalizer Precompiled (the model's NFKC charsmap) + Replace(" {2,}" -> " "),
            pre-tokenizer WhitespaceSplit + Metaspace(add_prefix_space: true), decoder Metaspace,
            template "$A </s>" / "$A </s> $B </s>" — the form of t5-small's and
            google/flan-t5-*'s tokenizer.json (converted by transformers 4.x).
t5-current  the same vocabulary as today's SpmConverter writes it: Precompiled + Strip(right) +
            Replace(" {2,}" -> "▁"), Metaspace(prepend_scheme "always").
mt5         as t5 on a second Unigram model (6,000 pieces, character coverage 0.9995, no byte
            fallback): mT5's shape with its own vocabulary size.
bart        GPT-2's byte-level BPE (tests/fixtures/gpt2-tokenizer, as BART's vocabulary is GPT-2's
            with fairseq's ids) with BART's specials <s> 0, <pad> 1, </s> 2, <unk> 3, GPT-2's
            tokens from 4 in GPT-2's order (the real file orders them by fairseq's frequency
            table), madeupword0000..0002 and <mask> last (50,264) with lstrip; ByteLevel
            (add_prefix_space false), RobertaProcessing, ByteLevel decoder (RobertaConverter).
gemma       SentencePiece BPE with byte fallback (8,000 pieces, split_digits) + GemmaConverter:
            <pad> 0, <eos> 1, <bos> 2, <unk> 3, <mask> 4, [multimodal] 5, <unused0..98> 6..104,
            [@BOS@] 105, <start_of_turn> 106, <end_of_turn> 107, then the trained pieces; "\\t"
            in place of <0x09> when the model has no tab piece; merges from the scores
            (generate_merges); normalizer Replace(" " -> "▁") only, no pre-tokenizer (no prefix
            space), "<bos> $A" / "<bos> $A <bos> $B" template, decoder Replace + ByteFallback +
            Fuse.

Usage: make-family-tokenizers.py TRAIN.txt GPT2_TOKENIZER_DIR OUT_DIR
Writes OUT_DIR/NAME/tokenizer.json for each NAME above and prints NAME<tab>PATH lines.
"""

import base64
import json
import os
import sys
import tempfile

import sentencepiece as spm

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from importlib import import_module  # noqa: E402

charsmap = import_module("make-spm-tokenizer").charsmap

META = "\u2581"


def added(i, content, special=True, lstrip=False):
    return {"id": i, "content": content, "single_word": False, "lstrip": lstrip,
            "rstrip": False, "normalized": False, "special": special}


def base(model):
    return {"version": "1.0", "truncation": None, "padding": None, "added_tokens": [],
            "normalizer": None, "pre_tokenizer": None, "post_processor": None, "decoder": None,
            "model": model}


def train(text, tmp, name, **kw):
    prefix = os.path.join(tmp, name)
    spm.SentencePieceTrainer.train(input=text, model_prefix=prefix, minloglevel=2,
                                   hard_vocab_limit=False, num_threads=1, **kw)
    with open(prefix + ".model", "rb") as f:
        model_bytes = f.read()
    sp = spm.SentencePieceProcessor(model_file=prefix + ".model")
    pieces = [(sp.id_to_piece(i), sp.get_score(i)) for i in range(sp.get_piece_size())]
    return model_bytes, pieces


def template(single_parts, pair_parts, specials):
    def part(p):
        name, type_id = p
        if name in ("A", "B"):
            return {"Sequence": {"id": name, "type_id": type_id}}
        return {"SpecialToken": {"id": name, "type_id": type_id}}
    return {"type": "TemplateProcessing", "single": [part(p) for p in single_parts],
            "pair": [part(p) for p in pair_parts],
            "special_tokens": {n: {"id": n, "ids": [i], "tokens": [n]} for n, i in specials}}


def t5_like(model_bytes, pieces, current):
    """T5Converter's tokenizer.json for a Unigram model with <pad> 0, </s> 1, <unk> 2."""
    vocab = [[p, s] for p, s in pieces]
    n = len(vocab)
    vocab += [[f"<extra_id_{i}>", 0.0] for i in range(99, -1, -1)]
    j = base({"type": "Unigram", "unk_id": 2, "vocab": vocab, "byte_fallback": False})
    j["added_tokens"] = [added(0, "<pad>"), added(1, "</s>"), added(2, "<unk>")]
    j["added_tokens"] += [added(n + 99 - i, f"<extra_id_{i}>") for i in range(99, -1, -1)]
    cmap = {"type": "Precompiled", "precompiled_charsmap": base64.b64encode(
        charsmap(model_bytes)).decode()}
    if current:
        j["normalizer"] = {"type": "Sequence", "normalizers": [
            cmap, {"type": "Strip", "strip_left": False, "strip_right": True},
            {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": META}]}
        meta = {"type": "Metaspace", "replacement": META, "prepend_scheme": "always",
                "split": True}
        j["pre_tokenizer"] = meta
        j["decoder"] = dict(meta)
    else:
        j["normalizer"] = {"type": "Sequence", "normalizers": [
            cmap, {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "}]}
        meta = {"type": "Metaspace", "replacement": META, "add_prefix_space": True}
        j["pre_tokenizer"] = {"type": "Sequence", "pretokenizers": [
            {"type": "WhitespaceSplit"}, meta]}
        j["decoder"] = dict(meta)
    j["post_processor"] = template([("A", 0), ("</s>", 0)],
                                   [("A", 0), ("</s>", 0), ("B", 0), ("</s>", 0)],
                                   [("</s>", 1)])
    return j


def bart(gpt2_dir):
    with open(os.path.join(gpt2_dir, "vocab.json"), encoding="utf-8") as f:
        gpt2 = json.load(f)
    with open(os.path.join(gpt2_dir, "merges.txt"), encoding="utf-8") as f:
        merges = [line.rstrip("\n") for line in f if not line.startswith("#version")]
    merges = [m for m in merges if m]
    vocab = {"<s>": 0, "<pad>": 1, "</s>": 2, "<unk>": 3}
    for token, _ in sorted(gpt2.items(), key=lambda kv: kv[1]):
        vocab[token] = len(vocab)
    for i in range(3):
        vocab[f"madeupword{i:04d}"] = len(vocab)
    mask = len(vocab)
    vocab["<mask>"] = mask
    j = base({"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": "",
              "end_of_word_suffix": "", "fuse_unk": False, "byte_fallback": False,
              "ignore_merges": False, "vocab": vocab, "merges": merges})
    j["added_tokens"] = [added(0, "<s>"), added(1, "<pad>"), added(2, "</s>"), added(3, "<unk>"),
                         added(mask, "<mask>", lstrip=True)]
    j["pre_tokenizer"] = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True,
                          "use_regex": True}
    j["post_processor"] = {"type": "RobertaProcessing", "sep": ["</s>", 2], "cls": ["<s>", 0],
                           "trim_offsets": True, "add_prefix_space": False}
    j["decoder"] = {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True,
                    "use_regex": True}
    return j


def generate_merges(vocab, scores):
    """transformers' generate_merges with vocab_scores: every split of a piece into two pieces
    of the vocabulary, the merges ordered by the merged piece's score (highest first)."""
    merges = []
    for piece, score in scores.items():
        local = []
        for i in range(1, len(piece)):
            left, right = piece[:i], piece[i:]
            if left in vocab and right in vocab:
                local.append((left, right, score))
        local.sort(key=lambda x: (vocab[x[0]], vocab[x[1]]))
        merges.extend(local)
    merges.sort(key=lambda v: (v[2], len(v[0]), len(v[1])), reverse=True)
    return [f"{a} {b}" for a, b, _ in merges]


GEMMA_SPECIAL = (["<pad>", "<eos>", "<bos>", "<unk>", "<mask>", "[multimodal]"]
                 + [f"<unused{i}>" for i in range(99)]
                 + ["[@BOS@]", "<start_of_turn>", "<end_of_turn>"])


def gemma(pieces):
    # the trained model's <pad> <eos> <bos> <unk> come first; Gemma's reserved tokens follow
    vocab_scores = [(p, 0.0) for p in GEMMA_SPECIAL] + [(p, s) for p, s in pieces[4:]]
    if not any(p == "\t" for p, _ in vocab_scores):
        vocab_scores = [("\t", 0.0) if p == "<0x09>" else (p, s) for p, s in vocab_scores]
    vocab = {p: i for i, (p, _) in enumerate(vocab_scores)}
    merges = generate_merges(vocab, dict(vocab_scores))
    j = base({"type": "BPE", "dropout": None, "unk_token": "<unk>",
              "continuing_subword_prefix": None, "end_of_word_suffix": None, "fuse_unk": True,
              "byte_fallback": True, "ignore_merges": False, "vocab": vocab, "merges": merges})
    # control symbols are special; Gemma's user-defined reserved tokens are not, except the turn
    # markers (GemmaConverter.special_tokens)
    special = {"<pad>", "<eos>", "<bos>", "<unk>", "<start_of_turn>", "<end_of_turn>"}
    j["added_tokens"] = [added(i, p, special=p in special) for i, p in enumerate(GEMMA_SPECIAL)]
    j["normalizer"] = {"type": "Replace", "pattern": {"String": " "}, "content": META}
    j["post_processor"] = template([("<bos>", 0), ("A", 0)],
                                   [("<bos>", 0), ("A", 0), ("<bos>", 1), ("B", 1)],
                                   [("<bos>", 2)])
    j["decoder"] = {"type": "Sequence", "decoders": [
        {"type": "Replace", "pattern": {"String": META}, "content": " "},
        {"type": "ByteFallback"}, {"type": "Fuse"}]}
    return j


def main():
    text, gpt2_dir, out_dir = sys.argv[1:4]
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        mb, pieces = train(text, tmp, "t5", model_type="unigram", vocab_size=4000,
                           normalization_rule_name="nmt_nfkc", character_coverage=0.98,
                           pad_id=0, eos_id=1, unk_id=2, bos_id=-1)
        out["t5"] = t5_like(mb, pieces, False)
        out["t5-current"] = t5_like(mb, pieces, True)
        mb, pieces = train(text, tmp, "mt5", model_type="unigram", vocab_size=6000,
                           normalization_rule_name="nmt_nfkc", character_coverage=0.9995,
                           pad_id=0, eos_id=1, unk_id=2, bos_id=-1)
        out["mt5"] = t5_like(mb, pieces, False)
        _, pieces = train(text, tmp, "gemma", model_type="bpe", vocab_size=8000,
                          normalization_rule_name="identity", character_coverage=0.9995,
                          byte_fallback=True, split_digits=True, add_dummy_prefix=False,
                          remove_extra_whitespaces=False, allow_whitespace_only_pieces=True,
                          pad_id=0, eos_id=1, bos_id=2, unk_id=3)
        out["gemma"] = gemma(pieces)
    out["bart"] = bart(gpt2_dir)
    for name, j in out.items():
        d = os.path.join(out_dir, name)
        os.makedirs(d, exist_ok=True)
        path = os.path.join(d, "tokenizer.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(j, f, ensure_ascii=False)
        print(f"{name}\t{path}")


if __name__ == "__main__":
    main()
