/* test-tokenizer.c — GPT-2 byte-level BPE and the word-level tokenizer.
 *
 * Uses GPT-2's own vocabulary (tests/fixtures/gpt2-tokenizer). Expected ids come from
 * core/tokenizers/README.md ("Tokenizers") and, for the others, from a Python transcription of
 * Hugging Face's slow GPT2Tokenizer run with python3-regex (they agree with the npm peers too); the
 * U+FFFD vectors were produced by /usr/bin/python3's bytes.decode("utf-8", errors="replace"). The
 * wide peer comparison is test-tokenizer-peer.c. */
#include <string.h>

#include "as-error.h"
#include "as-tokenizer.h"
#include "bpe-merges-private.h"
#include "byte-unicode-private.h"
#include "check-close.h"
#include "utf8-replace-private.h"

static AsTokenizer *gpt2;

static void
check_ids (const char *text, gssize length, const int32_t *expected, gsize n_expected)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) ids = as_tokenizer_encode (gpt2, text, length, &error);
  g_assert_no_error (error);
  g_assert_nonnull (ids);
  if (ids->len != n_expected || memcmp (ids->data, expected, n_expected * sizeof (int32_t)) != 0)
    {
      g_autoptr (GString) got = g_string_new (NULL);
      for (guint i = 0; i < ids->len; i++)
        g_string_append_printf (got, " %d", g_array_index (ids, int32_t, i));
      g_autofree char *escaped = g_strescape (text, NULL);
      g_test_message ("\"%s\" encoded as%s", escaped, got->str);
    }
  g_assert_cmpmem (ids->data, ids->len * sizeof (int32_t), expected, n_expected * sizeof (int32_t));
}

#define CHECK_IDS(text, ...)                                                                       \
  do                                                                                               \
    {                                                                                              \
      const int32_t expected_[] = { __VA_ARGS__ };                                                 \
      check_ids (text, -1, expected_, G_N_ELEMENTS (expected_));                                   \
    }                                                                                              \
  while (0)

/* core/tokenizers/README.md ("Tokenizers"), and the token strings of seed 000. */
static void
test_known_ids (void)
{
  CHECK_IDS ("May the force be with you.", 6747, 262, 2700, 307, 351, 345, 13);
  CHECK_IDS ("Hello world", 15496, 995);
  CHECK_IDS (" Hello world", 18435, 995);
  CHECK_IDS ("The man hit the car", 464, 582, 2277, 262, 1097);
  CHECK_IDS ("I'm can't they'LL", 40, 1101, 460, 470, 484, 6, 3069); /* 'LL is no contraction */
  CHECK_IDS ("\u00a0\u00a0x", 1849, 1849, 87);                       /* NBSP is \s */
  CHECK_IDS (" \xc2\x85 ", 1587, 227, 220);      /* NEL is \s in Python, not in JavaScript */
  CHECK_IDS ("a\u180eb", 64, 157, 254, 236, 65); /* U+180E is not \s in Python (PCRE2: yes) */
  CHECK_IDS ("  \u3000x", 220, 220, 5099, 222, 87);

  const char *seed[] = { "May", "Ġthe", "Ġforce", "Ġbe", "Ġwith", "Ġyou", "." };
  const int32_t seed_ids[] = { 6747, 262, 2700, 307, 351, 345, 13 };
  for (guint i = 0; i < G_N_ELEMENTS (seed); i++)
    {
      g_assert_cmpstr (as_tokenizer_get_token (gpt2, seed_ids[i]), ==, seed[i]);
      g_assert_cmpint (as_tokenizer_lookup (gpt2, seed[i]), ==, seed_ids[i]);
    }
  g_assert_cmpint (as_tokenizer_get_vocab_size (gpt2), ==, 50257);
  g_assert_cmpstr (as_tokenizer_get_token (gpt2, 50256), ==, "<|endoftext|>");
  g_assert_null (as_tokenizer_get_token (gpt2, 50257));
  g_assert_null (as_tokenizer_get_token (gpt2, -1));
  g_assert_cmpint (as_tokenizer_lookup (gpt2, "no such token"), ==, -1);
}

static void
test_end_of_text (void)
{
  CHECK_IDS ("Hello<|endoftext|> world", 15496, 50256, 995);
  CHECK_IDS ("a<|endoftext|>b", 64, 50256, 65);
  CHECK_IDS (" <|endoftext|>", 220, 50256);
  CHECK_IDS ("<|endoftext|><|endoftext|>", 50256, 50256);
  CHECK_IDS ("x <|endoftext|>\n\ny", 87, 220, 50256, 198, 198, 88);
  CHECK_IDS ("<|endoftext|>'s", 50256, 338);
  CHECK_IDS ("<|endoftext|", 27, 91, 437, 1659, 5239, 91); /* incomplete: plain text */
}

/* Empty text gives an empty array; U+0000 is valid UTF-8 when the length is explicit. */
static void
test_empty_and_nul (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) ids = as_tokenizer_encode (gpt2, "", -1, &error);
  g_assert_no_error (error);
  g_assert_nonnull (ids);
  g_assert_cmpuint (ids->len, ==, 0);
  const int32_t expected[] = { 64, 188, 65 };
  check_ids ("a\0b", 3, expected, G_N_ELEMENTS (expected));
}

static void
test_invalid_utf8 (void)
{
  const struct
  {
    const char *text;
    const char *offset;
  } cases[] = {
    { "abc\xff"
      "def",
      "byte offset 3" },
    { "x\xe2\x82", "byte offset 1" },
    { "\xc0\xaf", "byte offset 0" },
    { "ok\xed\xa0\x80", "byte offset 2" },
    { "caf\xc3\xa9 \x80", "byte offset 6" },
    { "\xf4\x90\x80\x80", "byte offset 0" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (GArray) ids = as_tokenizer_encode (gpt2, cases[i].text, -1, &error);
      g_assert_null (ids);
      g_assert_error (error, AS_ERROR, AS_ERROR_INPUT);
      g_assert_nonnull (strstr (error->message, "UTF-8"));
      g_assert_nonnull (strstr (error->message, cases[i].offset));
    }
}

static void
check_round_trip (const char *text)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) ids = as_tokenizer_encode (gpt2, text, -1, &error);
  g_assert_no_error (error);
  g_autofree char *back = as_tokenizer_decode (gpt2, (const int32_t *) ids->data, ids->len);
  g_assert_cmpstr (back, ==, text);
}

/* Random valid UTF-8 text (any code point but U+0000 and surrogates) of N characters. */
static char *
random_text (GRand *rand, int n)
{
  GString *s = g_string_new (NULL);
  for (int i = 0; i < n; i++)
    {
      gunichar c;
      switch (g_rand_int_range (rand, 0, 4))
        {
        case 0:
          c = (gunichar) g_rand_int_range (rand, 1, 0x80);
          break;
        case 1:
          c = (gunichar) g_rand_int_range (rand, 0x80, 0x800);
          break;
        case 2:
          c = (gunichar) g_rand_int_range (rand, 0x800, 0x10000);
          break;
        default:
          c = (gunichar) g_rand_int_range (rand, 0x10000, 0x110000);
          break;
        }
      if (c >= 0xD800 && c < 0xE000)
        c = ' ';
      g_string_append_unichar (s, c);
    }
  return g_string_free (s, FALSE);
}

/* Byte-level BPE is lossless: decode(encode(x)) == x for every valid text. */
static void
test_round_trip (void)
{
  const char *texts[] = {
    "May the force be with you.",
    "  leading and trailing  ",
    "tabs\tand\nnewlines\r\n\n",
    "😀👍🏽👨\u200d👩\u200d👧\u200d👦🇫🇷❤️",
    "中文字符测试，日本語のテキスト。한국어",
    "Привет, мир! Ελληνικά. مرحبا بالعالم",
    "e\u0301 n\u0303 \u00a0\u2009\u3000\xc2\x85\ufeff\u180e\u200b",
    "<|endoftext|>between<|endoftext|>",
    "\x01\x1b\x7f control",
    "\xef\xbf\xbd replacement character",
  };
  for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
    check_round_trip (texts[i]);

  g_autoptr (GRand) rand = g_rand_new_with_seed (7);
  for (int i = 0; i < 500; i++)
    {
      g_autofree char *text = random_text (rand, g_rand_int_range (rand, 1, 40));
      check_round_trip (text);
    }
}

/* Ids whose bytes are not whole characters decode like Python's errors="replace". Byte
 * tokens are looked up by their table character, so the vectors name bytes. */
static void
test_decode_partial (void)
{
  /* "😀" is 47249 (F0 9F 98) + 222 (80): alone, each is one U+FFFD. */
  const int32_t smile[] = { 47249, 222 };
  g_autofree char *whole = as_tokenizer_decode (gpt2, smile, 2);
  g_autofree char *first = as_tokenizer_decode (gpt2, smile, 1);
  g_autofree char *second = as_tokenizer_decode (gpt2, smile + 1, 1);
  g_assert_cmpstr (whole, ==, "😀");
  g_assert_cmpstr (first, ==, "\ufffd");
  g_assert_cmpstr (second, ==, "\ufffd");

  const struct
  {
    guint8 bytes[4];
    guint n;
    const char *python; /* bytes(...).decode("utf-8", "replace") */
  } cases[] = {
    { { 0xC3, 0xA9 }, 2, "é" },
    { { 0xA9, 0xC3 }, 2, "\ufffd\ufffd" },
    { { 0xED, 0xA0, 0x80 }, 3, "\ufffd\ufffd\ufffd" }, /* surrogate */
    { { 0xF0, 0x9F }, 2, "\ufffd" },                   /* truncated: one maximal subpart */
    { { 0xF0, 0x80, 0x80 }, 3, "\ufffd\ufffd\ufffd" }, /* overlong */
    { { 0xC0, 0xAF }, 2, "\ufffd\ufffd" },
    { { 0xE0, 0x80 }, 2, "\ufffd\ufffd" },
    { { 0xF4, 0x90, 0x80, 0x80 }, 4, "\ufffd\ufffd\ufffd\ufffd" }, /* above U+10FFFF */
    { { 0xF5 }, 1, "\ufffd" },
    { { 0xE1, 0x80, 0x61 }, 3, "\ufffda" },
    { { 0x61, 0xF0, 0x9F, 0x98 }, 4, "a\ufffd" },
    { { 0xE0, 0xA0 }, 2, "\ufffd" },
    { { 0xED, 0x9F, 0xBF }, 3, "\ud7ff" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      int32_t ids[4];
      for (guint k = 0; k < cases[i].n; k++)
        {
          char ch[8] = { 0 };
          g_unichar_to_utf8 (as_byte_unicode_from_byte (cases[i].bytes[k]), ch);
          ids[k] = as_tokenizer_lookup (gpt2, ch);
          g_assert_cmpint (ids[k], >=, 0);
        }
      g_autofree char *text = as_tokenizer_decode (gpt2, ids, cases[i].n);
      g_assert_cmpstr (text, ==, cases[i].python);
    }

  /* Ids out of range are skipped. */
  const int32_t odd[] = { 15496, -5, 50257, 995 };
  g_autofree char *skipped = as_tokenizer_decode (gpt2, odd, G_N_ELEMENTS (odd));
  g_assert_cmpstr (skipped, ==, "Hello world");
}

/* utf8-replace.c directly: CPython's results for tricky byte strings (checked during
 * development against 200,000 random byte strings as well). */
static void
test_utf8_replace (void)
{
  const struct
  {
    const char *bytes;
    const char *python;
    gsize valid_prefix;
  } cases[] = {
    { "", "", 0 },
    { "plain", "plain", 5 },
    { "\xef\xbf\xbd\x80", "\ufffd\ufffd", 3 },
    { "\xe2\x82\xac", "€", 3 },
    { "\xe2\x82", "\ufffd", 0 },
    { "\xe2\x28\xa1", "\ufffd(\ufffd", 0 },
    { "\xf0\x90\x28\xbc", "\ufffd(\ufffd", 0 },
    { "\xf8\x88\x80\x80\x80", "\ufffd\ufffd\ufffd\ufffd\ufffd", 0 },
    { "a\xc2", "a\ufffd", 1 },
    { "\xc2\xc2\xa2", "\ufffd¢", 0 },
    { "\xed\xbf\xbf", "\ufffd\ufffd\ufffd", 0 },
    { "\xee\x80\x80", "\ue000", 3 },
    { "\xf4\x8f\xbf\xbf", "\U0010ffff", 4 },
    { "\xfe\xff", "\ufffd\ufffd", 0 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      gsize n = strlen (cases[i].bytes);
      g_autofree char *out = as_utf8_replace_invalid (cases[i].bytes, n);
      g_assert_cmpstr (out, ==, cases[i].python);
      g_assert_cmpuint (as_utf8_valid_prefix (cases[i].bytes, n), ==, cases[i].valid_prefix);
    }
}

static void
test_byte_table (void)
{
  g_assert_cmpuint (as_byte_unicode_from_byte (' '), ==, 0x120);  /* 'Ġ' */
  g_assert_cmpuint (as_byte_unicode_from_byte ('\n'), ==, 0x10A); /* 'Ċ' */
  g_assert_cmpuint (as_byte_unicode_from_byte ('\t'), ==, 0x109);
  g_assert_cmpuint (as_byte_unicode_from_byte (0), ==, 0x100);
  g_assert_cmpuint (as_byte_unicode_from_byte ('!'), ==, '!');
  g_assert_cmpuint (as_byte_unicode_from_byte (127), ==, 0x121);
  g_assert_cmpuint (as_byte_unicode_from_byte (160), ==, 0x142);
  g_assert_cmpuint (as_byte_unicode_from_byte (173), ==, 0x143);
  g_assert_cmpuint (as_byte_unicode_from_byte (161), ==, 161);
  g_assert_cmpuint (as_byte_unicode_from_byte (255), ==, 255);

  /* A bijection onto 256 characters; nothing else maps back. The first 256 GPT-2 ids are the
   * single-byte tokens, each of which must be one table character. */
  guint mapped_back = 0;
  for (guint b = 0; b < 256; b++)
    {
      gunichar c = as_byte_unicode_from_byte ((guint8) b);
      g_assert_cmpint (as_byte_unicode_to_byte (c), ==, (int) b);
      char utf8[8] = { 0 };
      g_unichar_to_utf8 (c, utf8);
      g_assert_cmpint (as_tokenizer_lookup (gpt2, utf8), <, 256);
    }
  for (gunichar c = 0; c < 0x400; c++)
    mapped_back += as_byte_unicode_to_byte (c) >= 0;
  g_assert_cmpuint (mapped_back, ==, 256);
  g_assert_cmpint (as_byte_unicode_to_byte (' '), ==, -1);
  g_assert_cmpint (as_byte_unicode_to_byte (0x144), ==, -1);
}

/* ---- the merge loop against a straightforward transcription of Hugging Face's bpe() ---- */

static GPtrArray *
naive_bpe (const char *word, GHashTable *ranks /* "left right" → rank + 1 */)
{
  GPtrArray *syms = g_ptr_array_new_with_free_func (g_free);
  for (const char *p = word; *p; p++)
    g_ptr_array_add (syms, g_strndup (p, 1));
  while (syms->len > 1)
    {
      int best = -1;
      const char *first = NULL, *second = NULL;
      for (guint i = 0; i + 1 < syms->len; i++)
        {
          g_autofree char *key = g_strconcat (syms->pdata[i], " ", syms->pdata[i + 1], NULL);
          int r = GPOINTER_TO_INT (g_hash_table_lookup (ranks, key)) - 1;
          if (r >= 0 && (best < 0 || r < best))
            {
              best = r;
              first = syms->pdata[i];
              second = syms->pdata[i + 1];
            }
        }
      if (best < 0)
        break;
      g_autofree char *a = g_strdup (first), *b = g_strdup (second);
      GPtrArray *merged = g_ptr_array_new_with_free_func (g_free);
      for (guint i = 0; i < syms->len;)
        if (i + 1 < syms->len && g_str_equal (syms->pdata[i], a)
            && g_str_equal (syms->pdata[i + 1], b))
          {
            g_ptr_array_add (merged, g_strconcat (a, b, NULL));
            i += 2;
          }
        else
          g_ptr_array_add (merged, g_strdup (syms->pdata[i++]));
      g_ptr_array_unref (syms);
      syms = merged;
    }
  return syms;
}

/* Random merges over {a, b, c}, written in a shuffled order so that some pairs rank below
 * their own parts' merges, with a few duplicates; random words; both loops must agree. */
/* The text a byte-level token stands for: what the window shows for it. */
static void
test_token_text (void)
{
  struct
  {
    const char *token, *bytes; /* bytes NULL: no showable text */
  } cases[] = {
    { "\u0120the", " the" },        /* Ġthe */
    { "\u010a", "\n" },             /* Ċ newline */
    { "\u0109", "\t" },             /* ĉ tab */
    { "\u00c3\u00a9", "\u00e9" },   /* Ã© = the two bytes of é */
    { "May", "May" },               /* ASCII stands for itself */
    { "\u00e2\u0122", "\xe2\x80" }, /* âĢ: an incomplete UTF-8 sequence, kept as bytes */
    { "caf\u00e9", "caf\xe9" },     /* 'é' alone is byte 0xE9 */
    { "\u20ac", NULL },             /* outside the byte table */
    { "\u0100", NULL },             /* byte 0 */
  };
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *bytes = as_byte_level_token_text (cases[i].token);
      g_assert_cmpstr (bytes, ==, cases[i].bytes);
    }
  /* Through the tokenizer: " the" is id 262; a token outside the table keeps its string. */
  g_autofree char *the = as_tokenizer_dup_token_text (gpt2, 262);
  g_assert_cmpstr (the, ==, " the");
  g_autofree char *eot = as_tokenizer_dup_token_text (gpt2, 50256);
  g_assert_cmpstr (eot, ==, "<|endoftext|>");
  g_assert_null (as_tokenizer_dup_token_text (gpt2, 50257));
}

static void
test_merge_loop (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (11);
  for (int round = 0; round < 20; round++)
    {
      g_autoptr (GPtrArray) pool = g_ptr_array_new_with_free_func (g_free);
      g_autoptr (GPtrArray) lines = g_ptr_array_new_with_free_func (g_free);
      g_ptr_array_add (pool, g_strdup ("a"));
      g_ptr_array_add (pool, g_strdup ("b"));
      g_ptr_array_add (pool, g_strdup ("c"));
      for (int k = 0; k < 60; k++)
        {
          const char *x = pool->pdata[g_rand_int_range (rand, 0, pool->len)];
          const char *y = pool->pdata[g_rand_int_range (rand, 0, pool->len)];
          if (strlen (x) + strlen (y) > 8)
            continue;
          g_ptr_array_add (lines, g_strconcat (x, " ", y, NULL));
          g_ptr_array_add (pool, g_strconcat (x, y, NULL));
        }
      for (guint k = 0; k + 1 < lines->len; k++) /* local shuffles keep most of the order */
        if (g_rand_int_range (rand, 0, 4) == 0)
          {
            gpointer t = lines->pdata[k];
            lines->pdata[k] = lines->pdata[k + 1];
            lines->pdata[k + 1] = t;
          }
      g_ptr_array_add (lines, g_strdup (lines->pdata[g_rand_int_range (rand, 0, lines->len)]));

      /* The vocabulary: every pool string (duplicates collapse), ids in first-seen order. */
      g_autoptr (GHashTable) vocab = g_hash_table_new (g_str_hash, g_str_equal);
      g_autoptr (GPtrArray) id_to_str = g_ptr_array_new ();
      for (guint k = 0; k < pool->len; k++)
        if (!g_hash_table_contains (vocab, pool->pdata[k]))
          {
            g_hash_table_insert (vocab, pool->pdata[k], GINT_TO_POINTER (id_to_str->len));
            g_ptr_array_add (id_to_str, pool->pdata[k]);
          }
      g_autoptr (GHashTable) ranks = g_hash_table_new (g_str_hash, g_str_equal);
      g_autoptr (GString) file = g_string_new ("#version: 0.2\n");
      for (guint k = 0; k < lines->len; k++)
        {
          g_hash_table_insert (ranks, lines->pdata[k], GINT_TO_POINTER (k + 1)); /* later wins */
          g_string_append_printf (file, "%s\n", (const char *) lines->pdata[k]);
        }
      g_autofree char *path = g_build_filename (test_tmpdir (), "random-merges.txt", NULL);
      g_assert_true (g_file_set_contents (path, file->str, -1, NULL));
      g_autoptr (GError) error = NULL;
      g_autoptr (AsBpeMerges) merges = as_bpe_merges_load (path, vocab, id_to_str->len, &error);
      g_assert_no_error (error);

      for (int w = 0; w < 200; w++)
        {
          char word[41];
          int n = g_rand_int_range (rand, 1, 41);
          for (int i = 0; i < n; i++)
            word[i] = (char) ('a' + g_rand_int_range (rand, 0, 3));
          word[n] = '\0';
          g_autoptr (GArray) symbols = g_array_new (FALSE, FALSE, sizeof (int32_t));
          for (int i = 0; i < n; i++)
            {
              int32_t s = as_bpe_merges_byte_symbol (merges, (guint8) word[i]);
              g_array_append_val (symbols, s);
            }
          as_bpe_merges_apply (merges, symbols);
          g_autoptr (GPtrArray) expected = naive_bpe (word, ranks);
          g_assert_cmpuint (symbols->len, ==, expected->len);
          for (guint i = 0; i < symbols->len; i++)
            {
              int32_t s = g_array_index (symbols, int32_t, i);
              g_assert_cmpint (s, <, (int32_t) id_to_str->len);
              g_assert_cmpstr (id_to_str->pdata[s], ==, expected->pdata[i]);
            }
        }
    }
}

/* ---- threads: the shared word cache ---- */

typedef struct
{
  GPtrArray *texts;
  GPtrArray *expected; /* GArray of int32_t per text */
  gboolean ok;
} ThreadJob;

static gpointer
encode_worker (gpointer data)
{
  ThreadJob *job = data;
  job->ok = TRUE;
  for (int rep = 0; rep < 5; rep++)
    for (guint i = 0; i < job->texts->len; i++)
      {
        g_autoptr (GArray) ids = as_tokenizer_encode (gpt2, job->texts->pdata[i], -1, NULL);
        GArray *want = job->expected->pdata[i];
        if (ids == NULL || ids->len != want->len
            || memcmp (ids->data, want->data, want->len * sizeof (int32_t)) != 0)
          job->ok = FALSE;
      }
  return NULL;
}

static void
test_threads (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (3);
  g_autoptr (GPtrArray) texts = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) expected = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  for (int i = 0; i < 300; i++)
    {
      char *text = random_text (rand, g_rand_int_range (rand, 1, 30));
      g_ptr_array_add (texts, text);
    }
  /* Expected ids from a fresh tokenizer, so the shared one starts with a cold cache. */
  g_autofree char *vocab = test_source_path ("tests/fixtures/gpt2-tokenizer/vocab.json");
  g_autofree char *merges = test_source_path ("tests/fixtures/gpt2-tokenizer/merges.txt");
  g_autoptr (AsTokenizer) fresh = as_tokenizer_load_bpe (vocab, merges, NULL);
  g_assert_nonnull (fresh);
  for (guint i = 0; i < texts->len; i++)
    g_ptr_array_add (expected, as_tokenizer_encode (fresh, texts->pdata[i], -1, NULL));

  ThreadJob jobs[4];
  GThread *threads[4];
  for (int t = 0; t < 4; t++)
    {
      jobs[t] = (ThreadJob){ texts, expected, FALSE };
      threads[t] = g_thread_new ("encode", encode_worker, &jobs[t]);
    }
  for (int t = 0; t < 4; t++)
    {
      g_thread_join (threads[t]);
      g_assert_true (jobs[t].ok);
    }
}

/* ---- loading errors ---- */

static void
check_load_error (const char *vocab_text, const char *merges_text, int code, const char *needle)
{
  g_autofree char *vocab = g_build_filename (test_tmpdir (), "bad-vocab.json", NULL);
  g_autofree char *merges = g_build_filename (test_tmpdir (), "bad-merges.txt", NULL);
  g_assert_true (g_file_set_contents (vocab, vocab_text, -1, NULL));
  g_assert_true (g_file_set_contents (merges, merges_text, -1, NULL));
  g_autoptr (GError) error = NULL;
  g_autoptr (AsTokenizer) t = as_tokenizer_load_bpe (vocab, merges, &error);
  g_assert_null (t);
  g_assert_error (error, AS_ERROR, code);
  g_test_message ("error: %s", error->message);
  g_assert_nonnull (strstr (error->message, needle));
}

static void
test_load_errors (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AsTokenizer) t
      = as_tokenizer_load_bpe ("/nonexistent/vocab.json", "/nonexistent/merges.txt", &error);
  g_assert_null (t);
  g_assert_error (error, AS_ERROR, AS_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, "/nonexistent/vocab.json"));

  const char *ok_merges = "#version: 0.2\na b\n";
  check_load_error ("[1, 2]", ok_merges, AS_ERROR_FORMAT, "JSON object");
  check_load_error ("{\"a\": 0, \"b\": ", ok_merges, AS_ERROR_FORMAT, "bad-vocab.json");
  check_load_error ("{\"a\": 0, \"b\": \"one\"}", ok_merges, AS_ERROR_FORMAT, "\"b\"");
  check_load_error ("{\"a\": 0, \"b\": -3}", ok_merges, AS_ERROR_FORMAT, "id -3");
  check_load_error ("{\"a\": 0, \"b\": 0}", ok_merges, AS_ERROR_FORMAT, "both have id 0");
  check_load_error ("{\"a\": 0, \"b\": 1, \"ab\": 2}", "#version: 0.2\na b\nab\n", AS_ERROR_FORMAT,
                    "line 3");
  check_load_error ("{\"a\": 0, \"b\": 1, \"ab\": 2}", "#version: 0.2\n", AS_ERROR_FORMAT,
                    "no merges");
  /* Bytes outside the vocabulary and no <|endoftext|> to stand for them. */
  check_load_error ("{\"a\": 0, \"b\": 1, \"ab\": 2}", ok_merges, AS_ERROR_FORMAT,
                    "not in the vocabulary");
}

/* ---- the word-level tokenizer ---- */

static void
test_words (void)
{
  g_autofree char *path = g_build_filename (test_tmpdir (), "words-vocab.json", NULL);
  g_assert_true (g_file_set_contents (
      path, "{\"May\": 0, \"the\": 1, \"force\": 2, \"be\": 3, \"with\": 4, \"you\": 5}", -1,
      NULL));
  g_autoptr (GError) error = NULL;
  g_autoptr (AsTokenizer) words = as_tokenizer_load_words (path, &error);
  g_assert_no_error (error);

  g_autoptr (GArray) ids = as_tokenizer_encode (words, "May the force be with you", -1, &error);
  g_assert_no_error (error);
  const int32_t expected[] = { 0, 1, 2, 3, 4, 5 };
  g_assert_cmpmem (ids->data, ids->len * sizeof (int32_t), expected, sizeof expected);

  g_autoptr (GArray) spaced = as_tokenizer_encode (words, "  you\tbe\n\u3000May  ", -1, &error);
  g_assert_no_error (error);
  const int32_t expected_spaced[] = { 5, 3, 0 };
  g_assert_cmpmem (spaced->data, spaced->len * sizeof (int32_t), expected_spaced,
                   sizeof expected_spaced);

  g_autoptr (GArray) empty = as_tokenizer_encode (words, " \n ", -1, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (empty->len, ==, 0);

  g_autoptr (GArray) unknown = as_tokenizer_encode (words, "May the Force", -1, &error);
  g_assert_null (unknown);
  g_assert_error (error, AS_ERROR, AS_ERROR_INPUT);
  g_assert_nonnull (strstr (error->message, "\"Force\""));
  g_clear_error (&error);

  g_autoptr (GArray) invalid = as_tokenizer_encode (words, "May \xff", -1, &error);
  g_assert_null (invalid);
  g_assert_error (error, AS_ERROR, AS_ERROR_INPUT);
  g_assert_nonnull (strstr (error->message, "byte offset 4"));

  const int32_t some[] = { 0, 99, 1, 2 };
  g_autofree char *text = as_tokenizer_decode (words, some, G_N_ELEMENTS (some));
  g_assert_cmpstr (text, ==, "May the force");
  g_assert_cmpstr (as_tokenizer_get_token (words, 2), ==, "force");
  g_assert_cmpint (as_tokenizer_lookup (words, "you"), ==, 5);
  g_assert_cmpint (as_tokenizer_lookup (words, "You"), ==, -1);
  g_assert_cmpint (as_tokenizer_get_vocab_size (words), ==, 6);
}

static void
test_word_id (void)
{
  g_autoptr (GError) error = NULL;
  int32_t id = -1;
  g_assert_true (as_tokenizer_word_id (gpt2, " car", &id, &error));
  g_assert_no_error (error);
  g_assert_cmpint (id, ==,
                   as_tokenizer_lookup (gpt2, "\xc4\xa0"
                                              "car"));
  g_assert_true (as_tokenizer_word_id (gpt2, "car", &id, &error));
  g_assert_cmpint (id, ==, as_tokenizer_lookup (gpt2, "car"));

  /* A word the vocabulary splits names its pieces and their ids. */
  g_autoptr (GArray) pieces = as_tokenizer_encode (gpt2, " attnscope", -1, &error);
  g_assert_cmpuint (pieces->len, >, 1);
  g_assert_false (as_tokenizer_word_id (gpt2, " attnscope", &id, &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_INPUT);
  g_autofree char *count = g_strdup_printf ("it is %u tokens", pieces->len);
  g_autofree char *first = g_strdup_printf ("(%d)", g_array_index (pieces, int32_t, 0));
  g_assert_nonnull (strstr (error->message, count));
  g_assert_nonnull (strstr (error->message, first));
  g_clear_error (&error);

  g_assert_false (as_tokenizer_word_id (gpt2, "", &id, &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_INPUT);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_autofree char *vocab = test_source_path ("tests/fixtures/gpt2-tokenizer/vocab.json");
  g_autofree char *merges = test_source_path ("tests/fixtures/gpt2-tokenizer/merges.txt");
  g_autoptr (GError) error = NULL;
  gpt2 = as_tokenizer_load_bpe (vocab, merges, &error);
  g_assert_no_error (error);

  g_test_add_func ("/core/tokenizer/bpe/known-ids", test_known_ids);
  g_test_add_func ("/core/tokenizer/bpe/word-id", test_word_id);
  g_test_add_func ("/core/tokenizer/bpe/end-of-text", test_end_of_text);
  g_test_add_func ("/core/tokenizer/bpe/empty-and-nul", test_empty_and_nul);
  g_test_add_func ("/core/tokenizer/bpe/invalid-utf8", test_invalid_utf8);
  g_test_add_func ("/core/tokenizer/bpe/round-trip", test_round_trip);
  g_test_add_func ("/core/tokenizer/bpe/decode-partial", test_decode_partial);
  g_test_add_func ("/core/tokenizer/bpe/utf8-replace", test_utf8_replace);
  g_test_add_func ("/core/tokenizer/bpe/byte-table", test_byte_table);
  g_test_add_func ("/core/tokenizer/bpe/token-text", test_token_text);
  g_test_add_func ("/core/tokenizer/bpe/merge-loop", test_merge_loop);
  g_test_add_func ("/core/tokenizer/bpe/threads", test_threads);
  g_test_add_func ("/core/tokenizer/bpe/load-errors", test_load_errors);
  g_test_add_func ("/core/tokenizer/words/basics", test_words);

  int status = g_test_run ();
  as_tokenizer_free (gpt2);
  test_tmpdir_cleanup ();
  return status;
}
