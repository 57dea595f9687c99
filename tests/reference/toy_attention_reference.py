#!/usr/bin/python3
"""toy_attention_reference.py — an independent PyTorch run of the toy-attention architecture.

    /usr/bin/python3 tests/reference/toy_attention_reference.py OUT_DIR [--seed S]

Writes OUT_DIR/model/ (config.json, vocab.json, tf_model.h5 in the Keras layout of
data/make-toy-models.py) with random weights and every switch of the architecture on at once
(W_Q/W_K/W_V with H·hd != D, W_O, 1/sqrt(hd) scaling, sinusoidal positions, causal mask), and
OUT_DIR/expected.h5 with the ids and what the C core must reproduce: attentions [1,H,T,T],
q/k/v/contexts [1,H,T,hd], attn_out [1,T,D], hidden_states [2,T,D].

The maths is written here from the formulas (Vaswani et al. 2017), not from the C code:
x = E[ids] + PE, PE(pos,2i) = sin(pos/10000^(2i/D)), PE(pos,2i+1) = cos(...), pos from 0;
per head softmax(q k^T / sqrt(hd) + mask) v; concat · W_O; no residual, no norm.
"""

import argparse
import importlib.util
import json
import math
import os
import sys

import h5py
import numpy as np
import torch

D, H, HD, T = 8, 2, 3, 7
WORDS = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota"]


def load_writer():
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.path.join(here, "..", "..", "data", "make-toy-models.py")
    spec = importlib.util.spec_from_file_location("make_toy_models", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def sinusoidal(n_pos, d):
    pe = torch.zeros(n_pos, d, dtype=torch.float64)
    for pos in range(n_pos):
        for i in range(0, d, 2):
            angle = pos / (10000.0 ** (i / d))
            pe[pos, i] = math.sin(angle)
            if i + 1 < d:
                pe[pos, i + 1] = math.cos(angle)
    return pe.float()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    writer = load_writer()
    torch.manual_seed(args.seed)

    V = len(WORDS)
    emb = torch.randn(V, D)
    w_q, w_k, w_v = (torch.randn(H, D, HD) * 0.7 for _ in range(3))
    w_o = torch.randn(H * HD, D)
    ids = torch.tensor([3, 0, 5, 3, 8, 1, 2])

    x = emb[ids] + sinusoidal(T, D)
    mask = torch.tril(torch.ones(T, T, dtype=torch.bool))
    attn, qs, ks, vs, ctxs = [], [], [], [], []
    for h in range(H):
        q, k, v = x @ w_q[h], x @ w_k[h], x @ w_v[h]
        s = (q @ k.T) / math.sqrt(HD)
        s = s.masked_fill(~mask, float("-inf"))
        p = torch.softmax(s, dim=-1)
        attn.append(p)
        qs.append(q)
        ks.append(k)
        vs.append(v)
        ctxs.append(p @ v)
    out = torch.cat(ctxs, dim=-1) @ w_o

    model = os.path.join(args.out, "model")
    os.makedirs(model, exist_ok=True)
    config = {
        "model_type": "toy-attention", "n_embd": D, "n_head": H, "head_dim": HD,
        "vocab_size": V, "n_positions": 16, "use_projections": True,
        "use_output_projection": True, "scale_scores": True, "sinusoidal_positions": True,
        "causal": True,
    }
    writer.write_json(os.path.join(model, "config.json"), config)
    writer.write_json(os.path.join(model, "vocab.json"), {w: i for i, w in enumerate(WORDS)})
    writer.write_keras_h5(os.path.join(model, "tf_model.h5"), [
        ("embeddings", emb.numpy()), ("w_q", w_q.numpy()), ("w_k", w_k.numpy()),
        ("w_v", w_v.numpy()), ("w_o", w_o.numpy())])

    def stack(ts):
        return torch.stack(ts).unsqueeze(0).numpy().astype(np.float32)

    with h5py.File(os.path.join(args.out, "expected.h5"), "w") as f:
        f["token_ids"] = ids.numpy().astype(np.int32)
        f["attentions"] = stack(attn)
        f["q"] = stack(qs)
        f["k"] = stack(ks)
        f["v"] = stack(vs)
        f["contexts"] = stack(ctxs)
        f["attn_out"] = out.unsqueeze(0).numpy()
        f["hidden_states"] = torch.stack([x, out]).numpy()
    return 0


if __name__ == "__main__":
    sys.exit(main())
