"""marian_naive.py — a second, deliberately plain Marian forward pass for selfcheck: float64 numpy,
explicit loops over heads, queries and keys, written from the maths in marian_model.py's docstring
(scores divided by sqrt(hd) after the dot product instead of scaling q first, max-subtracted
softmax, masked positions skipped instead of added). Nothing shared with the torch code but the
weight dictionary."""

import math

import numpy as np


def _ln(x, g, b, eps=1e-5):
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * g + b


def _silu(x):
    return x / (1.0 + np.exp(-x))


def _lin(w, name, x):
    return x @ w[name + ".weight"].T + w[name + ".bias"]


def _attention(w, name, x, kv, heads, causal):
    t, d = x.shape
    s, hd = kv.shape[0], d // heads
    q, k, v = _lin(w, name + ".q_proj", x), _lin(w, name + ".k_proj", kv), \
        _lin(w, name + ".v_proj", kv)
    probs, ctx = np.zeros((heads, t, s)), np.zeros((t, d))
    for h in range(heads):
        cols = slice(h * hd, (h + 1) * hd)
        for i in range(t):
            keys = range(i + 1) if causal else range(s)
            sc = [sum(q[i, cols][c] * k[j, cols][c] for c in range(hd)) / math.sqrt(hd)
                  for j in keys]
            e = np.exp(np.array(sc) - max(sc))
            for j, pj in zip(keys, e / e.sum()):
                probs[h, i, j] = pj
                ctx[i, cols] += pj * v[j, cols]
    return _lin(w, name + ".out_proj", ctx), probs


def forward(cfg, weights, src, tgt):
    """{encoder_attentions [Le,H,S,S], decoder_attentions [Ld,H,T,T], cross_attentions
    [Ld,H,T,S], encoder_hidden_states [Le+1,S,D], decoder_hidden_states [Ld+1,T,D],
    logits [T,V]} in float64."""
    w = {k: np.asarray(v, dtype=np.float64) for k, v in weights.items()}
    d = cfg["d_model"]
    emb = w["model.shared.weight"]
    out = {k: [] for k in ("encoder_attentions", "decoder_attentions", "cross_attentions",
                           "encoder_hidden_states", "decoder_hidden_states")}
    h = np.stack([emb[i] * math.sqrt(d) + w["model.encoder.embed_positions.weight"][p]
                  for p, i in enumerate(src)])
    out["encoder_hidden_states"].append(h)
    for n in range(cfg["encoder_layers"]):
        pre = "model.encoder.layers.%d." % n
        a, p = _attention(w, pre + "self_attn", h, h, cfg["encoder_attention_heads"], False)
        h = _ln(h + a, w[pre + "self_attn_layer_norm.weight"], w[pre + "self_attn_layer_norm.bias"])
        m = _lin(w, pre + "fc2", _silu(_lin(w, pre + "fc1", h)))
        h = _ln(h + m, w[pre + "final_layer_norm.weight"], w[pre + "final_layer_norm.bias"])
        out["encoder_attentions"].append(p)
        out["encoder_hidden_states"].append(h)
    enc = h
    h = np.stack([emb[i] * math.sqrt(d) + w["model.decoder.embed_positions.weight"][p]
                  for p, i in enumerate(tgt)])
    out["decoder_hidden_states"].append(h)
    heads = cfg["decoder_attention_heads"]
    for n in range(cfg["decoder_layers"]):
        pre = "model.decoder.layers.%d." % n
        a, p = _attention(w, pre + "self_attn", h, h, heads, True)
        h = _ln(h + a, w[pre + "self_attn_layer_norm.weight"], w[pre + "self_attn_layer_norm.bias"])
        c, pc = _attention(w, pre + "encoder_attn", h, enc, heads, False)
        h = _ln(h + c, w[pre + "encoder_attn_layer_norm.weight"],
                w[pre + "encoder_attn_layer_norm.bias"])
        m = _lin(w, pre + "fc2", _silu(_lin(w, pre + "fc1", h)))
        h = _ln(h + m, w[pre + "final_layer_norm.weight"], w[pre + "final_layer_norm.bias"])
        out["decoder_attentions"].append(p)
        out["cross_attentions"].append(pc)
        out["decoder_hidden_states"].append(h)
    out = {k: np.stack(v) for k, v in out.items()}
    out["logits"] = h @ emb.T + w["final_logits_bias"][0]
    return out
