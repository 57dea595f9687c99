#!/usr/bin/python3
"""seq2seq_attribution_reference.py — direct logit attribution of a translation model's decoder,
independently of attnscope: checks `attnscope attribute --json` on a Marian, BART or mBART model, and with --norms-json
the attention norms of the decoder's self-attention that `stats --norms --json` gives (what each
key writes through a head, ‖v_j · O_hᵀ‖, recorded while the decoder runs).

  seq2seq_attribution_reference.py --family marian|bart|t5 --model DIR --json OUT.json

OUT.json is the command's output; its "source_ids" and "decoder_ids" name the pass. The encoder
runs as marian_reference.py / bart_reference.py run it (HF's modeling_marian.py,
modeling_bart.py, modeling_mbart.py eager code). The decoder runs here, over every position, in
the same eager order — and at the attributed position it also carries its residual stream as a
list of parts pushed FORWARDS, which attnscope does not do (it walks one direction backwards):
  every LayerNorm on the residual path (Marian/BART: after each of the three sums of a layer and
  BART's layernorm_embedding; mBART: layernorm_embedding and the final layer_norm) is frozen at
  the σ and mean of its input in the run: each part c becomes (c − mean c)/σ ⊙ w, and the norm's
  bias b joins as a new part (named after the layer's norms, or the embedding/final norm);
  a head's part is ctx_h · O[:, h]ᵀ, the attention's bias o_b; the MLP's part is fc2's output.
The logit of a part is u · part, u the output matrix's row of the target (minus the other
token's); final_logits_bias[target] (− [vs]) is its own part. T5 (run_t5): one final RMSNorm
frozen at the rms of its input, no biases, u scaled by D^-½ when the embeddings are tied. Checks: the parts add up to the
decoder's last hidden state at the position (1e-4 of its largest value), the logit equals the
reference's own logit, and every part of the JSON is within 1e-4 relative of the reference's plus
1e-5 of the largest part. Exits 1 on the first failure, naming it."""
import argparse
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

torch = None
VALUE_NORMS = []  # per decoder layer, [H][T]: ‖v_j · O_hᵀ‖ of its self-attention (the norms)


class Decoder:
    """The decoder of DIR's model by HF state-dict names, W {name: tensor}."""

    def __init__(self, family, cfg, w):
        self.cfg, self.w = cfg, w
        self.D = cfg["d_model"]
        self.H = cfg["decoder_attention_heads"]
        self.L = cfg["decoder_layers"]
        self.pre = cfg.get("model_type") == "mbart"
        default_scale = family == "marian"
        self.scale = math.sqrt(self.D) if cfg.get("scale_embedding", default_scale) else 1.0
        self.offset = 2 if family == "bart" else 0
        F = torch.nn.functional
        self.act = {"gelu": F.gelu, "relu": F.relu, "silu": F.silu, "swish": F.silu,
                    "gelu_new": lambda x: F.gelu(x, approximate="tanh")}[
            cfg.get("activation_function", "gelu")]

    def lin(self, x, p):
        return x @ self.w[p + ".weight"].T + self.w[p + ".bias"]

    def has(self, p):
        return p + ".weight" in self.w

    def attention(self, x, kv, p, causal):
        """(output [T,D], per-head writes [T,H,D]) of the attention P on x [T,D], kv [S,D]."""
        T, D, H = x.shape[0], self.D, self.H
        hd = D // H
        q = (self.lin(x, p + ".q_proj") * hd ** -0.5).view(T, H, hd).transpose(0, 1)
        k = self.lin(kv, p + ".k_proj").view(-1, H, hd).transpose(0, 1)
        v = self.lin(kv, p + ".v_proj").view(-1, H, hd).transpose(0, 1)
        scores = q @ k.transpose(1, 2)
        if causal:
            mask = torch.triu(torch.ones(T, kv.shape[0], dtype=torch.bool), diagonal=1)
            scores = scores.masked_fill(mask, torch.finfo(torch.float32).min)
        ctx = torch.softmax(scores, dim=-1) @ v  # [H,T,hd]
        O = self.w[p + ".out_proj.weight"]  # [D][D] out, in
        if causal:  # the decoder's self-attention: what each key writes, ‖v_j O_hᵀ‖ [H][T]
            VALUE_NORMS.append([[(v[h, j] @ O[:, h * hd:(h + 1) * hd].T).norm().item()
                                 for j in range(v.shape[1])] for h in range(H)])
        writes = torch.stack([ctx[h] @ O[:, h * hd:(h + 1) * hd].T for h in range(H)], 1)
        return writes.sum(1) + self.w[p + ".out_proj.bias"], writes


class Parts:
    """The residual stream at one position as named parts [D] (float64)."""

    def __init__(self):
        self.parts = {}

    def add(self, name, vec):
        self.parts[name] = self.parts.get(name, 0) + vec.double()

    def freeze(self, z, w, b, bias_name):
        """Through a LayerNorm frozen at z [D] (its input in the run)."""
        sigma = torch.sqrt(z.double().var(unbiased=False) + 1e-5)
        for name, c in self.parts.items():
            self.parts[name] = (c - c.mean()) / sigma * w.double()
        self.add(bias_name, b)


def run(family, model_dir, src, tgt, p):
    """(parts at position P, the reference's logits [T,V], the decoder's last hidden [T,D])."""
    if family == "marian":
        import marian_reference
        model = marian_reference.load_model(model_dir)
        w = {k: v.detach().float() for k, v in model.state_dict().items()}
        with torch.no_grad():
            enc = model.encode(torch.tensor([src]))[0][0]
            want = model.decode(torch.tensor([tgt]), enc[None])["logits"][0]
        cfg = model.cfg
    else:
        import bart_reference
        model = bart_reference.load_model(model_dir)
        w = {k: v.float() for k, v in model.w.items()}
        with torch.no_grad():
            enc = model.encode(torch.tensor([src]))[0][0]
            want = model.decode(torch.tensor([tgt]), enc[None])["logits"][0]
        cfg = model.cfg
    dec = Decoder(family, cfg, w)
    T = len(tgt)
    P = w["model.decoder.embed_positions.weight"][dec.offset:dec.offset + T]
    x = w["model.shared.weight"][torch.tensor(tgt)] * dec.scale + P
    parts = Parts()
    parts.add("embeddings", x[p])
    if dec.has("model.decoder.layernorm_embedding"):
        n = "model.decoder.layernorm_embedding"
        parts.freeze(x[p], w[n + ".weight"], w[n + ".bias"], "norm_bias")
        x = torch.nn.functional.layer_norm(x, (dec.D,), w[n + ".weight"], w[n + ".bias"], 1e-5)

    def norm(x, n):
        return torch.nn.functional.layer_norm(x, (dec.D,), w[n + ".weight"], w[n + ".bias"], 1e-5)

    for l in range(dec.L):
        pre = "model.decoder.layers.%d." % l

        def block(x, f, n, kind, pre=pre, l=l):
            out, writes = f(norm(x, pre + n) if dec.pre else x)
            for h in range(dec.H):
                if writes is not None:
                    parts.add("%s[%d][%d]" % (kind[0], l, h), writes[p, h])
            if writes is not None:
                parts.add("%s[%d]" % (kind[1], l), out[p] - writes[p].sum(0))
            else:
                parts.add("%s[%d]" % (kind[0], l), out[p])
            z = x + out
            if dec.pre:
                return z
            parts.freeze(z[p], w[pre + n + ".weight"], w[pre + n + ".bias"], "norm_biases[%d]" % l)
            return norm(z, pre + n)

        x = block(x, lambda h: dec.attention(h, h, pre + "self_attn", True),
                  "self_attn_layer_norm", ("heads", "attn_biases"))
        x = block(x, lambda h: dec.attention(h, enc, pre + "encoder_attn", False),
                  "encoder_attn_layer_norm", ("cross_heads", "cross_biases"))
        x = block(x, lambda h: (dec.lin(dec.act(dec.lin(h, pre + "fc1")), pre + "fc2"), None),
                  "final_layer_norm", ("mlps",))
    if dec.has("model.decoder.layer_norm"):
        n = "model.decoder.layer_norm"
        parts.freeze(x[p], w[n + ".weight"], w[n + ".bias"], "norm_bias")
        x = norm(x, n)
    return parts.parts, want, x, w


def run_t5(model_dir, src, tgt, p):
    """run() for T5 (t5_reference.py's model): pre-norm RMS norms without biases, the final
    RMSNorm frozen at the rms of its input; no position vectors (the relative bias moves only
    the attention weights); the output reads hidden[L]·D^-½ when the embeddings are tied."""
    import t5_reference
    m = t5_reference.load_model(model_dir)
    w = {k: v.float() for k, v in m.w.items()}
    m.w = w
    with torch.no_grad():
        enc = m.encode(torch.tensor([src]))[0]
        want = m.decode(torch.tensor([tgt]), enc)["logits"][0]
    H, K, T = m.H, m.K, len(tgt)
    x = torch.nn.functional.embedding(torch.tensor([tgt]), w["shared.weight"])
    parts = Parts()
    parts.add("embeddings", x[0, p])
    causal = torch.tril(torch.ones(T, T))
    zero = torch.zeros(1, H, T, enc.shape[1])

    def split(out, wts, kv, name, l, pre):
        v = m.lin(kv, pre + ".v.weight").view(1, -1, H, K).transpose(1, 2)
        O = w[pre + ".o.weight"]
        if name == "heads":
            VALUE_NORMS.append([[(v[0, h, j] @ O[:, h * K:(h + 1) * K].T).norm().item()
                                 for j in range(v.shape[2])] for h in range(H)])
        total = 0
        for h in range(H):
            write = (wts[0, h, p] @ v[0, h]) @ O[:, h * K:(h + 1) * K].T
            parts.add("%s[%d][%d]" % (name, l, h), write)
            total = total + write
        err = (total - out[0, p]).abs().max().item()
        assert err <= 1e-4 * out[0, p].abs().max().item() + 1e-6, "head writes do not add up"

    for l in range(m.cfg["num_decoder_layers"]):
        pre = "decoder.block.%d.layer." % l
        if l == 0 or m.every_layer:
            bias = m.compute_bias(w[pre + "0.SelfAttention.relative_attention_bias.weight"], T,
                                  T, False)
            masked = bias + (1.0 - causal)[None, None] * torch.finfo(torch.float32).min
        n = m.rms(x, pre + "0.layer_norm.weight")
        a, wts = m.attention(n, n, pre + "0.SelfAttention", masked)
        split(a, wts, n, "heads", l, pre + "0.SelfAttention")
        x = x + a
        c, cw = m.attention(m.rms(x, pre + "1.layer_norm.weight"), enc, pre + "1.EncDecAttention",
                            zero)
        split(c, cw, enc, "cross_heads", l, pre + "1.EncDecAttention")
        x = x + c
        f = m.ff(m.rms(x, pre + "2.layer_norm.weight"), pre + "2.")
        parts.add("mlps[%d]" % l, f[0, p])
        x = x + f
    z = x[0, p].double()
    r = torch.sqrt(z.pow(2).mean() + m.eps)
    fw = w["decoder.final_layer_norm.weight"].double()
    for name, c in parts.parts.items():
        parts.parts[name] = c / r * fw
    last = m.rms(x, "decoder.final_layer_norm.weight")[0]
    D = x.shape[-1]
    head = w["shared.weight"] * D ** -0.5 if m.tie else w["lm_head.weight"]
    return parts.parts, want, last, {"model.shared.weight": head,
                                     "final_logits_bias": torch.zeros(head.shape[0])}


def flat(got):
    """The JSON's parts by the reference's names."""
    out = {"embeddings": got["embeddings"], "norm_bias": got["norm_bias"],
           "final_logits_bias": got["final_logits_bias"]}
    for name in ("heads", "cross_heads"):
        for l, row in enumerate(got[name]):
            for h, v in enumerate(row):
                out["%s[%d][%d]" % (name, l, h)] = v
    for name in ("mlps", "attn_biases", "cross_biases", "norm_biases"):
        for l, v in enumerate(got[name]):
            out["%s[%d]" % (name, l)] = v
    return out


def main():
    global torch
    ap = argparse.ArgumentParser()
    ap.add_argument("--family", choices=("marian", "bart", "t5"), required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--json", required=True)
    ap.add_argument("--norms-json", help="`stats --norms --json` of the same source and target: "
                    "its value_norms [L][H][T] checked too (1e-5 absolute + 1e-4 relative)")
    a = ap.parse_args()
    import torch as t
    t.set_num_threads(2)
    torch = t
    with open(a.json, encoding="utf-8") as f:
        got = json.load(f)
    src, tgt, p = got["source_ids"], got["decoder_ids"], got["position"]
    with torch.no_grad():
        if a.family == "t5":
            parts, want_logits, last, w = run_t5(a.model, src, tgt, p)
        else:
            parts, want_logits, last, w = run(a.family, a.model, src, tgt, p)
    total = sum(parts.values())
    err = (total - last[p].double()).abs().max().item()
    top = last[p].abs().max().item()
    print("parts sum vs hidden[L]: %.3g (largest %.3g)" % (err, top))
    if err > 1e-4 * top:
        print("FAIL: the parts do not add up to the decoder's last hidden state")
        return 1
    E, flb = w["model.shared.weight"].double(), w["final_logits_bias"].reshape(-1).double()
    u, bias = E[got["target_id"]], flb[got["target_id"]]
    want_logit = want_logits[p, got["target_id"]].item()
    if "vs_id" in got:
        u, bias = u - E[got["vs_id"]], bias - flb[got["vs_id"]]
        want_logit -= want_logits[p, got["vs_id"]].item()
    want = {name: (u @ c).item() for name, c in parts.items()}
    want["final_logits_bias"] = bias.item()
    for name in flat(got):
        want.setdefault(name, 0.0)
    largest = max(abs(v) for v in want.values())
    worst = 0.0
    for name, v in flat(got).items():
        e = abs(v - want[name])
        worst = max(worst, e)
        if e > 1e-4 * abs(want[name]) + 1e-5 * largest:
            print("FAIL: %s is %.7g, the reference %.7g" % (name, v, want[name]))
            return 1
    print("%d parts, largest error %.3g (largest part %.3g)" % (len(want), worst, largest))
    for name, v in (("logit", want_logit), ("sum", sum(want.values()))):
        if abs(got[name] - v) > 1e-4 * abs(v) + 1e-5 * largest:
            print("FAIL: %s is %.7g, the reference %.7g" % (name, got[name], v))
            return 1
    print("logit %.7g, reference %.7g" % (got["logit"], want_logit))
    if a.norms_json is not None:
        with open(a.norms_json, encoding="utf-8") as f:
            norms = json.load(f)["norms"]["value_norms"]
        if len(norms) != len(VALUE_NORMS):
            print("FAIL: value_norms has %d layers, the reference %d" % (len(norms),
                                                                        len(VALUE_NORMS)))
            return 1
        n, worst = 0, 0.0
        for l, (got_l, want_l) in enumerate(zip(norms, VALUE_NORMS)):
            for h, (got_h, want_h) in enumerate(zip(got_l, want_l)):
                if len(got_h) != len(want_h):
                    print("FAIL: value_norms[%d][%d] has %d keys, the reference %d"
                          % (l, h, len(got_h), len(want_h)))
                    return 1
                for j, (x, y) in enumerate(zip(got_h, want_h)):
                    worst = max(worst, abs(x - y))
                    n += 1
                    if abs(x - y) > 1e-5 + 1e-4 * abs(y):
                        print("FAIL: value_norms[%d][%d][%d] is %.7g, the reference %.7g"
                              % (l, h, j, x, y))
                        return 1
        print("norms: %d values, largest absolute error %.3g" % (n, worst))
    return 0


if __name__ == "__main__":
    sys.exit(main())
