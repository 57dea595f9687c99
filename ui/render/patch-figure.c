/* patch-figure.c — the activation patching heatmap (see patch-figure.h). */
#include "patch-figure.h"

#include <glib/gi18n-lib.h>
#include <math.h>

#include "token-label.h"

/* "0", "1", ... (owned strv). */
static char **
numbered (int n)
{
  char **out = g_new0 (char *, n + 1);
  for (int i = 0; i < n; i++)
    out[i] = g_strdup_printf ("%d", i);
  return out;
}

/* BASE's tokens as the figures label them (owned strv). */
static char **
token_labels (const AsTrace *base)
{
  char **out = g_new0 (char *, base->n_tokens + 1);
  for (int t = 0; t < base->n_tokens; t++)
    out[t] = ar_token_label (base->tokens[t],
                             base->token_texts != NULL ? base->token_texts[t] : NULL, FALSE);
  return out;
}

ArBuiltFigure *
ar_build_patch_figure (const double *effects, AsPatchWhat what, const AsTrace *base,
                       gboolean reverse, const AsPatchResult *result, const char *measure,
                       const ArFigureTexts *texts, ArAnnotate annotate)
{
  int L = base->n_layer, H = base->n_head, T = base->n_tokens;
  int rows = what == AS_PATCH_MLPS ? 1 : L;
  int cols = what == AS_PATCH_HEADS ? H : what == AS_PATCH_RESID ? T : L;
  ArBuiltFigure *built = ar_built_figure_new ();
  ArHeatmapFigure *fig = &ar_built_figure_edit (built)->heatmap;
  ar_heatmap_figure_init (fig);
  float *values = ar_built_figure_take (built, g_new (float, (gsize) rows *cols));
  double low = effects[0], high = effects[0];
  for (gsize i = 0; i < (gsize) rows * cols; i++)
    {
      values[i] = (float) effects[i];
      low = MIN (low, effects[i]);
      high = MAX (high, effects[i]);
    }
  double largest = MAX (1.0, MAX (fabs (low), fabs (high)));
  fig->n_rows = rows;
  fig->n_cols = cols;
  fig->values = values;
  fig->row_labels = ar_built_figure_take_strv (
      built, what == AS_PATCH_MLPS ? g_strsplit ("MLP", ",", -1) : numbered (L));
  fig->col_labels = ar_built_figure_take_strv (
      built,
      what == AS_PATCH_RESID ? token_labels (base) : numbered (what == AS_PATCH_HEADS ? H : L));
  fig->row_axis = what == AS_PATCH_MLPS ? NULL : _ ("Layer");
  fig->col_axis = what == AS_PATCH_HEADS   ? _ ("Head")
                  : what == AS_PATCH_RESID ? _ ("Position (residual stream at the layer's input)")
                                           : _ ("Layer");
  fig->colormap = AR_COLORMAP_RDBU_R;
  fig->vmin = -largest;
  fig->vmax = largest;
  fig->annotate = annotate;
  fig->label_mode = AR_LABELS_ALL;
  fig->colorbar_label = reverse ? _ ("0 = B's value, 1 = A's") : _ ("0 = A's value, 1 = B's");
  const char *parts = what == AS_PATCH_HEADS  ? _ ("heads")
                      : what == AS_PATCH_MLPS ? _ ("MLPs")
                                              : _ ("residual stream");
  fig->title = ar_built_figure_take (
      built, g_strdup_printf (reverse ? _ ("Patching %s from A into B · %s")
                                      : _ ("Patching %s from B into A · %s"),
                              parts, measure));
  g_autofree char *subtitle = ar_figure_texts_subtitle (texts, AR_SUBTITLE_TEXT);
  g_autofree char *b_subtitle
      = texts->compare_text != NULL ? ar_quote_excerpt (texts->compare_text, 64, NULL) : NULL;
  double a_value = reverse ? result->source : result->base;
  double b_value = reverse ? result->base : result->source;
  g_autofree char *range = g_strdup_printf (_ ("A %.4f, B %.4f; effects from %.4f to %.4f"),
                                            a_value, b_value, low, high);
  if (as_patch_gap_is_small (result))
    {
      char *warned = g_strdup_printf (
          "%s · %s", range, _ ("A and B barely differ in the measure: the effects are unstable"));
      g_free (range);
      range = warned;
    }
  fig->subtitle = ar_built_figure_take (
      built, b_subtitle != NULL ? g_strdup_printf ("%s ‖ B: %s\n%s", subtitle, b_subtitle, range)
                                : g_strdup_printf ("%s\n%s", subtitle, range));
  ar_built_figure_edit (built)->figure = ar_figure_from_heatmap (fig);
  return built;
}
