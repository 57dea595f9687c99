"""A GPT-2 (pre-LN, causal, learned positions, tied embeddings, gelu_new) in PyTorch whose
parameters are laid out exactly like Hugging Face's GPT-2 Conv1D weights ([in, out]), so that
export.py can write them to tf_model.h5 without any transposition.

The maths is core/families/README.md "GPT-2"; forward() can also return every layer's attention
probabilities [L][B][H][T][T] for the head statistics.
"""

import math

import torch
from torch import nn


def gelu_new(x):
    return 0.5 * x * (1.0 + torch.tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)))


class Block(nn.Module):

    def __init__(self, d, n_head, eps):
        super().__init__()
        self.n_head = n_head
        self.ln_1 = nn.LayerNorm(d, eps=eps)
        self.c_attn_w = nn.Parameter(torch.empty(d, 3 * d))  # [in][out]
        self.c_attn_b = nn.Parameter(torch.zeros(3 * d))
        self.attn_proj_w = nn.Parameter(torch.empty(d, d))
        self.attn_proj_b = nn.Parameter(torch.zeros(d))
        self.ln_2 = nn.LayerNorm(d, eps=eps)
        self.c_fc_w = nn.Parameter(torch.empty(d, 4 * d))
        self.c_fc_b = nn.Parameter(torch.zeros(4 * d))
        self.mlp_proj_w = nn.Parameter(torch.empty(4 * d, d))
        self.mlp_proj_b = nn.Parameter(torch.zeros(d))

    def forward(self, h, mask, want_attn):
        B, T, D = h.shape
        hd = D // self.n_head
        a = self.ln_1(h)
        qkv = a @ self.c_attn_w + self.c_attn_b  # [B][T][3D]
        q, k, v = qkv.split(D, dim=2)
        q = q.view(B, T, self.n_head, hd).transpose(1, 2)  # [B][H][T][hd]
        k = k.view(B, T, self.n_head, hd).transpose(1, 2)
        v = v.view(B, T, self.n_head, hd).transpose(1, 2)
        s = (q @ k.transpose(-1, -2)) / math.sqrt(hd)  # [B][H][T][T]
        s = s.masked_fill(mask[:T, :T], float("-inf"))
        p = torch.softmax(s, dim=-1)
        ctx = (p @ v).transpose(1, 2).reshape(B, T, D)
        h = h + ctx @ self.attn_proj_w + self.attn_proj_b
        m = gelu_new(self.ln_2(h) @ self.c_fc_w + self.c_fc_b)
        h = h + m @ self.mlp_proj_w + self.mlp_proj_b
        return h, (p if want_attn else None)


class Gpt2(nn.Module):

    def __init__(self, vocab_size, n_positions, n_embd, n_layer, n_head, eps=1e-5):
        super().__init__()
        self.config = dict(vocab_size=vocab_size, n_positions=n_positions, n_embd=n_embd,
                           n_layer=n_layer, n_head=n_head, layer_norm_epsilon=eps)
        self.wte = nn.Parameter(torch.empty(vocab_size, n_embd))
        self.wpe = nn.Parameter(torch.empty(n_positions, n_embd))
        self.blocks = nn.ModuleList(Block(n_embd, n_head, eps) for _ in range(n_layer))
        self.ln_f = nn.LayerNorm(n_embd, eps=eps)
        self.register_buffer(
            "mask", torch.triu(torch.ones(n_positions, n_positions, dtype=torch.bool), 1),
            persistent=False)
        self._init(n_layer)

    def _init(self, n_layer):
        # GPT-2's initialisation: N(0, 0.02), residual projections scaled by 1/sqrt(2 L).
        nn.init.normal_(self.wte, std=0.02)
        nn.init.normal_(self.wpe, std=0.02)
        for b in self.blocks:
            nn.init.normal_(b.c_attn_w, std=0.02)
            nn.init.normal_(b.c_fc_w, std=0.02)
            nn.init.normal_(b.attn_proj_w, std=0.02 / math.sqrt(2 * n_layer))
            nn.init.normal_(b.mlp_proj_w, std=0.02 / math.sqrt(2 * n_layer))

    @torch.no_grad()
    def fix_sinusoidal_positions(self, scale, frequency_scale=1.0):
        """Set wpe to scale x the Transformer's sinusoids (Vaswani et al. 2017, interleaved:
        wpe[p][2i] = sin(p w_i), wpe[p][2i+1] = cos(p w_i), w_i = frequency_scale /
        10000^(2i/D)) and stop training it.  Every offset p -> p + k is then the same rotation
        of each sin/cos pair, so a head can attend by relative position with a single linear
        map; frequency_scale > 1 raises the fastest pairs towards the Nyquist limit (pi), so
        that neighbouring positions differ more.  wpe is still an ordinary GPT-2 weight."""
        P, D = self.wpe.shape
        pos = torch.arange(P, dtype=torch.float64)[:, None]
        table = torch.zeros(P, D, dtype=torch.float64)
        angle = pos * self._frequencies(frequency_scale)
        table[:, 0::2] = torch.sin(angle)
        table[:, 1::2] = torch.cos(angle)
        self.wpe.copy_(scale * table)
        self.wpe.requires_grad_(False)

    def _frequencies(self, frequency_scale):
        D = self.wpe.shape[1]
        return frequency_scale * torch.pow(10000.0,
                                           -torch.arange(0, D, 2, dtype=torch.float64) / D)

    @torch.no_grad()
    def init_previous_token_head(self, layer, head, gain, frequency_scale):
        """Mimetic initialisation (Trockman & Kolter 2023) of one head for fixed sinusoidal
        positions: its query reads the head_dim / 2 fastest sin/cos pairs of the position table,
        its key the same pairs rotated by one position, so that at initialisation the head
        attends to the previous token.  Only the starting point: training changes these weights
        like any other."""
        D = self.wpe.shape[1]
        block = self.blocks[layer]
        hd = D // block.n_head
        w_q = block.c_attn_w[:, head * hd:(head + 1) * hd]
        w_k = block.c_attn_w[:, D + head * hd:D + (head + 1) * hd]
        w_q.zero_()
        w_k.zero_()
        for f, w in enumerate(self._frequencies(frequency_scale)[:hd // 2].tolist()):
            c, s = math.cos(w), math.sin(w)
            w_q[2 * f, 2 * f] = gain
            w_q[2 * f + 1, 2 * f + 1] = gain
            w_k[2 * f, 2 * f] = gain * c
            w_k[2 * f + 1, 2 * f] = gain * s
            w_k[2 * f, 2 * f + 1] = -gain * s
            w_k[2 * f + 1, 2 * f + 1] = gain * c

    def forward(self, ids, want_attn=False):
        """ids [B][T] -> logits [B][T][V] (and attentions, a list of L tensors [B][H][T][T])."""
        T = ids.shape[1]
        h = self.wte[ids] + self.wpe[:T]
        attns = []
        for b in self.blocks:
            h, p = b(h, self.mask, want_attn)
            attns.append(p)
        h = self.ln_f(h)
        logits = h @ self.wte.t()
        return (logits, attns) if want_attn else logits
