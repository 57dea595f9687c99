/* figure-subtitle.c — the subtitle's words about the text (see figure-subtitle.h). */
#include "figure-subtitle.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "view-selection.h"

/* TEXT with every run of whitespace as one space and none at either end. Newly allocated. */
static char *
one_line (const char *text)
{
  GString *out = g_string_new (NULL);
  gboolean space = FALSE;
  for (const char *p = text; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);
      if (g_unichar_isspace (c))
        {
          space = out->len > 0;
          continue;
        }
      if (space)
        g_string_append_c (out, ' ');
      space = FALSE;
      g_string_append_unichar (out, c);
    }
  return g_string_free (out, FALSE);
}

/* The first MAX characters of TEXT, cut back to the last space when one is not too far back,
 * without trailing spaces. Newly allocated. */
static char *
head_words (const char *text, int max)
{
  const char *end = g_utf8_offset_to_pointer (text, max);
  const char *cut = end;
  while (cut > text && *cut != ' ')
    cut--;
  if (*end != ' ' && cut > text + (end - text) / 2)
    end = cut;
  g_autofree char *head = g_strndup (text, end - text);
  return g_strdup (g_strchomp (head));
}

/* The last MAX characters of TEXT, moved forward to the next space when one is not too far on,
 * without leading spaces. Newly allocated. */
static char *
tail_words (const char *text, int max)
{
  glong n = g_utf8_strlen (text, -1);
  const char *begin = g_utf8_offset_to_pointer (text, n - max);
  const char *cut = begin;
  const char *limit = begin + strlen (begin) / 2;
  if (begin > text && begin[-1] != ' ')
    {
      while (*cut != '\0' && *cut != ' ' && cut < limit)
        cut++;
      if (*cut == ' ')
        begin = cut;
    }
  return g_strdup (g_strchug ((char *) begin));
}

char *
ar_quote_excerpt (const char *text, int max, gboolean *shortened)
{
  g_autofree char *line = one_line (text != NULL ? text : "");
  gboolean cut = g_utf8_strlen (line, -1) > max;
  if (shortened != NULL)
    *shortened = cut;
  if (!cut)
    return ar_quote_text (line);
  g_autofree char *head = head_words (line, max / 2);
  g_autofree char *tail = tail_words (line, max / 4);
  g_autofree char *excerpt = g_strdup_printf ("%s … %s", head, tail);
  return ar_quote_text (excerpt);
}

char *
ar_format_count (int n)
{
  g_autofree char *digits = g_strdup_printf ("%d", ABS (n));
  GString *out = g_string_new (n < 0 ? "−" : "");
  int len = (int) strlen (digits);
  for (int i = 0; i < len; i++)
    {
      if (i > 0 && (len - i) % 3 == 0)
        g_string_append_c (out, ',');
      g_string_append_c (out, digits[i]);
    }
  return g_string_free (out, FALSE);
}

/* " · 1,008 tokens", " · first 128 tokens" or "" (see ar_figure_subtitle). Newly allocated. */
static char *
count_note (int n_tokens, gboolean shortened, gboolean truncated)
{
  if (n_tokens <= 0 || !(shortened || truncated))
    return g_strdup ("");
  g_autofree char *count = ar_format_count (n_tokens);
  if (truncated)
    /* Translators: the subtitle's note that only the text's first tokens are shown. */
    return g_strdup_printf (ngettext (" · first %s token", " · first %s tokens", n_tokens), count);
  /* Translators: the subtitle's token count of a shortened text. */
  return g_strdup_printf (ngettext (" · %s token", " · %s tokens", n_tokens), count);
}

char *
ar_figure_subtitle (const char *model_name, const char *text, int n_tokens, gboolean truncated)
{
  if (text == NULL)
    return g_strdup (model_name);
  gboolean shortened;
  g_autofree char *quoted = ar_quote_excerpt (text, AR_QUOTE_WHOLE_MAX, &shortened);
  g_autofree char *note = count_note (n_tokens, shortened, truncated);
  /* Translators: figure subtitle: the model's name and the quoted text (then its token count). */
  return g_strdup_printf (_ ("%s · %s%s"), model_name, quoted, note);
}

char *
ar_figure_texts_subtitle (const ArFigureTexts *texts, ArSubtitleText which)
{
  if (texts->target_text == NULL || texts->text == NULL)
    return ar_figure_subtitle (texts->model_name, texts->text, texts->n_tokens, texts->truncated);
  if (which == AR_SUBTITLE_SOURCE)
    return ar_figure_subtitle (texts->model_name, texts->text, texts->n_tokens, texts->truncated);
  if (which == AR_SUBTITLE_TARGET)
    return ar_figure_subtitle (texts->model_name, texts->target_text, texts->n_target_tokens,
                               FALSE);
  gboolean short_source, short_target;
  g_autofree char *source = ar_quote_excerpt (texts->text, AR_QUOTE_PAIR_MAX, &short_source);
  g_autofree char *target = ar_quote_excerpt (texts->target_text, AR_QUOTE_PAIR_MAX, &short_target);
  g_autofree char *note = NULL;
  if ((short_source || short_target || texts->truncated) && texts->n_tokens > 0
      && texts->n_target_tokens > 0)
    {
      g_autofree char *s = ar_format_count (texts->n_tokens);
      g_autofree char *t = ar_format_count (texts->n_target_tokens);
      /* Translators: the token counts of a translation's source and target. */
      note = g_strdup_printf (_ (" · %s → %s tokens"), s, t);
    }
  /* Translators: figure subtitle of a translation: the model, the source and the target. */
  return g_strdup_printf (_ ("%s · %s → %s%s"), texts->model_name, source, target,
                          note != NULL ? note : "");
}

char *
ar_figure_side_title (const char *side, const char *text, int n_tokens, const char *suffix)
{
  gboolean shortened;
  g_autofree char *quoted = ar_quote_excerpt (text, AR_QUOTE_WHOLE_MAX, &shortened);
  g_autofree char *note = count_note (n_tokens, shortened, FALSE);
  return suffix != NULL ? g_strdup_printf ("%s: %s %s%s", side, quoted, suffix, note)
                        : g_strdup_printf ("%s: %s%s", side, quoted, note);
}
