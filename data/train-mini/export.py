"""Write a trained Gpt2 (model.py) as a Hugging Face GPT-2 folder: config.json, tf_model.h5 in
the Keras-HDF5 layout of core/io/README.md "Weight files" (the layout TFGPT2LMHeadModel.save_pretrained
produces: group "transformer", datasets transformer/tfgp_t2lm_head_model/transformer/...,
Conv1D biases stored as (1, n)), vocab.json, merges.txt, tokenizer_config.json and
special_tokens_map.json.  read_h5() loads such a file back into a Gpt2, so evaluation runs on
exactly the shipped weights.
"""

import json

import h5py
import numpy as np
import torch

from model import Gpt2

LAYER = "transformer"
SCOPE = "tfgp_t2lm_head_model/transformer/"


def _weights(model):
    """(name after the layer group, float32 array) in TFGPT2's weight order."""
    out = [("wte/weight:0", model.wte), ("wpe/embeddings:0", model.wpe)]
    for n, b in enumerate(model.blocks):
        p = "h_._%d/" % n
        out += [(p + "ln_1/gamma:0", b.ln_1.weight), (p + "ln_1/beta:0", b.ln_1.bias),
                (p + "attn/c_attn/weight:0", b.c_attn_w),
                (p + "attn/c_attn/bias:0", b.c_attn_b[None]),
                (p + "attn/c_proj/weight:0", b.attn_proj_w),
                (p + "attn/c_proj/bias:0", b.attn_proj_b[None]),
                (p + "ln_2/gamma:0", b.ln_2.weight), (p + "ln_2/beta:0", b.ln_2.bias),
                (p + "mlp/c_fc/weight:0", b.c_fc_w), (p + "mlp/c_fc/bias:0", b.c_fc_b[None]),
                (p + "mlp/c_proj/weight:0", b.mlp_proj_w),
                (p + "mlp/c_proj/bias:0", b.mlp_proj_b[None])]
    out += [("ln_f/gamma:0", model.ln_f.weight), ("ln_f/beta:0", model.ln_f.bias)]
    return [(SCOPE + n, t.detach().cpu().numpy().astype(np.float32)) for n, t in out]


def write_h5(model, path):
    weights = _weights(model)
    with h5py.File(path, "w") as f:
        f.attrs["layer_names"] = np.array([LAYER.encode()])
        f.attrs["backend"] = b"tensorflow"
        f.attrs["keras_version"] = b"2.11.0"
        g = f.create_group(LAYER)
        g.attrs["weight_names"] = np.array([n.encode() for n, _ in weights])
        for name, arr in weights:
            g.create_dataset(name, data=arr)  # contiguous, uncompressed float32


def read_h5(path, config):
    model = Gpt2(config["vocab_size"], config["n_positions"], config["n_embd"],
                 config["n_layer"], config["n_head"], config["layer_norm_epsilon"])
    with h5py.File(path, "r") as f:
        g = f[LAYER]
        for name, target in _weights(model):
            arr = torch.from_numpy(np.asarray(g[name], dtype=np.float32))
            _param_for(model, name).data.copy_(arr.reshape(_param_for(model, name).shape))
    model.eval()
    return model


def _param_for(model, name):
    rest = name[len(SCOPE):]
    if rest == "wte/weight:0":
        return model.wte
    if rest == "wpe/embeddings:0":
        return model.wpe
    if rest.startswith("ln_f/"):
        return model.ln_f.weight if "gamma" in rest else model.ln_f.bias
    n = int(rest.split("/")[0][len("h_._"):])
    b = model.blocks[n]
    table = {"ln_1/gamma:0": b.ln_1.weight, "ln_1/beta:0": b.ln_1.bias,
             "attn/c_attn/weight:0": b.c_attn_w, "attn/c_attn/bias:0": b.c_attn_b,
             "attn/c_proj/weight:0": b.attn_proj_w, "attn/c_proj/bias:0": b.attn_proj_b,
             "ln_2/gamma:0": b.ln_2.weight, "ln_2/beta:0": b.ln_2.bias,
             "mlp/c_fc/weight:0": b.c_fc_w, "mlp/c_fc/bias:0": b.c_fc_b,
             "mlp/c_proj/weight:0": b.mlp_proj_w, "mlp/c_proj/bias:0": b.mlp_proj_b}
    return table[rest.split("/", 1)[1]]


def config_json(model, eot_id, dropout):
    c = model.config
    return {
        "_name_or_path": "attnscope-mini",
        "activation_function": "gelu_new",
        "architectures": ["GPT2LMHeadModel"],
        "attn_pdrop": dropout,
        "bos_token_id": eot_id,
        "embd_pdrop": dropout,
        "eos_token_id": eot_id,
        "initializer_range": 0.02,
        "layer_norm_epsilon": c["layer_norm_epsilon"],
        "model_type": "gpt2",
        "n_ctx": c["n_positions"],
        "n_embd": c["n_embd"],
        "n_head": c["n_head"],
        "n_inner": None,
        "n_layer": c["n_layer"],
        "n_positions": c["n_positions"],
        "reorder_and_upcast_attn": False,
        "resid_pdrop": dropout,
        "scale_attn_by_inverse_layer_idx": False,
        "scale_attn_weights": True,
        "summary_activation": None,
        "summary_first_dropout": 0.1,
        "summary_proj_to_labels": True,
        "summary_type": "cls_index",
        "summary_use_proj": True,
        "task_specific_params": {"text-generation": {"do_sample": True, "max_length": 50}},
        "transformers_version": "4.30.0",
        "use_cache": True,
        "vocab_size": c["vocab_size"],
    }


def _dump(obj, path):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(obj, f, indent=2, ensure_ascii=False)
        f.write("\n")


def write_folder(model, out_dir, eot_id, dropout):
    """Write config.json, tf_model.h5 and the tokenizer configs (vocab/merges: bpe.write)."""
    _dump(config_json(model, eot_id, dropout), out_dir + "/config.json")
    write_h5(model, out_dir + "/tf_model.h5")
    eot = "<|endoftext|>"
    _dump({"add_prefix_space": False, "bos_token": eot, "eos_token": eot, "unk_token": eot,
           "model_max_length": model.config["n_positions"],
           "tokenizer_class": "GPT2Tokenizer"}, out_dir + "/tokenizer_config.json")
    _dump({"bos_token": eot, "eos_token": eot, "unk_token": eot},
          out_dir + "/special_tokens_map.json")
