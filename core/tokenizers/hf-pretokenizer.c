/* hf-pretokenizer.c — tokenizer.json's pre-tokenizers (hf-pretokenizer-private.h).
 *
 * Sources (huggingface/tokenizers src/pre_tokenizers/): byte_level.rs (ByteLevel: optional
 * prefix space, GPT-2's regex, then every byte as its byte-level character), split.rs,
 * metaspace.rs (spaces → replacement, prepend scheme always/first/never, split before each
 * replacement), whitespace.rs (Whitespace: the pieces are the matches of \w+|[^\w\s]+ with Rust
 * regex classes; WhitespaceSplit: split on White_Space), bert.rs, punctuation.rs, digits.rs,
 * delimiter.rs, sequence.rs. */
#include "hf-pretokenizer-private.h"

#include <string.h>

#include "byte-unicode-private.h"
#include "hf-split-private.h"
#include "hf-unicode-private.h"
#include "tokenizer-work-private.h"

/* GPT-2's pattern, as byte_level.rs gives it to Oniguruma. */
#define GPT2_PATTERN                                                                               \
  "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+"

typedef enum
{
  PRE_BYTE_LEVEL,
  PRE_SPLIT,
  PRE_METASPACE,
  PRE_WHITESPACE,
  PRE_WHITESPACE_SPLIT,
  PRE_BERT,
  PRE_PUNCTUATION,
  PRE_DIGITS,
  PRE_DELIMITER,
  PRE_SEQUENCE,
} PreKind;

typedef enum
{
  PREPEND_ALWAYS,
  PREPEND_FIRST,
  PREPEND_NEVER,
} PrependScheme;

struct _AsHfPreTokenizer
{
  PreKind kind;
  gboolean add_prefix_space; /* ByteLevel */
  AsHfRegex *regex;          /* ByteLevel (when use_regex), Split */
  AsHfBehavior behavior;     /* Split, Punctuation */
  gboolean invert;           /* Split */
  gunichar replacement;      /* Metaspace */
  char replacement_utf8[8];  /* Metaspace */
  PrependScheme prepend;     /* Metaspace */
  gboolean split;            /* Metaspace */
  gboolean individual;       /* Digits */
  gunichar delimiter;        /* CharDelimiterSplit */
  GPtrArray *children;       /* Sequence */
};

void
as_hf_pretokenizer_free (AsHfPreTokenizer *p)
{
  if (p == NULL)
    return;
  g_clear_pointer (&p->regex, as_hf_regex_free);
  g_clear_pointer (&p->children, g_ptr_array_unref);
  g_free (p);
}

static AsHfRegex *
fixed_regex (const char *pattern)
{
  AsHfRegex *regex = as_hf_regex_new (pattern, FALSE, NULL);
  g_assert (regex != NULL); /* the built-in patterns compile */
  return regex;
}

AsHfPreTokenizer *
as_hf_pretokenizer_new_bert (void)
{
  AsHfPreTokenizer *p = g_new0 (AsHfPreTokenizer, 1);
  p->kind = PRE_BERT;
  return p;
}

/* ---- reading ---- */

static gboolean
read_split (AsHfPreTokenizer *p, const AsHfJson *json, GError **error)
{
  const char *behavior;
  if (!as_hf_json_required_string (json, "behavior", &behavior, error)
      || !as_hf_json_bool (json, "invert", FALSE, &p->invert, error))
    return FALSE;
  if (!as_hf_behavior_parse (behavior, &p->behavior))
    return as_hf_json_fail (json, error, "unknown behavior \"%s\"", behavior);
  p->regex = as_hf_regex_read (json, "pattern", error);
  return p->regex != NULL;
}

static gboolean
read_metaspace (AsHfPreTokenizer *p, const AsHfJson *json, GError **error)
{
  const char *scheme;
  gboolean add_prefix_space;
  JsonNode *aps = as_hf_json_member (json, "add_prefix_space");
  if (!as_hf_json_char (json, "replacement", 0x2581, &p->replacement, error)
      || !as_hf_json_string (json, "prepend_scheme", "always", &scheme, error)
      || !as_hf_json_bool (json, "split", TRUE, &p->split, error)
      || !as_hf_json_bool (json, "add_prefix_space", TRUE, &add_prefix_space, error))
    return FALSE;
  if (strcmp (scheme, "always") == 0)
    p->prepend = PREPEND_ALWAYS;
  else if (strcmp (scheme, "first") == 0)
    p->prepend = PREPEND_FIRST;
  else if (strcmp (scheme, "never") == 0)
    p->prepend = PREPEND_NEVER;
  else
    return as_hf_json_fail (json, error, "unknown prepend_scheme \"%s\"", scheme);
  if (aps != NULL && !add_prefix_space)
    {
      /* older files: add_prefix_space false means "never" (metaspace.rs) */
      if (p->prepend != PREPEND_NEVER && as_hf_json_member (json, "prepend_scheme") != NULL)
        return as_hf_json_fail (json, error,
                                "add_prefix_space does not match declared prepend_scheme");
      p->prepend = PREPEND_NEVER;
    }
  p->replacement_utf8[g_unichar_to_utf8 (p->replacement, p->replacement_utf8)] = '\0';
  return TRUE;
}

static gboolean
read_sequence (AsHfPreTokenizer *p, const AsHfJson *json, GError **error)
{
  p->children
      = as_hf_json_read_list (json, "pretokenizers", (AsHfJsonReader) as_hf_pretokenizer_read,
                              (GDestroyNotify) as_hf_pretokenizer_free, error);
  return p->children != NULL;
}

static gboolean
read_fields (AsHfPreTokenizer *p, const char *type, const AsHfJson *json, GError **error)
{
  if (strcmp (type, "ByteLevel") == 0)
    {
      gboolean use_regex;
      p->kind = PRE_BYTE_LEVEL;
      if (!as_hf_json_bool (json, "add_prefix_space", TRUE, &p->add_prefix_space, error)
          || !as_hf_json_bool (json, "use_regex", TRUE, &use_regex, error))
        return FALSE;
      if (use_regex)
        p->regex = fixed_regex (GPT2_PATTERN);
      return TRUE;
    }
  if (strcmp (type, "Split") == 0)
    {
      p->kind = PRE_SPLIT;
      return read_split (p, json, error);
    }
  if (strcmp (type, "Metaspace") == 0)
    {
      p->kind = PRE_METASPACE;
      return read_metaspace (p, json, error);
    }
  if (strcmp (type, "Whitespace") == 0)
    {
      p->kind = PRE_WHITESPACE;
      return TRUE;
    }
  if (strcmp (type, "WhitespaceSplit") == 0)
    {
      p->kind = PRE_WHITESPACE_SPLIT;
      return TRUE;
    }
  if (strcmp (type, "BertPreTokenizer") == 0)
    {
      p->kind = PRE_BERT;
      return TRUE;
    }
  if (strcmp (type, "Punctuation") == 0)
    {
      const char *behavior;
      p->kind = PRE_PUNCTUATION;
      if (!as_hf_json_string (json, "behavior", "Isolated", &behavior, error))
        return FALSE;
      if (!as_hf_behavior_parse (behavior, &p->behavior))
        return as_hf_json_fail (json, error, "unknown behavior \"%s\"", behavior);
      return TRUE;
    }
  if (strcmp (type, "Digits") == 0)
    {
      p->kind = PRE_DIGITS;
      return as_hf_json_bool (json, "individual_digits", FALSE, &p->individual, error);
    }
  if (strcmp (type, "CharDelimiterSplit") == 0)
    {
      p->kind = PRE_DELIMITER;
      if (as_hf_json_member (json, "delimiter") == NULL)
        return as_hf_json_fail (json, error, "missing \"delimiter\"");
      return as_hf_json_char (json, "delimiter", 0, &p->delimiter, error);
    }
  if (strcmp (type, "Sequence") == 0)
    {
      p->kind = PRE_SEQUENCE;
      return read_sequence (p, json, error);
    }
  return as_hf_json_fail (json, error, "unknown type \"%s\"", type);
}

AsHfPreTokenizer *
as_hf_pretokenizer_read (const AsHfJson *json, GError **error)
{
  const char *type;
  if (!as_hf_json_type (json, &type, error))
    return NULL;
  g_autoptr (AsHfPreTokenizer) p = g_new0 (AsHfPreTokenizer, 1);
  if (!read_fields (p, type, json, error))
    return NULL;
  return g_steal_pointer (&p);
}

void
as_hf_pretokenizer_get_metaspace (const AsHfPreTokenizer *p, gunichar *replacement,
                                  gboolean *prepend_never)
{
  *replacement = 0;
  if (p == NULL)
    return;
  if (p->kind == PRE_METASPACE)
    {
      *replacement = p->replacement;
      *prepend_never = p->prepend == PREPEND_NEVER;
      return;
    }
  if (p->kind == PRE_SEQUENCE)
    for (guint i = 0; i < p->children->len && *replacement == 0; i++)
      as_hf_pretokenizer_get_metaspace (g_ptr_array_index (p->children, i), replacement,
                                        prepend_never);
}

/* ---- applying ---- */

/* Cuts PIECE with regex REGEX (optionally inverted) and BEHAVIOR into OUT. */
static gboolean
split_regex (const AsHfSplit *piece, const AsHfRegex *regex, gboolean invert, AsHfBehavior behavior,
             GArray *out, GError **error)
{
  g_autoptr (GArray) ranges = g_array_new (FALSE, FALSE, sizeof (AsHfRange));
  g_autoptr (GArray) stretches = g_array_new (FALSE, FALSE, sizeof (AsHfStretch));
  if (!as_hf_regex_find_all (regex, piece->text->str, piece->text->len, ranges, error))
    return FALSE;
  as_hf_stretches_from_ranges (ranges, piece->text->len, invert, stretches);
  as_hf_split_by_stretches (piece, stretches, behavior, out);
  return TRUE;
}

static void
split_chars (const AsHfSplit *piece, AsHfCharClass is_match, gconstpointer data,
             AsHfBehavior behavior, GArray *out)
{
  g_autoptr (GArray) stretches = g_array_new (FALSE, FALSE, sizeof (AsHfStretch));
  as_hf_stretches_from_chars (piece->text->str, piece->text->len, is_match, data, FALSE, stretches);
  as_hf_split_by_stretches (piece, stretches, behavior, out);
}

static gboolean
byte_level (const AsHfPreTokenizer *p, AsHfSplit *piece, GArray *out, GError **error)
{
  if (p->add_prefix_space && (piece->text->len == 0 || piece->text->str[0] != ' '))
    g_string_prepend_c (piece->text, ' ');
  guint first = out->len;
  if (p->regex != NULL)
    {
      if (!split_regex (piece, p->regex, FALSE, AS_HF_ISOLATED, out, error))
        return FALSE;
    }
  else if (piece->text->len > 0)
    as_hf_splits_append (out, piece->text->str, piece->text->len, -1, piece->at_start);
  for (guint i = first; i < out->len; i++)
    as_byte_level_encode (g_array_index (out, AsHfSplit, i).text);
  return TRUE;
}

/* Character classes for split_chars; DATA is unused or points to the character to match. */
static gboolean
is_char (gunichar c, gconstpointer data)
{
  return c == *(const gunichar *) data;
}

static gboolean
is_whitespace (gunichar c, gconstpointer data)
{
  return as_hf_is_whitespace (c);
}

static gboolean
is_punctuation (gunichar c, gconstpointer data)
{
  return as_hf_is_punctuation (c);
}

static gboolean
is_numeric (gunichar c, gconstpointer data)
{
  return as_hf_is_numeric (c);
}

static void
metaspace (const AsHfPreTokenizer *p, AsHfSplit *piece, GArray *out)
{
  GString *t = piece->text;
  if (memchr (t->str, ' ', t->len) != NULL)
    {
      g_autoptr (GString) r = g_string_sized_new (t->len + 8);
      for (gsize i = 0; i < t->len; i++)
        {
          if (t->str[i] == ' ')
            g_string_append (r, p->replacement_utf8);
          else
            g_string_append_c (r, t->str[i]);
        }
      g_string_truncate (t, 0);
      g_string_append_len (t, r->str, (gssize) r->len);
    }
  gboolean starts = t->len > 0 && g_utf8_get_char (t->str) == p->replacement;
  if (!starts && (p->prepend == PREPEND_ALWAYS || (p->prepend == PREPEND_FIRST && piece->at_start)))
    g_string_prepend (t, p->replacement_utf8);
  if (!p->split)
    {
      if (t->len > 0)
        as_hf_splits_append (out, t->str, t->len, -1, piece->at_start);
      return;
    }
  split_chars (piece, is_char, &p->replacement, AS_HF_MERGED_WITH_NEXT, out);
}

/* whitespace.rs: the pieces are the matches of \w+|[^\w\s]+ in the Rust regex crate (\w:
 * as_hf_is_word_char, \s: White_Space), i.e. the maximal runs of word characters and of other
 * non-space characters; spaces go. */
static void
whitespace (const AsHfSplit *piece, GArray *out)
{
  const char *text = piece->text->str, *end = text + piece->text->len;
  const char *p = text;
  while (p < end)
    {
      gunichar c = g_utf8_get_char (p);
      if (as_hf_is_whitespace (c))
        {
          p = g_utf8_next_char (p);
          continue;
        }
      gboolean word = as_hf_is_word_char (c);
      const char *start = p;
      while (p < end)
        {
          gunichar d = g_utf8_get_char (p);
          if (as_hf_is_whitespace (d) || as_hf_is_word_char (d) != word)
            break;
          p = g_utf8_next_char (p);
        }
      as_hf_splits_append (out, start, (gsize) (p - start), -1, piece->at_start && start == text);
    }
}

/* Cuts one piece (without token) into OUT. */
static gboolean
apply_one (const AsHfPreTokenizer *p, AsHfSplit *piece, GArray *out, GError **error)
{
  as_tokenizer_work_add (piece->text->len + 1);
  switch (p->kind)
    {
    case PRE_BYTE_LEVEL:
      return byte_level (p, piece, out, error);
    case PRE_SPLIT:
      return split_regex (piece, p->regex, p->invert, p->behavior, out, error);
    case PRE_METASPACE:
      metaspace (p, piece, out);
      return TRUE;
    case PRE_WHITESPACE:
      whitespace (piece, out);
      return TRUE;
    case PRE_WHITESPACE_SPLIT:
      split_chars (piece, is_whitespace, NULL, AS_HF_REMOVED, out);
      return TRUE;
    case PRE_BERT:
      {
        g_autoptr (GArray) words = as_hf_splits_new ();
        split_chars (piece, is_whitespace, NULL, AS_HF_REMOVED, words);
        for (guint i = 0; i < words->len; i++)
          split_chars (&g_array_index (words, AsHfSplit, i), is_punctuation, NULL, AS_HF_ISOLATED,
                       out);
        return TRUE;
      }
    case PRE_PUNCTUATION:
      split_chars (piece, is_punctuation, NULL, p->behavior, out);
      return TRUE;
    case PRE_DIGITS:
      split_chars (piece, is_numeric, NULL, p->individual ? AS_HF_ISOLATED : AS_HF_CONTIGUOUS, out);
      return TRUE;
    case PRE_DELIMITER:
      split_chars (piece, is_char, &p->delimiter, AS_HF_REMOVED, out);
      return TRUE;
    case PRE_SEQUENCE:
      g_assert_not_reached ();
    }
  return TRUE;
}

gboolean
as_hf_pretokenizer_apply (const AsHfPreTokenizer *p, GArray **splits, GError **error)
{
  if (p->kind == PRE_SEQUENCE)
    {
      for (guint i = 0; i < p->children->len; i++)
        if (!as_hf_pretokenizer_apply (g_ptr_array_index (p->children, i), splits, error))
          return FALSE;
      return TRUE;
    }
  GArray *in = *splits;
  g_autoptr (GArray) out = as_hf_splits_new ();
  for (guint i = 0; i < in->len; i++)
    {
      AsHfSplit *piece = &g_array_index (in, AsHfSplit, i);
      if (piece->id >= 0)
        {
          g_array_append_val (out, *piece);
          piece->text = NULL; /* moved */
          continue;
        }
      if (!apply_one (p, piece, out, error))
        return FALSE;
    }
  g_array_unref (in);
  *splits = g_steal_pointer (&out);
  return TRUE;
}
