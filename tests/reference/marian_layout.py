"""marian_layout.py — Marian translation models (Helsinki-NLP/opus-mt-*) in the exact Hugging Face
folder layout: names, shapes, config files, and the writers and readers of both weight files.

What a user downloads for Helsinki-NLP/opus-mt-en-de, and what this module writes:
  config.json             MarianConfig as save_pretrained writes it (model_type "marian")
  generation_config.json  num_beams, max_length, bad_words_ids [[pad]], forced_eos_token_id,
                          decoder_start_token_id = pad, renormalize_logits
  tf_model.h5             TFMarianMTModel.save_weights (Keras-HDF5; see hf_layout.write_keras_h5)
  model.safetensors       MarianMTModel state dict, tied copies left out (save_pretrained)
  source.spm, target.spm  SentencePiece models; vocab.json one joint vocabulary
  tokenizer_config.json, special_tokens_map.json

Names, verified against transformers' sources (models/marian/modeling_tf_marian.py and
modeling_marian.py as of v4.30-v4.40, modeling_tf_utils.py load_tf_weights_from_h5):
  * Keras layer groups: "model" (TFMarianMainLayer, name="model") and "final_logits_bias"
    (BiasLayer(name="final_logits_bias"), added in Sept 2022 by PR #18833: its variable is not
    scoped, so its full name is "final_logits_bias:0", shape (1, V)). Files written before that
    have no such group and the bias is zero.
  * Class scope "tf_marian_mt_model" (Keras' snake case of TFMarianMTModel). Under it
    model/{encoder,decoder}/embed_positions/embeddings:0 (TFMarianSinusoidalPositionalEmbedding,
    (P, D)), model/encoder/layers.N/... and model/decoder/layers.N/... (layers named
    f"layers.{i}").
  * The shared embedding is built in the absolute name scope "model.shared/" by a layer named
    "model.shared" (load_weight_prefix), so its name has no class scope:
    "model.shared/model.shared/embeddings:0" (keras Embedding, transformers >= 4.27) or
    "model.shared/model.shared/weight:0" (TFSharedEmbeddings, older files; HF's loader maps
    embeddings:0 -> weight:0 as a "retrocompatibility patch").
  * Per layer: self_attn/{k,q,v,out}_proj/{kernel,bias}:0 (Dense: kernel [in, out], bias [out]),
    self_attn_layer_norm/{gamma,beta}:0, decoder only encoder_attn/{k,q,v,out}_proj/* and
    encoder_attn_layer_norm/*, then fc1/{kernel,bias}:0 ([D, F]), fc2 ([F, D]),
    final_layer_norm/*. Weights are listed in Keras' order (attribute order k, q, v, out).
  * HF's h5 loader drops the first path component of each name and matches the rest, so a
    reader should match by that suffix, not by the full name.
  * PyTorch names: final_logits_bias [1, V], model.shared.weight [V, D],
    model.{encoder,decoder}.embed_positions.weight [P, D] (the sinusoid table, saved although
    fixed), model.{encoder,decoder}.layers.N.<same module names>.{weight,bias}; nn.Linear weights
    are [out, in], the transpose of the Keras kernel. model.{encoder,decoder}.embed_tokens.weight
    and lm_head.weight are tied to model.shared.weight and left out of model.safetensors.
"""

import json
import os
import shutil

import numpy as np

import hf_layout

TF_SCOPE = "tf_marian_mt_model/model/"
SHARED_NEW = "model.shared/model.shared/embeddings:0"
SHARED_OLD = "model.shared/model.shared/weight:0"
BIAS_LAYER = "final_logits_bias"


# --- parameter names and shapes ------------------------------------------------------------


def _linear(pt, tf, n_in, n_out):
    """(pt_name, tf_name, pt_shape, transpose) for one nn.Linear / keras Dense."""
    return [(pt + ".weight", tf + "/kernel:0", (n_out, n_in), True),
            (pt + ".bias", tf + "/bias:0", (n_out,), False)]


def _norm(pt, tf, d):
    return [(pt + ".weight", tf + "/gamma:0", (d,), False),
            (pt + ".bias", tf + "/beta:0", (d,), False)]


def _attention(pt, tf, d):
    out = []
    for proj in ("k_proj", "q_proj", "v_proj", "out_proj"):
        out += _linear("%s.%s" % (pt, proj), "%s/%s" % (tf, proj), d, d)
    return out


def layer_params(cfg):
    """[(pt_name, tf_name, pt_shape, transpose)] for the weights of group "model" in Keras' order.
    tf_name is the full Keras name; TRANSPOSE says the Keras kernel is the transposed Linear."""
    d, p = cfg["d_model"], cfg["max_position_embeddings"]
    out = [("model.shared.weight", SHARED_NEW, (cfg["vocab_size"], d), False)]
    for side, n_layers, ffn in (("encoder", cfg["encoder_layers"], cfg["encoder_ffn_dim"]),
                                ("decoder", cfg["decoder_layers"], cfg["decoder_ffn_dim"])):
        out.append(("model.%s.embed_positions.weight" % side,
                    TF_SCOPE + side + "/embed_positions/embeddings:0", (p, d), False))
        for n in range(n_layers):
            pt, tf = "model.%s.layers.%d." % (side, n), "%s%s/layers.%d/" % (TF_SCOPE, side, n)
            out += _attention(pt + "self_attn", tf + "self_attn", d)
            out += _norm(pt + "self_attn_layer_norm", tf + "self_attn_layer_norm", d)
            if side == "decoder":
                out += _attention(pt + "encoder_attn", tf + "encoder_attn", d)
                out += _norm(pt + "encoder_attn_layer_norm", tf + "encoder_attn_layer_norm", d)
            out += _linear(pt + "fc1", tf + "fc1", d, ffn)
            out += _linear(pt + "fc2", tf + "fc2", ffn, d)
            out += _norm(pt + "final_layer_norm", tf + "final_layer_norm", d)
    return out


def sinusoid_table(n_pos, dim):
    """MarianSinusoidalPositionalEmbedding._init_weight: angle[p, j] = p / 10000^(2*(j//2)/dim)
    in float64; columns 0..dim/2-1 hold sin of the even-j angles, dim/2.. the cos of the odd-j
    ones (not interleaved); cast to float32. Row 0 is [0.., 1..]."""
    pos = np.array([[p / np.power(10000, 2 * (j // 2) / dim) for j in range(dim)]
                    for p in range(n_pos)])
    out = np.zeros((n_pos, dim), dtype=np.float32)
    half = dim // 2 if dim % 2 == 0 else dim // 2 + 1
    out[:, :half] = np.sin(pos[:, 0::2])
    out[:, half:] = np.cos(pos[:, 1::2])
    return out


# --- config files ---------------------------------------------------------------------------


def make_config(vocab, enc_layers, dec_layers, heads, d_model, ffn, positions, num_beams=4,
                max_length=None):
    """config.json as MarianConfig.save_pretrained writes it for a converted opus-mt model
    (convert_marian_to_pytorch.py: pad = decoder_start = V-1, eos = forced_eos = 0, bos 0,
    bad_words_ids [[pad]], scale_embedding, static positions, swish, dropout 0.1)."""
    if max_length is None:
        max_length = min(512, positions)
    pad = vocab - 1
    return {
        "activation_dropout": 0.0,
        "activation_function": "swish",
        "add_bias_logits": False,
        "add_final_layer_norm": False,
        "architectures": ["MarianMTModel"],
        "attention_dropout": 0.0,
        "bad_words_ids": [[pad]],
        "bos_token_id": 0,
        "classif_dropout": 0.0,
        "classifier_dropout": 0.0,
        "d_model": d_model,
        "decoder_attention_heads": heads,
        "decoder_ffn_dim": ffn,
        "decoder_layerdrop": 0.0,
        "decoder_layers": dec_layers,
        "decoder_start_token_id": pad,
        "decoder_vocab_size": vocab,
        "dropout": 0.1,
        "encoder_attention_heads": heads,
        "encoder_ffn_dim": ffn,
        "encoder_layerdrop": 0.0,
        "encoder_layers": enc_layers,
        "eos_token_id": 0,
        "forced_eos_token_id": 0,
        "init_std": 0.02,
        "is_encoder_decoder": True,
        "max_length": max_length,
        "max_position_embeddings": positions,
        "model_type": "marian",
        "normalize_before": False,
        "normalize_embedding": False,
        "num_beams": num_beams,
        "num_hidden_layers": enc_layers,
        "pad_token_id": pad,
        "scale_embedding": True,
        "share_encoder_decoder_embeddings": True,
        "static_position_embeddings": True,
        "transformers_version": "4.22.0.dev0",
        "use_cache": True,
        "vocab_size": vocab,
    }


def make_generation_config(cfg):
    """generation_config.json as on the hub since Aug 2023: renormalize_logits true was added to
    every Marian generation config when PR #25294/#25459 replaced the old 'pad logit = -inf before
    log_softmax' hack by bad_words_ids + renormalisation."""
    return {
        "bad_words_ids": cfg["bad_words_ids"],
        "bos_token_id": cfg["bos_token_id"],
        "decoder_start_token_id": cfg["decoder_start_token_id"],
        "eos_token_id": cfg["eos_token_id"],
        "forced_eos_token_id": cfg["forced_eos_token_id"],
        "max_length": cfg["max_length"],
        "num_beams": cfg["num_beams"],
        "pad_token_id": cfg["pad_token_id"],
        "renormalize_logits": True,
        "transformers_version": "4.32.0.dev0",
    }


def generation_settings(model_dir, cfg):
    """The generation parameters HF uses: generation_config.json when present, else the legacy
    keys of config.json; HF's defaults for the rest."""
    path = os.path.join(model_dir, "generation_config.json")
    src = cfg
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            src = json.load(f)
    keys = {"num_beams": 1, "max_length": 20, "min_length": 0, "bad_words_ids": None,
            "eos_token_id": None, "forced_eos_token_id": None, "pad_token_id": None,
            "decoder_start_token_id": None, "length_penalty": 1.0, "early_stopping": False,
            "renormalize_logits": False}
    return {k: src.get(k, v) for k, v in keys.items()}


def tokenizer_config(source_lang, target_lang):
    """tokenizer_config.json as MarianTokenizer.save_pretrained writes it."""
    return {"eos_token": "</s>", "model_max_length": 512, "pad_token": "<pad>",
            "separate_vocabs": False, "source_lang": source_lang, "sp_model_kwargs": {},
            "target_lang": target_lang, "tokenizer_class": "MarianTokenizer",
            "unk_token": "<unk>"}


# --- random weights -------------------------------------------------------------------------


def random_weights(cfg, std, seed, final_bias=True):
    """{pt_name: float32}: matrices and the embedding ~ N(0, std), biases ~ N(0, std/2), LayerNorm
    gammas 1 + N(0, 0.1), betas N(0, 0.05), final_logits_bias N(0, std) (zeros without
    FINAL_BIAS). The pad row of the embedding is zero, as the opus-mt converter adds it
    (add_emb_entries). Positions hold the sinusoid table. Drawn in layer_params order."""
    rng = np.random.default_rng(seed)
    out = {}
    for pt, _, shape, _ in layer_params(cfg):
        if "embed_positions" in pt:
            out[pt] = sinusoid_table(*shape)
            continue
        z = rng.standard_normal(shape, dtype=np.float32)
        if "layer_norm" in pt and pt.endswith(".weight"):
            z = np.float32(1.0) + np.float32(0.1) * z
        elif "layer_norm" in pt:
            z *= np.float32(0.05)
        elif pt.endswith(".bias"):
            z *= np.float32(std / 2)
        else:
            z *= np.float32(std)
        out[pt] = z
    out["model.shared.weight"][cfg["pad_token_id"]] = 0.0
    v = cfg["vocab_size"]
    out["final_logits_bias"] = (rng.standard_normal((1, v), dtype=np.float32) * np.float32(std)
                                if final_bias else np.zeros((1, v), dtype=np.float32))
    return out


# --- weight files ---------------------------------------------------------------------------


def write_tf_h5(path, cfg, weights, old_names=False, final_bias=True, vlen=False, chunks=0):
    """tf_model.h5 in TFMarianMTModel's layout (module docstring). OLD_NAMES writes the shared
    embedding as .../weight:0; FINAL_BIAS=False leaves out the final_logits_bias group."""
    tensors = []
    for pt, tf, _, transpose in layer_params(cfg):
        if tf == SHARED_NEW and old_names:
            tf = SHARED_OLD
        arr = np.asarray(weights[pt])
        tensors.append((tf, arr.T if transpose else arr))
    layers = [("model", tensors)]
    if final_bias:
        layers.append((BIAS_LAYER, [("final_logits_bias:0", weights["final_logits_bias"])]))
    hf_layout.write_keras_h5(path, layers, vlen, chunks)


def read_tf_h5(path, cfg):
    """{pt_name: float32 [PyTorch shape]} matched like HF: by the name after its first path
    component, the shared embedding under embeddings:0 or weight:0; zero final_logits_bias when
    the file has none."""
    import h5py
    out = {}
    with h5py.File(path, "r") as f:
        layers = [v.decode() if isinstance(v, bytes) else str(v)
                  for v in np.ravel(f.attrs["layer_names"])]
        by_suffix = {}
        for layer in layers:
            for name in hf_layout.keras_weight_names(f[layer]):
                by_suffix["/".join(name.split("/")[1:]) or name] = (layer, name)
        for pt, tf, shape, transpose in layer_params(cfg):
            key = "/".join(tf.split("/")[1:])
            hit = by_suffix.get(key)
            if hit is None and key.endswith("embeddings:0"):
                hit = by_suffix.get(key[:-len("embeddings:0")] + "weight:0")
            if hit is None:
                raise ValueError("%s: no weight named */%s" % (path, key))
            arr = np.asarray(f[hit[0]][hit[1]], dtype=np.float32)
            want = shape[::-1] if transpose else shape
            if arr.shape != want:
                raise ValueError("%s: %s has shape %s, expected %s" % (path, hit[1], arr.shape,
                                                                       want))
            out[pt] = np.ascontiguousarray(arr.T) if transpose else arr
        if BIAS_LAYER in layers:
            out["final_logits_bias"] = np.asarray(
                f[BIAS_LAYER][by_suffix["final_logits_bias:0"][1]], dtype=np.float32)
        else:
            out["final_logits_bias"] = np.zeros((1, cfg["vocab_size"]), dtype=np.float32)
    return out


def write_safetensors(path, cfg, weights):
    tensors = [("final_logits_bias", weights["final_logits_bias"])]
    tensors += [(pt, weights[pt]) for pt, _, _, _ in layer_params(cfg)]
    hf_layout.write_safetensors_tensors(path, tensors)


def read_safetensors(path, cfg):
    """{pt_name: float32}; the embedding may also come as lm_head.weight or embed_tokens."""
    tensors = hf_layout.read_safetensors_tensors(path)
    out = {}
    for pt, _, shape, _ in layer_params(cfg):
        names = [pt]
        if pt == "model.shared.weight":
            names += ["model.encoder.embed_tokens.weight", "model.decoder.embed_tokens.weight",
                      "lm_head.weight"]
        arr = next((tensors[n] for n in names if n in tensors), None)
        if arr is None or tuple(arr.shape) != shape:
            raise ValueError("%s: tensor %s missing or not F32 %s" % (path, pt, shape))
        out[pt] = arr
    out["final_logits_bias"] = tensors.get(
        "final_logits_bias", np.zeros((1, cfg["vocab_size"]), dtype=np.float32))
    return out


def read_weights(model_dir, cfg, prefer="h5"):
    h5 = os.path.join(model_dir, "tf_model.h5")
    st = os.path.join(model_dir, "model.safetensors")
    if os.path.exists(h5) and (prefer == "h5" or not os.path.exists(st)):
        return read_tf_h5(h5, cfg)
    return read_safetensors(st, cfg)


def load_config(model_dir):
    with open(os.path.join(model_dir, "config.json"), encoding="utf-8") as f:
        cfg = json.load(f)
    if cfg.get("model_type") != "marian":
        raise ValueError("%s/config.json: model_type is %r, expected 'marian'"
                         % (model_dir, cfg.get("model_type")))
    return cfg


def _dump(path, obj):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(obj, f, indent=2, sort_keys=True, ensure_ascii=False)
        f.write("\n")


def write_model(out_dir, cfg, weights, spm_src, spm_tgt, vocab, h5=True, safetensors=False,
                old_names=False, final_bias=True, langs=("en", "de")):
    """The whole folder (module docstring). VOCAB is the joint {piece: id} of vocab.json."""
    os.makedirs(out_dir, exist_ok=True)
    if len(vocab) != cfg["vocab_size"]:
        raise ValueError("vocab.json has %d entries, the config %d" % (len(vocab),
                                                                      cfg["vocab_size"]))
    _dump(os.path.join(out_dir, "config.json"), cfg)
    _dump(os.path.join(out_dir, "generation_config.json"), make_generation_config(cfg))
    if h5:
        write_tf_h5(os.path.join(out_dir, "tf_model.h5"), cfg, weights, old_names, final_bias)
    if safetensors:
        write_safetensors(os.path.join(out_dir, "model.safetensors"), cfg, weights)
    for src, name in ((spm_src, "source.spm"), (spm_tgt, "target.spm")):
        if os.path.abspath(src) != os.path.abspath(os.path.join(out_dir, name)):
            shutil.copyfile(src, os.path.join(out_dir, name))
    with open(os.path.join(out_dir, "vocab.json"), "w", encoding="utf-8") as f:
        json.dump(vocab, f, ensure_ascii=False, indent=2)
    _dump(os.path.join(out_dir, "tokenizer_config.json"), tokenizer_config(*langs))
    _dump(os.path.join(out_dir, "special_tokens_map.json"),
          {"eos_token": "</s>", "pad_token": "<pad>", "unk_token": "<unk>"})
