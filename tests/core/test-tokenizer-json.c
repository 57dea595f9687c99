/* test-tokenizer-json.c — tokenizer.json read and run as Hugging Face does.
 *
 * Real vocabularies (tests/fixtures/tokenizers/, see its README): every text of each folder's
 * tests.inp must give exactly the ids of tests.out (what transformers' AutoTokenizer gave,
 * add_special_tokens=False), and with the default special tokens what HF adds (Llama <s>, BERT
 * [CLS] … [SEP], nothing for GPT-NeoX). Known values from the fixtures' READMEs, the token texts
 * the views show, a BERT folder with only vocab.txt, the folder rule (tokenizer.json wins), and
 * malformed files refused with the JSON path of the component at fault. */
#include <string.h>

#include "as-error.h"
#include "as-tokenizer.h"
#include "check-close.h"

static AsTokenizer *
load_fixture (const char *name)
{
  g_autofree char *rel = g_strdup_printf ("tests/fixtures/tokenizers/%s", name);
  g_autofree char *folder = test_source_path (rel);
  g_autoptr (GError) error = NULL;
  AsTokenizer *tokenizer = as_tokenizer_load_folder (folder, &error);
  g_assert_no_error (error);
  return tokenizer;
}

static GArray *
encode (AsTokenizer *tokenizer, const char *text, AsEncodeFlags flags)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AsEncoding) e = as_tokenizer_encode_full (tokenizer, text, -1, NULL, 0, flags, &error);
  g_assert_no_error (error);
  return g_steal_pointer (&e->ids);
}

static char *
ids_string (const GArray *ids)
{
  GString *s = g_string_new (NULL);
  for (guint i = 0; i < ids->len; i++)
    g_string_append_printf (s, "%s%d", i ? " " : "", g_array_index (ids, int32_t, i));
  return g_string_free (s, FALSE);
}

static void
assert_ids (AsTokenizer *tokenizer, const char *text, AsEncodeFlags flags, const char *expected)
{
  g_autoptr (GArray) ids = encode (tokenizer, text, flags);
  g_autofree char *got = ids_string (ids);
  if (strcmp (got, expected) != 0)
    g_test_message ("text \"%s\": got [%s], expected [%s]", text, got, expected);
  g_assert_cmpstr (got, ==, expected);
}

/* Every text of tests.inp against its line of tests.out; returns the number of texts. */
static guint
check_tests_file (const char *name, AsTokenizer *tokenizer, const char *prefix, const char *suffix)
{
  g_autofree char *rel_in = g_strdup_printf ("tests/fixtures/tokenizers/%s/tests.inp", name);
  g_autofree char *rel_out = g_strdup_printf ("tests/fixtures/tokenizers/%s/tests.out", name);
  g_autofree char *in_path = test_source_path (rel_in), *out_path = test_source_path (rel_out);
  g_autofree char *inp = NULL, *out = NULL;
  g_assert_true (g_file_get_contents (in_path, &inp, NULL, NULL));
  g_assert_true (g_file_get_contents (out_path, &out, NULL, NULL));
  g_auto (GStrv) texts = g_strsplit (inp, "\n__ggml_vocab_test__\n", -1);
  g_auto (GStrv) lines = g_strsplit (out, "\n", -1);
  guint n = 0, bad = 0;
  for (guint i = 0; texts[i] != NULL && lines[i] != NULL; i++)
    {
      if (texts[i + 1] == NULL && texts[i][0] == '\0')
        break; /* the file ends with the separator */
      g_autofree char *expected = g_strstrip (g_strdup (lines[i]));
      g_autoptr (GArray) ids = encode (tokenizer, texts[i], AS_ENCODE_NO_SPECIAL);
      g_autofree char *got = ids_string (ids);
      if (strcmp (got, expected) != 0 && bad++ < 5)
        g_test_message ("%s text %u \"%s\": got [%s], expected [%s]", name, i, texts[i], got,
                        expected);
      /* with the default special tokens */
      g_autoptr (GArray) with = encode (tokenizer, texts[i], AS_ENCODE_DEFAULT);
      g_autofree char *with_got = ids_string (with);
      g_autofree char *with_expected = g_strjoin (
          "", prefix, expected, *expected != '\0' && *suffix != '\0' ? " " : "",
          *expected == '\0' && *prefix != '\0' && *suffix != '\0' ? "" : "", suffix, NULL);
      g_strstrip (with_expected);
      if (strcmp (with_got, with_expected) != 0 && bad++ < 5)
        g_test_message ("%s text %u with special tokens: got [%s], expected [%s]", name, i,
                        with_got, with_expected);
      n++;
    }
  g_assert_cmpuint (bad, ==, 0);
  return n;
}

static void
test_real_llama (void)
{
  g_autoptr (AsTokenizer) t = load_fixture ("llama-spm");
  g_assert_cmpuint (check_tests_file ("llama-spm", t, "1 ", ""), ==, 46);
  assert_ids (t, "Hello world", AS_ENCODE_DEFAULT, "1 15043 3186");
  assert_ids (t, " Hello", AS_ENCODE_NO_SPECIAL, "29871 15043");
  assert_ids (t, "", AS_ENCODE_DEFAULT, "1");
  /* normalized added tokens are searched as "▁<s>": "a<s>b" has no <s>, "a <s> b" has one */
  g_autoptr (GArray) no_bos = encode (t, "a<s>b", AS_ENCODE_NO_SPECIAL);
  for (guint i = 0; i < no_bos->len; i++)
    g_assert_cmpint (g_array_index (no_bos, int32_t, i), !=, 1);
  g_autoptr (GArray) bos = encode (t, "a <s> b", AS_ENCODE_NO_SPECIAL);
  gboolean found = FALSE;
  for (guint i = 0; i < bos->len; i++)
    found = found || g_array_index (bos, int32_t, i) == 1;
  g_assert_true (found);
}

static void
test_real_neox (void)
{
  g_autoptr (AsTokenizer) t = load_fixture ("gpt-neox");
  g_assert_cmpuint (check_tests_file ("gpt-neox", t, "", ""), ==, 46);
  assert_ids (t, "  Hello", AS_ENCODE_DEFAULT, "50276 12092"); /* a non-special added token */
  assert_ids (t, "Hello world", AS_ENCODE_DEFAULT, "12092 1533");
}

static void
test_real_bert (void)
{
  g_autoptr (AsTokenizer) t = load_fixture ("bert-bge");
  g_assert_cmpuint (check_tests_file ("bert-bge", t, "101 ", "102"), ==, 46);
  assert_ids (t, "Hello, my dog is cute", AS_ENCODE_DEFAULT,
              "101 7592 1010 2026 3899 2003 10140 102");
  assert_ids (t, "", AS_ENCODE_DEFAULT, "101 102");
  assert_ids (t, "[CLS] hi", AS_ENCODE_NO_SPECIAL, "101 7632");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/tokenizer/json/real/llama-spm", test_real_llama);
  g_test_add_func ("/core/tokenizer/json/real/gpt-neox", test_real_neox);
  g_test_add_func ("/core/tokenizer/json/real/bert-bge", test_real_bert);
  int status = g_test_run ();
  test_tmpdir_cleanup ();
  return status;
}
