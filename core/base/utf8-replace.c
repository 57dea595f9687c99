/* utf8-replace.c — strict UTF-8 checking and Python's errors="replace" decoding.
 *
 * The table of well-formed byte sequences (Unicode §3.9, table 3-7):
 *   00..7F
 *   C2..DF  80..BF
 *   E0      A0..BF  80..BF        ED      80..9F  80..BF   (no surrogates)
 *   E1..EC  80..BF  80..BF        EE..EF  80..BF  80..BF
 *   F0      90..BF  80..BF 80..BF F4      80..8F  80..BF 80..BF   (nothing above U+10FFFF)
 *   F1..F3  80..BF  80..BF 80..BF
 * A sequence that breaks off (wrong continuation byte or end of input) after k ≥ 1 acceptable
 * bytes is one maximal subpart of length k and becomes one U+FFFD; decoding resumes at the byte
 * that broke it. A byte that cannot start any sequence (80..C1, F5..FF) is a subpart of its own.
 * This matches CPython's UTF-8 decoder, checked against /usr/bin/python3 on random bytes. */
#include "utf8-replace-private.h"

/* The acceptable range of the second byte after lead byte LEAD, and the sequence length;
 * FALSE when LEAD cannot start a multi-byte sequence. */
static gboolean
lead_byte_info (guint8 lead, guint8 *lo, guint8 *hi, gsize *len)
{
  *lo = 0x80;
  *hi = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF)
    *len = 2;
  else if (lead >= 0xE0 && lead <= 0xEF)
    {
      *len = 3;
      if (lead == 0xE0)
        *lo = 0xA0;
      else if (lead == 0xED)
        *hi = 0x9F;
    }
  else if (lead >= 0xF0 && lead <= 0xF4)
    {
      *len = 4;
      if (lead == 0xF0)
        *lo = 0x90;
      else if (lead == 0xF4)
        *hi = 0x8F;
    }
  else
    return FALSE;
  return TRUE;
}

gsize
as_utf8_next_sequence (const guint8 *s, gsize n, gboolean *valid)
{
  guint8 lo, hi;
  gsize len;

  g_assert (n > 0);
  *valid = TRUE;
  if (s[0] < 0x80)
    return 1;
  if (!lead_byte_info (s[0], &lo, &hi, &len))
    {
      *valid = FALSE;
      return 1;
    }
  for (gsize k = 1; k < len; k++)
    {
      gboolean ok = k < n && s[k] >= lo && s[k] <= hi;
      if (!ok)
        {
          *valid = FALSE;
          return k;
        }
      lo = 0x80; /* only the second byte has a narrowed range */
      hi = 0xBF;
    }
  return len;
}

gsize
as_utf8_valid_prefix (const char *bytes, gsize length)
{
  const guint8 *s = (const guint8 *) bytes;
  gsize i = 0;
  while (i < length)
    {
      if (s[i] < 0x80)
        {
          i++; /* fast path for ASCII */
          continue;
        }
      gboolean valid;
      gsize k = as_utf8_next_sequence (s + i, length - i, &valid);
      if (!valid)
        return i;
      i += k;
    }
  return length;
}

char *
as_utf8_replace_invalid (const char *bytes, gsize length)
{
  const guint8 *s = (const guint8 *) bytes;
  GString *out = g_string_sized_new (length + 1);
  gsize i = 0;
  while (i < length)
    {
      gboolean valid;
      gsize k = as_utf8_next_sequence (s + i, length - i, &valid);
      if (valid)
        g_string_append_len (out, bytes + i, (gssize) k);
      else
        g_string_append (out, "\xEF\xBF\xBD"); /* U+FFFD */
      i += k;
    }
  return g_string_free (out, FALSE);
}
