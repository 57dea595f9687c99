/* test-tokenizer-family-peer.c — the T5, Flan-T5, mT5, BART and Gemma tokenizers against the
 * real Hugging Face library, id for id.
 *
 * tests/reference/tokenizer-peer/make-corpus.py writes the corpus (about 3,500 texts in many
 * scripts, see test-tokenizer-hf-peer.c); make-family-tokenizers.py assembles, as transformers'
 * convert_slow_tokenizer.py does, tokenizer.json files of the families' shapes on vocabularies
 * trained here with Debian's sentencepiece (t5, t5-current, mt5, gemma) or taken from GPT-2's
 * (bart); hf-peer.js --named-only encodes every text with the npm package `tokenizers`. The
 * corpus, the files and HF's ids are made once per build folder (reference-cache.h).
 *
 * For every tokenizer and text, attnscope must give HF's ids with and without special tokens,
 * the decoded text of the plain ids, the target encoding (transformers' tokenizer(text_target=…):
 * T5TokenizerFast and BartTokenizerFast have no target side, so it is the text's encoding with its
 * special tokens — T5's ends with </s>, BART's is <s> … </s>; as_tokenizer_encode_target must give
 * the same), and for every 7th text the pair with the next text and its type ids. No tolerance:
 * the test asserts 0 mismatches and prints the counts. Without python3/node/npm or the registry it
 * is skipped, saying so. */
#include <string.h>

#include <json-glib/json-glib.h>

#include "as-tokenizer.h"
#include "check-close.h"
#include "peer-ids.h"
#include "reference-cache.h"

#define PEER_PACKAGE "tokenizers@0.23.2"

static const char *const family_names[] = { "t5", "t5-current", "mt5", "bart", "gemma" };

static const char *const family_sources[] = {
  "tests/reference/tokenizer-peer/make-corpus.py",
  "tests/reference/tokenizer-peer/make-spm-tokenizer.py",
  "tests/reference/tokenizer-peer/make-family-tokenizers.py",
  "tests/reference/tokenizer-peer/hf-peer.js",
  NULL,
};

static const ReferenceCache family_cache = {
  .folder = "tokenizer-family-peer",
  .script = "tests/reference/tokenizer-peer/make-family-tokenizers.py",
  .sources = family_sources,
};

typedef struct
{
  guint texts, pairs, targets, mismatches;
} Stats;

/* The family's target shape, independently of HF's ids: T5's ends with </s>, BART's is
 * <s> … </s>, Gemma's starts with <bos>. */
static void
check_target_shape (AsTokenizer *tokenizer, Stats *stats, const char *name, guint line,
                    const char *text, const GArray *target)
{
  int32_t first = target->len ? g_array_index (target, int32_t, 0) : -1;
  int32_t last = target->len ? g_array_index (target, int32_t, target->len - 1) : -1;
  const char *want_first = NULL, *want_last = NULL;
  if (g_str_has_prefix (name, "t5") || strcmp (name, "mt5") == 0)
    want_last = "</s>";
  else if (strcmp (name, "bart") == 0)
    want_first = "<s>", want_last = "</s>";
  else
    want_first = "<bos>";
  const char *got_first = as_tokenizer_get_token (tokenizer, first);
  const char *got_last = as_tokenizer_get_token (tokenizer, last);
  if ((want_first != NULL && g_strcmp0 (got_first, want_first) != 0)
      || (want_last != NULL && g_strcmp0 (got_last, want_last) != 0))
    peer_report_mismatch (&stats->mismatches, name, line, "target shape", text,
                          got_first ? got_first : "(none)", want_first ? want_first : want_last);
}

static void
check_row (AsTokenizer *tokenizer, Stats *stats, const char *name, guint line, const char *text,
           const char *next, JsonObject *row)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AsEncoding) with
      = as_tokenizer_encode_full (tokenizer, text, -1, NULL, 0, AS_ENCODE_DEFAULT, &error);
  g_assert_no_error (error);
  g_autoptr (AsEncoding) plain
      = as_tokenizer_encode_full (tokenizer, text, -1, NULL, 0, AS_ENCODE_NO_SPECIAL, &error);
  g_assert_no_error (error);
  g_autoptr (GArray) target = as_tokenizer_encode_target (tokenizer, text, -1, &error);
  g_assert_no_error (error);
  g_autoptr (GArray) hf_with = peer_json_ids (row, "ids");
  g_autoptr (GArray) hf_plain = peer_json_ids (row, "plain");
  peer_compare_ids (&stats->mismatches, name, line, "special tokens", text, with->ids, hf_with);
  peer_compare_ids (&stats->mismatches, name, line, "no special tokens", text, plain->ids,
                    hf_plain);
  peer_compare_ids (&stats->mismatches, name, line, "text_target", text, target, hf_with);
  check_target_shape (tokenizer, stats, name, line, text, target);
  stats->targets++;

  stats->texts++;
  stats->pairs += peer_check_decode_and_pair (tokenizer, &stats->mismatches, name, line, text, next,
                                              row, hf_plain);
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

static int
spawn_logged (const char *what, const char *const *argv)
{
  g_autofree char *out = NULL, *err = NULL;
  int status = test_spawn (argv, &out, &err);
  if (status != 0)
    g_test_message ("%s failed (%d): %s", what, status, err ? err : "");
  return status;
}

/* Makes the corpus, the tokenizers and HF's ids in the cache folder DIR (made under a temporary
 * name, then renamed). FALSE with the test skipped when npm cannot install the peer. */
static gboolean
make_peer_results (const char *dir, const char *python, const char *node)
{
  g_autofree char *tmp = reference_cache_temporary (dir, "");
  g_assert_cmpint (g_mkdir_with_parents (tmp, 0755), ==, 0);
  g_autofree char *corpus = g_build_filename (tmp, "corpus.jsonl", NULL);
  g_autofree char *train = g_build_filename (tmp, "train.txt", NULL);
  g_autofree char *tokenizers = g_build_filename (tmp, "tokenizers", NULL);
  g_autofree char *peer = g_build_filename (tmp, "peer", NULL);
  g_autofree char *workdir = g_build_filename (test_tmpdir (), "npm", NULL);
  g_autofree char *make_corpus = test_source_path ("tests/reference/tokenizer-peer/make-corpus.py");
  g_autofree char *make_family = test_source_path (family_cache.script);
  g_autofree char *hf_peer = test_source_path ("tests/reference/tokenizer-peer/hf-peer.js");
  g_autofree char *gpt2 = test_source_path ("tests/fixtures/gpt2-tokenizer");

  const char *corpus_argv[] = { python, make_corpus, corpus, NULL };
  g_assert_cmpint (spawn_logged ("make-corpus.py", corpus_argv), ==, 0);
  g_auto (GStrv) texts = read_corpus (corpus);
  g_autoptr (GString) all = g_string_new (NULL);
  for (guint i = 0; texts[i] != NULL; i++)
    g_string_append_printf (all, "%s\n", texts[i]);
  g_assert_true (g_file_set_contents (train, all->str, (gssize) all->len, NULL));

  const char *family_argv[] = { python, make_family, train, gpt2, tokenizers, NULL };
  g_assert_cmpint (spawn_logged ("make-family-tokenizers.py", family_argv), ==, 0);

  g_autoptr (GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (argv, g_strdup (node));
  g_ptr_array_add (argv, g_strdup (hf_peer));
  g_ptr_array_add (argv, g_strdup (workdir));
  g_ptr_array_add (argv, g_strdup (corpus));
  g_ptr_array_add (argv, g_strdup (train));
  g_ptr_array_add (argv, g_strdup (peer));
  g_ptr_array_add (argv, g_strdup ("--named-only"));
  for (guint i = 0; i < G_N_ELEMENTS (family_names); i++)
    g_ptr_array_add (argv, g_strdup_printf ("%s=%s/%s/tokenizer.json", family_names[i], tokenizers,
                                            family_names[i]));
  g_ptr_array_add (argv, NULL);
  int status = spawn_logged ("hf-peer.js", (const char *const *) argv->pdata);
  if (status == 3)
    {
      g_test_skip ("npm could not install " PEER_PACKAGE " (registry unreachable?)");
      const char *rm[] = { "/bin/rm", "-rf", tmp, NULL };
      test_spawn (rm, NULL, NULL);
      return FALSE;
    }
  g_assert_cmpint (status, ==, 0);
  reference_cache_publish (tmp, dir);
  return TRUE;
}

static guint
compare_family (const char *dir, const char *name, GStrv texts, guint *n_texts, guint *n_pairs)
{
  g_autofree char *path = g_strdup_printf ("%s/tokenizers/%s/tokenizer.json", dir, name);
  g_autofree char *results = g_strdup_printf ("%s/peer/%s.jsonl", dir, name);
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
  g_test_message ("%-11s %u texts, %u pairs, %u targets: %u mismatches", name, stats.texts,
                  stats.pairs, stats.targets, stats.mismatches);
  *n_texts += stats.texts;
  *n_pairs += stats.pairs;
  return stats.mismatches;
}

static void
test_family_peer (void)
{
  const char *python = test_python_with ("sentencepiece");
  if (python == NULL)
    return;
  g_autofree char *node = g_find_program_in_path ("node");
  if (node == NULL)
    node = g_find_program_in_path ("nodejs");
  g_autofree char *npm = g_find_program_in_path ("npm");
  if (node == NULL || npm == NULL)
    {
      g_test_skip ("the family tokenizer peer check needs node and npm; install the Debian "
                   "packages nodejs and npm");
      return;
    }
  g_autofree char *dir = reference_cache_path (&family_cache, "family", PEER_PACKAGE);
  if (!g_file_test (dir, G_FILE_TEST_IS_DIR) && !make_peer_results (dir, python, node))
    return;

  g_autofree char *corpus = g_build_filename (dir, "corpus.jsonl", NULL);
  g_auto (GStrv) texts = read_corpus (corpus);
  guint total_texts = 0, total_pairs = 0, mismatches = 0;
  for (guint i = 0; i < G_N_ELEMENTS (family_names); i++)
    mismatches += compare_family (dir, family_names[i], texts, &total_texts, &total_pairs);
  g_test_message ("all: %u texts, %u pairs (and as many targets as texts): %u mismatches",
                  total_texts, total_pairs, mismatches);
  g_assert_cmpuint (g_strv_length (texts), >=, 3000);
  g_assert_cmpuint (total_pairs, >=, G_N_ELEMENTS (family_names) * 400);
  g_assert_cmpuint (mismatches, ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/tokenizer/family/peer-npm", test_family_peer);
  int status = g_test_run ();
  test_tmpdir_cleanup ();
  return status;
}
