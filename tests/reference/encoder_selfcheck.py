"""encoder_selfcheck.py — `encoder_reference.py selfcheck`: a second, naive implementation of
the BERT / DistilBERT / RoBERTa forward pass (float64 numpy, explicit loops over heads, queries
and keys, every family's weight names spelled out again) and the checks of the file layouts.

Every check prints one line; run() returns 1 at the first failure, 0 when all pass.
"""

import math
import os
import tempfile

import h5py
import numpy as np

import encoder_layout as layout
import hf_layout

TOL_ATTN_ABS = 1e-5  # attentions: absolute
TOL_REL = 1e-5  # everything else: max |err| / max |ref|


def _erf_gelu(x):
    return 0.5 * x * (1.0 + np.vectorize(math.erf)(x / math.sqrt(2.0)))


def naive_forward(cfg, weights, ids, type_ids, head):
    """The expected-file arrays in float64, from the canonical (PyTorch-named) weights."""
    w = {k: np.asarray(v, dtype=np.float64) for k, v in weights.items()}
    fam, t = cfg["model_type"], len(ids)
    if fam == "distilbert":
        d, nh, nl, eps, pad = cfg["dim"], cfg["n_heads"], cfg["n_layers"], 1e-12, 0
        act = _erf_gelu if cfg["activation"] == "gelu" else (lambda x: np.maximum(x, 0))
    else:
        d, nh, nl = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_hidden_layers"]
        eps, pad, act = cfg["layer_norm_eps"], cfg["pad_token_id"], _erf_gelu
    hd = d // nh

    def ln(x, pre):
        mu = x.mean(axis=-1, keepdims=True)
        var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
        return (x - mu) / np.sqrt(var + eps) * w[pre + ".weight"] + w[pre + ".bias"]

    def lin(x, pre):
        return x @ w[pre + ".weight"].T + w[pre + ".bias"]

    if fam == "roberta":  # padding_idx + running count of non-pad tokens; pads stay at pad
        pos, count = [], 0
        for tok in ids:
            count += tok != pad
            pos.append(pad + count if tok != pad else pad)
    else:
        pos = list(range(t))
    e = fam + ".embeddings."
    h = np.stack([w[e + "word_embeddings.weight"][i] + w[e + "position_embeddings.weight"][p]
                  for i, p in zip(ids, pos)])
    if fam != "distilbert":
        h = h + np.stack([w[e + "token_type_embeddings.weight"][y] for y in type_ids])
    h = ln(h, e + "LayerNorm")
    out = {key: [] for key in ("attentions", "q", "k", "v", "contexts", "attn_out")}
    out["hidden_states"] = [h]
    for n in range(nl):
        if fam == "distilbert":
            p = "distilbert.transformer.layer.%d." % n
            names = [p + "attention.q_lin", p + "attention.k_lin", p + "attention.v_lin",
                     p + "attention.out_lin", p + "sa_layer_norm", p + "ffn.lin1", p + "ffn.lin2",
                     p + "output_layer_norm"]
        else:
            p = "%s.encoder.layer.%d." % (fam, n)
            names = [p + "attention.self.query", p + "attention.self.key",
                     p + "attention.self.value", p + "attention.output.dense",
                     p + "attention.output.LayerNorm", p + "intermediate.dense",
                     p + "output.dense", p + "output.LayerNorm"]
        qn, kn, vn, on, ln1, ff1, ff2, ln2 = names
        qa, ka, va = lin(h, qn), lin(h, kn), lin(h, vn)
        probs, ctx = np.zeros((nh, t, t)), np.zeros((t, d))
        for hh in range(nh):
            cols = slice(hh * hd, hh * hd + hd)
            for i in range(t):
                s = [sum(qa[i, hh * hd + c] * ka[j, hh * hd + c] for c in range(hd))
                     / math.sqrt(hd) for j in range(t)]
                ex = np.exp(np.array(s) - max(s))
                probs[hh, i] = ex / ex.sum()
                ctx[i, cols] = sum(probs[hh, i, j] * va[j, cols] for j in range(t))
        a = lin(ctx, on)
        h1 = ln(a + h, ln1)
        h = ln(lin(act(lin(h1, ff1)), ff2) + h1, ln2)
        for key, val in (("q", qa), ("k", ka), ("v", va), ("contexts", ctx)):
            out[key].append(val.reshape(t, nh, hd).transpose(1, 0, 2))
        out["attentions"].append(probs)
        out["attn_out"].append(a)
        out["hidden_states"].append(h)
    out = {key: np.stack(val) for key, val in out.items()}
    out["position_ids"] = np.array(pos)
    if head in ("mlm", "pretraining"):
        word = w[e + "word_embeddings.weight"]
        if fam == "bert":
            x = ln(act(lin(h, "cls.predictions.transform.dense")),
                   "cls.predictions.transform.LayerNorm")
            out["logits"] = x @ word.T + w["cls.predictions.bias"]
        elif fam == "roberta":
            x = ln(act(lin(h, "lm_head.dense")), "lm_head.layer_norm")
            out["logits"] = x @ word.T + w["lm_head.bias"]
        else:
            x = ln(act(lin(h, "vocab_transform")), "vocab_layer_norm")
            out["logits"] = x @ word.T + w["vocab_projector.bias"]
    return out


def compare(got, ref):
    """[(name, error, tolerance)] over the arrays of both."""
    rows = []
    for name, want in ref.items():
        if name == "position_ids":
            rows.append((name, float(np.any(got[name] != want)), 0.0))
            continue
        if got[name].shape != want.shape:
            rows.append((name, float("inf"), 0.0))
            continue
        err = float(np.max(np.abs(got[name] - want)))
        if name == "attentions":
            rows.append((name, err, TOL_ATTN_ABS))
        else:
            rows.append((name, err / max(float(np.max(np.abs(want))), 1e-30), TOL_REL))
    return rows


CASES = [  # (family, head, type_vocab, variant options for a second folder)
    ("bert", "mlm", None, dict(einsum=True, legacy_ln=True, tied_copies=True, position_ids=True,
                               vlen=True)),
    ("bert", "pretraining", None, dict(legacy_ln=True)),
    ("bert", "none", None, dict(einsum=True, position_ids=True)),
    ("distilbert", "mlm", None, dict(tied_copies=True, legacy_ln=True, vlen=True)),
    ("distilbert", "none", None, {}),
    ("roberta", "mlm", None, dict(einsum=True, legacy_ln=True, tied_copies=True)),
    ("roberta", "none", 2, dict(position_ids=True)),
]


def sequences(family, v):
    rng = np.random.default_rng(3)
    if family == "roberta":  # <s>=0 <pad>=1 </s>=2; one pad inside the second sequence
        return [([0, 10, 11, 12, 2], None),
                ([0, 10, 1, 11, 2, 2, 20, 21, 2], None),
                ([0] + rng.integers(4, v, 12).tolist() + [2], None)]
    cls, sep = 2, 3  # the compact WordPiece vocabulary of make_wordpiece_vocab
    return [([cls, 10, 11, 12, sep], [0] * 5),
            ([cls, 10, 11, sep, 20, 21, 22, sep], [0, 0, 0, 0, 1, 1, 1, 1]),
            ([cls] + rng.integers(5, v, 15).tolist() + [sep], [0] * 9 + [1] * 8)]


def _spot_checks(d, fam, head, cfg, w, variant):
    """Exact names and shapes as HF publishes them, independent of keras_groups()."""
    dd, nh = cfg.get("hidden_size", cfg.get("dim")), cfg.get("num_attention_heads",
                                                              cfg.get("n_heads"))
    problems = []
    with h5py.File(os.path.join(d, "tf_model.h5"), "r") as f:
        want_layers = {("bert", "mlm"): ["bert", "mlm___cls"],
                       ("bert", "pretraining"): ["bert", "nsp___cls", "mlm___cls"],
                       ("bert", "none"): ["bert"], ("roberta", "mlm"): ["roberta", "lm_head"],
                       ("roberta", "none"): ["roberta"], ("distilbert", "none"): ["distilbert"],
                       ("distilbert", "mlm"): ["distilbert", "vocab_transform",
                                               "vocab_layer_norm", "vocab_projector"]}
        if hf_layout.str_list(f.attrs["layer_names"]) != want_layers[(fam, head)]:
            problems.append("layer_names %s" % hf_layout.str_list(f.attrs["layer_names"]))
        for k in ("backend", "keras_version"):
            if k not in f.attrs:
                problems.append("root attribute %s missing" % k)
        word = w[fam + ".embeddings.word_embeddings.weight"]
        if fam == "bert":
            sc = {"mlm": "tf_bert_for_masked_lm", "pretraining": "tf_bert_for_pre_training",
                  "none": "tf_bert_model"}[head]
            q = f["bert/%s/bert/encoder/layer_._1/attention/self/query/kernel:0" % sc][...]
            want_q = w["bert.encoder.layer.1.attention.self.query.weight"].T
            if variant.get("einsum"):
                want_q = want_q.reshape(dd, nh, dd // nh)
            if q.shape != want_q.shape or not np.array_equal(q, want_q):
                problems.append("query kernel is not W^T %s" % (want_q.shape,))
            if head != "none":
                g = f["mlm___cls/%s" % sc]
                if not np.array_equal(g["bert/embeddings/word_embeddings/weight:0"][...], word):
                    problems.append("mlm___cls lacks the tied word-embeddings copy")
                if g["mlm___cls/predictions/bias:0"].shape != (word.shape[0],):
                    problems.append("mlm___cls/predictions/bias:0 shape")
            if head == "pretraining":
                k = f["nsp___cls/%s/nsp___cls/seq_relationship/kernel:0" % sc]
                if k.shape != (dd, 2):
                    problems.append("seq_relationship kernel shape %s" % (k.shape,))
            if head == "none" and "bert/%s/bert/pooler/dense/kernel:0" % sc not in f:
                problems.append("TFBertModel without pooler")
        elif fam == "roberta" and head == "mlm":
            g = f["lm_head/tf_roberta_for_masked_lm"]
            for n in ("lm_head/bias:0", "lm_head/dense/kernel:0", "lm_head/layer_norm/gamma:0",
                      "roberta/embeddings/word_embeddings/weight:0"):
                if n not in g:
                    problems.append("lm_head lacks %s" % n)
        elif fam == "distilbert" and head == "mlm":
            sc = "tf_distil_bert_for_masked_lm"
            for n in ("vocab_projector/%s/vocab_projector/bias:0" % sc,
                      "vocab_projector/%s/distilbert/embeddings/word_embeddings/weight:0" % sc,
                      "vocab_transform/%s/vocab_transform/kernel:0" % sc,
                      "vocab_layer_norm/%s/vocab_layer_norm/gamma:0" % sc,
                      "distilbert/%s/distilbert/transformer/layer_._0/attention/q_lin/kernel:0"
                      % sc,
                      "distilbert/%s/distilbert/transformer/layer_._1/ffn/lin2/bias:0" % sc):
                if n not in f:
                    problems.append("missing dataset /%s" % n)
        for g in f.values():
            for ds in _datasets(g):
                if ds.dtype != np.float32 or ds.chunks or ds.compression:
                    problems.append("%s not contiguous float32" % ds.name)
    st = hf_layout.read_safetensors_tensors(os.path.join(d, "model.safetensors"))
    pre = "" if head == "none" else fam + "."
    ln = ("LayerNorm.gamma" if variant.get("legacy_ln") else "LayerNorm.weight")
    for n in [pre + "embeddings.word_embeddings.weight", pre + "embeddings." + ln]:
        if n not in st:
            problems.append("model.safetensors lacks %s" % n)
    tied = {"bert": "cls.predictions.decoder.weight", "roberta": "lm_head.decoder.weight",
            "distilbert": "vocab_projector.weight"}[fam]
    if head != "none" and (tied in st) != bool(variant.get("tied_copies")):
        problems.append("tied copy %s present=%s" % (tied, tied in st))
    return problems


def _datasets(group):
    for item in group.values():
        if isinstance(item, h5py.Dataset):
            yield item
        else:
            yield from _datasets(item)


def _same(a, b):
    return set(a) == set(b) and all(np.array_equal(a[k], b[k]) for k in a)


def run(ref):
    """REF is the encoder_reference module (Encoder, run_capture, main)."""
    worst = {"attentions": 0.0, "other": 0.0}
    with tempfile.TemporaryDirectory() as tmp:
        for fam, head, tv, variant in CASES:
            tag = "%s/%s" % (fam, head)
            cfg = layout.make_config(fam, 2, 3, 24, 40, 300, 40, tv, head)
            w = layout.random_weights(cfg, head, 0.3, 11)
            base, var = os.path.join(tmp, fam + head), os.path.join(tmp, fam + head + "-v")
            layout.write_model(base, cfg, w, head, h5=True, safetensors=True, chunks=3)
            layout.write_model(var, cfg, w, head, h5=True, safetensors=True, **variant)
            for d, label in ((base, "plain"), (var, "variant %s" % sorted(variant))):
                wh, head_h5, copies = layout.read_h5(os.path.join(d, "tf_model.h5"), cfg)
                ws = layout.read_safetensors(os.path.join(d, "model.safetensors"), cfg, head)
                ok = (head_h5 == head and _same(wh, w) and _same(ws, w)
                      and all(np.array_equal(a, w[n]) for _, n, a in copies)
                      and len(copies) == (0 if head == "none" else 5 - (fam == "distilbert")))
                print("%-19s %-48s h5 == safetensors == written weights: %s"
                      % (tag, label, "ok" if ok else "FAILED"))
                if not ok:
                    return 1
                problems = _spot_checks(d, fam, head, cfg, w, variant if d == var else {})
                if problems:
                    print("selfcheck FAILED: %s %s layout: %s" % (tag, label, "; ".join(problems)))
                    return 1
            for prefer in ("h5", "safetensors"):
                model = ref.load_model(base, prefer)
                for ids, types in sequences(fam, 300):
                    got = ref.run_capture(model, ids, types)
                    naive = naive_forward(cfg, w, ids, types or [0] * len(ids), head)
                    if ("logits" in got) != ("logits" in naive):
                        print("selfcheck FAILED: %s logits presence" % tag)
                        return 1
                    rows = compare(got, naive)
                    for name, err, tol in rows:
                        key = "attentions" if name == "attentions" else "other"
                        worst[key] = max(worst[key], err)
                        if err > tol:
                            print("selfcheck FAILED: %s %s T=%d %s error %.3g > %g"
                                  % (tag, prefer, len(ids), name, err, tol))
                            return 1
                    attn = next(e for n, e, _ in rows if n == "attentions")
                    other = max(e for n, e, _ in rows if n not in ("attentions", "position_ids"))
                    print("%-19s %-11s T=%-3d torch vs float64 loops: attention abs %.2e, "
                          "others rel <= %.2e" % (tag, prefer, len(ids), attn, other))
            if fam == "roberta":
                pos = ref.run_capture(ref.load_model(base), [0, 10, 1, 11, 2])["position_ids"]
                if pos.tolist() != [2, 3, 1, 4, 5]:
                    print("selfcheck FAILED: RoBERTa position ids %s" % pos.tolist())
                    return 1
        # the comparison must catch a corrupted weight
        cfg = layout.make_config("bert", 2, 3, 24, 40, 300, 40, None, "mlm")
        w = layout.random_weights(cfg, "mlm", 0.3, 11)
        bad = dict(w)
        bad["bert.encoder.layer.1.attention.self.key.weight"] = \
            w["bert.encoder.layer.1.attention.self.key.weight"].T.copy()
        got = ref.run_capture(ref.Encoder(cfg, bad, "mlm"), *sequences("bert", 300)[1])
        naive = naive_forward(cfg, w, *sequences("bert", 300)[1], "mlm")
        caught = [n for n, e, tol in compare(got, naive) if e > tol]
        print("corrupted key weight caught in: %s" % ", ".join(caught))
        if "attentions" not in caught or "logits" not in caught:
            print("selfcheck FAILED: a transposed key weight went unnoticed")
            return 1
        # the expected file end to end
        out = os.path.join(tmp, "exp.h5")
        ref.main(["expected", os.path.join(tmp, "bertmlm"), out, "--ids", "2,10,11,3",
                  "--type-ids", "0,0,0,0", "--ids", "2,10,3,20,3", "--type-ids", "0,0,0,1,1"])
        with h5py.File(out, "r") as f:
            shapes = {k: f["seq1"][k].shape for k in f["seq1"]}
        want = {"ids": (5,), "type_ids": (5,), "position_ids": (5,),
                "attentions": (2, 3, 5, 5), "q": (2, 3, 5, 8), "k": (2, 3, 5, 8),
                "v": (2, 3, 5, 8), "contexts": (2, 3, 5, 8), "attn_out": (2, 5, 24),
                "hidden_states": (3, 5, 24), "logits": (5, 300)}
        if shapes != want:
            print("selfcheck FAILED: expected-file shapes %s" % shapes)
            return 1
        print("expected file: /seq0, /seq1 with %s" % ", ".join(sorted(want)))
    if layout.snake_case("TFGPT2LMHeadModel") + "/transformer/" != hf_layout.H5_SCOPE:
        print("selfcheck FAILED: snake_case disagrees with the GPT-2 scope")
        return 1
    print("selfcheck ok: worst attention abs error %.3g, worst relative error %.3g"
          % (worst["attentions"], worst["other"]))
    return 0
