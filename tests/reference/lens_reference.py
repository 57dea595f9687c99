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
1e-5 of it. Prints the largest relative error; exits 1 on the first failure, naming it."""
import argparse
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def read_outs(family, model_dir, ids, source_ids):
    """[(logits [T,V] float64 numpy)] for i = 0..L."""
    if family == "gpt2":
        import gpt2_reference as ref
        import torch
        m = ref.load_model(model_dir)
        with torch.no_grad():
            out = m.forward(ids)
            hs = out["hidden_states"]
            heads = [torch.nn.functional.linear(m._ln(h, "ln_f"), m.w["wte.weight"])
                     for h in hs[:-1]] + [out["logits"]]
    elif family == "decoder":
        import decoder_reference as ref
        import torch
        m = ref.load_model(model_dir)
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
        m = ref.load_model(model_dir)
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
        m = ref.load_model(model_dir)
        with torch.no_grad():
            enc, _, _ = m.encode(torch.tensor([source_ids]), capture=True)
            out = m.decode(torch.tensor([ids]), enc, capture=True)
            heads = [(torch.nn.functional.linear(h, m.model.shared.weight)
                      + m.final_logits_bias)[0] for h in out["hidden_states"]]
    else:
        raise ValueError("unknown family %s" % family)
    return [np.asarray(h.numpy(), dtype=np.float64) for h in heads]


def softmax(row):
    e = np.exp(row - row.max())
    return e / e.sum()


def check(a):
    with open(a.lens, encoding="utf-8") as f:
        lens = json.load(f)
    ids = lens["ids"]
    source = lens.get("source_ids")
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
    a = ap.parse_args(argv)
    check(a)


if __name__ == "__main__":
    main()
