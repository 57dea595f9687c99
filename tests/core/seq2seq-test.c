/* seq2seq-test.c — the forward pass and generation compared with the reference for the
 * encoder–decoder tests (seq2seq-test.h). */
#include "seq2seq-test.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "as-translate.h"
#include "marian-fixtures.h"

GArray *
seq2seq_parse_ids (const char *text)
{
  GArray *ids = g_array_new (FALSE, FALSE, sizeof (int32_t));
  g_auto (GStrv) parts = g_strsplit (text, ",", -1);
  for (char **p = parts; *p != NULL; p++)
    {
      int32_t id = (int32_t) g_ascii_strtoll (*p, NULL, 10);
      g_array_append_val (ids, id);
    }
  return ids;
}

GArray *
seq2seq_check_generate (AsModel *model, const char *dir, const char *name,
                        Seq2seqGenerated generated, const char *src, int beams, int max_length)
{
  g_autofree char *path = generated (dir, src, beams, max_length);
  if (path == NULL)
    return NULL;
  GError *error = NULL;
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_assert_true (json_parser_load_from_file (parser, path, &error));
  JsonObject *want = json_node_get_object (json_parser_get_root (parser));
  g_autoptr (GArray) want_ids = marian_json_ids (json_object_get_array_member (want, "ids"));
  g_autoptr (GArray) src_ids = seq2seq_parse_ids (src);
  AsTranslateOptions options = { .num_beams = beams, .max_length = max_length };
  g_autoptr (AsTranslation) got
      = as_translate (model, (int32_t *) src_ids->data, (int) src_ids->len, &options, &error);
  g_assert_no_error (error);
  g_test_message ("%s: %d beams, max_length %d: %u ids", name, got->num_beams, got->max_length,
                  want_ids->len);
  g_assert_cmpint (got->num_beams, ==, json_object_get_int_member (want, "beams"));
  g_assert_cmpmem (got->ids->data, got->ids->len * 4, want_ids->data, want_ids->len * 4);
  JsonNode *score = json_object_get_member (want, "score");
  if (JSON_NODE_HOLDS_NULL (score))
    g_assert_true (isnan (got->score));
  else
    g_assert_cmpfloat_with_epsilon (got->score, json_node_get_double (score), 1e-4);
  return g_array_ref (got->ids);
}

void
seq2seq_compare_generate (const char *dir, const char *name, Seq2seqGenerated generated,
                          Seq2seqIds ids, int vocab, const Seq2seqCase *cases, int n)
{
  if (dir == NULL)
    return;
  GError *error = NULL;
  g_autoptr (AsModel) model = as_model_load (dir, &error);
  g_assert_no_error (error);
  for (int i = 0; i < n; i++)
    {
      g_autofree char *src = ids (cases[i].src_len, vocab, 500 + (guint32) i, TRUE);
      g_autoptr (GArray) got = seq2seq_check_generate (model, dir, name, generated, src,
                                                       cases[i].beams, cases[i].max_length);
      if (got == NULL)
        return;
    }
}

/* Every row of P [rows][n_cols] sums to 1; with CAUSAL (rows of T columns, T a square's side)
 * the future is exactly 0. */
static void
check_rows (const char *what, const float *p, gsize n_rows, int n_cols, gboolean causal)
{
  for (gsize r = 0; r < n_rows; r++)
    {
      const float *row = p + r * n_cols;
      double sum = 0;
      for (int j = 0; j < n_cols; j++)
        {
          sum += row[j];
          if (causal && j > (int) (r % n_cols) && row[j] != 0.0f)
            {
              g_test_message ("%s: row %zu column %d is %g, expected exactly 0", what, r, j,
                              row[j]);
              g_test_fail ();
              return;
            }
        }
      if (fabs (sum - 1.0) > 1e-5)
        {
          g_test_message ("%s: row %zu sums to %.7f", what, r, sum);
          g_test_fail ();
          return;
        }
    }
}

AsTrace *
seq2seq_compare_group (AsModel *model, hid_t file, const char *group, const char *label)
{
  g_autoptr (GArray) src = marian_read_ids (file, group, "source_ids");
  g_autoptr (GArray) tgt = marian_read_ids (file, group, "target_ids");
  g_assert_nonnull (src);
  g_assert_nonnull (tgt);
  AsForwardOptions options = { .all_logits = TRUE };
  GError *error = NULL;
  AsTrace *t = as_forward_translation (model, (int32_t *) src->data, (int) src->len,
                                       (int32_t *) tgt->data, (int) tgt->len, &options, &error);
  g_assert_no_error (error);
  const AsTrace *e = t->source;
  g_assert_nonnull (e);
  hsize_t S = e->n_tokens, T = t->n_tokens, D = t->d_model, V = t->vocab_size;
  hsize_t ea[] = { e->n_layer, e->n_head, S, S }, da[] = { t->n_layer, t->n_head, T, T };
  hsize_t ca[] = { t->n_layer, t->n_head, T, S };
  hsize_t eh[] = { e->n_layer + 1, S, D }, dh[] = { t->n_layer + 1, T, D };
  hsize_t lg[] = { T, V };
  g_autofree float *x_ea = marian_read_floats (file, group, "encoder_attentions", 4, ea);
  g_autofree float *x_da = marian_read_floats (file, group, "decoder_attentions", 4, da);
  g_autofree float *x_ca = marian_read_floats (file, group, "cross_attentions", 4, ca);
  g_autofree float *x_eh = marian_read_floats (file, group, "encoder_hidden_states", 3, eh);
  g_autofree float *x_dh = marian_read_floats (file, group, "decoder_hidden_states", 3, dh);
  g_autofree float *x_lg = marian_read_floats (file, group, "logits", 2, lg);
  g_assert_true (x_ea && x_da && x_ca && x_eh && x_dh && x_lg);

  g_autofree char *l = g_strdup_printf ("%s %s (S %d, T %d)", label, group, (int) S, (int) T);
  g_autofree char *w1 = g_strconcat (l, " encoder_attentions", NULL);
  g_autofree char *w2 = g_strconcat (l, " decoder_attentions", NULL);
  g_autofree char *w3 = g_strconcat (l, " cross_attentions", NULL);
  g_assert_true (marian_check_attention (w1, e->attn, x_ea, e->n_layer * e->n_head * S * S));
  g_assert_true (marian_check_attention (w2, t->attn, x_da, t->n_layer * t->n_head * T * T));
  g_assert_true (marian_check_attention (w3, t->cross_attn, x_ca, t->n_layer * t->n_head * T * S));
  g_assert_true (
      marian_check_vectors ("encoder_hidden_states", e->hidden, x_eh, (e->n_layer + 1) * S * D));
  g_assert_true (
      marian_check_vectors ("decoder_hidden_states", t->hidden, x_dh, (t->n_layer + 1) * T * D));
  g_assert_true (marian_check_vectors ("logits", t->logits, x_lg, T * V));
  check_rows (w1, e->attn, e->n_layer * e->n_head * S, S, FALSE);
  check_rows (w2, t->attn, t->n_layer * t->n_head * T, T, TRUE);
  check_rows (w3, t->cross_attn, t->n_layer * t->n_head * T, S, FALSE);
  return t;
}

void
seq2seq_compare_model (const char *dir, Seq2seqExpected expected, Seq2seqIds ids, int vocab,
                       const char *label, Seq2seqExtraCheck extra)
{
  if (dir == NULL)
    return;
  int lengths[][2] = { { 1, 1 }, { 13, 7 }, { 257, 256 } };
  char *src[3], *tgt[3];
  for (int i = 0; i < 3; i++)
    {
      src[i] = ids (lengths[i][0], vocab, 11 + (guint32) i, lengths[i][0] > 1);
      tgt[i] = ids (lengths[i][1], vocab, 101 + (guint32) i, FALSE);
    }
  g_autofree char *path = expected (dir, (const char *const *) src, (const char *const *) tgt, 3);
  for (int i = 0; i < 3; i++)
    g_free (src[i]), g_free (tgt[i]);
  if (path == NULL)
    return;
  GError *error = NULL;
  g_autoptr (AsModel) model = as_model_load (dir, &error);
  g_assert_no_error (error);
  hid_t file = H5Fopen (path, H5F_ACC_RDONLY, H5P_DEFAULT);
  g_assert_cmpint (file, >=, 0);
  for (int n = 0; n < 3; n++)
    {
      g_autofree char *group = g_strdup_printf ("seq%d", n);
      g_autoptr (AsTrace) t = seq2seq_compare_group (model, file, group, label);
      if (extra != NULL)
        extra (t, file, group);
    }
  H5Fclose (file);
}

char *
seq2seq_edited_copy (const char *dir, const char *name, const char *key, const char *value)
{
  const char *skip[] = { "config.json", NULL };
  char *copy = marian_copy_model (dir, name, skip);
  g_autofree char *from = g_build_filename (dir, "config.json", NULL);
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (from, &text, NULL, NULL));
  g_autofree char *needle = g_strdup_printf ("\"%s\": ", key);
  char *at = strstr (text, needle);
  g_assert_nonnull (at);
  char *end = strpbrk (at + strlen (needle), ",\n");
  g_autofree char *head = g_strndup (text, at - text);
  g_autofree char *out = g_strdup_printf ("%s%s%s%s", head, needle, value, end);
  g_autofree char *to = g_build_filename (copy, "config.json", NULL);
  g_assert_true (g_file_set_contents (to, out, -1, NULL));
  return copy;
}
