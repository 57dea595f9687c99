/* test-attention-on-demand.c — a trace that keeps queries, keys and row statistics gives the
 * attention the matrices hold (core/README.md, "Attention on demand").
 *
 * - For every family's way of scoring — GPT-2, BERT on a pair, Marian's encoder and decoder,
 *   Llama with grouped-query attention (BF16, sharded), Mistral's sliding window, Gemma 2's
 *   soft-capped scores with alternating windows, T5 and Flan-T5 (mt5) whose scores add the relative
 *   position bias (up to T ≥ 256) — the same pass run twice, with the matrices and on demand: every
 * head's whole matrix, and tiles at odd offsets and sizes, within 1e-7 of the matrices (the bits
 * the pass computed: the count of differing entries is reported), masked entries exactly 0; hidden
 * states, contexts and logits to the bit.
 * - `run --dump`'s file is the same, dataset by dataset, to the bit, whichever way the trace
 *   keeps attention (the attention written block by block either way).
 * - The automatic choice: the matrices up to AS_ATTENTION_HELD_MAX bytes, then on demand, and a
 *   trace on demand takes less memory; $ATTNSCOPE_ATTENTION overrides; the most tokens that fit
 *   are found across the switch.
 * - A umT5 trace at T = 512 on demand holds what the formula gives — its position bias [H][2T−1]
 *   per layer — under half of what its attention matrices would. */
#include <math.h>
#include <glib/gstdio.h>
#include <string.h>

#include "as-error.h"
#include "as-forward.h"
#include "as-model.h"
#include "as-trace-dump.h"
#include "decoder-models.h"
#include "dump-compare.h"
#include "memory-private.h"
#include "t5-models.h"

#define ON_DEMAND_ATOL 1e-7

typedef struct
{
  const char *what;
  gsize entries, differing_bits;
  double max_diff;
} Agreement;

static void
agree (Agreement *a, const float *expected, const float *actual, gsize n)
{
  for (gsize i = 0; i < n; i++)
    {
      double d = fabs ((double) expected[i] - actual[i]);
      a->max_diff = MAX (a->max_diff, d);
      a->differing_bits += memcmp (expected + i, actual + i, sizeof (float)) != 0;
      if (expected[i] == 0.0f && actual[i] != 0.0f)
        g_error ("%s: entry %" G_GSIZE_FORMAT " is masked (0) but on demand %g", a->what, i,
                 actual[i]);
    }
  a->entries += n;
}

/* Whole heads and tiles of ON (on demand) against HELD (matrices) of the same pass. */
static void
assert_same_attention (const AsTrace *held, const AsTrace *on, const char *what)
{
  g_assert_true (as_trace_attention_held (held));
  g_assert_false (as_trace_attention_held (on));
  g_assert_null (on->attn);
  int T = held->n_tokens;
  Agreement a = { .what = what };
  for (int l = 0; l < held->n_layer; l++)
    for (int h = 0; h < held->n_head; h++)
      {
        g_autofree float *owned = NULL, *tile = NULL;
        const float *m = as_trace_attn_matrices (held, l, h); /* [T][T] */
        agree (&a, m, as_trace_attention_head (on, l, h, &owned), (gsize) T * T);
        g_assert_nonnull (owned);
        /* a tile at odd offsets, wider than it is tall, into a wider row stride */
        int r0 = T / 3, c0 = T / 5, nr = MAX (1, T / 2 - 1), nc = T - c0;
        nr = MIN (nr, T - r0);
        tile = g_new (float, (gsize) nr *(nc + 3));
        as_trace_attention_tile (on, l, h, r0, nr, c0, nc, tile, nc + 3);
        for (int i = 0; i < nr; i++)
          agree (&a, m + (gsize) (r0 + i) * T + c0, tile + (gsize) i * (nc + 3), nc);
        /* a narrow tile across the edge of a block of keys the pass scores in one product, and
         * one within a block: only those blocks' products are made */
        static const int narrow[][2] = { { 250, 13 }, { 261, 5 } };
        for (guint n = 0; n < G_N_ELEMENTS (narrow); n++)
          {
            int nc0 = MIN (narrow[n][0], T - 1), nnc = MIN (narrow[n][1], T - nc0);
            int nr0 = T - nr;
            g_autofree float *t2 = g_new (float, (gsize) nr *nnc);
            as_trace_attention_tile (on, l, h, nr0, nr, nc0, nnc, t2, nnc);
            for (int i = 0; i < nr; i++)
              agree (&a, m + (gsize) (nr0 + i) * T + nc0, t2 + (gsize) i * nnc, nnc);
          }
      }
  g_test_message ("%s: %" G_GSIZE_FORMAT " entries, %" G_GSIZE_FORMAT
                  " with other bits, largest difference %.3g",
                  what, a.entries, a.differing_bits, a.max_diff);
  g_assert_cmpfloat (a.max_diff, <=, ON_DEMAND_ATOL);
}

static void
assert_same_floats (const float *a, const float *b, gsize n, const char *what)
{
  if (n > 0 && memcmp (a, b, n * sizeof (float)) != 0)
    g_error ("%s: not the same bits with attention on demand", what);
}

static void
assert_same_trace (const AsTrace *held, const AsTrace *on, const char *what)
{
  gsize L = held->n_layer, H = held->n_head, T = held->n_tokens, D = held->d_model;
  assert_same_attention (held, on, what);
  assert_same_floats (held->hidden, on->hidden, (L + 1) * T * D, "hidden states");
  assert_same_floats (held->ctx, on->ctx, L * H * T * held->head_dim, "contexts");
  /* a decoder's attention outputs on demand are remade from the contexts when read */
  for (gsize l = 0; l < L; l++)
    assert_same_floats (as_trace_attn_out (held, l), as_trace_attn_out (on, l), T * D,
                        "attention outputs");
  assert_same_floats (held->logits, on->logits, (gsize) held->logits_rows * held->vocab_size,
                      "logits");
  if (held->source != NULL)
    {
      g_autofree char *enc = g_strdup_printf ("%s, encoder", what);
      assert_same_trace (held->source, on->source, enc);
      assert_same_floats (held->cross_attn, on->cross_attn, L * H * T * held->source->n_tokens,
                          "cross-attention");
    }
}

/* The pass of MODEL over TEXT (and SECOND: a pair, or Marian's target), or over IDS. */
static AsTrace *
run (AsModel *model, const char *text, const char *second, const int32_t *ids, int n_ids,
     AsAttentionStorage storage)
{
  AsForwardOptions options = { .all_logits = TRUE, .attention = storage };
  g_autoptr (GError) error = NULL;
  AsTrace *t;
  if (ids != NULL)
    t = as_forward (model, ids, n_ids, &options, &error);
  else if (as_model_get_config (model)->encoder_decoder)
    t = as_forward_translation_text (model, text, second, &options, &error);
  else
    t = as_forward_pair (model, text, second, FALSE, &options, &error);
  g_assert_no_error (error);
  return t;
}

static void
check_model (AsModel *model, const char *text, const char *second, const int32_t *ids, int n_ids,
             const char *what)
{
  g_autoptr (AsTrace) held = run (model, text, second, ids, n_ids, AS_ATTENTION_MATRICES);
  g_autoptr (AsTrace) on = run (model, text, second, ids, n_ids, AS_ATTENTION_ON_DEMAND);
  assert_same_trace (held, on, what);
}

static void
test_shipped (void)
{
  static const struct
  {
    const char *model, *text, *second;
  } cases[] = {
    { "attnscope-mini", "The man hit the car, and then the car hit the man in the dark.", NULL },
    { "attnscope-mini-bert", "the cat sat on the [MASK] .", "a dog ran in the park all day." },
    { "attnscope-mini-en-de", "The group went home after the long day.",
      "Die Gruppe ging nach Hause." },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (AsModel) model = as_model_load (cases[i].model, &error);
      g_assert_no_error (error);
      check_model (model, cases[i].text, cases[i].second, NULL, 0, cases[i].model);
      /* GPT-2, BERT and Marian keep their attention outputs on demand too */
      AsForwardOptions od = { .attention = AS_ATTENTION_ON_DEMAND };
      g_assert_false (as_forward_trace_shape (model, 5, &od).attn_out_on_demand);
    }
}

static void
test_decoder_families (void)
{
  static const struct
  {
    const char *name;
    const char *const *args;
  } cases[] = {
    { "llama-gqa-bf16-sharded-llama3", decoder_llama_gqa },
    { "mistral-window", decoder_mistral_window },
    { "gemma2-softcaps-alternate", decoder_gemma2_caps },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *dir = decoder_model (cases[i].name, cases[i].args, FALSE);
      if (dir == NULL)
        return;
      g_autoptr (GError) error = NULL;
      g_autoptr (AsModel) model = as_model_load (dir, &error);
      g_assert_no_error (error);
      /* 1 token, a prime length, more than twice every window and the attention's row block, and
       * more than two of the blocks of 256 keys the pass scores in one product */
      static const int lengths[] = { 1, 67, 131, 613 };
      for (guint k = 0; k < G_N_ELEMENTS (lengths); k++)
        {
          int T = lengths[k];
          g_autofree int32_t *ids = g_new (int32_t, T);
          for (int t = 0; t < T; t++)
            ids[t] = (t * 37 + 11) % 300;
          g_autofree char *what = g_strdup_printf ("%s, %d tokens", cases[i].name, T);
          check_model (model, NULL, NULL, ids, T, what);
        }
      /* on demand these decoders keep no attention outputs (remade from the contexts when
       * read: check_model compared them), and a pass needs L·T·D floats less for it */
      static const int32_t five[] = { 3, 1, 4, 1, 5 };
      g_autoptr (AsTrace) on = run (model, NULL, NULL, five, 5, AS_ATTENTION_ON_DEMAND);
      g_assert_null (on->attn_out);
      g_assert_false (as_forward_trace_shape (model, 5, NULL).attn_out_on_demand); /* matrices */
      AsForwardOptions od = { .attention = AS_ATTENTION_ON_DEMAND };
      AsTraceShape od_shape = as_forward_trace_shape (model, 5, &od);
      g_assert_true (od_shape.attn_out_on_demand);
      AsTraceShape kept = od_shape;
      kept.attn_out_on_demand = FALSE;
      g_assert_cmpuint (as_trace_shape_bytes (&kept) - as_trace_shape_bytes (&od_shape), ==,
                        (guint64) on->n_layer * 5 * on->d_model * sizeof (float));
    }
}

/* "a,b,c" as ids (owned, *N of them). */
static int32_t *
parse_ids (const char *list, int *n)
{
  g_auto (GStrv) parts = g_strsplit (list, ",", -1);
  *n = (int) g_strv_length (parts);
  int32_t *ids = g_new (int32_t, *n);
  for (int i = 0; i < *n; i++)
    ids[i] = (int32_t) g_ascii_strtoll (parts[i], NULL, 10);
  return ids;
}

static AsTrace *
run_translation (AsModel *model, const int32_t *src, int n_src, const int32_t *tgt, int n_tgt,
                 AsAttentionStorage storage)
{
  AsForwardOptions options = { .all_logits = TRUE, .attention = storage };
  g_autoptr (GError) error = NULL;
  AsTrace *t = as_forward_translation (model, src, n_src, tgt, n_tgt, &options, &error);
  g_assert_no_error (error);
  return t;
}

/* Under a memory limit that holds the matrices' traces but not their pass, a translation pass left
 * to choose keeps its attention on demand — the trace HELD is, to the bit — where the matrices
 * forced are refused. HELD and ON are the pass with the matrices and on demand, alive (the limit
 * counts them). */
static void
check_translation_budget (AsModel *model, const int32_t *src, int n_src, const int32_t *tgt,
                          int n_tgt, const AsTrace *held, const AsTrace *on)
{
  guint64 matrices = held->held_bytes + held->source->held_bytes;
  guint64 on_demand = on->held_bytes + on->source->held_bytes;
  g_assert_cmpuint (on_demand, <, matrices);
  /* the room of the matrices' traces alone: the pass with them needs its working memory on top,
   * the pass on demand (its traces and the same working memory) fits */
  g_autofree char *limit = g_strdup_printf ("%" G_GUINT64_FORMAT, as_memory_held () + matrices);
  g_test_message ("translation under %s bytes: %" G_GUINT64_FORMAT " on demand, %" G_GUINT64_FORMAT
                  " with the matrices",
                  limit, on_demand, matrices);
  g_setenv ("ATTNSCOPE_MEMORY_LIMIT", limit, TRUE);
  AsForwardOptions forced = { .all_logits = TRUE, .attention = AS_ATTENTION_MATRICES };
  g_autoptr (GError) error = NULL;
  AsTrace *refused = as_forward_translation (model, src, n_src, tgt, n_tgt, &forced, &error);
  g_assert_null (refused);
  g_assert_error (error, AS_ERROR, AS_ERROR_MEMORY);
  g_autoptr (AsTrace) chosen = run_translation (model, src, n_src, tgt, n_tgt, AS_ATTENTION_AUTO);
  g_unsetenv ("ATTNSCOPE_MEMORY_LIMIT");
  g_assert_false (as_trace_attention_held (chosen));
  g_assert_false (as_trace_attention_held (chosen->source));
  assert_same_trace (held, chosen, "t5-relu under a memory limit");
}

static void
test_t5 (void)
{
  static const struct
  {
    const char *name;
    const char *const *args;
    int vocab;
  } cases[] = {
    { "t5-relu", t5_relu, 300 },
    { "flan-gated", t5_flan_gated, 320 },
    { "umt5", t5_umt5, 300 }, /* a bias block per layer, each layer's recipe reading its own */
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *dir = t5_model (cases[i].name, cases[i].args);
      if (dir == NULL)
        return;
      g_autoptr (GError) error = NULL;
      g_autoptr (AsModel) model = as_model_load (dir, &error);
      g_assert_no_error (error);
      /* 1 token, primes, and more than one block of 64 rows past the last bucket's distance */
      /* … and T ≥ 256: rows far from the diagonal read the compact bias's far ends */
      static const int lengths[][2] = { { 1, 1 }, { 13, 7 }, { 131, 67 }, { 300, 259 } };
      for (guint k = 0; k < G_N_ELEMENTS (lengths); k++)
        {
          g_autofree char *src_list = t5_ids (lengths[k][0], cases[i].vocab, 11 + k, TRUE);
          g_autofree char *tgt_list = t5_ids (lengths[k][1], cases[i].vocab, 101 + k, FALSE);
          int n_src, n_tgt;
          g_autofree int32_t *src = parse_ids (src_list, &n_src);
          g_autofree int32_t *tgt = parse_ids (tgt_list, &n_tgt);
          g_autoptr (AsTrace) held
              = run_translation (model, src, n_src, tgt, n_tgt, AS_ATTENTION_MATRICES);
          g_autoptr (AsTrace) on
              = run_translation (model, src, n_src, tgt, n_tgt, AS_ATTENTION_ON_DEMAND);
          g_autofree char *what
              = g_strdup_printf ("%s, %d + %d tokens", cases[i].name, n_src, n_tgt);
          assert_same_trace (held, on, what);
          if (i == 0 && k == G_N_ELEMENTS (lengths) - 1)
            check_translation_budget (model, src, n_src, tgt, n_tgt, held, on);
        }
    }
}

/* The bytes a T5-family trace on demand holds, counted by hand: the queries, keys and row
 * statistics, q, k, v and the contexts, the attention outputs, hidden states, residual, token
 * embeddings, logits, and the relative position bias — [H][2T−1] per block, never [H][T][T]. */
static guint64
t5_on_demand_bytes (const AsTrace *t)
{
  guint64 L = t->n_layer, H = t->n_head, K = t->n_kv_head, T = t->n_tokens, D = t->d_model;
  guint64 hd = t->head_dim, V = t->vocab_size, rows = t->logits_rows;
  guint64 floats = L * (H + K) * T * hd + 2 * L * H * T + 4 * L * H * T * hd + L * T * D
                   + (L + 1) * T * D + T * D + T * D + rows * V
                   + (guint64) t->n_position_bias * H * (2 * T - 1);
  return floats * sizeof (float) + L * sizeof (AsAttentionRecipe)
         + T * (2 * sizeof (int32_t) + sizeof (char *));
}

/* umT5 at T = 512 on demand (a bias block per layer, both stacks): each trace holds what the
 * formula gives, under half of what its attention matrices alone would take. */
static void
test_umt5_bytes (void)
{
  g_autofree char *dir = t5_model ("umt5", t5_umt5);
  if (dir == NULL)
    return;
  g_autoptr (GError) error = NULL;
  g_autoptr (AsModel) model = as_model_load (dir, &error);
  g_assert_no_error (error);
  g_autofree char *src_list = t5_ids (512, 300, 7, TRUE);
  g_autofree char *tgt_list = t5_ids (512, 300, 8, FALSE);
  int n_src, n_tgt;
  g_autofree int32_t *src = parse_ids (src_list, &n_src);
  g_autofree int32_t *tgt = parse_ids (tgt_list, &n_tgt);
  g_autoptr (AsTrace) t = run_translation (model, src, n_src, tgt, n_tgt, AS_ATTENTION_ON_DEMAND);
  const AsTrace *stacks[] = { t->source, t };
  for (int s = 0; s < 2; s++)
    {
      const AsTrace *x = stacks[s];
      g_assert_false (as_trace_attention_held (x));
      g_assert_cmpint (x->n_tokens, ==, 512);
      g_assert_cmpint (x->n_position_bias, ==, x->n_layer);
      guint64 T = x->n_tokens, LH = (guint64) x->n_layer * x->n_head;
      guint64 matrices = LH * T * T * sizeof (float);
      g_test_message ("umt5 %s, T = 512 on demand: %" G_GUINT64_FORMAT
                      " bytes held (bias %" G_GUINT64_FORMAT
                      "), the matrices alone %" G_GUINT64_FORMAT,
                      s == 0 ? "encoder" : "decoder", x->held_bytes,
                      LH * (2 * T - 1) * sizeof (float), matrices);
      g_assert_cmpuint (x->held_bytes, ==, t5_on_demand_bytes (x));
      /* the bias is a 256th of the [L][H][T][T] it stands for; the whole trace under half the
       * matrices (it held more than the matrices when the bias was kept as [L][H][T][T]) */
      g_assert_cmpuint (LH * (2 * T - 1) * sizeof (float) * 200, <, matrices);
      g_assert_cmpuint (x->held_bytes * 2, <, matrices);
    }
}

static void
test_dump (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AsModel) model = as_model_load ("attnscope-mini", &error);
  g_assert_no_error (error);
  const char *text = "The man hit the car, and then the car hit the man in the dark.";
  g_autoptr (AsTrace) held = run (model, text, NULL, NULL, 0, AS_ATTENTION_MATRICES);
  g_autoptr (AsTrace) on = run (model, text, NULL, NULL, 0, AS_ATTENTION_ON_DEMAND);
  g_autofree char *dir = g_dir_make_tmp ("on-demand-XXXXXX", &error);
  g_assert_no_error (error);
  g_autofree char *a = g_build_filename (dir, "held.h5", NULL);
  g_autofree char *b = g_build_filename (dir, "on-demand.h5", NULL);
  g_assert_true (as_trace_dump_h5 (held, "attnscope-mini", "GPT2LMHeadModel", a, 0, &error));
  g_assert_true (as_trace_dump_h5 (on, "attnscope-mini", "GPT2LMHeadModel", b, 0, &error));
  g_autofree char *why = NULL;
  if (!dump_same_datasets (a, b, &why))
    g_error ("the dumps differ: %s", why);
  dump_assert_trace (held, b, "on-demand dump against the matrices");
  g_unlink (a);
  g_unlink (b);
  g_rmdir (dir);
}

/* The longest text whose matrices in MODEL take at most as_attention_held_max() bytes. */
static int
longest_held (const AsModel *model)
{
  const AsConfig *c = as_model_get_config (model);
  guint64 per_token2 = (guint64) c->n_layer * c->n_head * sizeof (float),
          max = as_attention_held_max ();
  int n = (int) floor (sqrt ((double) max / per_token2));
  while ((guint64) (n + 1) * (n + 1) * per_token2 <= max)
    n++;
  while (n > 0 && (guint64) n * n * per_token2 > max)
    n--;
  return n;
}

static void
test_choice (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AsModel) model = as_model_load ("attnscope-mini", &error);
  g_assert_no_error (error);
  const AsConfig *c = as_model_get_config (model);
  g_unsetenv ("ATTNSCOPE_ATTENTION");
  g_unsetenv ("ATTNSCOPE_ATTENTION_HELD_MAX");
  int held_max = longest_held (model);
  AsTraceShape below = as_forward_trace_shape (model, held_max, NULL);
  AsTraceShape above = as_forward_trace_shape (model, held_max + 1, NULL);
  g_assert_false (below.attention_on_demand);
  g_assert_true (above.attention_on_demand);
  AsTraceShape matrices = above;
  matrices.attention_on_demand = FALSE;
  g_test_message ("%d tokens: %.0f MB with the matrices, %.0f MB on demand", held_max + 1,
                  as_trace_shape_bytes (&matrices) / 1e6, as_trace_shape_bytes (&above) / 1e6);
  g_assert_cmpuint (as_trace_shape_bytes (&above), <, as_trace_shape_bytes (&matrices) / 8);

  /* an explicit choice, and the variable, win over the size */
  AsForwardOptions on = { .attention = AS_ATTENTION_ON_DEMAND };
  AsForwardOptions held = { .attention = AS_ATTENTION_MATRICES };
  g_assert_true (as_forward_trace_shape (model, 5, &on).attention_on_demand);
  g_assert_false (as_forward_trace_shape (model, held_max + 1, &held).attention_on_demand);
  g_setenv ("ATTNSCOPE_ATTENTION", "on-demand", TRUE);
  g_assert_true (as_forward_trace_shape (model, 5, NULL).attention_on_demand);
  g_setenv ("ATTNSCOPE_ATTENTION", "matrices", TRUE);
  g_assert_false (as_forward_trace_shape (model, held_max + 1, NULL).attention_on_demand);
  g_unsetenv ("ATTNSCOPE_ATTENTION");

  /* the switch inside the context (64 tokens' matrices): the bytes drop after it, and the most
   * tokens that fit are found on either side */
  guint64 at64 = (guint64) 64 * 64 * c->n_layer * c->n_head * sizeof (float);
  g_autofree char *limit = g_strdup_printf ("%" G_GUINT64_FORMAT, at64);
  g_setenv ("ATTNSCOPE_ATTENTION_HELD_MAX", limit, TRUE);
  g_assert_cmpint (longest_held (model), ==, 64);
  g_assert_false (as_forward_trace_shape (model, 64, NULL).attention_on_demand);
  g_assert_true (as_forward_trace_shape (model, 65, NULL).attention_on_demand);
  guint64 b64 = as_forward_bytes (model, 64, NULL), b65 = as_forward_bytes (model, 65, NULL);
  guint64 b_context = as_forward_bytes (model, c->n_positions, NULL);
  g_test_message ("bytes at 64, 65 and %d tokens: %" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT
                  ", %" G_GUINT64_FORMAT,
                  c->n_positions, b64, b65, b_context);
  g_assert_cmpuint (b65, <, b64);
  /* every length above the switch fits: the whole context */
  g_assert_cmpint (as_forward_max_tokens (model, NULL, MAX (b64, b_context)), ==, c->n_positions);
  /* keeping the matrices, only the short ones fit (below the on-demand trace of 65 tokens) */
  guint64 b40 = as_forward_bytes (model, 40, NULL);
  g_assert_cmpuint (b40, <, b65);
  g_assert_cmpint (as_forward_max_tokens (model, &held, b40), ==, 40);
  /* the automatic choice keeps on demand what does not fit with the matrices: a few more */
  int fit = as_forward_max_tokens (model, NULL, b40);
  g_test_message ("in the bytes of 40 tokens' matrices: %d tokens on demand", fit);
  g_assert_cmpint (fit, >, 40);
  g_assert_cmpuint (as_forward_bytes (model, fit, &on), <=, b40);
  g_assert_cmpuint (as_forward_bytes (model, fit + 1, &on), >, b40);
  g_unsetenv ("ATTNSCOPE_ATTENTION_HELD_MAX");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/attention-on-demand/shipped", test_shipped);
  g_test_add_func ("/core/attention-on-demand/decoder-families", test_decoder_families);
  g_test_add_func ("/core/attention-on-demand/t5", test_t5);
  g_test_add_func ("/core/attention-on-demand/umt5-bytes", test_umt5_bytes);
  g_test_add_func ("/core/attention-on-demand/dump", test_dump);
  g_test_add_func ("/core/attention-on-demand/choice", test_choice);
  return g_test_run ();
}
