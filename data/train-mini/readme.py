"""Write the README.md of attnscope-mini from metrics.json (evaluate.py) and the training log
(make-mini-model.py's output), so every number in the README comes from a measurement."""

import re
import textwrap

WORDNET_LICENCE = """\
WordNet Release 3.0

This software and database is being provided to you, the LICENSEE, by Princeton University
under the following license. By obtaining, using and/or copying this software and database,
you agree that you have read, understood, and will comply with these terms and conditions.:

Permission to use, copy, modify and distribute this software and database and its
documentation for any purpose and without fee or royalty is hereby granted, provided that you
agree to comply with the following copyright notice and statements, including the disclaimer,
and that the same appear on ALL copies of the software, database and documentation, including
modifications that you make for internal use or for distribution.

WordNet 3.0 Copyright 2006 by Princeton University. All rights reserved.

THIS SOFTWARE AND DATABASE IS PROVIDED "AS IS" AND PRINCETON UNIVERSITY MAKES NO
REPRESENTATIONS OR WARRANTIES, EXPRESS OR IMPLIED. BY WAY OF EXAMPLE, BUT NOT LIMITATION,
PRINCETON UNIVERSITY MAKES NO REPRESENTATIONS OR WARRANTIES OF MERCHANT- ABILITY OR FITNESS FOR
ANY PARTICULAR PURPOSE OR THAT THE USE OF THE LICENSED SOFTWARE, DATABASE OR DOCUMENTATION WILL
NOT INFRINGE ANY THIRD PARTY PATENTS, COPYRIGHTS, TRADEMARKS OR OTHER RIGHTS.

The name of Princeton University or Princeton may not be used in advertising or publicity
pertaining to distribution of the software and/or database. Title to copyright in this
software, database and any associated documentation shall at all times remain with Princeton
University and LICENSEE agrees to preserve same."""


def parse_log(path):
    """Facts from the training log: corpus and BPE lines, the step lines, the total wall time."""
    info = {"steps": []}
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.search(r"step (\d+)/(\d+) epoch (\d+) loss ([\d.]+) .* ([\d.]+) s elapsed, "
                          r"([\d.]+) s/step", line)
            if m:
                info["steps"].append((int(m.group(1)), int(m.group(3)), float(m.group(4)),
                                      float(m.group(5))))
            m = re.search(r"total wall time ([\d.]+) min", line)
            if m:
                info["wall_min"] = float(m.group(1))
            m = re.search(r"corpus: (\d+) lines \((\d+) chars\); train (\d+), held-out (\d+)", line)
            if m:
                info["corpus"] = tuple(int(g) for g in m.groups())
            m = re.search(r"^\[[\d:]+\] epoch (\d+): (\d+) batches", line)
            if m:
                info["batches_per_epoch"] = int(m.group(2))
            m = re.search(r"(\d+) train tokens in (\d+) lines", line)
            if m:
                info["train_tokens"] = int(m.group(1))
    last = info["steps"][-1]
    info["epochs"] = last[0] / info["batches_per_epoch"]  # batches per epoch of the first epoch
    return info


def _head_table(metrics):
    prev, first = metrics["head_previous"], metrics["head_first"]
    heads = " | ".join("head %d prev / first" % h for h in range(len(prev[0])))
    rows = ["| layer | " + heads + " |",
            "| --- |" + " --- |" * len(prev[0])]
    for l in range(len(prev)):
        rows.append("| %d | " % l + " | ".join("%.3f / %.3f" % (prev[l][h], first[l][h])
                                               for h in range(len(prev[l]))) + " |")
    return "\n".join(rows)


def training_script():
    """make-mini-model.py as a module (its name has a hyphen, so no plain import)."""
    import importlib.util
    import os
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "make-mini-model.py")
    spec = importlib.util.spec_from_file_location("make_mini_model", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def train_args(command):
    """The arguments of make-mini-model.py in COMMAND, parsed by the script's own parser."""
    import shlex
    module = training_script()
    words = shlex.split(command)
    start = next(i for i, w in enumerate(words) if w.endswith("make-mini-model.py")) + 1
    end = next((i for i, w in enumerate(words) if w in ("|", ">", "2>&1")), len(words))
    return module.build_parser().parse_args(words[start:end])


def _batching(a):
    if a.pack:
        return ("Texts are batched GPT-2's way: in a seeded order, each followed by "
                "`<|endoftext|>`, "
                "packed into rows of at most %d tokens that start at the start of a text and never "
                "split one (so position 0 always holds a text's first token, as at evaluation; the "
                "rest of a row is padding, masked out of the loss), %d rows = %s tokens per batch."
                % (a.n_ctx, a.batch_tokens // a.n_ctx, format(a.batch_tokens, ",")))
    end = (" followed by `<|endoftext|>` (so the model learns where a text ends)"
           if a.end_token else "")
    repeat = ""
    if a.repeat > 0:
        eot = " <|endoftext|>" if a.end_token else ""
        form = (f"`a{eot} b{eot} a{eot}`, b another seeded-random text" if a.repeat_between
                else f"`a{eot} a{eot}`")
        repeat = (f" In each epoch a seeded {round(100 * a.repeat)} % of the rows show their text"
                  f" a second time ({form}; cut at {a.n_ctx} tokens): the repeated copy is"
                  " predictable by finding each token's earlier occurrence and reading what"
                  " followed it, the copying (induction) circuit of real language models, which"
                  " needs a head that attends to the previous token. The corpus itself stays"
                  " deduplicated; held-out texts are evaluated once each, as always.")
    return ("Every text is its own row starting at position 0 (as at evaluation)" + end
            + "; batches of length-sorted rows of at most %s tokens including padding (masked "
            "out of the loss)." % format(a.batch_tokens, ",") + repeat)


def _positions(a):
    if a.position_embeddings == "learned":
        return ("Position embeddings: GPT-2's, learned (N(0, 0.02) initialisation).")
    freq = ("" if a.position_frequency_scale == 1 else
            f"{a.position_frequency_scale} × ")
    return f"""Position embeddings: `wpe` holds {a.position_scale} × the Transformer's sinusoids
(row p: sin(p·ω_i), cos(p·ω_i) interleaved, ω_i = {freq}10000^(−2i/D)), fixed during training;
every other weight is trained. It is an ordinary GPT-2 weight, so the file layout and the forward pass
are GPT-2's. Why: with learned positions (the first four trainings of this model, on
`Lemma means gloss.` definitions) the table stayed coarse at this budget — neighbouring
positions were no more alike than positions five apart (cosine ≈ 0.5 for both) — and the
strongest heads reached only 0.27 previous-token and 0.31 first-token share; most idle
attention went to the word `means` that sat in the same place in 72 % of the texts, which is
why the definitions no longer name their lemma that way. With fixed sinusoids every offset is
the same rotation, so a head can attend by position with one linear map{_frequency_note(a)}"""


def _frequency_note(a):
    if a.position_frequency_scale == 1:
        return "."
    return (f"; the {a.position_frequency_scale} × on the frequencies makes the fastest pair turn"
            f" {a.position_frequency_scale} radians per position instead of 1, so that"
            " neighbouring positions differ clearly (with the Transformer's frequencies only"
            " about five pairs turn by more than half a radian per step, and heads that tried to"
            " pick the previous token blurred over the last three or four).")


def _initialisation(a):
    text = ("GPT-2's N(0, 0.02), residual projections scaled by 1/√(2·L)"
            + ("; `wpe` as above" if a.position_embeddings == "sinusoidal" else ""))
    planted = training_script().initialised_head(a)
    if planted:
        layer, head, gain = planted
        text += (f"; layer {layer} head {head} starts as a previous-token head (mimetic"
                 " initialisation, Trockman & Kolter 2023: its query reads the fastest"
                 " sin/cos pairs of `wpe`, its key the same pairs rotated by one position, gain"
                 f" {gain}) and is then trained like every other weight — see Quality for what"
                 " training made of it")
    return text


def _bullet(text):
    return textwrap.fill(text, width=98, initial_indent="- ", subsequent_indent="  ")


def _head_use(metrics):
    u = metrics.get("previous_head_use")
    if not u:
        return ""
    bullets = [_bullet(
        f"What the strongest previous-token head (layer {u['layer']} head {u['head']}) does for "
        "the model: with its output removed (its rows of `attn.c_proj` set to zero) held-out "
        f"perplexity goes from {metrics['heldout_perplexity']:.2f} to "
        f"{u['heldout_perplexity_without_head']:.2f}; on held-out texts shown again after the next "
        "one (`a <|endoftext|> b <|endoftext|> a <|endoftext|>`) the repeated copy has perplexity "
        f"{u['copy_perplexity']:.2f}, and {u['copy_perplexity_without_head']:.2f} without the "
        "head (copying needs to know which token came before each earlier token). The price "
        "of training on repeated texts: after `text <|endoftext|>` the most likely next token "
        f"is that text's own first token for {100 * u['restart_after_end']:.1f} % of the "
        "held-out texts.")]
    init = u["initialised"]
    if init:
        same = init["layer"] == u["layer"] and init["head"] == u["head"]
        now = metrics["head_previous"][init["layer"]][init["head"]]
        bullets.append(_bullet(
            f"Layer {init['layer']} head {init['head']} was initialised as a previous-token head "
            f"(see Training): previous-token share {init['previous_at_initialisation']:.3f} at "
            f"initialisation, {now:.3f} after training"
            + ("." if same else " (it is not the strongest previous-token head now).")))
    return "\n".join(bullets) + "\n"


def _verdict(bp, bf):
    missing = [name for name, h in (("previous-token", bp), ("first-token", bf))
               if h["value"] < 0.5]
    if not missing:
        return "met."
    return "**not met** for the %s head%s." % (" and ".join(missing),
                                               "s" if len(missing) > 1 else "")


def write(folder, metrics, config, log, command, eval_command, size_bytes):
    bp, bf = metrics["best_previous_head"], metrics["best_first_head"]
    a = train_args(command)
    last = log["steps"][-1]
    n_lines, n_chars, n_train, n_held = log["corpus"]
    greedy = "\n".join("%d. prompt `%s` → `%s`" % (i + 1, g["prompt"], g["continuation"])
                       for i, g in enumerate(metrics["greedy"]))
    text = f"""# attnscope-mini

The default model of attnscope: a small GPT-2 trained from scratch by the project's own script
on WordNet's English definitions and example sentences. It exists so that attnscope shows real,
learned attention on a machine with no internet; it is **not** a useful language model for any
other purpose.

The folder has the exact Hugging Face GPT-2 layout (`config.json` with `model_type: gpt2`,
`tf_model.h5` in the Keras-HDF5 layout of TFGPT2LMHeadModel with distilgpt2's dataset names and
shapes, `vocab.json`, `merges.txt`, `tokenizer_config.json`, `special_tokens_map.json`), so
attnscope loads it through the same code as a downloaded GPT-2. Extra files: `heldout.txt` (the
held-out split, one text per line), `metrics.json` (every number below), this README.

## Architecture

| | |
| --- | --- |
| type | GPT-2: pre-LayerNorm, causal, position embedding table `wpe`, gelu_new MLP, biases as GPT-2, output matrix tied to the token embeddings |
| layers × heads × width | {config["n_layer"]} × {config["n_head"]} × {config["n_embd"]} (head width {config["n_embd"] // config["n_head"]}, MLP {4 * config["n_embd"]}) |
| context | {config["n_positions"]} tokens |
| vocabulary | {config["vocab_size"]} (byte-level BPE, `<|endoftext|>` = {config["eos_token_id"]}) |
| parameters | {metrics["n_params"]:,} ({size_bytes / 1e6:.1f} MB folder) |

Why this size: the budget is one hour of training on 2 CPU cores, about
{last[0] * a.batch_tokens / 1e6:.0f} million training tokens (padding included) at this size, and at that budget a model of 1.6 M parameters is already larger than
compute-optimal, so a larger one would only be less trained. {config["n_layer"]} layers ×
{config["n_head"]} heads give {config["n_layer"] * config["n_head"]} heads, a head grid that fits
one screen; width {config["n_embd"]} and a {config["vocab_size"]:,}-token vocabulary keep a
forward pass to a few milliseconds per sentence. The longest corpus text has
{metrics["longest_text_tokens"]} tokens, so a context of {config["n_positions"]} holds every text whole.

{_positions(a)}

## Corpus and licence

All {n_lines:,} distinct texts ({n_chars / 1e6:.1f} million characters) built by `data/train-mini/corpus.py` from WordNet 3.0
(Debian package `wordnet-base`, files `/usr/share/wordnet/data.{{noun,verb,adj,adv}}`): for
every synset one definition sentence (the gloss, capitalised: `An entity that has physical
existence.`; verbs `To travel for the purpose of discovery.`) and each quoted example sentence of at least three words (first letter capitalised, a final
period added when missing). Exact duplicates are removed. The held-out split is every text whose
SHA-256 modulo 1000 is below 15 ({n_held:,} texts, {metrics["heldout_lines"]:,} used after
dropping texts shorter than two tokens; {n_train:,} for training; BPE and training never see the
held-out texts).

WordNet is © Princeton University under the WordNet 3.0 licence, which permits use, copying,
modification and distribution for any purpose provided the notice below is kept with all
copies. The corpus-derived files (`heldout.txt`, the vocabulary and the weights) are
distributed under it:

```
{WORDNET_LICENCE}
```

## Tokenizer

GPT-2's byte-level BPE (`data/train-mini/bpe.py`): GPT-2's byte→unicode table and
pre-tokenization regex; merges learned on the training texts by pair frequency over the
pre-tokenized words (ties: the smaller pair of strings); `vocab.json` holds the 256 byte symbols
in GPT-2's order (space = `Ġ` = 220), then each merge's result, then `<|endoftext|>`;
`merges.txt` starts with `#version: 0.2`. A text is encoded as is, with nothing added; in
training `<|endoftext|>` only marks where a text ends.

## Training

```
{command}
```

Deterministic given `--seed` ({a.seed}) and the thread count ({a.threads}): seeded
initialisation ({_initialisation(a)}), seeded batch
order, no dropout, `torch.use_deterministic_algorithms(True)`. `--checkpoint` only saves the full
training state (model, optimizer, random generator, remaining batches) so that an interrupted
run can resume. {_batching(a)} AdamW
(β = 0.9, 0.98; weight decay {a.weight_decay} on matrices), peak learning rate {a.lr} with
{a.warmup} warm-up steps and cosine decay to 10 %, gradient clipping 1.0, {last[0]:,} steps ≈
{log["epochs"]:.2f} epochs of the {log["train_tokens"]:,} training tokens. Training loss over
the last logged steps {last[2]:.3f}.

Wall time: **{log["wall_min"]:.1f} minutes** for the whole script (corpus, BPE, training, export),
of which {last[3] / 60:.1f} minutes of training at {last[3] / last[0]:.2f} s/step, measured with
`nice -n 10`, 1 thread, on a 2-core machine whose other core was busy for part of the run (other
trainings or a test run, see `data/train-mini/EXPERIMENTS.md`); on an idle machine it is faster. The weights do
not depend on `--out` or `--checkpoint`.

## Quality (held-out, measured by `data/train-mini/evaluate.py` on the shipped files)

```
{eval_command}
```

- Perplexity: held-out perplexity **{metrics["heldout_perplexity"]:.2f}** over
  {metrics["heldout_predicted_tokens"]:,} predicted tokens of {metrics["heldout_lines"]:,} lines.
  Definition: exp(mean NLL of predicting token t+1 from tokens ≤ t over all held-out lines);
  every line starts fresh at position 0 with no BOS, its first token is not predicted;
  log-softmax in float64 of the float32 logits. `attnscope perplexity --lines heldout.txt`
  recomputes it (tests/cli/test-cli-perplexity.c checks it within 1 %).
- Bigram baseline on the same split and tokens: **{metrics["bigram_kn_perplexity"]:.2f}**
  ({"higher than the model's, as the model's brief requires: it must beat a bigram model" if metrics["bigram_kn_perplexity"] > metrics["heldout_perplexity"] else "**lower than the model's: the brief's target (beat a bigram model) is not met**"};
  interpolated Kneser-Ney bigram trained on the training texts, discount 0.75, continuation
  distribution add-one smoothed over the vocabulary; bigrams within texts only).
- Head patterns, mean over the held-out lines with each line counting once (the definitions of
  `core/head-stats.c`: previous = mean over rows i ≥ 1 of P[i][i−1], first = mean over rows
  i ≥ 1 of P[i][0]): strongest previous-token head layer {bp["layer"]} head {bp["head"]}
  (**{bp["value"]:.3f}**), strongest first-token head layer {bf["layer"]} head {bf["head"]}
  (**{bf["value"]:.3f}**). The model's brief asks for at least 0.5 for both: {_verdict(bp, bf)}
  `data/train-mini/EXPERIMENTS.md` records the trainings that led here and what was tried.
  The core computes the same values (tests/core/test-mini-model.c checks every head within
  10⁻⁴ on the first {metrics["subset_lines"]} held-out lines). All heads (previous / first):

{_head_table(metrics)}

{_head_use(metrics)}
- Greedy continuations (argmax, token ids appended, at most {metrics["greedy_steps"]} tokens,
  ending after `<|endoftext|>` as Hugging Face's `generate()` does) of the first words of the
  first five held-out lines, verbatim:

{greedy}

## Intended use

Demonstrating and testing attnscope: attention heatmaps, head statistics, comparisons such as
"The man hit the car" / "The car hit the man", predictions and exports, offline. Its knowledge is
WordNet's dictionary English; its continuations are short, definition-like and often wrong. Do
not use it to generate or judge text.

## Rebuild

From the repository root, with Debian's `python3-torch`, `python3-h5py`, `python3-regex` and
`wordnet-base`: run the training command above, then the evaluation command. The same seed and
thread count give the same weights.
"""
    with open(folder + "/README.md", "w", encoding="utf-8") as f:
        f.write(text)
