/* test-readable-tokens.c — tokens as the token strip, the figures and `tokenize --readable` show
 * them (as-readable-tokens.h), on "猫 é 👍":
 * - GPT-2's byte-level BPE (tests/fixtures/gpt2-tokenizer) writes 猫 as three one-byte tokens, " é"
 *   as one, and " 👍" over two (" " and three bytes, then the fourth): "猫…" "…" "…" "␣é" "␣👍…" "…";
 * - a SentencePiece vocabulary with byte fallback (tests/fixtures/tokenizers/llama-spm) gives
 *   "<0xE7>" "<0x8C>" "<0xAB>" for 猫 and four byte tokens for 👍: "␣" "猫…" "…" "…" "␣é" "␣" "👍…"
 *   "…" "…" "…";
 * - where a token stands in a split character; without space marks " é" is "é" and a token of
 *   nothing but a space keeps its mark; a character cut off (its first byte alone) and a token
 *   without text show their vocabulary strings. */
#include "as-model.h"
#include "as-readable-tokens.h"
#include "check-close.h"

#define TEXT "猫 é 👍"

static char **
readable (const char *folder, AsReadableFlags flags, GArray **ids_out)
{
  g_autofree char *dir = test_source_path (folder);
  g_autoptr (GError) error = NULL;
  g_autoptr (AsTokenizer) tokenizer = as_model_load_tokenizer (dir, &error);
  g_assert_no_error (error);
  g_autoptr (AsEncoding) e
      = as_tokenizer_encode_full (tokenizer, TEXT, -1, NULL, -1, AS_ENCODE_NO_SPECIAL, &error);
  g_assert_no_error (error);
  if (ids_out != NULL)
    *ids_out = g_array_ref (e->ids);
  return as_readable_tokens_of_ids (tokenizer, (const int32_t *) e->ids->data, (int) e->ids->len,
                                    flags);
}

static void
assert_strv (char **actual, const char *const *expected)
{
  g_autofree char *joined = g_strjoinv ("|", actual);
  g_test_message ("%s", joined);
  g_assert_cmpuint (g_strv_length (actual), ==, g_strv_length ((char **) expected));
  for (guint i = 0; expected[i] != NULL; i++)
    g_assert_cmpstr (actual[i], ==, expected[i]);
}

static void
test_gpt2 (void)
{
  g_auto (GStrv) tokens = readable ("tests/fixtures/gpt2-tokenizer", AS_READABLE_DEFAULT, NULL);
  const char *const expected[] = { "猫…", "…", "…", "␣é", "␣👍…", "…", NULL };
  assert_strv (tokens, expected);
  g_auto (GStrv) plain
      = readable ("tests/fixtures/gpt2-tokenizer", AS_READABLE_NO_SPACE_MARKS, NULL);
  const char *const expected_plain[] = { "猫…", "…", "…", "é", "👍…", "…", NULL };
  assert_strv (plain, expected_plain);
}

static void
test_spm_byte_fallback (void)
{
  g_autoptr (GArray) ids = NULL;
  g_auto (GStrv) tokens
      = readable ("tests/fixtures/tokenizers/llama-spm", AS_READABLE_DEFAULT, &ids);
  /* 猫 is the byte tokens <0xE7> <0x8C> <0xAB> (ids 234, 143, 174) */
  g_assert_cmpint (g_array_index (ids, int32_t, 1), ==, 234);
  const char *const expected[] = { "␣", "猫…", "…", "…", "␣é", "␣", "👍…", "…", "…", "…", NULL };
  assert_strv (tokens, expected);
  g_auto (GStrv) plain
      = readable ("tests/fixtures/tokenizers/llama-spm", AS_READABLE_NO_SPACE_MARKS, NULL);
  const char *const expected_plain[]
      = { "␣", "猫…", "…", "…", "é", "␣", "👍…", "…", "…", "…", NULL };
  assert_strv (plain, expected_plain);
}

static void
test_split_part (void)
{
  const char *const texts[] = { "\xe7", "\x8c", "\xab", " \xc3\xa9", " \xf0\x9f\x91", "\x8d" };
  int part = 0, n_parts = 0;
  gunichar c = 0;
  g_assert_true (as_readable_split_part (texts, 6, 1, &part, &n_parts, &c));
  g_assert_cmpint (part, ==, 2);
  g_assert_cmpint (n_parts, ==, 3);
  g_assert_cmpuint (c, ==, 0x732B); /* 猫 */
  g_assert_true (as_readable_split_part (texts, 6, 5, &part, &n_parts, &c));
  g_assert_cmpint (part, ==, 2);
  g_assert_cmpint (n_parts, ==, 2);
  g_assert_cmpuint (c, ==, 0x1F44D); /* 👍 */
  g_assert_false (as_readable_split_part (texts, 6, 3, &part, &n_parts, &c));
}

static void
test_cut_and_empty (void)
{
  /* 猫's first two bytes with nothing after them, and a token that stands for no text */
  const char *const tokens[] = { "ç", "Į", "<|endoftext|>", "Ġa\tb", NULL };
  const char *const texts[] = { "\xe7", "\x8c", "", " a\tb" };
  g_auto (GStrv) labels = as_readable_tokens (tokens, texts, 4, AS_READABLE_DEFAULT);
  const char *const expected[] = { "ç", "Į", "<|endoftext|>", "␣a⇥b", NULL };
  assert_strv (labels, expected);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/readable-tokens/gpt2-byte-level", test_gpt2);
  g_test_add_func ("/core/readable-tokens/spm-byte-fallback", test_spm_byte_fallback);
  g_test_add_func ("/core/readable-tokens/split-part", test_split_part);
  g_test_add_func ("/core/readable-tokens/cut-and-empty", test_cut_and_empty);
  return g_test_run ();
}
