/* test-word-marks.c — marking the tokens that stand for a word (as-word-marks.h).
 *
 * With attnscope-mini's byte-level BPE: the lecture's "Spring is my favorite season" marks both
 * pieces "Sp" + "ring"; " spring" is one token with its space and is marked; "springs",
 * "offspring" and "springtime" are not the word; case is ignored, also beyond ASCII ("CAFÉ" for
 * "café", whose "É" is two byte tokens: both are marked); the token spans tile the text exactly.
 * With the word-level toy tokenizer the spans skip the spaces. Bad words are refused. */
#include <string.h>

#include "as-error.h"
#include "as-forward.h"
#include "as-model.h"
#include "as-word-marks.h"
#include "check-close.h"

/* Marks WORD in TEXT and returns the marked tokens as "tok|tok|..." (vocabulary strings). */
static char *
marked (AsModel *model, const char *text, const char *word, int *occurrences)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AsTrace) t = as_forward_text (model, text, FALSE, NULL, &error);
  g_assert_no_error (error);
  g_autofree gboolean *marks = g_new (gboolean, t->n_tokens);
  *occurrences = as_word_mark_tokens (marks, t, text, word);
  GString *out = g_string_new (NULL);
  for (int i = 0; i < t->n_tokens; i++)
    if (marks[i])
      g_string_append_printf (out, "%s%s", out->len > 0 ? "|" : "", t->tokens[i]);
  return g_string_free (out, FALSE);
}

static void
check (AsModel *model, const char *text, const char *word, int occurrences, const char *expected)
{
  int count = -1;
  g_autofree char *got = marked (model, text, word, &count);
  g_test_message ("\"%s\" in \"%s\": %d occurrence(s), tokens %s", word, text, count, got);
  g_assert_cmpint (count, ==, occurrences);
  g_assert_cmpstr (got, ==, expected);
}

static void
test_bpe (void)
{
  g_autoptr (AsModel) model = test_load_shipped_model ("attnscope-mini");
  check (model, "Spring is my favorite season", "spring", 1, "Sp|ring");
  check (model, "The water of the spring is very clean", "spring", 1, "Ġspring");
  check (model, "Last night I broke one spring in my bed", " Spring ", 1, "Ġspring");
  check (model, "Springs and offspring in springtime", "spring", 0, "");
  check (model, "spring, spring's SPRING", "spring", 3, "spring|Ġspring|ĠS|P|R|I|N|G");
  check (model, "Un café au lait, CAFÉ noir", "café", 2, "Ġca|f|Ã|©|ĠC|A|F|Ã|ī");
  check (model, "the man hit the car", "the man", 1, "the|Ġman");
}

static void
test_spans_tile_the_text (void)
{
  g_autoptr (AsModel) model = test_load_shipped_model ("attnscope-mini");
  const char *text = "  Spring, 猫 and é! ";
  g_autoptr (GError) error = NULL;
  g_autoptr (AsTrace) t = as_forward_text (model, text, FALSE, NULL, &error);
  g_assert_no_error (error);
  g_autofree int *begin = g_new (int, t->n_tokens), *end = g_new (int, t->n_tokens);
  as_token_spans (begin, end, t, text);
  g_assert_cmpint (begin[0], ==, 0);
  for (int i = 1; i < t->n_tokens; i++)
    g_assert_cmpint (begin[i], ==, end[i - 1]);
  g_assert_cmpint (end[t->n_tokens - 1], ==, (int) strlen (text));
}

static void
test_word_level (void)
{
  g_autoptr (AsModel) model = test_load_shipped_model ("seed-single-head");
  const char *text = "May  the force be with you";
  check (model, text, "FORCE", 1, "force");
  g_autoptr (GError) error = NULL;
  g_autoptr (AsTrace) t = as_forward_text (model, text, FALSE, NULL, &error);
  g_assert_no_error (error);
  int begin[6], end[6];
  as_token_spans (begin, end, t, text);
  const int expected_begin[6] = { 0, 5, 9, 15, 18, 23 }, expected_end[6] = { 3, 8, 14, 17, 22, 26 };
  g_assert_cmpmem (begin, sizeof begin, expected_begin, sizeof expected_begin);
  g_assert_cmpmem (end, sizeof end, expected_end, sizeof expected_end);
}

static void
test_bad_words (void)
{
  g_autoptr (GError) error = NULL;
  g_assert_true (as_word_check ("spring", &error));
  g_assert_false (as_word_check (" \t ", &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_INPUT);
  g_assert_nonnull (strstr (error->message, "empty"));
  g_clear_error (&error);
  g_assert_false (as_word_check ("spr\xffing", &error));
  g_assert_nonnull (strstr (error->message, "not valid UTF-8"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/word-marks/bpe", test_bpe);
  g_test_add_func ("/core/word-marks/spans-tile-the-text", test_spans_tile_the_text);
  g_test_add_func ("/core/word-marks/word-level", test_word_level);
  g_test_add_func ("/core/word-marks/bad-words", test_bad_words);
  return g_test_run ();
}
