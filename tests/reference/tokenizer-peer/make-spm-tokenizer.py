#!/usr/bin/python3
"""make-spm-tokenizer.py — a SentencePiece Unigram model turned into tokenizer.json.

Trains a small SentencePiece Unigram model (Debian's python3-sentencepiece) with the nmt_nfkc
normalization rule on TEXT, and writes OUT/tokenizer.json the way transformers'
convert_slow_tokenizer.py (SpmConverter, as for T5 and ALBERT) converts it: model Unigram
(vocab [piece, score], unk_id), normalizer Sequence[Precompiled(the model's
precompiled_charsmap), Replace(" {2,}" -> " ")], pre-tokenizer Metaspace (prepend_scheme
"always"), post-processor TemplateProcessing "$A </s>", decoder Metaspace. It exercises the
Precompiled normalizer with a real NFKC character map, which only a SentencePiece model holds.
The charsmap is read from the model file itself: ModelProto field 3 (normalizer_spec), whose
field 2 is precompiled_charsmap (sentencepiece_model.proto).

Usage: make-spm-tokenizer.py TEXT OUT_DIR
"""

import base64
import json
import os
import sys
import tempfile

import sentencepiece as spm


def varint(buf, pos):
    value, shift = 0, 0
    while True:
        b = buf[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return value, pos


def fields(buf):
    """(field number, wire type, value) of a protobuf message; value is bytes for wire type 2."""
    pos = 0
    while pos < len(buf):
        key, pos = varint(buf, pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = varint(buf, pos)
        elif wire == 1:
            value, pos = buf[pos:pos + 8], pos + 8
        elif wire == 2:
            n, pos = varint(buf, pos)
            value, pos = buf[pos:pos + n], pos + n
        elif wire == 5:
            value, pos = buf[pos:pos + 4], pos + 4
        else:
            raise ValueError(f"unsupported wire type {wire}")
        yield number, wire, value


def charsmap(model_bytes):
    for number, wire, value in fields(model_bytes):
        if number == 3 and wire == 2:
            for n2, w2, v2 in fields(value):
                if n2 == 2 and w2 == 2:
                    return v2
    raise ValueError("the model holds no precompiled_charsmap")


def main():
    text, out_dir = sys.argv[1], sys.argv[2]
    os.makedirs(out_dir, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        prefix = os.path.join(tmp, "spm")
        spm.SentencePieceTrainer.train(
            input=text, model_prefix=prefix, model_type="unigram", vocab_size=4000,
            normalization_rule_name="nmt_nfkc", character_coverage=0.98,
            unk_id=2, bos_id=-1, eos_id=1, pad_id=0, minloglevel=2,
            hard_vocab_limit=False, num_threads=1)
        with open(prefix + ".model", "rb") as f:
            model_bytes = f.read()
        sp = spm.SentencePieceProcessor(model_file=prefix + ".model")
        vocab = [[sp.id_to_piece(i), sp.get_score(i)] for i in range(sp.get_piece_size())]
    tokenizer = {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [
            {"id": 0, "content": "<pad>", "single_word": False, "lstrip": False,
             "rstrip": False, "normalized": False, "special": True},
            {"id": 1, "content": "</s>", "single_word": False, "lstrip": False,
             "rstrip": False, "normalized": False, "special": True},
            {"id": 2, "content": "<unk>", "single_word": False, "lstrip": False,
             "rstrip": False, "normalized": False, "special": True},
        ],
        "normalizer": {"type": "Sequence", "normalizers": [
            {"type": "Precompiled",
             "precompiled_charsmap": base64.b64encode(charsmap(model_bytes)).decode()},
            {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "}]},
        "pre_tokenizer": {"type": "Metaspace", "replacement": "\u2581",
                          "prepend_scheme": "always", "split": True},
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [{"Sequence": {"id": "A", "type_id": 0}},
                       {"SpecialToken": {"id": "</s>", "type_id": 0}}],
            "pair": [{"Sequence": {"id": "A", "type_id": 0}},
                     {"SpecialToken": {"id": "</s>", "type_id": 0}},
                     {"Sequence": {"id": "B", "type_id": 0}},
                     {"SpecialToken": {"id": "</s>", "type_id": 0}}],
            "special_tokens": {"</s>": {"id": "</s>", "ids": [1], "tokens": ["</s>"]}}},
        "decoder": {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always",
                    "split": True},
        "model": {"type": "Unigram", "unk_id": 2, "vocab": vocab, "byte_fallback": False},
    }
    with open(os.path.join(out_dir, "tokenizer.json"), "w", encoding="utf-8") as f:
        json.dump(tokenizer, f, ensure_ascii=False)


if __name__ == "__main__":
    main()
