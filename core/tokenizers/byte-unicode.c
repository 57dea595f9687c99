/* byte-unicode.c — GPT-2's reversible byte ⇄ printable-character table (see
 * byte-unicode-private.h).
 *
 * The mapping is computed arithmetically, so there is no table to initialise and nothing to
 * share between threads: a byte that is printable in Latin-1 (33–126, 161–172, 174–255) keeps
 * its code point; the others are numbered 0..67 in increasing byte order and shifted to
 * U+0100.. (bytes 0–32 → U+0100–U+0120, 127–160 → U+0121–U+0142, 173 → U+0143). */
#include "byte-unicode-private.h"

static gboolean
byte_is_printable (guint b)
{
  return (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
}

/* Number of non-printable bytes below B: the rank n of a non-printable byte. */
static guint
nonprintable_below (guint b)
{
  if (b <= 33)
    return b; /* 0..32 are all non-printable */
  if (b <= 127)
    return 33;
  if (b <= 161)
    return 33 + (b - 127); /* 127..160 */
  if (b <= 173)
    return 33 + 34;
  return 33 + 34 + 1; /* 173 */
}

gunichar
as_byte_unicode_from_byte (guint8 byte)
{
  if (byte_is_printable (byte))
    return byte;
  return 0x100 + nonprintable_below (byte);
}

int
as_byte_unicode_to_byte (gunichar ch)
{
  if (ch <= 0xFF)
    return byte_is_printable (ch) ? (int) ch : -1;
  if (ch < 0x100 || ch > 0x143)
    return -1;
  guint n = ch - 0x100;
  if (n <= 32)
    return (int) n;
  if (n <= 66)
    return (int) (127 + (n - 33));
  return 173;
}

char *
as_byte_level_token_text (const char *token)
{
  GString *bytes = g_string_new (NULL);
  for (const char *p = token; *p != '\0'; p = g_utf8_next_char (p))
    {
      int b = as_byte_unicode_to_byte (g_utf8_get_char (p));
      if (b <= 0)
        {
          /* outside the table, or byte 0, which a C string cannot carry */
          g_string_free (bytes, TRUE);
          return NULL;
        }
      g_string_append_c (bytes, (char) b);
    }
  return g_string_free (bytes, FALSE);
}

void
as_byte_level_encode (GString *text)
{
  GString *out = g_string_sized_new (text->len * 2);
  for (gsize i = 0; i < text->len; i++)
    g_string_append_unichar (out, as_byte_unicode_from_byte ((guint8) text->str[i]));
  g_string_truncate (text, 0);
  g_string_append_len (text, out->str, (gssize) out->len);
  g_string_free (out, TRUE);
}
