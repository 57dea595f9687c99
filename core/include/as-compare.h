/* as-compare.h — how two sentences differ inside the same model ("The man hit the car" against
 * "The car hit the man").
 *
 * Pairing rule: tokens are matched by their vocabulary string (exact bytes, so "The" and "Ġthe"
 * differ). The k-th occurrence of a string in A is paired with the k-th occurrence of the same
 * string in B; an occurrence with no counterpart (a string that occurs more often in one text, or
 * only in one) is listed as unmatched. Pairs are ordered by their position in A.
 *
 * Hidden states (every text length): for each hidden-state index l = 0..L (0 = embeddings,
 * L = after the final norm) and each pair (a, b), the cosine similarity of hidden[l][a] in A and
 * hidden[l][b] in B; their mean over pairs; and the change of layer l, the Frobenius norm of the
 * difference of the matched rows, sqrt(Σ_pairs |hidden_B[l][b] - hidden_A[l][a]|²). Layers are
 * ranked by that norm (largest first; ties: lower layer first). With no pair the means are NaN
 * and the norms 0.
 *
 * Attention (only when both texts have the same number of tokens T; otherwise unavailable): per
 * layer and head the difference D = P_B - P_A [T][T], compared position by position; the head's
 * change is the Frobenius norm |D|_F, and the layer's change the norm of all its heads together,
 * sqrt(Σ_h |D_h|_F²). Heads and layers are ranked by these norms (largest first; ties: lower
 * index first).
 *
 * Attention aligned by token (every text length): B's weights put in A's order through the pairs,
 * B̃[i][j] = P_B[p(i)][p(j)] where p(i) is the position in B paired with position i of A — for a
 * permutation ("The man hit the car" / "The car hit the man") B̃ is P_B with its rows and columns
 * permuted into A's order, so B̃ − P_A shows what the same tokens do differently rather than what
 * happens at the same positions. Rows and columns of A's unmatched tokens have no value (NaN). A
 * head's aligned change is the Frobenius norm of B̃ − P_A over the cells whose row and column are
 * both paired, a layer's the norm of its heads' together; heads and layers are ranked by them as
 * above.
 *
 * The window's Compare page and `attnscope compare` read both alignments through
 * as_comparison_attention_change and as_comparison_head_difference, so the page's list of heads
 * and the command's "head_ranking" are one ranking. */
#pragma once

#include <glib.h>

#include "as-trace.h"

G_BEGIN_DECLS

/* How B's attention is lined up with A's: by token (the pairs above; every text length) or
 * position by position (equal lengths only). */
typedef enum
{
  AS_ALIGN_TOKENS,
  AS_ALIGN_POSITIONS,
} AsAlign;

/* "tokens", "positions" (the command line's names) and back; FALSE for an unknown NAME. */
const char *as_align_to_string (AsAlign align);
gboolean as_align_from_string (const char *name, AsAlign *align);

typedef struct
{
  int a; /* position in A */
  int b; /* position in B */
} AsTokenPair;

typedef struct
{
  int n_layer, n_head;        /* L, H (the same for both traces) */
  int n_tokens_a, n_tokens_b; /* T_A, T_B */

  AsTokenPair *pairs; /* [n_pairs] in A's order */
  int n_pairs;
  int *unmatched_a; /* [n_unmatched_a] positions in A without a partner */
  int n_unmatched_a;
  int *unmatched_b; /* [n_unmatched_b] positions in B without a partner */
  int n_unmatched_b;

  float *hidden_similarity;       /* [L+1][n_pairs] */
  double *hidden_mean_similarity; /* [L+1] mean over pairs (NaN without pairs) */
  double *hidden_change;          /* [L+1] Frobenius norm of the matched-row difference */
  int *hidden_ranking;            /* [L+1] hidden-state indices by decreasing change */

  int *partner_a; /* [T_A] the position in B paired with each position of A, -1 for none */
  double *aligned_head_change;  /* [L][H] |B̃ - P_A|_F over paired cells (every text length) */
  int *aligned_head_ranking;    /* [L·H] flat layer·H + head by decreasing aligned change */
  double *aligned_layer_change; /* [L] sqrt(Σ_h aligned_head_change²) */
  int *aligned_layer_ranking;   /* [L] layers by decreasing aligned change */

  gboolean attention_available; /* T_A == T_B */
  float *attention_diff;        /* [L][H][T][T] P_B - P_A, NULL when unavailable or when a trace
                                 * computes attention on demand (as_comparison_head_difference
                                 * computes a head then) */
  double *head_change;          /* [L][H] |P_B - P_A|_F, NULL when unavailable */
  int *head_ranking;            /* [L·H] flat layer·H + head by decreasing change, or NULL */
  double *layer_change;         /* [L] sqrt(Σ_h head_change²), NULL when unavailable */
  int *layer_ranking;           /* [L] layers by decreasing change, or NULL */
} AsComparison;

/* Pairs the tokens of A [N_A] and B [N_B] by the rule above. Returns the pairs (*N_PAIRS) and
 * fills the unmatched lists (newly allocated; free all three with g_free). */
AsTokenPair *as_compare_pair_tokens (char *const *tokens_a, int n_a, char *const *tokens_b, int n_b,
                                     int *n_pairs, int **unmatched_a, int *n_unmatched_a,
                                     int **unmatched_b, int *n_unmatched_b);

/* OUT [T_A][T_A] = B [T_B][T_B] (one of B's attention matrices) aligned by token to A through C's
 * pairs: OUT[i][j] = B[p(i)][p(j)], NaN where i or j has no partner. */
void as_compare_align (float *out, const AsComparison *c, const float *b);

/* How much each head's and layer's attention changes from A to B in one alignment (borrowed
 * from the comparison). */
typedef struct
{
  const double *head_change;  /* [L][H] Frobenius norm of the head's difference */
  const int *head_ranking;    /* [L·H] flat layer·H + head by decreasing change */
  const double *layer_change; /* [L] sqrt(Σ_h head_change²) */
  const int *layer_ranking;   /* [L] layers by decreasing change */
} AsAttentionChange;

/* C's attention change in ALIGN. FALSE (CHANGE untouched) by position when the texts' lengths
 * differ. */
gboolean as_comparison_attention_change (const AsComparison *c, AsAlign align,
                                         AsAttentionChange *change);

/* OUT [T_A][T_A] = head (LAYER, HEAD)'s difference B − A of C's traces A and B in ALIGN: by token
 * B̃ − P_A (NaN where the row's or the column's token of A has no partner), by position
 * P_B − P_A. FALSE (OUT untouched) by position when the lengths differ. */
gboolean as_comparison_head_difference (float *out, const AsComparison *c, const AsTrace *a,
                                        const AsTrace *b, int layer, int head, AsAlign align);

/* Compares A and B; fails with AS_ERROR_SHAPE when they do not come from the same model shape
 * (layers, heads, width), naming both. */
AsComparison *as_compare_traces (const AsTrace *a, const AsTrace *b, GError **error);
void as_comparison_free (AsComparison *comparison);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AsComparison, as_comparison_free)

G_END_DECLS
