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
#include "hf-regex-private.h"

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

/* "A B C" from the non-empty ones of three id lists. */
static char *
join_ids (const char *a, const char *b, const char *c)
{
  GString *s = g_string_new (NULL);
  const char *parts[] = { a, b, c };
  for (guint i = 0; i < G_N_ELEMENTS (parts); i++)
    if (*parts[i] != '\0')
      g_string_append_printf (s, "%s%s", s->len > 0 ? " " : "", parts[i]);
  return g_string_free (s, FALSE);
}

/* Every text of tests.inp against its line of tests.out (ids without special tokens), and with
 * PREFIX and SUFFIX ids around them with the default special tokens; returns the number of
 * texts. */
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
      g_autofree char *with_expected = join_ids (prefix, expected, suffix);
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
  g_assert_cmpuint (check_tests_file ("llama-spm", t, "1", ""), ==, 46);
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
  g_assert_cmpuint (check_tests_file ("bert-bge", t, "101", "102"), ==, 46);
  assert_ids (t, "Hello, my dog is cute", AS_ENCODE_DEFAULT,
              "101 7592 1010 2026 3899 2003 10140 102");
  assert_ids (t, "", AS_ENCODE_DEFAULT, "101 102");
  assert_ids (t, "[CLS] hi", AS_ENCODE_NO_SPECIAL, "101 7632");
}

/* ---- token texts: what the views show for one token ---- */

static void
assert_text (AsTokenizer *t, const char *token, const char *expected)
{
  int32_t id = as_tokenizer_lookup (t, token);
  g_assert_cmpint (id, >=, 0);
  g_autofree char *text = as_tokenizer_dup_token_text (t, id);
  g_assert_cmpstr (text, ==, expected);
}

static void
test_token_texts (void)
{
  g_autoptr (AsTokenizer) llama = load_fixture ("llama-spm");
  assert_text (llama, "\u2581the", " the"); /* Metaspace/Replace: ▁ is a space */
  assert_text (llama, "<0x0A>", "\n");      /* byte fallback: the byte */
  assert_text (llama, "<0xE2>", "\xe2");    /* even when it is part of a character */
  assert_text (llama, "<s>", "<s>");        /* a special token: its own string */
  assert_text (llama, "ing", "ing");
  g_autoptr (AsTokenizer) bert = load_fixture ("bert-bge");
  assert_text (bert, "the", " the");  /* a word start adds a space after another token */
  assert_text (bert, "##ing", "ing"); /* a continuation does not */
  assert_text (bert, "[CLS]", "[CLS]");
  g_autoptr (AsTokenizer) neox = load_fixture ("gpt-neox");
  assert_text (neox, "\u0120the", " the"); /* ByteLevel: Ġ */
  assert_text (neox, "  ", "  ");          /* a non-special added token: its bytes */
  g_assert_true (as_tokenizer_is_special (neox, 0));
  g_assert_false (as_tokenizer_is_special (neox, 50276));

  /* decoding a whole sequence as HF's decode */
  g_autoptr (GArray) ids = encode (llama, "Hello\n world", AS_ENCODE_DEFAULT);
  g_autofree char *text = as_tokenizer_decode (llama, (const int32_t *) ids->data, ids->len);
  g_assert_cmpstr (text, ==, "<s> Hello\n world");
}

/* ---- folders ---- */

/* Writes NAME = CONTENTS into FOLDER. */
static void
write_file (const char *folder, const char *name, const char *contents)
{
  g_autofree char *path = g_build_filename (folder, name, NULL);
  g_assert_true (g_file_set_contents (path, contents, -1, NULL));
}

static char *
fresh_folder (const char *name)
{
  char *folder = g_build_filename (test_tmpdir (), name, NULL);
  g_assert_cmpint (g_mkdir_with_parents (folder, 0755), ==, 0);
  return folder;
}

/* BERT without tokenizer.json: vocab.txt and tokenizer_config.json give the same ids. */
static void
test_vocab_txt (void)
{
  g_autoptr (AsTokenizer) json = load_fixture ("bert-bge");
  g_autofree char *folder = fresh_folder ("bert-vocab-txt");
  g_autoptr (GString) vocab = g_string_new (NULL);
  for (int i = 0; i < as_tokenizer_get_vocab_size (json); i++)
    g_string_append_printf (vocab, "%s\n", as_tokenizer_get_token (json, i));
  write_file (folder, "vocab.txt", vocab->str);
  g_autofree char *config
      = test_source_path ("tests/fixtures/tokenizers/bert-bge/tokenizer_config.json");
  g_autofree char *config_text = NULL;
  g_assert_true (g_file_get_contents (config, &config_text, NULL, NULL));
  write_file (folder, "tokenizer_config.json", config_text);
  g_autoptr (GError) error = NULL;
  g_autoptr (AsTokenizer) txt = as_tokenizer_load_folder (folder, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (as_tokenizer_get_source (txt) + strlen (folder) + 1, ==, "vocab.txt");
  g_assert_cmpuint (check_tests_file ("bert-bge", txt, "101", "102"), ==, 46);
  assert_ids (txt, "Hello, my dog is cute", AS_ENCODE_DEFAULT,
              "101 7592 1010 2026 3899 2003 10140 102");
  /* the 100-character rule and CJK spacing */
  g_autofree char *long_word = g_strnfill (101, 'a');
  assert_ids (txt, long_word, AS_ENCODE_NO_SPECIAL, "100");
  assert_ids (txt, "\u4e2d\u6587", AS_ENCODE_NO_SPECIAL, "1746 1861");

  /* do_lower_case false: cased text stays cased (and so becomes [UNK] here) */
  write_file (folder, "tokenizer_config.json", "{\"do_lower_case\": false}");
  g_autoptr (AsTokenizer) cased = as_tokenizer_load_folder (folder, &error);
  g_assert_no_error (error);
  assert_ids (cased, "Hello hello", AS_ENCODE_NO_SPECIAL, "100 7592");
}

/* tokenizer.json wins over vocab.json + merges.txt; without it the GPT-2 files are read. */
static void
test_folder_order (void)
{
  g_autofree char *folder = fresh_folder ("both");
  g_autofree char *vocab = test_source_path ("tests/fixtures/gpt2-tokenizer/vocab.json");
  g_autofree char *merges = test_source_path ("tests/fixtures/gpt2-tokenizer/merges.txt");
  g_autofree char *v = NULL, *m = NULL;
  g_assert_true (g_file_get_contents (vocab, &v, NULL, NULL));
  g_assert_true (g_file_get_contents (merges, &m, NULL, NULL));
  write_file (folder, "vocab.json", v);
  write_file (folder, "merges.txt", m);
  g_autoptr (GError) error = NULL;
  g_autoptr (AsTokenizer) gpt2 = as_tokenizer_load_folder (folder, &error);
  g_assert_no_error (error);
  assert_ids (gpt2, "May the force be with you.", AS_ENCODE_DEFAULT,
              "6747 262 2700 307 351 345 13");
  write_file (folder, "tokenizer.json",
              "{\"model\": {\"type\": \"WordLevel\", \"vocab\": {\"May\": 0, \"<unk>\": 1}, "
              "\"unk_token\": \"<unk>\"}, \"pre_tokenizer\": {\"type\": \"WhitespaceSplit\"}}");
  g_autoptr (AsTokenizer) json = as_tokenizer_load_folder (folder, &error);
  g_assert_no_error (error);
  assert_ids (json, "May the", AS_ENCODE_DEFAULT, "0 1");

  g_autofree char *empty = fresh_folder ("empty");
  g_autoptr (AsTokenizer) none = as_tokenizer_load_folder (empty, &error);
  g_assert_null (none);
  g_assert_error (error, AS_ERROR, AS_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, "tokenizer.json"));
}

/* ---- bad input ---- */

/* Loads tokenizer.json with CONTENTS and asserts the error message contains NEEDLE. */
static void
assert_refused (const char *contents, const char *needle)
{
  static int count;
  g_autofree char *name = g_strdup_printf ("bad-%d", count++);
  g_autofree char *folder = fresh_folder (name);
  write_file (folder, "tokenizer.json", contents);
  g_autoptr (GError) error = NULL;
  g_autoptr (AsTokenizer) t = as_tokenizer_load_folder (folder, &error);
  g_assert_null (t);
  g_assert_error (error, AS_ERROR, AS_ERROR_FORMAT);
  if (strstr (error->message, needle) == NULL)
    g_test_message ("message \"%s\" lacks \"%s\"", error->message, needle);
  g_assert_nonnull (strstr (error->message, needle));
  g_assert_nonnull (strstr (error->message, "tokenizer.json"));
}

#define WORDLEVEL                                                                                  \
  "\"model\": {\"type\": \"WordLevel\", \"vocab\": {\"a\": 0, \"<unk>\": 1}, \"unk_token\": "      \
  "\"<unk>\"}"

static void
test_bad_input (void)
{
  assert_refused ("{" WORDLEVEL ", \"pre_tokenizer\": {\"type\": \"Sequence\", \"pretokenizers\": "
                  "[{\"type\": \"Whitespace\"}, {\"type\": \"Foo\"}]}}",
                  "tokenizer.json: pre_tokenizer.pretokenizers[1]: unknown type \"Foo\"");
  assert_refused ("{" WORDLEVEL ", \"normalizer\": {\"type\": \"Sequence\", \"normalizers\": "
                  "[{\"type\": \"NFKC\"}, {\"type\": \"Uppercase\"}]}}",
                  "normalizer.normalizers[1]: unknown type \"Uppercase\"");
  assert_refused ("{" WORDLEVEL ", \"decoder\": {\"type\": \"Bar\"}}",
                  "decoder: unknown type \"Bar\"");
  assert_refused ("{" WORDLEVEL ", \"post_processor\": {\"type\": \"Baz\"}}",
                  "post_processor: unknown type \"Baz\"");
  assert_refused ("{\"model\": {\"type\": \"Magic\"}}", "model: unknown type \"Magic\"");
  /* a merge whose result (or part) is not in the vocabulary */
  assert_refused ("{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0, \"b\": 1}, "
                  "\"merges\": [\"a b\"]}}",
                  "model.merges[0]: merge \"a\" + \"b\": \"ab\" is not in the vocabulary");
  assert_refused ("{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0, \"ab\": 1}, "
                  "\"merges\": [[\"a\", \"a\"], [\"a\", \"c\"]]}}",
                  "model.merges[0]: merge \"a\" + \"a\": \"aa\" is not in the vocabulary");
  assert_refused (
      "{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0}, \"merges\": [\"a b c\"]}}",
      "model.merges[0]: merge \"a b c\" is not two tokens");
  /* an unknown token that is not in the vocabulary */
  assert_refused ("{\"model\": {\"type\": \"WordPiece\", \"vocab\": {\"a\": 0}}}",
                  "model: unk_token \"[UNK]\" is not in the vocabulary");
  assert_refused ("{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0}, \"merges\": [], "
                  "\"unk_token\": \"<unk>\"}}",
                  "model: unk_token \"<unk>\" is not in the vocabulary");
  assert_refused ("{\"model\": {\"type\": \"Unigram\", \"unk_id\": 5, \"vocab\": [[\"a\", -1.0]]}}",
                  "model: unk_id 5 is not in the vocabulary");
  /* an invalid regex */
  assert_refused ("{" WORDLEVEL ", \"pre_tokenizer\": {\"type\": \"Split\", \"pattern\": "
                  "{\"Regex\": \"(a\"}, \"behavior\": \"Isolated\", \"invert\": false}}",
                  "pre_tokenizer.pattern: invalid regex \"(a\"");
  assert_refused ("{" WORDLEVEL ", \"pre_tokenizer\": {\"type\": \"Split\", \"pattern\": "
                  "{\"Regex\": \"a\"}, \"behavior\": \"Sideways\", \"invert\": false}}",
                  "pre_tokenizer: unknown behavior \"Sideways\"");
  /* truncated JSON, wrong types, missing parts */
  assert_refused ("{" WORDLEVEL ", \"normalizer\": {\"type\": \"NF", "malformed JSON");
  assert_refused ("{\"normalizer\": null}", "missing \"model\"");
  assert_refused ("{" WORDLEVEL ", \"normalizer\": {\"type\": \"Strip\", \"strip_left\": 1}}",
                  "normalizer: \"strip_left\" must be true or false");
  assert_refused (
      "{" WORDLEVEL ", \"post_processor\": {\"type\": \"TemplateProcessing\", "
      "\"single\": [{\"SpecialToken\": {\"id\": \"<s>\", \"type_id\": 0}}], "
      "\"pair\": [], \"special_tokens\": {}}}",
      "post_processor.special_tokens: no entry for the template's special token \"<s>\"");
  assert_refused ("{" WORDLEVEL ", \"added_tokens\": [{\"id\": 2, \"special\": true}]}",
                  "added_tokens[0]: missing \"content\"");
  assert_refused ("{" WORDLEVEL ", \"normalizer\": {\"type\": \"Precompiled\", "
                  "\"precompiled_charsmap\": \"AAAA\"}}",
                  "normalizer: precompiled_charsmap:");

  /* invalid UTF-8 text is refused as for every tokenizer, naming the offset */
  g_autoptr (AsTokenizer) llama = load_fixture ("llama-spm");
  g_autoptr (GError) error = NULL;
  g_autoptr (AsEncoding) e
      = as_tokenizer_encode_full (llama, "ab\xc3(", -1, NULL, 0, AS_ENCODE_DEFAULT, &error);
  g_assert_null (e);
  g_assert_error (error, AS_ERROR, AS_ERROR_INPUT);
  g_assert_nonnull (strstr (error->message, "byte offset 2"));
}

/* ---- Oniguruma semantics on PCRE2 (hf-regex.c) ---- */

/* The matches of PATTERN in TEXT as "start-end start-end ...". */
static char *
matches (const char *pattern, const char *text)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AsHfRegex) re = as_hf_regex_new (pattern, FALSE, &error);
  g_assert_no_error (error);
  g_autoptr (GArray) m = g_array_new (FALSE, FALSE, sizeof (AsHfRange));
  g_assert_true (as_hf_regex_find_all (re, text, strlen (text), m, &error));
  GString *s = g_string_new (NULL);
  for (guint i = 0; i < m->len; i++)
    g_string_append_printf (s, "%s%zu-%zu", i ? " " : "",
                            (size_t) g_array_index (m, AsHfRange, i).start,
                            (size_t) g_array_index (m, AsHfRange, i).end);
  return g_string_free (s, FALSE);
}

static void
assert_matches (const char *pattern, const char *text, const char *expected)
{
  g_autofree char *got = matches (pattern, text);
  if (strcmp (got, expected) != 0)
    g_test_message ("/%s/ on \"%s\": got %s, expected %s", pattern, text, got, expected);
  g_assert_cmpstr (got, ==, expected);
}

/* Each case is what HF's Split (Oniguruma) gives, checked with the npm library while writing
 * this test; the peer check's "wordlevel-onig-regex" tokenizer runs them on the whole corpus. */
static void
test_regex (void)
{
  /* \s is White_Space: U+00A0, U+0085 and U+3000 yes, U+180E (PCRE2's \s) no */
  assert_matches ("\\s",
                  "a\u00a0b\xc2\x85"
                  "c\u3000d\u180ee",
                  "1-3 4-6 7-10");
  assert_matches ("[^\\s]+", "a\u180eb c", "0-5 6-7");
  /* $ and ^ are line anchors; \Z before a final newline, \z only at the end */
  assert_matches ("b$", "ab\nab\n", "1-2 4-5");
  assert_matches ("^a", "a\nab", "0-1 2-3");
  assert_matches ("\\Z", "ab\n", "2-2 3-3");
  assert_matches ("\\z", "ab\n", "3-3");
  /* (?m) is Ruby's dot-all; . alone does not match a newline */
  assert_matches ("(?m:a.b)", "xa\nby", "1-4");
  assert_matches ("a.b", "xa\nby", "");
  /* \h is a hexadecimal digit (PCRE2: horizontal space) */
  assert_matches ("\\h+", "xx12fz a", "2-5 7-8");
  /* \w holds combining marks (PCRE2 10.42's does not); \b follows it */
  assert_matches ("\\w+", "e\u0301x ab", "0-4 5-7");
  assert_matches ("\\bx", "ax x", "3-4");
  /* Oniguruma's \w has the Latin-1 superscripts but not ZWJ (Rust regex's is the reverse) */
  assert_matches ("\\w+", "x\u200dy\u00b2", "0-1 4-7");
  /* \uHHHH and \p{^X} */
  assert_matches ("\\u00e9", "caf\u00e9!", "3-5");
  assert_matches ("\\p{^L}+", "ab12cd", "2-4");
  /* empty matches: none right after the previous match (onig's find_iter) */
  assert_matches ("a*", "baa", "0-0 1-3");
  /* case-insensitive contractions as in Llama 3's pattern */
  assert_matches ("(?i:'s|'t)", "IT'S it'T", "2-4 7-9");
  g_autofree char *translated = as_hf_regex_translate ("[^\\s\\p{L}]|\\h");
  g_assert_nonnull (strstr (translated, "\\x{85}"));
  g_assert_null (strstr (translated, "\\h"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/tokenizer/json/real/llama-spm", test_real_llama);
  g_test_add_func ("/core/tokenizer/json/real/gpt-neox", test_real_neox);
  g_test_add_func ("/core/tokenizer/json/real/bert-bge", test_real_bert);
  g_test_add_func ("/core/tokenizer/json/token-texts", test_token_texts);
  g_test_add_func ("/core/tokenizer/json/vocab-txt", test_vocab_txt);
  g_test_add_func ("/core/tokenizer/json/folder-order", test_folder_order);
  g_test_add_func ("/core/tokenizer/json/bad-input", test_bad_input);
  g_test_add_func ("/core/tokenizer/json/regex", test_regex);
  int status = g_test_run ();
  test_tmpdir_cleanup ();
  return status;
}
