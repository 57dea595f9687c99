#!/usr/bin/python3
"""Evaluate the shipped attnscope-mini-bert folder and write its metrics.json and README.md.

Everything runs on the shipped tf_model.h5 through tests/reference/encoder_reference.py (torch
float32, batch of one) with the WordPiece tokenizer of wordpiece.py and the folder's vocab.txt.

  masked tokens  every held-out text becomes "[CLS] text [SEP]" (cut to 126 word pieces); in
                 each, 15 % of the word pieces (at least one) are chosen with a numpy Generator
                 seeded by --seed, all replaced by [MASK] in one forward pass; top-1 / top-5
                 accuracy of the MLM logits at those positions and their mean cross-entropy.
  baseline       unigram counts of the train split's word pieces (train.py's split and
                 tokenizer): top-1 / top-5 = always the 1 / 5 most frequent pieces;
                 cross-entropy of the add-one-smoothed unigram distribution.
  head shares    per line, attention P [T][T] of each head on the unmasked text (as C's
                 core/analysis/head-stats.c does for previous/first/self): cls = mean over rows
                 i >= 1 of P[i][0]; sep = mean over rows i >= 1 of the total attention to [SEP]
                 positions; previous = mean over rows i >= 1 of P[i][i-1]; next = mean over rows
                 i <= T-2 of P[i][i+1]; self = mean over rows of P[i][i]; entropy = mean over
                 rows of the row entropy / log T.  Lines count once each.  Computed on single
                 texts and on pairs "[CLS] A [SEP] B [SEP]" of consecutive held-out lines.

Usage: /usr/bin/python3 data/train-mini-bert/evaluate.py data/models/attnscope-mini-bert \\
           --check data/train-mini-bert/export-check.json --train-log data/train-mini-bert/train.log
"""

import argparse
import json
import math
import os
import sys
from collections import Counter

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "reference"))
sys.path.append(os.path.join(HERE, "..", "train-mini"))
import corpus  # noqa: E402  (data/train-mini/corpus.py)
import encoder_reference  # noqa: E402
import readme_bert  # noqa: E402
import wordpiece  # noqa: E402

MAX_PIECES = 126
STATS = ("cls", "sep", "previous", "next", "self", "entropy")


def head_shares(p, ids):
    """{stat: [L][H] array} of one line; p is attentions [L,H,T,T]."""
    t = p.shape[-1]
    rows = np.arange(1, t)
    sep = np.array([i == wordpiece.SEP for i in ids])
    ent = -(p * np.log(np.where(p > 0, p, 1.0))).sum(-1) / math.log(t)
    return {"cls": p[:, :, rows, 0].mean(-1),
            "sep": p[:, :, 1:, :][..., sep].sum(-1).mean(-1),
            "previous": p[:, :, rows, rows - 1].mean(-1),
            "next": p[:, :, np.arange(t - 1), np.arange(1, t)].mean(-1),
            "self": p[:, :, np.arange(t), np.arange(t)].mean(-1),
            "entropy": ent.mean(-1)}


def mean_shares(model, rows):
    total = None
    for ids, types in rows:
        s = head_shares(encoder_reference.run_capture(model, ids, types)["attentions"]
                        .astype(np.float64), ids)
        total = s if total is None else {k: total[k] + s[k] for k in STATS}
    return {k: (total[k] / len(rows)).tolist() for k in STATS}


def masked_accuracy(model, seqs, unigram, seed):
    rng = np.random.default_rng(seed)
    order = [i for i, _ in unigram.most_common()]
    n_total = sum(unigram.values())
    v = len(model.w[model.names["word"]])
    log_uni = np.log((np.array([unigram.get(i, 0) for i in range(v)]) + 1.0) / (n_total + v))
    r = Counter()
    for seq in seqs:
        ids = [wordpiece.CLS] + seq[:MAX_PIECES] + [wordpiece.SEP]
        n = len(ids) - 2
        k = max(1, int(round(0.15 * n)))
        pos = 1 + rng.choice(n, size=k, replace=False)
        masked = list(ids)
        for i in pos:
            masked[i] = wordpiece.MASK
        logits = encoder_reference.run_capture(model, masked, [0] * len(ids))["logits"]
        lp = torch.log_softmax(torch.from_numpy(logits[pos]).double(), -1).numpy()
        for row, i in zip(lp, pos):
            target = ids[i]
            top5 = np.argsort(-row)[:5]
            r["n"] += 1
            r["top1"] += int(top5[0] == target)
            r["top5"] += int(target in top5)
            r["nll"] -= row[target]
            r["uni_top1"] += int(order[0] == target)
            r["uni_top5"] += int(target in order[:5])
            r["uni_nll"] -= log_uni[target]
    n = r["n"]
    return {"masked_tokens": n, "top1": r["top1"] / n, "top5": r["top5"] / n,
            "cross_entropy": r["nll"] / n, "perplexity": math.exp(r["nll"] / n),
            "unigram_top1": r["uni_top1"] / n, "unigram_top5": r["uni_top5"] / n,
            "unigram_cross_entropy": r["uni_nll"] / n,
            "unigram_perplexity": math.exp(r["uni_nll"] / n),
            "unigram_most_frequent": order[:5]}


def best(shares, stat):
    a = np.array(shares[stat])
    i = np.unravel_index(np.argmax(a), a.shape)
    return {"layer": int(i[0]), "head": int(i[1]), "value": float(a[i])}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("model_dir")
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--heldout-per-mille", type=int, default=15)
    ap.add_argument("--check", default=None, help="export.py's --check-out JSON")
    ap.add_argument("--train-log", default=None)
    ap.add_argument("--limit", type=int, default=0, help="only the first N held-out lines "
                    "(a quick test; the shipped metrics use all)")
    args = ap.parse_args()
    torch.set_num_threads(1)
    model = encoder_reference.load_model(args.model_dir)
    tok = wordpiece.Tokenizer.load(os.path.join(args.model_dir, "vocab.txt"))
    with open(os.path.join(args.model_dir, "heldout.txt"), encoding="utf-8") as f:
        held = [line.rstrip("\n") for line in f]
    train_lines, held_again = corpus.split(corpus.read_wordnet(), args.heldout_per_mille)
    if held_again != held:
        sys.exit("evaluate: heldout.txt differs from the corpus split")
    unigram = Counter()
    for line in train_lines:
        unigram.update(tok.encode(line))
    if args.limit:
        held = held[:args.limit]
    seqs = [tok.encode(t) for t in held]
    metrics = {"n_params": int(sum(np.asarray(a).size for a in model.w.values())),
               "heldout_lines": len(held), "seed": args.seed}
    metrics.update(masked_accuracy(model, seqs, unigram, args.seed))
    single = [([wordpiece.CLS] + s[:MAX_PIECES] + [wordpiece.SEP], None) for s in seqs]
    pairs = []
    for n in range(0, len(seqs) - 1, 2):
        a, b = seqs[n][:62], seqs[n + 1][:62]
        ids = [wordpiece.CLS] + a + [wordpiece.SEP] + b + [wordpiece.SEP]
        pairs.append((ids, [0] * (len(a) + 2) + [1] * (len(b) + 1)))
    metrics["head_shares_single"] = mean_shares(model, single)
    metrics["head_shares_pairs"] = mean_shares(model, pairs)
    metrics["pair_lines"] = len(pairs)
    metrics["best_heads_single"] = {s: best(metrics["head_shares_single"], s)
                                    for s in STATS if s != "entropy"}
    if args.check:
        with open(args.check, encoding="utf-8") as f:
            metrics["export_check"] = json.load(f)
    with open(os.path.join(args.model_dir, "metrics.json"), "w", encoding="utf-8") as f:
        json.dump(metrics, f, indent=2)
        f.write("\n")
    log_tail = ""
    if args.train_log:
        with open(args.train_log, encoding="utf-8") as f:
            log_tail = f.read().strip().splitlines()
    with open(os.path.join(args.model_dir, "README.md"), "w", encoding="utf-8") as f:
        f.write(readme_bert.render(metrics, model.cfg, log_tail, len(tok.tokens)))
    print(json.dumps({k: v for k, v in metrics.items() if not k.startswith("head_shares")},
                     indent=1))


if __name__ == "__main__":
    main()
