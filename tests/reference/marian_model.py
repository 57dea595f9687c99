"""marian_model.py — the Marian encoder-decoder (HF MarianMTModel) in PyTorch, one implementation
used both as the project's reference (eval, batch of one, everything captured) and for training
the shipped attnscope-mini-en-de model (batches with padding, dropout).

Parameter names are exactly HF's PyTorch state-dict names (model.shared.weight,
model.encoder.layers.0.self_attn.q_proj.weight, ..., final_logits_bias), so weights move between
this module and marian_layout's writers by name. The maths follows modeling_marian.py
(transformers v4.30-v4.40), eval mode:
  x = E[id] * sqrt(D) (scale_embedding) + P[0..T-1] (sinusoid table, positions from 0)
  no embedding LayerNorm; post-LN blocks (LayerNorm eps 1e-5):
    h = LN(h + Attn(h));  [decoder: h = LN(h + CrossAttn(h, enc))];  h = LN(h + fc2(silu(fc1(h))))
  Attn: q = q_proj(h) * hd^-0.5 (scaled BEFORE the product, as HF does), scores = q k^T, additive
  mask (causal in decoder self-attention, padding of the source), softmax, P v, out_proj.
  Masked weights come out exactly 0 (mask value = float32 min, exp underflows to 0).
  no final LayerNorm; logits = y E^T + final_logits_bias.
Hidden states follow HF's output_hidden_states: the embeddings (scaled + positions) first, then
every layer's output (L+1 entries per stack).
"""

import math

import torch
from torch import nn
from torch.nn import functional as F


class Attention(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads, self.hd = heads, d // heads
        self.k_proj = nn.Linear(d, d)
        self.v_proj = nn.Linear(d, d)
        self.q_proj = nn.Linear(d, d)
        self.out_proj = nn.Linear(d, d)

    def forward(self, x, kv, mask):
        """x [B,T,D], kv [B,S,D], mask additive [B or 1,1,T,S] or None -> (out [B,T,D],
        probs [B,H,T,S])."""
        b, t, d = x.shape
        s = kv.shape[1]
        q = (self.q_proj(x) * self.hd ** -0.5).view(b, t, self.heads, self.hd).transpose(1, 2)
        k = self.k_proj(kv).view(b, s, self.heads, self.hd).transpose(1, 2)
        v = self.v_proj(kv).view(b, s, self.heads, self.hd).transpose(1, 2)
        scores = torch.matmul(q, k.transpose(-1, -2))  # [B,H,T,S]
        if mask is not None:
            scores = scores + mask
        p = torch.softmax(scores, dim=-1)
        ctx = torch.matmul(p, v).transpose(1, 2).reshape(b, t, d)
        return self.out_proj(ctx), p


class EncoderLayer(nn.Module):
    def __init__(self, d, heads, ffn):
        super().__init__()
        self.self_attn = Attention(d, heads)
        self.self_attn_layer_norm = nn.LayerNorm(d, eps=1e-5)
        self.fc1 = nn.Linear(d, ffn)
        self.fc2 = nn.Linear(ffn, d)
        self.final_layer_norm = nn.LayerNorm(d, eps=1e-5)

    def forward(self, h, mask, dropout):
        a, p = self.self_attn(h, h, mask)
        h = self.self_attn_layer_norm(h + F.dropout(a, dropout, self.training))
        m = self.fc2(F.silu(self.fc1(h)))
        h = self.final_layer_norm(h + F.dropout(m, dropout, self.training))
        return h, p


class DecoderLayer(nn.Module):
    def __init__(self, d, heads, ffn):
        super().__init__()
        self.self_attn = Attention(d, heads)
        self.self_attn_layer_norm = nn.LayerNorm(d, eps=1e-5)
        self.encoder_attn = Attention(d, heads)
        self.encoder_attn_layer_norm = nn.LayerNorm(d, eps=1e-5)
        self.fc1 = nn.Linear(d, ffn)
        self.fc2 = nn.Linear(ffn, d)
        self.final_layer_norm = nn.LayerNorm(d, eps=1e-5)

    def forward(self, h, causal, enc, enc_mask, dropout):
        a, p_self = self.self_attn(h, h, causal)
        h = self.self_attn_layer_norm(h + F.dropout(a, dropout, self.training))
        c, p_cross = self.encoder_attn(h, enc, enc_mask)
        h = self.encoder_attn_layer_norm(h + F.dropout(c, dropout, self.training))
        m = self.fc2(F.silu(self.fc1(h)))
        h = self.final_layer_norm(h + F.dropout(m, dropout, self.training))
        return h, p_self, p_cross


class Stack(nn.Module):
    def __init__(self, layer, n, positions, d, *args):
        super().__init__()
        self.embed_positions = nn.Module()
        self.embed_positions.weight = nn.Parameter(torch.zeros(positions, d), requires_grad=False)
        self.layers = nn.ModuleList(layer(d, *args) for _ in range(n))


class Marian(nn.Module):
    """MarianMTModel with shared embeddings. state_dict() keys are HF's (the tied embed_tokens and
    lm_head are the same tensor, model.shared.weight)."""

    def __init__(self, cfg, dropout=0.0):
        super().__init__()
        d, v, p = cfg["d_model"], cfg["vocab_size"], cfg["max_position_embeddings"]
        self.cfg, self.dropout = cfg, dropout
        self.embed_scale = math.sqrt(d) if cfg.get("scale_embedding", True) else 1.0
        self.model = nn.Module()
        self.model.shared = nn.Embedding(v, d)
        self.model.encoder = Stack(EncoderLayer, cfg["encoder_layers"], p, d,
                                   cfg["encoder_attention_heads"], cfg["encoder_ffn_dim"])
        self.model.decoder = Stack(DecoderLayer, cfg["decoder_layers"], p, d,
                                   cfg["decoder_attention_heads"], cfg["decoder_ffn_dim"])
        self.register_buffer("final_logits_bias", torch.zeros(1, v))

    def load_numpy(self, weights):
        """Copies {pt_name: array} (marian_layout's readers) into the parameters."""
        own = self.state_dict()
        missing = [k for k in own if k not in weights]
        if missing:
            raise ValueError("weights missing: %s" % ", ".join(missing[:5]))
        with torch.no_grad():
            for k, t in own.items():
                t.copy_(torch.as_tensor(weights[k], dtype=torch.float32).reshape(t.shape))
        return self

    def to_numpy(self):
        return {k: t.detach().cpu().numpy().copy() for k, t in self.state_dict().items()}

    def _embed(self, ids, stack):
        x = self.model.shared(ids) * self.embed_scale
        return x + stack.embed_positions.weight[:ids.shape[1]]

    @staticmethod
    def pad_mask(src_mask):
        """[B,S] bool (True = real token) -> additive [B,1,1,S] (float32 min at padding)."""
        if src_mask is None:
            return None
        neg = torch.finfo(torch.float32).min
        return torch.zeros(src_mask.shape, dtype=torch.float32).masked_fill(
            ~src_mask, neg)[:, None, None, :]

    def encode(self, src, src_mask=None, capture=False):
        """src [B,S] -> (enc [B,S,D], hidden_states list, attentions list)."""
        mask = self.pad_mask(src_mask)
        h = F.dropout(self._embed(src, self.model.encoder), self.dropout, self.training)
        hidden, attn = [h], []
        for layer in self.model.encoder.layers:
            h, p = layer(h, mask, self.dropout)
            if capture:
                hidden.append(h)
                attn.append(p)
        return h, hidden, attn

    def decode(self, tgt, enc, src_mask=None, capture=False, last_only=False):
        """tgt [B,T] decoder input ids, enc [B,S,D] -> dict logits [B,T,V] ([B,1,V] with
        LAST_ONLY), hidden_states, self_attentions, cross_attentions (lists over layers)."""
        t = tgt.shape[1]
        neg = torch.finfo(torch.float32).min
        causal = torch.zeros(t, t).masked_fill(
            torch.ones(t, t, dtype=torch.bool).triu(1), neg)[None, None]
        enc_mask = self.pad_mask(src_mask)
        h = F.dropout(self._embed(tgt, self.model.decoder), self.dropout, self.training)
        out = {"hidden_states": [h], "self_attentions": [], "cross_attentions": []}
        for layer in self.model.decoder.layers:
            h, p_self, p_cross = layer(h, causal, enc, enc_mask, self.dropout)
            if capture:
                out["hidden_states"].append(h)
                out["self_attentions"].append(p_self)
                out["cross_attentions"].append(p_cross)
        if last_only:
            h = h[:, -1:]
        out["logits"] = F.linear(h, self.model.shared.weight) + self.final_logits_bias
        return out

    def set_sinusoids(self, table):
        with torch.no_grad():
            for stack in (self.model.encoder, self.model.decoder):
                stack.embed_positions.weight.copy_(torch.as_tensor(table))
