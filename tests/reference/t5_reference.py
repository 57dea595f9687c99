#!/usr/bin/python3
"""t5_reference.py — the project's independent PyTorch reference for T5-family models (HF
T5ForConditionalGeneration: t5 v1.0, v1.1 / Flan-T5, mt5; UMT5ForConditionalGeneration: umt5),
following transformers' models/t5/modeling_t5.py and models/umt5/modeling_umt5.py eager code
(v4.40-v4.45), configuration_t5.py and configuration_umt5.py; transformers itself is not used.

Maths (modeling_t5.py):
  T5LayerNorm: w * (x * rsqrt(mean(x^2) + eps)), variance in float32, no mean, no bias.
  T5Attention: q, k, v, o without biases; scores = q k^T (no 1/sqrt(d_kv)); + position_bias;
    softmax in float32; o(P v). The layer with has_relative_attention_bias (block 0 of each
    stack) computes position_bias = relative_attention_bias(bucket(key - query)) [1,H,Tq,Tk]
    (+ the mask: finfo.min where masked) and every later layer reuses it. umt5
    (UMT5LayerSelfAttention: has_relative_attention_bias=True in every block) gives every
    layer's self-attention its own table and computes its own bias from it. The decoder's
    cross-attention has no bias table: its bias is zeros.
  _relative_position_bucket: bidirectional (encoder) halves the buckets, the upper half for
    keys after the query; causal (decoder) counts only the past (the future is bucket 0);
    distances below max_exact = buckets/2 are exact, larger ones logarithmic up to
    max_distance, clamped to the last bucket.
  Block: x += SelfAttn(RMS(x)); (decoder) x += CrossAttn(RMS(x), enc); x += FF(RMS(x));
    FF: wo(act(wi(x))) or wo(act(wi_0(x)) * wi_1(x)) ("gated-"), feed_forward_proj
    "gated-gelu" meaning gelu_new.
  Stack: x = shared[ids]; the blocks; final_layer_norm. hidden_states: the embeddings, every
    block's output but the last, then the final-normed output (HF's T5Stack).
  Head: lm_logits = lm_head(y * d_model**-0.5 when tie_word_embeddings else y).

Subcommands (the C tests call exactly these):
  make-model OUT_DIR [--model-type t5|mt5|umt5] [--layers L] [--decoder-layers Ld] [--heads H]
             [--d-model D] [--d-kv K] [--d-ff F] [--vocab V] [--buckets B] [--max-distance M]
             [--ff-proj relu|gated-gelu|...] [--tie|--no-tie] [--dtype f32|bf16] [--shards N]
             [--seed S] [--num-beams K] [--max-length N] [--min-length N] [--gen KEY=JSON]...
             [--stored-buckets B2]
             [--tokenizer TEXT]
      config.json, generation_config.json and safetensors weights with HF's state-dict names
      (random; each tensor its own numpy Generator (seed, index)). --stored-buckets writes
      relative_attention_bias tables of another bucket count than config.json says (bad input);
      --drop-bias-layer K (umt5) leaves out the encoder's layer K table (bad input);
      --tokenizer trains T5's Unigram tokenizer.json (at most V pieces) on the text file TEXT.
  expected MODEL_DIR OUT.h5 --src-ids 1,2 --tgt-ids 0,5 [...]
      per pair a group /seqN: source_ids, target_ids, encoder_attentions [L,H,S,S],
      encoder_hidden_states [L+1,S,D], encoder_position_bias [H,S,S], decoder_attentions
      [Ld,H,T,T], cross_attentions [Ld,H,T,S], decoder_hidden_states [Ld+1,T,D],
      decoder_position_bias [H,T,T] (masked entries 0), logits [T,V]; float32. For umt5 the
      position biases are per layer: [L,H,S,S] and [Ld,H,T,T].
  generate MODEL_DIR --src-ids IDS [--beams K] [--max-length N] [--json | --out FILE]
      greedy or beam search as HF generate() with the model's generation_config.json
      (marian_generate.py's processors and beam bookkeeping, which T5 shares).
  bench MODEL_DIR --src-ids IDS --max-length N [--repeat R]
      seconds of greedy generation (every step re-running the decoder with its attentions
      captured, as output_attentions does) and of one full capture pass; --json.
"""

import argparse
import json
import math
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import safetensors_io  # noqa: E402
import seq2seq_reference  # noqa: E402
from seq2seq_reference import parse_ids, read_generation  # noqa: E402

torch = None


def _import_torch(threads=2):
    global torch
    import torch as t
    t.set_num_threads(threads)
    torch = t


# --- layout ---------------------------------------------------------------------------------


def default_tie(model_type):
    """tie_word_embeddings when config.json does not say: MT5Config's default is false,
    T5Config's and UMT5Config's (transformers 4.x) true."""
    return model_type != "mt5"


def param_specs(cfg, stored_buckets=None, drop_bias_layer=None):
    """[(name, shape, kind)] in T5ForConditionalGeneration's state-dict order."""
    D, H, K, F = cfg["d_model"], cfg["num_heads"], cfg["d_kv"], cfg["d_ff"]
    I, V = H * K, cfg["vocab_size"]
    nb = stored_buckets or cfg["relative_attention_num_buckets"]
    gated = cfg["feed_forward_proj"].startswith("gated-")
    every_layer = cfg["model_type"] == "umt5"
    out = [("shared.weight", (V, D), "embed")]

    def attn(p, name, bias):
        r = [(p + name + ".q.weight", (I, D), "matrix"), (p + name + ".k.weight", (I, D), "matrix"),
             (p + name + ".v.weight", (I, D), "matrix"), (p + name + ".o.weight", (D, I), "matrix")]
        if bias:
            r.append((p + name + ".relative_attention_bias.weight", (nb, H), "bias_table"))
        return r

    def ff(p):
        if gated:
            r = [(p + "DenseReluDense.wi_0.weight", (F, D), "matrix"),
                 (p + "DenseReluDense.wi_1.weight", (F, D), "matrix")]
        else:
            r = [(p + "DenseReluDense.wi.weight", (F, D), "matrix")]
        return r + [(p + "DenseReluDense.wo.weight", (D, F), "matrix"),
                    (p + "layer_norm.weight", (D,), "norm")]

    for side, n in (("encoder", cfg["num_layers"]), ("decoder", cfg["num_decoder_layers"])):
        for l in range(n):
            p = "%s.block.%d.layer." % (side, l)
            table = (l == 0 or every_layer) and not (side == "encoder" and l == drop_bias_layer)
            out += attn(p + "0.", "SelfAttention", table)
            out.append((p + "0.layer_norm.weight", (D,), "norm"))
            if side == "decoder":
                out += attn(p + "1.", "EncDecAttention", False)
                out.append((p + "1.layer_norm.weight", (D,), "norm"))
                out += ff(p + "2.")
            else:
                out += ff(p + "1.")
        out.append(("%s.final_layer_norm.weight" % side, (D,), "norm"))
    if not cfg["tie_word_embeddings"]:
        out.append(("lm_head.weight", (V, D), "matrix"))
    return out


def make_config(a):
    arch = "UMT5ForConditionalGeneration" if a.model_type == "umt5" else \
        "T5ForConditionalGeneration"
    cfg = {"architectures": [arch], "model_type": a.model_type,
           "d_model": a.d_model, "d_kv": a.d_kv, "d_ff": a.d_ff, "num_layers": a.layers,
           "num_decoder_layers": a.decoder_layers or a.layers, "num_heads": a.heads,
           "vocab_size": a.vocab, "relative_attention_num_buckets": a.buckets,
           "relative_attention_max_distance": a.max_distance, "feed_forward_proj": a.ff_proj,
           "dense_act_fn": "gelu_new" if a.ff_proj == "gated-gelu" else a.ff_proj.split("-")[-1],
           "is_gated_act": a.ff_proj.startswith("gated-"),
           "layer_norm_epsilon": 1e-6, "dropout_rate": 0.1, "initializer_factor": 1.0,
           "is_encoder_decoder": True, "use_cache": True, "pad_token_id": 0, "eos_token_id": 1,
           "decoder_start_token_id": 0, "tie_word_embeddings": a.tie,
           "torch_dtype": safetensors_io.TORCH_DTYPE[safetensors_io.FROM_OPTION[a.dtype]],
           "transformers_version": "4.45.0"}
    if a.model_type == "t5" and a.ff_proj == "relu":
        cfg["n_positions"] = 512
    return cfg


def write_tokenizer(text_path, out_dir, vocab):
    """T5's tokenizer.json: a SentencePiece Unigram model trained on TEXT_PATH (at most VOCAB
    pieces; <pad> 0, </s> 1, <unk> 2) converted as transformers' T5 converter does
    (tokenizer-peer/make-spm-tokenizer.py). Returns the number of pieces."""
    import importlib.util
    import tempfile
    import sentencepiece as spm
    here = os.path.dirname(os.path.abspath(__file__))
    spec = importlib.util.spec_from_file_location(
        "make_spm_tokenizer", os.path.join(here, "tokenizer-peer", "make-spm-tokenizer.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    with tempfile.TemporaryDirectory() as tmp:
        prefix = os.path.join(tmp, "spm")
        lines = os.path.join(tmp, "lines.txt")  # one sentence a line: spm_train's unit
        with open(text_path, encoding="utf-8") as f, open(lines, "w", encoding="utf-8") as out:
            for sentence in f.read().replace(". ", ".\n").splitlines():
                if sentence.strip():
                    out.write(sentence.strip() + "\n")
        spm.SentencePieceTrainer.train(
            input=lines, model_prefix=prefix, model_type="unigram", vocab_size=vocab,
            normalization_rule_name="nmt_nfkc", character_coverage=1.0, unk_id=2, bos_id=-1,
            eos_id=1, pad_id=0, minloglevel=2, hard_vocab_limit=False, num_threads=1)
        with open(prefix + ".model", "rb") as f:
            model_bytes = f.read()
        sp = spm.SentencePieceProcessor(model_file=prefix + ".model")
        vocab_list = [[sp.id_to_piece(i), sp.get_score(i)] for i in range(sp.get_piece_size())]
    tok = {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [{"id": i, "content": c, "single_word": False, "lstrip": False,
                          "rstrip": False, "normalized": False, "special": True}
                         for i, c in enumerate(("<pad>", "</s>", "<unk>"))],
        "normalizer": {"type": "Sequence", "normalizers": [
            {"type": "Precompiled", "precompiled_charsmap":
             __import__("base64").b64encode(mod.charsmap(model_bytes)).decode()},
            {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "}]},
        "pre_tokenizer": {"type": "Metaspace", "replacement": "\u2581",
                          "prepend_scheme": "always", "split": True},
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [{"Sequence": {"id": "A", "type_id": 0}},
                       {"SpecialToken": {"id": "</s>", "type_id": 0}}],
            "pair": [{"Sequence": {"id": "A", "type_id": 0}},
                     {"SpecialToken": {"id": "</s>", "type_id": 0}},
                     {"Sequence": {"id": "B", "type_id": 0}},
                     {"SpecialToken": {"id": "</s>", "type_id": 0}}],
            "special_tokens": {"</s>": {"id": "</s>", "ids": [1], "tokens": ["</s>"]}}},
        "decoder": {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always",
                    "split": True},
        "model": {"type": "Unigram", "unk_id": 2, "vocab": vocab_list, "byte_fallback": False},
    }
    with open(os.path.join(out_dir, "tokenizer.json"), "w", encoding="utf-8") as f:
        json.dump(tok, f, ensure_ascii=False)
    return len(vocab_list)


def cmd_make_model(a):
    os.makedirs(a.out_dir, exist_ok=True)
    if a.tokenizer:
        pieces = write_tokenizer(a.tokenizer, a.out_dir, a.vocab)
        if pieces > a.vocab:
            sys.exit("t5_reference: the tokenizer has %d pieces, more than --vocab %d"
                     % (pieces, a.vocab))
    cfg = make_config(a)
    safetensors_io.write_json(os.path.join(a.out_dir, "config.json"), cfg)
    gen = {"decoder_start_token_id": 0, "eos_token_id": 1, "pad_token_id": 0,
           "transformers_version": "4.45.0"}
    seq2seq_reference.write_generation_config(a.out_dir, gen, a)
    dtype = safetensors_io.FROM_OPTION[a.dtype]
    scale = {"embed": 0.5, "matrix": a.std, "bias_table": 0.5, "norm": 0.1}
    tensors = []
    for i, (name, shape, kind) in enumerate(param_specs(cfg, a.stored_buckets,
                                                        a.drop_bias_layer)):
        rng = np.random.default_rng([a.seed, i])
        z = rng.standard_normal(shape, dtype=np.float32) * np.float32(scale[kind])
        if kind == "norm":
            z += np.float32(1.0)
        tensors.append((name, dtype, shape, z))
    safetensors_io.write_checkpoint(a.out_dir, tensors, a.shards)


# --- the model ------------------------------------------------------------------------------


def relative_position_bucket(relative_position, bidirectional, num_buckets, max_distance):
    """HF T5Attention._relative_position_bucket."""
    relative_buckets = 0
    if bidirectional:
        num_buckets //= 2
        relative_buckets += (relative_position > 0).to(torch.long) * num_buckets
        relative_position = torch.abs(relative_position)
    else:
        relative_position = -torch.min(relative_position, torch.zeros_like(relative_position))
    max_exact = num_buckets // 2
    is_small = relative_position < max_exact
    large = max_exact + (
        torch.log(relative_position.float() / max_exact)
        / math.log(max_distance / max_exact)
        * (num_buckets - max_exact)
    ).to(torch.long)
    large = torch.min(large, torch.full_like(large, num_buckets - 1))
    relative_buckets += torch.where(is_small, relative_position, large)
    return relative_buckets


class T5:
    def __init__(self, cfg, w):
        self.cfg, self.w = cfg, w
        self.H, self.K = cfg["num_heads"], cfg["d_kv"]
        self.eps = cfg.get("layer_norm_epsilon", 1e-6)
        proj = cfg.get("feed_forward_proj", "relu")
        self.gated = proj.startswith("gated-")
        act = "gelu_new" if proj == "gated-gelu" else proj.split("-")[-1]
        self.act = {"relu": torch.relu, "gelu": torch.nn.functional.gelu, "silu":
                    torch.nn.functional.silu, "gelu_new": self._gelu_new}[act]
        self.tie = cfg.get("tie_word_embeddings", default_tie(cfg["model_type"]))
        self.every_layer = cfg["model_type"] == "umt5"
        # marian_generate.py reads these
        self.cfg = dict(cfg, max_position_embeddings=1 << 22)

    @staticmethod
    def _gelu_new(x):
        return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi)
                                           * (x + 0.044715 * torch.pow(x, 3.0))))

    def rms(self, x, name):
        variance = x.to(torch.float32).pow(2).mean(-1, keepdim=True)
        return self.w[name] * (x * torch.rsqrt(variance + self.eps))

    def lin(self, x, name):
        return x @ self.w[name].T

    def compute_bias(self, table, q_len, k_len, bidirectional):
        ctx = torch.arange(q_len, dtype=torch.long)[:, None]
        mem = torch.arange(k_len, dtype=torch.long)[None, :]
        buckets = relative_position_bucket(mem - ctx, bidirectional,
                                           self.cfg["relative_attention_num_buckets"],
                                           self.cfg["relative_attention_max_distance"])
        values = torch.nn.functional.embedding(buckets, table)  # [q, k, H]
        return values.permute([2, 0, 1]).unsqueeze(0)  # [1, H, q, k]

    def attention(self, x, kv, p, bias):
        B, T, _ = x.shape
        S = kv.shape[1]
        q = self.lin(x, p + ".q.weight").view(B, T, self.H, self.K).transpose(1, 2)
        k = self.lin(kv, p + ".k.weight").view(B, S, self.H, self.K).transpose(1, 2)
        v = self.lin(kv, p + ".v.weight").view(B, S, self.H, self.K).transpose(1, 2)
        scores = torch.matmul(q, k.transpose(3, 2)) + bias
        weights = torch.nn.functional.softmax(scores.float(), dim=-1).type_as(scores)
        ctx = torch.matmul(weights, v).transpose(1, 2).contiguous().view(B, T, self.H * self.K)
        return self.lin(ctx, p + ".o.weight"), weights

    def ff(self, x, p):
        if self.gated:
            h = self.act(self.lin(x, p + "DenseReluDense.wi_0.weight")) * \
                self.lin(x, p + "DenseReluDense.wi_1.weight")
        else:
            h = self.act(self.lin(x, p + "DenseReluDense.wi.weight"))
        return self.lin(h, p + "DenseReluDense.wo.weight")

    def encode(self, src):
        """src [B,S] -> (last hidden [B,S,D], hidden states, attentions, bias [H,S,S])."""
        x = torch.nn.functional.embedding(src, self.w["shared.weight"])
        S = src.shape[1]
        hidden, attns, biases = [], [], []
        for l in range(self.cfg["num_layers"]):
            p = "encoder.block.%d.layer." % l
            if l == 0 or self.every_layer:
                bias = self.compute_bias(
                    self.w[p + "0.SelfAttention.relative_attention_bias.weight"], S, S, True)
            biases.append(bias[0])
            hidden.append(x)
            a, wts = self.attention(self.rms(x, p + "0.layer_norm.weight"),
                                    self.rms(x, p + "0.layer_norm.weight"),
                                    p + "0.SelfAttention", bias)
            x = x + a
            x = x + self.ff(self.rms(x, p + "1.layer_norm.weight"), p + "1.")
            attns.append(wts)
        x = self.rms(x, "encoder.final_layer_norm.weight")
        hidden.append(x)
        self.last_encoder = (hidden, attns,
                             torch.stack(biases) if self.every_layer else biases[0])
        return x, hidden, attns

    def decode(self, tgt, enc, last_only=False):
        """tgt [B,T], enc [B,S,D] -> dict logits [B,T,V] (+ captures)."""
        x = torch.nn.functional.embedding(tgt, self.w["shared.weight"])
        T = tgt.shape[1]
        causal = torch.tril(torch.ones(T, T))
        hidden, attns, cross, biases = [], [], [], []
        zero = torch.zeros(1, self.H, T, enc.shape[1])
        for l in range(self.cfg["num_decoder_layers"]):
            p = "decoder.block.%d.layer." % l
            if l == 0 or self.every_layer:
                bias = self.compute_bias(
                    self.w[p + "0.SelfAttention.relative_attention_bias.weight"], T, T, False)
                masked = bias + (1.0 - causal)[None, None] * torch.finfo(torch.float32).min
            biases.append((bias * causal)[0])
            hidden.append(x)
            n = self.rms(x, p + "0.layer_norm.weight")
            a, wts = self.attention(n, n, p + "0.SelfAttention", masked)
            x = x + a
            c, cw = self.attention(self.rms(x, p + "1.layer_norm.weight"), enc,
                                   p + "1.EncDecAttention", zero)
            x = x + c
            x = x + self.ff(self.rms(x, p + "2.layer_norm.weight"), p + "2.")
            attns.append(wts)
            cross.append(cw)
        x = self.rms(x, "decoder.final_layer_norm.weight")
        hidden.append(x)
        y = x * (self.cfg["d_model"] ** -0.5) if self.tie else x
        head = self.w["shared.weight"] if self.tie else self.w["lm_head.weight"]
        logits = y @ head.T
        return {"logits": logits, "hidden": hidden, "attentions": attns, "cross": cross,
                "bias": torch.stack(biases) if self.every_layer else biases[0]}


def generate_cached(model, src_ids, gen, max_length):
    """Greedy search as HF's generate() runs it with use_cache: the decoder sees one new token per
    step, its self-attention keys and values are kept per layer, the cross-attention keys and
    values are computed once from the encoder, and the relative position bias is the new query's
    row. Returns the ids (start token included). Checked against the uncached search in
    cmd_bench."""
    import marian_generate
    _, n, start = marian_generate._settings(model, gen, 1, max_length)
    m, cfg = model, model.cfg
    H, K = m.H, m.K
    enc, _, _ = m.encode(torch.tensor([src_ids], dtype=torch.long))
    proc = marian_generate.Processors(gen, cfg["vocab_size"], n)
    eos = gen.get("eos_token_id")
    L = cfg["num_decoder_layers"]
    S = enc.shape[1]

    def heads(x, rows):
        return x.view(1, rows, H, K).transpose(1, 2)

    cross = []
    for l in range(L):
        p = "decoder.block.%d.layer.1.EncDecAttention" % l
        cross.append((heads(m.lin(enc, p + ".k.weight"), S), heads(m.lin(enc, p + ".v.weight"), S)))
    keys, values = [[] for _ in range(L)], [[] for _ in range(L)]
    seq = [start]
    while len(seq) < n:
        t = len(seq) - 1  # the new token's position
        x = torch.nn.functional.embedding(torch.tensor([[seq[-1]]]), m.w["shared.weight"])
        for l in range(L):
            p = "decoder.block.%d.layer." % l
            if l == 0 or m.every_layer:
                bias = m.compute_bias(m.w[p + "0.SelfAttention.relative_attention_bias.weight"],
                                      t + 1, t + 1, False)[:, :, t:, :]  # [1, H, 1, t + 1]
            a_in = m.rms(x, p + "0.layer_norm.weight")
            q = heads(m.lin(a_in, p + "0.SelfAttention.q.weight"), 1)
            keys[l].append(heads(m.lin(a_in, p + "0.SelfAttention.k.weight"), 1))
            values[l].append(heads(m.lin(a_in, p + "0.SelfAttention.v.weight"), 1))
            k, v = torch.cat(keys[l], dim=2), torch.cat(values[l], dim=2)
            w = torch.nn.functional.softmax((q @ k.transpose(3, 2) + bias).float(), dim=-1)
            ctx = (w @ v).transpose(1, 2).reshape(1, 1, H * K)
            x = x + m.lin(ctx, p + "0.SelfAttention.o.weight")
            c_in = m.rms(x, p + "1.layer_norm.weight")
            q = heads(m.lin(c_in, p + "1.EncDecAttention.q.weight"), 1)
            ck, cv = cross[l]
            w = torch.nn.functional.softmax((q @ ck.transpose(3, 2)).float(), dim=-1)
            ctx = (w @ cv).transpose(1, 2).reshape(1, 1, H * K)
            x = x + m.lin(ctx, p + "1.EncDecAttention.o.weight")
            x = x + m.ff(m.rms(x, p + "2.layer_norm.weight"), p + "2.")
        x = m.rms(x, "decoder.final_layer_norm.weight")
        y = x * (cfg["d_model"] ** -0.5) if m.tie else x
        head = m.w["shared.weight"] if m.tie else m.w["lm_head.weight"]
        logits = (y @ head.T)[:, -1]
        tok = int(torch.argmax(proc([seq], logits), dim=-1)[0])
        seq.append(tok)
        if tok == eos:
            break
    return seq


def load_model(model_dir):
    _import_torch()
    with open(os.path.join(model_dir, "config.json"), encoding="utf-8") as f:
        cfg = json.load(f)
    cfg.setdefault("num_decoder_layers", cfg["num_layers"])
    cfg.setdefault("tie_word_embeddings", default_tie(cfg["model_type"]))
    ckpt = safetensors_io.Checkpoint(model_dir)
    w = {}
    for name, shape, _ in param_specs(cfg):
        if name not in ckpt.entries or ckpt.shape(name) != shape:
            raise ValueError("%s: tensor %s missing or not of shape %s" % (model_dir, name, shape))
        w[name] = torch.from_numpy(ckpt.read(name))
    return T5(cfg, w)


def run_pair(model, src, tgt):
    with torch.no_grad():
        enc, hidden, attns = model.encode(torch.tensor([src]))
        ebias = model.last_encoder[2]
        out = model.decode(torch.tensor([tgt]), enc)

    def stack(xs):
        return torch.stack([x[0] for x in xs]).numpy().astype(np.float32)
    return {"source_ids": np.asarray(src, np.int64), "target_ids": np.asarray(tgt, np.int64),
            "encoder_attentions": stack(attns), "encoder_hidden_states": stack(hidden),
            "encoder_position_bias": ebias.numpy().astype(np.float32),
            "decoder_attentions": stack(out["attentions"]),
            "cross_attentions": stack(out["cross"]),
            "decoder_hidden_states": stack(out["hidden"]),
            "decoder_position_bias": out["bias"].numpy().astype(np.float32),
            "logits": out["logits"][0].numpy().astype(np.float32)}


def cmd_expected(a):
    import h5py
    if len(a.src_ids) != len(a.tgt_ids):
        sys.exit("t5_reference: give as many --src-ids as --tgt-ids")
    model = load_model(a.model_dir)
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


def cmd_bench(a):
    """Greedy generation, then one pass keeping every attention, hidden state and logit. The
    search keeps keys and values as HF's generate() does with use_cache (generate_cached);
    --no-cache re-runs the whole decoder over the prefix at every step instead. The cached search
    must give the uncached one's ids (checked once, untimed)."""
    model = load_model(a.model_dir)
    torch.set_num_threads(a.threads)
    src = parse_ids(a.src_ids)
    gen = read_generation(a.model_dir)
    import marian_generate
    with torch.no_grad():
        plain, _ = marian_generate.generate(model, src, gen, 1, a.max_length)
        cached = generate_cached(model, src, gen, a.max_length)
    if cached != plain:
        raise SystemExit("the cached search gave %s, the uncached one %s" % (cached, plain))
    times = []
    for _ in range(a.repeat):
        t0 = time.perf_counter()
        with torch.no_grad():
            if a.cache:
                ids = generate_cached(model, src, gen, a.max_length)
            else:
                ids, _ = marian_generate.generate(model, src, gen, 1, a.max_length)
            enc, _, _ = model.encode(torch.tensor([src]))
            model.decode(torch.tensor([ids]), enc)
        times.append(time.perf_counter() - t0)
    out = {"seconds": min(times), "ids": ids, "threads": a.threads, "cache": a.cache}
    print(json.dumps(out) if a.json else "%.4f s" % out["seconds"])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("make-model")
    m.add_argument("out_dir")
    m.add_argument("--model-type", default="t5", choices=("t5", "mt5", "umt5"))
    m.add_argument("--drop-bias-layer", type=int)
    for opt, default in (("--layers", 2), ("--decoder-layers", 0), ("--heads", 4),
                         ("--d-model", 64), ("--d-kv", 16), ("--d-ff", 96), ("--vocab", 300),
                         ("--buckets", 32), ("--max-distance", 128), ("--shards", 1),
                         ("--seed", 0), ("--stored-buckets", 0)):
        m.add_argument(opt, type=int, default=default)
    seq2seq_reference.add_generation_options(m)
    m.add_argument("--ff-proj", default="relu")
    m.add_argument("--tie", dest="tie", action="store_true", default=True)
    m.add_argument("--no-tie", dest="tie", action="store_false")
    m.add_argument("--dtype", default="f32", choices=("f32", "bf16"))
    m.add_argument("--std", type=float, default=0.1)
    m.add_argument("--tokenizer", help="train T5's Unigram tokenizer.json on this text file")
    e = sub.add_parser("expected")
    e.add_argument("model_dir")
    e.add_argument("out")
    e.add_argument("--src-ids", action="append", required=True)
    e.add_argument("--tgt-ids", action="append", required=True)
    seq2seq_reference.add_generate_parser(sub)
    b = sub.add_parser("bench")
    b.add_argument("model_dir")
    b.add_argument("--src-ids", required=True)
    b.add_argument("--max-length", type=int, default=21)
    b.add_argument("--repeat", type=int, default=3)
    b.add_argument("--threads", type=int, default=2)
    b.add_argument("--json", action="store_true")
    b.add_argument("--no-cache", dest="cache", action="store_false", default=True,
                   help="re-run the decoder over the whole prefix at every step")
    a = ap.parse_args(argv)
    if a.cmd == "make-model":
        cmd_make_model(a)
    else:
        {"expected": cmd_expected, "generate": cmd_generate, "bench": cmd_bench}[a.cmd](a)


if __name__ == "__main__":
    main()
