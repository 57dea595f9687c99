#!/usr/bin/python3
"""The logit lens, independently of attnscope: checks `attnscope lens --json` against the
project's PyTorch references.

  lens_reference.py check --family gpt2|decoder|encoder|marian --model DIR --lens OUT.json

For every hidden state i (HF's hidden_states numbering: 0 = the embeddings, L = after the final
norm) the reference reads hidden_states[i] through the model's final norm (skipped at i = L,
where the logits are the model's own) and its output head, in torch float32, as Hugging Face's
eager code would with output_hidden_states=True:
  gpt2     ln_f, then the tied wte (no bias)
  decoder  model.norm (Gemma: 1 + w, then the final soft-cap) / GPT-NeoX's final_layer_norm,
           then lm_head / embed_out (or the tied embeddings)
  encoder  the masked-LM head (dense, activation, LayerNorm, tied word embeddings + bias): BERT
           has no final norm, hidden_states[L] is the last layer's output
  marian   the decoder's hidden states over the target ids (the JSON's ids) with the encoder over
           the JSON's source_ids; shared embeddings + final_logits_bias
Then, per (i, position) of the JSON: each listed token's probability (softmax in float64 over the
reference logits) within 1e-4 relative (+1e-7 absolute); the listed tokens are the reference's
best in order, except where two reference logits differ by less than 1e-5; the target's rank
(tokens ranked before it: higher logit, then lower id) exact unless another logit is within
1e-5 of it. Prints the largest relative error; exits 1 on the first failure, naming it.

  lens_reference.py check ... --fitted LENS.h5
reads hidden states 0..L-1 through the fitted lens's maps instead (y = h·A_i + b_i in float64,
then the output head alone: the family's head without its final norm, as hidden_states[L] is
read), and checks the JSON of `attnscope lens --with LENS.h5` the same way.

  lens_reference.py fit-check --family gpt2|decoder|encoder --model DIR
                    --tokens TOKENS.jsonl --lens LENS.h5
checks a fitted lens (`attnscope lens --fit FILE --save LENS.h5`; TOKENS.jsonl: `attnscope
tokenize --lines FILE --json`, the ids of each corpus line) against the same ridge problem solved
here: for every fifth line held out (lines 4, 9, ...), the others' hidden states with a column of
ones X and their hidden_states[L] Y summed in float64, W_i = torch.linalg.solve(XᵀX + λI₀, XᵀY),
λ = ridge · mean(diag(XᵀX)[:D]); each map within 1e-4 relative to the largest entry of its
reference (|a − b| ≤ 1e-4 · max|b|) and within 1e-4 relative in Frobenius norm; the held-out KL
of both lenses (the first 256 held-out positions, final distribution against each lens's) within
1e-3 relative + 1e-6."""
import argparse
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


_models = {}


def cached_model(ref, model_dir):
    """REF's model of MODEL_DIR, loaded once (fit-check reads many lines)."""
    key = (ref.__name__, model_dir)
    if key not in _models:
        _models[key] = ref.load_model(model_dir)
    return _models[key]


def read_outs(family, model_dir, ids, source_ids):
    """[(logits [T,V] float64 numpy)] for i = 0..L."""
    if family == "gpt2":
        import gpt2_reference as ref
        import torch
        m = cached_model(ref, model_dir)
        with torch.no_grad():
            out = m.forward(ids)
            hs = out["hidden_states"]
            heads = [torch.nn.functional.linear(m._ln(h, "ln_f"), m.w["wte.weight"])
                     for h in hs[:-1]] + [out["logits"]]
    elif family == "decoder":
        import decoder_reference as ref
        import torch
        m = cached_model(ref, model_dir)
        with torch.no_grad():
            out = m.forward(ids)
            hs = out["hidden_states"]

            def read(h):
                if m.s.gemma:
                    logits = torch.nn.functional.linear(m._rms1p(h, "model.norm"), m.w[m.out_name])
                    if m.s.final_cap:
                        logits = torch.tanh(logits / m.s.final_cap) * m.s.final_cap
                    return logits
                final = "gpt_neox.final_layer_norm" if m.s.neox else "model.norm"
                return torch.nn.functional.linear(m._norm(h, final), m.w[m.out_name])

            heads = [read(h) for h in hs[:-1]] + [out["logits"]]
    elif family == "encoder":
        import encoder_reference as ref
        import torch
        m = cached_model(ref, model_dir)
        with torch.no_grad():
            out = m.forward(ids)
            hh = m.names["head"]
            act = torch.nn.functional.gelu if m.m["family"] == "roberta" else m.act

            def read(h):
                x = m._ln(act(m._lin(h, hh["dense"])), hh["ln"])
                return torch.nn.functional.linear(x, m.w[m.names["word"]], m.w[hh["bias"]])

            heads = [read(h) for h in out["hidden_states"]]
    elif family == "marian":
        import marian_reference as ref
        import torch
        m = cached_model(ref, model_dir)
        with torch.no_grad():
            enc, _, _ = m.encode(torch.tensor([source_ids]), capture=True)
            out = m.decode(torch.tensor([ids]), enc, capture=True)
            heads = [(torch.nn.functional.linear(h, m.model.shared.weight)
                      + m.final_logits_bias)[0] for h in out["hidden_states"]]
    else:
        raise ValueError("unknown family %s" % family)
    return [np.asarray(h.numpy(), dtype=np.float64) for h in heads]


def head_only(family, m, y):
    """Logits of vectors Y [T, D] (float32 torch) taken as hidden_states[L]: the output head."""
    import torch
    if family == "gpt2":
        return torch.nn.functional.linear(y, m.w["wte.weight"])
    if family == "decoder":
        logits = torch.nn.functional.linear(y, m.w[m.out_name])
        if m.s.gemma and m.s.final_cap:
            logits = torch.tanh(logits / m.s.final_cap) * m.s.final_cap
        return logits
    if family == "encoder":
        hh = m.names["head"]
        act = torch.nn.functional.gelu if m.m["family"] == "roberta" else m.act
        x = m._ln(act(m._lin(y, hh["dense"])), hh["ln"])
        return torch.nn.functional.linear(x, m.w[m.names["word"]], m.w[hh["bias"]])
    raise ValueError("the fitted lens has no reference for %s" % family)


def load_model(family, model_dir):
    if family == "gpt2":
        import gpt2_reference as ref
    elif family == "decoder":
        import decoder_reference as ref
    else:
        import encoder_reference as ref
    return cached_model(ref, model_dir)


def hidden_states(family, m, ids):
    """hidden_states [L + 1] of IDS, float32 torch [T, D] each."""
    import torch
    with torch.no_grad():
        out = m.forward(ids)
    return [h[0] if h.dim() == 3 else h for h in out["hidden_states"]]


def fitted_outs(family, model_dir, ids, maps):
    """As read_outs, hidden states 0..L-1 through MAPS [L][D + 1][D] (float64 numpy)."""
    import torch
    m = load_model(family, model_dir)
    hs = hidden_states(family, m, ids)
    L = len(hs) - 1
    outs = []
    with torch.no_grad():
        for i, h in enumerate(hs):
            if i < L:
                w = torch.tensor(maps[i], dtype=torch.float64)
                y = (h.double() @ w[:-1] + w[-1]).float()
            else:
                y = h
            outs.append(np.asarray(head_only(family, m, y).numpy(), dtype=np.float64))
    return outs


def read_maps(path):
    import h5py
    with h5py.File(path, "r") as f:
        maps = np.asarray(f["maps"], dtype=np.float64)
        kl = np.asarray(f["kl"], dtype=np.float64)
        info = np.asarray(f["info"], dtype=np.float64)[0]
    d = maps.shape[1]
    return maps.reshape(-1, d + 1, d), kl, info


def kl_div(p_logits, q_logits):
    lp = p_logits - p_logits.max()
    lp = lp - np.log(np.exp(lp).sum())
    lq = q_logits - q_logits.max()
    lq = lq - np.log(np.exp(lq).sum())
    return float(np.sum(np.exp(lp) * (lp - lq)))


def fit_check(a):
    import torch
    maps, kl, info = read_maps(a.lens)
    ridge = info[0]
    with open(a.tokens, encoding="utf-8") as f:
        lines = [json.loads(line)["ids"] for line in f if line.strip()]
    m = load_model(a.family, a.model)
    n_pos = m.m.get("n_positions") if hasattr(m, "m") and isinstance(m.m, dict) else None
    L = maps.shape[0]
    D = maps.shape[2]
    G = torch.zeros(L, D + 1, D + 1, dtype=torch.float64)
    C = torch.zeros(L, D + 1, D, dtype=torch.float64)
    positions = 0
    for n, ids in enumerate(lines):
        if n % 5 == 4:
            continue
        hs = hidden_states(a.family, m, ids[:n_pos] if n_pos else ids)
        y = hs[L].double()
        for i in range(L):
            x = torch.cat([hs[i].double(), torch.ones(len(hs[i]), 1, dtype=torch.float64)], 1)
            G[i] += x.T @ x
            C[i] += x.T @ y
        positions += len(hs[0])
    if positions != int(info[2]):
        sys.exit("training positions: %d in the lens, %d here" % (int(info[2]), positions))
    worst = 0.0
    ref_maps = []
    for i in range(L):
        lam = ridge * float(torch.diagonal(G[i])[:D].sum()) / D
        a_mat = G[i].clone()
        a_mat[range(D), range(D)] += lam
        w = torch.linalg.solve(a_mat, C[i]).numpy()
        ref_maps.append(w)
        scale = np.abs(w).max()
        err = np.abs(maps[i] - w).max() / scale
        frob = np.linalg.norm(maps[i] - w) / np.linalg.norm(w)
        worst = max(worst, err)
        if err > 1e-4 or frob > 1e-4:
            sys.exit("hidden %d: map differs by %.3g of its largest entry (Frobenius %.3g)"
                     % (i, err, frob))
    # the held-out KL, on the first 256 held-out positions
    kl_ref = np.zeros((2, L))
    left = 256
    for n, ids in enumerate(lines):
        if n % 5 != 4 or left <= 0:
            continue
        ids = ids[:n_pos] if n_pos else ids
        logit = read_outs(a.family, a.model, ids, None)
        fitted = fitted_outs(a.family, a.model, ids, ref_maps)
        k = min(len(ids), left)
        for i in range(L):
            for t in range(k):
                kl_ref[0, i] += kl_div(logit[L][t], logit[i][t])
                kl_ref[1, i] += kl_div(logit[L][t], fitted[i][t])
        left -= k
    kl_ref /= (256 - left) if left > 0 else 256
    for r in range(2):
        for i in range(L):
            if abs(kl[r, i] - kl_ref[r, i]) > 1e-3 * abs(kl_ref[r, i]) + 1e-6:
                sys.exit("hidden %d: %s lens KL %.9g, reference %.9g"
                         % (i, ("logit", "fitted")[r], kl[r, i], kl_ref[r, i]))
    print("fitted lens: %d maps [%d][%d] from %d positions, largest error %.3g of the largest "
          "entry; KL logit %s fitted %s" % (L, D + 1, D, positions, worst,
                                            np.round(kl_ref[0], 4), np.round(kl_ref[1], 4)))


def softmax(row):
    e = np.exp(row - row.max())
    return e / e.sum()


def check(a):
    with open(a.lens, encoding="utf-8") as f:
        lens = json.load(f)
    ids = lens["ids"]
    source = lens.get("source_ids")
    if a.fitted:
        outs = fitted_outs(a.family, a.model, ids, read_maps(a.fitted)[0])
    else:
        outs = read_outs(a.family, a.model, ids, source)
    if len(lens["hidden"]) != len(outs):
        sys.exit("hidden states: %d in the JSON, %d in the reference"
                 % (len(lens["hidden"]), len(outs)))
    worst = 0.0
    cells = 0
    for entry in lens["hidden"]:
        i = entry["index"]
        for cell in entry["positions"]:
            p = cell["position"]
            logits = outs[i][p]
            probs = softmax(logits)
            order = sorted(range(len(logits)), key=lambda j: (-logits[j], j))
            for k, top in enumerate(cell["top"]):
                ref_p = probs[top["id"]]
                err = abs(top["prob"] - ref_p)
                if err > 1e-4 * ref_p + 1e-7:
                    sys.exit("hidden %d position %d: token %d probability %.9g, reference %.9g"
                             % (i, p, top["id"], top["prob"], ref_p))
                worst = max(worst, err / max(ref_p, 1e-12))
                want = order[k]
                if top["id"] != want and abs(logits[top["id"]] - logits[want]) > 1e-5:
                    sys.exit("hidden %d position %d: rank %d is token %d, the reference's is %d"
                             % (i, p, k, top["id"], want))
            if "target" in cell:
                t = cell["target"]
                tl = logits[t["id"]]
                rank = int(np.sum(logits > tl) + np.sum((logits == tl)[:t["id"]]))
                near = int(np.sum(np.abs(logits - tl) < 1e-5)) - 1
                if abs(t["rank"] - rank) > near:
                    sys.exit("hidden %d position %d: target rank %d, reference %d"
                             % (i, p, t["rank"], rank))
                if abs(t["prob"] - probs[t["id"]]) > 1e-4 * probs[t["id"]] + 1e-7:
                    sys.exit("hidden %d position %d: target probability %.9g, reference %.9g"
                             % (i, p, t["prob"], probs[t["id"]]))
            cells += 1
    print("lens: %d cells of %d hidden states, largest relative probability error %.3g"
          % (cells, len(outs), worst))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("check", help="check an attnscope lens --json output")
    c.add_argument("--family", required=True, choices=("gpt2", "decoder", "encoder", "marian"))
    c.add_argument("--model", required=True)
    c.add_argument("--lens", required=True)
    c.add_argument("--fitted", help="the fitted lens (HDF5) the JSON was read through")
    f = sub.add_parser("fit-check", help="check a fitted lens against the same least squares")
    f.add_argument("--family", required=True, choices=("gpt2", "decoder", "encoder"))
    f.add_argument("--model", required=True)
    f.add_argument("--tokens", required=True)
    f.add_argument("--lens", required=True)
    a = ap.parse_args(argv)
    if a.cmd == "check":
        check(a)
    else:
        fit_check(a)


if __name__ == "__main__":
    main()
