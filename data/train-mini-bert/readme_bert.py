"""Write the README.md of attnscope-mini-bert from evaluate.py's metrics (which include
export.py's check and train.py's settings) and the training log, so every number in the
README comes from a measurement.  evaluate.py calls render(); run alone, this script writes the
README again from the folder's metrics.json:

  /usr/bin/python3 data/train-mini-bert/readme_bert.py data/models/attnscope-mini-bert \
      --train-log data/train-mini-bert/train.log
"""

import argparse
import json
import os
import re
import sys

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "train-mini"))

from readme import WORDNET_LICENCE  # data/train-mini/readme.py (the attnscope-mini README)

STAT_TEXT = {"cls": "to [CLS]", "sep": "to [SEP]", "previous": "to the previous token",
             "next": "to the next token", "self": "to itself"}


def _table(shares, stats):
    n_layers, n_heads = len(shares["cls"]), len(shares["cls"][0])
    out = ["| layer.head | " + " | ".join(stats) + " |",
           "| --- |" + " --- |" * len(stats)]
    for layer in range(n_layers):
        for head in range(n_heads):
            out.append("| %d.%d | " % (layer, head) + " | ".join(
                "%.3f" % shares[s][layer][head] for s in stats) + " |")
    return "\n".join(out)


def _heads_over(shares, stat, threshold):
    hits = [(v, layer, head) for layer, row in enumerate(shares[stat])
            for head, v in enumerate(row) if v >= threshold]
    if not hits:
        best = max((v, layer, head) for layer, row in enumerate(shares[stat])
                   for head, v in enumerate(row))
        return "none reaches %.2f (highest: head %d.%d, %.3f)" % ((threshold,) + best[1:] +
                                                                  (best[0],))
    return ", ".join("head %d.%d (%.3f)" % (layer, head, v) for v, layer, head in sorted(hits)[::-1])


def _log_facts(log_lines):
    facts = {}
    for line in log_lines:
        m = re.search(r"wordpiece: vocab (\d+); (\d+) train tokens \((\d+) \[UNK\]\)", line)
        if m:
            facts["train_tokens"], facts["unk"] = int(m.group(2)), int(m.group(3))
        m = re.search(r"step (\d+)/(\d+) epoch (\d+) loss ([0-9.]+)", line)
        if m:
            facts["last_step"], facts["epoch"], facts["last_loss"] = (
                int(m.group(1)), int(m.group(3)), float(m.group(4)))
        m = re.search(r"training ([0-9.]+) min, total wall time ([0-9.]+) min", line)
        if m:
            facts["train_min"], facts["wall_min"] = float(m.group(1)), float(m.group(2))
    return facts


def render(m, cfg, log_lines, vocab_size):
    chk = m.get("export_check", {})
    a = chk.get("train_args", {})
    f = _log_facts(log_lines)
    single, pairs = m["head_shares_single"], m["head_shares_pairs"]
    stats = ["cls", "sep", "previous", "next", "self", "entropy"]
    size_mb = chk.get("tf_model_h5_bytes", 0) / 1e6
    heads_text = "\n".join(
        "- attention %s: %s" % (STAT_TEXT[s], _heads_over(single, s, 0.3))
        for s in ("cls", "sep", "previous", "next", "self"))
    return f"""# attnscope-mini-bert

A small BERT masked-language model trained from scratch for attnscope's encoder views:
{cfg['num_hidden_layers']} layers, {cfg['num_attention_heads']} heads, hidden size
{cfg['hidden_size']}, {m['n_params']:,} parameters, in the exact Hugging Face layout
(`config.json` with `model_type` bert and `architectures` ["BertForMaskedLM"], `tf_model.h5` in
TFBertForMaskedLM's Keras layout, `vocab.txt`, `tokenizer_config.json`,
`special_tokens_map.json`). It was trained on English dictionary sentences, so it fills in
masked words of plain definitions and example sentences; it knows nothing else.

Built by `data/train-mini-bert/` (train.py, export.py, evaluate.py); every number here comes
from `metrics.json` and `data/train-mini-bert/train.log`.

## Files

| file | what |
| --- | --- |
| `config.json` | BertConfig as HF writes it (gelu, layer_norm_eps {cfg['layer_norm_eps']}, {cfg['max_position_embeddings']} positions, {cfg['type_vocab_size']} token types, pad id 0) |
| `tf_model.h5` | {size_mb:.1f} MB; groups `bert` and `mlm___cls`, weights `tf_bert_for_masked_lm/bert/...`, kernels [in, out], the decoder tied to the word embeddings (a copy of the embeddings weights sits in `mlm___cls`, as Keras writes it) |
| `vocab.txt` | {vocab_size:,} WordPiece tokens, one a line, line number = id |
| `tokenizer_config.json`, `special_tokens_map.json` | BertTokenizer, `do_lower_case` true, `model_max_length` {cfg['max_position_embeddings']} |
| `heldout.txt` | the {m['heldout_lines']:,} held-out texts, one a line (never seen in training) |
| `metrics.json` | every measurement below |

## Corpus and licence

The attnscope-mini corpus: `data/train-mini/corpus.py` builds 159,107 distinct texts from
WordNet 3.0 (Debian package `wordnet-base`): every synset's definition (capitalised, verbs as
"To ...") and its quoted example sentences of at least three words. The held-out split is the
same as attnscope-mini's: every text whose SHA-256 modulo 1000 is below 15
({m['heldout_lines']:,} texts); the vocabulary and the training never see them.

WordNet is © Princeton University under the WordNet 3.0 licence, which permits use, copying,
modification and distribution for any purpose provided the notice below is kept with all
copies. The corpus-derived files (`heldout.txt`, the vocabulary and the weights) are
distributed under it:

```
{WORDNET_LICENCE}
```

## Vocabulary and tokenizer

Hugging Face BertTokenizer's rules, in `data/train-mini-bert/wordpiece.py`: clean the text
(drop control characters, whitespace to spaces), spaces around CJK ideographs, lower-case and
strip accents, split off punctuation, then WordPiece (greedy longest match, `##`
continuations, words over 100 characters are [UNK]). The vocabulary was learned on the train
split: words start as characters (`a`, `##b`, ...) and the most frequent adjacent pair is
merged until {vocab_size:,} entries (characters seen fewer than 3 times are left out). The
specials sit at bert-base-uncased's ids: [PAD] 0, [unused0..98] 1-99, [UNK] 100, [CLS] 101,
[SEP] 102, [MASK] 103. The train split is {f.get('train_tokens', 0):,} word pieces
({f.get('unk', 0)} [UNK]).

## Training

Masked-language modelling only (no next-sentence loss): each train line becomes
`[CLS] A [SEP]` or, with probability {a.get('pair_prob')}, the pair `[CLS] A [SEP] B [SEP]` with
B the next train line (token types 0 then 1); 15 % of the word pieces are chosen, 80 % of
them replaced by [MASK], 10 % by a random token, 10 % left; cross-entropy on the chosen
pieces. AdamW (lr {a.get('lr')}, weight decay {a.get('weight_decay')} except biases and
LayerNorm), {a.get('warmup')} warm-up steps then cosine decay to 10 %, {a.get('steps')} steps of
at most {a.get('batch_tokens')} padded tokens, dropout {a.get('dropout')}, seed {a.get('seed')};
{f.get('epoch', '?')} passes over the data were started. Final training loss (mean of the last
100 steps) {f.get('last_loss', float('nan')):.3f}.

Training took {f.get('train_min', float('nan')):.1f} minutes ({f.get('wall_min', float('nan')):.1f}
minutes with the vocabulary) on {chk.get('threads', '?')} thread of this project's shared
2-core machine, at `nice -n 10` while other work ran. Command (from the repository root):

```
nice -n 10 /usr/bin/python3 data/train-mini-bert/train.py --out data/models/attnscope-mini-bert \\
    --checkpoint /tmp/mini-bert.pt > data/train-mini-bert/train.log 2>&1
/usr/bin/python3 data/train-mini-bert/export.py /tmp/mini-bert.pt data/models/attnscope-mini-bert \\
    --check-out data/train-mini-bert/export-check.json
/usr/bin/python3 data/train-mini-bert/evaluate.py data/models/attnscope-mini-bert \\
    --check data/train-mini-bert/export-check.json --train-log data/train-mini-bert/train.log
```

Export check: `tests/reference/encoder_reference.py` reading the written `tf_model.h5` gives the
training model's MLM logits and last hidden states on {chk.get('n_sequences')} held-out inputs
({chk.get('pairs')} of them pairs) within max |err| / max |ref| = {chk.get('logits', float('nan')):.2g}
(logits) and {chk.get('hidden', float('nan')):.2g} (hidden states); tolerance {chk.get('tolerance')}.

## Masked-token accuracy (held-out)

Each held-out text as `[CLS] text [SEP]`; 15 % of its word pieces (at least one; numpy seed
{m['seed']}) replaced by [MASK] together; {m['masked_tokens']:,} masked pieces.

| | top-1 | top-5 | cross-entropy (nats) | perplexity |
| --- | --- | --- | --- | --- |
| attnscope-mini-bert | {m['top1']:.3f} | {m['top5']:.3f} | {m['cross_entropy']:.3f} | {m['perplexity']:.1f} |
| unigram baseline (train counts) | {m['unigram_top1']:.3f} | {m['unigram_top5']:.3f} | {m['unigram_cross_entropy']:.3f} | {m['unigram_perplexity']:.1f} |

The unigram baseline always answers the most frequent train pieces (top-1: id
{m['unigram_most_frequent'][0]}); its cross-entropy uses add-one-smoothed train counts.

## Attention heads

Shares per head from the reference's attentions (post-softmax) on the unmasked held-out texts,
each line counting once: cls = mean over rows i >= 1 of P[i][0]; sep = mean over rows i >= 1 of
the attention to all [SEP] positions; previous = P[i][i-1] (rows i >= 1); next = P[i][i+1]
(rows i <= T-2); self = P[i][i]; entropy = row entropy / log T. The lead re-measures them with
`attnscope stats`.

Heads with a share of at least 0.3 on single texts (`[CLS] text [SEP]`):

{heads_text}

Single texts ({m['heldout_lines']:,} lines):

{_table(single, stats)}

Pairs `[CLS] A [SEP] B [SEP]` of consecutive held-out lines ({m['pair_lines']:,} pairs):

{_table(pairs, stats)}
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("model_dir")
    ap.add_argument("--train-log", required=True)
    args = ap.parse_args()

    def read(name):
        with open(os.path.join(args.model_dir, name), encoding="utf-8") as f:
            return f.read()

    with open(args.train_log, encoding="utf-8") as f:
        log_lines = f.read().strip().splitlines()
    text = render(json.loads(read("metrics.json")), json.loads(read("config.json")), log_lines,
                  len(read("vocab.txt").splitlines()))
    with open(os.path.join(args.model_dir, "README.md"), "w", encoding="utf-8") as f:
        f.write(text)


if __name__ == "__main__":
    main()
