/* test-cli-encoder.c — encoders (BERT, RoBERTa) as a user runs them: `run --ids --type-ids
 * --dump` against the PyTorch reference, `--truncate` on a pair (longest first), masked
 * predictions (`predict` on [MASK]/<mask> positions, text and JSON), `info` and `stats` on an
 * encoder, and the errors: a pair longer than the context (both lengths named), type ids that do
 * not fit, no mask token, a model without its masked-LM head, --steps on an encoder; texts and
 * pairs (`--text A --pair B`) through the tokenizer engine with bert-base-uncased's vocabulary:
 * ids, token types and longest-first truncation. The models are the reference's random ones
 * (tests/core/encoder-models.h). */
#include <glib/gstdio.h>
#include <hdf5.h>
#include <math.h>
#include <string.h>

#include "check-close.h"
#include "cli-support.h"
#include "encoder-models.h"
#include "trace-compare.h"

/* Reads dataset NAME of FILE as float (asserting it exists with N elements). */
static float *
read_all (hid_t file, const char *name, gsize n)
{
  hid_t ds = H5Dopen2 (file, name, H5P_DEFAULT);
  g_assert_cmpint (ds, >=, 0);
  hid_t space = H5Dget_space (ds);
  g_assert_cmpint (H5Sget_simple_extent_npoints (space), ==, (hssize_t) n);
  float *data = g_new (float, n);
  g_assert_cmpint (H5Dread (ds, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), >=, 0);
  H5Sclose (space);
  H5Dclose (ds);
  return data;
}

/* Dataset NAME (int64) of FILE as a "a,b,c" string (owned). */
static char *
read_ints (hid_t file, const char *name)
{
  hid_t ds = H5Dopen2 (file, name, H5P_DEFAULT);
  g_assert_cmpint (ds, >=, 0);
  hid_t space = H5Dget_space (ds);
  hssize_t n = H5Sget_simple_extent_npoints (space);
  g_assert_true (n > 0 && n < 100000);
  g_autofree int64_t *v = g_new (int64_t, (gsize) n);
  g_assert_cmpint (H5Dread (ds, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, v), >=, 0);
  H5Sclose (space);
  H5Dclose (ds);
  GString *s = g_string_new (NULL);
  for (hssize_t i = 0; i < n; i++)
    g_string_append_printf (s, i ? ",%" G_GINT64_FORMAT : "%" G_GINT64_FORMAT, v[i]);
  return g_string_free (s, FALSE);
}

static char *
dump_path (const char *name)
{
  return g_build_filename (test_tmpdir (), name, NULL);
}

/* `run --ids --type-ids --dump` on a BERT pair equals the reference. */
static void
test_run_pair (void)
{
  g_autofree char *dir = encoder_model ("bert-mlm", encoder_bert_mlm);
  if (dir == NULL)
    return;
  const char *ids = "2,50,60,70,3,80,90,3", *types = "0,0,0,0,0,1,1,1";
  g_autofree char *seq = g_strdup_printf ("%s|%s", ids, types);
  const char *seqs[] = { seq, NULL };
  g_autofree char *expected = encoder_expected (dir, seqs, "h5");
  if (expected == NULL)
    return;
  g_autofree char *out = dump_path ("pair.h5");
  g_auto (Run) r
      = run_cli ("run", "--model", dir, "--ids", ids, "--type-ids", types, "--dump", out, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "8 tokens, 2 layers x 4 heads"));

  hid_t got = H5Fopen (out, H5F_ACC_RDONLY, H5P_DEFAULT);
  hid_t want = H5Fopen (expected, H5F_ACC_RDONLY, H5P_DEFAULT);
  g_autofree char *got_ids = read_ints (got, "token_ids");
  g_autofree char *got_types = read_ints (got, "token_type_ids");
  g_assert_cmpstr (got_ids, ==, ids);
  g_assert_cmpstr (got_types, ==, types);
  const struct
  {
    const char *ours, *theirs;
    gsize n;
  } arrays[] = {
    { "attentions", "/seq0/attentions", 2 * 4 * 8 * 8 },
    { "hidden_states", "/seq0/hidden_states", 3 * 8 * 32 },
    { "contexts", "/seq0/contexts", 2 * 4 * 8 * 8 },
    { "logits", "/seq0/logits", 8 * 300 },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (arrays); i++)
    {
      g_autofree float *a = read_all (got, arrays[i].ours, arrays[i].n);
      g_autofree float *e = read_all (want, arrays[i].theirs, arrays[i].n);
      gboolean attention = i == 0;
      check_close (arrays[i].ours, a, e, arrays[i].n,
                   attention ? TRACE_ATTN_ATOL
                             : TRACE_VEC_ATOL_PER_RMS * trace_rms (e, arrays[i].n),
                   attention ? 0 : TRACE_VEC_RTOL);
    }
  H5Fclose (got);
  H5Fclose (want);
}

/* A pair longer than the context (40): refused naming both texts; --truncate cuts the longer
 * text first and keeps [CLS] and both [SEP]. */
static void
test_run_truncate (void)
{
  g_autofree char *dir = encoder_model ("bert-mlm", encoder_bert_mlm);
  if (dir == NULL)
    return;
  /* [CLS] 30 tokens [SEP] | 12 tokens [SEP]: 45 tokens, 42 of text, 37 may stay: A keeps 25 */
  GString *ids = g_string_new ("2"), *types = g_string_new ("0");
  for (int i = 0; i < 30; i++)
    {
      g_string_append_printf (ids, ",%d", 100 + i);
      g_string_append (types, ",0");
    }
  g_string_append (ids, ",3");
  g_string_append (types, ",0");
  for (int i = 0; i < 12; i++)
    {
      g_string_append_printf (ids, ",%d", 200 + i);
      g_string_append (types, ",1");
    }
  g_string_append (ids, ",3");
  g_string_append (types, ",1");
  g_autofree char *out = dump_path ("truncated.h5");

  g_auto (Run) refused = run_cli ("run", "--model", dir, "--ids", ids->str, "--type-ids",
                                  types->str, "--dump", out, NULL);
  assert_error (&refused, 1,
                "the pair has 45 tokens (32 in the first text and 13 in the second, special "
                "tokens included) but the model's context length is 40 tokens");
  g_assert_false (g_file_test (out, G_FILE_TEST_EXISTS));

  g_auto (Run) r = run_cli ("run", "--model", dir, "--ids", ids->str, "--type-ids", types->str,
                            "--truncate", "--dump", out, NULL);
  g_assert_cmpint (r.status, ==, 0);
  hid_t f = H5Fopen (out, H5F_ACC_RDONLY, H5P_DEFAULT);
  g_autofree char *got = read_ints (f, "token_ids");
  g_autofree char *got_types = read_ints (f, "token_type_ids");
  H5Fclose (f);
  GString *want = g_string_new ("2"), *want_types = g_string_new ("0");
  for (int i = 0; i < 25; i++)
    {
      g_string_append_printf (want, ",%d", 100 + i);
      g_string_append (want_types, ",0");
    }
  g_string_append (want, ",3");
  g_string_append (want_types, ",0");
  for (int i = 0; i < 12; i++)
    {
      g_string_append_printf (want, ",%d", 200 + i);
      g_string_append (want_types, ",1");
    }
  g_string_append (want, ",3");
  g_string_append (want_types, ",1");
  g_assert_cmpstr (got, ==, want->str);
  g_assert_cmpstr (got_types, ==, want_types->str);
  g_string_free (ids, TRUE);
  g_string_free (types, TRUE);
  g_string_free (want, TRUE);
  g_string_free (want_types, TRUE);
}

static void
test_type_id_errors (void)
{
  g_autofree char *dir = encoder_model ("bert-mlm", encoder_bert_mlm);
  if (dir == NULL)
    return;
  g_autofree char *out = dump_path ("never.h5");
  g_auto (Run) count = run_cli ("run", "--model", dir, "--ids", "2,50,3", "--type-ids", "0,0",
                                "--dump", out, NULL);
  assert_error (&count, 1, "--type-ids has 2 values but --ids has 3");
  g_auto (Run) alone
      = run_cli ("run", "--model", dir, "--text", "a b", "--type-ids", "0", "--dump", out, NULL);
  assert_error (&alone, 2, "--type-ids goes with --ids");
  g_auto (Run) range = run_cli ("run", "--model", dir, "--ids", "2,50,3", "--type-ids", "0,2,0",
                                "--dump", out, NULL);
  assert_error (&range, 1, "token type 2 at position 1 is outside the model's token types (0..1)");
  g_auto (Run) bad
      = run_cli ("predict", "--model", dir, "--ids", "2,4,3", "--type-ids", "0,x,0", NULL);
  assert_error (&bad, 1, "--type-ids: 'x' (item 2)");
  g_assert_false (g_file_test (out, G_FILE_TEST_EXISTS));
}

/* predict on RoBERTa's <mask> positions: the reference's best ids, sorted probabilities. */
static void
test_predict_masked (void)
{
  g_autofree char *dir = encoder_model ("roberta-mlm", encoder_roberta_mlm);
  if (dir == NULL)
    return;
  const char *ids = "0,50,299,60,299,2";
  const char *seqs[] = { ids, NULL };
  g_autofree char *expected = encoder_expected (dir, seqs, "h5");
  if (expected == NULL)
    return;
  hid_t f = H5Fopen (expected, H5F_ACC_RDONLY, H5P_DEFAULT);
  g_autofree float *logits = read_all (f, "/seq0/logits", 6 * 300);
  H5Fclose (f);

  g_auto (Run) r = run_cli ("predict", "--model", dir, "--ids", ids, "--top", "4", "--json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonNode) root = parse_json (r.out);
  JsonObject *o = json_node_get_object (root);
  JsonArray *masks = json_object_get_array_member (o, "masks");
  g_assert_cmpint (json_array_get_length (masks), ==, 2);
  g_assert_cmpstr (json_array_get_string_element (json_object_get_array_member (o, "tokens"), 2),
                   ==, "<mask>");
  for (guint m = 0; m < 2; m++)
    {
      JsonObject *mask = json_array_get_object_element (masks, m);
      int pos = (int) json_object_get_int_member (mask, "position");
      g_assert_cmpint (pos, ==, m == 0 ? 2 : 4);
      JsonArray *pred = json_object_get_array_member (mask, "predictions");
      g_assert_cmpint (json_array_get_length (pred), ==, 4);
      const float *row = logits + pos * 300;
      int best = 0;
      for (int v = 1; v < 300; v++)
        if (row[v] > row[best])
          best = v;
      JsonObject *top = json_array_get_object_element (pred, 0);
      g_assert_cmpint (json_object_get_int_member (top, "id"), ==, best);
      g_assert_cmpfloat_with_epsilon (json_object_get_double_member (top, "logit"), row[best],
                                      1e-4);
      for (guint k = 1; k < 4; k++)
        g_assert_cmpfloat (
            json_object_get_double_member (json_array_get_object_element (pred, k - 1),
                                           "probability"),
            >=,
            json_object_get_double_member (json_array_get_object_element (pred, k), "probability"));
    }

  g_auto (Run) text = run_cli ("predict", "--model", dir, "--ids", ids, "--top", "2", NULL);
  g_assert_cmpint (text.status, ==, 0);
  g_assert_nonnull (strstr (text.out, "position 2 (<mask>)\nrank  token"));
  g_assert_nonnull (strstr (text.out, "\n\nposition 4 (<mask>)\n"));
}

static void
test_predict_errors (void)
{
  g_autofree char *dir = encoder_model ("roberta-mlm", encoder_roberta_mlm);
  if (dir == NULL)
    return;
  g_auto (Run) plain = run_cli ("predict", "--model", dir, "--ids", "0,50,60,2", NULL);
  assert_error (&plain, 1, "the input has no mask token <mask> (id 299)");
  g_auto (Run) steps
      = run_cli ("predict", "--model", dir, "--ids", "0,50,299,2", "--steps", "3", NULL);
  assert_error (&steps, 1, "is a masked-LM encoder");

  const char *args[] = { "--family",       "bert", "--head",      "none", "--layers",        "1",
                         "--heads",        "2",    "--hidden",    "8",    "--vocab",         "300",
                         "--intermediate", "16",   "--positions", "12",   "--bpe-tokenizer", NULL };
  g_autofree char *none = encoder_model ("bert-none", args);
  if (none == NULL)
    return;
  g_auto (Run) headless = run_cli ("predict", "--model", none, "--ids", "2,4,3", NULL);
  assert_error (&headless, 1, "no masked-LM head in its weights: it loads for attention only");
  g_auto (Run) info = run_cli ("info", "--model", none, NULL);
  g_assert_cmpint (info.status, ==, 0);
  g_assert_nonnull (strstr (info.out, "token types:   2\noutput:        none: the weights have no "
                                      "output head, the model runs for attention only\n"));
}

static void
test_info (void)
{
  g_autofree char *dir = encoder_model ("roberta-mlm", encoder_roberta_mlm);
  if (dir == NULL)
    return;
  g_auto (Run) r = run_cli ("info", "--model", dir, "--json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonNode) root = parse_json (r.out);
  JsonObject *o = json_node_get_object (root);
  g_assert_cmpstr (json_object_get_string_member (o, "architecture"), ==, "bert");
  g_assert_cmpstr (json_object_get_string_member (o, "head"), ==, "masked-lm");
  g_assert_cmpint (json_object_get_int_member (o, "type_vocab_size"), ==, 1);
  /* 42 position rows, RoBERTa's first position is padding_idx + 1 = 2 */
  g_assert_cmpint (json_object_get_int_member (o, "n_positions"), ==, 40);
}

/* stats on an encoder: the encoder shares appear, next recomputed from the dumped attention. */
static void
test_stats (void)
{
  g_autofree char *dir = encoder_model ("roberta-mlm", encoder_roberta_mlm);
  if (dir == NULL)
    return;
  const char *text = "the cat sat on the mat";
  g_auto (Run) r = run_cli ("stats", "--model", dir, "--text", text, "--json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonNode) root = parse_json (r.out);
  JsonObject *o = json_node_get_object (root);
  JsonObject *rankings = json_object_get_object_member (o, "rankings");
  const char *kinds[] = { "entropy", "previous", "first", "self", "next", "cls", "sep" };
  for (gsize k = 0; k < G_N_ELEMENTS (kinds); k++)
    g_assert_true (json_object_has_member (rankings, kinds[k]));

  g_autofree char *out = dump_path ("stats.h5");
  g_auto (Run) run = run_cli ("run", "--model", dir, "--text", text, "--dump", out, NULL);
  g_assert_cmpint (run.status, ==, 0);
  hid_t f = H5Fopen (out, H5F_ACC_RDONLY, H5P_DEFAULT);
  g_autofree char *ids = read_ints (f, "token_ids");
  g_auto (GStrv) id_list = g_strsplit (ids, ",", -1);
  int T = (int) g_strv_length (id_list);
  g_autofree float *p = read_all (f, "attentions", (gsize) 2 * 4 * T * T);
  H5Fclose (f);
  JsonArray *heads = json_object_get_array_member (o, "heads");
  for (int e = 0; e < 8; e++)
    {
      double next = 0;
      for (int i = 0; i + 1 < T; i++)
        next += p[((gsize) e * T + i) * T + i + 1] / (T - 1);
      JsonObject *h = json_array_get_object_element (heads, e);
      g_assert_cmpfloat_with_epsilon (json_object_get_double_member (h, "next"), next, 1e-6);
      const char *label = json_object_get_string_member (h, "label");
      g_assert_true (g_strv_contains ((const char *const[]){ "mixed", "previous", "first", "self",
                                                             "next", "cls", "sep", "broad", NULL },
                                      label));
    }

  g_auto (Run) table = run_cli ("stats", "--model", dir, "--text", text, NULL);
  g_assert_cmpint (table.status, ==, 0);
  g_assert_nonnull (strstr (table.out, "layer head    entropy   previous      first       self"
                                       "       next        cls        sep  label\n"));
}

/* A BERT with bert-base-uncased's vocabulary (the tokenizer.json of tests/fixtures/tokenizers/
 * bert-bge: the same 30,522 WordPiece tokens) and a context of 12: texts go through the
 * tokenizer engine as HF's tokenizer(text) / tokenizer(text, pair). */
static char *
uncased_bert (void)
{
  const char *args[]
      = { "--family",       "bert", "--head",   "mlm", "--format", "h5",    "--layers",    "1",
          "--heads",        "2",    "--hidden", "8",   "--vocab",  "30522", "--positions", "12",
          "--intermediate", "8",    "--seed",   "7",   NULL };
  char *dir = encoder_model ("bert-uncased-vocab", args);
  if (dir == NULL)
    return NULL;
  g_autofree char *src = test_source_path ("tests/fixtures/tokenizers/bert-bge/tokenizer.json");
  g_autofree char *dst = g_build_filename (dir, "tokenizer.json", NULL);
  g_autofree char *contents = NULL;
  gsize n = 0;
  g_assert_true (g_file_get_contents (src, &contents, &n, NULL));
  g_assert_true (g_file_set_contents (dst, contents, (gssize) n, NULL));
  return dir;
}

/* `run --dump` of the ids and type ids the text (and pair) give; the dump's attentions and
 * logits against the reference on those ids. */
static void
check_text_run (const char *dir, const char *text, const char *pair, const char *want_ids,
                const char *want_types)
{
  g_autofree char *out = dump_path ("text.h5");
  g_auto (Run) r = pair != NULL ? run_cli ("run", "--model", dir, "--text", text, "--pair", pair,
                                           "--dump", out, "--force", NULL)
                                : run_cli ("run", "--model", dir, "--text", text, "--dump", out,
                                           "--force", NULL);
  g_assert_cmpint (r.status, ==, 0);
  hid_t got = H5Fopen (out, H5F_ACC_RDONLY, H5P_DEFAULT);
  g_autofree char *ids = read_ints (got, "token_ids");
  g_autofree char *types = read_ints (got, "token_type_ids");
  g_assert_cmpstr (ids, ==, want_ids);
  g_assert_cmpstr (types, ==, want_types);

  g_autofree char *seq = g_strdup_printf ("%s|%s", want_ids, want_types);
  const char *seqs[] = { seq, NULL };
  g_autofree char *expected = encoder_expected (dir, seqs, "h5");
  if (expected == NULL)
    {
      H5Fclose (got);
      return;
    }
  hid_t want = H5Fopen (expected, H5F_ACC_RDONLY, H5P_DEFAULT);
  gsize T = 1;
  for (const char *c = want_ids; *c != '\0'; c++)
    T += *c == ',';
  g_autofree float *attn = read_all (got, "attentions", 2 * T * T);
  g_autofree float *attn_ref = read_all (want, "/seq0/attentions", 2 * T * T);
  check_close ("attentions", attn, attn_ref, 2 * T * T, TRACE_ATTN_ATOL, 0);
  g_autofree float *logits = read_all (got, "logits", T * 30522);
  g_autofree float *logits_ref = read_all (want, "/seq0/logits", T * 30522);
  check_close ("logits", logits, logits_ref, T * 30522,
               TRACE_VEC_ATOL_PER_RMS * trace_rms (logits_ref, T * 30522), TRACE_VEC_RTOL);
  H5Fclose (want);
  H5Fclose (got);
}

/* "Hello, my dog is cute" is [CLS] hello , my dog is cute [SEP] = 101 7592 1010 2026 3899 2003
 * 10140 102 (transformers' BertTokenizer docs); with the pair "Hello world" the second text and
 * its [SEP] get token type 1. */
static void
test_text_and_pair (void)
{
  g_autofree char *dir = uncased_bert ();
  if (dir == NULL)
    return;
  check_text_run (dir, "Hello, my dog is cute", NULL, "101,7592,1010,2026,3899,2003,10140,102",
                  "0,0,0,0,0,0,0,0");
  check_text_run (dir, "Hello, my dog is cute", "Hello world",
                  "101,7592,1010,2026,3899,2003,10140,102,7592,2088,102", "0,0,0,0,0,0,0,0,1,1,1");
}

/* Texts longer than the context of 12: the pair is refused naming both lengths; --truncate
 * keeps 9 text tokens by HF's longest-first rule (6 and 7 tokens: 4 and 5 stay). */
static void
test_text_pair_truncate (void)
{
  g_autofree char *dir = uncased_bert ();
  if (dir == NULL)
    return;
  const char *a = "Hello, my dog is cute", *b = "Hello world, my dog is cute";
  g_autofree char *out = dump_path ("pair-text.h5");
  g_auto (Run) refused
      = run_cli ("run", "--model", dir, "--text", a, "--pair", b, "--dump", out, NULL);
  assert_error (&refused, 1,
                "the pair has 16 tokens (8 in the first text and 8 in the second, special "
                "tokens included) but the model's context length is 12 tokens");
  g_assert_false (g_file_test (out, G_FILE_TEST_EXISTS));
  g_auto (Run) refused_stats = run_cli ("stats", "--model", dir, "--text", a, "--pair", b, NULL);
  assert_error (&refused_stats, 1, "8 in the first text and 8 in the second");

  check_text_run (dir, a, NULL, "101,7592,1010,2026,3899,2003,10140,102", "0,0,0,0,0,0,0,0");
  g_auto (Run) r = run_cli ("run", "--model", dir, "--text", a, "--pair", b, "--truncate", "--dump",
                            out, NULL);
  g_assert_cmpint (r.status, ==, 0);
  hid_t f = H5Fopen (out, H5F_ACC_RDONLY, H5P_DEFAULT);
  g_autofree char *ids = read_ints (f, "token_ids");
  g_autofree char *types = read_ints (f, "token_type_ids");
  H5Fclose (f);
  g_assert_cmpstr (ids, ==, "101,7592,1010,2026,3899,102,7592,2088,1010,2026,3899,102");
  g_assert_cmpstr (types, ==, "0,0,0,0,0,0,1,1,1,1,1,1");

  /* the pair's [MASK] is found where the tokenizer put it */
  g_auto (Run) p = run_cli ("predict", "--model", dir, "--text", a, "--pair", "my [MASK]", "--top",
                            "2", "--json", NULL);
  g_assert_cmpint (p.status, ==, 0);
  g_assert_nonnull (
      strstr (p.out, "\"ids\":[101,7592,1010,2026,3899,2003,10140,102,2026,103,102]"));
  g_assert_nonnull (strstr (p.out, "\"position\":9"));

  g_auto (Run) lonely
      = run_cli ("run", "--model", dir, "--ids", "101,102", "--pair", b, "--dump", out, NULL);
  assert_error (&lonely, 2, "--pair goes with --text");
}

/* A vocab.txt that lists a token twice loads as transformers' load_vocab reads it (vocab[token] =
 * line index, so the later line wins): "hello" on lines 5 and 7 encodes as 7; no error, no
 * crash. */
static void
test_vocab_txt_duplicates (void)
{
  g_autofree char *dir = g_build_filename (test_tmpdir (), "dup-vocab", NULL);
  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  g_autofree char *vocab = g_build_filename (dir, "vocab.txt", NULL);
  const char *lines = "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nhello\nworld\nhello\n";
  g_assert_true (g_file_set_contents (vocab, lines, -1, NULL));
  g_auto (Run) r = run_cli ("tokenize", "--model", dir, "--json", "Hello world", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "\"ids\":[2,7,6,3]"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  H5Eset_auto2 (H5E_DEFAULT, NULL, NULL);
  g_test_add_func ("/cli/encoder/run-pair", test_run_pair);
  g_test_add_func ("/cli/encoder/run-truncate", test_run_truncate);
  g_test_add_func ("/cli/encoder/type-id-errors", test_type_id_errors);
  g_test_add_func ("/cli/encoder/predict-masked", test_predict_masked);
  g_test_add_func ("/cli/encoder/predict-errors", test_predict_errors);
  g_test_add_func ("/cli/encoder/info", test_info);
  g_test_add_func ("/cli/encoder/stats", test_stats);
  g_test_add_func ("/cli/encoder/text-and-pair", test_text_and_pair);
  g_test_add_func ("/cli/encoder/text-pair-truncate", test_text_pair_truncate);
  g_test_add_func ("/cli/encoder/vocab-txt-duplicates", test_vocab_txt_duplicates);
  int status = g_test_run ();
  test_tmpdir_cleanup ();
  return status;
}
