/* test-encoder.c — the encoder families (BERT, DistilBERT, RoBERTa) against the project's
 * independent PyTorch reference, tests/reference/encoder_reference.py.
 *
 * Random models in every layout the reference writes (encoder-models.h): tf_model.h5 in the
 * Keras layouts of TFBertForMaskedLM / TFBertForPreTraining / TFBertModel (with the tied
 * embedding copies of the head groups, transformers 4.3's EinsumDense shapes, variable-length
 * strings, split weight_names), TFDistilBertForMaskedLM, TFRobertaForMaskedLM; model.safetensors
 * with PyTorch's names (with and without the base-model prefix, legacy LayerNorm gamma/beta, the
 * tied decoder copies and the position_ids buffer); and the shipped attnscope-mini-bert. For
 * single texts and pairs (token types 0/1, RoBERTa's "</s></s>" and a pad token inside) every
 * captured array is compared with the tolerances of tests/README.md: attention within 1e-5
 * absolute, q/k/v/contexts/attn_out/hidden states/MLM logits within 1e-4 relative.
 *
 * Also: the trace's segments and special-token ids, masked predictions against the reference's
 * logits, head statistics of an encoder trace against the numpy reference, the longest-first
 * truncation rule against the published cases of Hugging Face tokenizers' truncation.rs, and bad
 * input (pairs longer than the context, token types out of range, config variants, missing and
 * misshaped weights named in both layouts). */
#include <glib/gstdio.h>
#include <hdf5.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "analysis-fixtures.h"
#include "as-error.h"
#include "as-forward.h"
#include "as-head-stats.h"
#include "as-model.h"
#include "as-predict.h"
#include "check-close.h"
#include "encoder-models.h"
#include "trace-compare.h"

/* --- comparing with the reference ------------------------------------------------------------ */

/* Dataset GROUP/NAME (int64 [T]) as int32, or NULL when it does not exist. */
static GArray *
read_int_dataset (hid_t file, const char *group, const char *name)
{
  g_autofree char *path = g_strdup_printf ("/%s/%s", group, name);
  if (H5Lexists (file, group, H5P_DEFAULT) <= 0 || H5Lexists (file, path, H5P_DEFAULT) <= 0)
    return NULL;
  hid_t ds = H5Dopen2 (file, path, H5P_DEFAULT);
  hid_t space = H5Dget_space (ds);
  hssize_t npoints = H5Sget_simple_extent_npoints (space);
  if (npoints <= 0 || npoints > 1000000)
    g_error ("%s: %" G_GINT64_FORMAT " values, expected 1..1000000", path, (gint64) npoints);
  gsize n = (gsize) npoints;
  g_autofree int64_t *raw = g_new (int64_t, n);
  g_assert_cmpint (H5Dread (ds, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, raw), >=, 0);
  H5Sclose (space);
  H5Dclose (ds);
  GArray *out = g_array_sized_new (FALSE, FALSE, sizeof (int32_t), n);
  for (gsize i = 0; i < n; i++)
    {
      int32_t v = (int32_t) raw[i];
      g_array_append_val (out, v);
    }
  return out;
}

/* Every row of every head sums to 1 and, with no mask, the first row sees the last token. */
static void
check_bidirectional_rows (const char *label, const AsTrace *t)
{
  int T = t->n_tokens;
  g_assert_false (t->causal);
  for (int e = 0; e < t->n_layer * t->n_head; e++)
    {
      const float *p = as_trace_attn_matrices (t, e / t->n_head, e % t->n_head); /* [T][T] */
      for (int i = 0; i < T; i++)
        {
          double sum = 0;
          for (int j = 0; j < T; j++)
            sum += p[i * T + j];
          if (fabs (sum - 1) > 1e-6)
            {
              g_test_message ("%s: head %d row %d sums to %.9f", label, e, i, sum);
              g_test_fail ();
              return;
            }
        }
      if (T > 1 && !(p[T - 1] > 0))
        {
          g_test_message ("%s: head %d: the first token gives the last no weight", label, e);
          g_test_fail ();
        }
    }
}

/* Runs MODEL on sequence GROUP of FILE (its ids and type ids, every position's logits) and
 * compares every array; FALSE when GROUP is absent. */
static gboolean
compare_sequence (AsModel *model, hid_t file, const char *group, const char *label)
{
  g_autoptr (GArray) ids = read_int_dataset (file, group, "ids");
  if (ids == NULL)
    return FALSE;
  g_autoptr (GArray) types = read_int_dataset (file, group, "type_ids");
  g_assert_nonnull (types);
  int n = (int) ids->len;
  const AsConfig *c = as_model_get_config (model);
  AsForwardOptions options = { .all_logits = TRUE, .capture_qkv = TRUE };
  /* a model without token types is run without them, as HF's DistilBERT is */
  if (c->type_vocab_size > 0)
    options.type_ids = &g_array_index (types, int32_t, 0);
  g_autoptr (GError) error = NULL;
  g_autoptr (AsTrace) t = as_forward (model, &g_array_index (ids, int32_t, 0), n, &options, &error);
  g_assert_no_error (error);

  g_autofree char *lbl = g_strdup_printf ("%s %s (T=%d)", label, group, n);
  hsize_t L = t->n_layer, H = t->n_head, T = n, D = t->d_model, hd = t->head_dim;
  hsize_t attn_dims[] = { L, H, T, T };
  g_autofree float *attn = trace_read_floats (file, group, "attentions", 4, attn_dims);
  g_autofree char *what = g_strdup_printf ("%s attentions", lbl);
  if (attn != NULL)
    check_close (what, t->attn, attn, L * H * T * T, TRACE_ATTN_ATOL, 0.0);
  hsize_t head_dims[] = { L, H, T, hd };
  trace_compare_vectors (lbl, "q", t->q, file, group, 4, head_dims);
  trace_compare_vectors (lbl, "k", t->k, file, group, 4, head_dims);
  trace_compare_vectors (lbl, "v", t->v, file, group, 4, head_dims);
  trace_compare_vectors (lbl, "contexts", t->ctx, file, group, 4, head_dims);
  hsize_t out_dims[] = { L, T, D };
  trace_compare_vectors (lbl, "attn_out", t->attn_out, file, group, 3, out_dims);
  hsize_t hidden_dims[] = { L + 1, T, D };
  trace_compare_vectors (lbl, "hidden_states", t->hidden, file, group, 3, hidden_dims);
  g_autofree char *logits_path = g_strdup_printf ("/%s/logits", group);
  gboolean has_logits = H5Lexists (file, logits_path, H5P_DEFAULT) > 0;
  g_assert_cmpint (has_logits, ==, c->masked_lm);
  if (has_logits)
    {
      hsize_t logit_dims[] = { T, c->vocab_size };
      trace_compare_vectors (lbl, "logits", t->logits, file, group, 2, logit_dims);
    }
  else
    g_assert_cmpint (t->logits_rows, ==, 0);
  check_bidirectional_rows (lbl, t);
  return TRUE;
}

/* Compares every /seqN of the reference's outputs for SEQS with MODEL_DIR's (loaded from
 * RUN_DIR, which may be a copy of it); returns the number of sequences. */
static int
compare_model (const char *model_dir, const char *run_dir, const char *const *seqs,
               const char *prefer, const char *label)
{
  g_autofree char *expected = encoder_expected (model_dir, seqs, prefer);
  if (expected == NULL)
    return 0;
  g_autoptr (GError) error = NULL;
  g_autoptr (AsModel) model = as_model_load (run_dir, &error);
  g_assert_no_error (error);
  hid_t file = H5Fopen (expected, H5F_ACC_RDONLY, H5P_DEFAULT);
  g_assert_cmpint (file, >=, 0);
  int n = 0;
  for (;; n++)
    {
      g_autofree char *group = g_strdup_printf ("seq%d", n);
      if (!compare_sequence (model, file, group, label))
        break;
    }
  H5Fclose (file);
  g_assert_cmpint (n, ==, g_strv_length ((char **) seqs));
  return n;
}

/* A folder with only MODEL_DIR's config.json, WEIGHTS and BPE tokenizer files. */
static char *
weights_only (const char *name, const char *model_dir, const char *weights)
{
  const char *files[] = { "config.json", weights, NULL };
  return encoder_model_copy (name, model_dir, files);
}

/* Comma-separated ids: FIRST, N random ids from 5..VOCAB-2 (never a special token of the test
 * vocabularies), LAST. */
static char *
random_ids (int first, int n, int last, int vocab, guint32 seed)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (seed);
  GString *s = g_string_new (NULL);
  g_string_append_printf (s, "%d", first);
  for (int i = 0; i < n; i++)
    g_string_append_printf (s, ",%d", g_rand_int_range (rand, 5, vocab - 1));
  g_string_append_printf (s, ",%d", last);
  return g_string_free (s, FALSE);
}

/* --- the families, both weight files -----------------------------------------------------------
 */

/* BERT and DistilBERT test vocabularies: [PAD] 0, [UNK] 1, [CLS] 2, [SEP] 3, [MASK] 4. */
static const char *const bert_seqs[] = {
  "2",
  "2,50,60,70,3",
  "2,50,60,3,80,90,100,3|0,0,0,0,1,1,1,1",
  "2,4,61,62,63,64,65,66,67,68,69,3,7,8,9,10,11,12,13,14,15,3|"
  "0,0,0,0,0,0,0,0,0,0,0,0,1,1,1,1,1,1,1,1,1,1",
  NULL,
};

static void
test_bert (gconstpointer data)
{
  const char *prefer = data;
  g_autofree char *dir = encoder_model ("bert-mlm", encoder_bert_mlm);
  if (dir == NULL)
    return;
  /* 40 positions: the longest input fills the context */
  g_autofree char *full = random_ids (2, 38, 3, 300, 11);
  const char *seqs[G_N_ELEMENTS (bert_seqs) + 1];
  memcpy (seqs, bert_seqs, sizeof bert_seqs);
  seqs[G_N_ELEMENTS (bert_seqs) - 1] = full;
  seqs[G_N_ELEMENTS (bert_seqs)] = NULL;
  gboolean h5 = g_str_equal (prefer, "h5");
  g_autofree char *run = weights_only (h5 ? "bert-mlm-h5" : "bert-mlm-st", dir,
                                       h5 ? "tf_model.h5" : "model.safetensors");
  compare_model (dir, run, seqs, prefer, h5 ? "bert tf_model.h5" : "bert model.safetensors");
}

static void
test_distilbert (gconstpointer data)
{
  const char *prefer = data;
  g_autofree char *dir = encoder_model ("distilbert-mlm", encoder_distilbert_mlm);
  if (dir == NULL)
    return;
  gboolean h5 = g_str_equal (prefer, "h5");
  g_autofree char *run = weights_only (h5 ? "distilbert-mlm-h5" : "distilbert-mlm-st", dir,
                                       h5 ? "tf_model.h5" : "model.safetensors");
  const char *seqs[] = { "2,50,60,70,3", "2,50,4,3,90,91,3", NULL };
  compare_model (dir, run, seqs, prefer, h5 ? "distilbert tf_model.h5" : "distilbert safetensors");
}

/* RoBERTa: <s> 0, <pad> 1, </s> 2, <mask> 299; positions from padding_idx + 1 = 2, a pad token
 * inside keeps position 1 and does not advance the others. */
static void
test_roberta (gconstpointer data)
{
  const char *prefer = data;
  g_autofree char *dir = encoder_model ("roberta-mlm", encoder_roberta_mlm);
  if (dir == NULL)
    return;
  gboolean h5 = g_str_equal (prefer, "h5");
  g_autofree char *full = random_ids (0, 38, 2, 299, 12);
  const char *seqs[] = { "0,50,60,70,2", "0,50,60,2,2,80,90,2", "0,50,1,60,299,2", full, NULL };
  /* the whole folder: RoBERTa's own BPE tokenizer, with <mask> */
  compare_model (dir, dir, seqs, "h5", "roberta tf_model.h5");
  if (!h5)
    {
      g_autofree char *run = encoder_model_copy (
          "roberta-mlm-st", dir, (const char *const[]){ "config.json", "model.safetensors", NULL });
      compare_model (dir, run, seqs, "safetensors", "roberta model.safetensors");
    }
}

/* --- layout variants ---------------------------------------------------------------------------
 */

typedef struct
{
  const char *name;
  const char *family;
  const char *head;     /* mlm, pretraining, none */
  const char *format;   /* h5 or safetensors */
  const char *extra[6]; /* more make-model options */
} Variant;

static const Variant variants[] = {
  /* TFBertForPreTraining with 4.3's EinsumDense kernels, variable-length strings and
   * weight_names split in three: the pooler and NSP head are not read */
  { "bert-pretraining-einsum",
    "bert",
    "pretraining",
    "h5",
    { "--einsum-attention", "--vlen-strings", "--weight-names-chunks", "3", NULL } },
  /* old checkpoints: LayerNorm gamma/beta, the tied decoder copies, the int64 position_ids */
  { "bert-legacy-st",
    "bert",
    "mlm",
    "safetensors",
    { "--legacy-ln-names", "--tied-copies", "--position-ids-buffer", NULL } },
  /* TFBertModel / BertModel (names without the "bert." prefix): attention only */
  { "bert-base-h5", "bert", "none", "h5", { NULL } },
  { "bert-base-st", "bert", "none", "safetensors", { NULL } },
  { "distilbert-base-st", "distilbert", "none", "safetensors", { "--tied-copies", NULL } },
  { "roberta-einsum", "roberta", "mlm", "h5", { "--einsum-attention", NULL } },
  { "roberta-st-legacy", "roberta", "mlm", "safetensors", { "--legacy-ln-names", NULL } },
};

static void
test_variant (gconstpointer data)
{
  const Variant *v = data;
  g_autoptr (GPtrArray) args = g_ptr_array_new ();
  const char *common[]
      = { "--family",       v->family, "--head",  v->head, "--format",    v->format,
          "--layers",       "2",       "--heads", "2",     "--hidden",    "16",
          "--intermediate", "24",      "--vocab", "300",   "--positions", "24",
          "--seed",         "5" };
  for (gsize i = 0; i < G_N_ELEMENTS (common); i++)
    g_ptr_array_add (args, (gpointer) common[i]);
  for (int i = 0; v->extra[i] != NULL; i++)
    g_ptr_array_add (args, (gpointer) v->extra[i]);
  if (!g_str_equal (v->family, "roberta"))
    g_ptr_array_add (args, (gpointer) "--bpe-tokenizer");
  g_ptr_array_add (args, NULL);
  g_autofree char *dir = encoder_model (v->name, (const char *const *) args->pdata);
  if (dir == NULL)
    return;
  gboolean roberta = g_str_equal (v->family, "roberta");
  const char *seqs[] = { roberta ? "0,50,60,2" : "2,50,60,3",
                         roberta ? "0,50,2,2,60,70,2" : "2,50,3,60,70,3|0,0,0,1,1,1", NULL };
  compare_model (dir, dir, seqs, g_str_equal (v->format, "h5") ? "h5" : "safetensors", v->name);

  g_autoptr (AsModel) model = as_model_load (dir, NULL);
  g_assert_cmpint (as_model_get_config (model)->masked_lm, ==, !g_str_equal (v->head, "none"));
}

/* --- the shipped model ----------------------------------------------------------------------- */

/* attnscope-mini-bert (tf_model.h5 of TFBertForMaskedLM, 4 layers, 128 wide) against the
 * reference, on ids: [CLS] 101, [SEP] 102, [MASK] 103. */
static void
test_shipped_mini_bert (void)
{
  g_autofree char *shipped = test_source_path ("data/models/attnscope-mini-bert");
  g_autofree char *single = random_ids (101, 30, 102, 6000, 21);
  const char *seqs[] = {
    single,
    "101,2000,2001,103,2003,102,2010,2011,2012,102|0,0,0,0,0,0,1,1,1,1",
    NULL,
  };
  int n = compare_model (shipped, shipped, seqs, "h5", "attnscope-mini-bert");
  if (n > 0)
    g_assert_cmpint (n, ==, 2);
}

/* --- what the trace keeps of the input -----------------------------------------------------------
 */

static AsTrace *
run_ids (AsModel *model, const int32_t *ids, int n, const int32_t *types, gboolean all_logits)
{
  AsForwardOptions options = { .all_logits = all_logits, .type_ids = types };
  g_autoptr (GError) error = NULL;
  AsTrace *t = as_forward (model, ids, n, &options, &error);
  g_assert_no_error (error);
  return t;
}

static void
test_segments (void)
{
  g_autofree char *bert_dir = encoder_model ("bert-mlm", encoder_bert_mlm);
  g_autofree char *distil_dir = encoder_model ("distilbert-mlm", encoder_distilbert_mlm);
  g_autofree char *roberta_dir = encoder_model ("roberta-mlm", encoder_roberta_mlm);
  if (bert_dir == NULL || distil_dir == NULL || roberta_dir == NULL)
    return;
  g_autoptr (AsModel) bert = as_model_load (bert_dir, NULL);
  g_autoptr (AsModel) distil = as_model_load (distil_dir, NULL);
  g_autoptr (AsModel) roberta = as_model_load (roberta_dir, NULL);

  /* the special tokens come from the tokenizer's vocabulary */
  const int32_t bert_special[] = { 2, 3, 4, 0 }, roberta_special[] = { 0, 2, 299, 1 };
  for (int i = 0; i < AS_N_SPECIAL; i++)
    {
      g_assert_cmpint (as_model_get_special_id (bert, i), ==, bert_special[i]);
      g_assert_cmpint (as_model_get_special_id (distil, i), ==, bert_special[i]);
      g_assert_cmpint (as_model_get_special_id (roberta, i), ==, roberta_special[i]);
    }
  g_assert_cmpint (as_model_get_config (bert)->type_vocab_size, ==, 2);
  g_assert_cmpint (as_model_get_config (distil)->type_vocab_size, ==, 0);
  g_assert_cmpint (as_model_get_config (roberta)->type_vocab_size, ==, 1);
  g_assert_false (as_model_get_config (bert)->causal_lm);
  g_assert_true (as_model_get_config (bert)->masked_lm);
  /* RoBERTa's 42 position rows leave 40 positions after padding_idx + 1 */
  g_assert_cmpint (as_model_get_config (roberta)->n_positions, ==, 40);

  /* BERT: the second text starts at the first token type 1 */
  const int32_t pair[] = { 2, 50, 60, 3, 80, 90, 3 }, types[] = { 0, 0, 0, 0, 1, 1, 1 };
  g_autoptr (AsTrace) bp = run_ids (bert, pair, 7, types, FALSE);
  g_assert_cmpint (bp->segment_b_start, ==, 4);
  g_assert_cmpmem (bp->type_ids, sizeof types, types, sizeof types);
  g_assert_cmpmem (bp->special_ids, sizeof bert_special, bert_special, sizeof bert_special);
  /* without type ids BERT runs on type 0 and the [SEP] inside still splits the texts */
  g_autoptr (AsTrace) bz = run_ids (bert, pair, 7, NULL, FALSE);
  g_assert_nonnull (bz->type_ids);
  for (int i = 0; i < 7; i++)
    g_assert_cmpint (bz->type_ids[i], ==, 0);
  g_assert_cmpint (bz->segment_b_start, ==, 4);
  const int32_t single[] = { 2, 50, 60, 3 };
  g_autoptr (AsTrace) bs = run_ids (bert, single, 4, NULL, FALSE);
  g_assert_cmpint (bs->segment_b_start, ==, -1);
  /* types change the numbers: type 1 rows are other embeddings */
  g_assert_cmpfloat (fabsf (bp->hidden[4 * bp->d_model] - bz->hidden[4 * bz->d_model]), >, 1e-4);

  /* DistilBERT has no token types: the trace keeps none, the [SEP] splits */
  g_autoptr (AsTrace) dp = run_ids (distil, pair, 7, NULL, FALSE);
  g_assert_null (dp->type_ids);
  g_assert_cmpint (dp->segment_b_start, ==, 4);

  /* RoBERTa: "<s> A </s></s> B </s>", the second text is "</s> B </s>" */
  const int32_t rpair[] = { 0, 50, 60, 2, 2, 80, 2 };
  g_autoptr (AsTrace) rp = run_ids (roberta, rpair, 7, NULL, FALSE);
  g_assert_cmpint (rp->segment_b_start, ==, 4);
  g_assert_nonnull (rp->type_ids);
}

/* Masked predictions: the reference's logits at each <mask> position, ranked here. */
static void
test_masked_predictions (void)
{
  g_autofree char *dir = encoder_model ("roberta-mlm", encoder_roberta_mlm);
  if (dir == NULL)
    return;
  const char *seqs[] = { "0,50,299,60,299,2", NULL };
  g_autofree char *expected = encoder_expected (dir, seqs, "h5");
  if (expected == NULL)
    return;
  hid_t file = H5Fopen (expected, H5F_ACC_RDONLY, H5P_DEFAULT);
  hsize_t dims[] = { 6, 300 };
  g_autofree float *logits = trace_read_floats (file, "seq0", "logits", 2, dims);
  H5Fclose (file);

  g_autoptr (AsModel) model = as_model_load (dir, NULL);
  const int32_t ids[] = { 0, 50, 299, 60, 299, 2 };
  g_autoptr (AsTrace) t = run_ids (model, ids, 6, NULL, TRUE);
  int n = 0;
  g_autoptr (GError) error = NULL;
  AsMaskedPrediction *masks = as_predict_masked (t, as_model_get_tokenizer (model), 5, &n, &error);
  g_assert_no_error (error);
  g_assert_cmpint (n, ==, 2);
  for (int m = 0; m < n; m++)
    {
      g_assert_cmpint (masks[m].position, ==, m == 0 ? 2 : 4);
      g_assert_cmpint (masks[m].n_top, ==, 5);
      const float *row = logits + masks[m].position * 300; /* [V] */
      double max = -INFINITY, sum = 0;
      for (int v = 0; v < 300; v++)
        max = MAX (max, row[v]);
      for (int v = 0; v < 300; v++)
        sum += exp (row[v] - max);
      gboolean used[300] = { FALSE };
      for (int r = 0; r < 5; r++)
        {
          /* the reference's r-th best id (ties: lower id) */
          int best = -1;
          for (int v = 0; v < 300; v++)
            if (!used[v] && (best < 0 || row[v] > row[best]))
              best = v;
          used[best] = TRUE;
          g_assert_cmpint (masks[m].top[r].id, ==, best);
          g_assert_cmpfloat_with_epsilon (masks[m].top[r].logit, row[best], 1e-4);
          g_assert_cmpfloat_with_epsilon (masks[m].top[r].probability, exp (row[best] - max) / sum,
                                          1e-6);
        }
    }
  as_masked_predictions_free (masks, n);

  /* no mask in the input: the message names the token and its id */
  const int32_t plain[] = { 0, 50, 60, 2 };
  g_autoptr (AsTrace) p = run_ids (model, plain, 4, NULL, TRUE);
  g_assert_null (as_predict_masked (p, as_model_get_tokenizer (model), 5, &n, &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_INPUT);
  g_assert_nonnull (strstr (error->message, "no mask token <mask> (id 299)"));
}

/* An encoder trace's head statistics against the numpy reference with the trace's [CLS] and
 * [SEP] positions (RoBERTa's <s> and </s>). */
static void
test_stats_vs_numpy (void)
{
  g_autofree char *dir = encoder_model ("roberta-mlm", encoder_roberta_mlm);
  if (dir == NULL)
    return;
  g_autoptr (AsModel) model = as_model_load (dir, NULL);
  const int32_t ids[] = { 0, 50, 60, 70, 2, 2, 80, 90, 2 };
  g_autoptr (AsTrace) t = run_ids (model, ids, 9, NULL, FALSE);
  g_autoptr (AsHeadStats) s = as_head_stats_compute (t);
  g_assert_true (s->bidirectional);
  const int L = t->n_layer, H = t->n_head, T = 9, K = AS_HEAD_STAT_COUNT;
  g_autofree char *shape = g_strdup_printf ("%d,%d,%d,0", L, H, T);
  g_autofree float *expected = fixture_reference_run_args (
      "headstats", t->attn, (gsize) L * H * T * T, shape, "0", "4,5,8", (gsize) L * H * K);
  if (expected == NULL)
    return;
  g_autofree float *actual = g_new (float, L *H *K);
  for (int e = 0; e < L * H * K; e++)
    actual[e] = (float) s->values[e];
  check_close ("encoder head stats vs numpy", actual, expected, (gsize) L * H * K, 1e-6, 0);
}

/* --- truncation and bad input ------------------------------------------------------------------
 */

/* The cases of Hugging Face tokenizers' truncate_encodings_longest_first test (max_length 7). */
static void
test_truncate_rule (void)
{
  const int lengths[] = { 0, 2, 4, 8 };
  const int want[4][4][2] = {
    { { 0, 0 }, { 0, 2 }, { 0, 4 }, { 0, 7 } },
    { { 2, 0 }, { 2, 2 }, { 2, 4 }, { 2, 5 } },
    { { 4, 0 }, { 4, 2 }, { 3, 4 }, { 3, 4 } },
    { { 7, 0 }, { 5, 2 }, { 4, 3 }, { 3, 4 } },
  };
  for (int a = 0; a < 4; a++)
    for (int b = 0; b < 4; b++)
      {
        int ka = -1, kb = -1;
        as_truncate_longest_first (lengths[a], lengths[b], 7, &ka, &kb);
        g_assert_cmpint (ka, ==, want[a][b][0]);
        g_assert_cmpint (kb, ==, want[a][b][1]);
      }
  int ka, kb;
  as_truncate_longest_first (4, 4, 0, &ka, &kb); /* max_length 0 */
  g_assert_cmpint (ka + kb, ==, 0);
}

static GArray *
ids_array (const int32_t *ids, int n)
{
  GArray *a = g_array_sized_new (FALSE, FALSE, sizeof (int32_t), n);
  g_array_append_vals (a, ids, n);
  return a;
}

static void
test_truncate_input (void)
{
  g_autofree char *dir = encoder_model ("bert-mlm", encoder_bert_mlm);
  if (dir == NULL)
    return;
  g_autoptr (AsModel) model = as_model_load (dir, NULL);
  g_autoptr (GError) error = NULL;
  /* [CLS] a1..a6 [SEP] b1 b2 [SEP] in 8 tokens: 5 text tokens, B keeps 2, A keeps 3 */
  const int32_t pair[] = { 2, 10, 11, 12, 13, 14, 15, 3, 20, 21, 3 };
  const int32_t types[] = { 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1 };
  g_autoptr (GArray) ids = ids_array (pair, 11);
  g_autoptr (GArray) tys = ids_array (types, 11);
  g_assert_true (as_truncate_input (model, ids, tys, 8, &error));
  const int32_t want[] = { 2, 10, 11, 12, 3, 20, 21, 3 }, want_types[] = { 0, 0, 0, 0, 0, 1, 1, 1 };
  g_assert_cmpmem (ids->data, ids->len * 4, want, sizeof want);
  g_assert_cmpmem (tys->data, tys->len * 4, want_types, sizeof want_types);
  /* both long: 4 text tokens left, 2 each */
  const int32_t both[] = { 2, 10, 11, 12, 13, 3, 20, 21, 22, 23, 3 };
  g_autoptr (GArray) ids2 = ids_array (both, 11);
  g_autoptr (GArray) tys2 = ids_array (types, 11);
  g_array_index (tys2, int32_t, 6) = 1;
  g_array_index (tys2, int32_t, 7) = 1;
  g_assert_true (as_truncate_input (model, ids2, tys2, 7, &error));
  const int32_t want2[] = { 2, 10, 11, 3, 20, 21, 3 };
  g_assert_cmpmem (ids2->data, ids2->len * 4, want2, sizeof want2);
  /* a single text keeps its [SEP] */
  g_autoptr (GArray) one = ids_array (both, 6);
  g_assert_true (as_truncate_input (model, one, NULL, 4, &error));
  const int32_t want1[] = { 2, 10, 11, 3 };
  g_assert_cmpmem (one->data, one->len * 4, want1, sizeof want1);
  /* three special tokens do not fit in 2 */
  g_autoptr (GArray) ids3 = ids_array (pair, 11);
  g_assert_false (as_truncate_input (model, ids3, NULL, 2, &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_INPUT);
  g_assert_nonnull (strstr (error->message, "3 special tokens"));
}

static void
test_bad_input (void)
{
  g_autofree char *dir = encoder_model ("bert-mlm", encoder_bert_mlm);
  if (dir == NULL)
    return;
  g_autoptr (AsModel) model = as_model_load (dir, NULL);
  g_autoptr (GError) error = NULL;
  /* a pair longer than the context (40): both texts' lengths named */
  int32_t ids[45];
  int32_t types[45];
  for (int i = 0; i < 45; i++)
    {
      ids[i] = i == 0 ? 2 : (i == 20 || i == 44) ? 3 : 10 + i;
      types[i] = i > 20;
    }
  AsForwardOptions options = { .type_ids = types };
  g_assert_null (as_forward (model, ids, 45, &options, &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_INPUT);
  g_assert_nonnull (strstr (error->message, "the pair has 45 tokens (21 in the first text and 24 "
                                            "in the second"));
  g_assert_nonnull (strstr (error->message, "context length is 40"));
  g_clear_error (&error);
  /* a token type BERT does not have */
  types[3] = 2;
  g_assert_null (as_forward (model, ids, 10, &options, &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_INPUT);
  g_assert_nonnull (strstr (error->message, "token type 2 at position 3"));
  g_assert_nonnull (strstr (error->message, "(0..1)"));
}

/* Loads a copy of the bert-mlm model with config.json changed by SET ("key=<JSON>") and with
 * WEIGHTS only; expects an error of CODE whose message holds NEEDLE. */
static void
assert_config_fails (const char *weights, const char *set, int code, const char *needle)
{
  g_autofree char *dir = encoder_model ("bert-mlm", encoder_bert_mlm);
  if (dir == NULL)
    return;
  g_autofree char *copy = g_build_filename (test_tmpdir (), "bad-bert", NULL);
  g_mkdir_with_parents (copy, 0755);
  const char *files[] = { weights, "vocab.json", "merges.txt" };
  for (gsize i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *from = g_build_filename (dir, files[i], NULL);
      g_autofree char *to = g_build_filename (copy, files[i], NULL);
      g_autofree char *text = NULL;
      gsize length = 0;
      g_assert_true (g_file_get_contents (from, &text, &length, NULL));
      g_assert_true (g_file_set_contents (to, text, (gssize) length, NULL));
    }
  g_autofree char *config_in = g_build_filename (dir, "config.json", NULL);
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_assert_true (json_parser_load_from_file (parser, config_in, NULL));
  JsonObject *o = json_node_get_object (json_parser_get_root (parser));
  g_auto (GStrv) kv = g_strsplit (set, "=", 2);
  g_autoptr (JsonParser) value = json_parser_new ();
  g_assert_true (json_parser_load_from_data (value, kv[1], -1, NULL));
  json_object_set_member (o, kv[0], json_node_copy (json_parser_get_root (value)));
  g_autofree char *config_out = g_build_filename (copy, "config.json", NULL);
  g_autofree char *json = json_to_string (json_parser_get_root (parser), TRUE);
  g_assert_true (g_file_set_contents (config_out, json, -1, NULL));
  /* the other weight file of an earlier case must not be read */
  const char *other = g_str_equal (weights, "tf_model.h5") ? "model.safetensors" : "tf_model.h5";
  g_autofree char *stale = g_build_filename (copy, other, NULL);
  g_remove (stale);

  g_autoptr (GError) error = NULL;
  g_autoptr (AsModel) model = as_model_load (copy, &error);
  g_assert_null (model);
  g_assert_error (error, AS_ERROR, code);
  g_test_message ("%s, %s: %s", weights, set, error->message);
  g_assert_nonnull (strstr (error->message, needle));
}

static void
test_bad_weights_and_config (void)
{
  /* a layer the file lacks, named in each layout */
  assert_config_fails ("tf_model.h5", "num_hidden_layers=3", AS_ERROR_NOT_FOUND,
                       "'encoder/layer_._2/attention/self/query/kernel:0'");
  assert_config_fails ("model.safetensors", "num_hidden_layers=3", AS_ERROR_NOT_FOUND,
                       "'encoder.layer.2.attention.self.query.weight'");
  /* a misshaped weight: both shapes named */
  assert_config_fails ("tf_model.h5", "intermediate_size=50", AS_ERROR_SHAPE,
                       "intermediate/dense/kernel:0' has shape (32, 48), expected (32, 50)");
  assert_config_fails ("model.safetensors", "intermediate_size=50", AS_ERROR_SHAPE,
                       "bert.encoder.layer.0.intermediate.dense.weight' has shape (48, 32), "
                       "expected (50, 32)");
  assert_config_fails ("tf_model.h5", "type_vocab_size=3", AS_ERROR_SHAPE,
                       "token_type_embeddings/embeddings:0' has shape (2, 32), expected (3, 32)");
  /* variants this family does not implement */
  assert_config_fails ("tf_model.h5", "position_embedding_type=\"relative_key\"", AS_ERROR_CONFIG,
                       "position_embedding_type \"relative_key\" is not supported");
  assert_config_fails ("tf_model.h5", "is_decoder=true", AS_ERROR_CONFIG,
                       "is_decoder is true: a BERT used as a decoder is not supported");
  assert_config_fails ("tf_model.h5", "hidden_act=\"quick_gelu\"", AS_ERROR_CONFIG,
                       "key 'hidden_act' is \"quick_gelu\"");
  assert_config_fails ("tf_model.h5", "num_attention_heads=5", AS_ERROR_CONFIG,
                       "hidden_size (32) is not divisible by num_attention_heads (5)");
}

/* A model without its masked-LM head runs for attention only. */
static void
test_no_head (void)
{
  const char *args[] = { "--family",       "bert", "--head",      "none", "--layers",        "1",
                         "--heads",        "2",    "--hidden",    "8",    "--vocab",         "300",
                         "--intermediate", "16",   "--positions", "12",   "--bpe-tokenizer", NULL };
  g_autofree char *dir = encoder_model ("bert-none", args);
  if (dir == NULL)
    return;
  g_autoptr (GError) error = NULL;
  g_autoptr (AsModel) model = as_model_load (dir, &error);
  g_assert_no_error (error);
  g_assert_false (as_model_get_config (model)->masked_lm);
  g_assert_false (as_model_get_config (model)->causal_lm);
  const int32_t ids[] = { 2, 4, 3 };
  g_autoptr (AsTrace) t = run_ids (model, ids, 3, NULL, TRUE);
  g_assert_cmpint (t->vocab_size, ==, 0);
  g_assert_null (t->logits);
  int n = 0;
  g_assert_null (as_predict_masked (t, as_model_get_tokenizer (model), 3, &n, &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_INPUT);
  g_assert_nonnull (strstr (error->message, "no masked-LM head"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  H5Eset_auto2 (H5E_DEFAULT, NULL, NULL);
  g_test_add_func ("/core/encoder/truncate-rule", test_truncate_rule);
  g_test_add_data_func ("/core/encoder/bert-h5", "h5", test_bert);
  g_test_add_data_func ("/core/encoder/bert-safetensors", "safetensors", test_bert);
  g_test_add_data_func ("/core/encoder/distilbert-h5", "h5", test_distilbert);
  g_test_add_data_func ("/core/encoder/distilbert-safetensors", "safetensors", test_distilbert);
  g_test_add_data_func ("/core/encoder/roberta-h5", "h5", test_roberta);
  g_test_add_data_func ("/core/encoder/roberta-safetensors", "safetensors", test_roberta);
  for (gsize i = 0; i < G_N_ELEMENTS (variants); i++)
    {
      g_autofree char *path = g_strdup_printf ("/core/encoder/layout/%s", variants[i].name);
      g_test_add_data_func (path, &variants[i], test_variant);
    }
  g_test_add_func ("/core/encoder/shipped-mini-bert", test_shipped_mini_bert);
  g_test_add_func ("/core/encoder/segments", test_segments);
  g_test_add_func ("/core/encoder/masked-predictions", test_masked_predictions);
  g_test_add_func ("/core/encoder/stats-vs-numpy", test_stats_vs_numpy);
  g_test_add_func ("/core/encoder/truncate-input", test_truncate_input);
  g_test_add_func ("/core/encoder/bad-input", test_bad_input);
  g_test_add_func ("/core/encoder/bad-weights-and-config", test_bad_weights_and_config);
  g_test_add_func ("/core/encoder/no-head", test_no_head);
  int status = g_test_run ();
  test_tmpdir_cleanup ();
  return status;
}
