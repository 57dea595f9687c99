#!/usr/bin/python3
"""make-toy-models.py — builds the two toy-attention models of the seed 000 worked example.

    /usr/bin/python3 data/make-toy-models.py [--out DIR] [--check]

writes DIR/seed-single-head/ and DIR/seed-two-heads/ (DIR defaults to data/models next to this
script), each a Hugging Face-style folder: config.json (model_type "toy-attention"), tf_model.h5
(Keras-HDF5 layout, core/io/README.md "Weight files") and vocab.json (word -> id), plus a README.md.

Where the numbers come from (tests/README.md, "Published values": the article "The Transformer Architecture I"):
- embeddings: the seed's hand-written 6×10 table for "May the force be with you";
- seed-single-head: Q = K = V = embeddings, scores not scaled (no W matrices in the file);
- seed-two-heads: torch.manual_seed(42), then torch.randn(2,10,5) three times (W_Q, W_K, W_V)
  and torch.randn(10,10) (W_O), in that order, exactly as the seed's code draws them; scores
  scaled by 1/sqrt(5).

With --check the script also runs the seed's own maths in PyTorch on these weights and compares
the result with the numbers the seed prints (it exits non-zero when a printed digit disagrees).

Needs Debian's python3-torch, python3-h5py and python3-numpy (run it with /usr/bin/python3).
The HDF5 files are written without timestamps, so a re-run gives byte-identical files.
"""

import argparse
import json
import os
import sys

import h5py
import numpy as np
import torch

WORDS = ["May", "the", "force", "be", "with", "you"]

# The seed's embeddings (000_*.txt, "A Transformer Block"), one row per word of WORDS.
EMBEDDINGS = [
    [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0],
    [1.0, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1],
    [0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 0.1, 0.2, 0.3, 0.4],
    [0.2, 0.4, 0.6, 0.8, 1.0, 0.1, 0.3, 0.5, 0.7, 0.9],
    [0.9, 0.7, 0.5, 0.3, 0.1, 1.0, 0.8, 0.6, 0.4, 0.2],
    [0.3, 0.1, 0.9, 0.7, 0.5, 0.2, 1.0, 0.8, 0.6, 0.4],
]

SCOPE = "toy_attention"  # the Keras layer group and the class scope of every weight name

# What the seed prints (000_*.txt), used by --check.
SEED_A1_ATTENTION = [
    [0.3388, 0.0651, 0.1020, 0.1955, 0.1128, 0.1859],
    [0.0622, 0.3237, 0.2064, 0.1077, 0.1867, 0.1133],
    [0.0966, 0.2044, 0.3206, 0.1515, 0.1304, 0.0966],
    [0.1863, 0.1075, 0.1526, 0.3230, 0.0620, 0.1686],
    [0.1157, 0.2006, 0.1414, 0.0668, 0.3477, 0.1279],
    [0.1776, 0.1133, 0.0975, 0.1690, 0.1191, 0.3236],
]
SEED_A2_HEAD0 = [
    [0.068118, 0.181340, 0.071635, 0.027055, 0.456570, 0.195282],
    [0.015012, 0.246116, 0.019410, 0.006160, 0.599809, 0.113493],
    [0.007348, 0.470308, 0.094195, 0.009372, 0.368718, 0.050059],
    [0.054408, 0.292597, 0.065859, 0.040474, 0.393329, 0.153334],
    [0.018118, 0.147041, 0.020352, 0.003969, 0.671181, 0.139338],
    [0.106796, 0.130137, 0.028468, 0.034135, 0.407147, 0.293317],
]
SEED_A2_HEAD1 = [
    [0.339671, 0.036311, 0.029780, 0.072609, 0.169864, 0.351766],
    [0.549202, 0.000667, 0.000758, 0.028736, 0.012748, 0.407889],
    [0.651215, 0.000264, 0.000342, 0.038280, 0.004499, 0.305399],
    [0.405897, 0.003060, 0.001443, 0.031975, 0.038848, 0.518777],
    [0.521837, 0.008986, 0.017760, 0.074093, 0.063290, 0.314033],
    [0.522649, 0.000785, 0.000491, 0.012670, 0.032367, 0.431039],
]
SEED_A2_OUTPUT_ROW0 = [-6.3872, 1.9858, 2.1712, 2.7969, -2.1122,
                       -5.8285, -3.3943, -1.7054, -2.6450, 3.8029]


def seed_weights():
    """W_Q, W_K, W_V (2,10,5) and W_O (10,10), drawn as the seed's code draws them."""
    torch.manual_seed(42)
    num_heads, d_model = 2, 10
    d_k = d_model // num_heads
    w_q = torch.randn(num_heads, d_model, d_k)
    w_k = torch.randn(num_heads, d_model, d_k)
    w_v = torch.randn(num_heads, d_model, d_k)
    w_o = torch.randn(d_model, d_model)
    return w_q, w_k, w_v, w_o


def write_keras_h5(path, weights):
    """weights: list of (short name, float32 array). Keras-HDF5 layout: root attribute
    layer_names, one layer group with attribute weight_names, one dataset per weight at
    /<layer>/<weight name>."""
    names = [f"{SCOPE}/{short}:0" for short, _ in weights]
    tmp = path + ".tmp"
    with h5py.File(tmp, "w", track_order=False) as f:
        f.attrs["layer_names"] = np.array([SCOPE.encode()], dtype="S")
        f.attrs["backend"] = np.bytes_(b"tensorflow")
        f.attrs["keras_version"] = np.bytes_(b"2.11.0")
        group = f.create_group(SCOPE)
        group.attrs["weight_names"] = np.array([n.encode() for n in names], dtype="S")
        for name, (_, array) in zip(names, weights):
            group.create_dataset(name, data=np.ascontiguousarray(array, dtype=np.float32),
                                 track_times=False)
    os.replace(tmp, path)


def write_json(path, obj):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(obj, f, indent=2)
        f.write("\n")


def config(n_head, head_dim, use_projections, use_output_projection, scale_scores):
    return {
        "model_type": "toy-attention",
        "n_embd": 10,
        "n_head": n_head,
        "head_dim": head_dim,
        "vocab_size": len(WORDS),
        "n_positions": 64,
        "use_projections": use_projections,
        "use_output_projection": use_output_projection,
        "scale_scores": scale_scores,
        "sinusoidal_positions": False,
        "causal": False,
    }


README_SINGLE = """# seed-single-head

The single-head attention example of the seed text 000 ("The Transformer Architecture I",
section "A Transformer Block"; tests/README.md, "Published values").

- Vocabulary: the six words May, the, force, be, with, you (ids 0..5, `vocab.json`); the text is
  split on whitespace and matched case-sensitively.
- `tf_model.h5` holds only `embeddings` (6, 10): the seed's hand-written table.
- No W_Q, W_K, W_V, W_O: Q = K = V = the embeddings; scores are NOT scaled
  (softmax(E·Eᵀ)·E, as the seed's `calculate_attention`).

attnscope reproduces the seed's printed 6×6 attention table, its context vectors and its
cosine-similarity comparison table to every printed digit (tests/core/test-toy-attention.c).
Built by `data/make-toy-models.py`; do not edit by hand.
"""

README_TWO = """# seed-two-heads

The multi-head attention example of the seed text 000 ("Multi-Head Attention", "Practical
example"; tests/README.md, "Published values").

- Vocabulary and embeddings as in seed-single-head (`embeddings` (6, 10)).
- Two heads of width 5 with projections `w_q`, `w_k`, `w_v` (2, 10, 5) and the output
  projection `w_o` (10, 10), drawn exactly as the seed's code draws them:
  `torch.manual_seed(42)`, then `torch.randn(2, 10, 5)` three times (W_Q, W_K, W_V) and
  `torch.randn(10, 10)` (W_O), in that order (PyTorch's CPU generator).
- Scores scaled by 1/sqrt(5); no positions, no mask; the layer output is concat(heads)·W_O with
  no residual and no normalisation.

attnscope reproduces both heads' printed 6×6 attention tables (6 decimals) and the printed
multi-head output (4 decimals) (tests/core/test-toy-attention.c). Three of the 72 six-decimal
weights lie within 3e-8 of a rounding midpoint (head 0 the→you 0.1134935089 and you→the
0.1301364704, head 1 May→with 0.1698634935 in float64), so their last printed digit depends on
float32 summation order; the test allows 1e-7 of float32 noise beyond half a digit there.
Built by `data/make-toy-models.py`; do not edit by hand.
"""


def build(out_dir):
    embeddings = np.array(EMBEDDINGS, dtype=np.float32)  # [V][D]
    vocab = {w: i for i, w in enumerate(WORDS)}
    w_q, w_k, w_v, w_o = seed_weights()

    single = os.path.join(out_dir, "seed-single-head")
    os.makedirs(single, exist_ok=True)
    write_json(os.path.join(single, "config.json"), config(1, 10, False, False, False))
    write_json(os.path.join(single, "vocab.json"), vocab)
    write_keras_h5(os.path.join(single, "tf_model.h5"), [("embeddings", embeddings)])
    with open(os.path.join(single, "README.md"), "w", encoding="utf-8") as f:
        f.write(README_SINGLE)

    two = os.path.join(out_dir, "seed-two-heads")
    os.makedirs(two, exist_ok=True)
    write_json(os.path.join(two, "config.json"), config(2, 5, True, True, True))
    write_json(os.path.join(two, "vocab.json"), vocab)
    write_keras_h5(os.path.join(two, "tf_model.h5"), [
        ("embeddings", embeddings),
        ("w_q", w_q.numpy()),
        ("w_k", w_k.numpy()),
        ("w_v", w_v.numpy()),
        ("w_o", w_o.numpy()),
    ])
    with open(os.path.join(two, "README.md"), "w", encoding="utf-8") as f:
        f.write(README_TWO)
    return single, two


def digits_agree(values, printed, decimals):
    """True when every value rounds to the printed number: |v - p| <= half a last digit, plus
    1e-7 of float32 noise. The noise term matters for two of the seed's 6-decimal entries
    (head 0, rows the/you, columns you/the): their exact values, 0.11349351 and 0.13013647,
    lie within 3e-8 of a rounding midpoint, so the printed last digit depends on the float32
    summation order of the machine that ran the seed (here they come out 0.56 and 0.55 of a
    last digit away from the print)."""
    tolerance = 0.5 * 10.0 ** -decimals + 1e-7
    v = np.asarray(values, dtype=np.float64)
    return bool(np.all(np.abs(v - np.asarray(printed)) <= tolerance))


def check(single, two):
    """Re-reads the written files and runs the seed's maths on them in PyTorch."""
    ok = True
    with h5py.File(os.path.join(single, "tf_model.h5"), "r") as f:
        e = torch.from_numpy(f[f"{SCOPE}/{SCOPE}/embeddings:0"][()])
    p = torch.softmax(e @ e.T, dim=-1)
    ok &= digits_agree(p, SEED_A1_ATTENTION, 4)
    with h5py.File(os.path.join(two, "tf_model.h5"), "r") as f:
        w = {n: torch.from_numpy(f[f"{SCOPE}/{SCOPE}/{n}:0"][()])
             for n in ("embeddings", "w_q", "w_k", "w_v", "w_o")}
    heads, probs = [], []
    for i in range(2):
        q, k, v = (w["embeddings"] @ w[n][i] for n in ("w_q", "w_k", "w_v"))
        pi = torch.softmax(q @ k.T / (5 ** 0.5), dim=-1)
        probs.append(pi)
        heads.append(pi @ v)
    out = torch.cat(heads, dim=-1) @ w["w_o"]
    ok &= digits_agree(probs[0], SEED_A2_HEAD0, 6)
    ok &= digits_agree(probs[1], SEED_A2_HEAD1, 6)
    ok &= digits_agree(out[0], SEED_A2_OUTPUT_ROW0, 4)
    return ok


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(here, "models"),
                        help="directory that receives the two model folders")
    parser.add_argument("--check", action="store_true",
                        help="verify the written weights against the seed's printed numbers")
    args = parser.parse_args()
    single, two = build(args.out)
    if args.check:
        if not check(single, two):
            print("make-toy-models: the weights do not reproduce the seed's printed numbers",
                  file=sys.stderr)
            return 1
        print("make-toy-models: seed numbers reproduced")
    return 0


if __name__ == "__main__":
    sys.exit(main())
