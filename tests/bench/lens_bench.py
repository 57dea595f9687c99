#!/usr/bin/python3
"""The PyTorch peer of `attnscope lens` for tests/bench/run-lens-bench.sh, on a GPT-2 folder
(tests/reference/gpt2_reference.py's model: HF's GPT-2 eager computation in float32).

  lens_bench.py logit MODEL --ids 1,2,3 --top 5 --repeat N
      the logit lens of every hidden state at every position: ln_f (except the last), the tied
      unembedding, softmax, the top K; prints the median and min seconds of N runs (JSON).
  lens_bench.py fit MODEL --tokens TOKENS.jsonl
      the fitted lens as `attnscope lens --fit` computes it: the forward pass of every training
      line (every fifth held out), the normal equations summed in float64, torch.linalg.solve per
      hidden state, then the KL of both lenses on the first 256 held-out positions; prints the
      seconds and the KL per hidden state (JSON).
Model loading and tokenization are not timed (attnscope's times include both)."""
import argparse
import json
import os
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reference"))
import gpt2_reference as ref  # noqa: E402


def logit_lens(m, ids, k):
    with torch.no_grad():
        out = m.forward(ids)
        hs = out["hidden_states"]
        result = []
        for i, h in enumerate(hs):
            x = h if i == len(hs) - 1 else m._ln(h, "ln_f")
            p = torch.softmax(torch.nn.functional.linear(x, m.w["wte.weight"]), -1)
            result.append(torch.topk(p, k, -1))
    return result


def kl_rows(p_logits, q_logits):
    lp = torch.log_softmax(p_logits.double(), -1)
    lq = torch.log_softmax(q_logits.double(), -1)
    return (lp.exp() * (lp - lq)).sum(-1)


def fit(m, lines, ridge=1e-3):
    with torch.no_grad():
        first = m.forward(lines[0])["hidden_states"]
        L = len(first) - 1
        D = first[0].shape[-1]
        G = torch.zeros(L, D + 1, D + 1, dtype=torch.float64)
        C = torch.zeros(L, D + 1, D, dtype=torch.float64)
        for n, ids in enumerate(lines):
            if n % 5 == 4:
                continue
            hs = m.forward(ids)["hidden_states"]
            y = hs[L].double()
            for i in range(L):
                x = torch.cat([hs[i].double(), torch.ones(len(ids), 1, dtype=torch.float64)], 1)
                G[i] += x.T @ x
                C[i] += x.T @ y
        maps = []
        for i in range(L):
            lam = ridge * float(torch.diagonal(G[i])[:D].sum()) / D
            a = G[i].clone()
            a[range(D), range(D)] += lam
            maps.append(torch.linalg.solve(a, C[i]).float())
        kl = torch.zeros(2, L, dtype=torch.float64)
        left = 256
        wte = m.w["wte.weight"]
        for n, ids in enumerate(lines):
            if n % 5 != 4 or left <= 0:
                continue
            hs = m.forward(ids)["hidden_states"]
            t = min(len(ids), left)
            final = torch.nn.functional.linear(hs[L][:t], wte)
            for i in range(L):
                q = torch.nn.functional.linear(m._ln(hs[i][:t], "ln_f"), wte)
                kl[0, i] += kl_rows(final, q).sum()
                y = hs[i][:t] @ maps[i][:-1] + maps[i][-1]
                kl[1, i] += kl_rows(final, torch.nn.functional.linear(y, wte)).sum()
            left -= t
        kl /= 256 - max(left, 0)
    return maps, kl


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    a1 = sub.add_parser("logit")
    a1.add_argument("model")
    a1.add_argument("--ids", required=True)
    a1.add_argument("--top", type=int, default=5)
    a1.add_argument("--repeat", type=int, default=5)
    a2 = sub.add_parser("fit")
    a2.add_argument("model")
    a2.add_argument("--tokens", required=True)
    a = ap.parse_args()
    torch.set_num_threads(2)
    m = ref.load_model(a.model)
    if a.cmd == "logit":
        ids = [int(x) for x in a.ids.split(",")]
        logit_lens(m, ids, a.top)  # warm-up
        times = []
        for _ in range(a.repeat):
            t0 = time.perf_counter()
            logit_lens(m, ids, a.top)
            times.append(time.perf_counter() - t0)
        print(json.dumps({"median_s": statistics.median(times), "min_s": min(times)}))
    else:
        with open(a.tokens, encoding="utf-8") as f:
            lines = [json.loads(line)["ids"][:1024] for line in f if line.strip()]
        t0 = time.perf_counter()
        _, kl = fit(m, lines)
        seconds = time.perf_counter() - t0
        print(json.dumps({"seconds": seconds, "kl_logit": kl[0].tolist(),
                          "kl_fitted": kl[1].tolist()}))


if __name__ == "__main__":
    main()
