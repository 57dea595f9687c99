"""encoder_layout.py — BERT, DistilBERT and RoBERTa in the exact Hugging Face folder layout.

Weights are kept under their PyTorch state-dict names *with* the base-model prefix ("bert.",
"distilbert.", "roberta.") and PyTorch shapes (nn.Linear weight [out, in]); these are the
"canonical" names of this module.  The file layouts below were read from transformers'
modeling_tf_bert.py, modeling_tf_distilbert.py, modeling_tf_roberta.py (v4.3-era and later
versions), modeling_bert.py, modeling_distilbert.py, modeling_roberta.py, and from a public
reader of bert-base-uncased's tf_model.h5 (groups bert / nsp___cls / mlm___cls, names such as
bert/tf_bert_for_pre_training/bert/embeddings/word_embeddings/weight:0 and
mlm___cls/tf_bert_for_pre_training/bert/embeddings/word_embeddings/weight:0).

tf_model.h5 (Keras save_weights, written by hf_layout.write_keras_h5):
  * one group per top-level Keras layer of the TF class, in attribute order:
      TFBertForMaskedLM: bert, mlm___cls          TFBertForPreTraining: bert, nsp___cls, mlm___cls
      TFBertModel: bert                            TFRobertaForMaskedLM: roberta, lm_head
      TFRobertaModel: roberta                      TFDistilBertModel: distilbert
      TFDistilBertForMaskedLM: distilbert, vocab_transform, vocab_layer_norm, vocab_projector
  * weight names start with the class scope, Keras' snake case of the class name
    (tf_bert_for_masked_lm, tf_bert_for_pre_training, tf_bert_model, tf_roberta_for_masked_lm,
    tf_roberta_model, tf_distil_bert_for_masked_lm, tf_distil_bert_model);
  * embeddings: <base>/embeddings/word_embeddings/weight:0 [V,D],
    position_embeddings/embeddings:0 [P,D], token_type_embeddings/embeddings:0 [TV,D] (not in
    DistilBERT), LayerNorm/gamma:0, beta:0 — in that order (word weight created in build(),
    the Embedding layers and LayerNorm tracked after it, as in the files HF published);
  * BERT/RoBERTa layer n: <base>/encoder/layer_._n/attention/self/{query,key,value},
    attention/output/dense, attention/output/LayerNorm, intermediate/dense, output/dense,
    output/LayerNorm; pooler/dense (TFBertModel, TFBertForPreTraining, TFRobertaModel only);
    DistilBERT layer n: distilbert/transformer/layer_._n/attention/{q_lin,k_lin,v_lin,out_lin},
    sa_layer_norm, ffn/lin1, ffn/lin2, output_layer_norm;
  * Dense: kernel:0 [in,out], bias:0 [out]; LayerNormalization: gamma:0, beta:0.  With
    einsum=True the attention kernels take the shapes of transformers 4.3's EinsumDense layers
    (query/key/value kernel [D,H,hd], bias [H,hd]; attention/output/dense kernel [H,hd,D]);
  * heads: mlm___cls/predictions/bias:0 [V], predictions/transform/dense, transform/LayerNorm;
    nsp___cls/seq_relationship kernel [D,2]; lm_head/bias:0, lm_head/dense, lm_head/layer_norm;
    vocab_transform kernel/bias, vocab_layer_norm gamma/beta, vocab_projector/bias:0.
    The decoder is tied to the word embeddings: the LM-head layer keeps the whole embeddings
    layer as a tracked attribute, so Keras writes a second copy of every embeddings weight
    (same full names, e.g. mlm___cls/tf_bert_for_masked_lm/bert/embeddings/...) at the end of
    that group (mlm___cls, lm_head, vocab_projector).

model.safetensors: PyTorch names of BertForMaskedLM / BertForPreTraining / BertModel,
DistilBertForMaskedLM / DistilBertModel, RobertaForMaskedLM / RobertaModel (the *Model classes
save without prefix), F32, the tied decoder weight left out as save_pretrained does
(tied_copies=True writes cls.predictions.decoder.weight/.bias, lm_head.decoder.weight/.bias,
vocab_projector.weight too); legacy_ln=True names LayerNorm parameters gamma/beta as old
checkpoints (bert-base-uncased) do; position_ids=True adds the int64 embeddings.position_ids
buffer [1,P] of checkpoints saved before transformers 4.31.  Readers accept all of these.
"""

import json
import os
import re
import shutil

import numpy as np

import hf_layout

FAMILIES = ("bert", "distilbert", "roberta")
HEADS = ("mlm", "pretraining", "none")
_CLASSES = {("bert", "mlm"): "BertForMaskedLM", ("bert", "pretraining"): "BertForPreTraining",
            ("bert", "none"): "BertModel", ("distilbert", "mlm"): "DistilBertForMaskedLM",
            ("distilbert", "none"): "DistilBertModel", ("roberta", "mlm"): "RobertaForMaskedLM",
            ("roberta", "none"): "RobertaModel"}
ROBERTA_SPECIAL_HEAD = ("<s>", "<pad>", "</s>", "<unk>")
ROBERTA_SPECIAL_TAIL = ("<mask>",)


def snake_case(name):
    """Keras' to_snake_case (the default layer/model name): TFBertForMaskedLM ->
    tf_bert_for_masked_lm, TFGPT2LMHeadModel -> tfgp_t2lm_head_model."""
    s = re.sub(r"(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    s = re.sub(r"([a-z])([A-Z])", r"\1_\2", s).lower()
    return s if s[0] != "_" else "private" + s


# --- config.json ----------------------------------------------------------------------------


def make_config(family, layers, heads, hidden, intermediate, vocab, positions, type_vocab=None,
                head="mlm"):
    """config.json as HF writes it (keys of bert-base-uncased, distilbert-base-uncased,
    roberta-base).  RoBERTa: max_position_embeddings = positions + 2 (padding_idx 1 and the
    position ids start at padding_idx + 1), layer_norm_eps 1e-5 and type_vocab_size 1 as
    roberta-base; BERT: layer_norm_eps 1e-12, type_vocab_size 2."""
    if (family, head) not in _CLASSES:
        raise ValueError("no %s model with head %s" % (family, head))
    if hidden % heads:
        raise ValueError("hidden %d is not divisible by heads %d" % (hidden, heads))
    arch = [_CLASSES[(family, head)]]
    if family == "distilbert":
        return {"activation": "gelu", "architectures": arch, "attention_dropout": 0.1,
                "dim": hidden, "dropout": 0.1, "hidden_dim": intermediate,
                "initializer_range": 0.02, "max_position_embeddings": positions,
                "model_type": "distilbert", "n_heads": heads, "n_layers": layers,
                "pad_token_id": 0, "qa_dropout": 0.1, "seq_classif_dropout": 0.2,
                "sinusoidal_pos_embds": False, "tie_weights_": True,
                "transformers_version": "4.30.0", "vocab_size": vocab}
    cfg = {"architectures": arch, "attention_probs_dropout_prob": 0.1,
           "classifier_dropout": None, "hidden_act": "gelu", "hidden_dropout_prob": 0.1,
           "hidden_size": hidden, "initializer_range": 0.02, "intermediate_size": intermediate,
           "layer_norm_eps": 1e-12, "max_position_embeddings": positions, "model_type": family,
           "num_attention_heads": heads, "num_hidden_layers": layers, "pad_token_id": 0,
           "position_embedding_type": "absolute", "transformers_version": "4.30.0",
           "type_vocab_size": 2 if type_vocab is None else type_vocab, "use_cache": True,
           "vocab_size": vocab}
    if family == "roberta":
        cfg.update(bos_token_id=0, eos_token_id=2, pad_token_id=1, layer_norm_eps=1e-05,
                   max_position_embeddings=positions + 2,
                   type_vocab_size=1 if type_vocab is None else type_vocab)
    return cfg


def dims(cfg):
    """The model's sizes under one set of names, whatever the family's config keys."""
    fam = cfg["model_type"]
    if fam == "distilbert":
        return dict(family=fam, L=cfg["n_layers"], H=cfg["n_heads"], D=cfg["dim"],
                    I=cfg["hidden_dim"], V=cfg["vocab_size"], P=cfg["max_position_embeddings"],
                    TV=0, eps=1e-12, pad=cfg.get("pad_token_id", 0), act=cfg["activation"])
    return dict(family=fam, L=cfg["num_hidden_layers"], H=cfg["num_attention_heads"],
                D=cfg["hidden_size"], I=cfg["intermediate_size"], V=cfg["vocab_size"],
                P=cfg["max_position_embeddings"], TV=cfg["type_vocab_size"],
                eps=float(cfg["layer_norm_eps"]), pad=cfg.get("pad_token_id", 0),
                act=cfg["hidden_act"])


def head_of(cfg):
    arch = (cfg.get("architectures") or [""])[0]
    for (fam, head), cls in _CLASSES.items():
        if cls == arch and fam == cfg["model_type"]:
            return head
    return "mlm" if arch.endswith("ForMaskedLM") else "none"


# --- parameter tables -----------------------------------------------------------------------


def _dense(keras, pt, d_in, d_out):
    """Dense layer: [(keras name, canonical name, PyTorch shape, kind)] for kernel and bias."""
    return [(keras + "/kernel:0", pt + ".weight", (d_out, d_in), "kernel"),
            (keras + "/bias:0", pt + ".bias", (d_out,), "plain")]


def _ln(keras, pt, d):
    return [(keras + "/gamma:0", pt + ".weight", (d,), "plain"),
            (keras + "/beta:0", pt + ".bias", (d,), "plain")]


def _embeddings(m):
    fam, base = m["family"], m["family"] + "/embeddings/"
    pt = fam + ".embeddings."
    out = [(base + "word_embeddings/weight:0", pt + "word_embeddings.weight", (m["V"], m["D"]),
            "plain"),
           (base + "position_embeddings/embeddings:0", pt + "position_embeddings.weight",
            (m["P"], m["D"]), "plain")]
    if fam != "distilbert":
        out.append((base + "token_type_embeddings/embeddings:0",
                    pt + "token_type_embeddings.weight", (m["TV"], m["D"]), "plain"))
    return out + _ln(base + "LayerNorm", pt + "LayerNorm", m["D"])


def _layer(m, n):
    d, i = m["D"], m["I"]
    if m["family"] == "distilbert":
        k, p = "distilbert/transformer/layer_._%d/" % n, "distilbert.transformer.layer.%d." % n
        out = []
        for lin in ("q_lin", "k_lin", "v_lin", "out_lin"):
            out += _dense(k + "attention/" + lin, p + "attention." + lin, d, d)
        return (out + _ln(k + "sa_layer_norm", p + "sa_layer_norm", d)
                + _dense(k + "ffn/lin1", p + "ffn.lin1", d, i)
                + _dense(k + "ffn/lin2", p + "ffn.lin2", i, d)
                + _ln(k + "output_layer_norm", p + "output_layer_norm", d))
    fam = m["family"]
    k, p = "%s/encoder/layer_._%d/" % (fam, n), "%s.encoder.layer.%d." % (fam, n)
    out = []
    for lin in ("query", "key", "value"):
        out += [(a, b, s, "qkv_" + kind) for a, b, s, kind in
                _dense(k + "attention/self/" + lin, p + "attention.self." + lin, d, d)]
    out += [(a, b, s, "attn_out_" + kind) for a, b, s, kind in
            _dense(k + "attention/output/dense", p + "attention.output.dense", d, d)]
    return (out + _ln(k + "attention/output/LayerNorm", p + "attention.output.LayerNorm", d)
            + _dense(k + "intermediate/dense", p + "intermediate.dense", d, i)
            + _dense(k + "output/dense", p + "output.dense", i, d)
            + _ln(k + "output/LayerNorm", p + "output.LayerNorm", d))


def keras_groups(cfg, head):
    """[(group, [(keras name after the class scope, canonical name, PyTorch shape, kind)])] in
    Keras' order; embeddings copies in LM-head groups are included (kind "plain")."""
    m = dims(cfg)
    fam, d, v = m["family"], m["D"], m["V"]
    base = _embeddings(m)
    for n in range(m["L"]):
        base += _layer(m, n)
    if fam != "distilbert" and head in ("pretraining", "none"):
        base += _dense(fam + "/pooler/dense", fam + ".pooler.dense", d, d)
    groups = [(fam, base)]
    emb_copy = _embeddings(m)
    if fam == "bert" and head in ("mlm", "pretraining"):
        mlm = [("mlm___cls/predictions/bias:0", "cls.predictions.bias", (v,), "plain")]
        mlm += _dense("mlm___cls/predictions/transform/dense", "cls.predictions.transform.dense",
                      d, d)
        mlm += _ln("mlm___cls/predictions/transform/LayerNorm",
                   "cls.predictions.transform.LayerNorm", d)
        if head == "pretraining":
            groups.append(("nsp___cls", _dense("nsp___cls/seq_relationship",
                                               "cls.seq_relationship", d, 2)))
        groups.append(("mlm___cls", mlm + emb_copy))
    elif fam == "roberta" and head == "mlm":
        lm = [("lm_head/bias:0", "lm_head.bias", (v,), "plain")]
        lm += _dense("lm_head/dense", "lm_head.dense", d, d)
        lm += _ln("lm_head/layer_norm", "lm_head.layer_norm", d)
        groups.append(("lm_head", lm + emb_copy))
    elif fam == "distilbert" and head == "mlm":
        groups += [("vocab_transform", _dense("vocab_transform", "vocab_transform", d, d)),
                   ("vocab_layer_norm", _ln("vocab_layer_norm", "vocab_layer_norm", d)),
                   ("vocab_projector", [("vocab_projector/bias:0", "vocab_projector.bias", (v,),
                                         "plain")] + emb_copy)]
    return groups


def params(cfg, head):
    """[(canonical name, PyTorch shape)] — each weight once, in Keras order."""
    seen, out = set(), []
    for _, entries in keras_groups(cfg, head):
        for _, pt, shape, _ in entries:
            if pt not in seen:
                seen.add(pt)
                out.append((pt, shape))
    return out


def random_weights(cfg, head, std, seed):
    """{canonical name: float32}: matrices/embeddings N(0, std), biases N(0, std/2), LayerNorm
    gammas 1 + N(0, 0.1), betas N(0, 0.05); drawn in params() order from a seeded Generator."""
    rng = np.random.default_rng(seed)
    out = {}
    for name, shape in params(cfg, head):
        z = rng.standard_normal(shape, dtype=np.float32)
        module = name.rsplit(".", 1)[0]
        is_ln = module.endswith("LayerNorm") or module.endswith("layer_norm")
        if is_ln and name.endswith(".weight"):
            z = np.float32(1.0) + np.float32(0.1) * z
        elif is_ln:
            z *= np.float32(0.05)
        elif name.endswith("bias"):
            z *= np.float32(std / 2)
        else:
            z *= np.float32(std)
        out[name] = z
    return out


# --- tf_model.h5 ----------------------------------------------------------------------------


def _to_keras(arr, shape, kind, m, einsum):
    arr = np.asarray(arr, dtype=np.float32).reshape(shape)
    if kind.endswith("kernel"):
        arr = arr.T  # [out, in] -> [in, out]
    if einsum and kind == "qkv_kernel":
        arr = arr.reshape(m["D"], m["H"], m["D"] // m["H"])
    elif einsum and kind == "qkv_plain":
        arr = arr.reshape(m["H"], m["D"] // m["H"])
    elif einsum and kind == "attn_out_kernel":
        arr = arr.reshape(m["H"], m["D"] // m["H"], m["D"])
    return np.ascontiguousarray(arr)


def tf_scope(cfg, head):
    return snake_case("TF" + _CLASSES[(cfg["model_type"], head)]) + "/"


def write_h5(path, cfg, weights, head, einsum=False, vlen=False, chunks=0):
    if einsum and cfg["model_type"] == "distilbert":
        raise ValueError("DistilBERT's TF layers never used EinsumDense")
    m, scope = dims(cfg), tf_scope(cfg, head)
    groups = [(g, [(scope + k, _to_keras(weights[pt], shape, kind, m, einsum))
                   for k, pt, shape, kind in entries])
              for g, entries in keras_groups(cfg, head)]
    hf_layout.write_keras_h5(path, groups, vlen, chunks)


def read_h5(path, cfg):
    """{canonical name: float32 PyTorch-shaped} from a tf_model.h5 of any class scope: as HF's
    loader, each weight name is matched without its first component (the scope).  Kernels are
    transposed back; EinsumDense shapes are accepted.  Returns (weights, head, copies) where
    copies lists (group, canonical name, array) of the tied second copies in LM-head groups."""
    layers = dict(hf_layout.read_keras_h5(path))
    head = "pretraining" if "nsp___cls" in layers else (
        "mlm" if {"mlm___cls", "lm_head", "vocab_projector"} & set(layers) else "none")
    out, copies = {}, []
    for group, entries in keras_groups(cfg, head):
        stored = {n.split("/", 1)[1]: a for n, a in layers.get(group, [])}
        for k, pt, shape, kind in entries:
            if k not in stored:
                raise ValueError("%s: group %s has no weight */%s" % (path, group, k))
            arr = stored[k]
            if arr.size != int(np.prod(shape)):
                raise ValueError("%s: %s/%s has %d values, expected %s"
                                 % (path, group, k, arr.size, shape))
            if kind.endswith("kernel"):  # [in, out] (or EinsumDense's [D,H,hd] / [H,hd,D])
                arr = arr.reshape(shape[1], shape[0]).T
            arr = np.ascontiguousarray(arr, dtype=np.float32).reshape(shape)
            if pt in out:
                copies.append((group, pt, arr))
            else:
                out[pt] = arr
    return out, head, copies


# --- model.safetensors ----------------------------------------------------------------------


def _legacy(name):
    module, _, leaf = name.rpartition(".")
    if module.endswith("LayerNorm") or module.endswith("layer_norm"):
        return module + "." + {"weight": "gamma", "bias": "beta"}[leaf]
    return name


def st_tensors(cfg, weights, head, legacy_ln=False, tied_copies=False, position_ids=False):
    """[(safetensors name, array)] sorted as the safetensors library writes them."""
    fam = cfg["model_type"]
    strip = fam + "." if head == "none" else ""
    out = [(name[len(strip):] if strip and name.startswith(strip) else name, weights[name])
           for name, _ in params(cfg, head)]
    if tied_copies and head != "none":
        word = weights[fam + ".embeddings.word_embeddings.weight"]
        if fam == "bert":
            out += [("cls.predictions.decoder.weight", word),
                    ("cls.predictions.decoder.bias", weights["cls.predictions.bias"])]
        elif fam == "roberta":
            out += [("lm_head.decoder.weight", word),
                    ("lm_head.decoder.bias", weights["lm_head.bias"])]
        else:
            out += [("vocab_projector.weight", word)]
    if legacy_ln:
        out = [(_legacy(n), a) for n, a in out]
    if position_ids:
        p = dims(cfg)["P"]
        out.append(((fam + "." if not strip else "") + "embeddings.position_ids",
                    np.arange(p, dtype=np.int64).reshape(1, p)))
    return sorted(out, key=lambda t: (-np.asarray(t[1]).dtype.itemsize, t[0]))


def write_safetensors(path, cfg, weights, head, **kw):
    hf_layout.write_safetensors_tensors(path, st_tensors(cfg, weights, head, **kw))


def read_safetensors(path, cfg, head):
    """{canonical name: float32} accepting names with or without the base prefix and LayerNorm
    gamma/beta; other tensors (tied copies, position_ids) are ignored."""
    stored = hf_layout.read_safetensors_tensors(path)
    fam = cfg["model_type"]
    out = {}
    for name, shape in params(cfg, head):
        cands = [name, _legacy(name)]
        if name.startswith(fam + "."):
            cands += [c[len(fam) + 1:] for c in cands]
        arr = next((stored[c] for c in cands if c in stored), None)
        if arr is None or arr.dtype != np.float32 or tuple(arr.shape) != shape:
            raise ValueError("%s: tensor %s missing or not F32 %s" % (path, name, shape))
        out[name] = np.array(arr)
    return out


# --- tokenizer files ------------------------------------------------------------------------

BERT_SPECIAL = {"pad_token": "[PAD]", "unk_token": "[UNK]", "cls_token": "[CLS]",
                "sep_token": "[SEP]", "mask_token": "[MASK]"}


def make_wordpiece_vocab(vocab_size):
    """A vocab.txt token list of exactly VOCAB_SIZE entries from the small built-in corpus of
    hf_layout: the specials at bert-base-uncased's ids when there is room ([PAD] 0,
    [unused0..98], [UNK] 100, [CLS] 101, [SEP] 102, [MASK] 103; below 1000 entries compactly
    [PAD] [UNK] [CLS] [SEP] [MASK] = 0..4), the characters, their "##" forms, the corpus words,
    then [unusedN] fillers."""
    if vocab_size >= 1000:
        toks = ["[PAD]"] + ["[unused%d]" % i for i in range(99)] + [
            "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    else:
        toks = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    words = re.findall(r"[a-z]+|[0-9]+|[^\sa-z0-9]", hf_layout._CORPUS.lower())
    chars = sorted(set("".join(words)) | set("abcdefghijklmnopqrstuvwxyz0123456789"))
    cand = chars + ["##" + c for c in chars] + sorted(set(words), key=words.index)
    seen = set(toks)
    for t in cand:
        if t not in seen:
            seen.add(t)
            toks.append(t)
    n = 99
    while len(toks) < vocab_size:
        toks.append("[unused%d]" % n)
        n += 1
    if len(toks) > vocab_size:
        if vocab_size < 5 + 26:
            raise ValueError("a WordPiece vocabulary needs at least 31 entries, got %d"
                             % vocab_size)
        toks = toks[:vocab_size]
    return toks


def _dump(obj, path):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(obj, f, indent=2, sort_keys=True, ensure_ascii=False)
        f.write("\n")


BERT_BPE_HEAD = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")


def write_tokenizer(out_dir, cfg, tokenizer_from=None, bpe=False):
    """BERT/DistilBERT: vocab.txt (copied from TOKENIZER_FROM or make_wordpiece_vocab),
    tokenizer_config.json (do_lower_case true), special_tokens_map.json; with BPE also a
    byte-level BPE vocab.json + merges.txt (hf_layout) whose ids 0..4 are [PAD] [UNK] [CLS] [SEP]
    [MASK], as in the compact vocab.txt below 1000 entries, for readers of BPE folders only.
    RoBERTa: vocab.json + merges.txt (hf_layout's byte-level BPE with <s> <pad> </s> <unk> first
    and <mask> last, or copied), tokenizer_config.json, special_tokens_map.json."""
    m = dims(cfg)
    positions = m["P"] - 2 if m["family"] == "roberta" else m["P"]
    if m["family"] == "roberta":
        hf_layout.write_tokenizer(out_dir, m["V"], tokenizer_from, ROBERTA_SPECIAL_HEAD,
                                  ROBERTA_SPECIAL_TAIL)
        special = {"bos_token": "<s>", "cls_token": "<s>", "eos_token": "</s>",
                   "mask_token": "<mask>", "pad_token": "<pad>", "sep_token": "</s>",
                   "unk_token": "<unk>"}
        conf = dict(special, add_prefix_space=False, errors="replace", trim_offsets=True,
                    model_max_length=positions, tokenizer_class="RobertaTokenizer")
    else:
        path = os.path.join(out_dir, "vocab.txt")
        if tokenizer_from:
            src = os.path.join(tokenizer_from, "vocab.txt")
            with open(src, encoding="utf-8") as f:
                n = sum(1 for _ in f)
            if n != m["V"]:
                raise ValueError("%s has %d tokens, the model needs %d" % (src, n, m["V"]))
            if not (os.path.exists(path) and os.path.samefile(src, path)):
                shutil.copyfile(src, path)
        else:
            with open(path, "w", encoding="utf-8") as f:
                f.writelines(t + "\n" for t in make_wordpiece_vocab(m["V"]))
        if bpe:
            hf_layout.write_tokenizer(out_dir, m["V"], None, BERT_BPE_HEAD, ())
        special = dict(BERT_SPECIAL)
        cls = "DistilBertTokenizer" if m["family"] == "distilbert" else "BertTokenizer"
        conf = dict(special, do_lower_case=True, strip_accents=None,
                    tokenize_chinese_chars=True, model_max_length=positions,
                    tokenizer_class=cls)
    _dump(conf, os.path.join(out_dir, "tokenizer_config.json"))
    _dump(special, os.path.join(out_dir, "special_tokens_map.json"))


# --- whole folders --------------------------------------------------------------------------


def write_model(out_dir, cfg, weights, head, h5=True, safetensors=False, einsum=False,
                vlen=False, chunks=0, legacy_ln=False, tied_copies=False, position_ids=False,
                tokenizer_from=None, tokenizer=True, bpe_tokenizer=False):
    os.makedirs(out_dir, exist_ok=True)
    _dump(cfg, os.path.join(out_dir, "config.json"))
    if h5:
        write_h5(os.path.join(out_dir, "tf_model.h5"), cfg, weights, head, einsum, vlen, chunks)
    if safetensors:
        write_safetensors(os.path.join(out_dir, "model.safetensors"), cfg, weights, head,
                          legacy_ln=legacy_ln, tied_copies=tied_copies,
                          position_ids=position_ids)
    if tokenizer:
        write_tokenizer(out_dir, cfg, tokenizer_from, bpe_tokenizer)


def load_config(model_dir):
    with open(os.path.join(model_dir, "config.json"), encoding="utf-8") as f:
        return json.load(f)


def read_weights(model_dir, cfg, prefer="h5"):
    """(weights, head): tf_model.h5 when present (or PREFER="safetensors" and both exist),
    otherwise model.safetensors; the head of a safetensors folder comes from config.json."""
    h5 = os.path.join(model_dir, "tf_model.h5")
    st = os.path.join(model_dir, "model.safetensors")
    if os.path.exists(h5) and not (prefer == "safetensors" and os.path.exists(st)):
        w, head, _ = read_h5(h5, cfg)
        return w, head
    head = head_of(cfg)
    return read_safetensors(st, cfg, head), head
