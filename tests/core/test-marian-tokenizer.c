/* test-marian-tokenizer.c — the Marian tokenizer id for id with the reference (Python's
 * sentencepiece module + MarianTokenizer's rules, tests/reference/marian_tokenizer.py).
 *
 * The corpus (make_marian_fixtures.py lines.txt): the shipped model's 1,112 held-out English and
 * 1,112 German sentences and tests/fixtures/marian-edge-lines.txt (special tokens written in the
 * text, language codes, white space of every kind, emoji, CJK, Arabic, combining marks,
 * full-width forms, an empty line, ...), each encoded as source text (source.spm) and as target
 * text (target.spm) with three vocabularies: the shipped model's (SentencePiece models trained on
 * software messages), a random model's with tiny SentencePiece models trained by spm_train at
 * test time (so most of the corpus is unknown characters), and the same with every third piece
 * missing from vocab.json (those pieces become <unk>). Ids must be identical; so must every
 * token string other than <unk>'s. Also: known values, token texts, decoding, threads. */
#include <string.h>

#include "as-error.h"
#include "as-tokenizer.h"
#include "check-close.h"
#include "marian-fixtures.h"

/* The lines of PATH as the reference reads them (split on \n, nothing else removed). */
static char **
read_lines (const char *path)
{
  g_autofree char *contents = NULL;
  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  char **lines = g_strsplit (contents, "\n", -1);
  guint n = g_strv_length (lines);
  if (n > 0 && *lines[n - 1] == '\0')
    g_clear_pointer (&lines[n - 1], g_free); /* after the last newline */
  return lines;
}

/* Compares every line of the reference's JSONL output for MODEL (TARGET: the target side);
 * returns the number of lines (-1: no fixtures) and counts the <unk> ids in *N_UNK. */
static int
compare_tokenizer (const char *model, gboolean target, int *n_unk)
{
  JsonObject *manifest = marian_fixtures ();
  if (manifest == NULL)
    return -1;
  const char *dir = marian_fixture_path ("models", model);
  JsonObject *files = json_node_get_object (marian_fixture ("tokenize", model));
  const char *expected = json_object_get_string_member (files, target ? "target" : "source");
  g_auto (GStrv) lines = read_lines (json_object_get_string_member (manifest, "lines"));
  g_auto (GStrv) rows = read_lines (expected);
  g_assert_cmpuint (g_strv_length (lines), ==, g_strv_length (rows));

  GError *error = NULL;
  g_autoptr (AsTokenizer) tok = as_tokenizer_load_marian (dir, &error);
  g_assert_no_error (error);
  int32_t unk = as_tokenizer_lookup (tok, "<unk>");
  int n = 0;
  *n_unk = 0;
  for (; lines[n] != NULL; n++)
    {
      g_autoptr (JsonNode) row = json_from_string (rows[n], &error);
      g_assert_no_error (error);
      JsonObject *o = json_node_get_object (row);
      g_assert_cmpstr (json_object_get_string_member (o, "text"), ==, lines[n]);
      g_autoptr (GArray) want = marian_json_ids (json_object_get_array_member (o, "ids"));
      g_autoptr (GArray) got = target ? as_tokenizer_encode_target (tok, lines[n], -1, &error)
                                      : as_tokenizer_encode (tok, lines[n], -1, &error);
      g_assert_no_error (error);
      if (got->len != want->len || memcmp (got->data, want->data, got->len * sizeof (int32_t)) != 0)
        g_error ("%s %s line %d \"%s\": %u ids differ from the reference's %u", model,
                 target ? "target" : "source", n + 1, lines[n], got->len, want->len);
      JsonArray *tokens = json_object_get_array_member (o, "tokens");
      for (guint i = 0; i < got->len; i++)
        {
          int32_t id = g_array_index (got, int32_t, i);
          if (id == unk)
            {
              (*n_unk)++;
              continue;
            }
          g_assert_cmpstr (as_tokenizer_get_token (tok, id), ==,
                           json_array_get_string_element (tokens, i));
        }
    }
  g_test_message ("%s %s side: %d lines identical, %d <unk>", model, target ? "target" : "source",
                  n, *n_unk);
  return n;
}

static void
test_shipped (void)
{
  int unk_s = 0, unk_t = 0;
  int n = compare_tokenizer ("shipped", FALSE, &unk_s);
  if (n < 0)
    return;
  g_assert_cmpint (n, >=, 2000);
  g_assert_cmpint (compare_tokenizer ("shipped", TRUE, &unk_t), ==, n);
  g_assert_cmpint (unk_s + unk_t, >, 0); /* the edge lines hold characters it never saw */
}

static void
test_small_spm (void)
{
  int unk_s = 0, unk_t = 0;
  int n = compare_tokenizer ("small", FALSE, &unk_s);
  if (n < 0)
    return;
  g_assert_cmpint (n, >=, 2000);
  g_assert_cmpint (compare_tokenizer ("small", TRUE, &unk_t), ==, n);
  g_assert_cmpint (unk_s, >, 1000);
  g_assert_cmpint (unk_t, >, 1000);
}

/* A vocab.json that does not cover the pieces: the missing ones become <unk>, as the reference
 * (and MarianTokenizer) maps them. */
static void
test_vocab_gaps (void)
{
  int unk_gaps = 0, unk_full = 0;
  int n = compare_tokenizer ("vocab-gaps", FALSE, &unk_gaps);
  if (n < 0)
    return;
  compare_tokenizer ("small", FALSE, &unk_full);
  g_assert_cmpint (unk_gaps, >, unk_full + 1000);
  g_assert_cmpint (compare_tokenizer ("vocab-gaps", TRUE, &unk_gaps), ==, n);
}

/* Known values of the shipped model, written down from the reference. */
static void
test_known_values (void)
{
  const char *dir = marian_fixture_path ("models", "shipped");
  if (dir == NULL)
    return;
  GError *error = NULL;
  g_autoptr (AsTokenizer) tok = as_tokenizer_load_marian (dir, &error);
  g_assert_no_error (error);
  g_autoptr (GArray) ids = as_tokenizer_encode (tok, "The group went home.", -1, &error);
  g_assert_no_error (error);
  const int32_t want[] = { 42, 459, 285, 95, 191, 259, 12, 3, 0 };
  g_assert_cmpmem (ids->data, ids->len * 4, want, sizeof want);
  /* </s> is a special token added after the text, and without special tokens there is none */
  g_autoptr (AsEncoding) with = as_tokenizer_encode_full (tok, "The group went home.", -1, NULL, 0,
                                                          AS_ENCODE_DEFAULT, &error);
  g_assert_no_error (error);
  g_assert_cmpmem (with->ids->data, with->ids->len * 4, want, sizeof want);
  for (guint i = 0; i < with->ids->len; i++)
    g_assert_cmpint (g_array_index (with->special_mask, guint8, i), ==, i + 1 == with->ids->len);
  g_autoptr (AsEncoding) without = as_tokenizer_encode_full (tok, "The group went home.", -1, NULL,
                                                             0, AS_ENCODE_NO_SPECIAL, &error);
  g_assert_no_error (error);
  g_assert_cmpmem (without->ids->data, without->ids->len * 4, want, sizeof want - 4);
  /* a pair: both texts, then one </s> (build_inputs_with_special_tokens) */
  g_autoptr (AsEncoding) pair = as_tokenizer_encode_full (tok, "The group", -1, "went home.", -1,
                                                          AS_ENCODE_DEFAULT, &error);
  g_assert_no_error (error);
  g_assert_cmpmem (pair->ids->data, pair->ids->len * 4, want, sizeof want);
  /* token texts: ▁ stands for a space; special tokens as they are */
  g_autofree char *t0 = as_tokenizer_dup_token_text (tok, 42);
  g_autofree char *t1 = as_tokenizer_dup_token_text (tok, 95);
  g_autofree char *t2 = as_tokenizer_dup_token_text (tok, 0);
  g_assert_cmpstr (as_tokenizer_get_token (tok, 42), ==, "\u2581The");
  g_assert_cmpstr (t0, ==, " The");
  g_assert_cmpstr (t1, ==, "ent");
  g_assert_cmpstr (t2, ==, "</s>");
  g_assert_true (as_tokenizer_is_special (tok, 0));
  g_assert_true (as_tokenizer_is_special (tok, 1));
  g_assert_true (as_tokenizer_is_special (tok, 3576));
  g_assert_false (as_tokenizer_is_special (tok, 42));
  g_assert_cmpint (as_tokenizer_get_vocab_size (tok), ==, 3577);

  /* decoding: target pieces joined by target.spm, special tokens kept as text, clean-up */
  g_autoptr (GArray) de
      = as_tokenizer_encode_target (tok, "Die Gruppe ging nach Hause .", -1, &error);
  g_assert_no_error (error);
  g_autofree char *text = as_tokenizer_decode (tok, (int32_t *) de->data, de->len);
  g_assert_cmpstr (text, ==, "Die Gruppe ging nach Hause.</s>");
  /* "<pad> " then target.spm's decoding of "▁The", whose ▁ becomes a space (this model's
   * target.spm keeps it) */
  int32_t pad_first[] = { 3576, 42 };
  g_autofree char *text2 = as_tokenizer_decode (tok, pad_first, 2);
  g_assert_cmpstr (text2, ==, "<pad>  The");
}

/* One tokenizer shared by several threads gives every thread the same ids. */
typedef struct
{
  AsTokenizer *tok;
  char **lines;
  gboolean target;
  GArray *const *want;
} ThreadJob;

static gpointer
encode_all (gpointer data)
{
  const ThreadJob *j = data;
  for (int i = 0; j->lines[i] != NULL; i++)
    {
      g_autoptr (GArray) ids = j->target
                                   ? as_tokenizer_encode_target (j->tok, j->lines[i], -1, NULL)
                                   : as_tokenizer_encode (j->tok, j->lines[i], -1, NULL);
      if (ids == NULL || ids->len != j->want[i]->len
          || memcmp (ids->data, j->want[i]->data, ids->len * 4) != 0)
        return GINT_TO_POINTER (i + 1);
    }
  return NULL;
}

static void
test_threads (void)
{
  JsonObject *manifest = marian_fixtures ();
  if (manifest == NULL)
    return;
  GError *error = NULL;
  g_autoptr (AsTokenizer) tok
      = as_tokenizer_load_marian (marian_fixture_path ("models", "shipped"), &error);
  g_assert_no_error (error);
  g_auto (GStrv) lines = read_lines (json_object_get_string_member (manifest, "lines"));
  guint n = g_strv_length (lines);
  g_autoptr (GPtrArray) want = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  for (guint i = 0; i < n; i++)
    g_ptr_array_add (want, as_tokenizer_encode_target (tok, lines[i], -1, NULL));
  GThread *threads[4];
  ThreadJob job = { tok, lines, TRUE, (GArray *const *) want->pdata };
  for (int t = 0; t < 4; t++)
    threads[t] = g_thread_new ("encode", encode_all, &job);
  for (int t = 0; t < 4; t++)
    g_assert_null (g_thread_join (threads[t]));
}

static void
test_bad_input (void)
{
  const char *dir = marian_fixture_path ("models", "shipped");
  if (dir == NULL)
    return;
  GError *error = NULL;
  g_autoptr (AsTokenizer) tok = as_tokenizer_load_marian (dir, &error);
  g_assert_no_error (error);
  g_assert_null (as_tokenizer_encode (tok, "abc\xff", -1, &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_INPUT);
  g_clear_error (&error);
  g_autofree char *missing = g_build_filename (test_tmpdir (), "no-such-folder", NULL);
  g_assert_null (as_tokenizer_load_marian (missing, &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, "source.spm"));
  g_clear_error (&error);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/marian-tokenizer/shipped", test_shipped);
  g_test_add_func ("/core/marian-tokenizer/spm-trained-at-test-time", test_small_spm);
  g_test_add_func ("/core/marian-tokenizer/vocab-gaps", test_vocab_gaps);
  g_test_add_func ("/core/marian-tokenizer/known-values", test_known_values);
  g_test_add_func ("/core/marian-tokenizer/threads", test_threads);
  g_test_add_func ("/core/marian-tokenizer/bad-input", test_bad_input);
  int status = g_test_run ();
  test_tmpdir_cleanup ();
  return status;
}
