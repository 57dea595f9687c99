/* generate.c — greedy and beam search as transformers' generate() (generate-private.h).
 *
 * Logits processors, in transformers' order, on one row of scores given its sequence (cur_len =
 * its length, the start token included): NoRepeatNGram (n = no_repeat_ngram_size: for every
 * earlier n-gram of the sequence whose first n − 1 tokens equal the sequence's last n − 1, its
 * last token gets −inf; nothing while cur_len + 1 < n), NoBadWords (a one-token bad word gets
 * −inf; a longer one only when the sequence ends with its prefix), MinLength (</s> −inf while
 * cur_len < min_length), ForcedBOS (at cur_len = 1 every score but forced_bos_token_id's is −inf
 * and that one 0), ForcedEOS (the same at cur_len = max_length − 1 for forced_eos_token_id),
 * then log-softmax again when renormalize_logits.
 *
 * Greedy: processors on the last position's logits, the first maximal id, stop after </s> or at
 * max_length tokens. Beam search with K beams: scores = processors(log_softmax(logits)) + the
 * beam's running score (at the first step beams 1..K−1 start at −1e9 so only beam 0 is live);
 * the best 2K of the K·V candidates in descending order (ties: lower flat index first); walking
 * them, a </s> ranked below K closes a hypothesis (its tokens without the </s>, score
 * sum / generated_len^length_penalty, generated_len = the closed sequence's length with the
 * start token), a </s> ranked K or lower is skipped, anything else becomes one of the next K
 * beams. The hypotheses keep the K best. The search is done when K hypotheses exist and
 * early_stopping, or when the worst of them is at least best_candidate / cur_len^length_penalty;
 * or at max_length, when every live beam is offered as a hypothesis. The best hypothesis (the
 * last added among equal scores) gets </s> appended when it is shorter than max_length. */
#include "generate-private.h"

#include <math.h>
#include <string.h>

#include "as-error.h"

/* --- logits processors ---------------------------------------------------------------------- */

/* ROW [V] = log_softmax (ROW). */
static void
log_softmax (float *row, int V)
{
  float max = -INFINITY;
  for (int i = 0; i < V; i++)
    max = row[i] > max ? row[i] : max;
  double sum = 0;
  for (int i = 0; i < V; i++)
    sum += exp ((double) row[i] - max);
  float lse = (float) (max + log (sum));
  for (int i = 0; i < V; i++)
    row[i] -= lse;
}

/* Whether SEQ [LEN] ends with the first N tokens of WORD. */
static gboolean
ends_with (const int32_t *seq, int len, const GArray *word, int n)
{
  if (len < n)
    return FALSE;
  return memcmp (seq + len - n, word->data, (gsize) n * sizeof (int32_t)) == 0;
}

/* NoRepeatNGramLogitsProcessor: bans the token that would repeat an N-gram of SEQ [LEN]. */
static void
ban_repeated_ngrams (float *row, const int32_t *seq, int len, int n)
{
  if (n <= 0 || len + 1 < n)
    return;
  const int32_t *tail = seq + len - (n - 1); /* the last n − 1 tokens */
  for (int j = 0; j + n <= len; j++)
    if (memcmp (seq + j, tail, (gsize) (n - 1) * sizeof (int32_t)) == 0)
      row[seq[j + n - 1]] = -INFINITY;
}

/* Every score of ROW [V] −inf but TOKEN's, which becomes 0. */
static void
force_token (float *row, int V, int token)
{
  for (int i = 0; i < V; i++)
    row[i] = -INFINITY;
  row[token] = 0.0f;
}

static void
process_row (float *row, int V, const int32_t *seq, int len, const AsSearchSettings *s)
{
  ban_repeated_ngrams (row, seq, len, s->no_repeat_ngram);
  for (guint w = 0; s->bad_words != NULL && w < s->bad_words->len; w++)
    {
      const GArray *word = g_ptr_array_index (s->bad_words, w);
      int n = (int) word->len;
      if (n == 1 || ends_with (seq, len, word, n - 1))
        row[g_array_index (word, int32_t, n - 1)] = -INFINITY;
    }
  if (s->eos >= 0 && len < s->min_length)
    row[s->eos] = -INFINITY;
  if (s->forced_bos >= 0 && len == 1)
    force_token (row, V, s->forced_bos);
  if (s->forced_eos >= 0 && len == s->max_length - 1)
    force_token (row, V, s->forced_eos);
  if (s->renormalize)
    log_softmax (row, V);
}

static gboolean
check_cancelled (const AsSearchSettings *s, GError **error)
{
  if (!g_cancellable_is_cancelled (s->cancellable))
    return FALSE;
  g_set_error (error, AS_ERROR, AS_ERROR_CANCELLED, "the translation was cancelled");
  return TRUE;
}

/* --- greedy --------------------------------------------------------------------------------- */

static GArray *
greedy (AsStepDecoder *d, const AsSearchSettings *s, GError **error)
{
  int V = d->vocab_size;
  g_autoptr (GArray) seq = g_array_new (FALSE, FALSE, sizeof (int32_t));
  g_autofree float *logits = g_new (float, V); /* [V] */
  g_array_append_val (seq, s->start);
  while ((int) seq->len < s->max_length)
    {
      int32_t *ids = (int32_t *) seq->data;
      if (check_cancelled (s, error)
          || !as_step_decoder_step (d, NULL, &ids[seq->len - 1], logits, error))
        return NULL;
      process_row (logits, V, ids, (int) seq->len, s);
      int32_t best = 0;
      for (int i = 1; i < V; i++)
        if (logits[i] > logits[best])
          best = i;
      g_array_append_val (seq, best);
      if (best == s->eos)
        break;
    }
  return g_steal_pointer (&seq);
}

/* --- beam search ---------------------------------------------------------------------------- */

/* BeamHypotheses: up to K finished sequences, in the order they were added. */
typedef struct
{
  int k;
  double length_penalty;
  gboolean early_stopping;
  int n;
  double *scores; /* [K+1] */
  GArray **seqs;  /* [K+1] */
  double worst;
} Hypotheses;

static void
hyps_add (Hypotheses *h, const int32_t *seq, int len, double sum_logprobs, int generated_len)
{
  double score = sum_logprobs / pow ((double) generated_len, h->length_penalty);
  if (h->n >= h->k && !(score > h->worst))
    return;
  GArray *copy = g_array_sized_new (FALSE, FALSE, sizeof (int32_t), len);
  g_array_append_vals (copy, seq, len);
  h->scores[h->n] = score;
  h->seqs[h->n++] = copy;
  if (h->n <= h->k)
    {
      h->worst = MIN (score, h->worst);
      return;
    }
  /* drop the worst (the earlier one on a tie); the next worst becomes the bar */
  int worst = 0;
  for (int i = 1; i < h->n; i++)
    if (h->scores[i] < h->scores[worst])
      worst = i;
  g_array_unref (h->seqs[worst]);
  memmove (h->scores + worst, h->scores + worst + 1, (gsize) (h->n - worst - 1) * sizeof (double));
  memmove (h->seqs + worst, h->seqs + worst + 1, (gsize) (h->n - worst - 1) * sizeof (GArray *));
  h->n--;
  h->worst = h->scores[0];
  for (int i = 1; i < h->n; i++)
    h->worst = MIN (h->worst, h->scores[i]);
}

static gboolean
hyps_done (const Hypotheses *h, double best_sum_logprobs, int generated_len)
{
  if (h->n < h->k)
    return FALSE;
  if (h->early_stopping)
    return TRUE;
  return h->worst >= best_sum_logprobs / pow ((double) generated_len, h->length_penalty);
}

/* Whether candidate (A_SCORE, A_INDEX) ranks before (B_SCORE, B_INDEX). */
static gboolean
ranks_before (float a_score, gsize a_index, float b_score, gsize b_index)
{
  return a_score > b_score || (a_score == b_score && a_index < b_index);
}

/* The best N of SCORES [M] in ranking order into TOP_SCORES [N], TOP_INDEX [N]. */
static void
top_n (const float *scores, gsize m, int n, float *top_scores, gsize *top_index)
{
  int filled = 0;
  for (gsize i = 0; i < m; i++)
    {
      if (filled == n && !ranks_before (scores[i], i, top_scores[n - 1], top_index[n - 1]))
        continue;
      int at = filled < n ? filled++ : n - 1;
      while (at > 0 && ranks_before (scores[i], i, top_scores[at - 1], top_index[at - 1]))
        {
          top_scores[at] = top_scores[at - 1];
          top_index[at] = top_index[at - 1];
          at--;
        }
      top_scores[at] = scores[i];
      top_index[at] = i;
    }
}

typedef struct
{
  int K, V, len;                    /* beams, vocabulary, current length of every beam */
  int32_t *seqs;                    /* [K][max_length] */
  int32_t *next;                    /* [K][max_length] */
  float *beam_scores, *next_scores; /* [K] */
  int *parents;                     /* [K] */
  int32_t *tokens;                  /* [K] */
  float *logits;                    /* [K][V] */
  float *top_scores;                /* [2K] */
  gsize *top_index;                 /* [2K] */
} Beams;

/* One step: scores of every candidate, the best 2K, the next beams. Returns whether the
 * hypotheses are done. */
static gboolean
beam_select (Beams *b, Hypotheses *h, const AsSearchSettings *s)
{
  int K = b->K, V = b->V, n = s->max_length;
  for (int k = 0; k < K; k++)
    {
      float *row = b->logits + (gsize) k * V;
      log_softmax (row, V);
      process_row (row, V, b->seqs + (gsize) k * n, b->len, s);
      for (int i = 0; i < V; i++)
        row[i] += b->beam_scores[k];
    }
  top_n (b->logits, (gsize) K * V, 2 * K, b->top_scores, b->top_index);
  int cur_len = b->len + 1, count = 0;
  for (int rank = 0; rank < 2 * K && count < K; rank++)
    {
      int src = (int) (b->top_index[rank] / V);
      int32_t tok = (int32_t) (b->top_index[rank] % V);
      float score = b->top_scores[rank];
      if (s->eos >= 0 && tok == s->eos)
        {
          if (rank < K)
            hyps_add (h, b->seqs + (gsize) src * n, b->len, score, cur_len - 1);
          continue;
        }
      int32_t *dst = b->next + (gsize) count * n;
      memcpy (dst, b->seqs + (gsize) src * n, (gsize) b->len * sizeof (int32_t));
      dst[b->len] = tok;
      b->next_scores[count] = score;
      b->parents[count] = src;
      b->tokens[count] = tok;
      count++;
    }
  gboolean done = hyps_done (h, b->top_scores[0], cur_len - 1);
  int32_t *t = b->seqs;
  b->seqs = b->next, b->next = t;
  memcpy (b->beam_scores, b->next_scores, (gsize) K * sizeof (float));
  b->len++;
  return done;
}

static GArray *
beam_search (AsStepDecoder *d, const AsSearchSettings *s, double *score, GError **error)
{
  int K = s->num_beams, V = d->vocab_size, n = s->max_length;
  Beams b = { .K = K, .V = V, .len = 1 };
  g_autofree int32_t *seqs = g_new0 (int32_t, (gsize) 2 * K * n);
  g_autofree float *scores = g_new0 (float, (gsize) 2 * K);
  g_autofree int *parents = g_new0 (int, K);
  g_autofree int32_t *tokens = g_new0 (int32_t, K);
  g_autofree float *logits = g_try_new (float, (gsize) K *V);
  g_autofree float *top_scores = g_new (float, 2 * K);
  g_autofree gsize *top_index = g_new (gsize, 2 * K);
  if (logits == NULL)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_MEMORY, "could not allocate %d × %d logits", K, V);
      return NULL;
    }
  b.seqs = seqs, b.next = seqs + (gsize) K * n;
  b.beam_scores = scores, b.next_scores = scores + K;
  b.parents = parents, b.tokens = tokens, b.logits = logits;
  b.top_scores = top_scores, b.top_index = top_index;
  g_autofree double *h_scores = g_new0 (double, K + 1);
  g_autofree GArray **h_seqs = g_new0 (GArray *, K + 1);
  Hypotheses h = { K, s->length_penalty, s->early_stopping, 0, h_scores, h_seqs, 1e9 };
  for (int k = 0; k < K; k++)
    {
      b.seqs[(gsize) k * n] = tokens[k] = s->start;
      b.beam_scores[k] = k == 0 ? 0.0f : -1e9f;
    }

  GArray *best = NULL;
  gboolean done = FALSE, first = TRUE;
  while (!check_cancelled (s, error)
         && as_step_decoder_step (d, first ? NULL : parents, tokens, logits, error))
    {
      first = FALSE;
      done = beam_select (&b, &h, s);
      if (done || b.len >= n)
        break;
    }
  if (done || b.len >= n)
    {
      if (!done)
        for (int k = 0; k < K; k++)
          hyps_add (&h, b.seqs + (gsize) k * n, b.len, b.beam_scores[k], b.len - 1);
      int at = 0;
      for (int i = 1; i < h.n; i++)
        if (h.scores[i] >= h.scores[at])
          at = i;
      best = g_array_ref (h.seqs[at]);
      *score = h.scores[at];
      if ((int) best->len < n && s->eos >= 0)
        g_array_append_val (best, s->eos);
    }
  for (int i = 0; i < h.n; i++)
    g_array_unref (h.seqs[i]);
  return best;
}

GArray *
as_generate_search (AsStepDecoder *decoder, const AsSearchSettings *settings, double *score,
                    GError **error)
{
  g_return_val_if_fail (decoder->n_seqs == settings->num_beams, NULL);
  g_return_val_if_fail (settings->max_length >= 2, NULL);
  *score = NAN;
  if (settings->num_beams == 1)
    return greedy (decoder, settings, error);
  return beam_search (decoder, settings, score, error);
}
