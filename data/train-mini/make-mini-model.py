#!/usr/bin/python3
"""Build data/models/attnscope-mini from scratch, deterministically given --seed:

  1. corpus: WordNet 3.0 glosses and example sentences (corpus.py), deduplicated, split into
     train / held-out (held-out written to OUT/heldout.txt, one text per line);
  2. byte-level BPE vocabulary learned on the train split (bpe.py) -> vocab.json, merges.txt;
  3. GPT-2 training (model.py) with AdamW, warm-up + cosine learning rate; by default every
     text is its own length-bucketed row (--pack 0), or, with --pack 1, texts are joined by
     <|endoftext|> into rows of n_ctx tokens that each start at a text's start (GPT-2's way);
     by default the position embeddings are fixed scaled sinusoids (--position-embeddings,
     --position-scale; EXPERIMENTS.md says why);
  4. export to the Hugging Face GPT-2 layout (export.py) -> config.json, tf_model.h5, ...

Evaluation (perplexity, bigram baseline, head statistics, greedy continuations, README) is
evaluate.py, run afterwards on the written folder.

Usage (from the repository root; the defaults are the shipped model's settings):
  nice -n 10 /usr/bin/python3 data/train-mini/make-mini-model.py --out data/models/attnscope-mini \
      --checkpoint /tmp/mini-ckpt.pt > data/train-mini/train.log 2>&1
  nice -n 10 /usr/bin/python3 data/train-mini/evaluate.py data/models/attnscope-mini \
      --train-log data/train-mini/train.log --train-command "<the command above>"
"""

import argparse
import math
import os
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bpe  # noqa: E402
import corpus  # noqa: E402
import export  # noqa: E402
from model import Gpt2  # noqa: E402


def log(msg):
    print("[%s] %s" % (time.strftime("%H:%M:%S"), msg), flush=True)


def make_batches(lengths, gen, tokens_per_batch, chunk=8192):
    """One epoch of batches (lists of line indices): a seeded permutation, cut into chunks,
    each chunk sorted by length and cut so that rows x longest row <= tokens_per_batch, then
    all batches shuffled with the same generator."""
    order = torch.randperm(len(lengths), generator=gen).tolist()
    batches = []
    for start in range(0, len(order), chunk):
        part = sorted(order[start:start + chunk], key=lambda i: (lengths[i], i))
        cur = []
        for i in part:
            if cur and (len(cur) + 1) * lengths[i] > tokens_per_batch:
                batches.append(cur)
                cur = []
            cur.append(i)
        if cur:
            batches.append(cur)
    perm = torch.randperm(len(batches), generator=gen).tolist()
    return [batches[p] for p in perm]


def make_packed_batches(seqs, gen, n_ctx, rows, eot):
    """One epoch of batches in GPT-2's way: the texts in a seeded order, each followed by
    <|endoftext|>, packed into rows of at most n_ctx tokens (a row always starts at the start of
    a text and never splits one), ROWS rows per batch.  Returns a list of batches, each a list of
    rows (lists of ids)."""
    order = torch.randperm(len(seqs), generator=gen).tolist()
    packed, cur = [], []
    for i in order:
        piece = seqs[i] + [eot]
        if len(cur) + len(seqs[i]) > n_ctx:  # the closing <|endoftext|> may be dropped
            packed.append(cur)
            cur = []
        cur.extend(piece[:n_ctx - len(cur)])
    if cur:
        packed.append(cur)
    return [packed[b:b + rows] for b in range(0, len(packed), rows)]


def make_rows(seqs, gen, args):
    """One epoch of unpacked rows, one per text (the text, then <|endoftext|> with
    --end-token 1).  With probability --repeat a row shows its text again after another,
    seeded-random text ("a <eot> b <eot> a <eot>"; with --repeat-between 0: "a <eot> a <eot>"):
    the repeated copy can be predicted by finding each token's earlier occurrence and reading
    what followed it, which needs a head that attends to the previous token (the induction
    circuit of Olsson et al. 2022).  With a text in between, what follows a first
    <|endoftext|> is always a new text, as in GPT-2's packed rows.  Rows are cut at n_ctx."""
    end = [args.vocab_size - 1] if args.end_token else []
    coins = torch.rand(len(seqs), generator=gen).tolist()
    partners = torch.randint(len(seqs), (len(seqs),), generator=gen).tolist()
    rows = []
    for s, coin, partner in zip(seqs, coins, partners):
        row = s + end
        if coin < args.repeat:
            between = seqs[partner] + end if args.repeat_between else []
            row = row + between + row
        rows.append(row[:args.n_ctx])
    return rows


def collate(rows):
    """Right-padded ids [B][T] and targets [B][T-1] (-100 where padded)."""
    T = max(len(r) for r in rows)
    ids = torch.zeros(len(rows), T, dtype=torch.long)
    tgt = torch.full((len(rows), T - 1), -100, dtype=torch.long)
    for n, r in enumerate(rows):
        s = torch.tensor(r, dtype=torch.long)
        ids[n, :len(s)] = s
        tgt[n, :len(s) - 1] = s[1:]
    return ids, tgt


def lr_at(step, steps, peak, warmup):
    if step < warmup:
        return peak * (step + 1) / warmup
    t = (step - warmup) / max(1, steps - warmup)
    return peak * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * t)))


def initial_model(args):
    """The model as training starts: seeded GPT-2 initialisation, then the fixed positions and
    the initialised previous-token head when asked for (evaluate.py rebuilds it to report what
    training made of that head)."""
    torch.manual_seed(args.seed)
    model = Gpt2(args.vocab_size, args.n_ctx, args.n_embd, args.n_layer, args.n_head)
    if args.position_embeddings == "sinusoidal":
        model.fix_sinusoidal_positions(args.position_scale, args.position_frequency_scale)
    planted = initialised_head(args)
    if planted:
        model.init_previous_token_head(*planted, args.position_frequency_scale)
    return model


def initialised_head(args):
    """(layer, head, gain) of --init-previous-token-head, or None."""
    if args.position_embeddings != "sinusoidal" or not args.init_previous_token_head:
        return None
    layer, head, gain = args.init_previous_token_head.split(",")
    return int(layer), int(head), float(gain)


def train(args, seqs):
    model = initial_model(args)
    trained = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
    decay = [p for n, p in trained if p.dim() == 2]
    no_decay = [p for n, p in trained if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": args.weight_decay},
                             {"params": no_decay, "weight_decay": 0.0}],
                            lr=args.lr, betas=(0.9, 0.98), eps=1e-8)
    gen = torch.Generator().manual_seed(args.seed)
    batches, epoch, step, t0 = [], 0, 0, time.time()
    run_loss, run_n = 0.0, 0
    ckpt = args.checkpoint
    if ckpt and os.path.exists(ckpt):
        state = torch.load(ckpt)
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["opt"])
        gen.set_state(state["gen"])
        batches, epoch, step = state["batches"], state["epoch"], state["step"]
        t0 -= state["elapsed"]
        log("resumed from %s at step %d" % (ckpt, step))
    model.train()
    while step < args.steps:
        if not batches:
            if args.pack:
                batches = make_packed_batches(seqs, gen, args.n_ctx,
                                              args.batch_tokens // args.n_ctx,
                                              args.vocab_size - 1)
            else:
                rows = make_rows(seqs, gen, args)
                batches = [[rows[i] for i in b]
                           for b in make_batches([len(r) for r in rows], gen,
                                                 args.batch_tokens)]
            epoch += 1
            log("epoch %d: %d batches" % (epoch, len(batches)))
        ids, tgt = collate(batches.pop(0))
        for g in opt.param_groups:
            g["lr"] = lr_at(step, args.steps, args.lr, args.warmup)
        logits = model(ids)[:, :-1]
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), tgt.reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        step += 1
        run_loss += loss.item()
        run_n += 1
        if step % args.log_every == 0 or step == args.steps:
            el = time.time() - t0
            log("step %d/%d epoch %d loss %.4f lr %.2e  %.1f s elapsed, %.3f s/step, eta %.1f min"
                % (step, args.steps, epoch, run_loss / run_n, opt.param_groups[0]["lr"], el,
                   el / step, el / step * (args.steps - step) / 60))
            run_loss, run_n = 0.0, 0
        if ckpt and step % args.checkpoint_every == 0:
            torch.save({"model": model.state_dict(), "opt": opt.state_dict(),
                        "gen": gen.get_state(),
                        "batches": batches, "epoch": epoch, "step": step,
                        "elapsed": time.time() - t0}, ckpt + ".tmp")
            os.replace(ckpt + ".tmp", ckpt)
    model.eval()
    return model


def build_parser():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default="data/models/attnscope-mini")
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--heldout-per-mille", type=int, default=15)
    ap.add_argument("--vocab-size", type=int, default=6000)
    ap.add_argument("--n-ctx", type=int, default=128)
    ap.add_argument("--n-embd", type=int, default=128)
    ap.add_argument("--n-layer", type=int, default=4)
    ap.add_argument("--n-head", type=int, default=8)
    ap.add_argument("--steps", type=int, default=10000)
    ap.add_argument("--position-embeddings", choices=("learned", "sinusoidal"),
                    default="sinusoidal",
                    help="learned: GPT-2's trained wpe; sinusoidal: wpe fixed to scaled sinusoids")
    ap.add_argument("--position-scale", type=float, default=0.25,
                    help="amplitude of the fixed sinusoids (each row has norm scale * sqrt(D / 2))")
    ap.add_argument("--position-frequency-scale", type=float, default=2.5,
                    help="multiplies every sinusoid's frequency (1: the Transformer's; 2.5: the "
                    "fastest pair turns 2.5 radians per position, so neighbours differ more)")
    ap.add_argument("--init-previous-token-head", default="0,0,1.2",
                    help="LAYER,HEAD,GAIN: start that head as a previous-token head (mimetic "
                    "initialisation; needs sinusoidal positions; empty: GPT-2's random init)")
    ap.add_argument("--repeat", type=float, default=0.5,
                    help="with --pack 0: fraction of rows that show their text twice")
    ap.add_argument("--repeat-between", type=int, default=1,
                    help="1: another text between the two copies; 0: the copies back to back")
    ap.add_argument("--pack", type=int, default=0,
                    help="1: texts joined by <|endoftext|> into rows of n_ctx tokens (GPT-2's "
                    "way); 0: every text its own row")
    ap.add_argument("--end-token", type=int, default=1,
                    help="with --pack 0: 1 ends every row with <|endoftext|> so that the model "
                    "learns where a text ends")
    ap.add_argument("--batch-tokens", type=int, default=1024,
                    help="tokens per batch incl. padding (packed: rows = batch_tokens / n_ctx)")
    ap.add_argument("--lr", type=float, default=2.5e-3)
    ap.add_argument("--warmup", type=int, default=200)
    ap.add_argument("--weight-decay", type=float, default=0.1)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--log-every", type=int, default=50)
    ap.add_argument("--checkpoint", default="",
                    help="save the full training state here every --checkpoint-every steps and "
                    "resume from it when it exists")
    ap.add_argument("--checkpoint-every", type=int, default=100)
    return ap


def check_args(ap, args):
    """Refuse bad values with a message naming the option, before any work is done."""
    if not 0 <= args.repeat <= 1:
        ap.error("--repeat must be a fraction in [0, 1], not %g" % args.repeat)
    try:
        planted = initialised_head(args)
    except ValueError:
        ap.error("--init-previous-token-head must be LAYER,HEAD,GAIN (e.g. 0,0,1.2), not %r"
                 % args.init_previous_token_head)
    if planted and not (0 <= planted[0] < args.n_layer and 0 <= planted[1] < args.n_head):
        ap.error("--init-previous-token-head %s: no such layer/head in a %d x %d model"
                 % (args.init_previous_token_head, args.n_layer, args.n_head))


def main():
    ap = build_parser()
    args = ap.parse_args()
    check_args(ap, args)

    torch.set_num_threads(args.threads)
    torch.use_deterministic_algorithms(True)
    os.makedirs(args.out, exist_ok=True)
    t_start = time.time()

    lines = corpus.read_wordnet()
    train_lines, held = corpus.split(lines, args.heldout_per_mille)
    log("corpus: %d lines (%d chars); train %d, held-out %d"
        % (len(lines), sum(len(t) for t in lines), len(train_lines), len(held)))

    vocab, merges = bpe.learn(train_lines, args.vocab_size, log=log)
    bpe.write(vocab, merges, args.out + "/vocab.json", args.out + "/merges.txt")
    assert vocab[bpe.EOT] == args.vocab_size - 1
    enc = bpe.Encoder(vocab, merges)
    seqs = [enc.encode(t)[:args.n_ctx] for t in train_lines]
    seqs = [s for s in seqs if len(s) >= 2]
    held = [t for t in held if 2 <= len(enc.encode(t)) <= args.n_ctx]
    with open(args.out + "/heldout.txt", "w", encoding="utf-8") as f:
        f.write("".join(t + "\n" for t in held))
    log("bpe: vocab %d, %d merges; %d train tokens in %d lines; %d held-out lines"
        % (len(vocab), len(merges), sum(map(len, seqs)), len(seqs), len(held)))

    model = train(args, seqs)
    export.write_folder(model, args.out, vocab[bpe.EOT], dropout=0.0)
    log("wrote %s; total wall time %.1f min" % (args.out, (time.time() - t_start) / 60))


if __name__ == "__main__":
    main()
