/* test-cli-translate.c — translation models on the command line, against the PyTorch reference's
 * fixtures (tests/reference/make_marian_fixtures.py): `run --ids --target-ids --dump` writes
 * transformers' six arrays within the tolerances of tests/README.md, `run --text --target` uses
 * the tokenizer's ids, `translate --json` gives generate()'s ids for greedy and beam search,
 * `stats --kind cross` the statistics recomputed here from the dumped cross-attention, `export
 * --kind` the encoder's or the decoder's figure; bad input fails with a message naming it. */
#include <glib/gstdio.h>
#include <hdf5.h>
#include <math.h>
#include <string.h>

#include "check-close.h"
#include "cli-support.h"
#include "marian-fixtures.h"

/* "1,2,3" of the JSON array of ids A. */
static char *
ids_arg (JsonArray *a)
{
  GString *s = g_string_new (NULL);
  for (guint i = 0; i < json_array_get_length (a); i++)
    g_string_append_printf (s, "%s%" G_GINT64_FORMAT, i ? "," : "",
                            json_array_get_int_element (a, i));
  return g_string_free (s, FALSE);
}

static float *
read_all (hid_t file, const char *name, int rank, hsize_t *dims)
{
  return marian_read_floats (file, NULL, name, rank, dims);
}

/* Dumps pair N of the expected section NAME and compares every array with the reference's. */
static void
check_dump (const char *name, guint n)
{
  JsonObject *e = json_node_get_object (marian_fixture ("expected", name));
  JsonObject *pair = json_array_get_object_element (json_object_get_array_member (e, "pairs"), n);
  JsonArray *src = json_object_get_array_member (pair, "source_ids");
  JsonArray *tgt = json_object_get_array_member (pair, "target_ids");
  g_autofree char *src_arg = ids_arg (src), *tgt_arg = ids_arg (tgt);
  g_autofree char *out = g_strdup_printf ("%s/%s-%u.h5", test_tmpdir (), name, n);
  g_auto (Run) r = run_cli ("run", "--model", json_object_get_string_member (e, "model"), "--ids",
                            src_arg, "--target-ids", tgt_arg, "--dump", out, NULL);
  g_assert_cmpint (r.status, ==, 0);

  hsize_t S = json_array_get_length (src), T = json_array_get_length (tgt);
  hid_t got = H5Fopen (out, H5F_ACC_RDONLY, H5P_DEFAULT);
  hid_t want = H5Fopen (json_object_get_string_member (e, "expected"), H5F_ACC_RDONLY, H5P_DEFAULT);
  g_assert_cmpint (got, >=, 0);
  g_assert_cmpint (want, >=, 0);
  g_autofree char *group = g_strdup_printf ("seq%u", n);
  g_autoptr (GArray) ids = marian_read_ids (got, NULL, "source_ids");
  g_autoptr (GArray) tids = marian_read_ids (got, NULL, "target_ids");
  g_assert_cmpuint (ids->len, ==, S);
  g_assert_cmpuint (tids->len, ==, T);
  for (guint i = 0; i < S; i++)
    g_assert_cmpint (g_array_index (ids, int32_t, i), ==, json_array_get_int_element (src, i));
  for (guint i = 0; i < T; i++)
    g_assert_cmpint (g_array_index (tids, int32_t, i), ==, json_array_get_int_element (tgt, i));

  static const char *const names[]
      = { "encoder_attentions",    "decoder_attentions",    "cross_attentions",
          "encoder_hidden_states", "decoder_hidden_states", "logits" };
  static const int ranks[] = { 4, 4, 4, 3, 3, 2 };
  for (guint k = 0; k < G_N_ELEMENTS (names); k++)
    {
      /* the reference's shape, then ours must have it too */
      g_autofree char *path = g_strdup_printf ("%s/%s", group, names[k]);
      hid_t d = H5Dopen2 (want, path, H5P_DEFAULT);
      g_assert_cmpint (d, >=, 0);
      hid_t space = H5Dget_space (d);
      hsize_t dims[4];
      g_assert_cmpint (H5Sget_simple_extent_ndims (space), ==, ranks[k]);
      H5Sget_simple_extent_dims (space, dims, NULL);
      H5Sclose (space);
      H5Dclose (d);
      gsize n_values = 1;
      for (int i = 0; i < ranks[k]; i++)
        n_values *= dims[i];
      g_autofree float *expected = marian_read_floats (want, group, names[k], ranks[k], dims);
      g_autofree float *actual = read_all (got, names[k], ranks[k], dims);
      g_assert_nonnull (expected);
      g_assert_nonnull (actual);
      g_autofree char *what = g_strdup_printf ("%s pair %u %s", name, n, names[k]);
      gboolean ok = k < 3 ? marian_check_attention (what, actual, expected, n_values)
                          : marian_check_vectors (what, actual, expected, n_values);
      g_assert_true (ok);
    }
  H5Fclose (got);
  H5Fclose (want);
}

static void
test_run_ids (void)
{
  JsonNode *node = marian_fixture ("expected", "small");
  if (node == NULL)
    return;
  JsonArray *pairs = json_object_get_array_member (json_node_get_object (node), "pairs");
  for (guint n = 0; n < json_array_get_length (pairs); n++)
    check_dump ("small", n);
}

/* --text/--target tokenizes as MarianTokenizer (source, and text_target with the start token
 * before it), which the reference wrote as the shipped pairs' ids. */
static void
test_run_text (void)
{
  JsonNode *node = marian_fixture ("expected", "shipped");
  if (node == NULL)
    return;
  JsonObject *e = json_node_get_object (node);
  JsonArray *texts = json_object_get_array_member (e, "texts");
  JsonArray *pairs = json_object_get_array_member (e, "pairs");
  for (guint n = 0; n < json_array_get_length (texts); n++)
    {
      JsonArray *t = json_array_get_array_element (texts, n);
      JsonObject *pair = json_array_get_object_element (pairs, n);
      g_autofree char *out = g_strdup_printf ("%s/shipped-text-%u.h5", test_tmpdir (), n);
      g_auto (Run) r = run_cli ("run", "--model", json_object_get_string_member (e, "model"),
                                "--text", json_array_get_string_element (t, 0), "--target",
                                json_array_get_string_element (t, 1), "--dump", out, NULL);
      g_assert_cmpint (r.status, ==, 0);
      g_assert_nonnull (strstr (r.out, "source and"));
      hid_t got = H5Fopen (out, H5F_ACC_RDONLY, H5P_DEFAULT);
      g_assert_cmpint (got, >=, 0);
      const char *sides[] = { "source_ids", "target_ids" };
      for (int s = 0; s < 2; s++)
        {
          g_autoptr (GArray) ids = marian_read_ids (got, NULL, sides[s]);
          JsonArray *want = json_object_get_array_member (pair, sides[s]);
          g_assert_cmpuint (ids->len, ==, json_array_get_length (want));
          for (guint i = 0; i < ids->len; i++)
            g_assert_cmpint (g_array_index (ids, int32_t, i), ==,
                             json_array_get_int_element (want, i));
        }
      H5Fclose (got);
    }
}

/* translate --ids --beams K --max-length N --json: generate()'s ids, text and score. */
static void
test_translate (void)
{
  JsonNode *path = marian_fixture ("generate", "small");
  JsonNode *model = marian_fixture ("models", "small");
  if (path == NULL || model == NULL)
    return;
  g_autoptr (JsonNode) cases = read_json_file (json_node_get_string (path));
  JsonArray *a = json_node_get_array (cases);
  g_assert_cmpuint (json_array_get_length (a), >=, 10);
  for (guint n = 0; n < json_array_get_length (a); n++)
    {
      JsonObject *c = json_array_get_object_element (a, n);
      g_autofree char *src = ids_arg (json_object_get_array_member (c, "source_ids"));
      g_autofree char *beams
          = g_strdup_printf ("%" G_GINT64_FORMAT, json_object_get_int_member (c, "beams"));
      g_autofree char *max_length
          = g_strdup_printf ("%" G_GINT64_FORMAT, json_object_get_int_member (c, "max_length"));
      g_auto (Run) r = run_cli ("translate", "--model", json_node_get_string (model), "--ids", src,
                                "--beams", beams, "--max-length", max_length, "--json", NULL);
      g_assert_cmpint (r.status, ==, 0);
      g_autoptr (JsonNode) root = parse_json (r.out);
      JsonObject *got = json_node_get_object (root);
      JsonArray *want_ids = json_object_get_array_member (c, "ids");
      JsonArray *got_ids = json_object_get_array_member (got, "ids");
      g_assert_cmpuint (json_array_get_length (got_ids), ==, json_array_get_length (want_ids));
      for (guint i = 0; i < json_array_get_length (want_ids); i++)
        g_assert_cmpint (json_array_get_int_element (got_ids, i), ==,
                         json_array_get_int_element (want_ids, i));
      g_assert_cmpstr (json_object_get_string_member (got, "translation"), ==,
                       json_object_get_string_member (c, "text"));
      g_assert_cmpint (json_object_get_int_member (got, "beams"), ==,
                       json_object_get_int_member (c, "beams"));
      JsonNode *want_score = json_object_get_member (c, "score");
      JsonNode *got_score = json_object_get_member (got, "score");
      if (JSON_NODE_HOLDS_NULL (want_score))
        g_assert_true (JSON_NODE_HOLDS_NULL (got_score));
      else
        g_assert_cmpfloat_with_epsilon (json_node_get_double (got_score),
                                        json_node_get_double (want_score), 1e-4);
    }
}

/* The plain output is the decoded translation of the shipped model, as generate() gave it. */
static void
test_translate_text (void)
{
  JsonNode *path = marian_fixture ("generate", "shipped");
  JsonNode *model = marian_fixture ("models", "shipped");
  JsonNode *texts = marian_fixture ("expected", "shipped");
  if (path == NULL || model == NULL || texts == NULL)
    return;
  g_autoptr (JsonNode) cases = read_json_file (json_node_get_string (path));
  JsonObject *first = json_array_get_object_element (json_node_get_array (cases), 0);
  JsonArray *t = json_array_get_array_element (
      json_object_get_array_member (json_node_get_object (texts), "texts"), 0);
  g_autofree char *beams
      = g_strdup_printf ("%" G_GINT64_FORMAT, json_object_get_int_member (first, "beams"));
  g_auto (Run) r = run_cli ("translate", "--model", json_node_get_string (model), "--text",
                            json_array_get_string_element (t, 0), "--beams", beams, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_autofree char *want = g_strdup_printf ("%s\n", json_object_get_string_member (first, "text"));
  g_assert_cmpstr (r.out, ==, want);
}

/* stats --kind cross --json against the definitions of as-cross-stats.h applied here to the
 * dumped cross-attention; --kind encoder has the encoder's layers. */
static void
test_stats (void)
{
  JsonNode *model = marian_fixture ("models", "shipped");
  if (model == NULL)
    return;
  const char *m = json_node_get_string (model);
  const char *src = "The group went home.", *tgt = "Die Gruppe ging nach Hause.";
  g_autofree char *out = g_strdup_printf ("%s/stats.h5", test_tmpdir ());
  g_auto (Run) d
      = run_cli ("run", "--model", m, "--text", src, "--target", tgt, "--dump", out, NULL);
  g_assert_cmpint (d.status, ==, 0);
  hid_t f = H5Fopen (out, H5F_ACC_RDONLY, H5P_DEFAULT);
  g_autoptr (GArray) sids = marian_read_ids (f, NULL, "source_ids");
  g_autoptr (GArray) tids = marian_read_ids (f, NULL, "target_ids");
  hsize_t dims[4] = { 3, 4, tids->len, sids->len };
  g_autofree float *x = read_all (f, "cross_attentions", 4, dims);
  H5Fclose (f);
  g_assert_nonnull (x);

  g_auto (Run) r = run_cli ("stats", "--model", m, "--text", src, "--target", tgt, "--kind",
                            "cross", "--json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonNode) root = parse_json (r.out);
  JsonArray *heads = json_object_get_array_member (json_node_get_object (root), "heads");
  int T = tids->len, S = sids->len;
  g_assert_cmpuint (json_array_get_length (heads), ==, 12);
  for (int e = 0; e < 12; e++)
    {
      const float *P = x + (gsize) e * T * S;
      double entropy = 0, eos = 0, max = 0, diagonal = 0;
      for (int i = 0; i < T; i++)
        {
          double h = 0, top = 0;
          double centre = T > 1 ? round ((double) i * (S - 1) / (T - 1)) : 0;
          for (int j = 0; j < S; j++)
            {
              double p = P[i * S + j];
              h -= p > 0 ? p * log (p) : 0;
              top = fmax (top, p);
              diagonal += fabs (j - centre) <= 1 ? p : 0;
            }
          entropy += h / log (S);
          eos += P[i * S + S - 1];
          max += top;
        }
      JsonObject *h = json_array_get_object_element (heads, e);
      g_assert_cmpint (json_object_get_int_member (h, "layer"), ==, e / 4);
      g_assert_cmpint (json_object_get_int_member (h, "head"), ==, e % 4);
      g_assert_cmpfloat_with_epsilon (json_object_get_double_member (h, "entropy"), entropy / T,
                                      1e-6);
      g_assert_cmpfloat_with_epsilon (json_object_get_double_member (h, "eos"), eos / T, 1e-6);
      g_assert_cmpfloat_with_epsilon (json_object_get_double_member (h, "max"), max / T, 1e-6);
      g_assert_cmpfloat_with_epsilon (json_object_get_double_member (h, "diagonal"), diagonal / T,
                                      1e-6);
    }

  g_auto (Run) enc = run_cli ("stats", "--model", m, "--text", src, "--target", tgt, "--kind",
                              "encoder", "--json", NULL);
  g_assert_cmpint (enc.status, ==, 0);
  g_autoptr (JsonNode) enc_root = parse_json (enc.out);
  g_assert_cmpint (json_object_get_int_member (json_node_get_object (enc_root), "n_layer"), ==, 3);
  /* the encoder's </s> is its [SEP]: a share on it for every head; no [CLS] (null, "-" in text) */
  JsonArray *enc_heads = json_object_get_array_member (json_node_get_object (enc_root), "heads");
  for (guint i = 0; i < json_array_get_length (enc_heads); i++)
    {
      JsonObject *h = json_array_get_object_element (enc_heads, i);
      g_assert_true (json_object_get_null_member (h, "cls"));
      double sep = json_object_get_double_member (h, "sep");
      g_assert_cmpfloat (sep, >, 0.0);
      g_assert_cmpfloat (sep, <=, 1.0);
    }
  g_auto (Run) enc_text
      = run_cli ("stats", "--model", m, "--text", src, "--target", tgt, "--kind", "encoder", NULL);
  g_assert_cmpint (enc_text.status, ==, 0);
  g_assert_null (strstr (enc_text.out, "nan"));
  g_assert_nonnull (strstr (enc_text.out, "          - "));

  /* a file of "source<TAB>target" lines aggregates one sentence per line */
  g_autofree char *lines = g_strdup_printf ("%s/pairs.txt", test_tmpdir ());
  g_assert_true (g_file_set_contents (
      lines, "The group went home.\tDie Gruppe ging nach Hause.\nThe man hit the car.\n", -1,
      NULL));
  g_auto (Run) l = run_cli ("stats", "--model", m, "--lines", lines, "--json", NULL);
  g_assert_cmpint (l.status, ==, 0);
  g_autoptr (JsonNode) l_root = parse_json (l.out);
  g_assert_cmpint (json_object_get_int_member (json_node_get_object (l_root), "sentences"), ==, 2);
}

/* export --kind encoder draws the encoder's S x S attention, --kind decoder the decoder's. */
static void
test_export (void)
{
  JsonNode *model = marian_fixture ("models", "shipped");
  if (model == NULL)
    return;
  const char *m = json_node_get_string (model);
  const char *kinds[] = { "encoder", "decoder" };
  for (int k = 0; k < 2; k++)
    {
      g_autofree char *png = g_strdup_printf ("%s/%s.png", test_tmpdir (), kinds[k]);
      g_auto (Run) r = run_cli ("export", "--model", m, "--text", "The group went home.",
                                "--target", "Die Gruppe ging nach Hause.", "--kind", kinds[k],
                                "--layer", "1", "--head", "2", "-o", png, NULL);
      g_assert_cmpint (r.status, ==, 0);
      g_autofree char *data = NULL;
      gsize length = 0;
      g_assert_true (g_file_get_contents (png, &data, &length, NULL));
      g_assert_cmpuint (length, >, 8);
      g_assert_cmpmem (data, 8, "\x89PNG\r\n\x1a\n", 8);
    }
  g_auto (Run) bad
      = run_cli ("export", "--model", m, "--text", "The group went home.", "--kind", "sideways",
                 "--layer", "0", "--head", "0", "-o", "/tmp/never-written.png", NULL);
  assert_error (&bad, 2, "--kind");
  g_assert_false (g_file_test ("/tmp/never-written.png", G_FILE_TEST_EXISTS));
}

/* The width and height in a PNG's IHDR chunk (after checking the signature). */
static void
png_size (const char *path, int *width, int *height)
{
  g_autofree char *data = NULL;
  gsize length = 0;
  g_assert_true (g_file_get_contents (path, &data, &length, NULL));
  g_assert_cmpuint (length, >, 33);
  g_assert_cmpmem (data, 8, "\x89PNG\r\n\x1a\n", 8);
  g_assert_cmpmem (data + 12, 4, "IHDR", 4);
  const guint8 *p = (const guint8 *) data + 16;
  *width = (int) ((guint32) p[0] << 24 | (guint32) p[1] << 16 | (guint32) p[2] << 8 | p[3]);
  *height = (int) ((guint32) p[4] << 24 | (guint32) p[5] << 16 | (guint32) p[6] << 8 | p[7]);
}

/* Exports ARGS (after --model M --text SRC --target TGT) to NAME.png at --scale 2 and checks the
 * PNG is the size the command printed, twice the scale-1 size in each direction. */
static void
export_png (const char *m, const char *name, const char *const *args, int *width, int *height)
{
  int sizes[2][2];
  for (int k = 0; k < 2; k++)
    {
      g_autofree char *png = g_strdup_printf ("%s/%s-%d.png", test_tmpdir (), name, k + 1);
      g_autoptr (GPtrArray) argv = g_ptr_array_new ();
      const char *head[] = { "export",
                             "--model",
                             m,
                             "--text",
                             "The group went home.",
                             "--target",
                             "Die Gruppe ging nach Hause.",
                             "-o",
                             png,
                             "--scale",
                             k ? "2" : "1" };
      for (guint i = 0; i < G_N_ELEMENTS (head); i++)
        g_ptr_array_add (argv, (char *) head[i]);
      for (int i = 0; args[i] != NULL; i++)
        g_ptr_array_add (argv, (char *) args[i]);
      g_ptr_array_add (argv, NULL);
      g_auto (Run) r = run_cli_argv ((const char *const *) argv->pdata);
      g_assert_cmpint (r.status, ==, 0);
      png_size (png, &sizes[k][0], &sizes[k][1]);
      g_autofree char *said
          = g_strdup_printf ("wrote %s (%d x %d px", png, sizes[k][0], sizes[k][1]);
      g_assert_true (g_str_has_prefix (r.out, said));
    }
  g_assert_cmpint (sizes[1][0], ==, 2 * sizes[0][0]);
  g_assert_cmpint (sizes[1][1], ==, 2 * sizes[0][1]);
  *width = sizes[0][0], *height = sizes[0][1];
}

/* export --kind cross draws the T x S cross-attention (the target has more tokens than the source
 * here, so the figure is taller than the encoder's S x S); --alignment the source and target
 * lines; both for a head and a layer's mean, at the same size; the sidecar spells out the
 * command. Refusals: rollout, a model without cross-attention, --alignment without a head. */
static void
test_export_cross (void)
{
  JsonNode *model = marian_fixture ("models", "shipped");
  if (model == NULL)
    return;
  const char *m = json_node_get_string (model);
  int cw, ch, mw, mh, ew, eh, aw, ah, amw, amh;
  (void) cw, (void) ew, (void) mw, (void) amw;
  export_png (m, "cross-head",
              (const char *[]){ "--kind", "cross", "--layer", "2", "--head", "1", NULL }, &cw, &ch);
  export_png (m, "cross-mean", (const char *[]){ "--kind", "cross", "--mean", "2", NULL }, &mw,
              &mh);
  export_png (m, "encoder-head",
              (const char *[]){ "--kind", "encoder", "--layer", "2", "--head", "1", NULL }, &ew,
              &eh);
  /* the source "The group went home." has fewer tokens than the target's decoder input */
  g_assert_cmpint (ch, >, eh);
  g_assert_cmpint (mh, ==, ch);
  export_png (m, "align-head",
              (const char *[]){ "--alignment", "--layer", "2", "--head", "1", NULL }, &aw, &ah);
  export_png (m, "align-mean", (const char *[]){ "--alignment", "--mean", "2", NULL }, &amw, &amh);
  g_assert_cmpint (ah, ==, amh);
  /* two lines of token boxes: far wider than tall */
  g_assert_cmpint (aw, >, ah);

  g_autofree char *png = g_strdup_printf ("%s/sidecar.png", test_tmpdir ());
  g_auto (Run) side = run_cli ("export", "--model", m, "--text", "The group went home.", "--kind",
                               "cross", "--grid", "-o", png, "--sidecar", NULL);
  g_assert_cmpint (side.status, ==, 0);
  g_autofree char *json_path = g_strdup_printf ("%s.json", png);
  g_autofree char *json = NULL;
  g_assert_true (g_file_get_contents (json_path, &json, NULL, NULL));
  g_assert_nonnull (strstr (json, "'The group went home.' --kind cross --grid -o "));

  g_auto (Run) rollout = run_cli ("export", "--model", m, "--text", "The group went home.",
                                  "--kind", "cross", "--rollout", "1", "-o", png, NULL);
  assert_error (&rollout, 1, "no rollout");
  g_auto (Run) gpt = run_cli ("export", "--model", "attnscope-mini", "--text", "The group",
                              "--kind", "cross", "--layer", "0", "--head", "0", "-o", png, NULL);
  assert_error (&gpt, 2, "not a translation model: --kind");
  g_auto (Run) gpt_align = run_cli ("export", "--model", "attnscope-mini", "--text", "The group",
                                    "--alignment", "--mean", "0", "-o", png, NULL);
  assert_error (&gpt_align, 2, "not a translation model: --alignment");
  g_auto (Run) cross_compare
      = run_cli ("export", "--model", m, "--text", "The group went home.", "--compare",
                 "The group came home.", "--kind", "cross", "--mean", "0", "-o", png, NULL);
  assert_error (&cross_compare, 2, "--compare does not go with --kind cross");
  g_auto (Run) no_head = run_cli ("export", "--model", m, "--text", "The group went home.",
                                  "--alignment", "-o", png, NULL);
  assert_error (&no_head, 2, "--layer");
  g_auto (Run) head_range = run_cli ("export", "--model", m, "--text", "The group went home.",
                                     "--alignment", "--layer", "0", "--head", "4", "-o", png, NULL);
  assert_error (&head_range, 1, "--head 4 is out of range");
}

static void
test_bad_input (void)
{
  JsonNode *model = marian_fixture ("models", "shipped");
  if (model == NULL)
    return;
  const char *m = json_node_get_string (model);
  g_autofree char *out = g_strdup_printf ("%s/bad.h5", test_tmpdir ());

  g_auto (Run) no_target = run_cli ("run", "--model", m, "--text", "Hello.", "--dump", out, NULL);
  assert_error (&no_target, 2, "translation model");
  g_auto (Run) empty = run_cli ("translate", "--model", m, "--text", "", NULL);
  assert_error (&empty, 1, "empty");
  g_auto (Run) empty_target
      = run_cli ("run", "--model", m, "--text", "Hello.", "--target", "", "--dump", out, NULL);
  assert_error (&empty_target, 1, "target");
  g_auto (Run) outside = run_cli ("run", "--model", m, "--ids", "5,0", "--target-ids", "3576,99999",
                                  "--dump", out, NULL);
  assert_error (&outside, 1, "outside the vocabulary");
  /* a target longer than the model's positions names both numbers */
  GString *long_ids = g_string_new ("3576");
  for (int i = 0; i < 600; i++)
    g_string_append (long_ids, ",5");
  g_auto (Run) too_long = run_cli ("run", "--model", m, "--ids", "5,0", "--target-ids",
                                   long_ids->str, "--dump", out, NULL);
  g_string_free (long_ids, TRUE);
  assert_error (&too_long, 1, "601 tokens");
  g_assert_false (g_file_test (out, G_FILE_TEST_EXISTS));
  g_auto (Run) beams
      = run_cli ("translate", "--model", m, "--text", "Hello.", "--beams", "0", NULL);
  g_assert_cmpint (beams.status, ==, 0); /* 0: the model's setting */
  g_auto (Run) many
      = run_cli ("translate", "--model", m, "--text", "Hello.", "--beams", "65", NULL);
  assert_error (&many, 2, "--beams");

  /* a decoder-only model has no target */
  g_auto (Run) gpt = run_cli ("run", "--model", "attnscope-mini", "--text", "Hello.", "--target",
                              "Hallo.", "--dump", out, NULL);
  assert_error (&gpt, 2, "not a translation model");
  g_auto (Run) gpt_translate
      = run_cli ("translate", "--model", "attnscope-mini", "--text", "Hello.", NULL);
  assert_error (&gpt_translate, 1, "encoder–decoder");

  /* a folder without target.spm fails naming the file */
  const char *skip[] = { "target.spm", NULL };
  g_autofree char *copy = marian_copy_model (m, "no-target-spm", skip);
  g_auto (Run) missing = run_cli ("translate", "--model", copy, "--text", "Hello.", NULL);
  assert_error (&missing, 1, "target.spm");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cli/translate/run-ids", test_run_ids);
  g_test_add_func ("/cli/translate/run-text", test_run_text);
  g_test_add_func ("/cli/translate/generate", test_translate);
  g_test_add_func ("/cli/translate/text", test_translate_text);
  g_test_add_func ("/cli/translate/stats", test_stats);
  g_test_add_func ("/cli/translate/export", test_export);
  g_test_add_func ("/cli/translate/export-cross", test_export_cross);
  g_test_add_func ("/cli/translate/bad-input", test_bad_input);
  int status = g_test_run ();
  test_tmpdir_cleanup ();
  return status;
}
