#!/usr/bin/python3
"""Measure a model folder written by make-mini-model.py on its held-out split and write
metrics.json (and, with --readme, README.md) into it.  Everything is computed from the shipped
files (tf_model.h5 read back with h5py, vocab.json + merges.txt), not from training state.

Definitions (the README repeats them):
  perplexity  exp(sum over held-out lines and positions t = 0..T-2 of -log p(x[t+1] | x[0..t])
              / number of predicted tokens); every line starts fresh at position 0 with no
              BOS, its first token is not predicted; log-softmax of the float32 logits in float64.
  bigram      interpolated Kneser-Ney bigram over the same tokens, trained on the train split
              (bigrams within lines only), discount D = 0.75, continuation distribution
              add-one smoothed over the vocabulary:
                P(b|a) = max(c(a,b) - D, 0)/c(a) + D·N1+(a·)/c(a) · Pc(b),
                Pc(b) = (N1+(·b) + 1) / (N1+(··) + V);  P(b|a) = Pc(b) when c(a) = 0.
  head stats  per line P = attention [T][T] of one head; previous = mean over rows i >= 1 of
              P[i][i-1]; first = mean over rows i >= 1 of P[i][0]; averaged over lines with
              every line counting once (as core/head-stats.c).
  greedy      argmax continuation of the first words of five held-out lines, at most N tokens,
              ending after <|endoftext|>.
  head use    for the strongest previous-token head: held-out perplexity with that head's output
              removed (its rows of attn.c_proj set to zero), and "copy perplexity", the
              perplexity of the repeated copy of each held-out text a in "a <eot> b <eot> a
              <eot>" (b the next held-out line; rows that fit the context), with and without
              the head.  When training initialised a previous-token head
              (--init-previous-token-head), also that head's previous-token share at
              initialisation (the initial model rebuilt from the training command).  And how
              often the most likely token after "text <eot>" is the text's own first token.
"""

import argparse
import copy
import json
import math
import os
import sys
from collections import Counter

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bpe  # noqa: E402
import corpus  # noqa: E402
import export  # noqa: E402
import readme  # noqa: E402


def load(folder):
    with open(folder + "/config.json", encoding="utf-8") as f:
        config = json.load(f)
    with open(folder + "/vocab.json", encoding="utf-8") as f:
        vocab = json.load(f)
    with open(folder + "/merges.txt", encoding="utf-8") as f:
        merges = [tuple(l.rstrip("\n").split(" ")) for l in f.readlines()[1:] if l.strip()]
    model = export.read_h5(folder + "/tf_model.h5", config)
    return config, model, bpe.Encoder(vocab, merges), vocab


def read_lines(path):
    with open(path, encoding="utf-8") as f:
        return [l.rstrip("\n") for l in f if l.strip()]


SUBSET_LINES = 300  # the first lines of heldout.txt, for tests/core/test-mini-model.c


@torch.no_grad()
def model_scores(model, seqs):
    """Total NLL, predicted-token count, per-head previous/first shares [L][H] (line means) over
    all lines and over the first SUBSET_LINES lines."""
    nll, count = 0.0, 0
    prev_sum = first_sum = None
    subset = None
    for n, s in enumerate(seqs):
        if n == SUBSET_LINES:
            subset = ((prev_sum / n).tolist(), (first_sum / n).tolist())
        ids = torch.tensor([s])
        logits, attns = model(ids, want_attn=True)
        logp = torch.log_softmax(logits[0, :-1].double(), dim=-1)
        nll -= logp.gather(1, ids[0, 1:, None]).sum().item()
        count += len(s) - 1
        p = torch.stack([a[0] for a in attns]).double()  # [L][H][T][T]
        T = len(s)
        rows = torch.arange(1, T)
        prev = p[:, :, rows, rows - 1].mean(-1)  # [L][H]
        first = p[:, :, rows, 0].mean(-1)
        prev_sum = prev if prev_sum is None else prev_sum + prev
        first_sum = first if first_sum is None else first_sum + first
    return (nll, count, (prev_sum / len(seqs)).tolist(), (first_sum / len(seqs)).tolist(),
            subset)


def without_head(model, layer, head):
    """A copy of MODEL whose head LAYER/HEAD adds nothing to the residual stream."""
    out = copy.deepcopy(model)
    hd = out.config["n_embd"] // out.config["n_head"]
    with torch.no_grad():
        out.blocks[layer].attn_proj_w[head * hd:(head + 1) * hd] = 0
    return out


@torch.no_grad()
def copy_perplexity(model, seqs, eot, n_ctx):
    """Perplexity of the repeated copy's tokens in rows "a <eot> b <eot> a <eot>" (a a held-out
    line, b the next one)."""
    nll, count = 0.0, 0
    for n, s in enumerate(seqs):
        first = s + [eot] + seqs[(n + 1) % len(seqs)] + [eot]
        row = first + s + [eot]
        if len(row) > n_ctx:
            continue
        ids = torch.tensor([row])
        logp = torch.log_softmax(model(ids)[0].double(), dim=-1)
        targets = torch.arange(len(first), len(first) + len(s))
        nll -= logp[targets - 1, ids[0, targets]].sum().item()
        count += len(s)
    return math.exp(nll / count)


@torch.no_grad()
def restart_share(model, seqs, eot):
    """Share of texts after which (as "text <eot>") the most likely next token is the text's
    own first token: how often the model expects a finished text to start again."""
    hits = 0
    for s in seqs:
        logits = model(torch.tensor([s + [eot]]))
        hits += int(logits[0, -1].argmax()) == s[0]
    return hits / len(seqs)


def head_use(model, held_seqs, best_prev, config, eot, train_command):
    layer, head = best_prev["layer"], best_prev["head"]
    ablated = without_head(model, layer, head)
    a_nll, a_count = model_scores(ablated, held_seqs)[:2]
    use = {"layer": layer, "head": head,
           "heldout_perplexity_without_head": math.exp(a_nll / a_count),
           "copy_perplexity": copy_perplexity(model, held_seqs, eot, config["n_positions"]),
           "copy_perplexity_without_head": copy_perplexity(ablated, held_seqs, eot,
                                                           config["n_positions"]),
           "restart_after_end": restart_share(model, held_seqs, eot),
           "initialised": None}
    if train_command:
        script = readme.training_script()
        args = readme.train_args(train_command)
        planted = script.initialised_head(args)
        if planted:
            prev = model_scores(script.initial_model(args).eval(), held_seqs)[2]
            use["initialised"] = {"layer": planted[0], "head": planted[1], "gain": planted[2],
                                  "previous_at_initialisation": prev[planted[0]][planted[1]]}
    return use


def bigram_nll(train_seqs, held_seqs, V, D=0.75):
    c_ab = Counter()
    for s in train_seqs:
        c_ab.update(zip(s, s[1:]))
    c_a = Counter()
    n1_after = Counter()  # N1+(a.)
    n1_before = Counter()  # N1+(.b)
    for (a, b), c in c_ab.items():
        c_a[a] += c
        n1_after[a] += 1
        n1_before[b] += 1
    n1_all = len(c_ab)
    nll, count = 0.0, 0
    for s in held_seqs:
        for a, b in zip(s, s[1:]):
            pc = (n1_before[b] + 1) / (n1_all + V)
            if c_a[a] == 0:
                p = pc
            else:
                p = max(c_ab[(a, b)] - D, 0) / c_a[a] + D * n1_after[a] / c_a[a] * pc
            nll -= math.log(p)
            count += 1
    return nll, count


@torch.no_grad()
def greedy(model, enc, inv, prompt, steps, n_ctx, eot):
    """Argmax continuation of PROMPT: at most STEPS tokens, ending after <|endoftext|> (where
    Hugging Face's generate() stops too: the text is over)."""
    ids = enc.encode(prompt)
    out = []
    for _ in range(steps):
        if len(ids) >= n_ctx:
            break
        logits = model(torch.tensor([ids]))
        nxt = int(logits[0, -1].argmax())
        ids.append(nxt)
        out.append(nxt)
        if nxt == eot:
            break
    text = bytearray()
    decoder = {ch: b for b, ch in bpe.BYTE_TABLE}
    for i in out:
        text += bytes(decoder[c] for c in inv[i])
    return text.decode("utf-8", errors="replace")


def best(table):
    L, H = len(table), len(table[0])
    l, h = max(((l, h) for l in range(L) for h in range(H)), key=lambda x: table[x[0]][x[1]])
    return {"layer": l, "head": h, "value": table[l][h]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folder")
    ap.add_argument("--heldout-per-mille", type=int, default=15)
    ap.add_argument("--steps", type=int, default=12)
    ap.add_argument("--train-log", help="with this, also write README.md (readme.py)")
    ap.add_argument("--train-command", default="", help="the training command, for the README")
    args = ap.parse_args()
    torch.set_num_threads(1)

    config, model, enc, vocab = load(args.folder)
    inv = {i: s for s, i in vocab.items()}
    held = read_lines(args.folder + "/heldout.txt")
    held_seqs = [enc.encode(t) for t in held]
    nll, count, prev, first, subset = model_scores(model, held_seqs)
    train_lines, _ = corpus.split(corpus.read_wordnet(), args.heldout_per_mille)
    train_seqs = [enc.encode(t) for t in train_lines]
    b_nll, b_count = bigram_nll(train_seqs, held_seqs, len(vocab))
    assert b_count == count
    prompts = []
    for t in held[:5]:
        words = t.split(" ")
        prompt = " ".join(words[:max(2, min(4, len(words) // 2))])
        prompts.append({"prompt": prompt,
                        "continuation": greedy(model, enc, inv, prompt, args.steps,
                                               config["n_positions"], vocab[bpe.EOT])})
    metrics = {
        "n_params": sum(p.numel() for p in model.parameters()),
        "heldout_lines": len(held),
        "longest_text_tokens": max(len(s) for s in train_seqs + held_seqs),
        "heldout_predicted_tokens": count,
        "heldout_mean_nll": nll / count,
        "heldout_perplexity": math.exp(nll / count),
        "bigram_kn_perplexity": math.exp(b_nll / b_count),
        "head_previous": prev,
        "head_first": first,
        "best_previous_head": best(prev),
        "best_first_head": best(first),
        "subset_lines": SUBSET_LINES,
        "subset_head_previous": subset[0],
        "subset_head_first": subset[1],
        "previous_head_use": head_use(model, held_seqs, best(prev), config, vocab[bpe.EOT],
                                      args.train_command),
        "greedy_steps": args.steps,
        "greedy": prompts,
    }
    with open(args.folder + "/metrics.json", "w", encoding="utf-8") as f:
        json.dump(metrics, f, indent=2, ensure_ascii=False)
        f.write("\n")
    summary = {k: v for k, v in metrics.items() if not k.startswith(("head_", "subset_head_"))}
    print(json.dumps(summary, indent=2, ensure_ascii=False))
    if args.train_log:
        size = sum(os.path.getsize(os.path.join(args.folder, n)) for n in os.listdir(args.folder))
        eval_command = ("nice -n 10 /usr/bin/python3 data/train-mini/evaluate.py %s --train-log %s "
                        "--train-command \"<the training command above>\""
                        % (args.folder, args.train_log))
        readme.write(args.folder, metrics, config, readme.parse_log(args.train_log),
                     args.train_command, eval_command, size)
    for name, table in (("previous", prev), ("first", first)):
        print(name)
        for l, row in enumerate(table):
            print("  layer %d: %s" % (l, " ".join("%.3f" % v for v in row)))


if __name__ == "__main__":
    main()
