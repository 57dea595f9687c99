#!/usr/bin/python3
"""evaluate.py — held-out quality of attnscope-mini-en-de and how sharp its cross-attention is.

    /usr/bin/python3 evaluate.py [--model ../models/attnscope-mini-en-de] [--work DIR]
                                 [--limit N] [--threads 1]

Runs the shipped folder through the project's reference (tests/reference: the tf_model.h5
reader, marian_model, MarianTokenizer rules, HF generate() rules) and writes MODEL/metrics.json:
  * BLEU and chrF (metrics.py: sacreBLEU's standard definitions) of greedy and beam search
    (the model's generation_config: 4 beams) on the held-out pairs (every one, or every k-th
    for --limit N), against a word-for-word dictionary baseline built from the training pairs
    (metrics.Dictionary) on the same sentences;
  * cross-attention sharpness: with the reference German as decoder input (teacher forcing), for
    each German word whose dictionary partner (the source word with the highest Dice
    coefficient, at least 0.2) is in the English source, the query rows that
    predict the word's pieces are averaged, the attention is summed over each English word's
    pieces, and a hit is counted when the strongest English word is the dictionary partner.
    Reported per layer (heads averaged) and per head; the best layer and head are named;
    chance_share_uniform is the share a uniformly random source word would get;
  * translations of "The group went home" and a few more sentences, greedy and beam.
The training pairs come from WORK/corpus (train.py's work folder, rebuilt by corpus.py when
missing).
"""

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "reference"))
import marian_generate  # noqa: E402
import marian_layout  # noqa: E402
import marian_reference  # noqa: E402
import marian_tokenizer  # noqa: E402
import metrics  # noqa: E402

EXAMPLES = ["The group went home.", "The group went home", "Open the file.",
            "The file could not be saved.", "Do you want to delete this message?",
            "Save the document before closing the window.", "The man hit the car.",
            "Network connection lost."]


def read_lines(path):
    with open(path, encoding="utf-8") as f:
        return [x.rstrip("\n") for x in f]


def translate(model, tok, gen, text, beams):
    ids, _ = marian_generate.generate(model, tok.encode(text), gen, beams, None)
    return tok.decode(ids)


def _spans(pieces):
    """Word spans over SentencePiece pieces: a new word starts at each '\u2581' piece."""
    spans = []
    for i, p in enumerate(pieces):
        if p.startswith("\u2581") or not spans:
            spans.append([i, i])
        else:
            spans[-1][1] = i
    return spans


def cross_attention_sharpness(model, tok, dictionary, pairs, cfg):
    n_layers, n_heads = cfg["decoder_layers"], cfg["decoder_attention_heads"]
    hits = np.zeros((n_layers, n_heads + 1))
    counted = 0
    for en, de in pairs:
        src_tokens, tgt_tokens = tok.tokenize(en), tok.tokenize(de, target=True)
        src = tok.encode(en)
        labels = tok.encode(de, target=True)
        if len(src) > cfg["max_position_embeddings"] or len(labels) > \
                cfg["max_position_embeddings"]:
            continue
        dec_in = [cfg["decoder_start_token_id"]] + labels[:-1]
        cap = marian_reference.run_capture(model, src, dec_in)["cross_attentions"]  # [L,H,T,S]
        s_spans, t_spans = _spans(src_tokens), _spans(tgt_tokens)
        s_words = ["".join(src_tokens[a:b + 1]).replace("\u2581", "") for a, b in s_spans]
        t_words = ["".join(tgt_tokens[a:b + 1]).replace("\u2581", "") for a, b in t_spans]
        for (a, b), tw in zip(t_spans, t_words):
            if not any(ch.isalpha() for ch in tw):
                continue
            best_j, best = dictionary.partner(tw, s_words)
            if best_j is None or best < 0.2:
                continue
            rows = cap[:, :, a:b + 1, :].mean(axis=2)  # [L,H,S] rows predicting the word
            per_word = np.stack([rows[:, :, x:y + 1].sum(axis=2) for x, y in s_spans], axis=-1)
            arg_heads = per_word.argmax(axis=-1)  # [L,H]
            arg_layer = per_word.mean(axis=1).argmax(axis=-1)  # [L]
            hits[:, :n_heads] += arg_heads == best_j
            hits[:, n_heads] += arg_layer == best_j
            counted += 1
    share = hits / max(counted, 1)
    layer = int(share[:, n_heads].argmax())
    head = np.unravel_index(int(share[:, :n_heads].argmax()), (n_layers, n_heads))
    return {"target_words_counted": counted,
            "per_layer_heads_averaged": [round(float(x), 4) for x in share[:, n_heads]],
            "per_head": [[round(float(x), 4) for x in row[:n_heads]] for row in share],
            "best_layer": layer, "best_layer_share": round(float(share[layer, n_heads]), 4),
            "best_head": [int(head[0]), int(head[1])],
            "best_head_share": round(float(share[head[0], head[1]]), 4),
            "chance_share_uniform": round(float(np.mean(
                [1.0 / max(len(_spans(tok.tokenize(e))), 1) for e, _ in pairs])), 4)}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", default=os.path.join(HERE, "..", "models", "attnscope-mini-en-de"))
    ap.add_argument("--work", default="/tmp/attnscope-mini-en-de")
    ap.add_argument("--limit", type=int, default=0, help="evaluate every k-th held-out pair")
    ap.add_argument("--threads", type=int, default=1)
    a = ap.parse_args(argv)
    marian_reference._import_torch(a.threads)
    t0 = time.time()
    corpus = os.path.join(a.work, "corpus")
    if not os.path.exists(os.path.join(corpus, "train.en")):
        subprocess.run([sys.executable, os.path.join(HERE, "corpus.py"), corpus], check=True)
    train = list(zip(read_lines(os.path.join(corpus, "train.en")),
                     read_lines(os.path.join(corpus, "train.de"))))
    held = list(zip(read_lines(os.path.join(a.model, "heldout.en")),
                    read_lines(os.path.join(a.model, "heldout.de"))))
    if a.limit and a.limit < len(held):
        held = held[::max(1, len(held) // a.limit)][:a.limit]
    model = marian_reference.load_model(a.model)
    cfg = model.cfg
    gen = marian_layout.generation_settings(a.model, cfg)
    tok = marian_tokenizer.MarianTokenizer(a.model)
    dictionary = metrics.Dictionary(train)
    refs = [d for _, d in held]
    out = {"heldout_pairs": len(held), "threads": torch.get_num_threads()}
    systems = {"dictionary_baseline": [dictionary.translate(e) for e, _ in held]}
    with torch.no_grad():
        systems["greedy"] = [translate(model, tok, gen, e, 1) for e, _ in held]
        systems["beam%d" % gen["num_beams"]] = [translate(model, tok, gen, e, gen["num_beams"])
                                                for e, _ in held]
        for name, hyps in systems.items():
            out[name] = {"bleu": round(metrics.corpus_bleu(hyps, refs), 2),
                         "chrf": round(metrics.corpus_chrf(hyps, refs), 2)}
            print("%-20s BLEU %6.2f  chrF %6.2f" % (name, out[name]["bleu"], out[name]["chrf"]),
                  flush=True)
        out["cross_attention"] = cross_attention_sharpness(model, tok, dictionary, held, cfg)
        print("cross-attention:", json.dumps(out["cross_attention"]), flush=True)
        out["examples"] = [{"en": e, "greedy": translate(model, tok, gen, e, 1),
                            "beam": translate(model, tok, gen, e, gen["num_beams"]),
                            "dictionary": dictionary.translate(e)} for e in EXAMPLES]
        out["heldout_samples"] = [{"en": e, "reference": d, "beam": systems[
            "beam%d" % gen["num_beams"]][i], "dictionary": systems["dictionary_baseline"][i]}
            for i, (e, d) in enumerate(held) if i % max(1, len(held) // 8) == 0][:8]
    out["seconds"] = round(time.time() - t0, 1)
    with open(os.path.join(a.model, "metrics.json"), "w", encoding="utf-8") as f:
        json.dump(out, f, indent=1, ensure_ascii=False)
        f.write("\n")
    for ex in out["examples"]:
        print("%s\n  greedy: %s\n  beam:   %s" % (ex["en"], ex["greedy"], ex["beam"]))


if __name__ == "__main__":
    main()
