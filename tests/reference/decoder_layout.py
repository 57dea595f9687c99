"""decoder_layout.py — Llama-family, Qwen3, Phi-3 and GPT-NeoX models in the exact Hugging Face
folder layout.

What a user downloads from the hub for LlamaForCausalLM, MistralForCausalLM, Qwen2ForCausalLM,
Qwen3ForCausalLM, Phi3ForCausalLM and GPTNeoXForCausalLM: config.json with the keys the hub configs carry, and safetensors
weights with HF's state-dict names, single-file or sharded (safetensors_io.py). Also reads a
config.json back into the few numbers the forward pass needs (Spec), with HF's defaults.
No torch here.

State-dict names (transformers models/llama/modeling_llama.py, models/qwen2/modular_qwen2.py,
models/mistral/modular_mistral.py, models/gpt_neox/modular_gpt_neox.py), in module order:
  llama/mistral/qwen2: model.embed_tokens.weight [V,D]; per layer N, under model.layers.N.:
    self_attn.q_proj.weight [H*hd,D] (+ .bias: qwen2 always, llama if attention_bias),
    self_attn.k_proj / v_proj .weight [K*hd,D] (+ .bias likewise),
    self_attn.o_proj.weight [D,H*hd] (+ .bias only llama with attention_bias),
    mlp.gate_proj / mlp.up_proj .weight [I,D], mlp.down_proj.weight [D,I] (+ biases if llama
    mlp_bias), input_layernorm.weight [D], post_attention_layernorm.weight [D];
    model.norm.weight [D]; lm_head.weight [V,D] unless tie_word_embeddings.
  qwen3: as qwen2, with q/k/v biases and an o_proj bias only when attention_bias (default
    false), plus self_attn.q_norm.weight and self_attn.k_norm.weight [hd] (models/qwen3/
    modeling_qwen3.py).
  phi3: as llama without biases, but self_attn.qkv_proj.weight [H*hd + 2*K*hd, D] (rows q | k | v)
    instead of q/k/v_proj and mlp.gate_up_proj.weight [2I, D] (rows gate | up) instead of
    gate/up_proj (models/phi3/modeling_phi3.py). write_model(unfused=True) stores the same values
    split into q/k/v_proj and gate/up_proj, for the loader's test of both forms.
  gpt_neox: gpt_neox.embed_in.weight [V,D]; per layer under gpt_neox.layers.N.:
    input_layernorm.{weight,bias}, post_attention_layernorm.{weight,bias} [D],
    attention.query_key_value.{weight [3D,D], bias [3D]}, attention.dense.{weight [D,D], bias},
    mlp.dense_h_to_4h.{weight [I,D], bias [I]}, mlp.dense_4h_to_h.{weight [D,I], bias [D]};
    gpt_neox.final_layer_norm.{weight,bias}; embed_out.weight [V,D] unless tied.
  (NeoX attention biases follow attention_bias, default true.)

Meta's original layout (meta-llama/llama model.py, consolidated.*.pth names): tok_embeddings,
layers.N.attention.{wq,wk,wv,wo}, layers.N.feed_forward.{w1 = gate, w2 = down, w3 = up},
layers.N.attention_norm, layers.N.ffn_norm, norm, output. Its RoPE rotates adjacent pairs
(2i, 2i+1) of each head; HF's converter (models/llama/convert_llama_weights_to_hf.py) permutes
the rows of wq (with H heads) and wk (with K heads):
  w.view(n_heads, dim1 // n_heads // 2, 2, dim2).transpose(1, 2).reshape(dim1, dim2)
so that pair (2i, 2i+1) lands on rows (i, i + hd/2), where rotate_half applies.

Random values: each tensor has its own numpy Generator seeded with (seed, index of the tensor
in state-dict order), so values do not depend on sharding or file order. Matrices and
embeddings ~ N(0, std); linear biases ~ N(0, std/2); norm weights 1 + N(0, 0.1); LayerNorm
biases N(0, 0.05). Values are rounded to the stored dtype when written; readers widen them.
"""

import os

import numpy as np

import safetensors_io

ARCHITECTURES = {"llama": "LlamaForCausalLM", "mistral": "MistralForCausalLM",
                 "qwen2": "Qwen2ForCausalLM", "qwen3": "Qwen3ForCausalLM",
                 "phi3": "Phi3ForCausalLM", "gpt_neox": "GPTNeoXForCausalLM",
                 "gemma2": "Gemma2ForCausalLM", "gemma3_text": "Gemma3ForCausalLM"}
GEMMA = ("gemma2", "gemma3_text")
LONGROPE_TYPES = ("longrope", "su", "yarn")  # Phi3Config reads su and yarn as longrope
CHUNK_ELEMENTS = 1 << 23  # rows are drawn and written in chunks of at most this many values

# Shapes and config values of real checkpoints as their hub config.json gives them
# (HuggingFaceTB/SmolLM2-135M, meta-llama/Llama-3.2-1B, EleutherAI/pythia-70m,
# Qwen/Qwen2.5-0.5B, Qwen/Qwen3-0.6B, microsoft/Phi-3-mini-4k-instruct,
# TinyLlama/TinyLlama-1.1B-Chat-v1.0, google/gemma-3-270m); weights are random.
PRESETS = {
    "smollm2-135m": dict(family="llama", layers=30, heads=9, kv_heads=3, hidden=576,
                         intermediate=1536, vocab=49152, positions=8192, rope_theta=100000.0,
                         tie=True, dtype="bf16", eps=1e-5, bos=0, eos=0,
                         extra={"initializer_range": 0.041666666666666664,
                                "is_llama_config": True, "rope_interleaved": False}),
    "llama-3.2-1b": dict(family="llama", layers=16, heads=32, kv_heads=8, hidden=2048,
                         intermediate=8192, vocab=128256, positions=131072, head_dim=64,
                         rope_theta=500000.0, rope_scaling="llama3:32,1,4,8192", tie=True,
                         dtype="bf16", eps=1e-5, bos=128000, eos=128001),
    "pythia-70m": dict(family="gpt_neox", layers=6, heads=8, hidden=512, intermediate=2048,
                       vocab=50304, positions=2048, rope_theta=10000, rotary_pct=0.25,
                       tie=False, dtype="f16", eps=1e-5, bos=0, eos=0),
    "qwen2.5-0.5b": dict(family="qwen2", layers=24, heads=14, kv_heads=2, hidden=896,
                         intermediate=4864, vocab=151936, positions=32768,
                         rope_theta=1000000.0, tie=True, dtype="bf16", eps=1e-6, bos=151643,
                         eos=151643, extra={"max_window_layers": 24, "sliding_window": 32768}),
    "qwen3-0.6b": dict(family="qwen3", layers=28, heads=16, kv_heads=8, hidden=1024,
                       head_dim=128, intermediate=3072, vocab=151936, positions=40960,
                       rope_theta=1000000.0, tie=True, dtype="bf16", eps=1e-6, bos=151643,
                       eos=151645),
    "phi3-mini-4k": dict(family="phi3", layers=32, heads=32, kv_heads=32, hidden=3072,
                         intermediate=8192, vocab=32064, positions=4096, rope_theta=10000.0,
                         sliding_window=2047, tie=False, dtype="bf16", eps=1e-5, bos=1,
                         eos=32000),
    "tinyllama": dict(family="llama", layers=22, heads=32, kv_heads=4, hidden=2048,
                      intermediate=5632, vocab=32000, positions=2048, rope_theta=10000.0,
                      tie=False, dtype="bf16", eps=1e-5, bos=1, eos=2),
    # google/gemma-3-270m: 5 sliding layers (window 512) per global one
    "gemma-3-270m": dict(family="gemma3_text", layers=18, heads=4, kv_heads=1, hidden=640,
                         intermediate=2048, vocab=262144, positions=32768, head_dim=256,
                         rope_theta=1000000.0, sliding_window=512, tie=True, dtype="bf16",
                         eps=1e-6, bos=2, eos=1),
}


def longrope_factors(half):
    """Deterministic short and long factors for longrope (Phi-3-mini-128k's are ~1..1.1 short,
    ~1..60 long): short_i = 1 + 0.1 i/half, long_i = 1 + 59 (i/half)^2."""
    short = [round(1.0 + 0.1 * i / half, 6) for i in range(half)]
    long = [round(1.0 + 59.0 * (i / half) ** 2, 6) for i in range(half)]
    return short, long


def parse_rope_scaling(text, rotary_dim=None):
    """'linear:F', 'llama3:F,LOW,HIGH,ORIGINAL' or 'longrope[:ATTENTION_FACTOR]' -> the
    rope_scaling dict of config.json (longrope's factors for ROTARY_DIM)."""
    if not text:
        return None
    kind, _, args = text.partition(":")
    vals = [float(x) for x in args.split(",") if x.strip()]
    if kind == "longrope" and len(vals) <= 1:
        short, long = longrope_factors(rotary_dim // 2)
        out = {"type": "longrope", "short_factor": short, "long_factor": long}
        if vals:
            out["attention_factor"] = vals[0]
        return out
    if kind == "linear" and len(vals) == 1:
        return {"factor": vals[0], "rope_type": "linear", "type": "linear"}
    if kind == "llama3" and len(vals) == 4:
        return {"factor": vals[0], "low_freq_factor": vals[1], "high_freq_factor": vals[2],
                "original_max_position_embeddings": int(vals[3]), "rope_type": "llama3"}
    raise ValueError("--rope-scaling %r: expected linear:FACTOR, "
                     "llama3:FACTOR,LOW_FREQ_FACTOR,HIGH_FREQ_FACTOR,ORIGINAL_MAX or "
                     "longrope[:ATTENTION_FACTOR]" % text)


def make_config(o):
    """config.json for the options O (a dict with the make-model option names)."""
    fam = o["family"]
    cfg = {"architectures": [ARCHITECTURES[fam]], "model_type": fam,
           "bos_token_id": o.get("bos", 1), "eos_token_id": o.get("eos", 2),
           "hidden_size": o["hidden"], "intermediate_size": o["intermediate"],
           "num_attention_heads": o["heads"], "num_hidden_layers": o["layers"],
           "max_position_embeddings": o["positions"], "vocab_size": o["vocab"],
           "initializer_range": 0.02, "tie_word_embeddings": bool(o["tie"]),
           "torch_dtype": safetensors_io.TORCH_DTYPE[safetensors_io.FROM_OPTION[o["dtype"]]],
           "transformers_version": "4.45.0", "use_cache": True, "attention_dropout": 0.0}
    hd = o.get("head_dim") or {"qwen3": 128, "gemma2": 256, "gemma3_text": 256}.get(
        fam, o["hidden"] // o["heads"])
    scaling = parse_rope_scaling(o.get("rope_scaling"),
                                 int(hd * (o.get("partial_rotary") or 1.0)))
    if fam == "gpt_neox":
        cfg.update({"hidden_act": "gelu", "layer_norm_eps": o.get("eps") or 1e-5,
                    "rotary_emb_base": o.get("rope_theta") or 10000,
                    "rotary_pct": o.get("rotary_pct") or 0.25, "rope_scaling": scaling,
                    "use_parallel_residual": bool(o.get("parallel_residual", True)),
                    "hidden_dropout": 0.0, "classifier_dropout": 0.1})
    else:
        cfg.update({"hidden_act": "silu", "rms_norm_eps": o.get("eps") or 1e-6,
                    "num_key_value_heads": o.get("kv_heads") or o["heads"],
                    "rope_theta": float(o.get("rope_theta") or 10000.0),
                    "rope_scaling": scaling})
        if o.get("head_dim"):
            cfg["head_dim"] = o["head_dim"]
    if fam == "llama":
        cfg.update({"attention_bias": False, "mlp_bias": False, "pretraining_tp": 1})
    if fam == "mistral":
        cfg["sliding_window"] = o.get("sliding_window")
    if fam == "qwen3":
        cfg.update({"attention_bias": bool(o.get("attention_bias")), "head_dim": hd})
    if fam in GEMMA:
        del cfg["hidden_act"]
        caps = [float(x) for x in (o.get("softcap") or "").split(",") if x.strip()]
        w = o.get("sliding_window") or 4096
        pattern = o.get("sliding_pattern") or 6
        cfg.update({"hidden_activation": "gelu_pytorch_tanh", "head_dim": hd,
                    "attention_bias": bool(o.get("attention_bias")),
                    "query_pre_attn_scalar": o.get("query_pre_attn_scalar") or 256,
                    "sliding_window": w, "rms_norm_eps": o.get("eps") or 1e-6,
                    "num_key_value_heads": o.get("kv_heads") or 4,
                    "attn_logit_softcapping": caps[0] if caps else None,
                    "final_logit_softcapping": caps[1] if len(caps) > 1 else None,
                    "layer_types": ["sliding_attention" if (
                        (i + 1) % pattern if fam == "gemma3_text" else (i + 1) % 2)
                        else "full_attention" for i in range(o["layers"])]})
        if fam == "gemma3_text":
            cfg.update({"sliding_window_pattern": pattern,
                        "rope_local_base_freq": o.get("rope_local_theta") or 10000.0})
    if fam == "phi3":
        cfg.update({"rms_norm_eps": o.get("eps") or 1e-5, "sliding_window": o.get("sliding_window"),
                    "original_max_position_embeddings": o.get("original_max") or 4096,
                    "resid_pdrop": 0.0, "embd_pdrop": 0.0, "pad_token_id": o.get("eos", 2)})
        if o.get("partial_rotary"):
            cfg["partial_rotary_factor"] = o["partial_rotary"]
    if fam in ("qwen2", "qwen3"):
        w = o.get("sliding_window")
        cfg.update({"use_sliding_window": bool(w), "sliding_window": w or 32768,
                    "max_window_layers": o["layers"] // 2 if w else o["layers"]})
        if w:  # as transformers >= 4.53 saves it: which layers slide, explicitly
            cfg["layer_types"] = ["sliding_attention" if i >= cfg["max_window_layers"]
                                  else "full_attention" for i in range(o["layers"])]
    cfg.update(o.get("extra") or {})
    if o.get("rope_parameters"):  # the newer form (transformers 5): one rope_parameters dict
        params = {"rope_type": (scaling or {}).get("type", "default")}
        params.update({k: v for k, v in (scaling or {}).items() if k != "type"})
        if fam == "gpt_neox":
            params.update(rope_theta=float(cfg.pop("rotary_emb_base")),
                          partial_rotary_factor=cfg.pop("rotary_pct"))
        else:
            params["rope_theta"] = cfg.pop("rope_theta")
        if "partial_rotary_factor" in cfg:  # Phi-3 (transformers 5 moves it in)
            params["partial_rotary_factor"] = cfg.pop("partial_rotary_factor")
        cfg.pop("rope_scaling")
        cfg["rope_parameters"] = params
    return cfg


# --- what the forward pass needs, read back from config.json --------------------------------


class Spec:
    """The numbers of a config.json that the forward pass uses, with HF's defaults
    (configuration_llama.py, configuration_mistral.py, configuration_qwen2.py,
    configuration_gpt_neox.py)."""

    def __init__(self, cfg):
        g = cfg.get
        self.family = fam = cfg["model_type"]
        if fam not in ARCHITECTURES:
            raise ValueError("model_type %r is not one of %s" % (fam, ", ".join(ARCHITECTURES)))
        self.neox = fam == "gpt_neox"
        self.n_layer, self.n_head, self.d = (cfg["num_hidden_layers"], cfg["num_attention_heads"],
                                             cfg["hidden_size"])
        # num_key_value_heads: an explicit null means H; a missing key means HF's default
        self.gemma = fam in GEMMA
        self.qk_norm, self.fused = fam in ("qwen3", "gemma3_text"), fam == "phi3"
        kv_default = {"mistral": 8, "qwen2": 32, "qwen3": 32, "gemma2": 4,
                      "gemma3_text": 4}.get(fam, self.n_head)
        self.n_kv = self.n_head if self.neox else (g("num_key_value_heads", kv_default)
                                                   or self.n_head)
        # Qwen3Config's head_dim defaults to 128, not D/H
        hd_default = {"qwen3": 128, "gemma2": 256, "gemma3_text": 256}.get(fam,
                                                                            self.d // self.n_head)
        self.hd = (None if self.neox else g("head_dim", hd_default)) or self.d // self.n_head
        self.inner, self.vocab = cfg["intermediate_size"], cfg["vocab_size"]
        self.tie = bool(g("tie_word_embeddings", self.gemma))
        self.act = g("hidden_act", "gelu" if self.neox else "silu")
        if self.gemma:
            self.act = g("hidden_activation", "gelu_pytorch_tanh")
            self.scaling = g("query_pre_attn_scalar", 256) ** -0.5
            caps = (None, None) if fam == "gemma3_text" else (50.0, 30.0)
            self.attn_cap = g("attn_logit_softcapping", caps[0])
            self.final_cap = g("final_logit_softcapping", caps[1])
        self.eps = float(g("layer_norm_eps", 1e-5) if self.neox else
                         g("rms_norm_eps", 1e-5 if fam == "phi3" else 1e-6))
        with_bias = ("llama", "gpt_neox", "qwen3") + GEMMA
        bias = bool(g("attention_bias", fam == "gpt_neox")) if fam in with_bias else False
        self.qkv_bias = True if fam == "qwen2" else bias
        self.o_bias = bias if fam in with_bias else False
        self.max_pos = g("max_position_embeddings", {"phi3": 4096, "gemma2": 8192,
                                                     "gemma3_text": 131072}.get(fam, 2048))
        self.original_max = g("original_max_position_embeddings",
                              4096 if fam == "phi3" else self.max_pos)
        self.mlp_bias = True if self.neox else (fam == "llama" and bool(g("mlp_bias", False)))
        self.parallel = self.neox and bool(g("use_parallel_residual", True))
        self._rope(cfg)
        self.windows = self._windows(cfg)

    def _rope(self, cfg):
        """rope_parameters (transformers 5) or rope_theta/rope_scaling (older configs);
        NeoX names its base rotary_emb_base and its fraction rotary_pct."""
        params = dict(cfg.get("rope_parameters") or {})
        scaling = params or dict(cfg.get("rope_scaling") or {})
        if self.neox:
            theta = params.get("rope_theta", cfg.get("rotary_emb_base", 10000))
            pct = params.get("partial_rotary_factor", cfg.get("rotary_pct", 0.25))
        else:
            if self.family == "gemma3_text":  # full_attention layers: rope_theta, default 1e6
                if "full_attention" in params:
                    params = dict(params["full_attention"])
                    scaling = params
                theta = params.get("rope_theta", cfg.get("rope_theta", 1e6))
                self.local_theta = float(cfg.get("rope_local_base_freq", 10000.0))
            else:
                theta = params.get("rope_theta", cfg.get("rope_theta", 10000.0))
            pct = params.get("partial_rotary_factor", cfg.get("partial_rotary_factor", 1.0))
        self.rope_theta = float(theta)
        self.rotary_dim = int(self.hd * pct)
        self.rope_type = scaling.get("rope_type", scaling.get("type", "default"))
        if self.rope_type in LONGROPE_TYPES and (self.family == "phi3"
                                                  or self.rope_type == "longrope"):
            self.rope_type = "longrope"
        self.rope_scaling = scaling
        if self.rope_type not in ("default", "linear", "llama3", "longrope"):
            raise ValueError("rope type %r is not supported by this reference" % self.rope_type)

    def _windows(self, cfg):
        """Per layer, the sliding window W (a query at i sees keys i-W+1..i) or None."""
        w = cfg.get("sliding_window", 4096 if self.family == "mistral" else None)
        if self.family == "mistral":  # MistralConfig's default window is 4096
            return [w] * self.n_layer
        if self.family == "phi3":  # Phi3Model: the sliding mask on every layer when set
            return [w] * self.n_layer
        if self.gemma:
            w = cfg.get("sliding_window", 4096)
            pattern = cfg.get("sliding_window_pattern", 6)
            types = cfg.get("layer_types") or [
                "sliding_attention" if ((i + 1) % pattern if self.family == "gemma3_text"
                                        else (i + 1) % 2) else "full_attention"
                for i in range(self.n_layer)]
            return [w if t == "sliding_attention" else None for t in types]
        if self.family in ("qwen2", "qwen3") and cfg.get("use_sliding_window", False) and w:
            types = cfg.get("layer_types") or [
                "sliding_attention" if i >= cfg.get("max_window_layers", 28) else "full_attention"
                for i in range(self.n_layer)]
            return [w if t == "sliding_attention" else None for t in types]
        return [None] * self.n_layer


def param_specs(s):
    """[(name, shape, kind)] in state-dict order; kind is matrix, bias, norm or norm_bias."""
    d, hd, f = s.d, s.hd, s.inner
    if s.neox:
        out = [("gpt_neox.embed_in.weight", (s.vocab, d), "matrix")]
        for n in range(s.n_layer):
            p = "gpt_neox.layers.%d." % n
            for ln in ("input_layernorm", "post_attention_layernorm"):
                out += [(p + ln + ".weight", (d,), "norm"), (p + ln + ".bias", (d,), "norm_bias")]
            out.append((p + "attention.query_key_value.weight", (3 * d, d), "matrix"))
            if s.qkv_bias:
                out.append((p + "attention.query_key_value.bias", (3 * d,), "bias"))
            out.append((p + "attention.dense.weight", (d, d), "matrix"))
            if s.o_bias:
                out.append((p + "attention.dense.bias", (d,), "bias"))
            out += [(p + "mlp.dense_h_to_4h.weight", (f, d), "matrix"),
                    (p + "mlp.dense_h_to_4h.bias", (f,), "bias"),
                    (p + "mlp.dense_4h_to_h.weight", (d, f), "matrix"),
                    (p + "mlp.dense_4h_to_h.bias", (d,), "bias")]
        out += [("gpt_neox.final_layer_norm.weight", (d,), "norm"),
                ("gpt_neox.final_layer_norm.bias", (d,), "norm_bias")]
        return out + ([] if s.tie else [("embed_out.weight", (s.vocab, d), "matrix")])
    out = [("model.embed_tokens.weight", (s.vocab, d), "matrix")]
    if s.fused:
        q, kv = s.n_head * hd, s.n_kv * hd
        for n in range(s.n_layer):
            p = "model.layers.%d." % n
            out += [(p + "self_attn.qkv_proj.weight", (q + 2 * kv, d), "matrix"),
                    (p + "self_attn.o_proj.weight", (d, q), "matrix"),
                    (p + "mlp.gate_up_proj.weight", (2 * f, d), "matrix"),
                    (p + "mlp.down_proj.weight", (d, f), "matrix"),
                    (p + "input_layernorm.weight", (d,), "norm"),
                    (p + "post_attention_layernorm.weight", (d,), "norm")]
        out.append(("model.norm.weight", (d,), "norm"))
        return out + ([] if s.tie else [("lm_head.weight", (s.vocab, d), "matrix")])
    for n in range(s.n_layer):
        p = "model.layers.%d." % n
        for proj, rows in (("q", s.n_head * hd), ("k", s.n_kv * hd), ("v", s.n_kv * hd)):
            out.append((p + "self_attn.%s_proj.weight" % proj, (rows, d), "matrix"))
            if s.qkv_bias:
                out.append((p + "self_attn.%s_proj.bias" % proj, (rows,), "bias"))
        if s.qk_norm:  # Gemma's norms hold w of 1 + w: drawn near 0
            kind = "norm_bias" if s.gemma else "norm"
            out += [(p + "self_attn.q_norm.weight", (hd,), kind),
                    (p + "self_attn.k_norm.weight", (hd,), kind)]
        out.append((p + "self_attn.o_proj.weight", (d, s.n_head * hd), "matrix"))
        if s.o_bias:
            out.append((p + "self_attn.o_proj.bias", (d,), "bias"))
        for proj, shape in (("gate", (f, d)), ("up", (f, d)), ("down", (d, f))):
            out.append((p + "mlp.%s_proj.weight" % proj, shape, "matrix"))
            if s.mlp_bias:
                out.append((p + "mlp.%s_proj.bias" % proj, (shape[0],), "bias"))
        if s.gemma:
            out += [(p + ln + "_layernorm.weight", (d,), "norm_bias")
                    for ln in ("input", "post_attention", "pre_feedforward", "post_feedforward")]
        else:
            out += [(p + "input_layernorm.weight", (d,), "norm"),
                    (p + "post_attention_layernorm.weight", (d,), "norm")]
    out.append(("model.norm.weight", (d,), "norm_bias" if s.gemma else "norm"))
    return out + ([] if s.tie else [("lm_head.weight", (s.vocab, d), "matrix")])


def meta_name(hf_name):
    """Meta's checkpoint name for an HF llama name (None for names Meta does not have)."""
    fixed = {"model.embed_tokens.weight": "tok_embeddings.weight", "model.norm.weight":
             "norm.weight", "lm_head.weight": "output.weight"}
    if hf_name in fixed:
        return fixed[hf_name]
    parts = hf_name.split(".")
    if parts[:2] != ["model", "layers"] or parts[-1] != "weight":
        return None
    sub = {"self_attn.q_proj": "attention.wq", "self_attn.k_proj": "attention.wk",
           "self_attn.v_proj": "attention.wv", "self_attn.o_proj": "attention.wo",
           "mlp.gate_proj": "feed_forward.w1", "mlp.down_proj": "feed_forward.w2",
           "mlp.up_proj": "feed_forward.w3", "input_layernorm": "attention_norm",
           "post_attention_layernorm": "ffn_norm"}[".".join(parts[3:-1])]
    return "layers.%s.%s.weight" % (parts[2], sub)


def meta_to_hf(w, n_heads):
    """HF's permutation of a Meta wq/wk [n_heads*hd, D]: rows (2i, 2i+1) -> (i, i + hd/2)."""
    dim1, dim2 = w.shape
    return w.reshape(n_heads, dim1 // n_heads // 2, 2, dim2).transpose(0, 2, 1, 3).reshape(dim1,
                                                                                        dim2)


def _source(shape, kind, std, seed, index, n_heads=None, whole=False):
    """A callable yielding the float32 rows of one random tensor in chunks (in one piece with
    WHOLE). With N_HEADS the values, drawn as Meta's q/k, are permuted to HF's layout."""
    scale = {"matrix": std, "bias": std / 2, "norm": 0.1, "norm_bias": 0.05}[kind]
    rows = shape[0]
    per_row = int(np.prod(shape[1:], dtype=np.int64)) or 1
    step = rows if (n_heads or whole) else max(1, CHUNK_ELEMENTS // per_row)

    def chunks():
        rng = np.random.default_rng([seed, index])
        for r in range(0, rows, step):
            z = rng.standard_normal((min(step, rows - r),) + tuple(shape[1:]), dtype=np.float32)
            z *= np.float32(scale)
            if kind == "norm":
                z += np.float32(1.0)
            yield meta_to_hf(z, n_heads) if n_heads else z
    return chunks


def split_rows(s, name):
    """The separate tensors a fused Phi-3 matrix NAME holds: [(name, first row, rows)]."""
    p = name[:-len("qkv_proj.weight" if name.endswith("qkv_proj.weight")
                   else "gate_up_proj.weight")]
    if name.endswith("qkv_proj.weight"):
        q, kv = s.n_head * s.hd, s.n_kv * s.hd
        return [(p + "q_proj.weight", 0, q), (p + "k_proj.weight", q, kv),
                (p + "v_proj.weight", q + kv, kv)]
    return [(p + "gate_proj.weight", 0, s.inner), (p + "up_proj.weight", s.inner, s.inner)]


def _rows_source(shape, kind, std, seed, index, first, rows):
    """Rows FIRST..FIRST+ROWS of the random tensor _source(shape, ...) draws whole."""
    whole = _source(shape, kind, std, seed, index, whole=True)

    def chunks():
        for z in whole():
            yield np.ascontiguousarray(z[first:first + rows])
    return chunks


def write_model(out_dir, cfg, dtype="f32", shards=1, std=0.05, seed=0, from_meta=False,
                meta_out=None, unfused=False):
    """config.json + random safetensors weights in OUT_DIR. FROM_META draws q/k in Meta's
    layout, converts them as HF's converter does, and writes the unconverted weights with Meta's
    names to META_OUT (a single safetensors file outside the folder). Returns the files."""
    s = Spec(cfg)
    st_dtype = safetensors_io.FROM_OPTION[dtype]
    if from_meta and s.family not in ("llama", "mistral"):
        raise ValueError("--from-meta applies to llama and mistral (no q/k biases), not %s"
                         % s.family)
    os.makedirs(out_dir, exist_ok=True)
    safetensors_io.write_json(os.path.join(out_dir, "config.json"), cfg)
    tensors, meta = [], []
    for i, (name, shape, kind) in enumerate(param_specs(s)):
        heads = None
        if from_meta and name.endswith(("q_proj.weight", "k_proj.weight")):
            heads = s.n_head if "q_proj" in name else s.n_kv
        if unfused and s.fused and name.endswith(("qkv_proj.weight", "gate_up_proj.weight")):
            for part, first, rows in split_rows(s, name):
                tensors.append((part, st_dtype, (rows, shape[1]),
                                _rows_source(shape, kind, std, seed, i, first, rows)))
            continue
        tensors.append((name, st_dtype, shape, _source(shape, kind, std, seed, i, heads)))
        if from_meta:
            meta.append((meta_name(name), st_dtype, shape,
                         _source(shape, kind, std, seed, i, whole=heads is not None)))
            if s.tie and name == "model.embed_tokens.weight":
                meta.append(("output.weight", st_dtype, shape, _source(shape, kind, std, seed, i)))
    files = safetensors_io.write_checkpoint(out_dir, tensors, shards)
    if from_meta:
        safetensors_io.write_file(meta_out, meta, {"format": "pt", "layout": "meta"})
    return files
