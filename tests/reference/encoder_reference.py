#!/usr/bin/python3
"""encoder_reference.py — the project's independent PyTorch reference for BERT, DistilBERT and
RoBERTa encoders read from Hugging Face folders (tf_model.h5 or model.safetensors).

Subcommands (a stable interface: the C tests call exactly these):
  make-model OUT_DIR --family bert|distilbert|roberta --layers L --heads H --hidden D
             --intermediate I --vocab V --positions P [--type-vocab N] [--head mlm|pretraining|none]
             [--format h5|safetensors|both] [--seed S] [--std X] [--tokenizer-from DIR]
             [--legacy-ln-names] [--tied-copies] [--position-ids-buffer] [--einsum-attention]
             [--vlen-strings] [--weight-names-chunks N] [--bpe-tokenizer]
      a random model in the exact HF layout (encoder_layout.py says which): config.json,
      tf_model.h5 (Keras layout of TFBertForMaskedLM / TFBertForPreTraining / TFBertModel /
      TFDistilBertForMaskedLM / TFDistilBertModel / TFRobertaForMaskedLM / TFRobertaModel)
      and/or model.safetensors (PyTorch names), tokenizer files (--bpe-tokenizer: BERT and
      DistilBERT folders also get a byte-level BPE vocab.json + merges.txt whose ids 0..4 are
      [PAD] [UNK] [CLS] [SEP] [MASK], for readers of BPE folders only).  --type-vocab defaults to 2
      (BERT) or 1 (RoBERTa); RoBERTa's max_position_embeddings is P + 2.  --head defaults to
      mlm; pretraining exists for BERT only.
  expected MODEL_DIR OUT.h5 --ids 101,7592,102 [--type-ids 0,0,0] [--ids ... [--type-ids ...]]
           [--prefer h5|safetensors]
      per sequence N (in --ids order) a group /seq<N> with ids, type_ids, position_ids (int64
      [T]); attentions [L,H,T,T] (post-softmax, bidirectional, no mask); q, k, v, contexts
      [L,H,T,hd] (q before any scaling; context = P.v before the output dense); attn_out
      [L,T,D] (attention output dense, before residual + LayerNorm); hidden_states [L+1,T,D]
      (HF's convention: the embeddings' LayerNorm output, then each layer's output); logits
      [T,V] (MLM logits, only when the model has an MLM head).  --type-ids is either absent
      (all zeros) or given once per --ids, in the same order.  Root attributes: model, family,
      head, torch_version.
  selfcheck
      torch vs a naive float64 numpy loop for each family and head, from tf_model.h5 and from
      model.safetensors, single sentences and pairs (incl. a RoBERTa pad token); the Keras
      layout (groups, scopes, shapes, tied copies); h5 == safetensors == written weights, also
      for --einsum-attention, --legacy-ln-names, --tied-copies; a corrupted weight must be caught.
      Exits non-zero on any failure.

The maths follows HF's eval-mode modeling_bert.py, modeling_roberta.py and
modeling_distilbert.py (not installed here; written from them):
  embeddings = LayerNorm(word[ids] + position[pos] + token_type[type_ids]) with pos = 0..T-1
    (BERT, DistilBERT — DistilBERT has no token types) or, for RoBERTa,
    create_position_ids_from_input_ids: pos = cumsum(ids != pad) * (ids != pad) + pad
    (padding_idx = pad_token_id = 1, so real tokens get 2, 3, ...; pads get 1);
  layer: q, k, v = Linear(h); scores = q.k^T / sqrt(hd) (DistilBERT: (q / sqrt(hd)).k^T);
    P = softmax; context = P.v; a = Linear_o(context); h1 = LN(a + h); h = LN(Linear_2(gelu(
    Linear_1(h1))) + h1) — post-LN, exact erf GELU (config hidden_act / activation);
  eps = config layer_norm_eps (BERT 1e-12, RoBERTa 1e-5); DistilBERT hard-codes 1e-12;
  MLM head: LN(act(dense(h))) . E^T + bias with E the word embeddings (BERT: cls.predictions,
    RoBERTa: lm_head, DistilBERT: vocab_transform, act, vocab_layer_norm, vocab_projector); act is
    the config's activation, except RoBERTa's lm_head, which always applies the exact gelu.
Uses /usr/bin/python3 with Debian's python3-torch, python3-h5py, python3-numpy.
"""

import argparse
import math
import os
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import encoder_layout as layout  # noqa: E402

torch = None  # imported lazily: make-model works without torch


def _import_torch(threads=2):
    global torch
    if torch is None:
        import torch as _torch
        torch = _torch
        torch.set_num_threads(threads)
    return torch


def module_names(family, n_layers):
    """Canonical module names of each role (the maths above refers to them)."""
    if family == "distilbert":
        p = "distilbert."
        layers = [dict(q=p + "transformer.layer.%d.attention.q_lin" % n,
                       k=p + "transformer.layer.%d.attention.k_lin" % n,
                       v=p + "transformer.layer.%d.attention.v_lin" % n,
                       o=p + "transformer.layer.%d.attention.out_lin" % n,
                       ln1=p + "transformer.layer.%d.sa_layer_norm" % n,
                       ff1=p + "transformer.layer.%d.ffn.lin1" % n,
                       ff2=p + "transformer.layer.%d.ffn.lin2" % n,
                       ln2=p + "transformer.layer.%d.output_layer_norm" % n)
                  for n in range(n_layers)]
        head = dict(dense="vocab_transform", ln="vocab_layer_norm", bias="vocab_projector.bias")
    else:
        p = family + ".encoder.layer.%d."
        layers = [dict(q=p % n + "attention.self.query", k=p % n + "attention.self.key",
                       v=p % n + "attention.self.value", o=p % n + "attention.output.dense",
                       ln1=p % n + "attention.output.LayerNorm", ff1=p % n + "intermediate.dense",
                       ff2=p % n + "output.dense", ln2=p % n + "output.LayerNorm")
                  for n in range(n_layers)]
        head = (dict(dense="cls.predictions.transform.dense",
                     ln="cls.predictions.transform.LayerNorm", bias="cls.predictions.bias")
                if family == "bert" else
                dict(dense="lm_head.dense", ln="lm_head.layer_norm", bias="lm_head.bias"))
    e = family + ".embeddings."
    return dict(word=e + "word_embeddings.weight", pos=e + "position_embeddings.weight",
                type=None if family == "distilbert" else e + "token_type_embeddings.weight",
                emb_ln=e + "LayerNorm", layers=layers, head=head)


def position_ids(family, ids, pad):
    """BERT/DistilBERT: 0..T-1.  RoBERTa: create_position_ids_from_input_ids."""
    ids = np.asarray(ids, dtype=np.int64)
    if family != "roberta":
        return np.arange(len(ids), dtype=np.int64)
    mask = (ids != pad).astype(np.int64)
    return np.cumsum(mask) * mask + pad


class Encoder:
    """The forward pass in torch float32, eval mode, batch of one."""

    def __init__(self, cfg, weights, head):
        _import_torch()
        self.cfg, self.m, self.head = cfg, layout.dims(cfg), head
        self.names = module_names(self.m["family"], self.m["L"])
        self.w = {k: torch.from_numpy(np.array(v, dtype=np.float32)) for k, v in weights.items()}
        act = self.m["act"]
        if act not in ("gelu", "relu"):
            raise ValueError("activation %s is not supported by this reference" % act)
        self.act = torch.nn.functional.gelu if act == "gelu" else torch.relu

    def _lin(self, x, name):
        return torch.nn.functional.linear(x, self.w[name + ".weight"], self.w[name + ".bias"])

    def _ln(self, x, name):
        return torch.nn.functional.layer_norm(x, (self.m["D"],), self.w[name + ".weight"],
                                              self.w[name + ".bias"], self.m["eps"])

    def forward(self, ids, type_ids=None):
        """{hidden_states: [L+1] of [T,D], attentions/q/k/v/contexts: [L] of [H,T,hd|T],
        attn_out: [L] of [T,D], logits: [T,V] or None, position_ids: numpy [T]}."""
        m, nm, t = self.m, self.names, len(ids)
        hn, hd = m["H"], m["D"] // m["H"]
        pos = position_ids(m["family"], ids, m["pad"])
        idx = torch.as_tensor(ids, dtype=torch.long)
        h = self.w[nm["word"]][idx] + self.w[nm["pos"]][torch.from_numpy(pos)]
        if nm["type"] is not None:
            types = torch.as_tensor(type_ids if type_ids is not None else [0] * t,
                                    dtype=torch.long)
            h = h + self.w[nm["type"]][types]
        h = self._ln(h, nm["emb_ln"])
        out = {k: [] for k in ("attentions", "q", "k", "v", "contexts", "attn_out")}
        out["hidden_states"], out["position_ids"] = [h], pos
        for ln in nm["layers"]:
            q, k, v = (self._lin(h, ln[r]).view(t, hn, hd).transpose(0, 1) for r in "qkv")
            if m["family"] == "distilbert":
                s = torch.matmul(q / math.sqrt(hd), k.transpose(-1, -2))
            else:
                s = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(hd)
            p = torch.softmax(s, dim=-1)
            ctx = torch.matmul(p, v)
            a = self._lin(ctx.transpose(0, 1).reshape(t, m["D"]), ln["o"])
            h1 = self._ln(a + h, ln["ln1"])
            h = self._ln(self._lin(self.act(self._lin(h1, ln["ff1"])), ln["ff2"]) + h1, ln["ln2"])
            for key, val in (("attentions", p), ("q", q), ("k", k), ("v", v), ("contexts", ctx),
                             ("attn_out", a)):
                out[key].append(val)
            out["hidden_states"].append(h)
        out["logits"] = None
        if self.head in ("mlm", "pretraining"):
            hh = nm["head"]
            act = torch.nn.functional.gelu if m["family"] == "roberta" else self.act
            x = self._ln(act(self._lin(h, hh["dense"])), hh["ln"])
            out["logits"] = torch.nn.functional.linear(x, self.w[nm["word"]], self.w[hh["bias"]])
        return out


def load_model(model_dir, prefer="h5"):
    cfg = layout.load_config(model_dir)
    weights, head = layout.read_weights(model_dir, cfg, prefer)
    return Encoder(cfg, weights, head)


def parse_ids(text):
    return [int(x) for x in text.split(",") if x.strip() != ""]


def run_capture(model, ids, type_ids=None):
    """{name: numpy array} with the shapes of the expected file."""
    with torch.no_grad():
        out = model.forward(ids, type_ids)
    arrays = {"ids": np.asarray(ids, dtype=np.int64),
              "type_ids": np.asarray(type_ids if type_ids is not None else [0] * len(ids),
                                     dtype=np.int64),
              "position_ids": out["position_ids"].astype(np.int64)}
    for key in ("attentions", "q", "k", "v", "contexts", "attn_out", "hidden_states"):
        arrays[key] = torch.stack(out[key]).numpy().astype(np.float32)
    if out["logits"] is not None:
        arrays["logits"] = out["logits"].numpy().astype(np.float32)
    return arrays


# --- subcommands ----------------------------------------------------------------------------


def cmd_make_model(a):
    try:
        cfg = layout.make_config(a.family, a.layers, a.heads, a.hidden, a.intermediate, a.vocab,
                                 a.positions, a.type_vocab, a.head)
        weights = layout.random_weights(cfg, a.head, a.std, a.seed)
        layout.write_model(a.out_dir, cfg, weights, a.head, h5=a.format in ("h5", "both"),
                           safetensors=a.format in ("safetensors", "both"),
                           einsum=a.einsum_attention, vlen=a.vlen_strings,
                           chunks=a.weight_names_chunks, legacy_ln=a.legacy_ln_names,
                           tied_copies=a.tied_copies, position_ids=a.position_ids_buffer,
                           tokenizer_from=a.tokenizer_from, bpe_tokenizer=a.bpe_tokenizer)
    except ValueError as e:
        sys.exit("encoder_reference: %s" % e)


def cmd_expected(a):
    if a.type_ids and len(a.type_ids) != len(a.ids):
        sys.exit("encoder_reference: give --type-ids once per --ids (%d vs %d)"
                 % (len(a.type_ids), len(a.ids)))
    _import_torch()
    model = load_model(a.model_dir, a.prefer)
    tmp = a.out + ".tmp"
    with h5py.File(tmp, "w") as f:
        f.attrs["model"] = os.path.basename(os.path.normpath(a.model_dir))
        f.attrs["family"] = model.m["family"]
        f.attrs["head"] = model.head
        f.attrs["torch_version"] = str(torch.__version__)
        for n, text in enumerate(a.ids):
            ids = parse_ids(text)
            types = parse_ids(a.type_ids[n]) if a.type_ids else None
            if types is not None and len(types) != len(ids):
                sys.exit("encoder_reference: sequence %d has %d ids but %d type ids"
                         % (n, len(ids), len(types)))
            g = f.create_group("seq%d" % n)
            for key, arr in run_capture(model, ids, types).items():
                g.create_dataset(key, data=arr)
    os.replace(tmp, a.out)


def cmd_selfcheck(a):
    import encoder_selfcheck  # noqa: E402  (the naive implementation and the checks)
    _import_torch()
    return encoder_selfcheck.run(sys.modules[__name__])


# --- command line ---------------------------------------------------------------------------


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("make-model", help="write a random encoder in the HF layout")
    m.add_argument("out_dir")
    m.add_argument("--family", choices=layout.FAMILIES, required=True)
    for opt in ("--layers", "--heads", "--hidden", "--intermediate", "--vocab", "--positions"):
        m.add_argument(opt, type=int, required=True)
    m.add_argument("--type-vocab", type=int, default=None,
                   help="token types (default 2 for BERT, 1 for RoBERTa; unused by DistilBERT)")
    m.add_argument("--head", choices=layout.HEADS, default="mlm")
    m.add_argument("--format", choices=("h5", "safetensors", "both"), default="h5")
    m.add_argument("--seed", type=int, default=0)
    m.add_argument("--std", type=float, default=0.05)
    m.add_argument("--tokenizer-from", default=None,
                   help="copy vocab.txt (BERT/DistilBERT) or vocab.json + merges.txt from DIR")
    m.add_argument("--legacy-ln-names", action="store_true",
                   help="model.safetensors names LayerNorm parameters gamma/beta")
    m.add_argument("--tied-copies", action="store_true",
                   help="model.safetensors also holds the tied decoder weight (and bias)")
    m.add_argument("--position-ids-buffer", action="store_true",
                   help="model.safetensors also holds the int64 embeddings.position_ids buffer")
    m.add_argument("--einsum-attention", action="store_true",
                   help="tf_model.h5 attention kernels in transformers 4.3's EinsumDense shapes")
    m.add_argument("--vlen-strings", action="store_true",
                   help="HDF5 string attributes as variable-length instead of fixed-length")
    m.add_argument("--weight-names-chunks", type=int, default=0,
                   help="split each weight_names into weight_names0..N-1 (default: as Keras)")
    m.add_argument("--bpe-tokenizer", action="store_true",
                   help="BERT/DistilBERT: also a byte-level BPE vocab.json + merges.txt with "
                        "[PAD] [UNK] [CLS] [SEP] [MASK] as ids 0..4")
    e = sub.add_parser("expected", help="run the reference and write the expected outputs")
    e.add_argument("model_dir")
    e.add_argument("out")
    e.add_argument("--ids", action="append", required=True, help="comma-separated token ids")
    e.add_argument("--type-ids", action="append", default=None,
                   help="comma-separated token type ids, once per --ids")
    e.add_argument("--prefer", choices=("h5", "safetensors"), default="h5",
                   help="which weights file to read when the folder has both")
    sub.add_parser("selfcheck", help="compare with a naive numpy implementation")
    a = ap.parse_args(argv)
    fn = {"make-model": cmd_make_model, "expected": cmd_expected,
          "selfcheck": cmd_selfcheck}[a.cmd]
    return fn(a) or 0


if __name__ == "__main__":
    sys.exit(main())
