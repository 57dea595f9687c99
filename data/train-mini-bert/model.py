"""A BERT masked-language model in PyTorch for training attnscope-mini-bert, batched with
padding masks.  Its modules carry Hugging Face's attribute names, so state_dict() keys are
exactly BertForMaskedLM's (bert.embeddings.word_embeddings.weight, ...,
cls.predictions.transform.dense.weight, cls.predictions.bias) and nn.Linear weights are
[out, in] as in HF; the decoder is tied to the word embeddings.

The maths is HF's modeling_bert.py in eval mode (post-LN, exact erf GELU, token types, scores
/ sqrt(head_dim), padding keys masked); dropout on embeddings, attention probabilities and
sub-layer outputs as BertConfig's hidden_dropout_prob / attention_probs_dropout_prob.  The
project's independent reference (tests/reference/encoder_reference.py) checks the exported
file against this model.
"""

import math

import torch
import torch.nn.functional as F
from torch import nn


class _Node(nn.Module):
    """An empty module, to build HF's attribute paths (bert.encoder.layer.N.attention...)."""


def _linear_ln(d_in, d_out, eps):
    m = _Node()
    m.dense = nn.Linear(d_in, d_out)
    m.LayerNorm = nn.LayerNorm(d_out, eps=eps)
    return m


class Layer(nn.Module):

    def __init__(self, d, n_head, inter, eps, dropout):
        super().__init__()
        self.n_head = n_head
        self.attention = _Node()
        self.attention.self = _Node()
        for name in ("query", "key", "value"):
            setattr(self.attention.self, name, nn.Linear(d, d))
        self.attention.output = _linear_ln(d, d, eps)
        self.intermediate = _Node()
        self.intermediate.dense = nn.Linear(d, inter)
        self.output = _linear_ln(inter, d, eps)
        self.drop = nn.Dropout(dropout)

    def forward(self, h, add_mask, want_attn=False):
        b, t, d = h.shape
        hd = d // self.n_head
        sa = self.attention.self

        def heads(x):
            return x.view(b, t, self.n_head, hd).transpose(1, 2)

        q, k, v = heads(sa.query(h)), heads(sa.key(h)), heads(sa.value(h))
        s = q @ k.transpose(-1, -2) / math.sqrt(hd) + add_mask
        p = torch.softmax(s, dim=-1)
        ctx = (self.drop(p) @ v).transpose(1, 2).reshape(b, t, d)
        out = self.attention.output
        a = out.LayerNorm(self.drop(out.dense(ctx)) + h)
        m = F.gelu(self.intermediate.dense(a))
        h = self.output.LayerNorm(self.drop(self.output.dense(m)) + a)
        return h, (p if want_attn else None)


class BertForMaskedLM(nn.Module):

    def __init__(self, vocab, positions, d, n_layer, n_head, inter, type_vocab=2, eps=1e-12,
                 dropout=0.1):
        super().__init__()
        self.config = dict(vocab_size=vocab, max_position_embeddings=positions, hidden_size=d,
                           num_hidden_layers=n_layer, num_attention_heads=n_head,
                           intermediate_size=inter, type_vocab_size=type_vocab,
                           layer_norm_eps=eps, dropout=dropout)
        self.bert = _Node()
        e = self.bert.embeddings = _Node()
        e.word_embeddings = nn.Embedding(vocab, d)
        e.position_embeddings = nn.Embedding(positions, d)
        e.token_type_embeddings = nn.Embedding(type_vocab, d)
        e.LayerNorm = nn.LayerNorm(d, eps=eps)
        self.bert.encoder = _Node()
        self.bert.encoder.layer = nn.ModuleList(
            Layer(d, n_head, inter, eps, dropout) for _ in range(n_layer))
        self.cls = _Node()
        self.cls.predictions = _Node()
        self.cls.predictions.transform = _linear_ln(d, d, eps)
        self.cls.predictions.bias = nn.Parameter(torch.zeros(vocab))
        self.drop = nn.Dropout(dropout)
        self.apply(self._init)

    @staticmethod
    def _init(m):
        """BertPreTrainedModel._init_weights: N(0, 0.02), zero biases, LayerNorm 1/0."""
        if isinstance(m, (nn.Linear, nn.Embedding)):
            nn.init.normal_(m.weight, std=0.02)
        if isinstance(m, nn.Linear):
            nn.init.zeros_(m.bias)

    def encode(self, ids, type_ids, pad_mask, want_attn=False):
        """ids, type_ids [B,T] long; pad_mask [B,T] bool (True = real token).  Returns the last
        hidden state [B,T,D] and, with WANT_ATTN, the per-layer attentions [B,H,T,T]."""
        e = self.bert.embeddings
        pos = torch.arange(ids.shape[1])
        h = e.word_embeddings(ids) + e.position_embeddings(pos)[None] + \
            e.token_type_embeddings(type_ids)
        h = self.drop(e.LayerNorm(h))
        add_mask = torch.zeros(pad_mask.shape, dtype=h.dtype)
        add_mask = add_mask.masked_fill(~pad_mask, torch.finfo(h.dtype).min)[:, None, None, :]
        attns = []
        for layer in self.bert.encoder.layer:
            h, p = layer(h, add_mask, want_attn)
            attns.append(p)
        return h, attns

    def mlm_logits(self, h):
        """LN(gelu(dense(h))) . E^T + bias, for any [..., D] selection of hidden states."""
        tr = self.cls.predictions.transform
        x = tr.LayerNorm(F.gelu(tr.dense(h)))
        return x @ self.bert.embeddings.word_embeddings.weight.t() + self.cls.predictions.bias
