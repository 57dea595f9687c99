/* word-marks.c — finding a word's occurrences in a text and the tokens that cover them
 * (as-word-marks.h states the rules). */
#include "as-word-marks.h"

#include <string.h>

#include "as-error.h"

/* The first position >= FROM where NEEDLE [n] occurs in HAY [m], exactly or (FOLD) ignoring ASCII
 * case; −1 when none. */
static int
find_bytes (const char *hay, int m, const char *needle, int n, int from, gboolean fold)
{
  for (int p = from; p + n <= m; p++)
    {
      int k = 0;
      if (fold)
        while (k < n && g_ascii_tolower (hay[p + k]) == g_ascii_tolower (needle[k]))
          k++;
      else
        while (k < n && hay[p + k] == needle[k])
          k++;
      if (k == n)
        return p;
    }
  return -1;
}

void
as_token_spans (int *begin, int *end, const AsTrace *trace, const char *text)
{
  int m = (int) strlen (text), cursor = 0;
  for (int t = 0; t < trace->n_tokens; t++)
    {
      const char *piece = trace->token_texts[t];
      int n = piece != NULL ? (int) strlen (piece) : 0;
      int at = n > 0 ? find_bytes (text, m, piece, n, cursor, FALSE) : -1;
      if (at < 0 && n > 0)
        at = find_bytes (text, m, piece, n, cursor, TRUE);
      if (at < 0)
        begin[t] = end[t] = cursor;
      else
        {
          begin[t] = at;
          end[t] = cursor = at + n;
        }
    }
}

gboolean
as_word_check (const char *word, GError **error)
{
  const char *bad = NULL;
  if (word == NULL || !g_utf8_validate (word, -1, &bad))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT, "the word to mark is not valid UTF-8");
      return FALSE;
    }
  for (const char *p = word; *p != '\0'; p = g_utf8_next_char (p))
    if (!g_unichar_isspace (g_utf8_get_char (p)))
      return TRUE;
  g_set_error (error, AS_ERROR, AS_ERROR_INPUT, "the word to mark is empty");
  return FALSE;
}

static gboolean
is_word_char (gunichar c)
{
  return g_unichar_isalnum (c) || g_unichar_ismark (c);
}

/* The byte length of an occurrence of the characters WORD [count] at TEXT + P (case lowered), or
 * −1. */
static int
match_at (const char *text, int p, const gunichar *word, glong count)
{
  const char *s = text + p;
  for (glong k = 0; k < count; k++)
    {
      if (*s == '\0' || g_unichar_tolower (g_utf8_get_char (s)) != word[k])
        return -1;
      s = g_utf8_next_char (s);
    }
  return (int) (s - (text + p));
}

int
as_word_mark_tokens (gboolean *marks, const AsTrace *trace, const char *text, const char *word)
{
  int T = trace->n_tokens;
  memset (marks, 0, sizeof (gboolean) * T);
  if (!as_word_check (word, NULL) || !g_utf8_validate (text, -1, NULL))
    return 0;
  g_autofree char *stripped = g_strstrip (g_strdup (word));
  glong count = 0;
  g_autofree gunichar *chars = g_utf8_to_ucs4_fast (stripped, -1, &count);
  for (glong k = 0; k < count; k++)
    chars[k] = g_unichar_tolower (chars[k]);
  gboolean bound_before = is_word_char (chars[0]), bound_after = is_word_char (chars[count - 1]);

  g_autofree int *begin = g_new (int, MAX (T, 1));
  g_autofree int *end = g_new (int, MAX (T, 1));
  as_token_spans (begin, end, trace, text);
  int occurrences = 0;
  gunichar previous = 0; /* the character before P; 0 at the start */
  for (const char *s = text; *s != '\0'; s = g_utf8_next_char (s))
    {
      int p = (int) (s - text);
      int length = match_at (text, p, chars, count);
      gboolean ok = length > 0 && !(bound_before && previous != 0 && is_word_char (previous));
      if (ok && bound_after && text[p + length] != '\0')
        ok = !is_word_char (g_utf8_get_char (text + p + length));
      previous = g_utf8_get_char (s);
      if (!ok)
        continue;
      occurrences++;
      for (int t = 0; t < T; t++)
        if (begin[t] < end[t] && begin[t] < p + length && p < end[t])
          marks[t] = TRUE;
    }
  return occurrences;
}
