/* test-tokenizer-hostile.c — hostile tokenizer files: every folder of hostile-tokenizers.h is
 * refused with one error naming the file and the problem, either when loading or when encoding,
 * or — for the cases that once took minutes — encodes its text, without a crash, a hang (the
 * suite's timeout bounds the test) or a sanitizer report (the ASan+UBSan run of the core suite).
 * A catastrophic regex must give up, not run for hours; the same tokenizer still encodes texts it
 * can match. */
#include <string.h>

#include "as-error.h"
#include "as-tokenizer.h"
#include "check-close.h"
#include "hostile-tokenizers.h"

static void
test_case (gconstpointer data)
{
  HostileTokenizerCase c = GPOINTER_TO_INT (data);
  g_autofree char *dir = g_build_filename (test_tmpdir (), hostile_tokenizer_name (c), NULL);
  g_autoptr (GError) error = NULL;
  g_assert_true (hostile_tokenizer_write (dir, c, &error));
  g_assert_no_error (error);

  g_autofree char *config = g_build_filename (dir, "config.json", NULL);
  g_autoptr (AsTokenizer) tokenizer = g_file_test (config, G_FILE_TEST_EXISTS)
                                          ? as_tokenizer_load_marian (dir, &error)
                                          : as_tokenizer_load_folder (dir, &error);
  g_autoptr (GArray) ids = NULL;
  if (tokenizer != NULL)
    ids = as_tokenizer_encode (tokenizer, hostile_tokenizer_text (c), -1, &error);
  if (hostile_tokenizer_needle (c) == NULL)
    {
      g_assert_no_error (error);
      g_assert_nonnull (ids);
      g_test_message ("%s: %u ids", hostile_tokenizer_name (c), ids->len);
      if (hostile_tokenizer_ids (c) >= 0)
        g_assert_cmpuint (ids->len, ==, (guint) hostile_tokenizer_ids (c));
      return;
    }
  g_assert_null (ids);
  g_assert_nonnull (error);
  g_test_message ("%s: %s", hostile_tokenizer_name (c), error->message);
  g_autofree char *file = g_build_filename (dir, hostile_tokenizer_file (c), NULL);
  g_assert_nonnull (strstr (error->message, file));
  g_assert_nonnull (strstr (error->message, hostile_tokenizer_needle (c)));
  g_assert_true (g_utf8_validate (error->message, -1, NULL));
}

/* The pattern that backtracks without end on "aaa...ab" is fine where it matches quickly: the
 * limit refuses the hostile text only, and the tokenizer stays usable. */
static void
test_backtracking_limit_is_per_text (void)
{
  g_autofree char *dir = g_build_filename (test_tmpdir (), "backtrack-usable", NULL);
  g_autoptr (GError) error = NULL;
  g_assert_true (hostile_tokenizer_write (dir, HOSTILE_TOK_REGEX_BACKTRACK, &error));
  g_autoptr (AsTokenizer) tokenizer = as_tokenizer_load_folder (dir, &error);
  g_assert_no_error (error);
  /* (a+)+$ matches "aaaa" as one piece (unknown to the WordLevel vocabulary: <unk> = 2) */
  g_autoptr (GArray) ids = as_tokenizer_encode (tokenizer, "b aaaa", -1, &error);
  g_assert_no_error (error);
  g_autoptr (GString) got = g_string_new (NULL);
  for (guint i = 0; i < ids->len; i++)
    g_string_append_printf (got, "%s%d", i > 0 ? " " : "", g_array_index (ids, int32_t, i));
  g_assert_cmpstr (got->str, ==, "2 2");
  g_autoptr (GArray) refused = as_tokenizer_encode (
      tokenizer, hostile_tokenizer_text (HOSTILE_TOK_REGEX_BACKTRACK), -1, &error);
  g_assert_null (refused);
  g_assert_error (error, AS_ERROR, AS_ERROR_INPUT);
  g_assert_nonnull (strstr (error->message, "match limit"));
  g_clear_error (&error);
  g_autoptr (GArray) again = as_tokenizer_encode (tokenizer, "aa", -1, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (again->len, ==, 1);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  for (HostileTokenizerCase c = 0; c < HOSTILE_TOK_N_CASES; c++)
    {
      g_autofree char *path
          = g_strdup_printf ("/core/tokenizer/hostile/%s", hostile_tokenizer_name (c));
      g_test_add_data_func (path, GINT_TO_POINTER (c), test_case);
    }
  g_test_add_func ("/core/tokenizer/hostile/backtracking-limit-is-per-text",
                   test_backtracking_limit_is_per_text);
  return g_test_run ();
}
