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

/* Characters of category P* in Unicode 15.0 that were not punctuation (or not assigned) in
 * Unicode 8.0, the version of the unicode_categories crate's tables that HF uses. */
static const gunichar punct_after_8[][2] = {
  { 0x061D, 0x061D },   { 0x09FD, 0x09FD },   { 0x0A76, 0x0A76 },   { 0x0C77, 0x0C77 },
  { 0x0C84, 0x0C84 },   { 0x1B7D, 0x1B7E },   { 0x2E43, 0x2E4F },   { 0x2E52, 0x2E5D },
  { 0x10EAD, 0x10EAD }, { 0x10F55, 0x10F59 }, { 0x10F86, 0x10F89 }, { 0x1144B, 0x1144F },
  { 0x1145A, 0x1145B }, { 0x1145D, 0x1145D }, { 0x11660, 0x1166C }, { 0x116B9, 0x116B9 },
  { 0x1183B, 0x1183B }, { 0x11944, 0x11946 }, { 0x119E2, 0x119E2 }, { 0x11A3F, 0x11A46 },
  { 0x11A9A, 0x11A9C }, { 0x11A9E, 0x11AA2 }, { 0x11B00, 0x11B09 }, { 0x11C41, 0x11C45 },
  { 0x11C70, 0x11C71 }, { 0x11EF7, 0x11EF8 }, { 0x11F43, 0x11F4F }, { 0x11FFF, 0x11FFF },
  { 0x12FF1, 0x12FF2 }, { 0x16E97, 0x16E9A }, { 0x16FE2, 0x16FE2 }, { 0x1E95E, 0x1E95F },
};

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
  if (!is_gc_punctuation (g_unichar_type (c)))
    return FALSE;
  for (gsize i = 0; i < G_N_ELEMENTS (punct_after_8); i++)
    if (c >= punct_after_8[i][0] && c <= punct_after_8[i][1])
      return FALSE;
  return TRUE;
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
  return t == G_UNICODE_CONTROL || t == G_UNICODE_FORMAT || t == G_UNICODE_PRIVATE_USE;
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
  GUnicodeType t = g_unichar_type (c);
  return t == G_UNICODE_NON_SPACING_MARK || t == G_UNICODE_SPACING_MARK
         || t == G_UNICODE_ENCLOSING_MARK;
}

void
as_hf_append_lowercase (GString *out, gunichar c)
{
  if (c == 0x130)
    {
      g_string_append (out, "i\xcc\x87");
      return;
    }
  g_string_append_unichar (out, g_unichar_tolower (c));
}

void
as_hf_normalize (GString *text, GNormalizeMode mode)
{
  g_autoptr (GString) out = g_string_sized_new (text->len + 8);
  gsize pos = 0;
  while (pos < text->len)
    {
      const char *nul = memchr (text->str + pos, '\0', text->len - pos);
      gsize end = nul != NULL ? (gsize) (nul - text->str) : text->len;
      if (end > pos)
        {
          g_autofree char *n = g_utf8_normalize (text->str + pos, (gssize) (end - pos), mode);
          g_string_append (out, n);
        }
      if (nul == NULL)
        break;
      g_string_append_c (out, '\0');
      pos = end + 1;
    }
  g_string_truncate (text, 0);
  g_string_append_len (text, out->str, (gssize) out->len);
}
