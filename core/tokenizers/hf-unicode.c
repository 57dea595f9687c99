/* hf-unicode.c — Hugging Face's character classes on GLib's Unicode data (hf-unicode-private.h).
 */
#include "hf-unicode-private.h"

#include <string.h>

gboolean
as_hf_is_whitespace (gunichar c)
{
  switch (c)
    {
    case 0x09:
    case 0x0A:
    case 0x0B:
    case 0x0C:
    case 0x0D:
    case 0x20:
    case 0x85:
    case 0xA0:
    case 0x1680:
    case 0x2028:
    case 0x2029:
    case 0x202F:
    case 0x205F:
    case 0x3000:
      return TRUE;
    default:
      return c >= 0x2000 && c <= 0x200A;
    }
}

static gboolean
in_ranges (gunichar c, const AsHfRange32 *ranges, gsize n)
{
  gsize lo = 0, hi = n;
  while (lo < hi)
    {
      gsize mid = (lo + hi) / 2;
      if (c < ranges[mid].first)
        hi = mid;
      else if (c > ranges[mid].last)
        lo = mid + 1;
      else
        return TRUE;
    }
  return FALSE;
}

static gboolean
is_gc_punctuation (GUnicodeType t)
{
  switch (t)
    {
    case G_UNICODE_CONNECT_PUNCTUATION:
    case G_UNICODE_DASH_PUNCTUATION:
    case G_UNICODE_CLOSE_PUNCTUATION:
    case G_UNICODE_FINAL_PUNCTUATION:
    case G_UNICODE_INITIAL_PUNCTUATION:
    case G_UNICODE_OTHER_PUNCTUATION:
    case G_UNICODE_OPEN_PUNCTUATION:
      return TRUE;
    default:
      return FALSE;
    }
}

gboolean
as_hf_is_punctuation (gunichar c)
{
  if (c < 0x80)
    return g_ascii_ispunct ((char) c);
  if (c == 0x166D || c == 0x111C9)
    return TRUE;
  return is_gc_punctuation (g_unichar_type (c))
         && !in_ranges (c, as_hf_new_punctuation, as_hf_new_punctuation_len);
}

gboolean
as_hf_is_word_char (gunichar c)
{
  switch (g_unichar_type (c))
    {
    case G_UNICODE_LOWERCASE_LETTER:
    case G_UNICODE_MODIFIER_LETTER:
    case G_UNICODE_OTHER_LETTER:
    case G_UNICODE_TITLECASE_LETTER:
    case G_UNICODE_UPPERCASE_LETTER:
    case G_UNICODE_NON_SPACING_MARK:
    case G_UNICODE_SPACING_MARK:
    case G_UNICODE_ENCLOSING_MARK:
    case G_UNICODE_DECIMAL_NUMBER:
    case G_UNICODE_LETTER_NUMBER:
    case G_UNICODE_CONNECT_PUNCTUATION:
      return TRUE;
    default:
      return c == 0x200C || c == 0x200D || (c >= 0x24B6 && c <= 0x24E9)
             || (c >= 0x1F130 && c <= 0x1F149) || (c >= 0x1F150 && c <= 0x1F169)
             || (c >= 0x1F170 && c <= 0x1F189);
    }
}

gboolean
as_hf_is_numeric (gunichar c)
{
  GUnicodeType t = g_unichar_type (c);
  return t == G_UNICODE_DECIMAL_NUMBER || t == G_UNICODE_LETTER_NUMBER
         || t == G_UNICODE_OTHER_NUMBER;
}

gboolean
as_hf_is_control (gunichar c)
{
  if (c == '\t' || c == '\n' || c == '\r')
    return FALSE;
  GUnicodeType t = g_unichar_type (c);
  if (t == G_UNICODE_FORMAT)
    return !in_ranges (c, as_hf_new_format, as_hf_new_format_len);
  return t == G_UNICODE_CONTROL || t == G_UNICODE_PRIVATE_USE;
}

gboolean
as_hf_is_chinese (gunichar c)
{
  return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF)
         || (c >= 0x20000 && c <= 0x2A6DF) || (c >= 0x2A700 && c <= 0x2B73F)
         || (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B920 && c <= 0x2CEAF)
         || (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

gboolean
as_hf_is_mark (gunichar c)
{
  if (c == 0x1CF2 || c == 0x1CF3) /* spacing marks in that crate, letters now */
    return TRUE;
  GUnicodeType t = g_unichar_type (c);
  return (t == G_UNICODE_NON_SPACING_MARK || t == G_UNICODE_SPACING_MARK
          || t == G_UNICODE_ENCLOSING_MARK)
         && !in_ranges (c, as_hf_new_marks, as_hf_new_marks_len);
}

gboolean
as_hf_is_nonspacing_mark (gunichar c)
{
  if (c == 0x1734) /* Mn in Unicode 8.0, Mc now */
    return TRUE;
  return g_unichar_type (c) == G_UNICODE_NON_SPACING_MARK
         && !in_ranges (c, as_hf_new_nonspacing, as_hf_new_nonspacing_len);
}

void
as_hf_append_lowercase (GString *out, gunichar c)
{
  if (c == 0x130)
    {
      g_string_append (out, "i\xcc\x87");
      return;
    }
  if (c >= 0x2160 && c <= 0x216F)
    c += 0x10;
  else if (c >= 0x24B6 && c <= 0x24CF)
    c += 0x1A;
  else
    c = g_unichar_tolower (c);
  g_string_append_unichar (out, c);
}

/* Characters whose compatibility decomposition is newer than HF's unicode-normalization tables
 * (Unicode 12.1–14.0): NFKC and NFKD leave them as they are. */
static gboolean
is_new_compat (gunichar c)
{
  return c == 0x32FF || (c >= 0xA7F2 && c <= 0xA7F4) || c == 0xAB69;
}

/* The length of the segment at S (before END) to normalize as a whole: up to the next U+0000
 * (where GLib's normalizer stops) or, for compatibility forms, the next is_new_compat character;
 * 0 when S itself is such a character. */
static gsize
segment (const char *s, const char *end, gboolean compat)
{
  const char *p = s;
  while (p < end)
    {
      gunichar c = g_utf8_get_char (p);
      if (c == 0 || (compat && is_new_compat (c)))
        break;
      p = g_utf8_next_char (p);
    }
  return (gsize) (p - s);
}

void
as_hf_normalize (GString *text, GNormalizeMode mode)
{
  gboolean compat = mode == G_NORMALIZE_NFKC || mode == G_NORMALIZE_NFKD;
  g_autoptr (GString) out = g_string_sized_new (text->len + 8);
  const char *p = text->str, *end = text->str + text->len;
  while (p < end)
    {
      gsize n = segment (p, end, compat);
      if (n > 0)
        {
          g_autofree char *norm = g_utf8_normalize (p, (gssize) n, mode);
          g_string_append (out, norm);
          p += n;
          continue;
        }
      /* U+0000 or a character kept as it is (neither composes with its neighbours) */
      const char *next = g_utf8_next_char (p);
      g_string_append_len (out, p, next - p);
      p = next;
    }
  g_string_truncate (text, 0);
  g_string_append_len (text, out->str, (gssize) out->len);
}
