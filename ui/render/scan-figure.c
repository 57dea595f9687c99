/* scan-figure.c — the ablation scan's heatmap (see scan-figure.h). */
#include "scan-figure.h"

#include <glib/gi18n-lib.h>
#include <math.h>

/* "0", "1", ... (owned strv). */
static char **
numbered (int n)
{
  char **out = g_new0 (char *, n + 1);
  for (int i = 0; i < n; i++)
    out[i] = g_strdup_printf ("%d", i);
  return out;
}

char *
ar_ablation_measure_label (const AsTokenizer *tokenizer, const AsMetric *metric)
{
  if (metric->kind == AS_METRIC_LOSS)
    return g_strdup (_ ("loss"));
  g_autofree char *a = as_tokenizer_dup_token_text (tokenizer, metric->token_id);
  if (metric->kind == AS_METRIC_LOGIT)
    return g_strdup_printf ("logit(“%s”)", a != NULL ? a : "?");
  g_autofree char *b = as_tokenizer_dup_token_text (tokenizer, metric->vs_id);
  return g_strdup_printf ("logit(“%s”) − logit(“%s”)", a != NULL ? a : "?", b != NULL ? b : "?");
}

ArBuiltFigure *
ar_build_ablation_scan_figure (const double *effects, int n_layer, int n_head, double clean,
                               const char *measure, const char *ablation,
                               const ArFigureTexts *texts, ArAnnotate annotate)
{
  int L = n_layer, H = n_head;
  g_return_val_if_fail (L > 0 && H > 0 && effects != NULL, NULL);
  ArBuiltFigure *built = ar_built_figure_new ();
  ArHeatmapFigure *fig = &ar_built_figure_edit (built)->heatmap;
  ar_heatmap_figure_init (fig);
  float *values = ar_built_figure_take (built, g_new (float, (gsize) L *H)); /* [L][H] */
  double low = effects[0], high = effects[0];
  for (gsize i = 0; i < (gsize) L * H; i++)
    {
      values[i] = (float) effects[i];
      low = MIN (low, effects[i]);
      high = MAX (high, effects[i]);
    }
  double largest = MAX (fabs (low), fabs (high));
  if (largest == 0.0)
    largest = 1.0;
  fig->n_rows = L;
  fig->n_cols = H;
  fig->values = values;
  fig->row_labels = ar_built_figure_take_strv (built, numbered (L));
  fig->col_labels = ar_built_figure_take_strv (built, numbered (H));
  fig->row_axis = _ ("Layer");
  fig->col_axis = _ ("Head");
  fig->colormap = AR_COLORMAP_RDBU_R;
  fig->vmin = -largest;
  fig->vmax = largest;
  fig->annotate = annotate;
  fig->label_mode = AR_LABELS_ALL;
  fig->colorbar_label = _ ("Change when the head is switched off");
  fig->title = ar_built_figure_take (
      built, g_strdup_printf (_ ("Ablation scan · %s · %s ablation"), measure, ablation));
  g_autofree char *range
      = g_strdup_printf (_ ("clean %.4f; effects from %.4f to %.4f"), clean, low, high);
  g_autofree char *subtitle = ar_figure_texts_subtitle (texts, AR_SUBTITLE_TEXT);
  fig->subtitle = ar_built_figure_take (built, g_strdup_printf ("%s\n%s", subtitle, range));
  ar_built_figure_edit (built)->figure = ar_figure_from_heatmap (fig);
  return built;
}
