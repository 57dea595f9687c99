/* hostile-tokenizers.c — the hostile tokenizer folders of hostile-tokenizers.h. */
#include "hostile-tokenizers.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check-close.h"
#include "hostile-fixtures.h"

#define HOSTILE_TOK_ERROR (g_quark_from_static_string ("hostile-tokenizer"))

/* A WordLevel model that loads: what the cases about other parts of the file build on. */
#define WORDLEVEL                                                                                  \
  "\"model\": {\"type\": \"WordLevel\", \"vocab\": {\"a\": 0, \"b\": 1, \"<unk>\": 2}, "           \
  "\"unk_token\": \"<unk>\"}"
#define VALID "{" WORDLEVEL "}"

typedef struct
{
  const char *name, *file, *needle, *text;
  int ids; /* for the cases that must encode: the ids they give, or -1 */
} CaseInfo;

/* The long texts of the cases that must encode, made on first use. */
#define LONG_TEXT NULL

/* The charsmap cases: the message after "source.spm: normalizer_spec.precompiled_charsmap is
 * damaged (". */
#define SPM_NEEDLE "normalizer_spec.precompiled_charsmap is damaged ("
#define SPM_TEXT "\xef\xac\x81\xef\xbc\xa1\xef\xbc\xa2\xef\xbc\xa3\xe2\x91\xa0 aaaa"

static const CaseInfo cases[HOSTILE_TOK_N_CASES] = {
  [HOSTILE_TOK_REGEX_BACKTRACK]
  = { "regex-backtrack", "tokenizer.json", "pre_tokenizer.pattern: the regex gave up at byte 0",
      "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab" },
  [HOSTILE_TOK_REGEX_NESTED]
  = { "regex-nested", "tokenizer.json", "pre_tokenizer.pattern: invalid regex", "a" },
  [HOSTILE_TOK_REGEX_LONG] = { "regex-long", "tokenizer.json",
                               "pre_tokenizer.pattern: the regex is 100000 bytes long", "a" },
  [HOSTILE_TOK_JSON_NESTED] = { "json-nested", "tokenizer.json", "nest", "a" },
  [HOSTILE_TOK_CONFIG_NESTED] = { "config-nested", "tokenizer_config.json", "nest", "a" },
  [HOSTILE_TOK_CONFIG_HUGE] = { "config-huge", "tokenizer_config.json", "more than the", "a" },
  [HOSTILE_TOK_JSON_FIFO] = { "json-fifo", "tokenizer.json", "FIFO", "a" },
  [HOSTILE_TOK_CONFIG_FIFO] = { "config-fifo", "tokenizer_config.json", "FIFO", "a" },
  [HOSTILE_TOK_MAP_FIFO] = { "map-fifo", "special_tokens_map.json", "FIFO", "a" },
  [HOSTILE_TOK_VOCAB_TXT_FIFO] = { "vocab-txt-fifo", "vocab.txt", "FIFO", "a" },
  [HOSTILE_TOK_VOCAB_TXT_HUGE] = { "vocab-txt-huge", "vocab.txt", "more than the", "a" },
  [HOSTILE_TOK_VOCAB_ID_HUGE]
  = { "vocab-id-huge", "tokenizer.json", "token \"b\" has id 2147483647, expected 0 <= id <", "a" },
  [HOSTILE_TOK_VOCAB_ID_2_63]
  = { "vocab-id-2-63", "tokenizer.json", "token \"b\" has id 9223372036854775807", "a" },
  [HOSTILE_TOK_ADDED_ID_HUGE]
  = { "added-id-huge", "tokenizer.json", "added_tokens[0]: \"id\" is 1073741824", "a" },
  [HOSTILE_TOK_UNIGRAM_UNK]
  = { "unigram-unk", "tokenizer.json", "model: \"unk_id\" is 2147483648", "a" },
  [HOSTILE_TOK_CHARSMAP_SIZE]
  = { "charsmap-size", "tokenizer.json", "trie size 4096 does not fit its 12 bytes", "a" },
  [HOSTILE_TOK_TEMPLATE_ID] = { "template-id", "tokenizer.json", "post_processor", "a" },
  [HOSTILE_TOK_TEMPLATE_UNKNOWN]
  = { "template-unknown", "tokenizer.json",
      "post_processor: the special token id 3 is not in the vocabulary (3 ids)", "a" },
  [HOSTILE_TOK_UNIGRAM_LONG_PIECE]
  = { "unigram-long-piece", "tokenizer.json",
      "model.vocab[1]: a piece of 20000 bytes; Unigram pieces may have at most 512", "a" },
  [HOSTILE_TOK_NORMALIZER_GROWTH]
  = { "normalizer-growth", "tokenizer.json",
      "normalizer.normalizers[3] (Replace): the normalized text would pass 4128 bytes (32 times "
      "the 1-byte input + 4096); refused",
      "a" },
  [HOSTILE_TOK_NORMALIZER_GROWTH_200]
  = { "normalizer-growth-200", "tokenizer.json",
      "normalizer.normalizers[1] (Replace): the normalized text would pass 10496 bytes (32 times "
      "the 200-byte input + 4096); refused",
      LONG_TEXT },
  [HOSTILE_TOK_WORDPIECE_LONG_WORD]
  = { "wordpiece-long-word", "tokenizer.json", NULL, LONG_TEXT, 5000 },
  [HOSTILE_TOK_ADDED_MANY] = { "added-many", "tokenizer.json", NULL, LONG_TEXT, -1 },
  [HOSTILE_TOK_JSON_NUL_KEY] = { "json-nul-key", "tokenizer.json",
                                 "line 1: the key \"a\\u0000b\" holds a NUL character", "a" },
  [HOSTILE_TOK_CONFIG_NUL_KEY]
  = { "config-nul-key", "tokenizer_config.json",
      "line 1: the key \"bos_token\\u0000x\" holds a NUL character", "a" },
  [HOSTILE_TOK_MAP_NUL_VALUE]
  = { "map-nul-value", "special_tokens_map.json",
      "line 1: the string \"</s>\\u0000x\" (key \"eos_token\") holds a NUL character", "a" },
  [HOSTILE_TOK_VOCAB_JSON_NUL]
  = { "vocab-json-nul", "vocab.json", "line 1: the key \"\\u0000\" holds a NUL character", "a" },
  [HOSTILE_TOK_SPM_ROOT_OUTSIDE]
  = { "spm-root-outside", "source.spm",
      SPM_NEEDLE "the trie's root points to unit 4194303, outside its 512 units)", SPM_TEXT },
  [HOSTILE_TOK_SPM_STRINGS_CUT]
  = { "spm-strings-cut", "source.spm",
      SPM_NEEDLE "a replacement points to byte 100, outside its 2-byte strings)", SPM_TEXT },
  [HOSTILE_TOK_SPM_NO_NUL]
  = { "spm-no-nul", "source.spm",
      SPM_NEEDLE "the replacement at byte 0 of its 2-byte strings has no terminating NUL)",
      SPM_TEXT },
  [HOSTILE_TOK_SPM_FORTY_VALUES]
  = { "spm-forty-values", "source.spm",
      SPM_NEEDLE "a key passes 40 values in the trie, more than the 32 a search may return)",
      SPM_TEXT },
  [HOSTILE_TOK_SPM_LOOP]
  = { "spm-loop", "source.spm", SPM_NEEDLE "the trie loops back to unit 256)", SPM_TEXT },
};

const char *
hostile_tokenizer_name (HostileTokenizerCase c)
{
  return cases[c].name;
}

const char *
hostile_tokenizer_file (HostileTokenizerCase c)
{
  return cases[c].file;
}

const char *
hostile_tokenizer_needle (HostileTokenizerCase c)
{
  return cases[c].needle;
}

/* The long text of case C. */
static char *
long_text (HostileTokenizerCase c)
{
  GString *s = g_string_new (NULL);
  switch (c)
    {
    case HOSTILE_TOK_NORMALIZER_GROWTH_200:
      g_string_append (s, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
      g_string_append (s, s->str);
      g_string_append (s, s->str);
      break;
    case HOSTILE_TOK_WORDPIECE_LONG_WORD:
      for (int i = 0; i < 5000; i++)
        g_string_append (s, "ab");
      break;
    case HOSTILE_TOK_ADDED_MANY:
      /* tokens, token-like strings that are none, words, and the white space lstrip/rstrip take */
      for (int i = 0; s->len < 30000; i++)
        g_string_append_printf (s, "<t%d> a  <t%d>b <t%d x\t<T%d>   ", i * 7 % 20000, i % 20000, i,
                                i);
      g_string_truncate (s, 30000);
      break;
    default:
      g_assert_not_reached ();
    }
  return g_string_free (s, FALSE);
}

const char *
hostile_tokenizer_text (HostileTokenizerCase c)
{
  static char *texts[HOSTILE_TOK_N_CASES];
  if (cases[c].text != LONG_TEXT)
    return cases[c].text;
  if (texts[c] == NULL)
    texts[c] = long_text (c);
  return texts[c];
}

int
hostile_tokenizer_ids (HostileTokenizerCase c)
{
  return cases[c].needle == NULL ? cases[c].ids : -1;
}

static gboolean
write_text (const char *dir, const char *name, const char *text, GError **error)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  return g_file_set_contents (path, text, -1, error);
}

static gboolean
write_fifo (const char *dir, const char *name, GError **error)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_unlink (path);
  if (mkfifo (path, 0644) == 0)
    return TRUE;
  g_set_error (error, HOSTILE_TOK_ERROR, 1, "mkfifo %s: %s", path, g_strerror (errno));
  return FALSE;
}

/* A sparse file of SIZE bytes: costs no disk, and a reader that trusts its size would try. */
static gboolean
write_sparse (const char *dir, const char *name, goffset size, GError **error)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  int fd = open (path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  gboolean ok = fd >= 0 && ftruncate (fd, size) == 0;
  if (!ok)
    g_set_error (error, HOSTILE_TOK_ERROR, 1, "%s: %s", path, g_strerror (errno));
  if (fd >= 0)
    close (fd);
  return ok;
}

/* tokenizer.json: the valid model with a Split pre_tokenizer of regex PATTERN (JSON-escaped). */
static char *
with_split (const char *pattern)
{
  return g_strdup_printf ("{" WORDLEVEL ", \"pre_tokenizer\": {\"type\": \"Split\", \"pattern\": "
                          "{\"Regex\": \"%s\"}, \"behavior\": \"Isolated\", \"invert\": false}}",
                          pattern);
}

static char *
repeated (const char *unit, guint n)
{
  GString *s = g_string_new (NULL);
  for (guint i = 0; i < n; i++)
    g_string_append (s, unit);
  return g_string_free (s, FALSE);
}

/* A tokenizer.json whose normalizer is a Sequence of eight Replace "a" -> "aaaaaaaaaa". */
static char *
growing_normalizer (void)
{
  GString *s = g_string_new ("{" WORDLEVEL ", \"pre_tokenizer\": {\"type\": \"WhitespaceSplit\"}, "
                             "\"normalizer\": {\"type\": \"Sequence\", \"normalizers\": [");
  for (int i = 0; i < 8; i++)
    g_string_append_printf (s,
                            "%s{\"type\": \"Replace\", \"pattern\": {\"String\": \"a\"}, "
                            "\"content\": \"aaaaaaaaaa\"}",
                            i > 0 ? ", " : "");
  g_string_append (s, "]}}");
  return g_string_free (s, FALSE);
}

/* 20,000 added tokens "<tN>" behind a Lowercase normalizer, some of them lstrip, rstrip,
 * single_word or normalized. */
static char *
many_added_tokens (void)
{
  GString *s = g_string_new ("{" WORDLEVEL ", \"pre_tokenizer\": {\"type\": \"WhitespaceSplit\"}, "
                             "\"normalizer\": {\"type\": \"Lowercase\"}, \"added_tokens\": [");
  for (int i = 0; i < 20000; i++)
    g_string_append_printf (s,
                            "%s{\"id\": %d, \"content\": \"<t%d>\", \"special\": %s, "
                            "\"lstrip\": %s, \"rstrip\": %s, \"single_word\": %s, "
                            "\"normalized\": %s}",
                            i > 0 ? ", " : "", 3 + i, i, i % 2 ? "true" : "false",
                            i % 7 == 0 ? "true" : "false", i % 11 == 0 ? "true" : "false",
                            i % 13 == 0 ? "true" : "false", i % 3 == 0 ? "true" : "false");
  g_string_append (s, "]}");
  return g_string_free (s, FALSE);
}

/* A darts-clone character map (spm-charsmap-private.h) whose key "a", "aa", ... runs through
 * LEVELS nodes, each with the value VALUE (none when LOOP, where the key loops back on itself);
 * every unused unit is a value unit, which no byte matches. Then the STRINGS. */
static GByteArray *
charsmap_chain (guint levels, gboolean loop, guint32 value, const char *strings, gsize n_strings)
{
  guint n = 256 * (levels + 2);
  g_autofree guint32 *units = g_new (guint32, n);
  for (guint i = 0; i < n; i++)
    units[i] = 0x80000000u;
  units[0] = 256u << 10; /* the root's children start at unit 256 */
  for (guint i = 0; i < levels; i++)
    {
      guint32 base = 256 * (i + 1), after = 256 * (i + 2), q = base ^ 'a';
      guint32 target = loop ? base : after;
      units[q] = (q ^ target) << 10 | (loop ? 0u : 1u << 8) | 'a';
      if (!loop)
        units[after] = 0x80000000u | value;
    }
  GByteArray *map = g_byte_array_new ();
  guint32 size = GUINT32_TO_LE (4 * n);
  g_byte_array_append (map, (const guint8 *) &size, 4);
  for (guint i = 0; i < n; i++)
    {
      guint32 le = GUINT32_TO_LE (units[i]);
      g_byte_array_append (map, (const guint8 *) &le, 4);
    }
  g_byte_array_append (map, (const guint8 *) strings, (guint) n_strings);
  return map;
}

static void
append_varint (GByteArray *out, guint64 v)
{
  do
    {
      guint8 b = (guint8) (v & 0x7F) | (v > 0x7F ? 0x80 : 0);
      g_byte_array_append (out, &b, 1);
      v >>= 7;
    }
  while (v != 0);
}

/* A Marian model's tokenizer files in DIR (from the shipped attnscope-mini-en-de) whose
 * source.spm gets the character map of case C: the shipped file plus a second normalizer_spec
 * holding the map (protobuf merges a repeated message field; the last map wins). */
static gboolean
write_marian (const char *dir, HostileTokenizerCase c, GError **error)
{
  g_autofree char *shipped = test_source_path ("data/models/attnscope-mini-en-de");
  static const char *const copied[]
      = { "config.json", "vocab.json", "tokenizer_config.json", "special_tokens_map.json",
          "target.spm",  "source.spm" };
  for (gsize i = 0; i < G_N_ELEMENTS (copied); i++)
    {
      g_autofree char *from = g_build_filename (shipped, copied[i], NULL);
      g_autofree char *to = g_build_filename (dir, copied[i], NULL);
      g_autofree char *contents = NULL;
      gsize length = 0;
      if (!g_file_get_contents (from, &contents, &length, error)
          || !g_file_set_contents (to, contents, (gssize) length, error))
        return FALSE;
    }
  g_autoptr (GByteArray) map = NULL;
  switch (c)
    {
    case HOSTILE_TOK_SPM_ROOT_OUTSIDE:
      map = charsmap_chain (0, FALSE, 0, "x", 2);
      map->data[4] = 0x00, map->data[5] = 0xFC, map->data[6] = map->data[7] = 0xFF;
      break;
    case HOSTILE_TOK_SPM_STRINGS_CUT:
      map = charsmap_chain (1, FALSE, 100, "b", 2);
      break;
    case HOSTILE_TOK_SPM_NO_NUL:
      map = charsmap_chain (1, FALSE, 0, "bb", 2);
      break;
    case HOSTILE_TOK_SPM_FORTY_VALUES:
      map = charsmap_chain (40, FALSE, 0, "b", 2);
      break;
    case HOSTILE_TOK_SPM_LOOP:
      map = charsmap_chain (3, TRUE, 0, "b", 2);
      break;
    default:
      g_assert_not_reached ();
    }
  g_autoptr (GByteArray) spec = g_byte_array_new ();
  guint8 charsmap_key = 2 << 3 | 2, spec_key = 3 << 3 | 2;
  g_byte_array_append (spec, &charsmap_key, 1);
  append_varint (spec, map->len);
  g_byte_array_append (spec, map->data, map->len);
  g_autofree char *source = g_build_filename (dir, "source.spm", NULL);
  g_autofree char *contents = NULL;
  gsize length = 0;
  if (!g_file_get_contents (source, &contents, &length, error))
    return FALSE;
  g_autoptr (GByteArray) model = g_byte_array_new ();
  g_byte_array_append (model, (const guint8 *) contents, (guint) length);
  g_byte_array_append (model, &spec_key, 1);
  append_varint (model, spec->len);
  g_byte_array_append (model, spec->data, spec->len);
  return g_file_set_contents (source, (const char *) model->data, model->len, error);
}

gboolean
hostile_tokenizer_write (const char *dir, HostileTokenizerCase c, GError **error)
{
  if (g_mkdir_with_parents (dir, 0755) != 0)
    {
      g_set_error (error, HOSTILE_TOK_ERROR, 1, "mkdir %s: %s", dir, g_strerror (errno));
      return FALSE;
    }
  g_autofree char *json = NULL;
  switch (c)
    {
    case HOSTILE_TOK_REGEX_BACKTRACK:
      json = with_split ("(a+)+$");
      break;
    case HOSTILE_TOK_REGEX_NESTED:
      {
        g_autofree char *open = repeated ("(", 2000), *close = repeated (")", 2000);
        g_autofree char *pattern = g_strconcat (open, "a", close, NULL);
        json = with_split (pattern);
        break;
      }
    case HOSTILE_TOK_REGEX_LONG:
      {
        g_autofree char *pattern = repeated ("\\\\s", 50000); /* 100,000 bytes once unescaped */
        json = with_split (pattern);
        break;
      }
    case HOSTILE_TOK_JSON_NESTED:
      json = hostile_json_nested (VALID, 100000);
      break;
    case HOSTILE_TOK_CONFIG_NESTED:
      {
        g_autofree char *config = hostile_json_nested ("{\"do_lower_case\": true}", 100000);
        if (!write_text (dir, "tokenizer_config.json", config, error))
          return FALSE;
        json = g_strdup (VALID);
        break;
      }
    case HOSTILE_TOK_CONFIG_HUGE:
      if (!write_sparse (dir, "tokenizer_config.json", 5 << 20, error))
        return FALSE;
      json = g_strdup (VALID);
      break;
    case HOSTILE_TOK_JSON_FIFO:
      return write_fifo (dir, "tokenizer.json", error);
    case HOSTILE_TOK_CONFIG_FIFO:
      json = g_strdup (VALID);
      if (!write_fifo (dir, "tokenizer_config.json", error))
        return FALSE;
      break;
    case HOSTILE_TOK_MAP_FIFO:
      json = g_strdup (VALID);
      if (!write_text (dir, "tokenizer_config.json", "{}", error)
          || !write_fifo (dir, "special_tokens_map.json", error))
        return FALSE;
      break;
    case HOSTILE_TOK_VOCAB_TXT_FIFO:
      return write_fifo (dir, "vocab.txt", error);
    case HOSTILE_TOK_VOCAB_TXT_HUGE:
      return write_sparse (dir, "vocab.txt", (goffset) 300 << 20, error);
    case HOSTILE_TOK_VOCAB_ID_HUGE:
      json = g_strdup ("{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0, \"b\": 2147483647}, "
                       "\"merges\": []}}");
      break;
    case HOSTILE_TOK_VOCAB_ID_2_63:
      json = g_strdup ("{\"model\": {\"type\": \"WordPiece\", \"unk_token\": \"a\", \"vocab\": "
                       "{\"a\": 0, \"b\": 9223372036854775807}}}");
      break;
    case HOSTILE_TOK_ADDED_ID_HUGE:
      json = g_strdup ("{" WORDLEVEL ", \"added_tokens\": [{\"id\": 1073741824, \"content\": "
                       "\"<x>\", \"special\": true}]}");
      break;
    case HOSTILE_TOK_UNIGRAM_UNK:
      json = g_strdup ("{\"model\": {\"type\": \"Unigram\", \"unk_id\": 2147483648, \"vocab\": "
                       "[[\"a\", -1.0]]}}");
      break;
    case HOSTILE_TOK_UNIGRAM_LONG_PIECE:
      {
        g_autofree char *piece = g_strnfill (20000, 'a');
        json = g_strdup_printf ("{\"model\": {\"type\": \"Unigram\", \"unk_id\": 0, \"vocab\": "
                                "[[\"<unk>\", 0.0], [\"%s\", -1.0]]}}",
                                piece);
      }
      break;
    case HOSTILE_TOK_CHARSMAP_SIZE:
      json = g_strdup ("{" WORDLEVEL ", \"normalizer\": {\"type\": \"Precompiled\", "
                       "\"precompiled_charsmap\": \"ABAAAAAAAAAAAAAA\"}}");
      break;
    case HOSTILE_TOK_TEMPLATE_ID:
      json = g_strdup ("{" WORDLEVEL ", \"post_processor\": {\"type\": \"TemplateProcessing\", "
                       "\"single\": [{\"SpecialToken\": {\"id\": \"<s>\", \"type_id\": 0}}, "
                       "{\"Sequence\": {\"id\": \"A\", \"type_id\": 0}}], \"pair\": [], "
                       "\"special_tokens\": {\"<s>\": {\"id\": \"<s>\", \"ids\": [1099511627776], "
                       "\"tokens\": [\"<s>\"]}}}}");
      break;
    case HOSTILE_TOK_TEMPLATE_UNKNOWN:
      json = g_strdup ("{" WORDLEVEL ", \"post_processor\": {\"type\": \"BertProcessing\", "
                       "\"sep\": [\"[SEP]\", 3], \"cls\": [\"a\", 0]}}");
      break;
    case HOSTILE_TOK_NORMALIZER_GROWTH:
    case HOSTILE_TOK_NORMALIZER_GROWTH_200:
      json = growing_normalizer ();
      break;
    case HOSTILE_TOK_WORDPIECE_LONG_WORD:
      json = g_strdup ("{\"model\": {\"type\": \"WordPiece\", \"unk_token\": \"[UNK]\", "
                       "\"max_input_chars_per_word\": 2147483647, \"vocab\": {\"[UNK]\": 0, "
                       "\"a\": 1, \"##a\": 2, \"b\": 3, \"##b\": 4, \"ab\": 5, \"##ab\": 6}}, "
                       "\"pre_tokenizer\": {\"type\": \"WhitespaceSplit\"}}");
      break;
    case HOSTILE_TOK_ADDED_MANY:
      json = many_added_tokens ();
      break;
    case HOSTILE_TOK_JSON_NUL_KEY:
      json = g_strdup ("{\"model\": {\"type\": \"WordLevel\", \"vocab\": {\"a\\u0000b\": 0, "
                       "\"a\": 1, \"<unk>\": 2}, \"unk_token\": \"<unk>\"}}");
      break;
    case HOSTILE_TOK_CONFIG_NUL_KEY:
      if (!write_text (dir, "tokenizer_config.json", "{\"bos_token\\u0000x\": \"a\"}", error))
        return FALSE;
      json = g_strdup (VALID);
      break;
    case HOSTILE_TOK_MAP_NUL_VALUE:
      if (!write_text (dir, "tokenizer_config.json", "{}", error)
          || !write_text (dir, "special_tokens_map.json", "{\"eos_token\": \"</s>\\u0000x\"}",
                          error))
        return FALSE;
      json = g_strdup (VALID);
      break;
    case HOSTILE_TOK_VOCAB_JSON_NUL:
      return write_text (dir, "vocab.json", "{\"\\u0000\": 0, \"a\": 1}", error)
             && write_text (dir, "merges.txt", "#version: 0.2\n", error);
    case HOSTILE_TOK_SPM_ROOT_OUTSIDE:
    case HOSTILE_TOK_SPM_STRINGS_CUT:
    case HOSTILE_TOK_SPM_NO_NUL:
    case HOSTILE_TOK_SPM_FORTY_VALUES:
    case HOSTILE_TOK_SPM_LOOP:
      return write_marian (dir, c, error);
    case HOSTILE_TOK_N_CASES:
      g_assert_not_reached ();
    }
  return write_text (dir, "tokenizer.json", json, error);
}
