#!/usr/bin/python3
"""Direct logit attribution, attention norms and the query–key view, independently of
attnscope: checks `attnscope attribute|qk --json` and attention-norm dumps against the project's
PyTorch references with hooks.

  attribution_reference.py attribute --family gpt2|decoder --model DIR --json OUT.json --ids 1,2,3
  attribution_reference.py qk --family gpt2|decoder --model DIR --json OUT.json --ids 1,2,3
  attribution_reference.py norms --family gpt2|decoder --model DIR --json OUT.json --ids 1,2,3
  attribution_reference.py bench --family gpt2|decoder --model DIR --tokens T --repeat N

The reference runs the model's forward pass of gpt2_reference.py / decoder_reference.py (torch
float32, HF's eager order) with hooks on its own functions: the MLP's output (GPT-2's mlp.c_proj,
the decoders' _mlp, Gemma's post_feedforward_layernorm), the residual entering the final norm,
the attention output before the residual and each head's context. From those, per part c of the
residual stream at the position, with the final norm frozen at the run's σ (LayerNorm) or rms
(RMSNorm) and u the output matrix's row of the target (minus the other token's):
  LayerNorm  part(c) = u · ((c − mean c)/σ ⊙ w)        norm_bias = u · b
  RMSNorm    part(c) = u · (c/rms ⊙ w)   (Gemma: 1 + w; a post-attention norm frozen likewise)
  head h     c = ctx_h · O[:, h]ᵀ (GPT-2: ctx_h · W[h rows]), the attention bias c = o_b
Each part within 1e-4 relative of the reference plus 1e-5 of the largest part (absolute); the
logit equals u · hidden_states[L][position].
norms: ‖α_ij · v_j O_hᵀ‖ within 1e-5 absolute (+1e-4 relative). qk: q, k_j, q ⊙ k_j and the
scores within 1e-4 relative (+1e-5 of the row's largest absolute value); for the decoders also
q before RoPE (what apply_rope received, recorded by wrapping it). Exits 1 on the first
failure, naming it; prints the largest errors."""
import argparse
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


class Hooks:
    """Wraps a reference model's functions and records what the attribution needs."""

    def __init__(self, family, m):
        self.family, self.m = family, m
        self.mlp, self.final_in = [], None
        if family == "gpt2":
            conv, ln = m._conv1d, m._ln

            def conv_hook(x, name):
                y = conv(x, name)
                if name.endswith("mlp.c_proj"):
                    self.mlp.append(y)
                return y

            def ln_hook(x, name):
                if name == "ln_f":
                    self.final_in = x
                return ln(x, name)

            m._conv1d, m._ln = conv_hook, ln_hook
            return
        if m.s.gemma:
            rms1p = m._rms1p

            def rms1p_hook(x, name):
                y = rms1p(x, name)
                if name.endswith("post_feedforward_layernorm"):
                    self.mlp.append(y)
                if name == "model.norm":
                    self.final_in = x
                return y

            m._rms1p = rms1p_hook
            return
        mlp, norm = m._mlp, m._norm

        def mlp_hook(x, p):
            y = mlp(x, p)
            self.mlp.append(y)
            return y

        def norm_hook(x, name):
            if name in ("model.norm", "gpt_neox.final_layer_norm"):
                self.final_in = x
            return norm(x, name)

        m._mlp, m._norm = mlp_hook, norm_hook


def load(family, model_dir):
    if family == "gpt2":
        import gpt2_reference as ref
    else:
        import decoder_reference as ref
    return ref.load_model(model_dir)


class Pieces:
    """The model's linear pieces as float32 torch tensors."""

    def __init__(self, family, m):
        import torch
        self.family, self.m = family, m
        w = m.w
        if family == "gpt2":
            self.n_layer, self.n_head, self.hd, self.d = m.n_layer, m.n_head, m.hd, m.d
            self.unembed = w["wte.weight"]
            self.norm_w, self.norm_b, self.eps = w["ln_f.weight"], w["ln_f.bias"], m.eps
            self.layer_norm = True
            self.gemma = False
            return
        s = m.s
        self.n_layer, self.n_head, self.hd, self.d = s.n_layer, s.n_head, s.hd, s.d
        self.unembed = w[m.out_name]
        self.gemma, self.layer_norm, self.eps = s.gemma, s.neox, s.eps
        final = "gpt_neox.final_layer_norm" if s.neox else "model.norm"
        self.norm_w = w[final + ".weight"] + (1.0 if s.gemma else 0.0)
        self.norm_b = w.get(final + ".bias") if s.neox else None
        self.torch = torch

    def final_norm(self, x):
        """x [T][D] through the final norm, as the pass applies it before the output head."""
        import torch
        if self.layer_norm:
            return torch.nn.functional.layer_norm(x, (self.d,), self.norm_w, self.norm_b,
                                                  self.eps)
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.norm_w

    def o(self, layer):
        """(O [D][H·hd] as x·Oᵀ, bias [D] or None)."""
        w = self.m.w
        if self.family == "gpt2":
            p = "h.%d.attn.c_proj." % layer
            return w[p + "weight"].t(), w[p + "bias"]
        if self.m.s.neox:
            p = "gpt_neox.layers.%d.attention.dense." % layer
        else:
            p = "model.layers.%d.self_attn.o_proj." % layer
        return w[p + "weight"], w.get(p + "bias")

    def head_writes(self, layer, x):
        """x [H][..][hd] → [H][..][D]: each head through its slice of the output projection."""
        o, _ = self.o(layer)
        return [x[h] @ o[:, h * self.hd:(h + 1) * self.hd].t() for h in range(self.n_head)]


def frozen(pieces, r, u):
    """part(c) for the final norm frozen at residual r [D], direction u [D]."""
    import torch
    if pieces.layer_norm:
        sigma = torch.sqrt(r.var(unbiased=False) + pieces.eps)
        return lambda c: float(((c - c.mean()) / sigma * pieces.norm_w) @ u)
    rms = torch.sqrt(r.pow(2).mean() + pieces.eps)
    return lambda c: float((c / rms * pieces.norm_w) @ u)


def reference_attribution(family, model_dir, ids, position, target, vs):
    import torch
    m = load(family, model_dir)
    hooks = Hooks(family, m)
    pieces = Pieces(family, m)
    with torch.no_grad():
        out = m.forward(ids, capture=True)
        p = position
        u = pieces.unembed[target] - (pieces.unembed[vs] if vs is not None else 0.0)
        r = hooks.final_in[p]
        part = frozen(pieces, r, u)
        res = {"logit": float(out["hidden_states"][-1][p] @ u),
               "embeddings": part(out["hidden_states"][0][p]),
               "norm_bias": float(pieces.norm_b @ u) if pieces.norm_b is not None else 0.0,
               "heads": [], "mlps": [], "attn_biases": []}
        for l in range(pieces.n_layer):
            a = out["attn_out"][l][p]
            post = None
            if pieces.gemma:
                name = "model.layers.%d.post_attention_layernorm.weight" % l
                rms = torch.sqrt(a.pow(2).mean() + pieces.eps)
                post = (1.0 + m.w[name]) / rms
            writes = pieces.head_writes(l, out["contexts"][l][:, p])
            res["heads"].append([part(wv * post if post is not None else wv) for wv in writes])
            _, ob = pieces.o(l)
            res["attn_biases"].append(part(ob) if ob is not None else 0.0)
            res["mlps"].append(part(hooks.mlp[l][p]))
    return res


def close(name, got, want, tol_rel, tol_abs):
    err = abs(got - want)
    if err > tol_rel * abs(want) + tol_abs:
        sys.exit("%s: %.9g, reference %.9g (error %.3g)" % (name, got, want, err))
    return err


def cmd_attribute(a):
    with open(a.json, encoding="utf-8") as f:
        got = json.load(f)
    ids = [int(x) for x in a.ids.split(",")]
    ref = reference_attribution(a.family, a.model, ids, got["position"], got["target_id"],
                                got.get("vs_id"))
    scale = max([abs(x) for row in ref["heads"] for x in row] + [abs(x) for x in ref["mlps"]]
                + [abs(ref["embeddings"])])
    worst = 0.0
    for key in ("logit", "embeddings", "norm_bias"):
        worst = max(worst, close(key, got[key], ref[key], 1e-4, 1e-5 * scale))
    for key in ("mlps", "attn_biases"):
        for l, want in enumerate(ref[key]):
            worst = max(worst, close("%s[%d]" % (key, l), got[key][l], want, 1e-4, 1e-5 * scale))
    for l, row in enumerate(ref["heads"]):
        for h, want in enumerate(row):
            worst = max(worst, close("head %d.%d" % (l, h), got["heads"][l][h], want, 1e-4,
                                     1e-5 * scale))
    total = (sum(sum(r) for r in ref["heads"]) + sum(ref["mlps"]) + sum(ref["attn_biases"])
             + ref["embeddings"] + ref["norm_bias"])
    close("the reference's sum of parts against its logit", total, ref["logit"], 1e-4,
          1e-6 * scale)
    print("attribute: %d heads, %d layers, logit %.6g, largest absolute error %.3g"
          % (sum(len(r) for r in ref["heads"]), len(ref["mlps"]), ref["logit"], worst))


def run_capture(family, model_dir, ids):
    import torch
    m = load(family, model_dir)
    with torch.no_grad():
        return m, Pieces(family, m), m.forward(ids, capture=True)


def cmd_norms(a):
    """value_norms [L][H][T] = ‖v_j · O_hᵀ‖, head_shares and first_ratios from them."""
    import torch
    with open(a.json, encoding="utf-8") as f:
        got = json.load(f)["norms"]
    ids = [int(x) for x in a.ids.split(",")]
    m, pieces, out = run_capture(a.family, a.model, ids)
    worst = 0.0
    with torch.no_grad():
        for l in range(pieces.n_layer):
            values = pieces.head_writes(l, out["v"][l])   # [H] of [T][D]
            writes = pieces.head_writes(l, out["contexts"][l])
            totals = [float(w.norm(dim=-1).sum()) for w in writes]
            for h in range(pieces.n_head):
                n = values[h].norm(dim=-1)  # [T]
                for j in range(len(ids)):
                    worst = max(worst, close("value norm %d.%d key %d" % (l, h, j),
                                             got["value_norms"][l][h][j], float(n[j]), 1e-4,
                                             1e-5))
                att = out["attentions"][l][h]  # [T][T]
                weighted = att * n[None, :]
                ratio = float((weighted[:, 0] / weighted.sum(-1)).sum() / att[:, 0].sum())
                close("first ratio %d.%d" % (l, h), got["first_ratios"][l][h], ratio, 1e-4, 1e-6)
                close("head share %d.%d" % (l, h), got["head_shares"][l][h],
                      totals[h] / sum(totals), 1e-4, 1e-6)
    print("norms: %d layers × %d heads × %d keys, largest absolute error %.3g"
          % (pieces.n_layer, pieces.n_head, len(ids), worst))


def cmd_qk(a):
    """q, keys, q ⊙ k_j, scores (scale, soft-cap, masks) and the attention row."""
    import torch
    with open(a.json, encoding="utf-8") as f:
        got = json.load(f)
    ids = [int(x) for x in a.ids.split(",")]
    # the queries before RoPE: apply_rope's first argument, q then k in every layer
    before = []
    if a.family == "decoder":
        import decoder_reference as dr
        rope = dr.apply_rope

        def rope_hook(x, cos, sin):
            before.append(x)
            return rope(x, cos, sin)

        dr.apply_rope = rope_hook
    m, pieces, out = run_capture(a.family, a.model, ids)
    l, h, i = got["layer"], got["head"], got["token"]
    q, k = out["q"][l][h][i], out["k"][l][h]  # [hd], [T][hd]
    prod = q[None, :] * k
    if a.family == "gpt2":
        scale, cap, window = pieces.hd ** -0.5, 0.0, None
    else:
        s = m.s
        scale = s.scaling if s.gemma else s.hd ** -0.5
        cap = (s.attn_cap or 0.0) if s.gemma else 0.0
        window = s.windows[l]
    scores = prod.sum(-1) * scale
    if cap:
        scores = torch.tanh(scores / cap) * cap
    worst = 0.0

    def rows(name, want, gotv):
        nonlocal worst
        big = float(want.abs().max())
        for j, (x, y) in enumerate(zip(gotv, want.reshape(-1).tolist())):
            worst = max(worst, close("%s[%d]" % (name, j), x, y, 1e-4, 1e-5 * big))

    rows("q", q, got["q"][0])
    if before:
        if "q_before_rope" not in got:
            sys.exit("q_before_rope: missing for a rotating model")
        rows("q before RoPE", before[2 * l][h][i], got["q_before_rope"][0])
    elif a.family == "gpt2" and "q_before_rope" in got:
        sys.exit("q_before_rope: given for a model that does not rotate")
    for j in range(len(ids)):
        rows("keys %d" % j, k[j], got["keys"][j])
        rows("products %d" % j, prod[j], got["products"][j])
        seen = j <= i and (not window or j > i - window)
        if seen != (got["scores"][0][j] is not None):
            sys.exit("score %d: masked in one and not the other" % j)
        if seen:
            close("score %d" % j, got["scores"][0][j], float(scores[j]), 1e-4,
                  1e-5 * float(scores.abs().max()))
        close("prob %d" % j, got["probs"][0][j], float(out["attentions"][l][h][i][j]), 0, 1e-5)
    print("qk: layer %d head %d token %d, %d keys × %d dimensions%s, largest error %.3g"
          % (l, h, i, len(ids), pieces.hd, ", q before RoPE" if before else "", worst))


def bench_once(family, m, hooks, pieces, ids, layer, head):
    """One request as the C benchmark times it, vectorised: the forward pass with hooks, the
    attribution of id 42 − id 17 at the last position, every head's value norms, shares and
    first-token ratios, one head's query–key view, and the logit lens of every hidden state at
    every position (top 5). Returns the step times in ms."""
    import time
    import torch
    t0 = time.perf_counter()
    hooks.mlp, hooks.final_in = [], None
    out = m.forward(ids, capture=True)
    t1 = time.perf_counter()
    p = len(ids) - 1
    u = pieces.unembed[42] - pieces.unembed[17]
    r = hooks.final_in[p]
    w = pieces.norm_w * u
    if pieces.layer_norm:
        e = (w - w.mean()) / torch.sqrt(r.var(unbiased=False) + pieces.eps)
    else:
        e = w / torch.sqrt(r.pow(2).mean() + pieces.eps)
    parts = [out["hidden_states"][0][p] @ e]
    for l in range(pieces.n_layer):
        o, ob = pieces.o(l)
        oh = o.view(pieces.d, pieces.n_head, pieces.hd).permute(1, 2, 0)  # [H][hd][D]
        ctx = out["contexts"][l][:, p]  # [H][hd]
        parts.append(torch.einsum("hk,hkd,d->h", ctx, oh, e))
        parts.append(hooks.mlp[l][p] @ e)
        if ob is not None:
            parts.append(ob @ e)
    t2 = time.perf_counter()
    for l in range(pieces.n_layer):
        o, _ = pieces.o(l)
        oh = o.view(pieces.d, pieces.n_head, pieces.hd).permute(1, 2, 0)
        n = torch.matmul(out["v"][l], oh).norm(dim=-1)  # [H][T]
        writes = torch.matmul(out["contexts"][l], oh).norm(dim=-1).sum(-1)  # [H]
        shares = writes / writes.sum()
        att = out["attentions"][l]  # [H][T][T]
        weighted = att * n[:, None, :]
        ratios = (weighted[:, :, 0] / weighted.sum(-1)).sum(-1) / att[:, :, 0].sum(-1)
    t3 = time.perf_counter()
    q, k = out["q"][layer][head][p], out["k"][layer][head]
    prod = q[None, :] * k
    scores = prod.sum(-1) * pieces.hd ** -0.5
    dims = (out["attentions"][layer][head][p][:, None] * prod).sum(0)
    order = torch.argsort(dims.abs(), descending=True)
    t4 = time.perf_counter()
    # the logit lens: every hidden state at every position through the final norm (hidden[L]
    # is already through it) and the output head, softmax, top 5
    hs = out["hidden_states"]
    lens = []
    for i, h in enumerate(hs):
        x = h if i == len(hs) - 1 else pieces.final_norm(h)
        lens.append(torch.topk(torch.softmax(x @ pieces.unembed.T, -1), 5, -1))
    t5 = time.perf_counter()
    del parts, shares, ratios, scores, order, lens
    return [(b - a) * 1000.0
            for a, b in ((t0, t1), (t1, t2), (t2, t3), (t3, t4), (t4, t5), (t0, t5))]


def cmd_bench(a):
    import torch
    m = load(a.family, a.model)
    hooks = Hooks(a.family, m)
    pieces = Pieces(a.family, m)
    ids = [(t * 7919 + 13) % 50000 for t in range(a.tokens)]
    times = []
    with torch.no_grad():
        for r in range(a.repeat + 1):
            step = bench_once(a.family, m, hooks, pieces, ids, 3, 5)
            if r > 0:
                times.append(step)
    names = ("forward", "attribution", "norms", "qk", "lens", "total")
    res = {}
    for i, name in enumerate(names):
        v = sorted(t[i] for t in times)
        n = len(v)
        med = v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2
        res[name] = {"median_ms": round(med, 3), "min_ms": round(v[0], 3)}
    print(json.dumps(res))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name in ("attribute", "qk", "norms"):
        c = sub.add_parser(name)
        c.add_argument("--family", required=True, choices=("gpt2", "decoder"))
        c.add_argument("--model", required=True)
        c.add_argument("--json", required=True)
        c.add_argument("--ids", required=True)
    b = sub.add_parser("bench", help="time the same work with PyTorch hooks")
    b.add_argument("--family", required=True, choices=("gpt2", "decoder"))
    b.add_argument("--model", required=True)
    b.add_argument("--tokens", type=int, default=128)
    b.add_argument("--repeat", type=int, default=10)
    a = ap.parse_args(argv)
    {"attribute": cmd_attribute, "norms": cmd_norms, "qk": cmd_qk, "bench": cmd_bench}[a.cmd](a)


if __name__ == "__main__":
    main()
