/* hostile-tokenizers.c — the hostile tokenizer folders of hostile-tokenizers.h. */
#include "hostile-tokenizers.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
} CaseInfo;

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

const char *
hostile_tokenizer_text (HostileTokenizerCase c)
{
  return cases[c].text;
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
    case HOSTILE_TOK_N_CASES:
      g_assert_not_reached ();
    }
  return write_text (dir, "tokenizer.json", json, error);
}
