/* as-word-spans.h — the words of a text as runs of its tokens, and attention and similarity
 * pooled from tokens to words (the word-level heatmaps and tables of the window and of
 * `attnscope export --words`; their labels are ui/render's word-labels.h).
 *
 * A token starts a new word when it is the first token; when its text begins with white space
 * (GPT-2's "Ġthe", SentencePiece's "▁the") or the token before ends with it; when it or the token
 * before is a special token (a vocabulary string such as "<|endoftext|>", "[CLS]" or "</s>" that
 * stands for no text of its own); and, in WordPiece vocabularies (a text with a "##" token),
 * whenever it does not start with "##". Every other token continues the word before it: the
 * pieces of a split word ("Sp" "ring"), and the pieces of a character split over tokens.
 * Punctuation written without a space before it ("car.") stays with its word.
 *
 * Pooling (the word-level heatmaps and tables): the attention of word a to word b is the mean,
 * over the query tokens of a, of the sum of their weights over the key tokens of b —
 *   W[a][b] = (1 / |a|) Σ_{i ∈ a} Σ_{j ∈ b} P[i][j],
 * so each word's row still sums to 1, as a token's does, and a causal model's future words stay
 * exactly 0. A word's vector is the mean of its tokens' vectors (the similarity of words is the
 * cosine of these means). */
#pragma once

#include <glib.h>

#include "as-trace-vectors.h"
#include "as-trace.h"

G_BEGIN_DECLS

typedef struct
{
  int n_words;
  int *first; /* [n_words + 1] first token of each word, then the token count */
} AsWordSpans;

/* The words of TRACE. */
AsWordSpans *as_word_spans_from_trace (const AsTrace *trace);
void as_word_spans_free (AsWordSpans *spans);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (AsWordSpans, as_word_spans_free)

/* The word that holds token I. */
int as_word_spans_word_of (const AsWordSpans *spans, int i);

/* OUT [W][W] = the pooled attention of P [T][T] (see above). */
void as_word_pool_attention (float *out, const float *p, const AsWordSpans *spans);

/* OUT [W][DIM] = the mean of the token vectors X [T][DIM] of each word. */
void as_word_pool_vectors (float *out, const float *x, int dim, const AsWordSpans *spans);

/* The [W][W] cosine similarity of the words of SPANS: of the mean vectors of SOURCE at LAYER/HEAD
 * (as_trace_similarity's arguments). Newly allocated; NULL with ERROR for a bad selection. */
float *as_word_similarity (const AsTrace *trace, AsVectorSource source, int layer, int head,
                           const AsWordSpans *spans, GError **error);

G_END_DECLS
