"""marian_selfcheck.py — `marian_reference.py selfcheck`: checks that can fail.

  1. tf_model.h5 layout: layer_names [model, final_logits_bias], every expected weight name in
     Keras' order under weight_names, contiguous float32 datasets with the Keras shapes; the
     shared embedding under embeddings:0, or weight:0 with --old-names; no bias group with
     --no-final-logits-bias.
  2. h5 vs safetensors: every tensor read from both files is bit-identical (and equal to the
     weights written); the position tables equal the sinusoid formula.
  3. torch (marian_model) vs marian_naive (float64 loops): every captured output, max |err| /
     max |ref| <= 1e-5; masked decoder self-attention exactly 0.
  4. greedy == beam search with K=1 (ids), also when max_length forces the eos; beam K=3 ends
     with eos and starts with the decoder start token.
  5. tokenizer: special tokens split out with the neighbouring spaces stripped, a leading
     >>xx<< kept whole, unknown pieces -> <unk>, </s> appended, decode(encode(x)) == x on the
     built-in sentences.
"""

import os
import tempfile

import h5py
import numpy as np
import torch

import hf_layout
import marian_generate
import marian_layout
import marian_naive
import marian_tokenizer


class Failed(Exception):
    pass


def _check(cond, msg):
    if not cond:
        raise Failed(msg)


def _layout(path, cfg, old_names, final_bias):
    with h5py.File(path, "r") as f:
        layers = [v.decode() for v in np.ravel(f.attrs["layer_names"])]
        want_layers = ["model", "final_logits_bias"] if final_bias else ["model"]
        _check(layers == want_layers, "layer_names %s, expected %s" % (layers, want_layers))
        _check("backend" in f.attrs and "keras_version" in f.attrs, "backend/keras_version")
        want = [tf for _, tf, _, _ in marian_layout.layer_params(cfg)]
        if old_names:
            want[0] = marian_layout.SHARED_OLD
        names = hf_layout.keras_weight_names(f["model"])
        _check(names == want, "weight_names of 'model' differ from the expected list")
        for (pt, tf, shape, transpose), name in zip(marian_layout.layer_params(cfg), want):
            ds = f["model"][name]
            kshape = tuple(shape[::-1]) if transpose else tuple(shape)
            _check(ds.dtype == np.float32 and ds.shape == kshape and ds.chunks is None
                   and ds.compression is None, "dataset /model/%s not float32 %s" % (name, kshape))
        for must in ("model/tf_marian_mt_model/model/encoder/embed_positions/embeddings:0",
                     "model/tf_marian_mt_model/model/decoder/layers.0/encoder_attn/k_proj/kernel:0",
                     "model/tf_marian_mt_model/model/encoder/layers.0/self_attn_layer_norm/gamma:0",
                     "model/tf_marian_mt_model/model/decoder/layers.0/fc2/bias:0"):
            _check(must in f, "missing %s" % must)
        if final_bias:
            _check(hf_layout.keras_weight_names(f["final_logits_bias"]) ==
                   ["final_logits_bias:0"], "final_logits_bias weight_names")
            _check(f["final_logits_bias/final_logits_bias:0"].shape == (1, cfg["vocab_size"]),
                   "final_logits_bias shape")
    print("  layout ok (old_names=%s, final_bias=%s): %d weights in 'model'"
          % (old_names, final_bias, len(want)))


def _make_spms(tmp):
    out = []
    for lang in ("en", "de"):
        txt = os.path.join(tmp, "%s.txt" % lang)
        with open(txt, "w", encoding="utf-8") as f:
            f.write(marian_tokenizer.sample_text(lang))
        out.append(marian_tokenizer.train_spm(os.path.join(tmp, lang), txt, 120))
    return out


def _model(ref, tmp, name, spms, old_names=False, final_bias=True):
    d = os.path.join(tmp, name)
    args = ["make-model", d, "--layers-enc", "2", "--layers-dec", "2", "--heads", "3", "--dim",
            "12", "--ffn", "20", "--positions", "24", "--seed", "5", "--std", "0.4",
            "--format", "both", "--spm-src", spms[0], "--spm-tgt", spms[1], "--vocab-from-spm",
            "--num-beams", "3"]
    if old_names:
        args.append("--old-names")
    if not final_bias:
        args.append("--no-final-logits-bias")
    ref.main(args)
    return d


def _compare_files(d, cfg, final_bias):
    a = marian_layout.read_tf_h5(os.path.join(d, "tf_model.h5"), cfg)
    b = marian_layout.read_safetensors(os.path.join(d, "model.safetensors"), cfg)
    _check(sorted(a) == sorted(b), "h5 and safetensors hold different tensor names")
    for k in a:
        _check(a[k].shape == b[k].shape and np.array_equal(a[k], b[k]),
               "tensor %s differs between tf_model.h5 and model.safetensors" % k)
    table = marian_layout.sinusoid_table(cfg["max_position_embeddings"], cfg["d_model"])
    _check(np.array_equal(a["model.encoder.embed_positions.weight"], table), "sinusoid table")
    _check(table[3, 0] == np.float32(np.sin(3.0)) and table[3, cfg["d_model"] // 2] ==
           np.float32(np.cos(3.0)), "sin first half, cos second half")
    if not final_bias:
        _check(not a["final_logits_bias"].any(), "bias must be zero without its group")
    print("  h5 == safetensors: %d tensors bit-identical" % len(a))


def _numerics(ref, d, cfg):
    model = ref.load_model(d)
    weights = marian_layout.read_tf_h5(os.path.join(d, "tf_model.h5"), cfg)
    v, pad = cfg["vocab_size"], cfg["pad_token_id"]
    worst = 0.0
    for src, tgt in (([5, 0], [pad]), ([3, 17, 40, v - 2, 9, 0], [pad, 4, 8, 15, 16, 23, 42]),
                     (list(range(1, 20)) + [0], [pad] + list(range(30, 50)))):
        got = ref.run_capture(model, src, tgt)
        want = marian_naive.forward(cfg, weights, src, tgt)
        for name, w in want.items():
            err = float(np.max(np.abs(got[name] - w)) / max(np.max(np.abs(w)), 1e-30))
            worst = max(worst, err)
            _check(got[name].shape == w.shape, "%s shape %s vs %s" % (name, got[name].shape,
                                                                     w.shape))
            _check(err <= 1e-5, "%s: torch vs naive relative error %.3g" % (name, err))
        t = len(tgt)
        upper = got["decoder_attentions"][:, :, np.triu_indices(t, 1)[0], np.triu_indices(t, 1)[1]]
        _check(not np.any(upper != 0.0), "masked decoder self-attention is not exactly 0")
        print("  S=%-2d T=%-2d torch vs naive float64: worst max|err|/max|ref| %.3g"
              % (len(src), t, max(float(np.max(np.abs(got[k] - want[k])) /
                                        max(np.max(np.abs(want[k])), 1e-30)) for k in want)))
    return worst


def _generation(ref, d, cfg):
    model = ref.load_model(d)
    gen = marian_layout.generation_settings(d, cfg)
    _check(gen["num_beams"] == 3 and gen["renormalize_logits"] and
           gen["bad_words_ids"] == [[cfg["pad_token_id"]]], "generation_config.json settings")
    cases = 0
    for src in ([5, 0], [3, 17, 40, 9, 0], [20, 21, 22, 23, 24, 25, 0], [7, 7, 7, 0]):
        for n in (4, 9, 24):
            g, _ = marian_generate.generate(model, src, gen, 1, n)
            enc = model.encode(torch.tensor([src]))[0]
            proc = marian_generate.Processors(gen, cfg["vocab_size"], n)
            b1, _ = marian_generate._beam(model, enc, proc, 1, n, cfg["decoder_start_token_id"],
                                          gen["eos_token_id"], gen)
            _check(g == b1, "greedy %s != beam K=1 %s (src %s, max_length %d)" % (g, b1, src, n))
            _check(g[0] == cfg["decoder_start_token_id"] and len(g) <= n, "greedy shape")
            _check(cfg["pad_token_id"] not in g[1:], "pad generated")
            if n == 4:
                _check(g[-1] == gen["eos_token_id"], "forced eos at max_length-1")
            k3, score = marian_generate.generate(model, src, gen, 3, n)
            _check(k3[0] == cfg["decoder_start_token_id"] and len(k3) <= n and
                   (k3[-1] == gen["eos_token_id"] or len(k3) == n), "beam K=3 output %s" % k3)
            cases += 1
    print("  greedy == beam K=1 on %d (source, max_length) cases; K=3 well-formed" % cases)


def _tokenizer(d):
    tok = marian_tokenizer.MarianTokenizer(d)
    eos, unk = tok.encoder["</s>"], tok.encoder["<unk>"]
    a = tok.tokenize("The group went home. </s> The man<pad>")
    want = tok.tokenize("The group went home.") + ["</s>"] + tok.tokenize("The man") + ["<pad>"]
    _check(a == want, "special tokens split out: %s" % a)
    _check(tok.tokenize("The group")[0].startswith("\u2581"), "first piece carries \u2581")
    b = tok.tokenize(">>de<< The group")
    _check(b[0] == ">>de<<" and b[1:] == tok.tokenize("The group"), "language code: %s" % b)
    ids = tok.encode("The group \u2603")
    _check(ids[-1] == eos and unk in ids, "unknown piece -> <unk>, </s> appended: %s" % ids)
    _check(tok.encode("") == [eos], "empty text gives [</s>]")
    for en, de in marian_tokenizer.SAMPLE_PAIRS:
        got = tok.decode(tok.encode(de, target=True))
        _check(got == de, "decode(encode(%r)) = %r" % (de, got))
    print("  tokenizer rules ok; decode(encode(x)) == x on %d German sentences"
          % len(marian_tokenizer.SAMPLE_PAIRS))


def run(ref):
    try:
        with tempfile.TemporaryDirectory() as tmp:
            spms = _make_spms(tmp)
            d = _model(ref, tmp, "new", spms)
            cfg = marian_layout.load_config(d)
            _layout(os.path.join(d, "tf_model.h5"), cfg, False, True)
            _compare_files(d, cfg, True)
            old = _model(ref, tmp, "old", spms, old_names=True, final_bias=False)
            _layout(os.path.join(old, "tf_model.h5"), cfg, True, False)
            _compare_files(old, cfg, False)
            worst = _numerics(ref, d, cfg)
            _generation(ref, d, cfg)
            _tokenizer(d)
    except Failed as e:
        print("selfcheck FAILED: %s" % e)
        return 1
    print("selfcheck ok: worst relative error torch vs naive %.3g" % worst)
    return 0
