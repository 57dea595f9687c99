/* real-vectors.h — the vectors users project, for the real-vector checks of UMAP and t-SNE
 * (test-umap.c, test-tsne.c).
 *
 * Four models, three sets each: the shipped attnscope-mini (GPT-2), attnscope-mini-bert (BERT)
 * and the decoder of attnscope-mini-en-de (Marian), and a random Llama-family model with Llama
 * 2's tokenizer (decoder-models.h, "llama-spm"). Each set holds the first REAL_VECTORS_ROWS
 * distinct vectors of the tokens of the model's held-out text (data/models/NAME/heldout.txt;
 * en-de: heldout.en as the source and heldout.de as the decoder's input; the Llama model reads
 * attnscope-mini's), line after line in text order: what the projection of those texts sees,
 * as the command line and the window merge identical rows before t-SNE and UMAP (here a row also
 * counts as a repeat when the tokens it depends on were seen, so that the set does not depend on
 * how a processor's BLAS kernels round matrix products of different lengths). The sets:
 *   attnscope-mini, attnscope-mini-bert: hidden states after block 2 and after the last block
 *     (hidden[2], hidden[4]), and the token embeddings (the rows of the embedding table);
 *   attnscope-mini-en-de's decoder: hidden[1] and hidden[3] (after its last block), and its
 *     embeddings (hidden[0]: token embeddings · √d plus sinusoidal positions; the Marian family
 *     keeps no separate token embeddings);
 *   the Llama model: hidden[1] and hidden[2] (after the final norm), and hidden[0], which is its
 *     token embeddings (Llama adds no position vectors). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define REAL_VECTORS_ROWS 500

typedef enum
{
  REAL_VECTORS_MINI,
  REAL_VECTORS_MINI_BERT,
  REAL_VECTORS_MINI_EN_DE,
  REAL_VECTORS_LLAMA,
} RealVectorsModel;

typedef struct
{
  char *name; /* e.g. "attnscope-mini hidden[2]" */
  float *x;   /* [n][d] distinct rows */
  int n, d;
} RealVectors;

void real_vectors_free (RealVectors *set);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RealVectors, real_vectors_free)

/* The three sets of MODEL (RealVectors*, freed with the array). NULL with the test skipped when
 * the random Llama model cannot be made (its Python reference cannot run). */
GPtrArray *real_vectors_sets (RealVectorsModel model);

/* The name of MODEL, as the sets' names start ("attnscope-mini", ..., "llama-random"). */
const char *real_vectors_model_name (RealVectorsModel model);

/* sklearn.manifold.trustworthiness (euclidean) of the embedding Y [n][2] of X [n][d] with K
 * neighbours: 1 − 2 / (n·k·(2n − 3k − 1)) · Σ_i Σ_{j in the k nearest of i in Y} max(0, r(i, j) −
 * k), r(i, j) the rank of j among i's neighbours in X (1 = nearest). Distances in double. */
double real_vectors_trustworthiness (const float *x, const float *y, int n, int d, int k);

/* The trustworthiness (k = 10) the peer PEER ("umap-js" or "sklearn-tsne") reached on SET, one
 * value per seed, from tests/fixtures/real-vectors-peers.json (made by
 * tests/reference/real_vectors_peers.py). Fails the test when SET is missing or its vectors
 * are no longer the ones the peers projected (their sum of |x| differs by more than 1e-4
 * relative: rerun the script). Returns the number of seeds written to OUT (at most MAX). */
int real_vectors_peer_trust (double *out, int max, const RealVectors *set, const char *peer);

/* Checks the mean trustworthiness (k = 10) of OURS [m][n][2] (M embeddings of SET) against
 * PEER's mean from the fixture: at least the peer's − MARGIN. Reports both per seed. */
void real_vectors_check (const RealVectors *set, const float *ours, int m, const char *peer,
                         double margin);

G_END_DECLS
