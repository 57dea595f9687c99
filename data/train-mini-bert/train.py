#!/usr/bin/python3
"""Train attnscope-mini-bert, deterministically given --seed:

  1. corpus: the WordNet 3.0 lines of data/train-mini/corpus.py (the attnscope-mini corpus),
     split into train / held-out by the same SHA-256 rule and the same 15 per mille; the
     held-out texts go to OUT/heldout.txt, one a line;
  2. a lower-cased WordPiece vocabulary learned on the train split (wordpiece.py) ->
     OUT/vocab.txt;
  3. masked-language-model training of a small BERT (model.py): every epoch visits the train
     lines in a seeded order; a line becomes "[CLS] A [SEP]" (token types 0) or, with
     probability --pair-prob, the pair "[CLS] A [SEP] B [SEP]" with B the next train line in
     corpus order (token types 0 for [CLS] A [SEP], 1 for B [SEP]); pairs longer than
     --positions are cut longest-first.  Rows are bucketed by length into batches of at most
     --batch-tokens padded tokens.  Each real token other than [CLS]/[SEP] is chosen with
     probability 0.15; a chosen token becomes [MASK] (80 %), a random ordinary token (10 %) or
     stays (10 %); the loss is the cross-entropy of the chosen tokens.  AdamW (no decay on
     biases and LayerNorm), linear warm-up, cosine decay to 10 %;
  4. the trained weights (state_dict with BertForMaskedLM's names) and the model settings are
     saved to --checkpoint; export.py then writes the Hugging Face folder.

Usage (from the repository root; the defaults are the shipped model's settings):
  nice -n 10 /usr/bin/python3 data/train-mini-bert/train.py --out data/models/attnscope-mini-bert \
      --checkpoint /tmp/mini-bert.pt > data/train-mini-bert/train.log 2>&1
"""

import argparse
import math
import os
import sys
import time

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.append(os.path.join(HERE, "..", "train-mini"))  # corpus.py only (model.py is ours)
import corpus  # noqa: E402  (data/train-mini/corpus.py)
import wordpiece  # noqa: E402
from model import BertForMaskedLM  # noqa: E402


def log(msg):
    print("[%s] %s" % (time.strftime("%H:%M:%S"), msg), flush=True)


def make_row(a, b, positions):
    """(ids, type_ids) of [CLS] A [SEP] or [CLS] A [SEP] B [SEP], cut longest-first."""
    a, b = list(a), (list(b) if b is not None else None)
    room = positions - (3 if b is not None else 2)
    while len(a) + (len(b) if b is not None else 0) > room:
        if b is not None and len(b) >= len(a):
            b.pop()
        else:
            a.pop()
    ids = [wordpiece.CLS] + a + [wordpiece.SEP]
    types = [0] * len(ids)
    if b is not None:
        ids += b + [wordpiece.SEP]
        types += [1] * (len(b) + 1)
    return ids, types


def epoch_rows(seqs, gen, positions, pair_prob):
    order = torch.randperm(len(seqs), generator=gen).tolist()
    pairs = (torch.rand(len(seqs), generator=gen) < pair_prob).tolist()
    rows = []
    for i in order:
        b = seqs[i + 1] if pairs[i] and i + 1 < len(seqs) else None
        rows.append(make_row(seqs[i], b, positions))
    return rows


def make_batches(rows, gen, batch_tokens, chunk=8192):
    """Lists of row indices: chunks of the epoch order sorted by length, cut so that
    rows x longest row <= batch_tokens, then shuffled."""
    batches = []
    for start in range(0, len(rows), chunk):
        part = sorted(range(start, min(start + chunk, len(rows))),
                      key=lambda i: (len(rows[i][0]), i))
        cur = []
        for i in part:
            if cur and (len(cur) + 1) * len(rows[i][0]) > batch_tokens:
                batches.append(cur)
                cur = []
            cur.append(i)
        if cur:
            batches.append(cur)
    perm = torch.randperm(len(batches), generator=gen).tolist()
    return [batches[p] for p in perm]


def collate(rows, idx):
    t = max(len(rows[i][0]) for i in idx)
    ids = torch.zeros(len(idx), t, dtype=torch.long)
    types = torch.zeros(len(idx), t, dtype=torch.long)
    real = torch.zeros(len(idx), t, dtype=torch.bool)
    for r, i in enumerate(idx):
        n = len(rows[i][0])
        ids[r, :n] = torch.tensor(rows[i][0])
        types[r, :n] = torch.tensor(rows[i][1])
        real[r, :n] = True
    return ids, types, real


def mask_tokens(ids, real, gen, vocab_size, prob=0.15):
    """BERT's 80/10/10 masking.  Returns (inputs, chosen bool mask)."""
    special = (ids == wordpiece.CLS) | (ids == wordpiece.SEP) | ~real
    chosen = (torch.rand(ids.shape, generator=gen) < prob) & ~special
    u = torch.rand(ids.shape, generator=gen)
    rand_ids = torch.randint(wordpiece.MASK + 1, vocab_size, ids.shape, generator=gen)
    inputs = ids.clone()
    inputs[chosen & (u < 0.8)] = wordpiece.MASK
    swap = chosen & (u >= 0.8) & (u < 0.9)
    inputs[swap] = rand_ids[swap]
    return inputs, chosen


def lr_at(step, steps, warmup, peak):
    if step < warmup:
        return peak * (step + 1) / warmup
    x = (step - warmup) / max(1, steps - warmup)
    return peak * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * x)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default="data/models/attnscope-mini-bert")
    ap.add_argument("--checkpoint", required=True)
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--heldout-per-mille", type=int, default=15)
    ap.add_argument("--vocab-size", type=int, default=6000)
    ap.add_argument("--positions", type=int, default=128)
    ap.add_argument("--hidden", type=int, default=128)
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--intermediate", type=int, default=512)
    ap.add_argument("--dropout", type=float, default=0.1)
    ap.add_argument("--pair-prob", type=float, default=0.5)
    ap.add_argument("--steps", type=int, default=2200)
    ap.add_argument("--batch-tokens", type=int, default=2048)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--warmup", type=int, default=200)
    ap.add_argument("--weight-decay", type=float, default=0.01)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--log-every", type=int, default=100)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    t_start = time.time()
    log("args: %s" % vars(args))

    lines = corpus.read_wordnet()
    train_lines, held = corpus.split(lines, args.heldout_per_mille)
    log("corpus: %d lines; train %d, held-out %d" % (len(lines), len(train_lines), len(held)))
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "heldout.txt"), "w", encoding="utf-8") as f:
        f.writelines(t + "\n" for t in held)
    tokens = wordpiece.train(train_lines, args.vocab_size, log=log)
    wordpiece.write_vocab(tokens, os.path.join(args.out, "vocab.txt"))
    tok = wordpiece.Tokenizer(tokens)
    seqs = [tok.encode(t) for t in train_lines]
    n_unk = sum(s.count(wordpiece.UNK) for s in seqs)
    log("wordpiece: vocab %d; %d train tokens (%d [UNK])"
        % (len(tokens), sum(map(len, seqs)), n_unk))

    model = BertForMaskedLM(len(tokens), args.positions, args.hidden, args.layers, args.heads,
                            args.intermediate, dropout=args.dropout)
    log("model: %d parameters" % sum(p.numel() for p in model.parameters()))
    decay = [p for n, p in model.named_parameters()
             if not (n.endswith(".bias") or "LayerNorm" in n)]
    no_decay = [p for n, p in model.named_parameters()
                if n.endswith(".bias") or "LayerNorm" in n]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": args.weight_decay},
                             {"params": no_decay, "weight_decay": 0.0}], lr=args.lr)
    gen = torch.Generator().manual_seed(args.seed)
    step, epoch, loss_sum, n_sum, t0 = 0, 0, 0.0, 0, time.time()
    model.train()
    while step < args.steps:
        epoch += 1
        rows = epoch_rows(seqs, gen, args.positions, args.pair_prob)
        batches = make_batches(rows, gen, args.batch_tokens)
        log("epoch %d: %d rows, %d batches" % (epoch, len(rows), len(batches)))
        for idx in batches:
            if step >= args.steps:
                break
            ids, types, real = collate(rows, idx)
            inputs, chosen = mask_tokens(ids, real, gen, len(tokens))
            if not chosen.any():
                continue
            for g in opt.param_groups:
                g["lr"] = lr_at(step, args.steps, args.warmup, args.lr)
            h, _ = model.encode(inputs, types, real)
            logits = model.mlm_logits(h[chosen])
            loss = F.cross_entropy(logits, ids[chosen])
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            step += 1
            loss_sum += loss.item()
            n_sum += 1
            if step % args.log_every == 0:
                el = time.time() - t0
                log("step %d/%d epoch %d loss %.4f lr %.2e  %.0f s elapsed, %.3f s/step, "
                    "eta %.1f min" % (step, args.steps, epoch, loss_sum / n_sum,
                                      opt.param_groups[0]["lr"], el, el / step,
                                      el / step * (args.steps - step) / 60))
                loss_sum, n_sum = 0.0, 0
    model.eval()
    torch.save({"state_dict": model.state_dict(), "config": model.config, "args": vars(args),
                "train_seconds": time.time() - t0, "threads": args.threads},
               args.checkpoint)
    log("saved %s; training %.1f min, total wall time %.1f min, %d thread(s)"
        % (args.checkpoint, (time.time() - t0) / 60, (time.time() - t_start) / 60,
           args.threads))


if __name__ == "__main__":
    main()
