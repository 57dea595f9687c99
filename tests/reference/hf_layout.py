"""hf_layout.py — GPT-2 models in the exact Hugging Face folder layout, and the file writers and
readers every reference model shares.

Writes and reads what a user downloads from the hub: config.json, tf_model.h5 in the Keras-HDF5
layout HF publishes for TensorFlow (what Keras' save_weights(h5) writes, read back by HF's
modeling_tf_utils.load_tf_weights: root attrs layer_names/backend/keras_version, one group per
top-level layer with attr weight_names, one dataset per weight at /<layer>/<full weight name>),
model.safetensors (through safetensors_io.py) and the GPT-2 byte-level BPE files vocab.json
and merges.txt.
write_keras_h5 / read_keras_h5 and write_safetensors_tensors / read_safetensors_tensors are the
family-independent parts (encoder_layout.py uses them too). Random weights are drawn from a
seeded numpy Generator so a model is reproducible from its command line. Used by
gpt2_reference.py, encoder_reference.py and marian_reference.py; no torch here.
"""

import json
import os
import re
import shutil
from collections import Counter

import h5py
import numpy as np

import safetensors_io

H5_LAYER = "transformer"
H5_SCOPE = "tfgp_t2lm_head_model/transformer/"
KERAS_ATTR_LIMIT = 64512  # Keras splits an attribute larger than this into name0, name1, ...


# --- parameter names and shapes ------------------------------------------------------------


def gpt2_params(cfg):
    """[(pt_name, tf_name, pt_shape)] in the order Keras lists GPT-2's weights.

    pt_name is the PyTorch/safetensors name; tf_name is the Keras name after the class scope.
    Biases have shape (n,) in PyTorch and (1, n) in the Keras file."""
    d, v, p = cfg["n_embd"], cfg["vocab_size"], cfg["n_positions"]
    f = cfg.get("n_inner") or 4 * d
    out = [("wte.weight", "wte/weight:0", (v, d)), ("wpe.weight", "wpe/embeddings:0", (p, d))]
    for n in range(cfg["n_layer"]):
        pt, tf = "h.%d." % n, "h_._%d/" % n
        out += [
            (pt + "ln_1.weight", tf + "ln_1/gamma:0", (d,)),
            (pt + "ln_1.bias", tf + "ln_1/beta:0", (d,)),
            (pt + "attn.c_attn.weight", tf + "attn/c_attn/weight:0", (d, 3 * d)),
            (pt + "attn.c_attn.bias", tf + "attn/c_attn/bias:0", (3 * d,)),
            (pt + "attn.c_proj.weight", tf + "attn/c_proj/weight:0", (d, d)),
            (pt + "attn.c_proj.bias", tf + "attn/c_proj/bias:0", (d,)),
            (pt + "ln_2.weight", tf + "ln_2/gamma:0", (d,)),
            (pt + "ln_2.bias", tf + "ln_2/beta:0", (d,)),
            (pt + "mlp.c_fc.weight", tf + "mlp/c_fc/weight:0", (d, f)),
            (pt + "mlp.c_fc.bias", tf + "mlp/c_fc/bias:0", (f,)),
            (pt + "mlp.c_proj.weight", tf + "mlp/c_proj/weight:0", (f, d)),
            (pt + "mlp.c_proj.bias", tf + "mlp/c_proj/bias:0", (d,)),
        ]
    out += [("ln_f.weight", "ln_f/gamma:0", (d,)), ("ln_f.bias", "ln_f/beta:0", (d,))]
    return out


def tf_shape(pt_name, pt_shape):
    """The Keras file stores Conv1D biases as (1, n); everything else keeps its shape."""
    if pt_name.endswith(".bias") and ".ln_" not in pt_name and not pt_name.startswith("ln_f"):
        return (1,) + tuple(pt_shape)
    return tuple(pt_shape)


def make_config(layers, heads, embd, vocab, positions, inner=None):
    """A config.json as HF writes it for GPT2LMHeadModel (with the usual extra keys)."""
    return {
        "_num_labels": 1,
        "activation_function": "gelu_new",
        "architectures": ["GPT2LMHeadModel"],
        "attn_pdrop": 0.1,
        "bos_token_id": vocab - 1,
        "embd_pdrop": 0.1,
        "eos_token_id": vocab - 1,
        "initializer_range": 0.02,
        "layer_norm_epsilon": 1e-05,
        "model_type": "gpt2",
        "n_ctx": positions,
        "n_embd": embd,
        "n_head": heads,
        "n_inner": inner,
        "n_layer": layers,
        "n_positions": positions,
        "resid_pdrop": 0.1,
        "summary_activation": None,
        "summary_first_dropout": 0.1,
        "summary_proj_to_labels": True,
        "summary_type": "cls_index",
        "summary_use_proj": True,
        "task_specific_params": {"text-generation": {"do_sample": True, "max_length": 50}},
        "vocab_size": vocab,
    }


def random_weights(cfg, std, seed):
    """{pt_name: float32 array}: matrices and embeddings ~ N(0, std), Conv1D biases ~ N(0, std/2),
    LayerNorm gammas 1 + N(0, 0.1), betas N(0, 0.05). Drawn in gpt2_params order."""
    rng = np.random.default_rng(seed)
    out = {}
    for name, _, shape in gpt2_params(cfg):
        z = rng.standard_normal(shape, dtype=np.float32)
        is_ln = ".ln_" in name or name.startswith("ln_f")
        if is_ln and name.endswith(".weight"):
            z = np.float32(1.0) + np.float32(0.1) * z
        elif is_ln:
            z *= np.float32(0.05)
        elif name.endswith(".bias"):
            z *= np.float32(std / 2)
        else:
            z *= np.float32(std)
        out[name] = z
    return out


# --- tf_model.h5 (Keras-HDF5) ---------------------------------------------------------------


def _string_attr(obj, key, values, vlen):
    """Keras writes fixed-length byte strings (numpy 'S'); some writers use variable-length."""
    data = [s.encode("utf-8") if isinstance(s, str) else s for s in values]
    if vlen:
        obj.attrs.create(key, data, dtype=h5py.string_dtype("utf-8"))
    else:
        obj.attrs[key] = np.array(data)


def write_keras_h5(path, groups, vlen=False, chunks=0, keras_version="2.11.0"):
    """Writes an HDF5 file like Keras' save_weights(h5): root attrs layer_names (every group, in
    order), backend, keras_version; per group attr weight_names (split into weight_names0.. when
    larger than Keras' 64512-byte limit, or into CHUNKS pieces when given) and one contiguous
    float32 dataset per weight at /<group>/<full weight name>.  GROUPS is
    [(layer name, [(full weight name, array)])]; a weight name may repeat across groups (Keras
    writes a layer's tracked sub-layers again, e.g. tied embeddings in an LM head)."""
    with h5py.File(path, "w") as f:
        _string_attr(f, "layer_names", [name for name, _ in groups], vlen)
        if vlen:
            f.attrs.create("backend", "tensorflow", dtype=h5py.string_dtype("utf-8"))
            f.attrs.create("keras_version", keras_version, dtype=h5py.string_dtype("utf-8"))
        else:
            f.attrs["backend"] = np.bytes_(b"tensorflow")
            f.attrs["keras_version"] = np.bytes_(keras_version.encode())
        for layer, weights in groups:
            g = f.create_group(layer)
            names = [n for n, _ in weights]
            size = sum(len(n) for n in names)
            n_chunks = min(chunks, max(len(names), 1)) if chunks > 0 else 1
            while chunks <= 0 and size / n_chunks > KERAS_ATTR_LIMIT:
                n_chunks += 1
            if n_chunks == 1:
                _string_attr(g, "weight_names", names, vlen)
            else:
                for i, part in enumerate(np.array_split(np.array(names, dtype=object), n_chunks)):
                    _string_attr(g, "weight_names%d" % i, list(part), vlen)
            for full, arr in weights:
                data = np.ascontiguousarray(arr, dtype="<f4")
                ds = g.create_dataset(full, shape=data.shape, dtype="<f4")
                ds[...] = data


def str_list(values):
    """An HDF5 string attribute (fixed- or variable-length) as a list of str."""
    return [v.decode("utf-8") if isinstance(v, bytes) else str(v) for v in np.ravel(values)]


def keras_weight_names(group):
    """weight_names of one group, joining weight_names0, weight_names1, ... as Keras does."""
    if "weight_names" in group.attrs:
        return str_list(group.attrs["weight_names"])
    out, i = [], 0
    while "weight_names%d" % i in group.attrs:
        out += str_list(group.attrs["weight_names%d" % i])
        i += 1
    return out


def read_keras_h5(path):
    """[(layer name, [(full weight name, float32 array)])] in the file's layer_names order."""
    out = []
    with h5py.File(path, "r") as f:
        for layer in str_list(f.attrs["layer_names"]):
            g = f[layer]
            out.append((layer, [(n, np.asarray(g[n][...], dtype=np.float32))
                                for n in keras_weight_names(g)]))
    return out


def write_tf_h5(path, cfg, weights, vlen=False, chunks=0):
    """tf_model.h5 of TFGPT2LMHeadModel: one group 'transformer' whose weights are named
    tfgp_t2lm_head_model/transformer/<name> (write_keras_h5 does the Keras layout)."""
    params = gpt2_params(cfg)
    data = [(H5_SCOPE + tf, np.asarray(weights[pt]).reshape(tf_shape(pt, shape)))
            for pt, tf, shape in params]
    write_keras_h5(path, [(H5_LAYER, data)], vlen, chunks)


def read_tf_h5(path, cfg):
    """{pt_name: float32 array with the PyTorch shape}, each read by its full dataset path."""
    out = {}
    with h5py.File(path, "r") as f:
        for pt, tf, shape in gpt2_params(cfg):
            full = "/%s/%s%s" % (H5_LAYER, H5_SCOPE, tf)
            data = f[full][...]
            if data.dtype != np.float32 or data.shape != tf_shape(pt, shape):
                raise ValueError("%s: %s has %s %s, expected float32 %s" %
                                 (path, full, data.dtype, data.shape, tf_shape(pt, shape)))
            out[pt] = data.reshape(shape)
    return out


# --- model.safetensors ----------------------------------------------------------------------


def write_safetensors_tensors(path, tensors):
    """[(name, array)] as safetensors in the given order: float arrays as F32, integer arrays as
    I64 (buffers such as position_ids), metadata format pt (safetensors_io.py)."""
    entries = []
    for name, arr in tensors:
        arr = np.asarray(arr)
        kind = "I64" if arr.dtype.kind in "iu" else "F32"
        entries.append((name, kind, arr.shape, arr))
    safetensors_io.write_file(path, entries, {"format": "pt"}, sort=False)


def read_safetensors_tensors(path):
    """{name: array} of every tensor of a safetensors file: float32 (widened exactly from F16 or
    BF16) or int64."""
    ckpt = safetensors_io.Checkpoint(path)
    return {name: ckpt.read(name) for name in ckpt.names()}


def write_safetensors(path, cfg, weights, mask_buffers=False, prefix=""):
    """HF PyTorch names and shapes, F32, in GPT-2's parameter order. MASK_BUFFERS adds the
    h.N.attn.bias causal masks [1,1,P,P] older checkpoints carry."""
    tensors = [(prefix + pt, weights[pt]) for pt, _, _ in gpt2_params(cfg)]
    if mask_buffers:
        p = cfg["n_positions"]
        tril = np.tril(np.ones((p, p), dtype="<f4")).reshape(1, 1, p, p)
        tensors += [("%sh.%d.attn.bias" % (prefix, n), tril) for n in range(cfg["n_layer"])]
    write_safetensors_tensors(path, tensors)


def read_safetensors(path, cfg):
    """{pt_name: float32 array}; accepts an optional 'transformer.' prefix, ignores mask buffers."""
    ckpt = safetensors_io.Checkpoint(path)
    out = {}
    for pt, _, shape in gpt2_params(cfg):
        name = pt if pt in ckpt.entries else "transformer." + pt
        if name not in ckpt.entries or ckpt.dtype(name) != "F32" or ckpt.shape(name) != shape:
            raise ValueError("%s: tensor %s missing or not F32 %s" % (path, pt, shape))
        out[pt] = ckpt.stored(name)
    return out


def read_weights(model_dir, cfg):
    """Weights from tf_model.h5 when present, otherwise from model.safetensors."""
    h5 = os.path.join(model_dir, "tf_model.h5")
    if os.path.exists(h5):
        return read_tf_h5(h5, cfg)
    return read_safetensors(os.path.join(model_dir, "model.safetensors"), cfg)


# --- GPT-2 byte-level BPE files -------------------------------------------------------------


def bytes_to_unicode():
    """GPT-2's byte→unicode table (openai/gpt-2 src/encoder.py), as an ordered list of
    (byte, char): the printable bytes first in byte order, then the others mapped to 256+n —
    the order of the first 256 ids in GPT-2's vocab.json."""
    bs = list(range(33, 127)) + list(range(161, 173)) + list(range(174, 256))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return [(b, chr(c)) for b, c in zip(bs, cs)]


_CORPUS = (
    "May the force be with you. The man hit the car. The car hit the man. "
    "Attention is all you need. Transformers look at every token in the sentence and decide "
    "which ones matter. The president of the United States said that the economy is strong. "
    "A student reads the article, then the teacher explains the heads of every layer. "
    "It's the quick brown fox that jumps over the lazy dog; they're here, we've seen it, I'll go. "
    "In 2024 there were 1234 models with 768 dimensions and 12 heads.\n"
)


def _train_merges(n_merges):
    """Plain BPE training on a small built-in corpus: repeatedly merge the most frequent pair."""
    table = dict(bytes_to_unicode())
    words = Counter()
    for piece in re.findall(r" ?[A-Za-z]+| ?[0-9]+| ?[^\sA-Za-z0-9]+|\s+", _CORPUS):
        words[tuple(table[b] for b in piece.encode("utf-8"))] += 1
    merges = []
    while len(merges) < n_merges:
        pairs = Counter()
        for w, c in words.items():
            for a, b in zip(w, w[1:]):
                pairs[(a, b)] += c
        if not pairs:
            break
        best = max(pairs.items(), key=lambda kv: (kv[1], kv[0]))[0]
        merges.append(best)
        merged = Counter()
        for w, c in words.items():
            out, i = [], 0
            while i < len(w):
                if i + 1 < len(w) and (w[i], w[i + 1]) == best:
                    out.append(w[i] + w[i + 1])
                    i += 2
                else:
                    out.append(w[i])
                    i += 1
            merged[tuple(out)] += c
        words = merged
    return merges


def make_bpe(vocab_size, head=(), tail=("<|endoftext|>",)):
    """(vocab dict, merges list) with exactly VOCAB_SIZE ids: the HEAD special tokens (RoBERTa:
    <s> <pad> </s> <unk>), the 256 byte symbols, one token per merge, and the TAIL special
    tokens last (GPT-2: <|endoftext|>; RoBERTa: <mask>). Merges come from training on a small
    corpus, then synthetic ones (existing token + a letter) when the corpus runs out."""
    n_merges = vocab_size - 256 - len(head) - len(tail)
    if n_merges < 0:
        raise ValueError("a byte-level BPE vocabulary needs at least %d ids, got %d"
                         % (256 + len(head) + len(tail), vocab_size))
    symbols = list(head) + [c for _, c in bytes_to_unicode()]
    vocab = {s: i for i, s in enumerate(symbols)}
    merges = []
    for a, b in _train_merges(min(n_merges, 400)):
        if a + b not in vocab:
            merges.append((a, b))
            vocab[a + b] = len(vocab)
    letters = [c for c in "etaoinshrdlcumwfgypbvkjxqz"]
    i = 0
    tokens = [t for t in vocab if t not in head]
    while len(merges) < n_merges:
        a = tokens[i % len(tokens)]
        for b in letters:
            if len(merges) == n_merges:
                break
            if a + b not in vocab:
                merges.append((a, b))
                vocab[a + b] = len(vocab)
                tokens.append(a + b)
        i += 1
    for t in tail:
        vocab[t] = len(vocab)
    return vocab, merges


def write_tokenizer(out_dir, vocab_size, tokenizer_from=None, head=(), tail=("<|endoftext|>",)):
    """vocab.json + merges.txt: copied from TOKENIZER_FROM (must hold VOCAB_SIZE ids) or built."""
    if tokenizer_from:
        with open(os.path.join(tokenizer_from, "vocab.json"), encoding="utf-8") as f:
            n = len(json.load(f))
        if n != vocab_size:
            raise ValueError("%s/vocab.json has %d ids, the model needs %d"
                             % (tokenizer_from, n, vocab_size))
        for name in ("vocab.json", "merges.txt"):
            shutil.copyfile(os.path.join(tokenizer_from, name), os.path.join(out_dir, name))
        return
    vocab, merges = make_bpe(vocab_size, head, tail)
    with open(os.path.join(out_dir, "vocab.json"), "w", encoding="utf-8") as f:
        json.dump(vocab, f, ensure_ascii=False, separators=(",", ":"))
    with open(os.path.join(out_dir, "merges.txt"), "w", encoding="utf-8") as f:
        f.write("#version: 0.2\n")
        f.writelines("%s %s\n" % m for m in merges)


def write_model(out_dir, cfg, weights, h5=True, safetensors=False, vlen=False, chunks=0,
                mask_buffers=False, tokenizer_from=None):
    """The whole folder: config.json, tf_model.h5 and/or model.safetensors, vocab.json and
    merges.txt."""
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "config.json"), "w", encoding="utf-8") as f:
        json.dump(cfg, f, indent=2, sort_keys=True)
        f.write("\n")
    if h5:
        write_tf_h5(os.path.join(out_dir, "tf_model.h5"), cfg, weights, vlen, chunks)
    if safetensors:
        write_safetensors(os.path.join(out_dir, "model.safetensors"), cfg, weights, mask_buffers)
    write_tokenizer(out_dir, cfg["vocab_size"], tokenizer_from)


def load_config(model_dir):
    with open(os.path.join(model_dir, "config.json"), encoding="utf-8") as f:
        return json.load(f)
