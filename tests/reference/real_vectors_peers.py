#!/usr/bin/python3
"""real_vectors_peers.py — the peers' trustworthiness on the real-vector sets, as a test fixture.

The UMAP and t-SNE tests (tests/core/test-umap.c, test-tsne.c) compare attnscope's projections
of the vectors users project (tests/core/real-vectors.h: hidden states and embeddings of the
shipped models and of a random Llama-family model, 500 distinct rows each) with the reference
implementations. Running the peers takes minutes, so their numbers are computed here once and
committed; the tests check that the vectors are still the ones projected (their sum of |x|).

For every set:
  umap-js 1.4.0 (tests/reference/umap-peer/peer-umap.js, one node process for all seeds):
      15 neighbours, min_dist 0.1, 500 epochs, euclidean, seeds 0, 1, 2 (mulberry32);
  scikit-learn's TSNE with its defaults (perplexity 30, init="pca", learning_rate="auto",
      method="barnes_hut"), random_state 0..4;
  trustworthiness (sklearn.manifold.trustworthiness, k = 10) of every embedding.

usage: /usr/bin/python3 tests/reference/real_vectors_peers.py BUILD_DIR WORK_DIR
       (BUILD_DIR holds tests/core/real-vectors-dump; umap-js is installed by npm into
       WORK_DIR/npm once). Writes tests/fixtures/real-vectors-peers.json.
"""

import json
import os
import subprocess
import sys
import time

from sklearn_reference import _limit_threads, _read

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(ROOT, "tests", "fixtures", "real-vectors-peers.json")
UMAP_SEEDS = [0, 1, 2]
TSNE_SEEDS = [0, 1, 2, 3, 4]


def umap_js(x, work):
    n, d = x.shape
    src = os.path.join(work, "x.f32")
    dst = os.path.join(work, "y.f32")
    x.astype("<f4").tofile(src)
    subprocess.run(["node", os.path.join(HERE, "umap-peer", "peer-umap.js"),
                    os.path.join(work, "npm"), src, str(n), str(d), dst,
                    "--seeds", ",".join(map(str, UMAP_SEEDS)), "--epochs", "500",
                    "--metric", "euclidean"], check=True, stdout=subprocess.DEVNULL)
    import numpy as np
    return np.fromfile(dst, dtype="<f4").reshape(len(UMAP_SEEDS), n, 2)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: real_vectors_peers.py BUILD_DIR WORK_DIR")
    build, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    _limit_threads(1)
    import numpy as np
    from sklearn.manifold import TSNE, trustworthiness

    env = dict(os.environ, ATTNSCOPE_SOURCE_DIR=ROOT, ATTNSCOPE_BUILD_DIR=os.path.abspath(build),
               ATTNSCOPE_PYTHON=sys.executable)
    listing = subprocess.run([os.path.join(build, "tests", "core", "real-vectors-dump"), work],
                             check=True, capture_output=True, text=True, env=env).stdout
    sets = {}
    for line in listing.splitlines():
        path, name = line.split("\t")
        x = _read(path, "x")
        t0 = time.perf_counter()
        js = [float(trustworthiness(x, y, n_neighbors=10)) for y in umap_js(x, work)]
        sk = []
        for seed in TSNE_SEEDS:
            y = TSNE(n_components=2, init="pca", learning_rate="auto", method="barnes_hut",
                     random_state=seed).fit_transform(x)
            sk.append(float(trustworthiness(x, y, n_neighbors=10)))
        sets[name] = {"n": int(x.shape[0]), "d": int(x.shape[1]),
                      "sum_abs": float(np.abs(x.astype(np.float64)).sum()),
                      "umap-js": js, "sklearn-tsne": sk}
        print("%-36s umap-js %.4f  sklearn t-SNE %.4f  (%.0f s)"
              % (name, np.mean(js), np.mean(sk), time.perf_counter() - t0), flush=True)
    with open(OUT, "w") as f:
        json.dump({"made_by": "tests/reference/real_vectors_peers.py",
                   "umap-js": {"version": "1.4.0", "seeds": UMAP_SEEDS, "n_neighbors": 15,
                               "min_dist": 0.1, "n_epochs": 500},
                   "sklearn-tsne": {"seeds": TSNE_SEEDS, "method": "barnes_hut",
                                    "init": "pca", "learning_rate": "auto", "perplexity": 30},
                   "trustworthiness_k": 10, "sets": sets}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
