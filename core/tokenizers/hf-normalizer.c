/* hf-normalizer.c — tokenizer.json's normalizers (hf-normalizer-private.h).
 *
 * Sources (huggingface/tokenizers): src/normalizers/unicode.rs (NFC, NFD, NFKC, NFKD, Nmt),
 * utils.rs (Lowercase, Sequence), strip.rs (Strip, StripAccents), replace.rs, prepend.rs,
 * bert.rs, byte_level.rs, precompiled.rs; the string operations they call are in
 * src/tokenizer/normalizer.rs. */
#include "hf-normalizer-private.h"

#include <string.h>

#include "as-error.h"
#include "as-trace.h"
#include "byte-unicode-private.h"
#include "hf-precompiled-private.h"
#include "hf-regex-private.h"
#include "hf-unicode-private.h"
#include "tokenizer-work-private.h"

typedef enum
{
  NORM_NFC,
  NORM_NFD,
  NORM_NFKC,
  NORM_NFKD,
  NORM_LOWERCASE,
  NORM_STRIP_ACCENTS,
  NORM_STRIP,
  NORM_REPLACE,
  NORM_PREPEND,
  NORM_BERT,
  NORM_PRECOMPILED,
  NORM_NMT,
  NORM_BYTE_LEVEL,
  NORM_SEQUENCE,
} NormKind;

struct _AsHfNormalizer
{
  NormKind kind;
  char *where;                  /* "FILE: PATH (TYPE)", for messages */
  gboolean left, right;         /* Strip */
  AsHfRegex *pattern;           /* Replace */
  char *content;                /* Replace's content, Prepend's prepend */
  gboolean clean_text;          /* BertNormalizer */
  gboolean chinese;             /* BertNormalizer */
  gboolean strip_accents;       /* BertNormalizer, already resolved from null */
  gboolean lowercase;           /* BertNormalizer */
  AsHfPrecompiled *precompiled; /* Precompiled; NULL = identity */
  GPtrArray *children;          /* Sequence: AsHfNormalizer* */
};

void
as_hf_normalizer_free (AsHfNormalizer *n)
{
  if (n == NULL)
    return;
  g_clear_pointer (&n->pattern, as_hf_regex_free);
  g_clear_pointer (&n->precompiled, as_hf_precompiled_free);
  g_clear_pointer (&n->children, g_ptr_array_unref);
  g_free (n->content);
  g_free (n->where);
  g_free (n);
}

AsHfNormalizer *
as_hf_normalizer_new_bert (gboolean clean_text, gboolean handle_chinese_chars, int strip_accents,
                           gboolean lowercase)
{
  AsHfNormalizer *n = g_new0 (AsHfNormalizer, 1);
  n->kind = NORM_BERT;
  n->where = g_strdup ("BertNormalizer");
  n->clean_text = clean_text;
  n->chinese = handle_chinese_chars;
  n->strip_accents = strip_accents < 0 ? lowercase : strip_accents != 0;
  n->lowercase = lowercase;
  return n;
}

/* ---- reading ---- */

static gboolean
read_sequence (AsHfNormalizer *n, const AsHfJson *json, GError **error)
{
  n->children = as_hf_json_read_list (json, "normalizers", (AsHfJsonReader) as_hf_normalizer_read,
                                      (GDestroyNotify) as_hf_normalizer_free, error);
  return n->children != NULL;
}

static gboolean
read_bert (AsHfNormalizer *n, const AsHfJson *json, GError **error)
{
  JsonNode *strip = as_hf_json_member (json, "strip_accents");
  gboolean strip_value = FALSE;
  if (!as_hf_json_bool (json, "clean_text", TRUE, &n->clean_text, error)
      || !as_hf_json_bool (json, "handle_chinese_chars", TRUE, &n->chinese, error)
      || !as_hf_json_bool (json, "lowercase", TRUE, &n->lowercase, error)
      || !as_hf_json_bool (json, "strip_accents", FALSE, &strip_value, error))
    return FALSE;
  n->strip_accents = strip == NULL ? n->lowercase : strip_value; /* null follows lowercase */
  return TRUE;
}

static gboolean
read_fields (AsHfNormalizer *n, const char *type, const AsHfJson *json, GError **error)
{
  static const struct
  {
    const char *name;
    NormKind kind;
  } kinds[] = {
    { "NFC", NORM_NFC },
    { "NFD", NORM_NFD },
    { "NFKC", NORM_NFKC },
    { "NFKD", NORM_NFKD },
    { "Lowercase", NORM_LOWERCASE },
    { "StripAccents", NORM_STRIP_ACCENTS },
    { "Strip", NORM_STRIP },
    { "Replace", NORM_REPLACE },
    { "Prepend", NORM_PREPEND },
    { "BertNormalizer", NORM_BERT },
    { "Precompiled", NORM_PRECOMPILED },
    { "Nmt", NORM_NMT },
    { "ByteLevel", NORM_BYTE_LEVEL },
    { "Sequence", NORM_SEQUENCE },
  };
  guint k = 0;
  while (k < G_N_ELEMENTS (kinds) && strcmp (kinds[k].name, type) != 0)
    k++;
  if (k == G_N_ELEMENTS (kinds))
    return as_hf_json_fail (json, error, "unknown type \"%s\"", type);
  n->kind = kinds[k].kind;

  const char *s = NULL;
  switch (n->kind)
    {
    case NORM_STRIP:
      return as_hf_json_bool (json, "strip_left", FALSE, &n->left, error)
             && as_hf_json_bool (json, "strip_right", FALSE, &n->right, error);
    case NORM_REPLACE:
      if (!as_hf_json_required_string (json, "content", &s, error))
        return FALSE;
      n->content = g_strdup (s);
      n->pattern = as_hf_regex_read (json, "pattern", error);
      return n->pattern != NULL;
    case NORM_PREPEND:
      if (!as_hf_json_required_string (json, "prepend", &s, error))
        return FALSE;
      n->content = g_strdup (s);
      return TRUE;
    case NORM_BERT:
      return read_bert (n, json, error);
    case NORM_PRECOMPILED:
      {
        if (!as_hf_json_string (json, "precompiled_charsmap", NULL, &s, error))
          return FALSE;
        if (s == NULL || *s == '\0')
          return TRUE; /* no map: identity */
        GError *local = NULL;
        n->precompiled = as_hf_precompiled_new (s, &local);
        if (n->precompiled == NULL)
          {
            as_hf_json_fail (json, error, "precompiled_charsmap: %s", local->message);
            g_error_free (local);
            return FALSE;
          }
        return TRUE;
      }
    case NORM_SEQUENCE:
      return read_sequence (n, json, error);
    default:
      return TRUE;
    }
}

AsHfNormalizer *
as_hf_normalizer_read (const AsHfJson *json, GError **error)
{
  const char *type;
  if (!as_hf_json_type (json, &type, error))
    return NULL;
  g_autoptr (AsHfNormalizer) n = g_new0 (AsHfNormalizer, 1);
  n->where = g_strdup_printf ("%s: %s (%s)", json->file, json->path, type);
  if (!read_fields (n, type, json, error))
    return NULL;
  return g_steal_pointer (&n);
}

/* ---- applying ---- */

/* Replaces TEXT with OUT's contents. */
static void
take (GString *text, GString *out)
{
  g_string_truncate (text, 0);
  g_string_append_len (text, out->str, (gssize) out->len);
}

static void
lowercase (GString *text)
{
  g_autoptr (GString) out = g_string_sized_new (text->len);
  const char *end = text->str + text->len;
  for (const char *p = text->str; p < end; p = g_utf8_next_char (p))
    as_hf_append_lowercase (out, g_utf8_get_char (p));
  take (text, out);
}

/* Keeps the characters for which KEEP is true. */
static void
filter (GString *text, gboolean (*drop) (gunichar))
{
  g_autoptr (GString) out = g_string_sized_new (text->len);
  const char *end = text->str + text->len;
  for (const char *p = text->str; p < end; p = g_utf8_next_char (p))
    if (!drop (g_utf8_get_char (p)))
      g_string_append_len (out, p, g_utf8_next_char (p) - p);
  take (text, out);
}

/* NormalizedString::lrstrip: leading/trailing White_Space characters. */
static void
strip (GString *text, gboolean left, gboolean right)
{
  const char *begin = text->str, *end = text->str + text->len;
  if (left)
    while (begin < end && as_hf_is_whitespace (g_utf8_get_char (begin)))
      begin = g_utf8_next_char (begin);
  if (right)
    while (end > begin)
      {
        const char *prev = g_utf8_prev_char (end);
        if (!as_hf_is_whitespace (g_utf8_get_char (prev)))
          break;
        end = prev;
      }
  gsize len = (gsize) (end - begin);
  memmove (text->str, begin, len);
  g_string_truncate (text, len);
}

/* The bounds of one normalization: the input's length and the longest result allowed. */
typedef struct
{
  gsize input;
  gsize max;
} Budget;

/* Whether a text of LENGTH bytes is within BUDGET (and, when it is large, the memory budget);
 * else sets an AS_ERROR_INPUT error naming N. */
static gboolean
within (const AsHfNormalizer *n, gsize length, const Budget *budget, GError **error)
{
  if (length > budget->max)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "%s: the normalized text would pass %" G_GSIZE_FORMAT
                   " bytes (%d times the %" G_GSIZE_FORMAT "-byte input + %d); refused",
                   n->where, budget->max, AS_HF_NORMALIZED_GROWTH, budget->input,
                   AS_HF_NORMALIZED_SLACK);
      return FALSE;
    }
  /* the text and the copy being written */
  if (length > (64u << 20) && !as_memory_check (2 * (guint64) length, n->where, error))
    return FALSE;
  return TRUE;
}

static gboolean
replace (GString *text, const AsHfNormalizer *n, const Budget *budget, GError **error)
{
  g_autoptr (GArray) matches = g_array_new (FALSE, FALSE, sizeof (AsHfRange));
  (void) as_hf_regex_find_all (n->pattern, text->str, text->len, matches, NULL);
  if (matches->len == 0)
    return TRUE;
  gsize content = strlen (n->content), grown = text->len;
  for (guint i = 0; i < matches->len; i++)
    {
      const AsHfRange *r = &g_array_index (matches, AsHfRange, i);
      grown = grown - (r->end - r->start) + content;
      if (grown > budget->max)
        break; /* refused below; the exact total does not matter */
    }
  if (!within (n, grown, budget, error))
    return FALSE;
  g_autoptr (GString) out = g_string_sized_new (grown);
  gsize last = 0;
  for (guint i = 0; i < matches->len; i++)
    {
      const AsHfRange *r = &g_array_index (matches, AsHfRange, i);
      g_string_append_len (out, text->str + last, (gssize) (r->start - last));
      g_string_append (out, n->content);
      last = r->end;
    }
  g_string_append_len (out, text->str + last, (gssize) (text->len - last));
  take (text, out);
  return TRUE;
}

static void
bert (GString *text, const AsHfNormalizer *n)
{
  if (n->clean_text || n->chinese)
    {
      g_autoptr (GString) out = g_string_sized_new (text->len);
      const char *end = text->str + text->len;
      for (const char *p = text->str; p < end; p = g_utf8_next_char (p))
        {
          gunichar c = g_utf8_get_char (p);
          if (n->clean_text)
            {
              if (c == 0 || c == 0xFFFD || as_hf_is_control (c))
                continue;
              if (as_hf_is_whitespace (c))
                c = ' ';
            }
          if (n->chinese && as_hf_is_chinese (c))
            {
              g_string_append_c (out, ' ');
              g_string_append_unichar (out, c);
              g_string_append_c (out, ' ');
            }
          else if (c == 0)
            g_string_append_c (out, '\0');
          else
            g_string_append_unichar (out, c);
        }
      take (text, out);
    }
  if (n->strip_accents)
    {
      as_hf_normalize (text, G_NORMALIZE_NFD);
      filter (text, as_hf_is_nonspacing_mark);
    }
  if (n->lowercase)
    lowercase (text);
}

/* unicode.rs do_nmt: drops some control characters, turns some spaces into U+0020. */
static void
nmt (GString *text)
{
  g_autoptr (GString) out = g_string_sized_new (text->len);
  const char *end = text->str + text->len;
  for (const char *p = text->str; p < end; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);
      if ((c >= 0x1 && c <= 0x8) || c == 0xB || (c >= 0xE && c <= 0x1F) || c == 0x7F || c == 0x8F
          || c == 0x9F)
        continue;
      if (c == 0x9 || c == 0xA || c == 0xC || c == 0xD || c == 0x1680
          || (c >= 0x200B && c <= 0x200F) || c == 0x2028 || c == 0x2029 || c == 0x2581
          || c == 0xFEFF || c == 0xFFFD)
        c = ' ';
      if (c == 0)
        g_string_append_c (out, '\0');
      else
        g_string_append_unichar (out, c);
    }
  take (text, out);
}

/* Normalizes TEXT with N within BUDGET. */
static gboolean
apply (const AsHfNormalizer *n, GString *text, const Budget *budget, GError **error)
{
  as_tokenizer_work_add (text->len);
  switch (n->kind)
    {
    case NORM_NFC:
      as_hf_normalize (text, G_NORMALIZE_NFC);
      break;
    case NORM_NFD:
      as_hf_normalize (text, G_NORMALIZE_NFD);
      break;
    case NORM_NFKC:
      as_hf_normalize (text, G_NORMALIZE_NFKC);
      break;
    case NORM_NFKD:
      as_hf_normalize (text, G_NORMALIZE_NFKD);
      break;
    case NORM_LOWERCASE:
      lowercase (text);
      break;
    case NORM_STRIP_ACCENTS:
      filter (text, as_hf_is_mark);
      break;
    case NORM_STRIP:
      strip (text, n->left, n->right);
      break;
    case NORM_REPLACE:
      return replace (text, n, budget, error);
    case NORM_PREPEND:
      if (text->len == 0)
        break;
      if (!within (n, text->len + strlen (n->content), budget, error))
        return FALSE;
      g_string_prepend (text, n->content);
      break;
    case NORM_BERT:
      bert (text, n);
      break;
    case NORM_PRECOMPILED:
      if (n->precompiled != NULL && !as_hf_precompiled_apply (n->precompiled, text, budget->max))
        return within (n, budget->max + 1, budget, error);
      break;
    case NORM_NMT:
      nmt (text);
      break;
    case NORM_BYTE_LEVEL:
      as_byte_level_encode (text); /* byte_level.rs */
      break;
    case NORM_SEQUENCE:
      for (guint i = 0; i < n->children->len; i++)
        if (!apply (g_ptr_array_index (n->children, i), text, budget, error))
          return FALSE;
      return TRUE;
    }
  /* the steps above grow their input a bounded number of times (NFKC at most 18 characters
   * for one), so checking after them bounds what they allocate */
  return within (n, text->len, budget, error);
}

gboolean
as_hf_normalizer_apply (const AsHfNormalizer *normalizer, GString *text, GError **error)
{
  Budget budget = { text->len, AS_HF_NORMALIZED_SLACK };
  if (text->len <= (G_MAXSIZE - AS_HF_NORMALIZED_SLACK) / AS_HF_NORMALIZED_GROWTH)
    budget.max += text->len * AS_HF_NORMALIZED_GROWTH;
  else
    budget.max = G_MAXSIZE;
  return apply (normalizer, text, &budget, error);
}
