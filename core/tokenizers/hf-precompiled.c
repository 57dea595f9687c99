/* hf-precompiled.c — SentencePiece's precompiled character map (hf-precompiled-private.h).
 *
 * The double array is darts-clone's: unit u has a leaf flag (bit 8), a label (bits 0–7 and 31),
 * an offset ((u >> 10) << ((u & 512) >> 6)) and, for a leaf unit, a value (the low 31 bits).
 * Lookup and the grapheme rule follow spm_precompiled 0.1 (DoubleArray::common_prefix_search,
 * Precompiled::transform) and src/normalizers/precompiled.rs of huggingface/tokenizers. */
#include "hf-precompiled-private.h"

#include <string.h>

#include "as-error.h"

struct _AsHfPrecompiled
{
  guint32 *units; /* [n_units] */
  gsize n_units;
  char *normalized; /* [n_normalized] NUL-separated replacement strings */
  gsize n_normalized;
};

AsHfPrecompiled *
as_hf_precompiled_new (const char *charsmap, GError **error)
{
  gsize size = 0;
  g_autofree guchar *blob = g_base64_decode (charsmap, &size);
  if (size < 4)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT, "not base64 of a character map (%zu bytes)",
                   (size_t) size);
      return NULL;
    }
  guint32 trie_size = (guint32) blob[0] | (guint32) blob[1] << 8 | (guint32) blob[2] << 16
                      | (guint32) blob[3] << 24;
  if (trie_size % 4 != 0 || trie_size > size - 4 || trie_size == 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT,
                   "the map's trie size %u does not fit its %zu bytes", trie_size, (size_t) size);
      return NULL;
    }
  AsHfPrecompiled *map = g_new0 (AsHfPrecompiled, 1);
  map->n_units = trie_size / 4;
  map->units = g_new (guint32, map->n_units);
  for (gsize i = 0; i < map->n_units; i++)
    {
      const guchar *b = blob + 4 + 4 * i;
      map->units[i]
          = (guint32) b[0] | (guint32) b[1] << 8 | (guint32) b[2] << 16 | (guint32) b[3] << 24;
    }
  map->n_normalized = size - 4 - trie_size;
  map->normalized = g_malloc (map->n_normalized + 1);
  memcpy (map->normalized, blob + 4 + trie_size, map->n_normalized);
  map->normalized[map->n_normalized] = '\0';
  return map;
}

void
as_hf_precompiled_free (AsHfPrecompiled *map)
{
  if (map == NULL)
    return;
  g_free (map->units);
  g_free (map->normalized);
  g_free (map);
}

static inline guint32
unit_offset (guint32 u)
{
  return (u >> 10) << ((u & (1u << 9)) >> 6);
}

/* The replacement of the shortest key that is a prefix of KEY (LENGTH bytes), or NULL. */
static const char *
transform (const AsHfPrecompiled *map, const char *key, gsize length)
{
  gsize pos = 0;
  guint32 unit = map->units[0];
  pos ^= unit_offset (unit);
  for (gsize i = 0; i < length; i++)
    {
      guint8 c = (guint8) key[i];
      if (c == 0)
        break;
      pos ^= c;
      if (pos >= map->n_units)
        return NULL;
      unit = map->units[pos];
      if ((unit & ((1u << 31) | 0xFF)) != c)
        return NULL;
      pos ^= unit_offset (unit);
      if (pos >= map->n_units)
        return NULL;
      if ((unit >> 8) & 1)
        {
          guint32 value = map->units[pos] & ((1u << 31) - 1);
          return value < map->n_normalized ? map->normalized + value : NULL;
        }
    }
  return NULL;
}

/* ---- grapheme clusters (UAX #29, approximately) ---- */

static gboolean
is_extend (gunichar c)
{
  GUnicodeType t = g_unichar_type (c);
  return t == G_UNICODE_NON_SPACING_MARK || t == G_UNICODE_ENCLOSING_MARK
         || t == G_UNICODE_SPACING_MARK || c == 0x200C || c == 0x200D
         || (c >= 0xFE00 && c <= 0xFE0F) || (c >= 0x1F3FB && c <= 0x1F3FF)
         || (c >= 0xE0020 && c <= 0xE007F) || (c >= 0xE0100 && c <= 0xE01EF);
}

static gboolean
is_pictographic (gunichar c)
{
  return (c >= 0x1F000 && c <= 0x1FAFF) || (c >= 0x2600 && c <= 0x27BF) || c == 0x00A9
         || c == 0x00AE || (c >= 0x2190 && c <= 0x21FF) || (c >= 0x2B00 && c <= 0x2BFF);
}

static gboolean
is_regional (gunichar c)
{
  return c >= 0x1F1E6 && c <= 0x1F1FF;
}

/* Hangul syllable type: 1 L, 2 V, 3 T, 4 LV, 5 LVT, 0 none. */
static int
hangul_type (gunichar c)
{
  if ((c >= 0x1100 && c <= 0x115F) || (c >= 0xA960 && c <= 0xA97C))
    return 1;
  if ((c >= 0x1160 && c <= 0x11A7) || (c >= 0xD7B0 && c <= 0xD7C6))
    return 2;
  if ((c >= 0x11A8 && c <= 0x11FF) || (c >= 0xD7CB && c <= 0xD7FB))
    return 3;
  if (c >= 0xAC00 && c <= 0xD7A3)
    return (c - 0xAC00) % 28 == 0 ? 4 : 5;
  return 0;
}

static gboolean
is_control_break (gunichar c)
{
  GUnicodeType t = g_unichar_type (c);
  return c == '\r' || c == '\n' || t == G_UNICODE_CONTROL || t == G_UNICODE_LINE_SEPARATOR
         || t == G_UNICODE_PARAGRAPH_SEPARATOR
         || (t == G_UNICODE_FORMAT && c != 0x200C && c != 0x200D);
}

/* Whether there is no cluster boundary between PREV and C. RI_COUNT: regional indicators
 * directly before C; ZWJ_PICTO: PREV is a ZWJ that follows a pictograph (with extends). */
static gboolean
joins (gunichar prev, gunichar c, guint ri_count, gboolean zwj_picto)
{
  if (prev == '\r' && c == '\n')
    return TRUE;
  if (is_control_break (prev) || is_control_break (c))
    return FALSE;
  int hp = hangul_type (prev), hc = hangul_type (c);
  if (hp == 1 && (hc == 1 || hc == 2 || hc == 4 || hc == 5))
    return TRUE;
  if ((hp == 2 || hp == 4) && (hc == 2 || hc == 3))
    return TRUE;
  if ((hp == 3 || hp == 5) && hc == 3)
    return TRUE;
  if (is_extend (c))
    return TRUE;
  if (zwj_picto && is_pictographic (c))
    return TRUE;
  if (is_regional (prev) && is_regional (c))
    return ri_count % 2 == 1;
  return FALSE;
}

/* The end of the cluster that starts at P. */
static const char *
cluster_end (const char *p, const char *end)
{
  gunichar prev = g_utf8_get_char (p);
  guint ri_count = is_regional (prev) ? 1 : 0;
  gboolean picto_run = is_pictographic (prev);
  const char *q = g_utf8_next_char (p);
  while (q < end)
    {
      gunichar c = g_utf8_get_char (q);
      if (!joins (prev, c, ri_count, prev == 0x200D && picto_run))
        break;
      ri_count = is_regional (c) ? ri_count + 1 : 0;
      picto_run = is_pictographic (c) || (picto_run && is_extend (c));
      prev = c;
      q = g_utf8_next_char (q);
    }
  return q;
}

gboolean
as_hf_precompiled_apply (const AsHfPrecompiled *map, GString *text, gsize max_length)
{
  g_autoptr (GString) out = g_string_sized_new (text->len);
  gboolean modified = FALSE;
  const char *end = text->str + text->len;
  const char *p = text->str;
  while (p < end)
    {
      if (out->len > max_length)
        return FALSE;
      const char *q = cluster_end (p, end);
      const char *norm = (q - p) < 6 ? transform (map, p, (gsize) (q - p)) : NULL;
      if (norm != NULL)
        {
          g_string_append (out, norm);
          modified = TRUE;
          p = q;
          continue;
        }
      for (; p < q; p = g_utf8_next_char (p))
        {
          gsize n = (gsize) (g_utf8_next_char (p) - p);
          const char *c = transform (map, p, n);
          if (c != NULL)
            {
              g_string_append (out, c);
              modified = TRUE;
            }
          else
            g_string_append_len (out, p, (gssize) n);
        }
    }
  if (out->len > max_length)
    return FALSE;
  if (modified)
    {
      g_string_truncate (text, 0);
      g_string_append_len (text, out->str, (gssize) out->len);
    }
  return TRUE;
}
