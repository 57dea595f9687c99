#!/usr/bin/python3
"""train.py — trains attnscope-mini-en-de, a small Marian-architecture English->German model, on
the gettext corpus of corpus.py, and exports it in the exact Hugging Face layout of
Helsinki-NLP/opus-mt-en-de.

    nice -n 10 /usr/bin/python3 train.py [--out ../models/attnscope-mini-en-de] [--work DIR]

Steps (all seeded; one thread, so a rerun on the same corpus gives the same model):
  1. corpus.py -> WORK/corpus/{train,heldout}.{en,de} (skipped when present)
  2. spm_train (Debian's sentencepiece) on train.en and train.de -> source.spm, target.spm
     (unigram, SPM_VOCAB pieces each); vocab.json joins them (marian_tokenizer.build_vocab)
  3. MarianTokenizer ids (source side; target side as text_target), pairs longer than MAX_TOKENS
     dropped; labels = target ids + </s>, decoder input = [pad] + labels[:-1] (shift_tokens_right)
  4. the Marian model of tests/reference/marian_model.py (the reference's own maths), dropout
     0.1, label smoothing 0.1, Adam (0.9, 0.98), linear warm-up then inverse square root decay,
     token-bucketed batches; final_logits_bias trained (Marian's decoder_ff_logit_out_b), the pad
     row of the embedding kept at zero (padding_idx, as HF's nn.Embedding and the converter)
  5. export with marian_layout.write_model (tf_model.h5 only: the shipped weight file), then the
     exported folder is read back by the reference's reader and must reproduce the trained
     model's logits on held-out pairs (max |diff| printed; the script fails above 1e-5)
Everything printed goes to WORK/train.log too.
"""

import argparse
import json
import math
import os
import random
import shutil
import subprocess
import sys
import time

import numpy as np
import torch
from torch.nn import functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "reference"))
import marian_layout  # noqa: E402
import marian_model  # noqa: E402
import marian_tokenizer  # noqa: E402

ARCH = dict(layers_enc=3, layers_dec=3, heads=4, dim=192, ffn=768, positions=128)
SPM_VOCAB = 2000
MAX_TOKENS = 48
SEED = 1234


class Log:
    def __init__(self, path):
        self.f = open(path, "a", encoding="utf-8")

    def __call__(self, msg):
        line = "[%s] %s" % (time.strftime("%H:%M:%S"), msg)
        print(line, flush=True)
        self.f.write(line + "\n")
        self.f.flush()


def read_lines(path):
    with open(path, encoding="utf-8") as f:
        return [x.rstrip("\n") for x in f]


def prepare(work, log):
    corpus = os.path.join(work, "corpus")
    if not os.path.exists(os.path.join(corpus, "train.en")):
        subprocess.run([sys.executable, os.path.join(HERE, "corpus.py"), corpus], check=True)
    spm_dir = os.path.join(work, "spm")
    os.makedirs(spm_dir, exist_ok=True)
    for lang in ("en", "de"):
        marian_tokenizer.train_spm(os.path.join(spm_dir, lang),
                                   os.path.join(corpus, "train.%s" % lang), SPM_VOCAB)
    src, tgt = os.path.join(spm_dir, "en.model"), os.path.join(spm_dir, "de.model")
    vocab = marian_tokenizer.build_vocab(src, tgt)
    log("spm: %d + %d pieces, joint vocab.json %d ids" % (SPM_VOCAB, SPM_VOCAB, len(vocab)))
    return corpus, src, tgt, vocab


def encode_pairs(tok, en, de):
    out = []
    for e, d in zip(en, de):
        s, t = tok.encode(e), tok.encode(d, target=True)
        if len(s) <= MAX_TOKENS and len(t) <= MAX_TOKENS:
            out.append((s, t))
    return out


def batches(pairs, max_tokens, rng):
    """Length-sorted buckets of at most MAX_TOKENS (padded source+target tokens), shuffled."""
    order = sorted(range(len(pairs)), key=lambda i: (len(pairs[i][0]), len(pairs[i][1]),
                                                     rng.random()))
    out, cur, longest = [], [], 0
    for i in order:
        n = len(pairs[i][0]) + len(pairs[i][1])
        if cur and max(longest, n) * (len(cur) + 1) > max_tokens:
            out.append(cur)
            cur, longest = [], 0
        cur.append(i)
        longest = max(longest, n)
    if cur:
        out.append(cur)
    rng.shuffle(out)
    return out


def collate(pairs, idx, pad):
    s_len = max(len(pairs[i][0]) for i in idx)
    t_len = max(len(pairs[i][1]) for i in idx)
    src = torch.full((len(idx), s_len), pad, dtype=torch.long)
    labels = torch.full((len(idx), t_len), -100, dtype=torch.long)
    dec_in = torch.full((len(idx), t_len), pad, dtype=torch.long)
    for r, i in enumerate(idx):
        s, t = pairs[i]
        src[r, :len(s)] = torch.tensor(s)
        labels[r, :len(t)] = torch.tensor(t)
        dec_in[r, 1:len(t)] = torch.tensor(t[:-1])  # [pad] + labels[:-1]
    return src, src != pad, dec_in, labels


def loss_on(model, batch, smoothing):
    src, mask, dec_in, labels = batch
    enc, _, _ = model.encode(src, mask)
    logits = model.decode(dec_in, enc, mask)["logits"]
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), labels.reshape(-1),
                           ignore_index=-100, label_smoothing=smoothing)


def make_model(cfg):
    model = marian_model.Marian(cfg, dropout=0.1)
    pad = cfg["pad_token_id"]
    model.model.shared = torch.nn.Embedding(cfg["vocab_size"], cfg["d_model"], padding_idx=pad)
    torch.nn.init.normal_(model.model.shared.weight, std=cfg["d_model"] ** -0.5)
    with torch.no_grad():
        model.model.shared.weight[pad] = 0
    del model._buffers["final_logits_bias"]
    model.final_logits_bias = torch.nn.Parameter(torch.zeros(1, cfg["vocab_size"]))
    for name, p in model.named_parameters():
        if p.dim() == 2 and "embed" not in name and "shared" not in name:
            torch.nn.init.xavier_uniform_(p)
    model.set_sinusoids(marian_layout.sinusoid_table(cfg["max_position_embeddings"],
                                                     cfg["d_model"]))
    return model


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.join(HERE, "..", "models", "attnscope-mini-en-de"))
    ap.add_argument("--work", default="/tmp/attnscope-mini-en-de")
    ap.add_argument("--steps", type=int, default=1400)
    ap.add_argument("--batch-tokens", type=int, default=3000)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--warmup", type=int, default=300)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--minutes", type=float, default=None,
                    help="stop training after this many minutes of wall time (the steps done "
                         "are logged, so --steps reproduces the run)")
    ap.add_argument("--init-from", default=None,
                    help="continue from an exported folder: its weights, .spm models and "
                         "vocab.json (the optimizer starts afresh)")
    a = ap.parse_args(argv)
    os.makedirs(a.work, exist_ok=True)
    log = Log(os.path.join(a.work, "train.log"))
    torch.set_num_threads(a.threads)
    torch.manual_seed(SEED)
    rng = random.Random(SEED)
    t0 = time.time()
    log("train.py %s; torch %s, %d thread(s)" % (" ".join(sys.argv[1:]), torch.__version__,
                                                 torch.get_num_threads()))
    if a.init_from:
        init = os.path.join(a.work, "init")  # a copy: --out may be the same folder
        shutil.rmtree(init, ignore_errors=True)
        shutil.copytree(a.init_from, init)
        corpus = os.path.join(a.work, "corpus")
        spm_src, spm_tgt = os.path.join(init, "source.spm"), os.path.join(init, "target.spm")
        with open(os.path.join(init, "vocab.json"), encoding="utf-8") as f:
            vocab = json.load(f)
        log("continuing from %s (vocab.json %d ids)" % (a.init_from, len(vocab)))
    else:
        corpus, spm_src, spm_tgt, vocab = prepare(a.work, log)
    cfg = marian_layout.make_config(len(vocab), ARCH["layers_enc"], ARCH["layers_dec"],
                                    ARCH["heads"], ARCH["dim"], ARCH["ffn"], ARCH["positions"])
    stage = os.path.join(a.work, "stage")
    marian_layout.write_model(stage, cfg, marian_layout.random_weights(cfg, 0.02, 0), spm_src,
                              spm_tgt, vocab, h5=False)
    tok = marian_tokenizer.MarianTokenizer(stage)
    train = encode_pairs(tok, read_lines(os.path.join(corpus, "train.en")),
                         read_lines(os.path.join(corpus, "train.de")))
    held = encode_pairs(tok, read_lines(os.path.join(corpus, "heldout.en")),
                        read_lines(os.path.join(corpus, "heldout.de")))
    ntok = sum(len(s) + len(t) for s, t in train)
    log("pairs: %d train (%d tokens), %d held-out, after the %d-token limit"
        % (len(train), ntok, len(held), MAX_TOKENS))
    model = make_model(cfg)
    if a.init_from:
        model.load_numpy(marian_layout.read_tf_h5(os.path.join(init, "tf_model.h5"), cfg))
    nparam = sum(p.numel() for p in model.parameters() if p.requires_grad)
    log("model: %s, vocab %d, %d trainable parameters" % (ARCH, len(vocab), nparam))
    opt = torch.optim.Adam(model.parameters(), lr=a.lr, betas=(0.9, 0.98), eps=1e-9)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min((s + 1) / a.warmup, math.sqrt(a.warmup / (s + 1))))
    pad = cfg["pad_token_id"]
    held_batches = [collate(held, b, pad) for b in batches(held, 4000, random.Random(0))]
    step, epoch, seen = 0, 0, 0
    while step < a.steps:
        epoch += 1
        for b in batches(train, a.batch_tokens, rng):
            model.train()
            loss = loss_on(model, collate(train, b, pad), 0.1)
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
            with torch.no_grad():
                model.model.shared.weight[pad] = 0
            step += 1
            seen += sum(len(train[i][0]) + len(train[i][1]) for i in b)
            if step % 200 == 0 or step == a.steps:
                model.eval()
                with torch.no_grad():
                    hl = np.mean([float(loss_on(model, hb, 0.0)) for hb in held_batches])
                log("step %d epoch %d loss %.3f held-out %.3f (ppl %.1f) lr %.2e %.0f tok/s %.0fs"
                    % (step, epoch, float(loss), hl, math.exp(hl), sched.get_last_lr()[0],
                       seen / (time.time() - t0), time.time() - t0))
            out_of_time = a.minutes is not None and time.time() - t0 >= a.minutes * 60
            if out_of_time and step % 200 != 0:
                model.eval()
                with torch.no_grad():
                    hl = np.mean([float(loss_on(model, hb, 0.0)) for hb in held_batches])
                log("step %d epoch %d loss %.3f held-out %.3f (ppl %.1f): --minutes %g reached"
                    % (step, epoch, float(loss), hl, math.exp(hl), a.minutes))
            if step >= a.steps or out_of_time:
                a.steps = step
                break
    model.eval()
    export(model, cfg, spm_src, spm_tgt, vocab, a.out, held, log)
    shutil.copyfile(os.path.join(corpus, "corpus-stats.json"),
                    os.path.join(HERE, "corpus-stats.json"))
    for name in ("heldout.en", "heldout.de"):
        shutil.copyfile(os.path.join(corpus, name), os.path.join(a.out, name))
    log("done in %.1f min" % ((time.time() - t0) / 60))


def export(model, cfg, spm_src, spm_tgt, vocab, out, held, log):
    weights = model.to_numpy()
    if os.path.exists(os.path.join(out, "model.safetensors")):
        os.remove(os.path.join(out, "model.safetensors"))
    marian_layout.write_model(out, cfg, weights, spm_src, spm_tgt, vocab, h5=True)
    back = marian_model.Marian(marian_layout.load_config(out)).load_numpy(
        marian_layout.read_tf_h5(os.path.join(out, "tf_model.h5"), cfg)).eval()
    worst = 0.0
    with torch.no_grad():
        for s, t in held[:50]:
            src = torch.tensor([s])
            dec = torch.tensor([[cfg["decoder_start_token_id"]] + t[:-1]])
            want = model.decode(dec, model.encode(src)[0])["logits"]
            got = back.decode(dec, back.encode(src)[0])["logits"]
            worst = max(worst, float((want - got).abs().max()))
    log("export: %s; re-read logits vs trained model: max |diff| %.3g over 50 held-out pairs"
        % (out, worst))
    if worst > 1e-5:
        raise SystemExit("exported model does not reproduce the trained logits")
    sizes = {n: os.path.getsize(os.path.join(out, n)) for n in sorted(os.listdir(out))}
    log("files: %s (%.2f MB in all)" % (json.dumps(sizes), sum(sizes.values()) / 1e6))


if __name__ == "__main__":
    main()
