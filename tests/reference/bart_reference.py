#!/usr/bin/python3
"""bart_reference.py — the project's independent PyTorch reference for BART-family models (HF
BartForConditionalGeneration: bart, DistilBART checkpoints; MBartForConditionalGeneration: mbart),
following transformers' models/bart/modeling_bart.py and models/mbart/modeling_mbart.py eager
code (v4.40-v4.45); transformers itself is not used.

Maths:
  BartLearnedPositionalEmbedding: table [max_position_embeddings + 2, D], position p reads row
    p + 2 (offset 2, a fairseq legacy).
  Embeddings: x = shared[ids] * embed_scale + positions; embed_scale = sqrt(D) when
    scale_embedding (BART false, mBART true); then layernorm_embedding (both stacks).
  Attention: q = q_proj(x) * hd^-0.5; softmax(q k^T [+ causal mask]) v; out_proj; all with biases.
  bart (post-norm): x = LN(x + SelfAttn(x)); decoder: x = LN(x + CrossAttn(x, enc));
    x = LN(x + fc2(act(fc1(x)))).
  mbart (pre-norm): x = x + SelfAttn(LN(x)); x = x + CrossAttn(LN(x), enc); x = x + fc2(act(fc1(LN(x))));
    after the last layer each stack's layer_norm.
  hidden_states: the embeddings (after layernorm_embedding), every layer's output but the last,
    then the last (mBART: after layer_norm). LayerNorm eps 1e-5.
  Head: logits = y shared^T + final_logits_bias.

Subcommands (the C tests call exactly these):
  make-model OUT_DIR [--model-type bart|mbart] [--layers L] [--decoder-layers Ld] [--heads H]
             [--d-model D] [--ffn F] [--vocab V] [--positions P] [--act gelu|relu|...]
             [--scale-embedding] [--dtype f32|bf16] [--shards N] [--seed S] [--num-beams K]
             [--max-length N] [--min-length N] [--gen KEY=JSON]... [--eos-bias B]
      config.json, generation_config.json, tokenizer.json (byte-level BPE: the 256 byte
      symbols, a few merges, <s> <pad> </s> <unk> <mask>, RobertaProcessing) and safetensors
      weights with HF's state-dict names (model.shared.weight, final_logits_bias [1, V], ...);
      --eos-bias B adds B to final_logits_bias of </s> (id 2).
  expected MODEL_DIR OUT.h5 --src-ids 1,2 --tgt-ids 0,5 [...]
      per pair /seqN: source_ids, target_ids, encoder_attentions [L,H,S,S],
      encoder_hidden_states [L+1,S,D], decoder_attentions [Ld,H,T,T], cross_attentions
      [Ld,H,T,S], decoder_hidden_states [Ld+1,T,D], logits [T,V]; float32.
  generate MODEL_DIR --src-ids IDS [--beams K] [--max-length N] [--json | --out FILE]
      greedy or beam search as HF generate() (marian_generate.py's processors and beams).
"""

import argparse
import json
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import safetensors_io  # noqa: E402
import seq2seq_reference  # noqa: E402
from seq2seq_reference import parse_ids  # noqa: E402

torch = None
OFFSET = 2
SPECIALS = ("<s>", "<pad>", "</s>", "<unk>")


def _import_torch(threads=2):
    global torch
    import torch as t
    t.set_num_threads(threads)
    torch = t


def param_specs(cfg):
    """[(name, shape, kind)] in BartForConditionalGeneration's state-dict order."""
    D, V, P = cfg["d_model"], cfg["vocab_size"], cfg["max_position_embeddings"] + OFFSET
    pre = cfg["model_type"] == "mbart"
    out = [("model.shared.weight", (V, D), "embed")]

    def lin(p, i, o):
        return [(p + ".weight", (o, i), "matrix"), (p + ".bias", (o,), "bias")]

    def norm(p):
        return [(p + ".weight", (D,), "norm"), (p + ".bias", (D,), "bias")]

    def attn(p):
        r = []
        for m in ("k_proj", "v_proj", "q_proj", "out_proj"):
            r += lin(p + "." + m, D, D)
        return r

    for side in ("encoder", "decoder"):
        F = cfg[side + "_ffn_dim"]
        s = "model.%s." % side
        out.append((s + "embed_positions.weight", (P, D), "embed"))
        for l in range(cfg[side + "_layers"]):
            p = s + "layers.%d." % l
            out += attn(p + "self_attn") + norm(p + "self_attn_layer_norm")
            if side == "decoder":
                out += attn(p + "encoder_attn") + norm(p + "encoder_attn_layer_norm")
            out += lin(p + "fc1", D, F) + lin(p + "fc2", F, D) + norm(p + "final_layer_norm")
        out += norm(s + "layernorm_embedding")
        if pre:
            out += norm(s + "layer_norm")
    out.append(("final_logits_bias", (1, V), "bias"))
    return out


def make_config(a):
    arch = "MBartForConditionalGeneration" if a.model_type == "mbart" else \
        "BartForConditionalGeneration"
    return {"architectures": [arch], "model_type": a.model_type, "d_model": a.d_model,
            "vocab_size": a.vocab, "max_position_embeddings": a.positions,
            "encoder_layers": a.layers, "decoder_layers": a.decoder_layers or a.layers,
            "encoder_attention_heads": a.heads, "decoder_attention_heads": a.heads,
            "encoder_ffn_dim": a.ffn, "decoder_ffn_dim": a.ffn,
            "activation_function": a.act, "scale_embedding": a.scale_embedding,
            "bos_token_id": 0, "pad_token_id": 1, "eos_token_id": 2,
            "decoder_start_token_id": 2, "forced_eos_token_id": 2,
            "is_encoder_decoder": True, "tie_word_embeddings": True, "use_cache": True,
            "dropout": 0.1, "init_std": 0.02, "normalize_before": a.model_type == "mbart",
            "torch_dtype": safetensors_io.TORCH_DTYPE[safetensors_io.FROM_OPTION[a.dtype]],
            "transformers_version": "4.45.0"}


def bytes_to_unicode():
    """GPT-2's byte-to-symbol map (tokenizers' ByteLevel)."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + \
        list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return [chr(c) for _, c in sorted(zip(bs, cs))]


def write_tokenizer(out_dir, vocab_size):
    """A byte-level BPE tokenizer.json as BART's: <s> <pad> </s> <unk> first, the 256 byte
    symbols, merges of a few English pieces up to VOCAB_SIZE - 1 entries, <mask> last."""
    vocab = {s: i for i, s in enumerate(SPECIALS)}
    for sym in bytes_to_unicode():
        vocab[sym] = len(vocab)
    merges = []
    g = "\u0120"
    for word in (g + "t", g + "th", g + "the", "e", "in", "er", g + "a", "an", "on", "re"):
        if len(word) < 2 or len(vocab) >= vocab_size - 1:
            continue
        left, right = word[:-1], word[-1]
        if left in vocab and right in vocab and word not in vocab:
            merges.append(left + " " + right)
            vocab[word] = len(vocab)
    mask_id = vocab_size - 1
    added = [{"id": i, "content": s, "single_word": False, "lstrip": False, "rstrip": False,
              "normalized": False, "special": True} for i, s in enumerate(SPECIALS)]
    added.append({"id": mask_id, "content": "<mask>", "single_word": False, "lstrip": True,
                  "rstrip": False, "normalized": False, "special": True})
    vocab["<mask>"] = mask_id
    tok = {"version": "1.0", "truncation": None, "padding": None, "added_tokens": added,
           "normalizer": None,
           "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True,
                             "use_regex": True},
           "post_processor": {"type": "RobertaProcessing", "sep": ["</s>", 2], "cls": ["<s>", 0],
                              "trim_offsets": True, "add_prefix_space": False},
           "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True,
                       "use_regex": True},
           "model": {"type": "BPE", "dropout": None, "unk_token": None,
                     "continuing_subword_prefix": "", "end_of_word_suffix": "",
                     "fuse_unk": False, "byte_fallback": False, "vocab": vocab,
                     "merges": merges}}
    with open(os.path.join(out_dir, "tokenizer.json"), "w", encoding="utf-8") as f:
        json.dump(tok, f, ensure_ascii=False)


def cmd_make_model(a):
    os.makedirs(a.out_dir, exist_ok=True)
    cfg = make_config(a)
    safetensors_io.write_json(os.path.join(a.out_dir, "config.json"), cfg)
    gen = {"bos_token_id": 0, "decoder_start_token_id": 2, "eos_token_id": 2,
           "forced_eos_token_id": 2, "pad_token_id": 1, "transformers_version": "4.45.0"}
    seq2seq_reference.write_generation_config(a.out_dir, gen, a)
    write_tokenizer(a.out_dir, a.vocab)
    dtype = safetensors_io.FROM_OPTION[a.dtype]
    scale = {"embed": 0.5, "matrix": a.std, "bias": 0.1, "norm": 0.1}
    tensors = []
    for i, (name, shape, kind) in enumerate(param_specs(cfg)):
        rng = np.random.default_rng([a.seed, i])
        z = rng.standard_normal(shape, dtype=np.float32) * np.float32(scale[kind])
        if kind == "norm":
            z += np.float32(1.0)
        if name == "final_logits_bias":
            z[0, 2] += np.float32(a.eos_bias)  # </s> more likely: beams close at varied lengths
        tensors.append((name, dtype, shape, z))
    safetensors_io.write_checkpoint(a.out_dir, tensors, a.shards)


# --- the model ------------------------------------------------------------------------------


class Bart:
    def __init__(self, cfg, w):
        self.cfg, self.w = cfg, w
        self.D = cfg["d_model"]
        self.pre = cfg["model_type"] == "mbart"
        self.scale = math.sqrt(self.D) if cfg.get("scale_embedding", False) else 1.0
        F = torch.nn.functional
        self.act = {"gelu": F.gelu, "relu": F.relu, "silu": F.silu, "swish": F.silu,
                    "gelu_new": lambda x: F.gelu(x, approximate="tanh")}[
            cfg.get("activation_function", "gelu")]

    def lin(self, x, p):
        return x @ self.w[p + ".weight"].T + self.w[p + ".bias"]

    def ln(self, x, p):
        return torch.nn.functional.layer_norm(x, (self.D,), self.w[p + ".weight"],
                                              self.w[p + ".bias"], 1e-5)

    def attention(self, x, kv, p, H, causal):
        B, T, D = x.shape
        S, hd = kv.shape[1], D // H
        q = (self.lin(x, p + ".q_proj") * hd ** -0.5).view(B, T, H, hd).transpose(1, 2)
        k = self.lin(kv, p + ".k_proj").view(B, S, H, hd).transpose(1, 2)
        v = self.lin(kv, p + ".v_proj").view(B, S, H, hd).transpose(1, 2)
        scores = q @ k.transpose(2, 3)
        if causal:
            mask = torch.triu(torch.ones(T, S, dtype=torch.bool), diagonal=1)
            scores = scores.masked_fill(mask, torch.finfo(torch.float32).min)
        wts = torch.softmax(scores, dim=-1)
        ctx = (wts @ v).transpose(1, 2).reshape(B, T, D)
        return self.lin(ctx, p + ".out_proj"), wts

    def block(self, x, fn, norm):
        if self.pre:
            return x + fn(self.ln(x, norm))
        return self.ln(x + fn(x), norm)

    def embed(self, ids, side):
        T = ids.shape[1]
        x = torch.nn.functional.embedding(ids, self.w["model.shared.weight"]) * self.scale
        pos = self.w["model.%s.embed_positions.weight" % side][OFFSET:OFFSET + T]
        return self.ln(x + pos, "model.%s.layernorm_embedding" % side)

    def run_stack(self, ids, side, enc=None):
        cfg = self.cfg
        x = self.embed(ids, side)
        H = cfg[side + "_attention_heads"]
        hidden, attns, cross = [], [], []
        for l in range(cfg[side + "_layers"]):
            p = "model.%s.layers.%d." % (side, l)
            hidden.append(x)
            got = {}

            def self_attn(h, p=p, got=got):
                o, got["w"] = self.attention(h, h, p + "self_attn", H, side == "decoder")
                return o
            x = self.block(x, self_attn, p + "self_attn_layer_norm")
            if side == "decoder":
                def cross_attn(h, p=p, got=got):
                    o, got["c"] = self.attention(h, enc, p + "encoder_attn", H, False)
                    return o
                x = self.block(x, cross_attn, p + "encoder_attn_layer_norm")
                cross.append(got["c"])
            x = self.block(x, lambda h, p=p: self.lin(self.act(self.lin(h, p + "fc1")), p + "fc2"),
                           p + "final_layer_norm")
            attns.append(got["w"])
        if self.pre:
            x = self.ln(x, "model.%s.layer_norm" % side)
        hidden.append(x)
        return x, hidden, attns, cross

    def encode(self, src):
        x, hidden, attns, _ = self.run_stack(src, "encoder")
        return x, hidden, attns

    def decode(self, tgt, enc, last_only=False):
        x, hidden, attns, cross = self.run_stack(tgt, "decoder", enc)
        logits = x @ self.w["model.shared.weight"].T + self.w["final_logits_bias"]
        return {"logits": logits, "hidden": hidden, "attentions": attns, "cross": cross}


def load_model(model_dir):
    _import_torch()
    with open(os.path.join(model_dir, "config.json"), encoding="utf-8") as f:
        cfg = json.load(f)
    ckpt = safetensors_io.Checkpoint(model_dir)
    w = {}
    for name, shape, _ in param_specs(cfg):
        if name not in ckpt.entries or ckpt.shape(name) != shape:
            raise ValueError("%s: tensor %s missing or not of shape %s" % (model_dir, name, shape))
        w[name] = torch.from_numpy(ckpt.read(name))
    return Bart(cfg, w)


def run_pair(model, src, tgt):
    with torch.no_grad():
        enc, hidden, attns = model.encode(torch.tensor([src]))
        out = model.decode(torch.tensor([tgt]), enc)

    def stack(xs):
        return torch.stack([x[0] for x in xs]).numpy().astype(np.float32)
    return {"source_ids": np.asarray(src, np.int64), "target_ids": np.asarray(tgt, np.int64),
            "encoder_attentions": stack(attns), "encoder_hidden_states": stack(hidden),
            "decoder_attentions": stack(out["attentions"]),
            "cross_attentions": stack(out["cross"]),
            "decoder_hidden_states": stack(out["hidden"]),
            "logits": out["logits"][0].numpy().astype(np.float32)}


def cmd_expected(a):
    import h5py
    if len(a.src_ids) != len(a.tgt_ids):
        sys.exit("bart_reference: give as many --src-ids as --tgt-ids")
    model = load_model(a.model_dir)
    if a.no_positions:
        # both stacks' learned position tables left out, as attnscope's --no-positions does
        for side in ("encoder", "decoder"):
            key = "model.%s.embed_positions.weight" % side
            model.w[key] = torch.zeros_like(model.w[key])
    tmp = a.out + ".tmp"
    with h5py.File(tmp, "w") as f:
        f.attrs["model"] = os.path.basename(os.path.normpath(a.model_dir))
        f.attrs["torch_version"] = str(torch.__version__)
        for n, (s, t) in enumerate(zip(a.src_ids, a.tgt_ids)):
            g = f.create_group("seq%d" % n)
            for key, arr in run_pair(model, parse_ids(s), parse_ids(t)).items():
                g.create_dataset(key, data=arr)
    os.replace(tmp, a.out)


def cmd_generate(a):
    seq2seq_reference.cmd_generate(load_model, a)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("make-model")
    m.add_argument("out_dir")
    m.add_argument("--model-type", default="bart", choices=("bart", "mbart"))
    for opt, default in (("--layers", 2), ("--decoder-layers", 0), ("--heads", 4),
                         ("--d-model", 64), ("--ffn", 96), ("--vocab", 300),
                         ("--positions", 300), ("--shards", 1), ("--seed", 0)):
        m.add_argument(opt, type=int, default=default)
    seq2seq_reference.add_generation_options(m)
    m.add_argument("--act", default="gelu")
    m.add_argument("--scale-embedding", action="store_true")
    m.add_argument("--dtype", default="f32", choices=("f32", "bf16"))
    m.add_argument("--std", type=float, default=0.1)
    m.add_argument("--eos-bias", type=float, default=0.0)
    e = sub.add_parser("expected")
    e.add_argument("model_dir")
    e.add_argument("out")
    e.add_argument("--src-ids", action="append", required=True)
    e.add_argument("--tgt-ids", action="append", required=True)
    e.add_argument("--no-positions", action="store_true",
                   help="leave out the position embeddings of both stacks")
    seq2seq_reference.add_generate_parser(sub)
    a = ap.parse_args(argv)
    if a.cmd == "make-model":
        cmd_make_model(a)
    else:
        {"expected": cmd_expected, "generate": cmd_generate}[a.cmd](a)


if __name__ == "__main__":
    main()
