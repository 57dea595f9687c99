/* attribution-figure.c — the direct logit attribution heatmap (see attribution-figure.h). */
#include "attribution-figure.h"

#include <glib/gi18n-lib.h>
#include <math.h>

#include "as-predict.h"

/* "0", "1", ... and LAST when not NULL (owned strv). */
static char **
numbered (int n, const char *last)
{
  char **out = g_new0 (char *, n + 2);
  for (int i = 0; i < n; i++)
    out[i] = g_strdup_printf ("%d", i);
  if (last != NULL)
    out[n] = g_strdup (last);
  return out;
}

/* FIG as an L × H grid of VALUES (owned by the figure) in RdBu_r over ±LARGEST, layers down and
 * COL_AXIS across, every label shown, the direct effect on the logit as the colour bar's. */
static void
set_effect_grid (ArBuiltFigure *built, ArHeatmapFigure *fig, const float *values, int L, int H,
                 const char *col_axis, double largest, ArAnnotate annotate)
{
  fig->n_rows = L;
  fig->n_cols = H;
  fig->values = values;
  fig->row_labels = ar_built_figure_take_strv (built, numbered (L, NULL));
  fig->col_labels = ar_built_figure_take_strv (built, numbered (H, NULL));
  fig->row_axis = _ ("Layer");
  fig->col_axis = col_axis;
  fig->colormap = AR_COLORMAP_RDBU_R;
  fig->vmin = -largest;
  fig->vmax = largest;
  fig->annotate = annotate;
  fig->label_mode = AR_LABELS_ALL;
  fig->colorbar_label = _ ("Direct effect on the logit");
}

void
ar_attribution_totals (const AsAttribution *at, ArAttributionTotals *totals)
{
  int L = at->n_layer, H = at->n_head;
  *totals = (ArAttributionTotals){ .embeddings = at->embeddings, .biases = at->norm_bias };
  for (int l = 0; l < L; l++)
    {
      totals->mlps += at->mlps[l];
      totals->biases += at->attn_biases[l];
      for (int h = 0; h < H; h++)
        totals->heads += at->heads[l * H + h];
    }
  if (at->cross_heads == NULL)
    return;
  totals->cross_biases = at->final_logits_bias;
  for (int l = 0; l < L; l++)
    {
      totals->cross_biases += (double) at->cross_biases[l] + at->norm_biases[l];
      for (int h = 0; h < H; h++)
        totals->cross_heads += at->cross_heads[l * H + h];
    }
}

ArBuiltFigure *
ar_build_attribution_figure (const AsAttribution *at, const char *what, const char *subtitle,
                             ArAnnotate annotate)
{
  int L = at->n_layer, H = at->n_head, C = H;
  ArBuiltFigure *built = ar_built_figure_new ();
  ArHeatmapFigure *fig = &ar_built_figure_edit (built)->heatmap;
  ar_heatmap_figure_init (fig);
  float *values = ar_built_figure_take (built, g_new (float, (gsize) L *C)); /* [L][H] */
  float *mlps = ar_built_figure_take (built, g_new (float, L));              /* [L] */
  double largest = 0.0;
  for (int l = 0; l < L; l++)
    {
      for (int h = 0; h < H; h++)
        values[l * C + h] = at->heads[l * H + h];
      mlps[l] = at->mlps[l];
      for (int c = 0; c < C; c++)
        largest = MAX (largest, fabs (values[l * C + c]));
      largest = MAX (largest, fabs (mlps[l]));
    }
  if (largest == 0.0)
    largest = 1.0;
  ArAttributionTotals totals;
  ar_attribution_totals (at, &totals);
  set_effect_grid (built, fig, values, L, C, _ ("Head"), largest, annotate);
  /* the MLPs beside the heads: a bar per layer in the same colours */
  fig->row_bars = mlps;
  fig->row_bars_label = _ ("MLP");
  fig->title = ar_built_figure_take (
      built, g_strdup_printf (_ ("Direct logit attribution · %s at token %d"), what, at->position));
  /* every group of parts, so that the printed numbers add up to the logit */
  g_autofree char *sums
      = at->cross_heads != NULL
            ? g_strdup_printf (_ ("logit %.3f = parts %.3f: heads %.3f + MLPs %.3f + embeddings "
                                  "%.3f + biases and norm %.3f + cross heads %.3f + cross biases, "
                                  "norms' biases and final_logits_bias %.3f; colours ±%.3f"),
                               at->logit, at->sum, totals.heads, totals.mlps, totals.embeddings,
                               totals.biases, totals.cross_heads, totals.cross_biases, largest)
            : g_strdup_printf (_ ("logit %.3f = parts %.3f: heads %.3f + MLPs %.3f + embeddings "
                                  "%.3f + biases and norm %.3f; colours ±%.3f"),
                               at->logit, at->sum, totals.heads, totals.mlps, totals.embeddings,
                               totals.biases, largest);
  fig->subtitle = ar_built_figure_take (
      built, subtitle != NULL ? g_strdup_printf ("%s\n%s", subtitle, sums) : g_strdup (sums));
  ar_built_figure_edit (built)->figure = ar_figure_from_heatmap (fig);
  return built;
}

ArBuiltFigure *
ar_build_attribution_cross_figure (const AsAttribution *at, const char *what, const char *subtitle,
                                   ArAnnotate annotate)
{
  g_return_val_if_fail (at->cross_heads != NULL, NULL);
  int L = at->n_layer, H = at->n_head;
  ArBuiltFigure *built = ar_built_figure_new ();
  ArHeatmapFigure *fig = &ar_built_figure_edit (built)->heatmap;
  ar_heatmap_figure_init (fig);
  float *values = ar_built_figure_take (built, g_memdup2 (at->cross_heads, sizeof (float) * L * H));
  double largest = 0.0;
  for (int i = 0; i < L * H; i++)
    largest = MAX (largest, fabs (values[i]));
  ArAttributionTotals totals;
  ar_attribution_totals (at, &totals);
  double biases = totals.cross_biases;
  if (largest == 0.0)
    largest = 1.0;
  set_effect_grid (built, fig, values, L, H, _ ("Cross-attention head"), largest, annotate);
  fig->title = ar_built_figure_take (
      built, g_strdup_printf (_ ("Cross-attention heads · %s at token %d"), what, at->position));
  g_autofree char *sums = g_strdup_printf (
      _ ("cross biases, norms' biases and final_logits_bias %.3f; colours ±%.3f"), biases, largest);
  fig->subtitle = ar_built_figure_take (
      built, subtitle != NULL ? g_strdup_printf ("%s\n%s", subtitle, sums) : g_strdup (sums));
  ar_built_figure_edit (built)->figure = ar_figure_from_heatmap (fig);
  return built;
}

char *
ar_attribution_what (const AsTokenizer *tokenizer, int32_t target_id, int32_t vs_id)
{
  g_autofree char *t1 = as_predict_dup_ids_text (tokenizer, &target_id, 1);
  if (vs_id < 0)
    return g_strdup_printf ("“%s”", t1);
  g_autofree char *t2 = as_predict_dup_ids_text (tokenizer, &vs_id, 1);
  return g_strdup_printf ("“%s” − “%s”", t1, t2);
}

ArBuiltFigure *
ar_build_attribution_view_figure (const AsAttribution *at, const AsTokenizer *tokenizer,
                                  const ArFigureTexts *texts, const ArViewSelection *view)
{
  g_autofree char *what = ar_attribution_what (tokenizer, at->target_id, at->vs_id);
  g_autofree char *subtitle = ar_figure_texts_subtitle (texts, AR_SUBTITLE_TEXT);
  if (view->kind == AR_ATTENTION_CROSS && at->cross_heads != NULL)
    return ar_build_attribution_cross_figure (at, what, subtitle, view->annotate);
  return ar_build_attribution_figure (at, what, subtitle, view->annotate);
}
