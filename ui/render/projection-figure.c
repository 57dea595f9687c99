/* projection-figure.c — the vectors and the scatter figure of the embeddings view (see
 * projection-figure.h). */
#include "projection-figure.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "as-word-marks.h"
#include "similarity-figure.h"
#include "token-label.h"

int
ar_sentences_n_tokens (const ArSentences *sentences)
{
  int n = 0;
  for (int s = 0; s < sentences->n; s++)
    n += sentences->traces[s]->n_tokens;
  return n;
}

float *
ar_projection_vectors (const ArSentences *sentences, const ArVectorChoice *choice, int *n, int *dim,
                       GError **error)
{
  g_autoptr (GByteArray) data = g_byte_array_new ();
  int rows = 0, d = 0;
  for (int s = 0; s < sentences->n; s++)
    {
      int t = 0, ds = 0;
      const float *v = as_trace_vectors_get (sentences->traces[s], choice->source, choice->layer,
                                             choice->head, &t, &ds, error);
      if (v == NULL)
        {
          if (sentences->n > 1)
            g_prefix_error (error, _ ("Sentence %d: "), s + 1);
          return NULL;
        }
      g_byte_array_append (data, (const guint8 *) v, (guint) ((gsize) t * ds * sizeof (float)));
      rows += t;
      d = ds;
    }
  *n = rows;
  *dim = d;
  return (float *) g_byte_array_free (g_steal_pointer (&data), FALSE);
}

/* ---- the figure ---- */

static const char *
method_title (AsProjectionMethod method)
{
  return method == AS_PROJECTION_TSNE ? "t-SNE" : method == AS_PROJECTION_UMAP ? "UMAP" : "PCA";
}

static char *
projection_title (const ArProjectionPanel *panels, int n_panels)
{
  const ArVectorChoice *c = &panels[0].choice;
  g_autofree char *first = ar_vectors_description (c->source, c->layer, c->head);
  const char *method = method_title (panels[0].projection->method);
  if (n_panels == 1)
    /* Translators: "PCA of the embeddings", "t-SNE of the hidden states after layer 2". */
    return g_strdup_printf (_ ("%s of the %s"), method, first);
  c = &panels[1].choice;
  g_autofree char *second = ar_vectors_description (c->source, c->layer, c->head);
  /* Translators: "UMAP of the token embeddings and the hidden states after layer 3". */
  return g_strdup_printf (_ ("%s of the %s and the %s"), method, first, second);
}

/* The panel's title: its vectors, capitalised; the token embeddings say that they come before
 * positions (static: one vector per token). */
static char *
panel_title (const ArVectorChoice *c)
{
  g_autofree char *description = c->source == AS_VECTORS_TOKEN_EMBEDDINGS
                                     ? g_strdup (_ ("token embeddings (before positions)"))
                                     : ar_vectors_description (c->source, c->layer, c->head);
  gunichar first = g_utf8_get_char (description);
  const char *rest = g_utf8_next_char (description);
  char upper[8] = { 0 };
  g_unichar_to_utf8 (g_unichar_toupper (first), upper);
  return g_strconcat (upper, rest, NULL);
}

static void
set_axes (ArBuiltFigure *built, const AsProjection *p, const char **x_axis, const char **y_axis)
{
  switch (p->method)
    {
    case AS_PROJECTION_PCA:
      *x_axis
          = ar_built_figure_take (built, g_strdup_printf (_ ("PC 1 (%.0f %%)"), 100 * p->ratio[0]));
      *y_axis
          = ar_built_figure_take (built, g_strdup_printf (_ ("PC 2 (%.0f %%)"), 100 * p->ratio[1]));
      return;
    case AS_PROJECTION_TSNE:
      *x_axis = _ ("t-SNE 1");
      *y_axis = _ ("t-SNE 2");
      return;
    case AS_PROJECTION_UMAP:
    default:
      *x_axis = _ ("UMAP 1");
      *y_axis = _ ("UMAP 2");
      return;
    }
}

char *
ar_text_beginning (const char *text, int max_chars)
{
  if (g_utf8_strlen (text, -1) <= max_chars)
    return g_strdup (text);
  const char *end = g_utf8_offset_to_pointer (text, max_chars);
  const char *space = end;
  while (space > text && *space != ' ')
    space--;
  if (space > text + 8)
    end = space;
  g_autofree char *head = g_strndup (text, end - text);
  return g_strconcat (g_strchomp (head), "…", NULL);
}

static char **
group_names (const ArSentences *sentences, const ArFigureTexts *texts)
{
  char **names = g_new0 (char *, sentences->n + 1);
  gboolean pair = sentences->n == 2 && texts->compare_text != NULL;
  for (int s = 0; s < sentences->n; s++)
    {
      g_autofree char *shortened
          = pair ? g_strdup (sentences->texts[s]) : ar_text_beginning (sentences->texts[s], 28);
      g_autofree char *quoted = ar_quote_text (shortened);
      if (pair)
        names[s] = g_strdup_printf ("%s: %s", s == 0 ? "A" : "B", quoted);
      else
        names[s] = g_strdup_printf ("%d %s", s + 1, quoted);
    }
  return names;
}

/* Byte offset of the start of the WORDS-th word before BEGIN, or of the end of the WORDS-th word
 * after END (DIRECTION -1 / +1), in TEXT. */
static int
word_bound (const char *text, int pos, int words, int direction)
{
  int len = (int) strlen (text), found = 0;
  gboolean in_word = FALSE;
  if (direction < 0)
    {
      while (pos > 0)
        {
          gboolean space = g_ascii_isspace (text[pos - 1]);
          if (in_word && space && ++found >= words)
            break;
          in_word = !space;
          pos--;
        }
      return pos;
    }
  while (pos < len)
    {
      gboolean space = g_ascii_isspace (text[pos]);
      if (in_word && space && ++found >= words)
        break;
      in_word = !space;
      pos++;
    }
  return pos;
}

char *
ar_token_excerpt (const AsTrace *trace, const char *text, int token, int words)
{
  g_autofree int *begin = g_new (int, MAX (trace->n_tokens, 1));
  g_autofree int *end = g_new (int, MAX (trace->n_tokens, 1));
  as_token_spans (begin, end, trace, text);
  int b = begin[token], e = end[token];
  while (b < e && g_ascii_isspace (text[b]))
    b++;
  int from = word_bound (text, b, words, -1), to = word_bound (text, e, words, +1);
  while (from < to && g_ascii_isspace (text[from]))
    from++;
  while (to > from && g_ascii_isspace (text[to - 1]))
    to--;
  g_autofree char *middle = g_strndup (text + from, to - from);
  gboolean before = from > 0, after = text[to] != '\0';
  return g_strconcat (before ? "…" : "", middle, after ? "…" : "", NULL);
}

/* Labels, groups, marks and tooltips of every token of every sentence. */
static void
point_texts (ArBuiltFigure *built, ArScatterFigure *fig, const ArSentences *sentences,
             const char *highlight, ArTokenLabelFlags flags)
{
  int n = fig->n_points, i = 0, occurrences = 0;
  char **labels = g_new0 (char *, n + 1);
  char **tooltips = g_new0 (char *, n + 1);
  int *groups = ar_built_figure_take (built, g_new0 (int, MAX (n, 1)));
  gboolean *marked = ar_built_figure_take (built, g_new0 (gboolean, MAX (n, 1)));
  for (int s = 0; s < sentences->n; s++)
    {
      const AsTrace *t = sentences->traces[s];
      const char *text = sentences->texts[s];
      g_auto (GStrv) tokens = ar_token_labels_from_trace (t, flags);
      if (highlight != NULL)
        occurrences += as_word_mark_tokens (marked + i, t, text, highlight);
      for (int k = 0; k < t->n_tokens; k++, i++)
        {
          groups[i] = s;
          labels[i] = marked[i] && sentences->n > 1 ? g_strdup_printf ("%s ·%d", tokens[k], s + 1)
                                                    : g_strdup (tokens[k]);
          g_autofree char *excerpt = ar_token_excerpt (t, text, k, 3);
          g_autofree char *quoted = ar_quote_text (excerpt);
          /* Translators: a point's tooltip: the token, its sentence, a short excerpt. */
          tooltips[i] = g_strdup_printf (_ ("%s · sentence %d · token %d\n%s"), tokens[k], s + 1, k,
                                         quoted);
        }
    }
  fig->labels = ar_built_figure_take_strv (built, labels);
  fig->tooltips = ar_built_figure_take_strv (built, tooltips);
  fig->groups = groups;
  fig->n_groups = sentences->n;
  fig->marked = highlight != NULL ? marked : NULL;
  fig->dim_unmarked = highlight != NULL && occurrences > 0;
}

static char *
subtitle (const ArSentences *sentences, const char *highlight, const ArFigureTexts *texts)
{
  if (sentences->n == 2 && texts->compare_text != NULL)
    return ar_figure_subtitle (texts->model_name, NULL, 0, FALSE);
  if (sentences->n == 1)
    {
      /* the subtitle's rule, then the highlighted word */
      const char *text = texts->text != NULL ? texts->text : sentences->texts[0];
      char *one = ar_figure_subtitle (texts->model_name, text, sentences->traces[0]->n_tokens,
                                      texts->truncated);
      if (highlight == NULL)
        return one;
      g_autofree char *quoted = ar_quote_text (highlight);
      g_autofree char *base = one;
      /* Translators: the subtitle's note of the word whose tokens are highlighted. */
      return g_strdup_printf (_ ("%s · %s highlighted"), base, quoted);
    }
  g_autoptr (GString) s = g_string_new (texts->model_name);
  g_string_append (s, " · ");
  g_string_append_printf (s, ngettext ("%d sentence", "%d sentences", sentences->n), sentences->n);
  if (highlight != NULL)
    {
      g_autofree char *quoted = ar_quote_text (highlight);
      /* Translators: the subtitle's note of the word whose tokens are highlighted. */
      g_string_append_printf (s, _ (" · %s highlighted"), quoted);
    }
  return g_string_free (g_steal_pointer (&s), FALSE);
}

ArBuiltFigure *
ar_build_projection_figure (const ArProjectionPanel *panels, int n_panels,
                            const ArSentences *sentences, const char *highlight,
                            gboolean show_labels, const ArViewSelection *view,
                            const ArFigureTexts *texts)
{
  int n = ar_sentences_n_tokens (sentences);
  g_return_val_if_fail (n_panels == 1 || n_panels == 2, NULL);
  for (int k = 0; k < n_panels; k++)
    g_return_val_if_fail (panels[k].projection->n == n, NULL);
  ArBuiltFigure *built = ar_built_figure_new ();
  ArScatterFigure *fig = &ar_built_figure_edit (built)->scatter;
  ar_scatter_figure_init (fig);
  fig->title = ar_built_figure_take (built, projection_title (panels, n_panels));
  fig->subtitle = ar_built_figure_take (built, subtitle (sentences, highlight, texts));
  fig->n_points = n;
  fig->xy = ar_built_figure_take (
      built, g_memdup2 (panels[0].projection->xy, sizeof (float) * 2 * (gsize) n));
  set_axes (built, panels[0].projection, &fig->x_axis, &fig->y_axis);
  if (n_panels == 2)
    {
      fig->xy2 = ar_built_figure_take (
          built, g_memdup2 (panels[1].projection->xy, sizeof (float) * 2 * (gsize) n));
      set_axes (built, panels[1].projection, &fig->x_axis2, &fig->y_axis2);
      for (int k = 0; k < 2; k++)
        fig->panel_titles[k] = ar_built_figure_take (built, panel_title (&panels[k].choice));
    }
  point_texts (built, fig, sentences, highlight, ar_view_selection_label_flags (view));
  if (sentences->n > 1)
    fig->group_names = ar_built_figure_take_strv (built, group_names (sentences, texts));
  fig->label_mode = view->labels;
  fig->show_labels = show_labels;
  fig->highlight_point = sentences->n > 0 && view->selected_token < sentences->traces[0]->n_tokens
                             ? view->selected_token
                             : -1;
  ar_built_figure_edit (built)->figure = ar_figure_from_scatter (fig);
  return built;
}
