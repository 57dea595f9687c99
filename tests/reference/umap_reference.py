#!/usr/bin/python3
"""umap_reference.py — references for attnscope's UMAP, with numpy, scipy and scikit-learn.

No umap-learn is installed on the build machines; the functions below transcribe, in plain numpy
and scipy, what umap-learn 0.5 computes for small data (exact pairwise distances): the smooth
k-NN distances (smooth_knn_dist), the memberships (compute_membership_strengths), the fuzzy
union and the pruning (fuzzy_simplicial_set, simplicial_set_embedding), the curve fit
(find_ab_params with scipy's curve_fit) and the spectral embedding of a connected graph (the
normalised Laplacian's eigenvectors, here from numpy's dense eigh). Inputs and outputs are HDF5
files (float32 [n][d] in dataset "x" unless told).

Subcommands:
  digits --out F.h5
         scikit-learn's digits (1797 images of 8×8 pixels): "x" [1797][64], "labels" [1797]
  ab     --spread S --min-dist M
         prints JSON {"a": ..., "b": ...}
  graph  --input F.h5 [--dataset x] --out G.h5 [--n-neighbors 15] [--metric euclidean|cosine]
         [--n-epochs 500]
         datasets "graph" [n][n] (the pruned fuzzy union, float64), "sigma" [1][n], "rho" [1][n];
         when the graph is connected also "eigenvectors" [n][2] (the second and third smallest
         of the normalised Laplacian) and "eigenvalues" [1][2] (of D^-1/2 W D^-1/2)
  trust  --input F.h5 [--dataset x] --embedding E.h5 [--embedding-dataset y] [--n-neighbors 15]
         [--metric euclidean|cosine]
         prints JSON {"trust": sklearn.manifold.trustworthiness(x, y, n_neighbors, metric)}
  trust-many --input F.h5 [--dataset x] --embedding E.h5 [--embedding-dataset y]
         [--n-neighbors 15] [--metric euclidean|cosine]
         the embedding dataset holds several embeddings of x one after the other ([m·n][2]);
         prints JSON {"trust": [the trustworthiness of each]}
"""

import argparse
import json
import sys

from sklearn_reference import _limit_threads, _read


def cmd_digits(a):
    import h5py
    import numpy as np
    from sklearn.datasets import load_digits

    digits = load_digits()
    with h5py.File(a.out, "w") as f:
        f["x"] = digits.data.astype(np.float32)
        f["labels"] = digits.target.astype(np.int32)


def find_ab_params(spread, min_dist):
    """umap-learn's find_ab_params."""
    import numpy as np
    from scipy.optimize import curve_fit

    def curve(x, a, b):
        return 1.0 / (1.0 + a * x ** (2 * b))

    xv = np.linspace(0, spread * 3, 300)
    yv = np.zeros(xv.shape)
    yv[xv < min_dist] = 1.0
    yv[xv >= min_dist] = np.exp(-(xv[xv >= min_dist] - min_dist) / spread)
    params, _ = curve_fit(curve, xv, yv)
    return float(params[0]), float(params[1])


def cmd_ab(a):
    av, bv = find_ab_params(a.spread, a.min_dist)
    print(json.dumps({"a": av, "b": bv}))


def _distances(x, metric):
    import numpy as np

    from scipy.spatial.distance import cdist

    x = x.astype(np.float64)
    if metric == "euclidean":
        return cdist(x, x, "euclidean")
    norms = np.sqrt(np.sum(x * x, axis=1))
    dot = x @ x.T
    with np.errstate(invalid="ignore", divide="ignore"):
        d = 1.0 - dot / np.outer(norms, norms)
    zero = norms == 0
    d[zero, :] = 1.0
    d[:, zero] = 1.0
    d[np.ix_(zero, zero)] = 0.0
    np.fill_diagonal(d, 0.0)
    return np.maximum(d, 0.0)


def smooth_knn_dist(distances, k, n_iter=64):
    """umap-learn's smooth_knn_dist (local_connectivity 1, bandwidth 1); row i holds the
    distances to the k nearest points in ascending order, itself (0) first."""
    import numpy as np

    target = np.log2(k)
    n = distances.shape[0]
    rho = np.zeros(n)
    sigma = np.zeros(n)
    mean_distances = np.mean(distances)
    for i in range(n):
        lo, hi, mid = 0.0, np.inf, 1.0
        row = distances[i]
        nonzero = row[row > 0.0]
        if nonzero.shape[0] >= 1:
            rho[i] = nonzero[0]
        for _ in range(n_iter):
            d = row[1:] - rho[i]
            psum = np.sum(np.where(d > 0, np.exp(-(np.maximum(d, 0) / mid)), 1.0))
            if abs(psum - target) < 1e-5:
                break
            if psum > target:
                hi = mid
                mid = (lo + hi) / 2.0
            else:
                lo = mid
                mid = mid * 2 if hi == np.inf else (lo + hi) / 2.0
        sigma[i] = mid
        floor = 1e-3 * (np.mean(row) if rho[i] > 0 else mean_distances)
        sigma[i] = max(sigma[i], floor)
    return sigma, rho


def fuzzy_graph(x, n_neighbors, metric, n_epochs):
    import numpy as np

    n = x.shape[0]
    dmat = _distances(x, metric)
    # neighbours: itself first, then the others by distance (ties by index)
    order = np.zeros((n, n_neighbors), dtype=np.int64)
    for i in range(n):
        others = [j for j in range(n) if j != i]
        others.sort(key=lambda j: (dmat[i, j], j))
        order[i] = [i] + others[: n_neighbors - 1]
    knn_d = np.take_along_axis(dmat, order, axis=1)
    sigma, rho = smooth_knn_dist(knn_d, float(n_neighbors))
    w = np.zeros((n, n))
    for i in range(n):
        for c in range(1, n_neighbors):
            j = order[i, c]
            d = knn_d[i, c] - rho[i]
            w[i, j] = 1.0 if d <= 0 or sigma[i] == 0 else np.exp(-(d / sigma[i]))
    g = w + w.T - w * w.T
    g[g < g.max() / float(n_epochs)] = 0.0
    return g, sigma, rho


def cmd_graph(a):
    import h5py
    import numpy as np
    from scipy.sparse.csgraph import connected_components

    x = _read(a.input, a.dataset)
    g, sigma, rho = fuzzy_graph(x, a.n_neighbors, a.metric, a.n_epochs)
    with h5py.File(a.out, "w") as f:
        f["graph"] = g
        f["sigma"] = sigma[None, :]
        f["rho"] = rho[None, :]
        n_comp, _ = connected_components(g > 0, directed=False)
        if n_comp == 1:
            deg = g.sum(axis=0)
            dinv = 1.0 / np.sqrt(deg)
            s = dinv[:, None] * g * dinv[None, :]
            values, vectors = np.linalg.eigh(s)  # ascending: the largest (1, √deg) last
            f["eigenvectors"] = vectors[:, [-2, -3]]
            f["eigenvalues"] = values[None, [-2, -3]]


def cmd_trust(a):
    from sklearn.manifold import trustworthiness

    x = _read(a.input, a.dataset)
    y = _read(a.embedding, a.embedding_dataset)
    t = trustworthiness(x, y, n_neighbors=a.n_neighbors, metric=a.metric)
    print(json.dumps({"trust": float(t)}))


def cmd_trust_many(a):
    from sklearn.manifold import trustworthiness

    x = _read(a.input, a.dataset)
    y = _read(a.embedding, a.embedding_dataset)
    n = x.shape[0]
    if y.shape[0] % n != 0:
        raise SystemExit("%s: %d rows are not a multiple of the %d points of %s"
                         % (a.embedding, y.shape[0], n, a.input))
    trust = [float(trustworthiness(x, y[k:k + n], n_neighbors=a.n_neighbors, metric=a.metric))
             for k in range(0, y.shape[0], n)]
    print(json.dumps({"trust": trust}))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)

    d = sub.add_parser("digits")
    d.add_argument("--out", required=True)

    ab = sub.add_parser("ab")
    ab.add_argument("--spread", type=float, required=True)
    ab.add_argument("--min-dist", type=float, required=True)

    for name in ("graph", "trust", "trust-many"):
        s = sub.add_parser(name)
        s.add_argument("--input", required=True)
        s.add_argument("--dataset", default="x")
        s.add_argument("--n-neighbors", type=int, default=15)
        s.add_argument("--metric", choices=("euclidean", "cosine"), default="euclidean")
        if name == "graph":
            s.add_argument("--out", required=True)
            s.add_argument("--n-epochs", type=int, default=500)
        else:
            s.add_argument("--embedding", required=True)
            s.add_argument("--embedding-dataset", default="y")

    a = parser.parse_args()
    _limit_threads(2)
    {"digits": cmd_digits, "ab": cmd_ab, "graph": cmd_graph, "trust": cmd_trust,
     "trust-many": cmd_trust_many}[a.command](a)


if __name__ == "__main__":
    sys.exit(main())
