/* test-render-text.c — ui/render's texts: token labels (byte-level BPE and SentencePiece),
 * tick values, number formatting and attention titles with grouped-query heads. No display
 * needed. */
#include <math.h>
#include <string.h>

#include "as-error.h"
#include "as-tokenizer.h"
#include "axis-ticks.h"
#include "check-close.h"
#include "matrix-paint.h"
#include "render-fixtures.h"
#include "render-text.h"
#include "token-label.h"
#include "view-selection.h"

/* ---- text ------------------------------------------------------------------------------------ */

static void
test_token_labels (void)
{
  /* TEXT is what the core gives as the token's text (as_tokenizer_dup_token_text; its byte-level
   * decoding is tested in tests/core/test-tokenizer.c). */
  struct
  {
    const char *token, *text, *label;
  } cases[] = {
    { "\u0120the", " the", "\u2423the" },           /* Ġthe */
    { "\u010a", "\n", "\u21b5" },                   /* Ċ newline */
    { "\u0109", "\t", "\u21e5" },                   /* ĉ tab */
    { "\u00c3\u00a9", "\u00e9", "\u00e9" },         /* Ã© = the two bytes of é */
    { "May", "May", "May" },                        /* word-level toy token */
    { "\u00e2\u0122", "\xe2\x80", "\u00e2\u0122" }, /* âĢ: an incomplete UTF-8 sequence stays raw */
    { "caf\u00e9", "caf\xe9", "caf\u00e9" },     /* 'é' alone is byte 0xE9: invalid UTF-8, raw */
    { "\u20ac", "\u20ac", "\u20ac" },            /* outside the byte table: its own string */
    { "\u0100", "\u0100", "\u0100" },            /* byte 0 (NUL) is not shown as text: raw */
    { "<|endoftext|>", NULL, "<|endoftext|>" },  /* no text: the vocabulary string */
    { "a\u0100", "a\x01\x7f", "a\u2401\u2421" }, /* control characters as pictures */
  };
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *label = ar_token_label (cases[i].token, cases[i].text, FALSE);
      g_assert_cmpstr (label, ==, cases[i].label);
      g_autofree char *raw = ar_token_label (cases[i].token, cases[i].text, TRUE);
      g_assert_cmpstr (raw, ==, cases[i].token);
    }
}

static void
test_ticks (void)
{
  ArTicks t;
  ar_ticks_compute (&t, 0, 1, 6);
  g_assert_cmpint (t.n, ==, 6);
  g_assert_cmpfloat_with_epsilon (t.values[1], 0.2, 1e-12);
  g_assert_cmpfloat_with_epsilon (t.values[5], 1.0, 1e-12);
  g_assert_cmpint (t.decimals, ==, 1);
  ar_ticks_compute (&t, -0.34, 0.34, 5);
  g_assert_cmpfloat_with_epsilon (t.step, 0.2, 1e-12);
  g_assert_cmpint (t.n, ==, 3);
  g_assert_cmpfloat (t.values[1], ==, 0.0);
  ar_ticks_compute (&t, 0, 1, 3);
  g_assert_cmpfloat_with_epsilon (t.step, 0.5, 1e-12);
  ar_ticks_compute (&t, 0, 1, 5);
  g_assert_cmpfloat_with_epsilon (t.step, 0.25, 1e-12);
  g_assert_cmpint (t.decimals, ==, 2);
  ar_ticks_compute (&t, -3, 117, 6);
  g_assert_cmpfloat_with_epsilon (t.step, 25, 1e-9);
  g_assert_cmpint (t.decimals, ==, 0);
  g_assert_cmpfloat (t.values[0], ==, 0);
  double lo = 0.12, hi = 0.97;
  ar_ticks_nice_range (&lo, &hi, 5);
  g_assert_cmpfloat_with_epsilon (lo, 0.0, 1e-12);
  g_assert_cmpfloat_with_epsilon (hi, 1.0, 1e-12);
}

static void
test_format_number (void)
{
  g_autofree char *a = ar_format_number (-0.25, 2);
  g_assert_cmpstr (a, ==, "\u22120.25");
  g_autofree char *b = ar_format_number (-0.001, 2);
  g_assert_cmpstr (b, ==, "0.00");
  g_autofree char *c = ar_format_number (0.6712, 2);
  g_assert_cmpstr (c, ==, "0.67");
  g_autofree char *d = ar_format_number (1, 1);
  g_assert_cmpstr (d, ==, "1.0");
}

/* Grouped-query attention (SmolLM2: 9 query heads over 3 key/value heads): the title and the
 * head's key/value head as HF's repeat_kv assigns them. */
static void
test_attention_title_kv_heads (void)
{
  g_assert_cmpint (ar_kv_head_of (0, 9, 3), ==, 0);
  g_assert_cmpint (ar_kv_head_of (5, 9, 3), ==, 1);
  g_assert_cmpint (ar_kv_head_of (8, 9, 3), ==, 2);
  g_assert_cmpint (ar_kv_head_of (31, 32, 8), ==, 7);
  g_assert_cmpint (ar_kv_head_of (5, 12, 12), ==, -1);
  g_assert_cmpint (ar_kv_head_of (5, 12, 0), ==, -1);
  ArViewSelection view;
  ar_view_selection_init (&view);
  view.layer = 29;
  view.head = 5;
  g_autofree char *gqa = ar_attention_title (&view, 9, 3);
  g_assert_cmpstr (gqa, ==, "Layer 29 · head 5 · key/value head 1");
  g_autofree char *mha = ar_attention_title (&view, 12, 12);
  g_assert_cmpstr (mha, ==, "Layer 29 · head 5");
}

/* A Llama SentencePiece vocabulary (tokenizer.json with byte fallback): "▁" pieces and byte
 * pieces read as what they stand for, through the tokenizer's own decoder. */
static void
test_token_labels_sentencepiece (void)
{
  g_autofree char *folder = g_build_filename (g_getenv ("ATTNSCOPE_SOURCE_DIR"), "tests",
                                              "fixtures", "tokenizers", "llama-spm", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (AsTokenizer) tokenizer = as_tokenizer_load_folder (folder, &error);
  g_assert_no_error (error);
  struct
  {
    const char *token, *label;
  } cases[] = {
    { "\u2581the", "\u2423the" }, /* ▁the */
    { "<0x0A>", "\u21b5" },       /* byte fallback: a newline */
    { "<0x09>", "\u21e5" },       /* a tab */
    { "<0xF0>", "<0xF0>" },       /* a lone lead byte of an emoji stays raw */
    { "<s>", "<s>" },             /* BOS: its vocabulary string */
  };
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      int32_t id = as_tokenizer_lookup (tokenizer, cases[i].token);
      g_assert_cmpint (id, >=, 0);
      g_autofree char *text = as_tokenizer_dup_token_text (tokenizer, id);
      g_autofree char *label = ar_token_label (cases[i].token, text, FALSE);
      g_assert_cmpstr (label, ==, cases[i].label);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ui/render/attention/title-kv-heads", test_attention_title_kv_heads);
  g_test_add_func ("/ui/render/text/token-labels", test_token_labels);
  g_test_add_func ("/ui/render/text/token-labels-sentencepiece", test_token_labels_sentencepiece);
  g_test_add_func ("/ui/render/text/ticks", test_ticks);
  g_test_add_func ("/ui/render/text/format-number", test_format_number);
  return g_test_run ();
}
