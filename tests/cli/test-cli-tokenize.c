/* test-cli-tokenize.c — `attnscope tokenize` on tokenizer folders without weights.
 *
 * The folders of tests/fixtures/tokenizers/ hold a tokenizer.json and a config.json naming
 * architectures attnscope may not run ("llama", "gpt_neox", "bert") and no weights; tokenize
 * must work on them with HF's ids (special tokens by default, none with --no-special), a BERT
 * sentence pair with its type ids, the decoder's view with --readable; a malformed tokenizer.json
 * is one error line naming the JSON path; usage errors exit 2. */
#include <string.h>

#include "check-close.h"
#include "cli-support.h"

static char *fixtures;

static char *
folder (const char *name)
{
  return g_build_filename (fixtures, name, NULL);
}

/* The "ids" of a --json output, as "1 2 3". */
static char *
json_ids (const char *out, const char *member)
{
  g_autoptr (JsonNode) root = parse_json (out);
  JsonArray *ids = json_object_get_array_member (json_node_get_object (root), member);
  g_assert_nonnull (ids);
  GString *s = g_string_new (NULL);
  for (guint i = 0; i < json_array_get_length (ids); i++)
    g_string_append_printf (s, "%s%" G_GINT64_FORMAT, i ? " " : "",
                            json_array_get_int_element (ids, i));
  return g_string_free (s, FALSE);
}

static void
test_llama (void)
{
  g_autofree char *llama = folder ("llama-spm");
  g_auto (Run) r = run_cli ("tokenize", "--model", llama, "--json", "Hello world", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_autofree char *ids = json_ids (r.out, "ids");
  g_assert_cmpstr (ids, ==, "1 15043 3186"); /* <s> ▁Hello ▁world */
  /* vocabulary strings as HF's id_to_token: this file's "<s>" is a normalized added token, named
   * by its normalized form */
  g_assert_nonnull (strstr (r.out, "\"tokens\":[\"▁<s>\",\"▁Hello\",\"▁world\"]"));

  g_auto (Run) plain
      = run_cli ("tokenize", "--model", llama, "--json", "--no-special", "Hello world", NULL);
  g_assert_cmpint (plain.status, ==, 0);
  g_autofree char *plain_ids = json_ids (plain.out, "ids");
  g_assert_cmpstr (plain_ids, ==, "15043 3186");

  /* --readable: as the token strip shows them; a byte-fallback newline is the newline, '↵' */
  g_auto (Run) readable = run_cli ("tokenize", "--model", llama, "--json", "--readable",
                                   "--no-special", "a\nb", NULL);
  g_assert_cmpint (readable.status, ==, 0);
  g_assert_nonnull (strstr (readable.out, "\"tokens\":[\"␣a\",\"↵\",\"b\"]"));
  /* characters split over byte-fallback tokens: once, on their first token */
  g_auto (Run) split = run_cli ("tokenize", "--model", llama, "--json", "--readable",
                                "--no-special", "猫 é 👍", NULL);
  g_assert_cmpint (split.status, ==, 0);
  g_assert_nonnull (strstr (split.out, "\"tokens\":[\"␣\",\"猫…\",\"…\",\"…\",\"␣é\",\"␣\","
                                       "\"👍…\",\"…\",\"…\",\"…\"]"));
}

static void
test_bert_pair (void)
{
  g_autofree char *bert = folder ("bert-bge");
  g_auto (Run) r = run_cli ("tokenize", "--model", bert, "--json", "--pair", "Fine, thanks.",
                            "How are you?", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_autofree char *ids = json_ids (r.out, "ids");
  g_assert_cmpstr (ids, ==, "101 2129 2024 2017 1029 102 2986 1010 4283 1012 102");
  g_autofree char *types = json_ids (r.out, "type_ids");
  g_assert_cmpstr (types, ==, "0 0 0 0 0 0 1 1 1 1 1");

  g_auto (Run) text = run_cli ("tokenize", "--model", bert, "Hello, my dog is cute", NULL);
  g_assert_cmpint (text.status, ==, 0);
  g_assert_nonnull (
      strstr (text.out, "Token IDs: [101, 7592, 1010, 2026, 3899, 2003, 10140, 102]"));
}

static void
test_neox_lines (void)
{
  g_autofree char *neox = folder ("gpt-neox");
  g_autofree char *lines = g_build_filename (test_tmpdir (), "lines.txt", NULL);
  g_assert_true (g_file_set_contents (lines, "  Hello\nHello world\n", -1, NULL));
  g_auto (Run) r = run_cli ("tokenize", "--model", neox, "--lines", lines, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_auto (GStrv) rows = g_strsplit (r.out, "\n", -1);
  g_assert_cmpuint (g_strv_length (rows), ==, 3);
  g_autofree char *first = json_ids (rows[0], "ids");
  g_autofree char *second = json_ids (rows[1], "ids");
  g_assert_cmpstr (first, ==, "50276 12092");
  g_assert_cmpstr (second, ==, "12092 1533");
}

static void
test_errors (void)
{
  g_autofree char *bad = g_build_filename (test_tmpdir (), "bad", NULL);
  g_assert_cmpint (g_mkdir_with_parents (bad, 0755), ==, 0);
  g_autofree char *json = g_build_filename (bad, "tokenizer.json", NULL);
  g_assert_true (g_file_set_contents (
      json,
      "{\"model\": {\"type\": \"WordLevel\", \"vocab\": {\"a\": 0, \"<unk>\": 1}, \"unk_token\": "
      "\"<unk>\"}, \"pre_tokenizer\": {\"type\": \"Sequence\", \"pretokenizers\": [{\"type\": "
      "\"WhitespaceSplit\"}, {\"type\": \"Foo\"}]}}",
      -1, NULL));
  g_auto (Run) r = run_cli ("tokenize", "--model", bad, "a", NULL);
  assert_error (&r, 1, "tokenizer.json: pre_tokenizer.pretokenizers[1]: unknown type \"Foo\"");

  g_autofree char *llama = folder ("llama-spm");
  g_autofree char *lines = g_build_filename (test_tmpdir (), "l.txt", NULL);
  g_assert_true (g_file_set_contents (lines, "a\n", -1, NULL));
  g_auto (Run) usage
      = run_cli ("tokenize", "--model", llama, "--lines", lines, "--pair", "b", NULL);
  assert_error (&usage, 2, "--pair");
  g_auto (Run) utf8 = run_cli ("tokenize", "--model", llama, "--pair", "\xff", "a", NULL);
  assert_error (&utf8, 1, "--pair");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  fixtures = test_source_path ("tests/fixtures/tokenizers");
  g_test_add_func ("/cli/tokenize/llama", test_llama);
  g_test_add_func ("/cli/tokenize/bert-pair", test_bert_pair);
  g_test_add_func ("/cli/tokenize/neox-lines", test_neox_lines);
  g_test_add_func ("/cli/tokenize/errors", test_errors);
  int status = g_test_run ();
  test_tmpdir_cleanup ();
  g_free (fixtures);
  return status;
}
