/* test-tokenizer-scaling.c — every stage of encoding costs time linear in its input, and a
 * caller that needs a text's first ids encodes only what decides them.
 *
 * Time is measured by counting work, not by the clock (tests/README.md, "Tokenizer scaling"):
 * the stages count their inner-loop steps in a per-thread counter (tokenizer-work-private.h), so
 * the check cannot flake on a loaded machine. For every tokenizer — GPT-2's BPE, the three real
 * tokenizer.json files of tests/fixtures/tokenizers, a SentencePiece Unigram, the shipped
 * Marian model, and the hostile folders that once cost minutes (a WordPiece with
 * max_input_chars_per_word 2^31, 20,000 added tokens) — and for texts of every shape (prose, one
 * long word, runs of white space, CJK, digits, added tokens, language codes), a text ten times
 * as long must cost at most 15 times the steps (and at least 5: the count measures something).
 * as_tokenizer_prefix_for must find a prefix whose first ids are the whole text's, for a
 * fraction of the text's cost. */
#include <string.h>

#include "as-tokenizer.h"
#include "check-close.h"
#include "hostile-tokenizers.h"
#include "tokenizer-work-private.h"

/* The length the shorter text is built to; the longer one is ten times that. */
#define SHORT_BYTES 4096

typedef struct
{
  const char *name;
  AsTokenizer *(*load) (const char *name);
} Fixture;

static AsTokenizer *
load_gpt2 (const char *name)
{
  g_autofree char *vocab = test_source_path ("tests/fixtures/gpt2-tokenizer/vocab.json");
  g_autofree char *merges = test_source_path ("tests/fixtures/gpt2-tokenizer/merges.txt");
  g_autoptr (GError) error = NULL;
  AsTokenizer *t = as_tokenizer_load_bpe (vocab, merges, &error);
  g_assert_no_error (error);
  return t;
}

static AsTokenizer *
load_source_folder (const char *folder)
{
  g_autofree char *path = test_source_path (folder);
  g_autoptr (GError) error = NULL;
  AsTokenizer *t = g_str_has_suffix (folder, "en-de") ? as_tokenizer_load_marian (path, &error)
                                                      : as_tokenizer_load_folder (path, &error);
  g_assert_no_error (error);
  return t;
}

static AsTokenizer *
load_fixture (const char *name)
{
  g_autofree char *folder = g_strconcat ("tests/fixtures/tokenizers/", name, NULL);
  return load_source_folder (folder);
}

static AsTokenizer *
load_unigram (const char *name)
{
  return load_source_folder ("tests/fuzz/data/spm-unigram");
}

static AsTokenizer *
load_marian (const char *name)
{
  return load_source_folder ("data/models/attnscope-mini-en-de");
}

static AsTokenizer *
load_hostile (const char *name)
{
  HostileTokenizerCase c = g_str_equal (name, "wordpiece-long-word")
                               ? HOSTILE_TOK_WORDPIECE_LONG_WORD
                               : HOSTILE_TOK_ADDED_MANY;
  g_autofree char *dir = g_build_filename (test_tmpdir (), name, NULL);
  g_autoptr (GError) error = NULL;
  if (!g_file_test (dir, G_FILE_TEST_IS_DIR))
    g_assert_true (hostile_tokenizer_write (dir, c, &error));
  AsTokenizer *t = as_tokenizer_load_folder (dir, &error);
  g_assert_no_error (error);
  return t;
}

static const Fixture fixtures[] = {
  { "gpt2", load_gpt2 },
  { "gpt-neox", load_fixture },
  { "llama-spm", load_fixture },
  { "bert-bge", load_fixture },
  { "spm-unigram", load_unigram },
  { "marian-en-de", load_marian },
  { "wordpiece-long-word", load_hostile },
  { "added-many", load_hostile },
};

/* The shapes of text, each repeated to the length wanted. */
static const char *const units[] = {
  "The quick brown fox jumps over the lazy dog, doesn't it? ",
  "a",
  "ab",
  "  \t \n",
  "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\xe3\x81\xae\xe3\x83\x86\xe3\x82\xad\xe3\x82\xb9\xe3\x83"
  "\x88",
  "1234567890",
  "<t17> a  <T3>b <t5 x ",
  ">>de<< >> <<",
  "\xef\xac\x81\xef\xbc\xa1 \xe2\x91\xa0\xef\xb7\xba",
};

/* UNIT repeated to at least BYTES bytes. */
static char *
repeat (const char *unit, gsize bytes)
{
  GString *s = g_string_new (NULL);
  while (s->len < bytes)
    g_string_append (s, unit);
  return g_string_free (s, FALSE);
}

/* The steps encoding TEXT takes with T, or 0 when T refuses it. */
static guint64
steps_of (AsTokenizer *t, const char *text)
{
  g_autoptr (GError) error = NULL;
  guint64 before = as_tokenizer_work ();
  g_autoptr (GArray) ids = as_tokenizer_encode (t, text, -1, &error);
  guint64 steps = as_tokenizer_work () - before;
  return ids != NULL ? MAX (steps, 1) : 0;
}

static void
test_linear (gconstpointer data)
{
  const Fixture *f = data;
  /* two instances, so that neither size profits from the other's word caches */
  g_autoptr (AsTokenizer) small = f->load (f->name);
  g_autoptr (AsTokenizer) large = f->load (f->name);
  for (gsize u = 0; u < G_N_ELEMENTS (units); u++)
    {
      g_autofree char *x1 = repeat (units[u], SHORT_BYTES);
      g_autofree char *x10 = repeat (units[u], 10 * strlen (x1));
      guint64 s1 = steps_of (small, x1), s10 = steps_of (large, x10);
      g_autofree char *shown = g_strescape (units[u], NULL);
      g_test_message ("%s \"%s\": %" G_GUINT64_FORMAT " steps for %zu bytes, %" G_GUINT64_FORMAT
                      " for %zu (%.2f times)",
                      f->name, shown, s1, strlen (x1), s10, strlen (x10),
                      s1 > 0 ? (double) s10 / (double) s1 : 0.0);
      g_assert_cmpuint (s1 == 0, ==, s10 == 0); /* refused both times, or encoded both times */
      if (s1 == 0)
        continue;
      g_assert_cmpuint (s10, <=, 15 * s1);
      g_assert_cmpuint (s10, >=, 5 * s1);
    }
}

/* A text of COUNT words drawn from a small list, with some punctuation (seeded). */
static char *
prose (guint count, guint32 seed)
{
  static const char *const words[]
      = { "the",   "cat", "sat", "on",   "a",        "mat",   "while", "dogs", "ran", "far",
          "away,", "und", "der", "Hund", "schlief.", "naïve", "café",  "日本", "42",  "it's" };
  GRand *rng = g_rand_new_with_seed (seed);
  GString *s = g_string_new (NULL);
  for (guint i = 0; i < count; i++)
    g_string_append_printf (s, "%s%s", i > 0 ? " " : "",
                            words[g_rand_int_range (rng, 0, G_N_ELEMENTS (words))]);
  g_rand_free (rng);
  return g_string_free (s, FALSE);
}

/* The prefix gives the whole text's first MAX_IDS + 1 ids, for a fraction of its steps. */
static void
check_prefix (AsTokenizer *t, const char *name, const char *text, int max_ids)
{
  gsize length = strlen (text), prefix = 0;
  g_autoptr (GError) error = NULL;
  guint64 before = as_tokenizer_work ();
  g_assert_true (as_tokenizer_prefix_for (t, text, length, max_ids, &prefix, &error));
  g_assert_no_error (error);
  guint64 prefix_steps = as_tokenizer_work () - before;
  g_autoptr (AsEncoding) whole
      = as_tokenizer_encode_full (t, text, (gssize) length, NULL, 0, AS_ENCODE_NO_SPECIAL, &error);
  g_assert_no_error (error);
  guint64 whole_steps = as_tokenizer_work () - before - prefix_steps;
  g_autoptr (AsEncoding) cut
      = as_tokenizer_encode_full (t, text, (gssize) prefix, NULL, 0, AS_ENCODE_NO_SPECIAL, &error);
  g_assert_no_error (error);
  g_test_message ("%s, %d ids: a prefix of %zu of %zu bytes (%u of %u ids), %" G_GUINT64_FORMAT
                  " steps against %" G_GUINT64_FORMAT " for the whole text",
                  name, max_ids, prefix, length, cut->ids->len, whole->ids->len, prefix_steps,
                  whole_steps);
  if (whole->ids->len <= (guint) max_ids)
    {
      g_assert_cmpuint (prefix, ==, length);
      return;
    }
  g_assert_cmpuint (prefix, <, length);
  g_assert_cmpuint (cut->ids->len, >, (guint) max_ids);
  g_assert_cmpmem (cut->ids->data, (max_ids + 1) * sizeof (int32_t), whole->ids->data,
                   (max_ids + 1) * sizeof (int32_t));
  g_assert_cmpuint (prefix_steps * 5, <, whole_steps);
}

static void
test_prefix (gconstpointer data)
{
  const Fixture *f = data;
  g_autoptr (AsTokenizer) t = f->load (f->name);
  g_autofree char *long_prose = prose (60000, 7);
  g_autofree char *word = repeat ("ab", 200000);
  check_prefix (t, f->name, long_prose, 100);
  check_prefix (t, f->name, long_prose, 1000);
  check_prefix (t, f->name, word, 100);
  /* a text with fewer ids than asked for is its own prefix */
  g_autofree char *short_prose = prose (20, 8);
  check_prefix (t, f->name, short_prose, 100);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  for (gsize i = 0; i < G_N_ELEMENTS (fixtures); i++)
    {
      g_autofree char *linear
          = g_strdup_printf ("/core/tokenizer/scaling/linear/%s", fixtures[i].name);
      g_test_add_data_func (linear, &fixtures[i], test_linear);
      g_autofree char *prefix
          = g_strdup_printf ("/core/tokenizer/scaling/prefix/%s", fixtures[i].name);
      g_test_add_data_func (prefix, &fixtures[i], test_prefix);
    }
  int status = g_test_run ();
  test_tmpdir_cleanup ();
  return status;
}
