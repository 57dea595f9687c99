#!/usr/bin/python3
"""analysis_reference.py — an independent numpy (float64) reference for attnscope's analysis core.

The C tests write their random inputs as raw little-endian float32 files, run this script and
compare the raw float64 file it writes with what the core computed.

  analysis_reference.py cosine    IN.f32 N,DIM     OUT.f64   # [N][N] cosine similarity
  analysis_reference.py meanheads IN.f32 L,H,T     OUT.f64   # [L][T][T] mean over heads
  analysis_reference.py rollout   IN.f32 L,H,T     OUT.f64   # [L][T][T] attention rollout
  analysis_reference.py headstats IN.f32 L,H,T,C   OUT.f64 [CLS SEP]
      # [L][H][7] entropy previous first self next cls sep (C = 1 causal, 0 bidirectional; next,
      # cls, sep NaN when causal); CLS and SEP list the [CLS] and [SEP] positions ("0", "4,8",
      # "-" for none; both absent: none)

Definitions follow the docs in core/as-similarity.h, as-rollout.h and as-head-stats.h, written
here the straightforward numpy way (vectorised, no shared code with the C core).
"""
import sys

import numpy as np


def cosine(x):
    norms = np.linalg.norm(x, axis=1)
    safe = np.where(norms > 0, norms, 1.0)
    unit = x / safe[:, None]
    sim = unit @ unit.T
    zero = norms == 0
    sim[zero, :] = 0.0
    sim[:, zero] = 0.0
    return sim


def rollout(attn):
    n_layer, _, t, _ = attn.shape
    eye = np.eye(t)
    out = np.empty((n_layer, t, t))
    joint = None
    for layer in range(n_layer):
        a = 0.5 * attn[layer].mean(axis=0) + 0.5 * eye
        a = a / a.sum(axis=-1, keepdims=True)
        joint = a if joint is None else a @ joint
        out[layer] = joint
    return out


def head_stats(p, causal, cls=(), sep=()):
    """p: [T][T] -> (entropy, previous, first, self, next, cls, sep) with NaN where undefined."""
    t = p.shape[0]
    visible = np.arange(1, t + 1) if causal else np.full(t, t)
    rows = visible >= 2
    with np.errstate(divide="ignore", invalid="ignore"):
        plogp = np.where(p > 0, p * np.log(np.where(p > 0, p, 1.0)), 0.0)
    ent = -plogp.sum(axis=1)
    entropy = (ent[rows] / np.log(visible[rows])).mean() if rows.any() else np.nan
    i = np.arange(1, t)
    previous = p[i, i - 1].mean() if t > 1 else np.nan
    first = p[i, 0].mean() if t > 1 else np.nan
    diag = np.diag(p)
    self_rows = diag[1:] if causal else diag
    self_share = self_rows.mean() if self_rows.size else np.nan
    if causal:
        return [entropy, previous, first, self_share, np.nan, np.nan, np.nan]
    nxt = p[i - 1, i].mean() if t > 1 else np.nan
    others = np.setdiff1d(np.arange(t), np.asarray(cls, dtype=int))
    def to(cols):
        cols = np.asarray(cols, dtype=int)
        if cols.size == 0 or others.size == 0:
            return np.nan
        return p[np.ix_(others, cols)].sum(axis=1).mean()
    return [entropy, previous, first, self_share, nxt, to(cls), to(sep)]


def positions(text):
    return [] if text == "-" else [int(x) for x in text.split(",")]


def main(argv):
    if len(argv) not in (5, 7):
        sys.stderr.write(__doc__)
        return 2
    kind, path_in, shape_text, path_out = argv[1:5]
    cls, sep = (positions(argv[5]), positions(argv[6])) if len(argv) == 7 else ([], [])
    shape = [int(s) for s in shape_text.split(",")]
    if kind == "headstats":
        causal = bool(shape.pop())
    if kind != "cosine":
        shape.append(shape[-1])  # attention: L,H,T -> [L][H][T][T]
    data = np.fromfile(path_in, dtype="<f4").astype(np.float64)
    data = data.reshape(shape)
    if kind == "cosine":
        out = cosine(data)
    elif kind == "meanheads":
        out = data.mean(axis=1)
    elif kind == "rollout":
        out = rollout(data)
    elif kind == "headstats":
        n_layer, n_head = shape[0], shape[1]
        out = np.array([[head_stats(data[l, h], causal, cls, sep) for h in range(n_head)]
                        for l in range(n_layer)])
    else:
        sys.stderr.write("unknown kind %r\n" % kind)
        return 2
    np.ascontiguousarray(out, dtype="<f8").tofile(path_out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
