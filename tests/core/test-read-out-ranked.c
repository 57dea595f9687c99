/* test-read-out-ranked.c — hidden states ranked while the output head makes them
 * (as_forward_rank_cells, the logit lens's fast path) against the same cells read out as logits
 * (as_forward_read_out) and ranked afterwards (as_predict_top_k_ids, as_predict_rank), on heads of
 * every kind it takes: GPT-2's float32 tied head over 50,257 tokens (many units, rows in two
 * blocks), a BF16 Llama head, Gemma 2's soft-capped head, Marian's final_logits_bias, mBART's
 * final norm, T5's scaled tied head, and a fitted lens's mapped vectors (as_lens_compute_fitted
 * against as_fitted_lens_read); hidden[L] of a pass that kept every row's logits against those
 * logits (the head alone, no second final norm); the same results with one thread as with two.
 * Skipped where the CPU has no AMX tiles (the lens reads written logits there,
 * tests/cli/test-cli-lens.c). */
#include <math.h>
#include <string.h>

#include "as-forward.h"
#include "as-lens.h"
#include "as-predict.h"
#include "bart-models.h"
#include "check-close.h"
#include "decoder-models.h"
#include "gpt2-models.h"
#include "matmul-amx-private.h"
#include "t5-models.h"

#define K 5

/* Logits that differ by less than this are a tie for the order checks (the written path's last
 * row of a block comes from another product, a few units of float32 apart). */
#define TIE 1e-4

typedef struct
{
  int n;
  int32_t *ids;
  float *logits, *probabilities;
  int *n_top, *rank;
  float *target_probability;
  AsRankedRows rows;
} Ranked;

static void
ranked_clear (Ranked *r)
{
  g_free (r->ids);
  g_free (r->logits);
  g_free (r->probabilities);
  g_free (r->n_top);
  g_free (r->rank);
  g_free (r->target_probability);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Ranked, ranked_clear)

static void
rank (AsModel *model, const AsTrace *trace, const int *indexes, const int *positions, int n,
      int32_t target, Ranked *r)
{
  r->n = n;
  r->ids = g_new (int32_t, (gsize) n * K);
  r->logits = g_new (float, (gsize) n *K);
  r->probabilities = g_new (float, (gsize) n *K);
  r->n_top = g_new (int, n);
  r->rank = g_new (int, n);
  r->target_probability = g_new (float, n);
  r->rows = (AsRankedRows){ .k = K,
                            .target_id = target,
                            .top_ids = r->ids,
                            .top_logits = r->logits,
                            .top_probabilities = r->probabilities,
                            .n_top = r->n_top,
                            .target_rank = r->rank,
                            .target_probability = r->target_probability };
  g_autoptr (GError) error = NULL;
  g_assert_true (
      as_forward_rank_cells (model, trace, indexes, positions, n, &r->rows, NULL, &error));
  g_assert_no_error (error);
}

/* Whether LOGITS [V] has another token within TIE of logit L (other than ID). */
static gboolean
near_tie (const float *logits, int V, float l, int32_t id)
{
  for (int v = 0; v < V; v++)
    if (v != id && fabsf (logits[v] - l) < TIE)
      return TRUE;
  return FALSE;
}

/* Row R of RANKED against the written LOGITS [V] of the same cell; returns the largest relative
 * probability error. */
static double
check_row (const Ranked *ranked, int r, const float *logits, int V, int32_t target)
{
  int32_t want[K];
  float want_p[K];
  int n = as_predict_top_k_ids (logits, V, K, want, want_p);
  g_assert_cmpint (ranked->n_top[r], ==, n);
  double worst = 0.0;
  for (int i = 0; i < n; i++)
    {
      int32_t got = ranked->ids[r * K + i];
      if (got != want[i])
        g_assert_true (near_tie (logits, V, logits[want[i]], want[i]));
      g_assert_cmpfloat (fabsf (ranked->logits[r * K + i] - logits[got]), <=,
                         1e-5f * (1.0f + fabsf (logits[got])));
      double e = fabs ((double) ranked->probabilities[r * K + i] - want_p[i]) / want_p[i];
      if (got == want[i])
        worst = MAX (worst, e);
    }
  if (target >= 0)
    {
      int want_rank;
      float want_prob;
      as_predict_rank (logits, V, target, &want_rank, &want_prob);
      if (ranked->rank[r] != want_rank)
        g_assert_true (near_tie (logits, V, logits[target], target));
      double e = fabs ((double) ranked->target_probability[r] - want_prob) / want_prob;
      g_assert_cmpfloat (e, <=, 1e-5);
      worst = MAX (worst, e);
    }
  return worst;
}

/* Every cell (i, p) of TRACE ranked, against each hidden state read out as logits (hidden[L] at
 * the positions whose logits the pass kept: against those), and with one thread. */
static void
check_trace (const char *what, AsModel *model, const AsTrace *trace, int32_t target)
{
  g_assert_true (as_forward_can_rank (model, trace, K));
  int L = trace->n_layer, T = trace->n_tokens, V = trace->vocab_size;
  int n = (L + 1) * T;
  g_autofree int *indexes = g_new (int, n);
  g_autofree int *positions = g_new (int, n);
  for (int i = 0; i <= L; i++)
    for (int p = 0; p < T; p++)
      {
        indexes[i * T + p] = i;
        positions[i * T + p] = p;
      }
  g_auto (Ranked) ranked = { 0 };
  rank (model, trace, indexes, positions, n, target, &ranked);

  g_autofree float *logits = g_new (float, (gsize) T *V);
  double worst = 0.0;
  int first_kept = T - trace->logits_rows;
  for (int i = 0; i <= L; i++)
    {
      g_autoptr (GError) error = NULL;
      g_assert_true (as_forward_read_out (model, trace, i, positions, T, logits, &error));
      g_assert_no_error (error);
      for (int p = 0; p < T; p++)
        {
          const float *row = logits + (gsize) p * V;
          if (i == L && p >= first_kept)
            {
              /* the pass's own; the written read-out of hidden[L] (the head alone) agrees */
              const float *own = trace->logits + (gsize) (p - first_kept) * V;
              check_close ("hidden[L] read out", row, own, V, 1e-6, 1e-5);
              row = own;
            }
          worst = MAX (worst, check_row (&ranked, i * T + p, row, V, target));
        }
    }
  g_test_message ("%s: %d cells of %d tokens, largest relative probability error %.3g", what, n, V,
                  worst);
  g_assert_cmpfloat (worst, <=, 1e-5);

  /* one thread: the same bits */
  g_setenv ("ATTNSCOPE_THREADS", "1", TRUE);
  g_auto (Ranked) one = { 0 };
  rank (model, trace, indexes, positions, n, target, &one);
  g_unsetenv ("ATTNSCOPE_THREADS");
  g_assert_cmpmem (one.ids, sizeof (int32_t) * n * K, ranked.ids, sizeof (int32_t) * n * K);
  g_assert_cmpmem (one.probabilities, sizeof (float) * n * K, ranked.probabilities,
                   sizeof (float) * n * K);
  g_assert_cmpmem (one.rank, sizeof (int) * n, ranked.rank, sizeof (int) * n);
}

static int32_t *
ids_of (int n, int vocab, guint32 seed)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (seed);
  int32_t *ids = g_new (int32_t, n);
  for (int i = 0; i < n; i++)
    ids[i] = g_rand_int_range (rand, 0, vocab);
  return ids;
}

static gboolean
amx_or_skip (void)
{
  if (as_amx_usable ())
    return TRUE;
  g_test_skip ("no AMX tiles here: the lens reads written logits (test-cli-lens)");
  return FALSE;
}

/* attnscope's GPT-2 test model (2 layers, width 64, GPT-2's 50,257 tokens) and its pass over
 * 400 random ids (SEED) into *TRACE; NULL when the model cannot be made (the test skipped). */
static AsModel *
gpt2_pass (guint32 seed, AsTrace **trace)
{
  g_autofree char *dir = gpt2_model (2, 4, 64, 1024);
  if (dir == NULL)
    return NULL;
  g_autoptr (GError) error = NULL;
  AsModel *model = as_model_load (dir, &error);
  g_assert_no_error (error);
  g_autofree int32_t *ids = ids_of (400, 50257, seed);
  *trace = as_forward (model, ids, 400, NULL, &error);
  g_assert_no_error (error);
  return model;
}

/* GPT-2's float32 head of 50,257 tokens: 3 × 400 cells, two blocks of rows. */
static void
test_gpt2 (void)
{
  if (!amx_or_skip ())
    return;
  g_autoptr (AsTrace) trace = NULL;
  g_autoptr (AsModel) model = gpt2_pass (3, &trace);
  if (model == NULL)
    return;
  check_trace ("gpt2", model, trace, 1000);
  /* K above the limit is not for this path */
  g_assert_false (as_forward_can_rank (model, trace, AS_FORWARD_RANK_MAX_K + 1));
}

/* A BF16 Llama head and Gemma 2's soft-capped one, 5,000 tokens, all logits kept. */
static void
test_decoders (void)
{
  if (!amx_or_skip ())
    return;
  static const char *const llama[]
      = { "--family", "llama", "--layers",       "2",      "--heads", "4",    "--kv-heads",  "2",
          "--hidden", "64",    "--intermediate", "112",    "--vocab", "5000", "--positions", "256",
          "--dtype",  "bf16",  "--no-tie",       "--seed", "12",      NULL };
  static const char *const gemma2[]
      = { "--family",       "gemma2",  "--layers", "2",      "--heads",     "4",
          "--kv-heads",     "2",       "--hidden", "64",     "--head-dim",  "32",
          "--intermediate", "112",     "--vocab",  "5000",   "--positions", "256",
          "--softcap",      "0.3,0.5", "--no-tie", "--seed", "13",          NULL };
  const struct
  {
    const char *name;
    const char *const *args;
  } cases[] = { { "llama-bf16-v5000", llama }, { "gemma2-softcap-v5000", gemma2 } };
  for (gsize c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_autofree char *dir = decoder_model (cases[c].name, cases[c].args, FALSE);
      if (dir == NULL)
        return;
      g_autoptr (GError) error = NULL;
      g_autoptr (AsModel) model = as_model_load (dir, &error);
      g_assert_no_error (error);
      g_autofree int32_t *ids = ids_of (70, 5000, 5 + (guint32) c);
      AsForwardOptions options = { .all_logits = TRUE };
      g_autoptr (AsTrace) trace = as_forward (model, ids, 70, &options, &error);
      g_assert_no_error (error);
      check_trace (cases[c].name, model, trace, 4321);
    }
}

/* Translation models: Marian's final_logits_bias (the shipped en-de), mBART's final LayerNorm
 * and T5's tied head, its input scaled by D^-½; every row's logits kept, so hidden[L] is checked
 * against the pass (read out through the head alone: mBART's and T5's final norms not twice). */
static void
test_translation (void)
{
  if (!amx_or_skip ())
    return;
  g_autofree char *t5 = t5_model ("t5-relu", t5_relu);
  if (t5 == NULL)
    return;
  g_autofree char *mbart = bart_model ("mbart-pre", bart_mbart);
  if (mbart == NULL)
    return;
  g_autofree char *marian = test_source_path ("data/models/attnscope-mini-en-de");
  const char *dirs[] = { marian, mbart, t5 };
  const char *names[] = { "marian", "mbart", "t5" };
  for (gsize m = 0; m < G_N_ELEMENTS (dirs); m++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (AsModel) model = as_model_load (dirs[m], &error);
      g_assert_no_error (error);
      int V = as_model_get_config (model)->vocab_size;
      g_autofree int32_t *src = ids_of (12, V, 7);
      g_autofree int32_t *tgt = ids_of (40, V, 8);
      AsForwardOptions options = { .all_logits = TRUE };
      g_autoptr (AsTrace) trace
          = as_forward_translation (model, src, 12, tgt, 40, &options, &error);
      g_assert_no_error (error);
      check_trace (names[m], model, trace, V / 3);
    }
}

/* The lens with a fitted lens (random maps: hidden state i → A_i·h + b_i) ranked in the cache
 * against its written logits (as_fitted_lens_read), 3 × 400 cells of GPT-2, a target. */
static void
test_fitted (void)
{
  if (!amx_or_skip ())
    return;
  g_autoptr (AsTrace) trace = NULL;
  g_autoptr (AsModel) model = gpt2_pass (11, &trace);
  if (model == NULL)
    return;
  int T = trace->n_tokens, D = trace->d_model, L = trace->n_layer, V = trace->vocab_size;
  int32_t target = 777;
  AsFittedLens fitted = { .n_layer = L, .d_model = D };
  fitted.maps = g_new (float, (gsize) L *(D + 1) * D);
  g_autoptr (GRand) rand = g_rand_new_with_seed (12);
  for (gsize i = 0; i < (gsize) L * (D + 1) * D; i++)
    fitted.maps[i] = (float) g_rand_double_range (rand, -0.2, 0.2);
  g_autofree int *positions = g_new (int, T);
  for (int p = 0; p < T; p++)
    positions[p] = p;
  g_autoptr (GError) error = NULL;
  AsLens *lens
      = as_lens_compute_fitted (model, trace, &fitted, positions, T, K, target, NULL, &error);
  g_assert_no_error (error);
  /* the lens's cells as rows of a ranked read-out, for check_row */
  g_auto (Ranked) ranked = { .n = (L + 1) * T };
  ranked.ids = g_new (int32_t, (gsize) ranked.n * K);
  ranked.logits = g_new (float, (gsize) ranked.n *K);
  ranked.probabilities = g_new (float, (gsize) ranked.n *K);
  ranked.n_top = g_new (int, ranked.n);
  ranked.rank = g_new (int, ranked.n);
  ranked.target_probability = g_new (float, ranked.n);
  for (int i = 0; i <= L; i++)
    for (int p = 0; p < T; p++)
      {
        const AsLensCell *cell = as_lens_cell (lens, i, p);
        int r = i * T + p;
        ranked.n_top[r] = cell->n_top;
        for (int j = 0; j < cell->n_top; j++)
          {
            ranked.ids[r * K + j] = cell->top[j].id;
            ranked.logits[r * K + j] = cell->top[j].logit;
            ranked.probabilities[r * K + j] = cell->top[j].probability;
          }
        ranked.rank[r] = cell->target_rank;
        ranked.target_probability[r] = cell->target_probability;
      }
  as_lens_free (lens);
  g_autofree float *logits = g_new (float, (gsize) T *V);
  double worst = 0.0;
  for (int i = 0; i <= L; i++)
    {
      gboolean read
          = i < L ? as_fitted_lens_read (model, trace, &fitted, i, positions, T, logits, &error)
                  : as_forward_read_out (model, trace, L, positions, T, logits, &error);
      g_assert_no_error (error);
      g_assert_true (read);
      for (int p = 0; p < T; p++)
        {
          /* the last position's hidden[L]: the pass's own logits */
          const float *row = i == L && p == T - 1 ? trace->logits : logits + (gsize) p * V;
          worst = MAX (worst, check_row (&ranked, i * T + p, row, V, target));
        }
    }
  g_test_message ("fitted: %d cells, largest relative probability error %.3g", ranked.n, worst);
  g_assert_cmpfloat (worst, <=, 1e-5);
  g_free (fitted.maps);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/read-out-ranked/gpt2", test_gpt2);
  g_test_add_func ("/read-out-ranked/decoders", test_decoders);
  g_test_add_func ("/read-out-ranked/translation", test_translation);
  g_test_add_func ("/read-out-ranked/fitted", test_fitted);
  return g_test_run ();
}
