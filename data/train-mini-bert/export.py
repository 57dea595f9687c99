#!/usr/bin/python3
"""Write the trained attnscope-mini-bert (train.py's checkpoint) as a Hugging Face BERT folder
and check it with the project's reference.

The folder (OUT) gets config.json (BertConfig keys, architectures ["BertForMaskedLM"]),
tf_model.h5 in TFBertForMaskedLM's Keras layout (groups bert and mlm___cls, scope
tf_bert_for_masked_lm/, kernels [in, out], the tied word embeddings copied into mlm___cls) —
both written by tests/reference/encoder_layout.py — tokenizer_config.json (do_lower_case true,
model_max_length) and special_tokens_map.json; vocab.txt and heldout.txt are already there
from train.py.

Check: tests/reference/encoder_reference.py loads the written tf_model.h5 and runs held-out
texts (single sentences and pairs); its MLM logits and hidden states must match the training
model's (model.py, eval mode) within 1e-4 relative (max |err| / max |ref|).  The result goes
to --check-out (JSON) for evaluate.py; the script exits non-zero when the check fails.

Usage: /usr/bin/python3 data/train-mini-bert/export.py /tmp/mini-bert.pt \\
           data/models/attnscope-mini-bert --check-out data/train-mini-bert/export-check.json
"""

import argparse
import json
import os
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "reference"))
import encoder_layout  # noqa: E402
import encoder_reference  # noqa: E402
import wordpiece  # noqa: E402
from model import BertForMaskedLM  # noqa: E402

TOL = 1e-4
N_CHECK = 40


def load_trained(checkpoint):
    ck = torch.load(checkpoint, map_location="cpu")
    c = ck["config"]
    model = BertForMaskedLM(c["vocab_size"], c["max_position_embeddings"], c["hidden_size"],
                            c["num_hidden_layers"], c["num_attention_heads"],
                            c["intermediate_size"], c["type_vocab_size"], c["layer_norm_eps"],
                            c["dropout"])
    model.load_state_dict(ck["state_dict"])
    model.eval()
    return model, ck


def hf_config(model):
    c = model.config
    cfg = encoder_layout.make_config("bert", c["num_hidden_layers"], c["num_attention_heads"],
                                     c["hidden_size"], c["intermediate_size"], c["vocab_size"],
                                     c["max_position_embeddings"], c["type_vocab_size"], "mlm")
    cfg["_name_or_path"] = "attnscope-mini-bert"
    cfg["hidden_dropout_prob"] = cfg["attention_probs_dropout_prob"] = c["dropout"]
    cfg["layer_norm_eps"] = c["layer_norm_eps"]
    return cfg


def check(model, out_dir, texts):
    """Max relative differences between the training model and the reference on the file."""
    ref = encoder_reference.load_model(out_dir)
    tok = wordpiece.Tokenizer.load(os.path.join(out_dir, "vocab.txt"))
    worst = {"logits": 0.0, "hidden": 0.0, "n_sequences": 0, "pairs": 0}
    for n, text in enumerate(texts):
        a = tok.encode(text)[:60]
        ids = [wordpiece.CLS] + a + [wordpiece.SEP]
        types = [0] * len(ids)
        if n % 2:  # every other check is a sentence pair
            b = tok.encode(texts[(n + 1) % len(texts)])[:60]
            ids += b + [wordpiece.SEP]
            types += [1] * (len(b) + 1)
            worst["pairs"] += 1
        with torch.no_grad():
            t_ids, t_types = torch.tensor([ids]), torch.tensor([types])
            h, _ = model.encode(t_ids, t_types, torch.ones_like(t_ids, dtype=torch.bool))
            want_logits = model.mlm_logits(h)[0].numpy()
        got = encoder_reference.run_capture(ref, ids, types)
        for key, g, w in (("logits", got["logits"], want_logits),
                          ("hidden", got["hidden_states"][-1], h[0].numpy())):
            err = float(np.max(np.abs(g - w)) / np.max(np.abs(w)))
            worst[key] = max(worst[key], err)
        worst["n_sequences"] += 1
    return worst


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("checkpoint")
    ap.add_argument("out_dir")
    ap.add_argument("--check-out", default=None)
    args = ap.parse_args()
    torch.set_num_threads(1)
    model, ck = load_trained(args.checkpoint)
    cfg = hf_config(model)
    weights = {k: v.numpy().astype(np.float32) for k, v in model.state_dict().items()}
    missing = {n for n, _ in encoder_layout.params(cfg, "mlm")} - set(weights)
    if missing:
        sys.exit("export: the checkpoint lacks %s" % sorted(missing))
    encoder_layout.write_model(args.out_dir, cfg, weights, "mlm", h5=True,
                               tokenizer_from=args.out_dir)
    with open(os.path.join(args.out_dir, "heldout.txt"), encoding="utf-8") as f:
        texts = [line.rstrip("\n") for line in f][:N_CHECK]
    result = check(model, args.out_dir, texts)
    result.update(tolerance=TOL, ok=result["logits"] <= TOL and result["hidden"] <= TOL,
                  train_seconds=ck["train_seconds"], threads=ck["threads"],
                  train_args=ck["args"],
                  tf_model_h5_bytes=os.path.getsize(os.path.join(args.out_dir, "tf_model.h5")))
    print(json.dumps(result, indent=1))
    if args.check_out:
        with open(args.check_out, "w", encoding="utf-8") as f:
            json.dump(result, f, indent=2)
            f.write("\n")
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
