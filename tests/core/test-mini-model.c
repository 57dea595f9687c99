/* test-mini-model.c — the shipped default model data/models/attnscope-mini.
 *
 * - It is the default: as_model_load(NULL) finds it by name, with the shape its README states.
 * - Its own byte-level BPE: every held-out line (data/models/attnscope-mini/heldout.txt) is
 *   tokenized by the core exactly as the independent encoder tests/reference/bpe_reference.py
 *   does, id for id, and decodes back to the line; plus fixed known ids.
 * - Its forward pass matches the PyTorch reference (tests/reference/gpt2_reference.py expected)
 *   on held-out sentences within the core's tolerances (tests/README.md, "Tolerances"): attention
 * within 1e-5 absolute; hidden states, contexts and logits within 1e-4 relative plus 1e-5·rms
 * absolute (the same rule as test-forward.c).
 * - Its head patterns: aggregated by the core over the first held-out lines, every head's
 *   previous- and first-token shares equal the ones metrics.json records for those lines
 *   (computed in PyTorch by data/train-mini/evaluate.py) within 1e-4; some head attends to the
 *   previous token and some head to the first token with a mean share >= 0.5 each (what the
 *   model was trained to show),
 *   on those lines and over the whole file. */
#include <hdf5.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "as-forward.h"
#include "as-head-stats.h"
#include "as-model.h"
#include "check-close.h"
#include "cli-support.h"

#define ATTN_ATOL 1e-5
#define VEC_RTOL 1e-4
#define VEC_ATOL_PER_RMS 1e-5
#define SHARE_ATOL 1e-4

static char *model_dir;

static AsModel *
load_mini (void)
{
  g_autoptr (GError) error = NULL;
  AsModel *model = as_model_load (model_dir, &error);
  g_assert_no_error (error);
  g_assert_nonnull (model);
  return model;
}

/* The held-out lines (without newlines); blank lines are not expected in the file. */
static GStrv
read_heldout (void)
{
  g_autofree char *path = g_build_filename (model_dir, "heldout.txt", NULL);
  g_autofree char *contents = NULL;
  g_autoptr (GError) error = NULL;
  g_file_get_contents (path, &contents, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (g_str_has_suffix (contents, "\n"));
  contents[strlen (contents) - 1] = '\0';
  return g_strsplit (contents, "\n", -1);
}

static GArray *
encode (AsModel *model, const char *text)
{
  g_autoptr (GError) error = NULL;
  GArray *ids = as_tokenizer_encode (as_model_get_tokenizer (model), text, -1, &error);
  g_assert_no_error (error);
  return ids;
}

/* --- the default model ----------------------------------------------------------------------- */

static void
test_default (void)
{
  g_assert_cmpstr (as_model_default_name (), ==, "attnscope-mini");
  g_autoptr (GError) error = NULL;
  g_autoptr (AsModel) model = as_model_load (NULL, &error);
  g_assert_no_error (error);
  g_autofree char *want = g_canonicalize_filename (model_dir, NULL);
  g_assert_cmpstr (as_model_get_path (model), ==, want);
  const AsConfig *c = as_model_get_config (model);
  g_assert_cmpstr (c->family, ==, "gpt2");
  g_assert_cmpint (c->n_layer, ==, 4);
  g_assert_cmpint (c->n_head, ==, 8);
  g_assert_cmpint (c->n_embd, ==, 128);
  g_assert_cmpint (c->n_inner, ==, 512);
  g_assert_cmpint (c->n_positions, ==, 128);
  g_assert_cmpint (c->vocab_size, ==, 6000);
  g_assert_cmpint (c->bos_token_id, ==, 5999);
  g_assert_cmpint (c->eos_token_id, ==, 5999);
  /* wte 6000·128 + wpe 128·128 + 4 blocks · 197,760 + ln_f 256 */
  g_assert_cmpint (as_model_get_n_params (model), ==, 1577728);
  g_assert_cmpstr (as_tokenizer_get_token (as_model_get_tokenizer (model), 5999), ==,
                   "<|endoftext|>");
}

/* --- tokenizer ------------------------------------------------------------------------------- */

static void
assert_ids (AsModel *model, const char *text, const int32_t *want, guint n)
{
  g_autoptr (GArray) ids = encode (model, text);
  g_assert_cmpmem (ids->data, ids->len * sizeof (int32_t), want, n * sizeof (int32_t));
}

static void
test_known_ids (void)
{
  g_autoptr (AsModel) model = load_mini ();
  const int32_t man_car[] = { 305, 446, 2880, 269, 641 };
  assert_ids (model, "The man hit the car", man_car, G_N_ELEMENTS (man_car));
  const int32_t car_man[] = { 305, 641, 2880, 269, 446, 13 };
  assert_ids (model, "The car hit the man.", car_man, G_N_ELEMENTS (car_man));
  /* non-ASCII bytes, a number and a contraction */
  const int32_t mixed[] = { 4997, 127, 107, 876, 570, 69, 127, 102, 2458, 17, 3419, 1336 };
  assert_ids (model, "naïve café 42 don't", mixed, G_N_ELEMENTS (mixed));
  /* the byte symbols come first in GPT-2's table order: space is id 220 */
  g_assert_cmpint (as_tokenizer_lookup (as_model_get_tokenizer (model), "\xc4\xa0"), ==, 220);
}

/* The reference encoder itself reproduces GPT-2's published ids (core/tokenizers/README.md,
 * "Tokenizers") with GPT-2's own vocabulary (tests/fixtures/gpt2-tokenizer), so agreeing with it
 * means something. */
static void
test_reference_knows_gpt2 (void)
{
  const char *py = test_python_with ("regex");
  if (py == NULL)
    return;
  g_autofree char *script = test_source_path ("tests/reference/bpe_reference.py");
  g_autofree char *gpt2 = test_source_path ("tests/fixtures/gpt2-tokenizer");
  const char *argv[] = { py,       script,
                         "encode", gpt2,
                         "--text", "May the force be with you.",
                         "--text", " Hello world",
                         "--text", "The man hit the car",
                         NULL };
  g_autofree char *out = NULL, *err = NULL;
  g_assert_cmpint (test_spawn (argv, &out, &err), ==, 0);
  g_assert_cmpstr (out, ==,
                   "[6747, 262, 2700, 307, 351, 345, 13]\n[18435, 995]\n"
                   "[464, 582, 2277, 262, 1097]\n");
}

static void
test_heldout_matches_reference (void)
{
  const char *py = test_python_with ("regex");
  if (py == NULL)
    return;
  g_autofree char *script = test_source_path ("tests/reference/bpe_reference.py");
  g_autofree char *heldout = g_build_filename (model_dir, "heldout.txt", NULL);
  const char *argv[] = { py, script, "encode", model_dir, "--lines", heldout, NULL };
  g_autofree char *out = NULL, *err = NULL;
  int status = test_spawn (argv, &out, &err);
  if (status != 0)
    g_test_message ("bpe_reference.py failed: %s", err);
  g_assert_cmpint (status, ==, 0);

  g_autoptr (AsModel) model = load_mini ();
  g_auto (GStrv) lines = read_heldout ();
  g_auto (GStrv) expected = g_strsplit (out, "\n", -1);
  guint n = g_strv_length (lines);
  g_assert_cmpuint (n, >=, 1000);
  g_assert_cmpuint (g_strv_length (expected), ==, n + 1); /* trailing newline */
  gsize total = 0;
  for (guint i = 0; i < n; i++)
    {
      g_autoptr (GArray) ids = encode (model, lines[i]);
      g_autoptr (JsonNode) node = parse_json (expected[i]);
      JsonArray *want = json_node_get_array (node);
      if (ids->len != json_array_get_length (want))
        g_test_message ("line %u \"%s\": %u ids, the reference has %u", i + 1, lines[i], ids->len,
                        json_array_get_length (want));
      g_assert_cmpuint (ids->len, ==, json_array_get_length (want));
      for (guint t = 0; t < ids->len; t++)
        {
          int32_t id = g_array_index (ids, int32_t, t);
          if (id != json_array_get_int_element (want, t))
            g_test_message ("line %u \"%s\": token %u differs", i + 1, lines[i], t);
          g_assert_cmpint (id, ==, json_array_get_int_element (want, t));
        }
      g_autofree char *back
          = as_tokenizer_decode (as_model_get_tokenizer (model), (int32_t *) ids->data, ids->len);
      g_assert_cmpstr (back, ==, lines[i]);
      total += ids->len;
    }
  g_test_message ("%u held-out lines, %" G_GSIZE_FORMAT " tokens identical", n, total);
  g_assert_cmpuint (total, >, 10 * n);
}

/* --- forward pass ---------------------------------------------------------------------------- */

static float *
read_dataset (hid_t file, const char *group, const char *name, gsize n)
{
  g_autofree char *path = g_strdup_printf ("/%s/%s", group, name);
  hid_t ds = H5Dopen2 (file, path, H5P_DEFAULT);
  g_assert_cmpint (ds, >=, 0);
  hid_t space = H5Dget_space (ds);
  g_assert_cmpint (H5Sget_simple_extent_npoints (space), ==, (hssize_t) n);
  float *data = g_new (float, n);
  g_assert_cmpint (H5Dread (ds, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), >=, 0);
  H5Sclose (space);
  H5Dclose (ds);
  return data;
}

static double
rms (const float *x, gsize n)
{
  double s = 0;
  for (gsize i = 0; i < n; i++)
    s += (double) x[i] * x[i];
  return n ? sqrt (s / n) : 0;
}

static void
compare_vectors (const char *label, const char *name, const float *actual, hid_t file,
                 const char *group, gsize n)
{
  g_autofree float *expected = read_dataset (file, group, name, n);
  g_autofree char *what = g_strdup_printf ("%s %s", label, name);
  g_assert_true (
      check_close (what, actual, expected, n, VEC_ATOL_PER_RMS * rms (expected, n), VEC_RTOL));
}

/* Runs the core on SEQS and compares with the reference's outputs in EXPECTED_PATH. */
static void
compare_with_reference (AsModel *model, GPtrArray *seqs, const char *expected_path)
{
  H5Eset_auto2 (H5E_DEFAULT, NULL, NULL);
  hid_t file = H5Fopen (expected_path, H5F_ACC_RDONLY, H5P_DEFAULT);
  g_assert_cmpint (file, >=, 0);
  for (guint s = 0; s < seqs->len; s++)
    {
      GArray *ids = g_ptr_array_index (seqs, s);
      g_autofree char *group = g_strdup_printf ("seq%u", s);
      g_autofree char *label = g_strdup_printf ("held-out %s (T=%u)", group, ids->len);
      AsForwardOptions all = { .all_logits = TRUE };
      g_autoptr (GError) error = NULL;
      g_autoptr (AsTrace) t
          = as_forward (model, (int32_t *) ids->data, (int) ids->len, &all, &error);
      g_assert_no_error (error);
      gsize L = t->n_layer, H = t->n_head, T = t->n_tokens, D = t->d_model, hd = t->head_dim;
      g_autofree float *attn = read_dataset (file, group, "attentions", L * H * T * T);
      g_autofree char *what = g_strdup_printf ("%s attentions", label);
      g_assert_true (check_close (what, t->attn, attn, L * H * T * T, ATTN_ATOL, 0.0));
      compare_vectors (label, "contexts", t->ctx, file, group, L * H * T * hd);
      compare_vectors (label, "hidden_states", t->hidden, file, group, (L + 1) * T * D);
      compare_vectors (label, "logits", t->logits, file, group, T * (gsize) t->vocab_size);
    }
  H5Fclose (file);
}

static void
test_forward_matches_reference (void)
{
  const char *py = test_python_with ("torch, h5py, numpy");
  if (py == NULL)
    return;
  g_autoptr (AsModel) model = load_mini ();
  g_auto (GStrv) lines = read_heldout ();
  /* the first five held-out lines and the longest one */
  guint longest = 0;
  for (guint i = 1; lines[i] != NULL; i++)
    if (strlen (lines[i]) > strlen (lines[longest]))
      longest = i;
  guint picks[] = { 0, 1, 2, 3, 4, longest };
  g_autoptr (GPtrArray) seqs = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  g_autoptr (GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (argv, g_strdup (py));
  g_ptr_array_add (argv, test_source_path ("tests/reference/gpt2_reference.py"));
  g_ptr_array_add (argv, g_strdup ("expected"));
  g_ptr_array_add (argv, g_strdup (model_dir));
  g_autofree char *expected = g_build_filename (test_tmpdir (), "mini-expected.h5", NULL);
  g_ptr_array_add (argv, g_strdup (expected));
  for (guint p = 0; p < G_N_ELEMENTS (picks); p++)
    {
      GArray *ids = encode (model, lines[picks[p]]);
      g_assert_cmpuint (ids->len, >=, 2);
      GString *list = g_string_new (NULL);
      for (guint t = 0; t < ids->len; t++)
        g_string_append_printf (list, t ? ",%d" : "%d", g_array_index (ids, int32_t, t));
      g_ptr_array_add (argv, g_strdup ("--ids"));
      g_ptr_array_add (argv, g_string_free (list, FALSE));
      g_ptr_array_add (seqs, ids);
    }
  g_assert_cmpuint (((GArray *) g_ptr_array_index (seqs, 5))->len, >=, 40);
  g_ptr_array_add (argv, NULL);
  g_autofree char *out = NULL, *err = NULL;
  int status = test_spawn ((const char *const *) argv->pdata, &out, &err);
  if (status != 0)
    g_test_message ("gpt2_reference.py expected failed: %s", err);
  g_assert_cmpint (status, ==, 0);
  compare_with_reference (model, seqs, expected);
}

/* --- head patterns --------------------------------------------------------------------------- */

/* Head statistics of the core over the first subset_lines held-out lines (a subset keeps the
 * test fast; metrics.json records the PyTorch values for it and for the whole file). */
static void
test_head_patterns (void)
{
  g_autofree char *path = g_build_filename (model_dir, "metrics.json", NULL);
  g_autoptr (JsonNode) root = read_json_file (path);
  g_autoptr (GError) error = NULL;
  JsonObject *metrics = json_node_get_object (root);
  int n_lines = (int) json_object_get_int_member (metrics, "subset_lines");
  g_assert_cmpint (n_lines, >=, 100);

  g_autoptr (AsModel) model = load_mini ();
  g_auto (GStrv) lines = read_heldout ();
  g_assert_cmpint (n_lines, <=, (int) g_strv_length (lines));
  g_autoptr (AsHeadStatsAccumulator) acc = as_head_stats_accumulator_new ();
  for (int i = 0; i < n_lines; i++)
    {
      g_autoptr (AsTrace) t = as_forward_text (model, lines[i], FALSE, NULL, &error);
      g_assert_no_error (error);
      g_assert_true (as_head_stats_accumulate (acc, t, &error));
    }
  g_autoptr (AsHeadStats) stats = as_head_stats_accumulator_finish (acc, &error);
  g_assert_no_error (error);
  g_assert_cmpint (stats->n_traces, ==, n_lines);

  double best_previous = 0, best_first = 0;
  for (int l = 0; l < stats->n_layer; l++)
    for (int h = 0; h < stats->n_head; h++)
      {
        const double *v = stats->values + ((gsize) l * stats->n_head + h) * AS_HEAD_STAT_COUNT;
        double previous = v[AS_HEAD_STAT_PREVIOUS], first = v[AS_HEAD_STAT_FIRST];
        g_assert_cmpfloat_with_epsilon (
            previous, json_table_get (metrics, "subset_head_previous", l, h), SHARE_ATOL);
        g_assert_cmpfloat_with_epsilon (first, json_table_get (metrics, "subset_head_first", l, h),
                                        SHARE_ATOL);
        best_previous = MAX (best_previous, previous);
        best_first = MAX (best_first, first);
      }
  g_test_message ("%d lines: best previous-token share %.4f, best first-token share %.4f", n_lines,
                  best_previous, best_first);
  /* The same best heads over the whole held-out file, as the README states them. */
  JsonObject *bp = json_object_get_object_member (metrics, "best_previous_head");
  JsonObject *bf = json_object_get_object_member (metrics, "best_first_head");
  double full_previous = json_object_get_double_member (bp, "value");
  double full_first = json_object_get_double_member (bf, "value");
  g_assert_cmpfloat (full_previous, >, 0);
  g_assert_cmpfloat (full_first, >, 0);
  /* The model's purpose: a previous-token head and a first-token head with a mean share of at
   * least 0.5. */
  g_assert_cmpfloat (best_previous, >=, 0.5);
  g_assert_cmpfloat (full_previous, >=, 0.5);
  g_assert_cmpfloat (best_first, >=, 0.5);
  g_assert_cmpfloat (full_first, >=, 0.5);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  model_dir = test_source_path ("data/models/attnscope-mini");
  g_test_add_func ("/core/mini-model/default", test_default);
  g_test_add_func ("/core/mini-model/tokenizer/known-ids", test_known_ids);
  g_test_add_func ("/core/mini-model/tokenizer/reference-knows-gpt2", test_reference_knows_gpt2);
  g_test_add_func ("/core/mini-model/tokenizer/heldout-matches-reference",
                   test_heldout_matches_reference);
  g_test_add_func ("/core/mini-model/forward/matches-reference", test_forward_matches_reference);
  g_test_add_func ("/core/mini-model/heads/previous-and-first", test_head_patterns);
  int status = g_test_run ();
  test_tmpdir_cleanup ();
  g_free (model_dir);
  return status;
}
