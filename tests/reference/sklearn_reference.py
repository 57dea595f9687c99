#!/usr/bin/python3
"""sklearn_reference.py — scikit-learn references for attnscope's PCA and t-SNE.

The tests and the benchmark run this with Debian's python3-sklearn, python3-h5py and numpy.
Inputs and outputs are HDF5 files; every matrix is float32 [n][d] in dataset "x" unless told.

Subcommands:
  gen    --out F.h5 --n N --d D [--clusters K] [--seed S] [--spread S]
         a labelled Gaussian mixture: datasets "x" [n][d] float32 and "labels" [n] int32
  pca    --input F.h5 [--dataset x] --out R.h5 [--k 2]
         datasets "coords" [n][k], "components" [k][d], "ratio" [1][k], "variance" [1][k],
         "mean" [1][d] (float64; 2-D so that every dataset reads as a matrix),
         from PCA(svd_solver="full")
  tsne   --input F.h5 [--dataset x] --out R.h5 [--perplexity 30] [--seed 0]
         [--method exact|barnes_hut] [--n-iter 1000] [--threads 2]
         dataset "embedding" [n][2]; prints JSON {"kl": kl_divergence_, "trust":
         trustworthiness (k=10), "seconds": fit time, "exact_kl": the KL of the final embedding
         recomputed exactly against the same P (dense P for exact, the k-nearest-neighbour P for
         Barnes-Hut), "n_iter": n_iter_}, also stored as root attributes
  score  --input F.h5 [--dataset x] --embedding E.h5 [--embedding-dataset y] [--perplexity 30]
         [--method exact|barnes_hut]
         prints JSON {"trust": ..., "exact_kl": ...} for an embedding made elsewhere (attnscope's)
  bench-pca --input F.h5 [--repeat 5]
         prints JSON {"ms": ...}: the median time of PCA(2).fit_transform (svd_solver="auto")
"""

import argparse
import json
import os
import sys
import time


def _limit_threads(n):
    # Must happen before numpy loads OpenBLAS.
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(n)


def _read(path, dataset):
    import h5py
    import numpy as np

    with h5py.File(path, "r") as f:
        return np.asarray(f[dataset], dtype=np.float32)


def cmd_gen(a):
    import h5py
    import numpy as np

    rng = np.random.RandomState(a.seed)
    centres = rng.normal(0.0, a.spread, size=(a.clusters, a.d))
    labels = np.arange(a.n) % a.clusters
    rng.shuffle(labels)
    x = centres[labels] + rng.normal(0.0, 1.0, size=(a.n, a.d))
    with h5py.File(a.out, "w") as f:
        f["x"] = x.astype(np.float32)
        f["labels"] = labels.astype(np.int32)


def cmd_pca(a):
    import h5py
    import numpy as np
    from sklearn.decomposition import PCA

    x = _read(a.input, a.dataset).astype(np.float64)
    pca = PCA(n_components=a.k, svd_solver="full")
    coords = pca.fit_transform(x)
    with h5py.File(a.out, "w") as f:
        f["coords"] = coords
        f["components"] = pca.components_
        f["ratio"] = pca.explained_variance_ratio_[None, :]
        f["variance"] = pca.explained_variance_[None, :]
        f["mean"] = pca.mean_[None, :]


def _sparse_knn_p(x, perplexity):
    """The P that sklearn's Barnes-Hut t-SNE optimises (same neighbours, same search)."""
    from sklearn.manifold import _t_sne
    from sklearn.neighbors import NearestNeighbors

    n = x.shape[0]
    k = min(n - 1, int(3.0 * perplexity + 1))
    knn = NearestNeighbors(n_neighbors=k).fit(x)
    d = knn.kneighbors_graph(mode="distance")
    d.data **= 2
    return _t_sne._joint_probabilities_nn(d, perplexity, 0)


def exact_kl(x, y, perplexity, method):
    """KL(P || Q) with Q computed exactly from the embedding Y (Student t, one degree of freedom)."""
    import numpy as np
    from scipy.spatial.distance import pdist, squareform
    from sklearn.manifold import _t_sne
    from sklearn.metrics import pairwise_distances

    eps = np.finfo(np.double).eps
    y = y.astype(np.float64)
    w = 1.0 / (1.0 + pdist(y, "sqeuclidean"))
    if method == "exact":
        p = _t_sne._joint_probabilities(
            pairwise_distances(x, metric="euclidean", squared=True), perplexity, 0
        )
        q = np.maximum(w / (2.0 * np.sum(w)), eps)
        return float(2.0 * np.dot(p, np.log(np.maximum(p, eps) / q)))
    p = _sparse_knn_p(x, perplexity).tocoo()
    q_full = squareform(w) / (2.0 * np.sum(w))
    q = q_full[p.row, p.col]
    tiny = np.finfo(np.float32).tiny
    return float(np.sum(p.data * np.log(np.maximum(p.data, tiny) / np.maximum(q, tiny))))


def cmd_tsne(a):
    import h5py
    import numpy as np
    from sklearn.manifold import TSNE, trustworthiness

    x = _read(a.input, a.dataset)
    tsne = TSNE(
        n_components=2,
        perplexity=a.perplexity,
        n_iter=a.n_iter,
        method=a.method,
        init="pca",
        learning_rate="auto",
        random_state=a.seed,
        n_jobs=a.threads,
    )
    t0 = time.perf_counter()
    y = tsne.fit_transform(x)
    seconds = time.perf_counter() - t0
    out = {
        "kl": float(tsne.kl_divergence_),
        "trust": float(trustworthiness(x, y, n_neighbors=10)),
        "seconds": seconds,
        "exact_kl": exact_kl(x, y, a.perplexity, a.method),
        "n_iter": int(tsne.n_iter_),
    }
    with h5py.File(a.out, "w") as f:
        f["embedding"] = y.astype(np.float32)
        for key, value in out.items():
            f.attrs[key] = value
    print(json.dumps(out))


def cmd_score(a):
    from sklearn.manifold import trustworthiness

    x = _read(a.input, a.dataset)
    y = _read(a.embedding, a.embedding_dataset)
    out = {
        "trust": float(trustworthiness(x, y, n_neighbors=10)),
        "exact_kl": exact_kl(x, y, a.perplexity, a.method),
    }
    print(json.dumps(out))


def cmd_bench_pca(a):
    import numpy as np
    from sklearn.decomposition import PCA

    x = _read(a.input, a.dataset)
    times = []
    for _ in range(a.repeat):
        t0 = time.perf_counter()
        PCA(n_components=2, random_state=0).fit_transform(x)
        times.append((time.perf_counter() - t0) * 1000.0)
    print(json.dumps({"ms": float(np.median(times))}))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)

    g = sub.add_parser("gen")
    g.add_argument("--out", required=True)
    g.add_argument("--n", type=int, required=True)
    g.add_argument("--d", type=int, required=True)
    g.add_argument("--clusters", type=int, default=5)
    g.add_argument("--spread", type=float, default=1.0)
    g.add_argument("--seed", type=int, default=0)
    g.add_argument("--threads", type=int, default=2)

    for name in ("pca", "tsne", "score", "bench-pca"):
        s = sub.add_parser(name)
        s.add_argument("--input", required=True)
        s.add_argument("--dataset", default="x")
        s.add_argument("--threads", type=int, default=2)
        if name in ("pca", "tsne"):
            s.add_argument("--out", required=True)
        if name == "pca":
            s.add_argument("--k", type=int, default=2)
        if name in ("tsne", "score"):
            s.add_argument("--perplexity", type=float, default=30.0)
            s.add_argument("--method", choices=("exact", "barnes_hut"), default="exact")
        if name == "tsne":
            s.add_argument("--seed", type=int, default=0)
            s.add_argument("--n-iter", type=int, default=1000)
        if name == "score":
            s.add_argument("--embedding", required=True)
            s.add_argument("--embedding-dataset", default="y")
        if name == "bench-pca":
            s.add_argument("--repeat", type=int, default=5)

    a = parser.parse_args()
    _limit_threads(a.threads)
    {
        "gen": cmd_gen,
        "pca": cmd_pca,
        "tsne": cmd_tsne,
        "score": cmd_score,
        "bench-pca": cmd_bench_pca,
    }[a.command](a)


if __name__ == "__main__":
    sys.exit(main())
