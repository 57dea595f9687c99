#!/usr/bin/python3
"""marian_reference.py — the project's independent PyTorch reference for Marian translation models
(Helsinki-NLP/opus-mt-*, HF MarianMTModel / TFMarianMTModel; followed: transformers v4.30-v4.40).

Subcommands (stable; the C tests call exactly these):
  make-spm OUT_PREFIX --vocab-size N [--input FILE | --lang en|de] [--model-type unigram|bpe]
      trains a SentencePiece model with Debian's spm_train -> OUT_PREFIX.model; without --input
      it trains on a small built-in English or German text (written to OUT_PREFIX.txt)
  make-model OUT_DIR --layers-enc Le --layers-dec Ld --heads H --dim D --ffn F --positions P
             --spm-src SRC.model --spm-tgt TGT.model --vocab-from-spm [--seed S] [--std X]
             [--format h5|safetensors|both] [--old-names] [--no-final-logits-bias]
             [--num-beams 4] [--max-length N] [--source-lang en] [--target-lang de]
      a random Marian model in the exact folder layout of Helsinki-NLP/opus-mt-en-de
      (marian_layout.py): config.json, generation_config.json, tf_model.h5 and/or
      model.safetensors, source.spm, target.spm, vocab.json (V = its size: </s> 0, <unk> 1,
      pieces, <pad> V-1), tokenizer_config.json, special_tokens_map.json.
      --old-names: shared embedding as model.shared/model.shared/weight:0;
      --no-final-logits-bias: no final_logits_bias group in tf_model.h5 (bias zero everywhere)
  expected MODEL_DIR OUT.h5 --src-ids 1,2,0 --tgt-ids 58100,5,6 [--src-ids .. --tgt-ids ..]
           [--weights h5|safetensors]
      per pair a group /seq<N>: source_ids [S], target_ids [T] (int64; the decoder input ids
      exactly as given), encoder_attentions [Le,H,S,S], decoder_attentions [Ld,H,T,T] (causal,
      masked weights exactly 0), cross_attentions [Ld,H,T,S], encoder_hidden_states [Le+1,S,D],
      decoder_hidden_states [Ld+1,T,D] (first entry: embeddings * sqrt(D) + positions, then each
      layer's output), logits [T,V] (with final_logits_bias); float32. Root attributes model,
      torch_version, weights (the file read).
  generate MODEL_DIR (--src-ids IDS | --text TEXT) [--beams K] [--max-length N] [--json]
      greedy (K=1) or beam search as HF generate() with the model's generation_config.json
      (marian_generate.py). Prints the ids (decoder start token first, eos last) and the text
      decoded with target.spm; --json: one object {ids, text, beams, max_length, score}.
  tokenize MODEL_DIR --lines FILE [--target]
      one JSON line per input line: {"text": ..., "ids": [...], "tokens": [...]} with
      MarianTokenizer's rules (marian_tokenizer.py); --target encodes as text_target.
  selfcheck
      torch vs a naive float64 numpy loop (marian_naive.py), tf_model.h5 vs model.safetensors
      tensors identical (also with --old-names and without the bias group), the Keras layout
      names, greedy equals beam search with K=1, tokenizer rules; exits 1 on any failure.

Uses /usr/bin/python3 with Debian's python3-torch, python3-h5py, python3-numpy,
python3-sentencepiece, and spm_train from the sentencepiece package.
"""

import argparse
import json
import os
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import marian_layout  # noqa: E402
import marian_tokenizer  # noqa: E402

torch = None


def _import_torch(threads=2):
    global torch
    if torch is None:
        import torch as _torch
        torch = _torch
        torch.set_num_threads(threads)
    return torch


def load_model(model_dir, prefer="h5"):
    _import_torch()
    import marian_model
    cfg = marian_layout.load_config(model_dir)
    weights = marian_layout.read_weights(model_dir, cfg, prefer)
    return marian_model.Marian(cfg).load_numpy(weights).eval()


def parse_ids(text):
    return [int(x) for x in text.split(",") if x.strip() != ""]


# --- subcommands ----------------------------------------------------------------------------


def cmd_make_spm(a):
    src = a.input
    if src is None:
        src = a.out_prefix + ".txt"
        with open(src, "w", encoding="utf-8") as f:
            f.write(marian_tokenizer.sample_text(a.lang))
    print(marian_tokenizer.train_spm(a.out_prefix, src, a.vocab_size, a.model_type))


def cmd_make_model(a):
    if a.dim % a.heads:
        sys.exit("marian_reference: --dim %d is not divisible by --heads %d" % (a.dim, a.heads))
    if a.dim % 2:
        sys.exit("marian_reference: --dim must be even (sinusoidal positions)")
    if not a.vocab_from_spm:
        sys.exit("marian_reference: the vocabulary comes from the .spm models: pass "
                 "--vocab-from-spm")
    vocab = marian_tokenizer.build_vocab(a.spm_src, a.spm_tgt)
    cfg = marian_layout.make_config(len(vocab), a.layers_enc, a.layers_dec, a.heads, a.dim, a.ffn,
                                    a.positions, a.num_beams, a.max_length)
    weights = marian_layout.random_weights(cfg, a.std, a.seed, not a.no_final_logits_bias)
    marian_layout.write_model(a.out_dir, cfg, weights, a.spm_src, a.spm_tgt, vocab,
                              h5=a.format in ("h5", "both"),
                              safetensors=a.format in ("safetensors", "both"),
                              old_names=a.old_names, final_bias=not a.no_final_logits_bias,
                              langs=(a.source_lang, a.target_lang))


def run_capture(model, src, tgt):
    """{name: array} of one pair, shapes as in the module docstring."""
    with torch.no_grad():
        enc, enc_hidden, enc_attn = model.encode(torch.tensor([src]), capture=True)
        out = model.decode(torch.tensor([tgt]), enc, capture=True)

    def stack(xs):
        return torch.stack([x[0] for x in xs]).numpy().astype(np.float32)

    return {"source_ids": np.asarray(src, dtype=np.int64),
            "target_ids": np.asarray(tgt, dtype=np.int64),
            "encoder_attentions": stack(enc_attn),
            "decoder_attentions": stack(out["self_attentions"]),
            "cross_attentions": stack(out["cross_attentions"]),
            "encoder_hidden_states": stack(enc_hidden),
            "decoder_hidden_states": stack(out["hidden_states"]),
            "logits": out["logits"][0].numpy().astype(np.float32)}


def cmd_expected(a):
    if len(a.src_ids) != len(a.tgt_ids):
        sys.exit("marian_reference: give as many --src-ids as --tgt-ids")
    model = load_model(a.model_dir, a.weights)
    if a.no_positions:
        # "without positions": both stacks' sinusoid (or learned) tables left out of the
        # embeddings, as attnscope's --no-positions does
        _import_torch()
        with torch.no_grad():
            for stack in (model.model.encoder, model.model.decoder):
                stack.embed_positions.weight.zero_()
    tmp = a.out + ".tmp"
    with h5py.File(tmp, "w") as f:
        f.attrs["model"] = os.path.basename(os.path.normpath(a.model_dir))
        f.attrs["torch_version"] = str(torch.__version__)
        f.attrs["weights"] = "tf_model.h5" if a.weights == "h5" else "model.safetensors"
        for n, (s, t) in enumerate(zip(a.src_ids, a.tgt_ids)):
            g = f.create_group("seq%d" % n)
            for key, arr in run_capture(model, parse_ids(s), parse_ids(t)).items():
                g.create_dataset(key, data=arr)
    os.replace(tmp, a.out)


def cmd_generate(a):
    import marian_generate
    model = load_model(a.model_dir)
    gen = marian_layout.generation_settings(a.model_dir, model.cfg)
    tok = None
    if os.path.exists(os.path.join(a.model_dir, "target.spm")):
        tok = marian_tokenizer.MarianTokenizer(a.model_dir)
    if a.text is not None:
        if tok is None:
            sys.exit("marian_reference: --text needs source.spm, target.spm and vocab.json")
        src = tok.encode(a.text)
    else:
        src = parse_ids(a.src_ids)
    k = a.beams if a.beams is not None else gen["num_beams"]
    n = a.max_length if a.max_length is not None else gen["max_length"]
    ids, score = marian_generate.generate(model, src, gen, k, n)
    text = tok.decode(ids) if tok else None
    if a.json:
        print(json.dumps({"source_ids": src, "ids": ids, "text": text, "beams": k,
                          "max_length": n, "score": score}, ensure_ascii=False))
    else:
        print(",".join(str(i) for i in ids))
        if text is not None:
            print(text)


def cmd_tokenize(a):
    tok = marian_tokenizer.MarianTokenizer(a.model_dir)
    with open(a.lines, encoding="utf-8") as f:
        for line in f:
            text = line.rstrip("\n")
            tokens = tok.tokenize(text, a.target)
            print(json.dumps({"text": text, "ids": tok.encode(text, a.target),
                              "tokens": tokens + ["</s>"]}, ensure_ascii=False))


def cmd_selfcheck(a):
    import marian_selfcheck
    _import_torch()
    return marian_selfcheck.run(sys.modules[__name__])


# --- command line ---------------------------------------------------------------------------


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("make-spm", help="train a SentencePiece model with spm_train")
    s.add_argument("out_prefix")
    s.add_argument("--vocab-size", type=int, required=True)
    s.add_argument("--input", default=None, help="text file, one sentence a line")
    s.add_argument("--lang", choices=("en", "de"), default="en",
                   help="built-in text to train on when there is no --input")
    s.add_argument("--model-type", choices=("unigram", "bpe"), default="unigram")
    m = sub.add_parser("make-model", help="write a random Marian model in the HF layout")
    m.add_argument("out_dir")
    for opt in ("--layers-enc", "--layers-dec", "--heads", "--dim", "--ffn", "--positions"):
        m.add_argument(opt, type=int, required=True)
    m.add_argument("--seed", type=int, default=0)
    m.add_argument("--std", type=float, default=0.05)
    m.add_argument("--format", choices=("h5", "safetensors", "both"), default="h5")
    m.add_argument("--old-names", action="store_true",
                   help="shared embedding as .../weight:0 (files before transformers 4.27)")
    m.add_argument("--no-final-logits-bias", action="store_true",
                   help="no final_logits_bias group (files before Sept 2022); bias zero")
    m.add_argument("--spm-src", required=True)
    m.add_argument("--spm-tgt", required=True)
    m.add_argument("--vocab-from-spm", action="store_true",
                   help="build vocab.json from the two .spm models (required)")
    m.add_argument("--num-beams", type=int, default=4)
    m.add_argument("--max-length", type=int, default=None, help="default min(512, positions)")
    m.add_argument("--source-lang", default="en")
    m.add_argument("--target-lang", default="de")
    e = sub.add_parser("expected", help="run the reference and write the expected outputs")
    e.add_argument("model_dir")
    e.add_argument("out")
    e.add_argument("--src-ids", action="append", required=True)
    e.add_argument("--tgt-ids", action="append", required=True)
    e.add_argument("--no-positions", action="store_true",
                   help="leave out the position embeddings of both stacks")
    e.add_argument("--weights", choices=("h5", "safetensors"), default="h5",
                   help="which weight file to read when both exist")
    g = sub.add_parser("generate", help="greedy or beam search as HF generate()")
    g.add_argument("model_dir")
    src = g.add_mutually_exclusive_group(required=True)
    src.add_argument("--src-ids")
    src.add_argument("--text")
    g.add_argument("--beams", type=int, default=None)
    g.add_argument("--max-length", type=int, default=None)
    g.add_argument("--json", action="store_true")
    t = sub.add_parser("tokenize", help="MarianTokenizer ids, one JSON line per input line")
    t.add_argument("model_dir")
    t.add_argument("--lines", required=True)
    t.add_argument("--target", action="store_true", help="encode as target text")
    sub.add_parser("selfcheck", help="internal consistency checks (exit 1 on failure)")
    a = ap.parse_args(argv)
    fn = {"make-spm": cmd_make_spm, "make-model": cmd_make_model, "expected": cmd_expected,
          "generate": cmd_generate, "tokenize": cmd_tokenize, "selfcheck": cmd_selfcheck}[a.cmd]
    return fn(a) or 0


if __name__ == "__main__":
    sys.exit(main())
