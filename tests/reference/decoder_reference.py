#!/usr/bin/python3
"""decoder_reference.py — the project's independent PyTorch reference for the Llama family
(llama, mistral, qwen2, qwen3: Llama 2/3, Mistral, Qwen2/2.5, Qwen3, SmolLM2, TinyLlama), Phi-3
(phi3) and GPT-NeoX (Pythia).

Subcommands (the C tests call exactly these):
  make-model OUT_DIR --family llama|mistral|qwen2|qwen3|phi3|gpt_neox --layers L --heads H
             [--kv-heads K] --hidden D --intermediate I --vocab V --positions P [--head-dim HD]
             [--rope-theta T] [--rope-scaling linear:F | llama3:F,LOW,HIGH,ORIGINAL_MAX |
             longrope[:ATTENTION_FACTOR]] [--original-max N] [--partial-rotary R]
             [--attention-bias] [--unfused]
             [--rotary-pct R] [--no-parallel-residual] [--sliding-window W] [--tie | --no-tie]
             [--dtype f32|bf16|f16] [--shards N] [--seed S] [--std X] [--eps E]
             [--rope-parameters] [--from-meta [--meta-out FILE]]
             [--preset smollm2-135m|llama-3.2-1b|pythia-70m|qwen2.5-0.5b|qwen3-0.6b|
                       phi3-mini-4k|tinyllama|gemma-3-270m]
      a random model in the exact HF folder layout (decoder_layout.py): config.json and
      model.safetensors, or with --shards N > 1 model-0000k-of-0000N.safetensors plus
      model.safetensors.index.json. A preset supplies the real model's shapes, config values
      and dtype; explicit options override it. Written streaming (one tensor, or 8M values of
      it, in memory at a time). --rope-parameters writes transformers 5's rope_parameters dict
      instead of rope_theta/rope_scaling (rotary_emb_base/rotary_pct for NeoX). --from-meta
      (llama, mistral) draws q/k in Meta's interleaved layout, converts them with HF's
      permutation, and writes the unconverted weights under Meta's names to --meta-out
      (default: OUT_DIR without a trailing slash + ".meta.safetensors", beside the folder so
      that no loader of the folder sees it). --sliding-window W: mistral slides every layer;
      qwen2 sets use_sliding_window and slides layers >= max_window_layers = L/2. Prints one
      JSON line: the files written and the seconds taken.
  expected MODEL_DIR OUT.h5 --ids 1,2,3 [--ids ...] [--meta META.safetensors]
      per sequence a group /seq<N> with float32 datasets (int64 ids): ids [T];
      attentions [L,H,T,T] (post-softmax, one per query head, masked entries exactly 0);
      q [L,H,T,hd] after RoPE; k, v [L,H,T,hd] expanded to query heads (head h uses KV head
      h // (H/K), as repeat_kv); contexts [L,H,T,hd] (P·v before o_proj / dense); attn_out
      [L,T,D] (after o_proj / dense with its bias, before the residual add); hidden_states
      [L+1,T,D]; logits [T,V]. Root attributes: model, family, layout (hf|meta),
      torch_version. With --meta the forward runs on Meta's unconverted weights with Meta's
      interleaved RoPE (meta-llama/llama model.py apply_rotary_emb: pairs (2i, 2i+1) as
      complex numbers times polar(1, angle_i), angles from HF's inv_freq including its
      scaling); q and k are then written in HF's half-split order (dims 0::2 then 1::2 of
      each head) so that every dataset compares with a run on the converted folder.
  bench MODEL_DIR --tokens 64,512 --repeat N [--warmup W] [--threads 2] [--json]
      times the forward as HF's eager attention runs it with output_attentions=True,
      output_hidden_states=True and all logits, batch 1, no_grad, 2 threads, weights widened to
      float32 at load (what a float32 HF run does); one JSON line per T: median_ms, min_ms,
      load_ms, peak_rss_mb.
  mem MODEL_DIR --tokens T [--threads 2] [--json]
      one forward at T tokens keeping every output of `expected` (attentions, q, k, v,
      contexts, attn_out, hidden states, all logits); prints rss_after_load_mb (float32
      weights; tensors are read one at a time without mmap), rss_with_outputs_mb and
      peak_rss_mb (the larger of ru_maxrss and the current RSS).
  selfcheck
      compares the torch forward with a naive float64 numpy loop (decoder_naive.py) on small
      models of every family and option; exits 1 beyond 1e-5 relative error.

Semantics: HF's eager modeling code. Read: modeling_llama.py (4.38-era, commit 0022728) and the
4.5x modular files that now generate it and Qwen2/Mistral/GPT-NeoX (modular_qwen2.py 022c4a9,
modular_mistral.py 0096ba4, modular_gpt_neox.py 00dcc6d), configuration_{llama,qwen2,
gpt_neox}.py (transformers 5, 008e574), configuration_mistral.py (5.x, 001f85b),
modeling_rope_utils.py (4.44-era, 0044e3b),
masking_utils.py (transformers 5, 00c4411), utils/generic.py check_model_inputs (4.55+).
Where versions differ, this follows the newest (4.5x/5.x) behaviour, noted below.
  RMSNorm (LlamaRMSNorm): in float32, var = mean(x²) over D; x·rsqrt(var + eps); then
    weight · that (eps inside the root, weight after). eps = rms_norm_eps (default 1e-6).
  NeoX LayerNorm: torch layer_norm, biased variance, eps = layer_norm_eps (default 1e-5).
  RoPE: inv_freq = 1.0 / (theta ** (arange(0, dim, 2).float() / dim)) in float32 with
    dim = head_dim (NeoX: int(head_dim · rotary_pct), rotary_pct default 0.25); linear
    scaling divides inv_freq by factor (4.44+; older code divided the positions, which rounds
    differently); llama3: wavelen = 2π/inv_freq; wavelen < orig/high keeps f, wavelen >
    orig/low gives f/factor, else s = (orig/wavelen − low)/(high − low) and
    f' = (1 − s)·f/factor + s·f, all float32 tensor ops. attention_scaling = 1 for these.
    angles = float32 position × inv_freq (one rounded product), emb = cat(freqs, freqs),
    cos/sin of emb in float32. Applied per head to q and k after the projections (and q/k
    biases): x' = x·cos + rotate_half(x)·sin, rotate_half(x) = cat(−x[hd/2:], x[:hd/2]);
    NeoX rotates only the first rotary_dim dims (rotate_half within them), the rest pass.
  Attention (eager_attention_forward): k, v repeated to H heads (repeat_kv); scores =
    (q @ kᵀ) · head_dim**-0.5; + additive mask (0 or float32 min); softmax over keys in
    float32; P @ v; heads concatenated; o_proj (NeoX: dense, with bias).
  Masks (masking_utils.py): causal kv <= q; sliding window adds kv > q − W, so a query at i
    sees keys i−W+1 .. i (W keys including itself). modeling_attn_mask_utils.py of some 4.4x
    versions (diagonal = past − W − 1) let W+1 keys through; masking_utils' W is followed.
    Mistral slides every layer unless sliding_window is null (a missing key means
    MistralConfig's default 4096); Qwen2 only when use_sliding_window (default false; then
    layer_types, or layers >= max_window_layers, default 28).
  head_dim: config head_dim if present, else D/H (NeoX always D/H); RoPE uses it too
    (4.44's rope utils used D/H regardless). q [H·hd,D], k/v [K·hd,D], o [D,H·hd].
    GQA: query head h uses KV head h // (H/K). num_key_value_heads: null means H, a missing
    key HF's default (llama H, mistral 8, qwen2 32).
  NeoX fused query_key_value: output viewed (T, H, 3·hd): per head [q | k | v].
  MLP: llama family down(silu(gate(x)) · up(x)); NeoX dense_4h_to_h(gelu(dense_h_to_4h(x)))
    with hidden_act "gelu" = exact erf GELU.
  Blocks: llama h += attn(norm1(h)); h += mlp(norm2(h)). NeoX use_parallel_residual (default
    true): h = mlp(ln2(h)) + attn(ln1(h)) + h, in that order; else a = attn(ln1(h)) + h,
    h = mlp(ln2(a)) + a.
  Output: final norm (model.norm / final_layer_norm), logits = h·Wᵀ with lm_head / embed_out,
    or the input embedding when tie_word_embeddings (default false for all four families).
  hidden_states (LlamaModel/GPTNeoXModel loops up to 4.54, check_model_inputs from 4.55,
    same result): the embeddings, then the output of blocks 0 .. L−2, then the final norm
    applied to the output of block L−1 (that block's raw output is not returned).
Qwen3 (models/qwen3/modeling_qwen3.py 000c33f, configuration_qwen3.py 008e574):
  as Qwen2, but q_proj/k_proj/v_proj/o_proj biases only with attention_bias (default false);
  q_norm and k_norm: Qwen3RMSNorm over head_dim (eps rms_norm_eps) of q.view(T, H, hd) and
  k.view(T, K, hd), after the projections and before RoPE; head_dim default 128 (Qwen3Config),
  num_key_value_heads default 32. Sliding window: Qwen3Config sets sliding_window to None unless
  use_sliding_window, then layer_types (or layers >= max_window_layers, default 28) get the
  sliding mask from create_sliding_window_causal_mask. The eager attention function ignores its
  sliding_window argument; the window comes from the mask, which this reference builds.
Phi-3 (models/phi3/modeling_phi3.py 00d4b3d, configuration_phi3.py 008e574):
  qkv = qkv_proj(x) (no bias); q = qkv[:H·hd], k = next K·hd, v = the rest; gate, up =
  gate_up_proj(x).chunk(2) (gate first), mlp = down(up · silu(gate)); RMSNorm eps default 1e-5;
  num_key_value_heads default H; partial_rotary_factor (default 1) rotates the first
  int(head_dim · factor) dims (apply_rotary_pos_emb's q_rot/q_pass). Mask: Phi3Model uses
  create_sliding_window_causal_mask on every layer when config.sliding_window is not None.
  rope_scaling types su and yarn are read as longrope (Phi3Config.convert_rope_params_to_dict).
longrope (modeling_rope_utils._compute_longrope_parameters, transformers 5, and
  dynamic_rope_update's longrope_frequency_update): original = the scaling's
  original_max_position_embeddings, else the config's (Phi3Config default 4096); factor = the
  scaling's factor, else max_position_embeddings / original; attention_factor = the scaling's,
  else 1 if factor <= 1, else sqrt(1 + ln(factor) / ln(original)); ext = long_factor when the
  sequence length T (max position + 1) > original, else short_factor; inv_freq = 1.0 / (ext ·
  theta ** (arange(0, dim, 2).float() / dim)) in float32; cos = emb.cos() · attention_factor,
  sin likewise (float32).
Uses /usr/bin/python3 with Debian's python3-torch, python3-h5py, python3-numpy.
"""

import argparse
import json
import math
import os
import resource
import sys
import time

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import decoder_layout  # noqa: E402
import safetensors_io  # noqa: E402

torch = None  # imported lazily: make-model works without torch


def _import_torch(threads=2):
    global torch
    if torch is None:
        import torch as _torch
        torch = _torch
        torch.set_num_threads(threads)
    return torch


# --- the model ------------------------------------------------------------------------------


def longrope_params(spec):
    """(original, attention_factor) of a longrope spec."""
    sc = spec.rope_scaling
    original = sc.get("original_max_position_embeddings", spec.original_max)
    factor = sc.get("factor")
    if factor is None:
        factor = spec.max_pos / original
    attention = sc.get("attention_factor")
    if attention is None:
        attention = 1.0 if factor <= 1.0 else math.sqrt(1 + math.log(factor) / math.log(original))
    return original, attention


def inv_freq(spec, t=1):
    """HF's inverse frequencies [rotary_dim/2] for a sequence of T tokens, float32
    (modeling_rope_utils.py)."""
    dim = spec.rotary_dim
    sc = spec.rope_scaling
    if spec.rope_type == "longrope":
        original, _ = longrope_params(spec)
        ext = torch.tensor(sc["long_factor"] if t > original else sc["short_factor"],
                           dtype=torch.float32)
        shape = torch.arange(0, dim, 2, dtype=torch.int64).float() / dim
        return 1.0 / (ext * spec.rope_theta ** shape)
    inv = 1.0 / (spec.rope_theta ** (torch.arange(0, dim, 2, dtype=torch.int64).float() / dim))
    if spec.rope_type == "linear":
        inv = inv / sc["factor"]
    elif spec.rope_type == "llama3":
        factor, low, high = sc["factor"], sc["low_freq_factor"], sc["high_freq_factor"]
        old = sc["original_max_position_embeddings"]
        wavelen = 2 * math.pi / inv
        inv_l = torch.where(wavelen > old / low, inv / factor, inv)
        smooth = (old / wavelen - low) / (high - low)
        smoothed = (1 - smooth) * inv_l / factor + smooth * inv_l
        medium = ~(wavelen < old / high) * ~(wavelen > old / low)
        inv = torch.where(medium, smoothed, inv_l)
    return inv


def rope_angles(spec, t):
    """[T, rotary_dim/2] float32 angles: each one rounded product position × inv_freq."""
    pos = torch.arange(t, dtype=torch.int64).float()
    return (inv_freq(spec, t)[:, None] @ pos[None, :]).transpose(0, 1)


def rotate_half(x):
    h = x.shape[-1] // 2
    return torch.cat((-x[..., h:], x[..., :h]), dim=-1)


def apply_rope(x, cos, sin):
    """HF layout: rotate the first cos.shape[-1] dims of each head of x [heads,T,hd]."""
    r = cos.shape[-1]
    rot = x[..., :r] * cos + rotate_half(x[..., :r]) * sin
    return torch.cat((rot, x[..., r:]), dim=-1) if r < x.shape[-1] else rot


def apply_rope_meta(x, angles):
    """Meta's llama model.py: adjacent pairs (2i, 2i+1) as complex numbers × e^(i·angle)."""
    xc = torch.view_as_complex(x.float().reshape(*x.shape[:-1], -1, 2).contiguous())
    cis = torch.polar(torch.ones_like(angles), angles)
    return torch.view_as_real(xc * cis).flatten(-2)


def meta_to_hf_order(x):
    """Per head, Meta's interleaved dims (0,1,2,3,...) -> HF's (0,2,4,...,1,3,5,...)."""
    return torch.cat((x[..., 0::2], x[..., 1::2]), dim=-1)


class Decoder:
    """Llama-family / GPT-NeoX forward pass in torch float32, eval mode, batch of one.
    W maps HF state-dict names to float32 tensors; META: q/k in Meta's interleaved layout."""

    def __init__(self, cfg, weights, meta=False):
        _import_torch()
        self.s = decoder_layout.Spec(cfg)
        self.w, self.meta = weights, meta
        s = self.s
        self.out_name = ("embed_out.weight" if s.neox else "lm_head.weight")
        if s.tie:
            self.out_name = "gpt_neox.embed_in.weight" if s.neox else "model.embed_tokens.weight"
        self.act = {"silu": torch.nn.functional.silu, "gelu": torch.nn.functional.gelu,
                    "gelu_new": lambda x: torch.nn.functional.gelu(x, approximate="tanh"),
                    "gelu_pytorch_tanh": lambda x: torch.nn.functional.gelu(x, approximate="tanh"),
                    "relu": torch.relu}[s.act]

    def _lin(self, x, name):
        return torch.nn.functional.linear(x, self.w[name + ".weight"], self.w.get(name + ".bias"))

    def _norm(self, x, name):
        if self.s.neox:
            return torch.nn.functional.layer_norm(x, (self.s.d,), self.w[name + ".weight"],
                                                  self.w[name + ".bias"], self.s.eps)
        var = x.pow(2).mean(-1, keepdim=True)
        return self.w[name + ".weight"] * (x * torch.rsqrt(var + self.s.eps))

    def _mask(self, t, window):
        i = torch.arange(t)[:, None]
        j = torch.arange(t)[None, :]
        allowed = j <= i
        if window:
            allowed &= j > i - window
        zero = torch.zeros([], dtype=torch.float32)
        return torch.where(allowed, zero, torch.tensor(torch.finfo(torch.float32).min))

    def _qkv(self, x, p, t):
        """q [H,T,hd], k and v [K,T,hd] before RoPE."""
        s = self.s
        if s.neox:
            qkv = self._lin(x, p + "attention.query_key_value").view(t, s.n_head, 3 * s.hd)
            return qkv.transpose(0, 1).chunk(3, dim=-1)
        if s.fused:  # Phi-3: one qkv_proj, sliced q | k | v
            qkv = self._lin(x, p + "self_attn.qkv_proj")
            nq, nkv = s.n_head * s.hd, s.n_kv * s.hd
            q, k, v = qkv[..., :nq], qkv[..., nq:nq + nkv], qkv[..., nq + nkv:]
        else:
            q = self._lin(x, p + "self_attn.q_proj")
            k = self._lin(x, p + "self_attn.k_proj")
            v = self._lin(x, p + "self_attn.v_proj")
        q, k, v = q.view(t, s.n_head, s.hd), k.view(t, s.n_kv, s.hd), v.view(t, s.n_kv, s.hd)
        if s.qk_norm:  # Qwen3: RMSNorm of each head over head_dim, before RoPE
            q = self._rms(q, p + "self_attn.q_norm")
            k = self._rms(k, p + "self_attn.k_norm")
        return q.transpose(0, 1), k.transpose(0, 1), v.transpose(0, 1)

    def _rms(self, x, name):
        var = x.pow(2).mean(-1, keepdim=True)
        return self.w[name + ".weight"] * (x * torch.rsqrt(var + self.s.eps))

    def _mlp(self, x, p):
        if self.s.neox:
            up = self.act(self._lin(x, p + "mlp.dense_h_to_4h"))
            return self._lin(up, p + "mlp.dense_4h_to_h")
        if self.s.fused:  # Phi-3: gate_up_proj, chunk(2): gate first
            gate, up = self._lin(x, p + "mlp.gate_up_proj").chunk(2, dim=-1)
            return self._lin(up * self.act(gate), p + "mlp.down_proj")
        gate = self.act(self._lin(x, p + "mlp.gate_proj"))
        return self._lin(gate * self._lin(x, p + "mlp.up_proj"), p + "mlp.down_proj")

    def _rms1p(self, x, name):
        """Gemma's RMSNorm: x · rsqrt(mean(x²) + eps) · (1.0 + weight), float32."""
        var = x.pow(2).mean(-1, keepdim=True)
        return (x * torch.rsqrt(var + self.s.eps)) * (1.0 + self.w[name + ".weight"])

    def _forward_gemma(self, ids, capture, last_logits=False):
        """Gemma2/Gemma3 (modeling_gemma2.py, modeling_gemma3.py eager)."""
        s, w, t = self.s, self.w, len(ids)
        emb = w["model.embed_tokens.weight"]
        h = emb[torch.as_tensor(ids, dtype=torch.long)] * torch.tensor(s.d ** 0.5,
                                                                     dtype=torch.float32)
        tables = {}
        for local in (False, True):
            spec = s
            if local:
                spec = type("LocalRope", (), dict(rotary_dim=s.rotary_dim, rope_type="default",
                                                  rope_theta=getattr(s, "local_theta", 0.0),
                                                  rope_scaling={}))
            if local and s.family != "gemma3_text":
                tables[True] = tables[False]
                continue
            ang = (inv_freq(spec, t)[:, None] @ torch.arange(t, dtype=torch.int64).float()[
                None, :]).transpose(0, 1)
            full = torch.cat((ang, ang), dim=-1)
            tables[local] = (full.cos(), full.sin())
        masks = {win: self._mask(t, win) for win in set(s.windows)}
        rep = s.n_head // s.n_kv
        out = {"hidden_states": [], "attentions": []}
        if capture:
            out.update(q=[], k=[], v=[], contexts=[], attn_out=[])
        for n in range(s.n_layer):
            p = "model.layers.%d." % n
            out["hidden_states"].append(h)
            x = self._rms1p(h, p + "input_layernorm")
            q = self._lin(x, p + "self_attn.q_proj").view(t, s.n_head, s.hd)
            k = self._lin(x, p + "self_attn.k_proj").view(t, s.n_kv, s.hd)
            v = self._lin(x, p + "self_attn.v_proj").view(t, s.n_kv, s.hd)
            if s.qk_norm:
                q = self._rms1p(q, p + "self_attn.q_norm")
                k = self._rms1p(k, p + "self_attn.k_norm")
            q, k, v = q.transpose(0, 1), k.transpose(0, 1), v.transpose(0, 1)
            cos, sin = tables[s.windows[n] is not None]
            q, k = apply_rope(q, cos, sin), apply_rope(k, cos, sin)
            k = k[:, None].expand(s.n_kv, rep, t, s.hd).reshape(s.n_head, t, s.hd)
            v = v[:, None].expand(s.n_kv, rep, t, s.hd).reshape(s.n_head, t, s.hd)
            scores = torch.matmul(q, k.transpose(1, 2)) * s.scaling
            if s.attn_cap:
                scores = torch.tanh(scores / s.attn_cap) * s.attn_cap
            prob = torch.softmax(scores + masks[s.windows[n]], dim=-1, dtype=torch.float32)
            ctx = torch.matmul(prob, v)
            a = self._lin(ctx.transpose(0, 1).reshape(t, s.n_head * s.hd), p + "self_attn.o_proj")
            h = h + self._rms1p(a, p + "post_attention_layernorm")
            x = self._rms1p(h, p + "pre_feedforward_layernorm")
            m = self._lin(self.act(self._lin(x, p + "mlp.gate_proj"))
                          * self._lin(x, p + "mlp.up_proj"), p + "mlp.down_proj")
            h = h + self._rms1p(m, p + "post_feedforward_layernorm")
            out["attentions"].append(prob)
            if capture:
                for key, val in (("q", q), ("k", k), ("v", v), ("contexts", ctx), ("attn_out", a)):
                    out[key].append(val)
        h = self._rms1p(h, "model.norm")
        out["hidden_states"].append(h)
        logits = torch.nn.functional.linear(h[-1:] if last_logits else h, w[self.out_name])
        if s.final_cap:
            logits = torch.tanh(logits / s.final_cap) * s.final_cap
        out["logits"] = logits
        return out

    def forward(self, ids, capture=False, last_logits=False):
        """Returns a dict: hidden_states (L+1 tensors [T,D]), attentions (L tensors [H,T,T]),
        logits [T,V] (with LAST_LOGITS [1,V], the last position's: HF's logits_to_keep=1); with
        CAPTURE also q, k, v, contexts ([H,T,hd] each) and attn_out [T,D]."""
        if self.s.gemma:
            return self._forward_gemma(ids, capture, last_logits)
        s, w, t = self.s, self.w, len(ids)
        pre = "gpt_neox.layers.%d." if s.neox else "model.layers.%d."
        emb = w["gpt_neox.embed_in.weight" if s.neox else "model.embed_tokens.weight"]
        h = emb[torch.as_tensor(ids, dtype=torch.long)]
        angles = rope_angles(s, t)
        full = torch.cat((angles, angles), dim=-1)
        cos, sin = full.cos(), full.sin()
        if s.rope_type == "longrope":
            _, attention = longrope_params(s)
            cos, sin = cos * attention, sin * attention
        masks = {win: self._mask(t, win) for win in set(s.windows)}
        rep, scaling = s.n_head // s.n_kv, s.hd ** -0.5
        out = {"hidden_states": [], "attentions": []}
        if capture:
            out.update(q=[], k=[], v=[], contexts=[], attn_out=[])
        for n in range(s.n_layer):
            p = pre % n
            out["hidden_states"].append(h)
            q, k, v = self._qkv(self._norm(h, p + "input_layernorm"), p, t)
            if self.meta:
                q, k = apply_rope_meta(q, angles), apply_rope_meta(k, angles)
            else:
                q, k = apply_rope(q, cos, sin), apply_rope(k, cos, sin)
            k = k[:, None].expand(s.n_kv, rep, t, s.hd).reshape(s.n_head, t, s.hd)
            v = v[:, None].expand(s.n_kv, rep, t, s.hd).reshape(s.n_head, t, s.hd)
            scores = torch.matmul(q, k.transpose(1, 2)) * scaling + masks[s.windows[n]]
            prob = torch.softmax(scores, dim=-1, dtype=torch.float32)  # [H,T,T]
            ctx = torch.matmul(prob, v)  # [H,T,hd]
            merged = ctx.transpose(0, 1).reshape(t, s.n_head * s.hd)
            a = self._lin(merged, p + ("attention.dense" if s.neox else "self_attn.o_proj"))
            if s.parallel:
                h = self._mlp(self._norm(h, p + "post_attention_layernorm"), p) + a + h
            elif s.neox:
                r = a + h
                h = self._mlp(self._norm(r, p + "post_attention_layernorm"), p) + r
            else:
                h = h + a
                h = h + self._mlp(self._norm(h, p + "post_attention_layernorm"), p)
            out["attentions"].append(prob)
            if capture:
                if self.meta:
                    q, k = meta_to_hf_order(q), meta_to_hf_order(k)
                for key, val in (("q", q), ("k", k), ("v", v), ("contexts", ctx), ("attn_out", a)):
                    out[key].append(val)
        h = self._norm(h, "gpt_neox.final_layer_norm" if s.neox else "model.norm")
        out["hidden_states"].append(h)
        out["logits"] = torch.nn.functional.linear(h[-1:] if last_logits else h, w[self.out_name])
        return out


def load_model(model_dir, meta_path=None):
    """The folder's config and weights (all widened to float32); with META_PATH the weights
    come from Meta's unconverted file instead, renamed to HF's names."""
    _import_torch()
    with open(os.path.join(model_dir, "config.json"), encoding="utf-8") as f:
        cfg = json.load(f)
    spec = decoder_layout.Spec(cfg)
    ckpt = safetensors_io.Checkpoint(meta_path or model_dir)
    weights = {}
    for name, shape, _ in decoder_layout.param_specs(spec):
        src = decoder_layout.meta_name(name) if meta_path else name
        if src not in ckpt.entries or ckpt.shape(src) != shape:
            raise ValueError("%s: tensor %s missing or not of shape %s"
                             % (meta_path or model_dir, src, list(shape)))
        weights[name] = torch.from_numpy(ckpt.read(src))
    if spec.tie and meta_path and "output.weight" in ckpt.entries:
        if not np.array_equal(ckpt.read("output.weight"), ckpt.read("tok_embeddings.weight")):
            raise ValueError("%s: output.weight differs from tok_embeddings.weight, yet the "
                             "config ties them" % meta_path)
    return Decoder(cfg, weights, meta=bool(meta_path))


def parse_ids(text):
    return [int(x) for x in text.split(",") if x.strip() != ""]


def run_capture(model, ids):
    """{name: numpy array} with the shapes of the expected file."""
    if not ids or min(ids) < 0 or max(ids) >= model.s.vocab:
        raise ValueError("ids must be non-empty and within [0, %d)" % model.s.vocab)
    with torch.no_grad():
        out = model.forward(ids, capture=True)
    arrays = {"ids": np.asarray(ids, dtype=np.int64)}
    for key in ("attentions", "q", "k", "v", "contexts", "attn_out", "hidden_states"):
        arrays[key] = torch.stack(out[key]).numpy().astype(np.float32)
    arrays["logits"] = out["logits"].numpy().astype(np.float32)
    return arrays


# --- subcommands ----------------------------------------------------------------------------

MODEL_OPTIONS = ("family", "layers", "heads", "kv_heads", "hidden", "intermediate", "vocab",
                 "positions", "head_dim", "rope_theta", "rope_scaling", "rotary_pct",
                 "sliding_window", "tie", "dtype", "eps", "original_max", "partial_rotary",
                 "attention_bias", "softcap", "sliding_pattern", "query_pre_attn_scalar",
                 "rope_local_theta")


def make_model_options(a):
    """The options of make-model over the preset's values."""
    o = dict(decoder_layout.PRESETS[a.preset]) if a.preset else {}
    for key in MODEL_OPTIONS:
        if getattr(a, key) is not None:
            o[key] = getattr(a, key)
    o.setdefault("dtype", "f32")
    o.setdefault("tie", False)
    o["parallel_residual"] = not a.no_parallel_residual
    o["rope_parameters"] = a.rope_parameters
    missing = [k for k in ("family", "layers", "heads", "hidden", "intermediate", "vocab",
                           "positions") if o.get(k) is None]
    if missing:
        raise ValueError("make-model needs --%s (or --preset)"
                         % ", --".join(m.replace("_", "-") for m in missing))
    if o["family"] == "gpt_neox" and o["hidden"] % o["heads"]:
        raise ValueError("--hidden %d is not divisible by --heads %d" % (o["hidden"], o["heads"]))
    if o["heads"] % (o.get("kv_heads") or o["heads"]):
        raise ValueError("--heads %d is not a multiple of --kv-heads %d"
                         % (o["heads"], o["kv_heads"]))
    if o.get("head_dim") and o["head_dim"] % 2:
        raise ValueError("--head-dim must be even for RoPE")
    return o


def cmd_make_model(a):
    try:
        o = make_model_options(a)
        cfg = decoder_layout.make_config(o)
        meta_out = a.meta_out or os.path.normpath(a.out_dir) + ".meta.safetensors"
        t0 = time.perf_counter()
        files = decoder_layout.write_model(a.out_dir, cfg, o["dtype"], a.shards, a.std, a.seed,
                                           a.from_meta, meta_out, a.unfused)
    except (ValueError, KeyError, OSError) as e:
        sys.exit("decoder_reference: %s" % e)
    print(json.dumps({"out_dir": a.out_dir, "files": files, "seconds":
                      round(time.perf_counter() - t0, 2),
                      "meta": meta_out if a.from_meta else None}))


def cmd_expected(a):
    try:
        model = load_model(a.model_dir, a.meta)
        seqs = [run_capture(model, parse_ids(text)) for text in a.ids]
    except (ValueError, KeyError, OSError) as e:
        sys.exit("decoder_reference: %s" % e)
    tmp = a.out + ".tmp"
    with h5py.File(tmp, "w") as f:
        f.attrs["model"] = os.path.basename(os.path.normpath(a.model_dir))
        f.attrs["family"] = model.s.family
        f.attrs["layout"] = "meta" if a.meta else "hf"
        f.attrs["torch_version"] = str(torch.__version__)
        for n, arrays in enumerate(seqs):
            g = f.create_group("seq%d" % n)
            for key, arr in arrays.items():
                g.create_dataset(key, data=arr)
    os.replace(tmp, a.out)


def _rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2 ** 20


def _peak_rss_mb():
    return max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0, _rss_mb())


def cmd_bench(a):
    _import_torch(a.threads)
    t0 = time.perf_counter()  # load = reading every tensor and widening it to float32
    model = load_model(a.model_dir)
    load_ms = (time.perf_counter() - t0) * 1e3
    rng = np.random.default_rng(a.seed)
    for t in [int(x) for x in a.tokens.split(",")]:
        ids = rng.integers(0, model.s.vocab, size=t).tolist()
        times = []
        with torch.no_grad():
            for r in range(a.repeat + a.warmup):
                t1 = time.perf_counter()
                out = model.forward(ids, last_logits=a.last_logits)
                dt = (time.perf_counter() - t1) * 1e3
                del out
                if r >= a.warmup:
                    times.append(dt)
        rec = {"impl": "pytorch", "family": model.s.family, "tokens": t, "repeat": a.repeat,
               "median_ms": round(float(np.median(times)), 3), "min_ms": round(min(times), 3),
               "load_ms": round(load_ms, 3), "peak_rss_mb": round(_peak_rss_mb(), 1),
               "all_logits": not a.last_logits, "threads": torch.get_num_threads(),
               "torch": str(torch.__version__)}
        if a.json:
            print(json.dumps(rec), flush=True)
        else:
            print("T=%d median %.2f ms min %.2f ms (load %.1f ms, peak RSS %.0f MB)"
                  % (t, rec["median_ms"], rec["min_ms"], load_ms, rec["peak_rss_mb"]), flush=True)


def cmd_mem(a):
    _import_torch(a.threads)
    model = load_model(a.model_dir)
    after_load = _rss_mb()
    ids = np.random.default_rng(a.seed).integers(0, model.s.vocab, size=a.tokens).tolist()
    with torch.no_grad():
        out = model.forward(ids, capture=True)
    rec = {"impl": "pytorch", "family": model.s.family, "tokens": a.tokens,
           "rss_after_load_mb": round(after_load, 1), "rss_with_outputs_mb": round(_rss_mb(), 1),
           "peak_rss_mb": round(_peak_rss_mb(), 1)}
    del out
    print(json.dumps(rec) if a.json else
          "T=%d: RSS after load %.0f MB, with outputs %.0f MB, peak %.0f MB"
          % (a.tokens, rec["rss_after_load_mb"], rec["rss_with_outputs_mb"], rec["peak_rss_mb"]))


def cmd_selfcheck(a):
    _import_torch()
    import decoder_naive
    return decoder_naive.selfcheck(sys.modules[__name__])


# --- command line ---------------------------------------------------------------------------


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("make-model", help="write a random model in the HF layout")
    m.add_argument("out_dir")
    m.add_argument("--preset", choices=sorted(decoder_layout.PRESETS))
    m.add_argument("--family", choices=sorted(decoder_layout.ARCHITECTURES))
    for opt in ("--layers", "--heads", "--kv-heads", "--hidden", "--intermediate", "--vocab",
                "--positions", "--head-dim", "--sliding-window", "--original-max"):
        m.add_argument(opt, type=int)
    for opt in ("--rope-theta", "--rotary-pct", "--eps", "--partial-rotary"):
        m.add_argument(opt, type=float)
    m.add_argument("--softcap", help="gemma2: ATTN,FINAL soft-caps (default none written)")
    m.add_argument("--sliding-pattern", type=int, help="gemma3_text: sliding_window_pattern")
    m.add_argument("--query-pre-attn-scalar", type=float, help="gemma: the scores' 1/sqrt")
    m.add_argument("--rope-local-theta", type=float, help="gemma3_text: rope_local_base_freq")
    m.add_argument("--attention-bias", action="store_true", default=None,
                   help="qwen3: biases on q, k, v and o")
    m.add_argument("--unfused", action="store_true",
                   help="phi3: store qkv_proj and gate_up_proj split into their parts")
    m.add_argument("--rope-scaling", help="linear:FACTOR, llama3:FACTOR,LOW,HIGH,ORIGINAL_MAX or "
                   "longrope[:ATTENTION_FACTOR]")
    m.add_argument("--no-parallel-residual", action="store_true", help="NeoX: sequential block")
    m.add_argument("--tie", dest="tie", action="store_true", default=None)
    m.add_argument("--no-tie", dest="tie", action="store_false")
    m.add_argument("--dtype", choices=("f32", "bf16", "f16"))
    m.add_argument("--shards", type=int, default=1)
    m.add_argument("--seed", type=int, default=0)
    m.add_argument("--std", type=float, default=0.05)
    m.add_argument("--rope-parameters", action="store_true",
                   help="write transformers 5's rope_parameters instead of rope_theta/rope_scaling")
    m.add_argument("--from-meta", action="store_true", help="q/k drawn in Meta's layout, converted")
    m.add_argument("--meta-out", help="where --from-meta writes Meta's weights")
    e = sub.add_parser("expected", help="run the reference and write the expected outputs")
    e.add_argument("model_dir")
    e.add_argument("out")
    e.add_argument("--ids", action="append", required=True, help="comma-separated token ids")
    e.add_argument("--meta", help="Meta-layout weights written by make-model --from-meta")
    b = sub.add_parser("bench", help="time the HF-style forward pass")
    b.add_argument("model_dir")
    b.add_argument("--tokens", default="64,512")
    b.add_argument("--repeat", type=int, default=5)
    b.add_argument("--warmup", type=int, default=1)
    b.add_argument("--threads", type=int, default=2)
    b.add_argument("--seed", type=int, default=1)
    b.add_argument("--json", action="store_true")
    b.add_argument("--last-logits", action="store_true",
                   help="the last position's logits only (HF's logits_to_keep=1), as the window's "
                        "passes keep them")
    r = sub.add_parser("mem", help="peak RSS of one forward with every output kept")
    r.add_argument("model_dir")
    r.add_argument("--tokens", type=int, required=True)
    r.add_argument("--threads", type=int, default=2)
    r.add_argument("--seed", type=int, default=1)
    r.add_argument("--json", action="store_true")
    sub.add_parser("selfcheck", help="compare with a naive float64 numpy implementation")
    a = ap.parse_args(argv)
    fn = {"make-model": cmd_make_model, "expected": cmd_expected, "bench": cmd_bench,
          "mem": cmd_mem, "selfcheck": cmd_selfcheck}[a.cmd]
    return fn(a) or 0


if __name__ == "__main__":
    sys.exit(main())
