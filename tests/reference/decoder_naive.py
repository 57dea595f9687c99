"""decoder_naive.py — a second, naive implementation of the Llama-family / Qwen3 / Phi-3 /
GPT-NeoX forward pass (float64 numpy, explicit loops over heads, queries and keys), and
decoder_reference.py's selfcheck built on it.

Written from the formulas in decoder_reference.py's docstring, sharing none of its code but
the config reader (decoder_layout.Spec): RoPE rotates the pair (i, i + rotary_dim/2) by
position·f_i with f_i = theta^(-2i/rotary_dim) in float64 (then the linear or llama3 rule;
longrope: f_i / ext_i with the long factors when T > original, both results times the attention
factor); a query at i sees key j when j <= i and, with a window W, j > i - W. Qwen3 normalises
each head's q and k (RMS over head_dim) before RoPE; Phi-3 slices its fused qkv_proj and
gate_up_proj.
"""

import json
import math
import os
import tempfile

import numpy as np

import decoder_layout
import safetensors_io

TOLERANCE = 1e-5  # max |torch - naive| / max |naive|, per dataset
STD, SEED = 0.3, 11  # of the selfcheck models


def longrope(s, t):
    """(ext factors, attention factor) of a longrope spec for T tokens."""
    sc = s.rope_scaling
    original = sc.get("original_max_position_embeddings", s.original_max)
    factor = sc.get("factor") or s.max_pos / original
    attention = sc.get("attention_factor")
    if attention is None:
        attention = 1.0 if factor <= 1 else math.sqrt(1 + math.log(factor) / math.log(original))
    ext = sc["long_factor"] if t > original else sc["short_factor"]
    return np.array(ext, dtype=np.float64), attention


def frequencies(s, t=1):
    """f_i for the pairs of the rotary dims, float64."""
    half = s.rotary_dim // 2
    f = np.array([s.rope_theta ** (-2.0 * i / s.rotary_dim) for i in range(half)])
    sc = s.rope_scaling
    if s.rope_type == "longrope":
        f = f / longrope(s, t)[0]
    elif s.rope_type == "linear":
        f = f / sc["factor"]
    elif s.rope_type == "llama3":
        old, lo, hi, fac = (sc["original_max_position_embeddings"], sc["low_freq_factor"],
                            sc["high_freq_factor"], sc["factor"])
        out = []
        for fi in f:
            wavelen = 2 * math.pi / fi
            if wavelen < old / hi:
                out.append(fi)
            elif wavelen > old / lo:
                out.append(fi / fac)
            else:
                sm = (old / wavelen - lo) / (hi - lo)
                out.append((1 - sm) * fi / fac + sm * fi)
        f = np.array(out)
    return f


def rotate(x, pos, f, amplitude=1.0):
    """One head vector x [hd] at position POS: pair (i, i + r/2) turned by pos·f_i (and scaled by
    AMPLITUDE, longrope's attention factor)."""
    y, half = x.copy(), len(f)
    for i, fi in enumerate(f):
        c, sn = amplitude * math.cos(pos * fi), amplitude * math.sin(pos * fi)
        a, b = x[i], x[i + half]
        y[i], y[i + half] = a * c - b * sn, b * c + a * sn
    return y


def naive_gemma(s, w, ids):
    """Gemma 2 / Gemma 3 in float64: embeddings × √D; RMSNorm × (1 + w) before and after the
    attention and the MLP; q/k norms (Gemma 3); RoPE with θ_local on sliding layers (Gemma 3);
    scores × query_pre_attn_scalar^-½, capped c·tanh(s/c); gelu(tanh) GeGLU; logits capped."""
    t, hd, nh, nkv = len(ids), s.hd, s.n_head, s.n_kv
    f_global = frequencies(s, t)
    f_local = np.array([getattr(s, "local_theta", s.rope_theta) ** (-2.0 * i / s.rotary_dim)
                        for i in range(s.rotary_dim // 2)])

    def norm(x, name):
        return x / np.sqrt((x * x).mean(-1, keepdims=True) + s.eps) * (1.0 + w[name + ".weight"])

    def lin(x, name):
        y = x @ w[name + ".weight"].T
        return y + w[name + ".bias"] if name + ".bias" in w else y

    def gelu_tanh(x):
        return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))

    h = w["model.embed_tokens.weight"][ids] * math.sqrt(s.d)
    out = {key: [] for key in ("attentions", "q", "k", "v", "contexts", "attn_out",
                               "hidden_states")}
    for n in range(s.n_layer):
        p, win = "model.layers.%d." % n, s.windows[n]
        f = f_local if (win is not None and s.family == "gemma3_text") else f_global
        out["hidden_states"].append(h)
        x = norm(h, p + "input_layernorm")
        qa, ka, va = (lin(x, p + "self_attn.%s_proj" % c) for c in "qkv")
        q = [qa[:, j * hd:(j + 1) * hd] for j in range(nh)]
        k = [ka[:, j * hd:(j + 1) * hd] for j in range(nkv)]
        v = [va[:, j * hd:(j + 1) * hd] for j in range(nkv)]
        if s.qk_norm:
            q = [norm(z, p + "self_attn.q_norm") for z in q]
            k = [norm(z, p + "self_attn.k_norm") for z in k]
        q = [np.stack([rotate(z[i], i, f) for i in range(t)]) for z in q]
        k = [np.stack([rotate(z[i], i, f) for i in range(t)]) for z in k]
        prob, ctx = np.zeros((nh, t, t)), np.zeros((nh, t, hd))
        for j in range(nh):
            kj, vj = k[j // (nh // nkv)], v[j // (nh // nkv)]
            for i in range(t):
                seen = [m for m in range(t) if m <= i and (win is None or m > i - win)]
                sc = np.array([float(q[j][i] @ kj[m]) * s.scaling for m in seen])
                if s.attn_cap:
                    sc = s.attn_cap * np.tanh(sc / s.attn_cap)
                e = np.exp(sc - sc.max())
                prob[j, i, seen] = e / e.sum()
                ctx[j, i] = sum(prob[j, i, m] * vj[m] for m in seen)
        a = lin(ctx.transpose(1, 0, 2).reshape(t, nh * hd), p + "self_attn.o_proj")
        h = h + norm(a, p + "post_attention_layernorm")
        x = norm(h, p + "pre_feedforward_layernorm")
        m = lin(gelu_tanh(lin(x, p + "mlp.gate_proj")) * lin(x, p + "mlp.up_proj"),
                p + "mlp.down_proj")
        h = h + norm(m, p + "post_feedforward_layernorm")
        out["q"].append(np.stack(q))
        out["k"].append(np.stack([k[j // (nh // nkv)] for j in range(nh)]))
        out["v"].append(np.stack([v[j // (nh // nkv)] for j in range(nh)]))
        out["attentions"].append(prob)
        out["contexts"].append(ctx)
        out["attn_out"].append(a)
    h = norm(h, "model.norm")
    out["hidden_states"].append(h)
    out = {key: np.stack(val) for key, val in out.items()}
    logits = h @ w["model.embed_tokens.weight" if s.tie else "lm_head.weight"].T
    out["logits"] = s.final_cap * np.tanh(logits / s.final_cap) if s.final_cap else logits
    return out


def naive_forward(cfg, w, ids):
    """{dataset: float64 array} as decoder_reference.run_capture, from HF-named weights W."""
    s = decoder_layout.Spec(cfg)
    if s.gemma:
        return naive_gemma(s, {k: np.asarray(v, dtype=np.float64) for k, v in w.items()}, ids)
    w = {k: np.asarray(v, dtype=np.float64) for k, v in w.items()}
    t, hd, nh, nkv = len(ids), s.hd, s.n_head, s.n_kv
    f = frequencies(s, t)
    amp = longrope(s, t)[1] if s.rope_type == "longrope" else 1.0

    def norm(x, name):
        if s.neox:
            mu = x.mean(-1, keepdims=True)
            var = ((x - mu) ** 2).mean(-1, keepdims=True)
            return (x - mu) / np.sqrt(var + s.eps) * w[name + ".weight"] + w[name + ".bias"]
        return x / np.sqrt((x * x).mean(-1, keepdims=True) + s.eps) * w[name + ".weight"]

    def norm_head(x, name):
        return x / np.sqrt((x * x).mean(-1, keepdims=True) + s.eps) * w[name + ".weight"]

    def lin(x, name):
        y = x @ w[name + ".weight"].T
        return y + w[name + ".bias"] if name + ".bias" in w else y

    def act(x):
        if s.act == "silu":
            return x / (1.0 + np.exp(-x))
        return 0.5 * x * (1.0 + np.frompyfunc(math.erf, 1, 1)(x / math.sqrt(2.0)).astype(float))

    pre = "gpt_neox.layers.%d." if s.neox else "model.layers.%d."
    h = (w["gpt_neox.embed_in.weight"] if s.neox else w["model.embed_tokens.weight"])[ids]
    out = {key: [] for key in ("attentions", "q", "k", "v", "contexts", "attn_out")}
    out["hidden_states"] = []
    for n in range(s.n_layer):
        p, win = pre % n, s.windows[n]
        out["hidden_states"].append(h)
        x = norm(h, p + "input_layernorm")
        if s.neox:
            qkv = lin(x, p + "attention.query_key_value")
            heads = [qkv[:, 3 * hd * j:3 * hd * (j + 1)] for j in range(nh)]
            q = [z[:, :hd] for z in heads]
            k = [z[:, hd:2 * hd] for z in heads]
            v = [z[:, 2 * hd:] for z in heads]
        else:
            if s.fused:
                qkv = lin(x, p + "self_attn.qkv_proj")
                qa, ka, va = np.split(qkv, [nh * hd, (nh + nkv) * hd], axis=1)
            else:
                qa, ka, va = (lin(x, p + "self_attn.%s_proj" % c) for c in "qkv")
            q = [qa[:, j * hd:(j + 1) * hd] for j in range(nh)]
            k = [ka[:, j * hd:(j + 1) * hd] for j in range(nkv)]
            v = [va[:, j * hd:(j + 1) * hd] for j in range(nkv)]
        if s.qk_norm:
            q = [norm_head(z, p + "self_attn.q_norm") for z in q]
            k = [norm_head(z, p + "self_attn.k_norm") for z in k]
        q = [np.stack([rotate(z[i], i, f, amp) for i in range(t)]) for z in q]
        k = [np.stack([rotate(z[i], i, f, amp) for i in range(t)]) for z in k]
        prob, ctx = np.zeros((nh, t, t)), np.zeros((nh, t, hd))
        for j in range(nh):
            kj, vj = k[j // (nh // nkv)], v[j // (nh // nkv)]
            for i in range(t):
                seen = [m for m in range(t) if m <= i and (win is None or m > i - win)]
                sc = [sum(q[j][i, c] * kj[m, c] for c in range(hd)) / math.sqrt(hd) for m in seen]
                e = np.exp(np.array(sc) - max(sc))
                prob[j, i, seen] = e / e.sum()
                ctx[j, i] = sum(prob[j, i, m] * vj[m] for m in seen)
        a = lin(ctx.transpose(1, 0, 2).reshape(t, nh * hd),
                p + ("attention.dense" if s.neox else "self_attn.o_proj"))
        if s.neox:
            up, down = p + "mlp.dense_h_to_4h", p + "mlp.dense_4h_to_h"
            mlp = lambda z: lin(act(lin(z, up)), down)  # noqa: E731
        elif s.fused:
            gate_up, down = p + "mlp.gate_up_proj", p + "mlp.down_proj"
            mlp = lambda z: lin(  # noqa: E731
                act(lin(z, gate_up)[:, :s.inner]) * lin(z, gate_up)[:, s.inner:], down)
        else:
            gate, up, down = (p + "mlp.%s_proj" % c for c in ("gate", "up", "down"))
            mlp = lambda z: lin(act(lin(z, gate)) * lin(z, up), down)  # noqa: E731
        if s.parallel:
            h = h + a + mlp(norm(h, p + "post_attention_layernorm"))
        else:
            h = h + a
            h = h + mlp(norm(h, p + "post_attention_layernorm"))
        out["q"].append(np.stack(q))
        out["k"].append(np.stack([k[j // (nh // nkv)] for j in range(nh)]))
        out["v"].append(np.stack([v[j // (nh // nkv)] for j in range(nh)]))
        out["attentions"].append(prob)
        out["contexts"].append(ctx)
        out["attn_out"].append(a)
    h = norm(h, "gpt_neox.final_layer_norm" if s.neox else "model.norm")
    out["hidden_states"].append(h)
    out = {key: np.stack(val) for key, val in out.items()}
    head = "embed_out.weight" if s.neox else "lm_head.weight"
    if s.tie:
        head = "gpt_neox.embed_in.weight" if s.neox else "model.embed_tokens.weight"
    out["logits"] = h @ w[head].T
    return out


# --- selfcheck ------------------------------------------------------------------------------

BASE = dict(layers=2, heads=4, kv_heads=2, hidden=32, intermediate=48, vocab=97, positions=64)
CASES = [  # (name, make-model options, shards, from_meta, token sequences)
    ("llama GQA tied f32", dict(BASE, family="llama", tie=True), 1, False,
     [[5], [1, 2, 3, 96, 0, 7, 7, 40, 11, 12, 13]]),
    ("llama MQA head_dim 10 llama3 bf16 3 shards",
     dict(BASE, family="llama", hidden=24, kv_heads=1, head_dim=10,
          rope_scaling="llama3:4,1,8,64", dtype="bf16"), 3, False, [list(range(3, 60, 4))]),
    ("llama linear rope_parameters f16 2 shards",
     dict(BASE, family="llama", rope_scaling="linear:2.5", rope_theta=500.0, dtype="f16",
          rope_parameters=True), 2, False, [[9, 8, 7, 6, 5, 4, 3, 2, 1]]),
    ("qwen2 q/k/v bias tied", dict(BASE, family="qwen2", tie=True, eps=1e-6), 1, False,
     [[3, 1, 4, 1, 5, 9, 2, 6, 5]]),
    ("qwen2 use_sliding_window W=4 (layer 1)",
     dict(BASE, family="qwen2", sliding_window=4), 1, False, [list(range(10, 20))]),
    ("mistral sliding window W=3 bf16",
     dict(BASE, family="mistral", sliding_window=3, dtype="bf16"), 1, False,
     [list(range(40, 50)), [2, 2]]),
    ("gpt_neox parallel rotary_pct 0.25 f16",
     dict(BASE, family="gpt_neox", hidden=64, intermediate=80, dtype="f16", rotary_pct=0.25),
     1, False, [[1, 50, 2, 60, 3, 70, 4]]),
    ("gpt_neox sequential rotary_pct 0.5 tied rope_parameters",
     dict(BASE, family="gpt_neox", tie=True, rotary_pct=0.5, parallel_residual=False,
          rope_parameters=True), 1, False, [[7, 6, 5, 4, 3, 2, 1, 0]]),
    ("llama from Meta's layout GQA bf16", dict(BASE, family="llama", dtype="bf16"), 1, True,
     [[4, 8, 15, 16, 23, 42, 0, 1, 2, 3]]),
    ("qwen3 q/k norm head_dim 12 W=4 biases bf16",
     dict(BASE, family="qwen3", head_dim=12, sliding_window=4, attention_bias=True,
          dtype="bf16"), 2, False, [list(range(20, 31)), [1]]),
    ("phi3 fused longrope partial 0.5 W=5 tied",
     dict(BASE, family="phi3", rope_scaling="longrope", original_max=6, partial_rotary=0.5,
          sliding_window=5, tie=True), 1, False, [[1, 2, 3, 4, 5], list(range(30, 41))]),
    ("gemma2 soft-caps alternate W=3 tied",
     dict(BASE, family="gemma2", head_dim=8, sliding_window=3, softcap="0.4,0.6",
          query_pre_attn_scalar=8, tie=True), 1, False, [list(range(1, 12)), [7]]),
    ("gemma3 local rope pattern 2 q/k norms linear bf16",
     dict(BASE, family="gemma3_text", head_dim=8, sliding_window=4, sliding_pattern=2,
          rope_theta=1e6, rope_scaling="linear:8", dtype="bf16"), 2, False,
     [list(range(40, 52))]),
    ("phi3 longrope attention factor rope_parameters f16",
     dict(BASE, family="phi3", kv_heads=1, rope_scaling="longrope:1.25", original_max=8,
          dtype="f16", rope_parameters=True), 1, False, [list(range(50, 62))]),
]


def _compare(label, got, ref, worst):
    errs = {}
    for name, r in ref.items():
        err = float(np.max(np.abs(got[name] - r)) / max(float(np.max(np.abs(r))), 1e-30))
        errs[name] = err
        worst = max(worst, err)
        if err > TOLERANCE:
            raise AssertionError("%s: %s max err / max |ref| = %.3g > %g"
                                 % (label, name, err, TOLERANCE))
    print("%-52s %s" % (label, " ".join("%s=%.1e" % kv for kv in errs.items())))
    return worst


def _check_files(d, cfg, options, shards, from_meta, ref):
    """The folder: names, dtypes, shards and index, rounding, Meta permutation."""
    s = decoder_layout.Spec(cfg)
    specs = decoder_layout.param_specs(s)
    ckpt = safetensors_io.Checkpoint(d)
    want = safetensors_io.FROM_OPTION[options.get("dtype", "f32")]
    assert sorted(ckpt.names()) == sorted(n for n, _, _ in specs), "tensor names differ"
    assert all(ckpt.dtype(n) == want for n in ckpt.names()), "dtype is not %s" % want
    assert cfg["architectures"] == [decoder_layout.ARCHITECTURES[s.family]]
    if shards > 1:
        with open(os.path.join(d, safetensors_io.INDEX_NAME)) as f:
            index = json.load(f)
        files = safetensors_io.shard_names(shards)
        assert sorted(set(index["weight_map"].values())) == files, "shard files differ"
        assert index["metadata"]["total_size"] == sum(
            safetensors_io.nbytes(want, shape) for _, shape, _ in specs)
        for fname in files:
            header, _, _ = safetensors_io.read_header(os.path.join(d, fname))
            assert sorted(header) == sorted(n for n, f in index["weight_map"].items()
                                            if f == fname), "%s lists other tensors" % fname
    name, shape, kind = specs[1]  # a drawn tensor read back = the draw rounded to nearest even
    draw = np.concatenate(list(decoder_layout._source(shape, kind, STD, SEED, 1)()))
    if not from_meta:
        stored = ckpt.stored(name)
        assert np.array_equal(stored, safetensors_io.encode(draw, want)), "rounding differs"
        if want != "F32":
            tdt = {"BF16": ref.torch.bfloat16, "F16": ref.torch.float16}[want]
            as_torch = ref.torch.from_numpy(draw).to(tdt).float().numpy()
            assert np.array_equal(ckpt.read(name), as_torch), "rounding differs from torch's"
    if from_meta:
        meta = safetensors_io.Checkpoint(d + ".meta.safetensors")
        for n in range(s.n_layer):
            for proj, heads in (("q", s.n_head), ("k", s.n_kv)):
                hf = ckpt.read("model.layers.%d.self_attn.%s_proj.weight" % (n, proj))
                wm = meta.read("layers.%d.attention.w%s.weight" % (n, proj))
                assert np.array_equal(decoder_layout.meta_to_hf(wm, heads), hf), "permutation"
                assert not np.array_equal(wm, hf), "Meta and HF layouts should differ"


def _check_defaults():
    """Spec applies HF's config defaults to keys a config.json leaves out."""
    base = {"num_hidden_layers": 2, "num_attention_heads": 32, "hidden_size": 256,
            "intermediate_size": 8, "vocab_size": 10}
    m = decoder_layout.Spec(dict(base, model_type="mistral"))
    assert (m.windows, m.n_kv, m.eps, m.act) == ([4096, 4096], 8, 1e-6, "silu"), "mistral"
    m = decoder_layout.Spec(dict(base, model_type="mistral", sliding_window=None,
                                 num_key_value_heads=None))
    assert (m.windows, m.n_kv) == ([None, None], 32), "mistral with nulls"
    q = decoder_layout.Spec(dict(base, model_type="qwen2", sliding_window=64))
    assert (q.windows, q.qkv_bias, q.o_bias, q.tie) == ([None, None], True, False, False), "qwen2"
    q = decoder_layout.Spec(dict(base, model_type="qwen2", sliding_window=64,
                                 use_sliding_window=True, max_window_layers=1))
    assert q.windows == [None, 64], "qwen2 sliding layers"
    n = decoder_layout.Spec(dict(base, model_type="gpt_neox"))
    assert (n.rotary_dim, n.rope_theta, n.parallel, n.qkv_bias, n.eps, n.act) == \
        (2, 10000.0, True, True, 1e-5, "gelu"), "gpt_neox"
    q3 = decoder_layout.Spec(dict(base, model_type="qwen3"))
    assert (q3.hd, q3.n_kv, q3.qkv_bias, q3.o_bias, q3.qk_norm, q3.windows) == \
        (128, 32, False, False, True, [None, None]), "qwen3"
    p3 = decoder_layout.Spec(dict(base, model_type="phi3", sliding_window=7,
                                  rope_scaling={"type": "su", "short_factor": [1] * 4,
                                                "long_factor": [2] * 4}))
    assert (p3.hd, p3.n_kv, p3.eps, p3.fused, p3.windows, p3.rope_type, p3.original_max,
            p3.max_pos) == (8, 32, 1e-5, True, [7, 7], "longrope", 4096, 4096), "phi3"
    ll = decoder_layout.Spec(dict(base, model_type="llama", head_dim=16))
    assert (ll.hd, ll.rotary_dim, ll.n_kv, ll.qkv_bias, ll.rope_type) == \
        (16, 16, 32, False, "default"), "llama"


def selfcheck(ref):
    """REF is the decoder_reference module. Returns 0, or 1 with a message."""
    worst = 0.0
    try:
        _check_defaults()
    except AssertionError as e:
        print("selfcheck FAILED: config defaults: %s" % e)
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        for k, (label, options, shards, from_meta, seqs) in enumerate(CASES):
            d = os.path.join(tmp, "m%d" % k)
            o = dict(options, dtype=options.get("dtype", "f32"), tie=options.get("tie", False))
            cfg = decoder_layout.make_config(o)
            decoder_layout.write_model(d, cfg, o["dtype"], shards, std=STD, seed=SEED,
                                       from_meta=from_meta, meta_out=d + ".meta.safetensors")
            with open(os.path.join(d, "config.json")) as f:
                cfg = json.load(f)
            try:
                _check_files(d, cfg, o, shards, from_meta, ref)
                model = ref.load_model(d)
                ckpt = safetensors_io.Checkpoint(d)
                w = {n: ckpt.read(n) for n in ckpt.names()}
                meta_model = ref.load_model(d, d + ".meta.safetensors") if from_meta else None
                for ids in seqs:
                    got = ref.run_capture(model, ids)
                    naive = naive_forward(cfg, w, ids)
                    naive["ids"] = np.asarray(ids)
                    tag = "%s T=%d" % (label, len(ids))
                    worst = _compare(tag, got, naive, worst)
                    t = len(ids)
                    allowed = [[j <= i and (win is None or j > i - win) for j in range(t)]
                               for win in model.s.windows for i in range(t)]
                    masked = ~np.array(allowed).reshape(model.s.n_layer, 1, t, t)
                    if np.any(got["attentions"] * masked != 0.0):
                        raise AssertionError("%s: a masked attention weight is not exactly 0" % tag)
                    if meta_model is not None:
                        worst = _compare(tag + " Meta vs naive", ref.run_capture(meta_model, ids),
                                         naive, worst)
            except AssertionError as e:
                print("selfcheck FAILED: %s" % e)
                return 1
    print("selfcheck ok: worst relative error %.3g (tolerance %g)" % (worst, TOLERANCE))
    return 0
