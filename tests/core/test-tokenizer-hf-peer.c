/* test-tokenizer-hf-peer.c — tokenizer.json against the real Hugging Face library, id for id.
 *
 * tests/reference/tokenizer-peer/make-corpus.py writes ~3,000 varied texts (Latin, CJK,
 * Arabic, Devanagari, emoji with ZWJ sequences, combining marks, Unicode spaces, long digit
 * runs, code, contractions in odd cases, special-token strings inside text, random Unicode 14
 * text); make-spm-tokenizer.py turns a SentencePiece Unigram model (nmt_nfkc) into a
 * tokenizer.json with a Precompiled normalizer; hf-peer.js installs the npm package `tokenizers`
 * (Hugging Face's Rust library), builds the synthetic tokenizers (its own trainers, then the
 * components each exercises: Unigram with byte fallback, Metaspace first/always/never,
 * WordLevel with Digits and Punctuation, added tokens with lstrip/rstrip/single_word/
 * normalized, Bert/Roberta/Template/Sequence post-processors, WordPiece with BertNormalizer,
 * Split with every behaviour and invert, BPE with byte fallback, prefix and suffix, ignore_merges,
 * the Llama 3 split regex, ByteLevel, Qwen2/Qwen3's shape: NFC, their split regex, ByteLevel, no
 * BOS, <think> as a plain added token) and encodes every text with each of them, with the three
 * real tokenizers of tests/fixtures/tokenizers/ and with Phi-3's shape (llama-spm plus Phi-3's
 * eleven added tokens, the chat markers with rstrip). For every tokenizer and text: the ids with
 * and without special tokens and the decoded text must be HF's, and for every 7th text the pair
 * (with the next text) with its type ids. Without node/npm or without the registry the test is
 * skipped, saying so. */
#include <string.h>

#include <json-glib/json-glib.h>

#include "as-tokenizer.h"
#include "check-close.h"
#include "peer-ids.h"

typedef struct
{
  guint texts, pairs, mismatches;
  double seconds; /* our encoding time */
} Stats;

static void
check_row (AsTokenizer *tokenizer, Stats *stats, const char *name, guint line, const char *text,
           const char *next, JsonObject *row)
{
  g_autoptr (GError) error = NULL;
  gint64 start = g_get_monotonic_time ();
  g_autoptr (AsEncoding) with
      = as_tokenizer_encode_full (tokenizer, text, -1, NULL, 0, AS_ENCODE_DEFAULT, &error);
  g_assert_no_error (error);
  g_autoptr (AsEncoding) plain
      = as_tokenizer_encode_full (tokenizer, text, -1, NULL, 0, AS_ENCODE_NO_SPECIAL, &error);
  g_assert_no_error (error);
  stats->seconds += (double) (g_get_monotonic_time () - start) / G_USEC_PER_SEC;
  g_autoptr (GArray) hf_with = peer_json_ids (row, "ids");
  g_autoptr (GArray) hf_plain = peer_json_ids (row, "plain");
  peer_compare_ids (&stats->mismatches, name, line, "special tokens", text, with->ids, hf_with);
  peer_compare_ids (&stats->mismatches, name, line, "no special tokens", text, plain->ids,
                    hf_plain);

  stats->texts++;
  stats->pairs += peer_check_decode_and_pair (tokenizer, &stats->mismatches, name, line, text, next,
                                              row, hf_plain);
}

/* Compares one tokenizer's results; returns the number of mismatches. */
static guint
compare_tokenizer (const char *name, const char *path, GStrv texts, const char *results)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AsTokenizer) tokenizer = as_tokenizer_load_json (path, &error);
  g_assert_no_error (error);
  g_autofree char *rows_text = NULL;
  g_assert_true (g_file_get_contents (results, &rows_text, NULL, NULL));
  g_auto (GStrv) rows = g_strsplit (rows_text, "\n", -1);

  Stats stats = { 0 };
  guint n = g_strv_length (texts);
  for (guint i = 0; i < n; i++)
    {
      g_assert_nonnull (rows[i]);
      g_autoptr (JsonNode) row = json_from_string (rows[i], &error);
      g_assert_no_error (error);
      check_row (tokenizer, &stats, name, i + 1, texts[i], texts[(i + 1) % n],
                 json_node_get_object (row));
    }
  g_test_message ("%-30s %u texts, %u pairs: %u mismatches (our encoding %.2f s)", name,
                  stats.texts, stats.pairs, stats.mismatches, stats.seconds);
  g_assert_cmpuint (stats.texts, >=, 2000);
  return stats.mismatches;
}

/* The corpus texts (one JSON string per line). */
static GStrv
read_corpus (const char *path)
{
  g_autofree char *contents = NULL;
  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  g_auto (GStrv) lines = g_strsplit (contents, "\n", -1);
  GPtrArray *texts = g_ptr_array_new ();
  for (guint i = 0; lines[i] != NULL; i++)
    {
      if (lines[i][0] == '\0')
        continue;
      g_autoptr (JsonNode) node = json_from_string (lines[i], NULL);
      g_assert_nonnull (node);
      g_ptr_array_add (texts, g_strdup (json_node_get_string (node)));
    }
  g_ptr_array_add (texts, NULL);
  return (GStrv) g_ptr_array_free (texts, FALSE);
}

/* Joins the corpus texts into one training file. */
static void
write_training_text (const char *path, GStrv texts)
{
  g_autoptr (GString) all = g_string_new (NULL);
  for (guint i = 0; texts[i] != NULL; i++)
    g_string_append_printf (all, "%s\n", texts[i]);
  g_assert_true (g_file_set_contents (path, all->str, (gssize) all->len, NULL));
}

static void
test_peer (void)
{
  const char *python = g_getenv ("ATTNSCOPE_PYTHON");
  g_autofree char *node = g_find_program_in_path ("node");
  if (node == NULL)
    node = g_find_program_in_path ("nodejs");
  g_autofree char *npm = g_find_program_in_path ("npm");
  if (python == NULL || *python == '\0' || node == NULL || npm == NULL)
    {
      g_test_skip ("the tokenizer.json peer check needs python3 (ATTNSCOPE_PYTHON), node and "
                   "npm; install the Debian packages python3, nodejs and npm");
      return;
    }
  const char *tmp = test_tmpdir ();
  g_autofree char *corpus = g_build_filename (tmp, "corpus.jsonl", NULL);
  g_autofree char *train = g_build_filename (tmp, "train.txt", NULL);
  g_autofree char *spm_dir = g_build_filename (tmp, "spm-unigram", NULL);
  g_autofree char *spm_json = g_build_filename (spm_dir, "tokenizer.json", NULL);
  g_autofree char *out_dir = g_build_filename (tmp, "peer", NULL);
  g_autofree char *workdir = g_build_filename (tmp, "npm", NULL);
  g_autofree char *make_corpus = test_source_path ("tests/reference/tokenizer-peer/make-corpus.py");
  g_autofree char *make_spm
      = test_source_path ("tests/reference/tokenizer-peer/make-spm-tokenizer.py");
  g_autofree char *script = test_source_path ("tests/reference/tokenizer-peer/hf-peer.js");
  g_autofree char *out = NULL, *err = NULL;

  const char *corpus_argv[] = { python, make_corpus, corpus, NULL };
  int status = test_spawn (corpus_argv, &out, &err);
  if (status != 0)
    g_test_message ("make-corpus.py failed (%d): %s", status, err);
  g_assert_cmpint (status, ==, 0);
  g_auto (GStrv) texts = read_corpus (corpus);
  write_training_text (train, texts);

  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  const char *spm_argv[] = { python, make_spm, train, spm_dir, NULL };
  status = test_spawn (spm_argv, &out, &err);
  if (status != 0)
    g_test_message ("make-spm-tokenizer.py failed (%d): %s", status, err);
  g_assert_cmpint (status, ==, 0);

  const char *real[] = { "llama-spm", "gpt-neox", "bert-bge" };
  g_autoptr (GPtrArray) peer_argv = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (peer_argv, g_strdup (node));
  g_ptr_array_add (peer_argv, g_strdup (script));
  g_ptr_array_add (peer_argv, g_strdup (workdir));
  g_ptr_array_add (peer_argv, g_strdup (corpus));
  g_ptr_array_add (peer_argv, g_strdup (train));
  g_ptr_array_add (peer_argv, g_strdup (out_dir));
  g_ptr_array_add (peer_argv, g_strdup_printf ("spm-unigram=%s", spm_json));
  for (guint i = 0; i < G_N_ELEMENTS (real); i++)
    {
      g_autofree char *rel
          = g_strdup_printf ("tests/fixtures/tokenizers/%s/tokenizer.json", real[i]);
      g_autofree char *path = test_source_path (rel);
      g_ptr_array_add (peer_argv, g_strdup_printf ("%s=%s", real[i], path));
    }
  g_ptr_array_add (peer_argv, NULL);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  status = test_spawn ((const char *const *) peer_argv->pdata, &out, &err);
  if (status == 3)
    {
      g_autofree char *reason
          = g_strdup_printf ("npm could not install tokenizers (registry unreachable?): %s", err);
      g_test_skip (reason);
      return;
    }
  if (status != 0)
    g_test_message ("hf-peer.js failed (%d): %s", status, err);
  g_assert_cmpint (status, ==, 0);

  g_autofree char *names_path = g_build_filename (out_dir, "names.txt", NULL);
  g_autofree char *names = NULL;
  g_assert_true (g_file_get_contents (names_path, &names, NULL, NULL));
  g_auto (GStrv) lines = g_strsplit (names, "\n", -1);
  guint tokenizers = 0, mismatches = 0;
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_auto (GStrv) parts = g_strsplit (lines[i], "\t", 2);
      if (parts[0] == NULL || parts[1] == NULL)
        continue;
      g_autofree char *results = g_strdup_printf ("%s/%s.jsonl", out_dir, parts[0]);
      mismatches += compare_tokenizer (parts[0], parts[1], texts, results);
      tokenizers++;
    }
  g_assert_cmpuint (tokenizers, >=, 17);
  g_assert_cmpuint (mismatches, ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/tokenizer/json/peer-npm", test_peer);
  int status = g_test_run ();
  test_tmpdir_cleanup ();
  return status;
}
