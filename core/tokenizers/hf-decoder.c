/* hf-decoder.c — tokenizer.json's decoders (hf-decoder-private.h).
 *
 * Sources (huggingface/tokenizers src/decoders/): mod.rs, byte_fallback.rs, fuse.rs, strip.rs,
 * wordpiece.rs (prefix removed from continuations, a space before other tokens but the first;
 * cleanup), bpe.rs, ctc.rs, sequence.rs; ../pre_tokenizers/byte_level.rs and metaspace.rs (the
 * decoders of those names), ../normalizers/replace.rs. Each decoder maps the list of token
 * strings to a new list (decode_chain); the result is their concatenation. */
#include "hf-decoder-private.h"

#include <string.h>

#include "byte-unicode-private.h"
#include "hf-regex-private.h"
#include "utf8-replace-private.h"

typedef enum
{
  DEC_BYTE_LEVEL,
  DEC_METASPACE,
  DEC_WORDPIECE,
  DEC_BYTE_FALLBACK,
  DEC_FUSE,
  DEC_STRIP,
  DEC_REPLACE,
  DEC_BPE,
  DEC_CTC,
  DEC_SEQUENCE,
} DecKind;

struct _AsHfDecoder
{
  DecKind kind;
  gunichar replacement;   /* Metaspace */
  gboolean prepend_never; /* Metaspace */
  char *text;             /* WordPiece prefix, Replace content, BPE suffix, CTC pad token */
  char *text2;            /* CTC word delimiter */
  gboolean cleanup;       /* WordPiece, CTC */
  gunichar content;       /* Strip */
  gint64 start, stop;     /* Strip */
  AsHfRegex *pattern;     /* Replace */
  GPtrArray *children;    /* Sequence */
};

void
as_hf_decoder_free (AsHfDecoder *d)
{
  if (d == NULL)
    return;
  g_free (d->text);
  g_free (d->text2);
  g_clear_pointer (&d->pattern, as_hf_regex_free);
  g_clear_pointer (&d->children, g_ptr_array_unref);
  g_free (d);
}

AsHfDecoder *
as_hf_decoder_new_wordpiece (void)
{
  AsHfDecoder *d = g_new0 (AsHfDecoder, 1);
  d->kind = DEC_WORDPIECE;
  d->text = g_strdup ("##");
  d->cleanup = TRUE;
  return d;
}

/* ---- reading ---- */

static gboolean
read_replace (AsHfDecoder *d, const AsHfJson *json, GError **error)
{
  const char *content;
  if (!as_hf_json_required_string (json, "content", &content, error))
    return FALSE;
  d->text = g_strdup (content);
  d->pattern = as_hf_regex_read (json, "pattern", error);
  return d->pattern != NULL;
}

static gboolean
read_fields (AsHfDecoder *d, const char *type, const AsHfJson *json, GError **error)
{
  const char *s;
  if (strcmp (type, "ByteLevel") == 0)
    d->kind = DEC_BYTE_LEVEL;
  else if (strcmp (type, "Metaspace") == 0)
    {
      gboolean add_prefix_space;
      d->kind = DEC_METASPACE;
      if (!as_hf_json_char (json, "replacement", 0x2581, &d->replacement, error)
          || !as_hf_json_string (json, "prepend_scheme", "always", &s, error)
          || !as_hf_json_bool (json, "add_prefix_space", TRUE, &add_prefix_space, error))
        return FALSE;
      d->prepend_never = strcmp (s, "never") == 0 || !add_prefix_space;
    }
  else if (strcmp (type, "WordPiece") == 0)
    {
      d->kind = DEC_WORDPIECE;
      if (!as_hf_json_string (json, "prefix", "##", &s, error)
          || !as_hf_json_bool (json, "cleanup", TRUE, &d->cleanup, error))
        return FALSE;
      d->text = g_strdup (s);
    }
  else if (strcmp (type, "ByteFallback") == 0)
    d->kind = DEC_BYTE_FALLBACK;
  else if (strcmp (type, "Fuse") == 0)
    d->kind = DEC_FUSE;
  else if (strcmp (type, "Strip") == 0)
    {
      d->kind = DEC_STRIP;
      if (!as_hf_json_char (json, "content", ' ', &d->content, error)
          || !as_hf_json_int (json, "start", 0, 0, G_MAXINT32, &d->start, error)
          || !as_hf_json_int (json, "stop", 0, 0, G_MAXINT32, &d->stop, error))
        return FALSE;
    }
  else if (strcmp (type, "Replace") == 0)
    {
      d->kind = DEC_REPLACE;
      return read_replace (d, json, error);
    }
  else if (strcmp (type, "BPEDecoder") == 0)
    {
      d->kind = DEC_BPE;
      if (!as_hf_json_string (json, "suffix", "</w>", &s, error))
        return FALSE;
      d->text = g_strdup (s);
    }
  else if (strcmp (type, "CTC") == 0)
    {
      const char *delim;
      d->kind = DEC_CTC;
      if (!as_hf_json_string (json, "pad_token", "<pad>", &s, error)
          || !as_hf_json_string (json, "word_delimiter_token", "|", &delim, error)
          || !as_hf_json_bool (json, "cleanup", TRUE, &d->cleanup, error))
        return FALSE;
      d->text = g_strdup (s);
      d->text2 = g_strdup (delim);
    }
  else if (strcmp (type, "Sequence") == 0)
    {
      d->kind = DEC_SEQUENCE;
      d->children = as_hf_json_read_list (json, "decoders", (AsHfJsonReader) as_hf_decoder_read,
                                          (GDestroyNotify) as_hf_decoder_free, error);
      return d->children != NULL;
    }
  else
    return as_hf_json_fail (json, error, "unknown type \"%s\"", type);
  return TRUE;
}

AsHfDecoder *
as_hf_decoder_read (const AsHfJson *json, GError **error)
{
  const char *type;
  if (!as_hf_json_type (json, &type, error))
    return NULL;
  g_autoptr (AsHfDecoder) d = g_new0 (AsHfDecoder, 1);
  if (!read_fields (d, type, json, error))
    return NULL;
  return g_steal_pointer (&d);
}

/* ---- decoding: TOKENS is a GPtrArray of GString (bytes) ---- */

/* The free function of those arrays (g_string_free takes a second argument). */
static void
string_free (gpointer s)
{
  g_string_free (s, TRUE);
}

static void
replace_all (GString *s, const char *from, const char *to)
{
  if (*from != '\0')
    g_string_replace (s, from, to, 0);
}

/* wordpiece.rs cleanup: the spaces English tokenization put before punctuation and clitics. */
static void
cleanup (GString *s)
{
  static const char *const pairs[][2]
      = { { " .", "." },   { " ?", "?" },     { " !", "!" },    { " ,", "," },
          { " ' ", "'" },  { " n't", "n't" }, { " 'm", "'m" },  { " do not", " don't" },
          { " 's", "'s" }, { " 've", "'ve" }, { " 're", "'re" } };
  for (guint i = 0; i < G_N_ELEMENTS (pairs); i++)
    replace_all (s, pairs[i][0], pairs[i][1]);
}

static GString *
token_at (GPtrArray *tokens, guint i)
{
  return g_ptr_array_index (tokens, i);
}

/* byte_level.rs decoder: all tokens' bytes as one string. */
static void
byte_level (GPtrArray *tokens, gboolean token_mode)
{
  GString *all = g_string_new (NULL);
  for (guint i = 0; i < tokens->len; i++)
    {
      GString *t = token_at (tokens, i);
      gsize start = all->len;
      gboolean table = TRUE;
      for (const char *p = t->str; p < t->str + t->len && table; p = g_utf8_next_char (p))
        {
          int b = as_byte_unicode_to_byte (g_utf8_get_char (p));
          if (b < 0)
            table = FALSE;
          else
            g_string_append_c (all, (char) b);
        }
      if (!table)
        {
          g_string_truncate (all, start);
          g_string_append_len (all, t->str, (gssize) t->len);
        }
    }
  if (!token_mode)
    {
      char *fixed = as_utf8_replace_invalid (all->str, all->len);
      g_string_assign (all, fixed);
      g_free (fixed);
    }
  g_ptr_array_set_size (tokens, 0);
  g_ptr_array_add (tokens, all);
}

static int
fallback_byte (const GString *t)
{
  if (t->len != 6 || strncmp (t->str, "<0x", 3) != 0 || t->str[5] != '>'
      || !g_ascii_isxdigit (t->str[3]) || !g_ascii_isxdigit (t->str[4]))
    return -1;
  return g_ascii_xdigit_value (t->str[3]) * 16 + g_ascii_xdigit_value (t->str[4]);
}

/* byte_fallback.rs: runs of <0xXX> become their bytes when they form UTF-8, else one U+FFFD
 * per byte (raw bytes in token mode). */
static void
byte_fallback (GPtrArray *tokens, gboolean token_mode)
{
  GPtrArray *out = g_ptr_array_new_with_free_func (string_free);
  GString *run = g_string_new (NULL);
  for (guint i = 0; i <= tokens->len; i++)
    {
      int b = i < tokens->len ? fallback_byte (token_at (tokens, i)) : -1;
      if (b >= 0)
        {
          g_string_append_c (run, (char) b);
          continue;
        }
      if (run->len > 0)
        {
          if (token_mode || g_utf8_validate_len (run->str, run->len, NULL))
            g_ptr_array_add (out, g_string_new_len (run->str, (gssize) run->len));
          else
            for (gsize k = 0; k < run->len; k++)
              g_ptr_array_add (out, g_string_new ("\xef\xbf\xbd"));
          g_string_truncate (run, 0);
        }
      if (i < tokens->len)
        {
          GString *t = token_at (tokens, i);
          g_ptr_array_add (out, g_string_new_len (t->str, (gssize) t->len));
        }
    }
  g_string_free (run, TRUE);
  g_ptr_array_set_size (tokens, 0);
  g_ptr_array_extend_and_steal (tokens, out);
}

static void
strip (GString *t, gunichar content, gint64 start, gint64 stop)
{
  glong n = g_utf8_strlen (t->str, (gssize) t->len);
  gunichar *chars = g_utf8_to_ucs4_fast (t->str, (glong) t->len, NULL);
  glong first = 0, last = n;
  for (glong i = 0; i < n && i < start && chars[i] == content; i++)
    first = i + 1;
  for (glong i = 0; i < stop && n - i - 1 >= 0 && chars[n - i - 1] == content; i++)
    last = n - i - 1;
  g_string_truncate (t, 0);
  for (glong i = first; i < last; i++)
    g_string_append_unichar (t, chars[i]);
  g_free (chars);
}

static void
replace_regex (GString *t, const AsHfRegex *pattern, const char *content)
{
  g_autoptr (GArray) matches = g_array_new (FALSE, FALSE, sizeof (AsHfRange));
  (void) as_hf_regex_find_all (pattern, t->str, t->len, matches, NULL);
  g_autoptr (GString) out = g_string_new (NULL);
  gsize last = 0;
  for (guint i = 0; i < matches->len; i++)
    {
      const AsHfRange *r = &g_array_index (matches, AsHfRange, i);
      g_string_append_len (out, t->str + last, (gssize) (r->start - last));
      g_string_append (out, content);
      last = r->end;
    }
  g_string_append_len (out, t->str + last, (gssize) (t->len - last));
  g_string_assign (t, out->str);
}

static void
decode_chain (const AsHfDecoder *d, GPtrArray *tokens, gboolean token_mode)
{
  switch (d->kind)
    {
    case DEC_SEQUENCE:
      for (guint i = 0; i < d->children->len; i++)
        decode_chain (g_ptr_array_index (d->children, i), tokens, token_mode);
      return;
    case DEC_BYTE_LEVEL:
      byte_level (tokens, token_mode);
      return;
    case DEC_BYTE_FALLBACK:
      byte_fallback (tokens, token_mode);
      return;
    case DEC_FUSE:
      {
        GString *all = g_string_new (NULL);
        for (guint i = 0; i < tokens->len; i++)
          g_string_append_len (all, token_at (tokens, i)->str, (gssize) token_at (tokens, i)->len);
        g_ptr_array_set_size (tokens, 0);
        g_ptr_array_add (tokens, all);
        return;
      }
    case DEC_CTC:
      /* consecutive equal tokens count once (itertools dedup), before the replacements */
      for (guint i = tokens->len; i-- > 1;)
        if (g_string_equal (token_at (tokens, i), token_at (tokens, i - 1)))
          g_ptr_array_remove_index (tokens, i);
      break;
    default:
      break;
    }
  for (guint i = 0; i < tokens->len; i++)
    {
      GString *t = token_at (tokens, i);
      gboolean first = i == 0 && !token_mode;
      switch (d->kind)
        {
        case DEC_METASPACE:
          {
            char rep[8];
            rep[g_unichar_to_utf8 (d->replacement, rep)] = '\0';
            if (first && !d->prepend_never && g_str_has_prefix (t->str, rep))
              g_string_erase (t, 0, (gssize) strlen (rep));
            replace_all (t, rep, first && !d->prepend_never ? "" : " ");
            break;
          }
        case DEC_WORDPIECE:
          if (!first)
            {
              if (g_str_has_prefix (t->str, d->text))
                g_string_erase (t, 0, (gssize) strlen (d->text));
              else
                g_string_prepend_c (t, ' ');
            }
          if (d->cleanup)
            cleanup (t);
          break;
        case DEC_STRIP:
          if (!token_mode)
            strip (t, d->content, d->start, d->stop);
          break;
        case DEC_REPLACE:
          replace_regex (t, d->pattern, d->text);
          break;
        case DEC_BPE:
          replace_all (t, d->text, i + 1 == tokens->len && !token_mode ? "" : " ");
          break;
        case DEC_CTC:
          replace_all (t, d->text, "");
          if (d->cleanup)
            {
              cleanup (t);
              replace_all (t, d->text2, " ");
            }
          break;
        default:
          break;
        }
    }
  if (d->kind == DEC_CTC)
    {
      /* empty tokens are dropped */
      for (guint i = tokens->len; i-- > 0;)
        if (token_at (tokens, i)->len == 0)
          g_ptr_array_remove_index (tokens, i);
    }
}

char *
as_hf_decoder_decode (const AsHfDecoder *d, GPtrArray *strings, gboolean token_mode, gsize *length)
{
  g_autoptr (GPtrArray) tokens = g_ptr_array_new_with_free_func (string_free);
  for (guint i = 0; i < strings->len; i++)
    g_ptr_array_add (tokens, g_string_new (g_ptr_array_index (strings, i)));
  if (d != NULL)
    decode_chain (d, tokens, token_mode);
  GString *out = g_string_new (NULL);
  for (guint i = 0; i < tokens->len; i++)
    {
      if (d == NULL && i > 0)
        g_string_append_c (out, ' ');
      g_string_append_len (out, token_at (tokens, i)->str, (gssize) token_at (tokens, i)->len);
    }
  *length = out->len;
  return g_string_free (out, FALSE);
}
