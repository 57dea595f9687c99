#!/usr/bin/python3
"""Interventions, independently of attnscope: checks `attnscope ablate --scan --json`,
`attnscope patch --json` and `attnscope perplexity --ablate ... --json` against the project's
PyTorch references (gpt2_reference.py, decoder_reference.py, encoder_reference.py) run with
hooks.

  whatif_reference.py check-scan --family F --model DIR --json OUT [--mean-ids a,b,c ...]
  whatif_reference.py check-patch --family F --model DIR --json OUT
  whatif_reference.py check-perplexity --family F --model DIR --json OUT --ablate SPEC
                      [--mean-ids a,b,c ...]
  check-scan and check-patch take --base SPEC: heads and MLPs switched off in every pass (the
  command's --ablate), zero or (with --mean-ids) mean ablated; a scanned head of SPEC has the
  effect 0; a patched head or MLP of SPEC keeps its ablation (the source's value replaced by it).

The hooks wrap the references' linear maps by module name, as forward hooks on HF's modules
would:
  a head's output   the input of the attention's output projection (GPT-2 attn.c_proj, Llama
                    self_attn.o_proj, NeoX attention.dense, BERT attention.output.dense), the
                    head's hd columns replaced (zeros, its mean, or the other text's values)
  an MLP's output   the output of the MLP's last projection (mlp.c_proj, down_proj,
                    dense_4h_to_h, output.dense), before the residual (and Gemma's post-norm)
  the residual      the block's input at the first norm (or BERT's query projection), rows
                    replaced in place
Means (--ablation mean) are taken over every position of the --mean-ids sequences, in float64.
Measures: the last position's logit (or logit difference), or the mean next-token loss. Every
number must match within 1e-4 relative (+1e-4 absolute for effects, which are differences;
for patching effects that absolute bound on the logits divided by |B − A|, the normalisation);
prints the largest error, exits 1 naming the first failure."""
import argparse
import json
import os
import re
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
torch = None


class Hooks:
    """What one pass changes and records. heads: {(l, h)}; head_values: {l: [T,H,hd]} or None;
    head_means [L,H,hd] or None; mlps: {l}; mlp_values {l: [T,D]}; mlp_means [L,D];
    resid: {(l, t)}; resid_values {l: [T,D]}."""

    def __init__(self, **kw):
        self.heads, self.mlps, self.resid = set(), set(), set()
        self.head_values = self.head_means = self.mlp_values = self.mlp_means = None
        self.resid_values = None
        self.record_ctx, self.record_mlp = {}, {}
        for k, v in kw.items():
            setattr(self, k, v)


def layer_of(name):
    return int(re.search(r"\.(\d+)\.", name).group(1))


class Hooked:
    """One family's reference model with the three hooks."""

    def __init__(self, family, model_dir):
        global torch
        import torch as t
        torch = t
        self.family = family
        self.hooks = Hooks()
        if family == "gpt2":
            import gpt2_reference as ref
            self.m = ref.load_model(model_dir)
            self.H, self.hd = self.m.n_head, self.m.hd
            self._wrap("_conv1d", r"attn\.c_proj$", r"mlp\.c_proj$")
            self._wrap_resid("_ln", r"ln_1$")
        elif family == "decoder":
            import decoder_reference as ref
            self.m = ref.load_model(model_dir)
            self.H, self.hd = self.m.s.n_head, self.m.s.hd
            self._wrap("_lin", r"(self_attn\.o_proj|attention\.dense)$",
                       r"mlp\.(down_proj|dense_4h_to_h)$")
            self._wrap_resid("_norm", r"input_layernorm$")
            self._wrap_resid("_rms1p", r"input_layernorm$")
        elif family == "encoder":
            import encoder_reference as ref
            self.m = ref.load_model(model_dir)
            self.H = self.m.m["H"]
            self.hd = self.m.m["D"] // self.H
            layers = self.m.names["layers"]
            o = "|".join(re.escape(x["o"]) for x in layers)
            ff2 = "|".join(re.escape(x["ff2"]) for x in layers)
            q = "|".join(re.escape(x["q"]) for x in layers)
            self._wrap("_lin", "^(%s)$" % o, "^(%s)$" % ff2)
            self._wrap_resid("_lin", "^(%s)$" % q)
        else:
            raise ValueError("unknown family %s" % family)

    def _wrap(self, method, head_pattern, mlp_pattern):
        inner = getattr(self.m, method)
        hooks = lambda: self.hooks

        def wrapped(x, name):
            hk = hooks()
            if re.search(head_pattern, name):
                n = layer_of(name)
                t = x.shape[0]
                hk.record_ctx[n] = x.view(t, self.H, self.hd).clone()
                x = x.clone()
                for (l, h) in hk.heads:
                    if l != n:
                        continue
                    cols = slice(h * self.hd, (h + 1) * self.hd)
                    if hk.head_values is not None:
                        x[:, cols] = hk.head_values[n][:, h, :]
                    elif hk.head_means is not None:
                        x[:, cols] = torch.from_numpy(hk.head_means[n, h]).float()
                    else:
                        x[:, cols] = 0
                return inner(x, name)
            y = inner(x, name)
            if re.search(mlp_pattern, name):
                n = layer_of(name)
                hk.record_mlp[n] = y.clone()
                if n in hk.mlps:
                    if hk.mlp_values is not None:
                        y = hk.mlp_values[n].clone()
                    elif hk.mlp_means is not None:
                        y = torch.from_numpy(hk.mlp_means[n]).float().expand_as(y).clone()
                    else:
                        y = torch.zeros_like(y)
            return y

        setattr(self.m, method, wrapped)

    def _wrap_resid(self, method, pattern):
        inner = getattr(self.m, method)
        hooks = lambda: self.hooks

        def wrapped(x, name):
            hk = hooks()
            if re.search(pattern, name):
                n = layer_of(name)
                for (l, t) in hk.resid:
                    if l == n:
                        x[t] = hk.resid_values[n][t]  # in place: the residual stream itself
            return inner(x, name)

        setattr(self.m, method, wrapped)

    def run(self, ids, hooks=None):
        """(logits [T,V] float64 numpy, hidden_states list, hooks)."""
        self.hooks = hooks or Hooks()
        with torch.no_grad():
            out = self.m.forward(list(ids))
        return out["logits"].double().numpy(), out["hidden_states"], self.hooks

    def means(self, id_lists):
        head_sum, mlp_sum, count = None, None, 0
        for ids in id_lists:
            _, _, hk = self.run(ids)
            n_layer = len(hk.record_ctx)
            ctx = np.stack([hk.record_ctx[l].double().numpy().sum(0) for l in range(n_layer)])
            mlp = np.stack([hk.record_mlp[l].double().numpy().sum(0) for l in range(n_layer)])
            head_sum = ctx if head_sum is None else head_sum + ctx
            mlp_sum = mlp if mlp_sum is None else mlp_sum + mlp
            count += len(ids)
        return (head_sum / count).astype(np.float32), (mlp_sum / count).astype(np.float32)


def measure(logits, ids, token_id, vs_id, loss_from=0):
    if token_id < 0:
        lp = logits[:-1] - logits[:-1].max(1, keepdims=True)
        lp = lp - np.log(np.exp(lp).sum(1, keepdims=True))
        nll = -lp[np.arange(len(ids) - 1), ids[1:]]
        return float(np.mean(nll[max(loss_from, 1) - 1:]))
    last = logits[-1]
    return float(last[token_id] - (last[vs_id] if vs_id >= 0 else 0.0))


class Worst:
    def __init__(self):
        self.rel = 0.0

    def check(self, what, got, want, abs_tol=1e-4):
        err = abs(got - want)
        if not err <= 1e-4 * abs(want) + abs_tol:
            sys.exit("%s: %.9g, reference %.9g" % (what, got, want))
        self.rel = max(self.rel, err / max(abs(want), 1e-12))


def parse_ids(text):
    return [int(x) for x in text.split(",") if x.strip()]


def parse_spec(spec):
    """--ablate's LIST as ({(layer, head)}, {layer})."""
    heads, mlps = set(), set()
    for entry in (spec or "").split(","):
        entry = entry.strip()
        if entry.startswith("mlp"):
            mlps.add(int(entry[3:]))
        elif entry:
            l, h = entry.split(".")
            heads.add((int(l), int(h)))
    return heads, mlps


def base_hooks(base, means, **kw):
    """Hooks with the base ablation (zero, or MEANS) and KW; heads/mlps in KW are added to it."""
    heads, mlps = base
    hk = Hooks(**kw)
    hk.heads = set(heads) | set(kw.get("heads", ()))
    hk.mlps = set(mlps) | set(kw.get("mlps", ()))
    if means is not None:
        hk.head_means, hk.mlp_means = means
    return hk


def check_scan(a, model, doc):
    ids = doc["ids"]
    means = model.means([parse_ids(m) for m in a.mean_ids]) if doc["ablation"] == "mean" else None
    base = parse_spec(a.base)
    tok, vs, frm = doc["token_id"], doc["vs_id"], doc.get("loss_from", 0)
    start = time.perf_counter()
    logits, _, _ = model.run(ids, base_hooks(base, means))
    clean = measure(logits, np.asarray(ids), tok, vs, frm)
    worst = Worst()
    worst.check("clean", doc["clean"], clean)
    L, H = doc["n_layer"], doc["n_head"]
    for l in range(L):
        for h in range(H):
            if (l, h) in base[0]:
                worst.check("head %d.%d (switched off)" % (l, h), doc["effects"][l][h], 0.0)
                continue
            lg, _, _ = model.run(ids, base_hooks(base, means, heads={(l, h)}))
            eff = measure(lg, np.asarray(ids), tok, vs, frm) - clean
            worst.check("head %d.%d" % (l, h), doc["effects"][l][h], eff)
    print("scan: %d heads, largest relative error %.3g, %.3f s" % (L * H, worst.rel,
                                                                  time.perf_counter() - start))


def check_patch(a, model, doc):
    base, source = doc["base_ids"], doc["source_ids"]
    tok, vs = doc["token_id"], doc["vs_id"]
    start = time.perf_counter()
    means = model.means([parse_ids(m) for m in a.mean_ids]) if a.mean_ids else None
    ab = parse_spec(a.base)
    la, ha, _ = model.run(base, base_hooks(ab, means))
    lb, hb, hkb = model.run(source, base_hooks(ab, means))
    ctx_b = dict(hkb.record_ctx)
    mlp_b = dict(hkb.record_mlp)
    # the hooks record a part before its replacement: a switched-off part's value is its ablation's
    for (l, h) in ab[0]:
        ctx_b[l] = ctx_b[l].clone()
        ctx_b[l][:, h, :] = (torch.from_numpy(means[0][l, h]).float() if means is not None else 0)
    for l in ab[1]:
        mlp_b[l] = (torch.from_numpy(means[1][l]).float().expand_as(mlp_b[l]).clone()
                    if means is not None else torch.zeros_like(mlp_b[l]))
    va = measure(la, np.asarray(base), tok, vs)
    vb = measure(lb, np.asarray(source), tok, vs)
    worst = Worst()
    worst.check("base", doc["base"], va)
    worst.check("source", doc["source"], vb)
    eff = doc["effects"]
    what = doc["what"]
    cells = 0
    for i, row in enumerate(eff):
        for j, got in enumerate(row):
            if what == "heads":
                hk = base_hooks(ab, means, heads={(i, j)}, head_values=ctx_b)
            elif what == "mlps":
                hk = base_hooks(ab, means, mlps={j}, mlp_values=mlp_b)
            else:
                hk = base_hooks(ab, means, resid={(i, j)}, resid_values={i: hb[i].clone()})
            lg, _, _ = model.run(base, hk)
            patched = measure(lg, np.asarray(base), tok, vs)
            want = (patched - va) / (vb - va)
            # the normalisation divides the logits' own error (1e-4 relative + 1e-4) by B − A: a
            # small difference between the texts magnifies it, so the bound is carried through
            raw_tol = 1e-4 * (1.0 + max(abs(va), abs(vb), abs(patched)))
            worst.check("%s [%d][%d]" % (what, i, j), got, want,
                        max(1e-4, raw_tol / max(abs(vb - va), 1e-12)))
            cells += 1
    print("patch %s: %d cells, largest relative error %.3g, %.3f s" % (what, cells, worst.rel,
                                                                      time.perf_counter() - start))


def check_perplexity(a, model, doc):
    ids = [t["id"] for t in doc["tokens"]]
    hk = Hooks()
    for entry in a.ablate.split(","):
        if entry.startswith("mlp"):
            hk.mlps.add(int(entry[3:]))
        else:
            l, h = entry.split(".")
            hk.heads.add((int(l), int(h)))
    if a.mean_ids:
        hk.head_means, hk.mlp_means = model.means([parse_ids(m) for m in a.mean_ids])
    logits, _, _ = model.run(ids, hk)
    worst = Worst()
    lp = logits - logits.max(1, keepdims=True)
    lp = lp - np.log(np.exp(lp).sum(1, keepdims=True))
    for t in range(1, len(ids)):
        worst.check("logprob %d" % t, doc["tokens"][t]["logprob"], lp[t - 1, ids[t]], 1e-5)
    print("perplexity: %d tokens, largest relative error %.3g" % (len(ids) - 1, worst.rel))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name in ("check-scan", "check-patch", "check-perplexity"):
        c = sub.add_parser(name)
        c.add_argument("--family", required=True, choices=("gpt2", "decoder", "encoder"))
        c.add_argument("--model", required=True)
        c.add_argument("--json", required=True)
        c.add_argument("--mean-ids", action="append", default=[])
        if name != "check-perplexity":
            c.add_argument("--base", default=None, help="the command's --ablate LIST")
        if name == "check-perplexity":
            c.add_argument("--ablate", required=True)
    a = ap.parse_args(argv)
    with open(a.json, encoding="utf-8") as f:
        doc = json.load(f)
    model = Hooked(a.family, a.model)
    {"check-scan": check_scan, "check-patch": check_patch,
     "check-perplexity": check_perplexity}[a.cmd](a, model, doc)


if __name__ == "__main__":
    main()
