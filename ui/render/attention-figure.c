/* attention-figure.c — the attention heatmap and the heads grid (see attention-figure.h). */
#include "attention-figure.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "attention-overview.h"
#include "attention-thumbnails.h"
#include "token-axes.h"

/* The colour bar's label for VIEW's attention. */
static const char *
attention_colorbar_label (const ArViewSelection *view, gboolean norm_weighted)
{
  if (norm_weighted)
    return view->normalize_rows
               /* Translators: the colour bar of attention weighted by the norms of what each key
                * writes (Kobayashi et al. 2020); keep the formula. */
               ? _ ("‖α·f(x)‖ ÷ row maximum")
               : _ ("‖α·f(x)‖ (weight × norm of what the key writes)");
  if (view->normalize_rows)
    return view->aggregate == AR_AGGREGATE_ROLLOUT ? _ ("Rollout weight ÷ row maximum")
                                                   : _ ("Attention weight ÷ row maximum");
  return view->aggregate == AR_AGGREGATE_ROLLOUT ? _ ("Rollout weight") : _ ("Attention weight");
}

const char *
ar_all_heads_title (const ArViewSelection *view, gboolean translation)
{
  if (view->kind == AR_ATTENTION_ENCODER)
    return _ ("Encoder self-attention · all heads");
  if (view->kind == AR_ATTENTION_CROSS)
    return _ ("Cross-attention · all heads");
  return translation ? _ ("Decoder self-attention · all heads") : _ ("All heads");
}

/* The sliding window of LAYER of T (0: every key up to the query). */
static int
layer_window (const AsTrace *t, int layer)
{
  return t->causal && t->attn_recipe != NULL ? t->attn_recipe[layer].window : 0;
}

/* "layers 0–4, 6–10 local (window 512)", "every layer local (window 4096)" for a trace whose
 * layers look through a sliding window; NULL when none does. Newly allocated. */
static char *
local_layers_text (const AsTrace *t)
{
  g_autoptr (GString) layers = g_string_new (NULL);
  int n_local = 0, window = 0, mixed = FALSE;
  for (int l = 0; l < t->n_layer; l++)
    {
      int w = layer_window (t, l);
      if (w == 0)
        continue;
      mixed |= window != 0 && w != window;
      window = w;
      n_local++;
      if (l > 0 && layer_window (t, l - 1) != 0)
        continue; /* inside a run: its end is written below */
      int last = l;
      while (last + 1 < t->n_layer && layer_window (t, last + 1) != 0)
        last++;
      if (layers->len > 0)
        g_string_append (layers, ", ");
      if (last > l)
        g_string_append_printf (layers, "%d–%d", l, last);
      else
        g_string_append_printf (layers, "%d", l);
    }
  if (n_local == 0)
    return NULL;
  if (mixed)
    /* Translators: the heads grid's title addition: which layers use a sliding window. */
    return g_strdup_printf (_ ("layers %s local (sliding windows)"), layers->str);
  if (n_local == t->n_layer)
    /* Translators: the heads grid's title addition: every layer uses a sliding window. */
    return g_strdup_printf (_ ("every layer local (window %d)"), window);
  /* Translators: the heads grid's title addition: "layers 0–4, 6–10 local (window 512)". */
  return g_strdup_printf (_ ("layers %s local (window %d)"), layers->str, window);
}

/* FIG shows rows ROW0.. (N_ROWS) and columns COL0.. (N_COLS) of MATRIX [N][N], whose items
 * (tokens or words) are labelled LABELS [N] (kept alive by BUILT): a copy of the block, the
 * labels of its rows and columns, the item SELECTED outlined where it is one of them. Word-mode
 * tick labels need both axes to show the same tokens: a block gets thinned (or all) labels. */
static void
set_block (ArBuiltFigure *built, ArHeatmapFigure *fig, const float *matrix, int n,
           const char *const *labels, const ArViewSelection *view, int selected, int row0,
           int n_rows, int col0, int n_cols)
{
  float *block = ar_built_figure_take (built, g_new (float, (gsize) n_rows *n_cols));
  for (int i = 0; i < n_rows; i++)
    memcpy (block + (gsize) i * n_cols, matrix + (gsize) (row0 + i) * n + col0,
            sizeof (float) * n_cols);
  fig->values = block;
  fig->n_rows = n_rows;
  fig->n_cols = n_cols;
  fig->row_labels = labels + row0;
  fig->col_labels = labels + col0;
  fig->label_mode = view->labels == AR_LABELS_ALL ? AR_LABELS_ALL : AR_LABELS_THINNED;
  fig->highlight_row = selected >= row0 && selected < row0 + n_rows ? selected - row0 : -1;
  fig->highlight_col = selected >= col0 && selected < col0 + n_cols ? selected - col0 : -1;
}

/* TITLE with the norm weighting named, and one head's share of its layer's update when known:
 * "Layer 1 · head 0 · ‖α·f(x)‖ · 23% of the layer's update". Newly allocated. */
static char *
norm_title (const ArAttention *attention, const ArViewSelection *view, const char *title)
{
  const AsTrace *t = attention->trace;
  if (view->aggregate != AR_AGGREGATE_HEAD || attention->head_shares == NULL)
    /* Translators: an attention figure's title, weighted by the norms of what keys write. */
    return g_strdup_printf (_ ("%s · ‖α·f(x)‖"), title);
  double share = 100.0 * attention->head_shares[view->layer * t->n_head + view->head];
  /* Translators: an attention figure's title weighted by norms, and the head's share of the sum
   * of its layer's heads' outputs ("23%"). */
  return g_strdup_printf (_ ("%s · ‖α·f(x)‖ · %.0f%% of the layer's update"), title, share);
}

ArBuiltFigure *
ar_build_attention_figure (const ArAttention *attention, const ArViewSelection *view,
                           const ArFigureTexts *texts)
{
  const AsTrace *t = attention->trace;
  /* a long text on demand: the head pooled in blocks, computed from tiles (attention-overview.h) */
  int block_side = ar_attention_overview_factor (t, view);
  /* the pooled overview of a long text reads the weights' tiles: not weighted */
  gboolean weighted = block_side == 1 && ar_attention_norm_weighted (attention, view);
  g_autofree float *owned = NULL;
  const float *matrix = block_side > 1 ? NULL : ar_attention_matrix (attention, view, &owned);
  if (matrix == NULL && block_side == 1)
    return NULL;
  ArBuiltFigure *built = ar_built_figure_new ();
  ArHeatmapFigure *fig = &ar_built_figure_edit (built)->heatmap;
  ar_heatmap_figure_init (fig);
  int row0, n_rows, col0, n_cols;
  gboolean block = FALSE;
  if (view->pool_words)
    {
      g_autoptr (AsWordSpans) spans = as_word_spans_from_trace (t);
      float *pooled = ar_built_figure_take (
          built, g_new (float, (gsize) spans->n_words * spans->n_words)); /* [W][W] */
      as_word_pool_attention (pooled, matrix, spans);
      fig->values = pooled;
      ar_token_axes_set_words (built, fig, t, spans, view);
      if ((block
           = ar_segments_block_words (t, spans, view->segments, &row0, &n_rows, &col0, &n_cols)))
        set_block (built, fig, pooled, spans->n_words, fig->row_labels, view, fig->highlight_row,
                   row0, n_rows, col0, n_cols);
    }
  else if ((block = ar_segments_block (t, view->segments, &row0, &n_rows, &col0, &n_cols)))
    set_block (built, fig, matrix, t->n_tokens,
               ar_built_figure_take_strv (
                   built, ar_token_labels_from_trace (t, ar_view_selection_label_flags (view))),
               view, view->selected_token, row0, n_rows, col0, n_cols);
  else if (block_side > 1)
    ar_attention_overview_set_pooled (built, fig, t, view, block_side, attention->overview);
  else
    {
      if (owned != NULL)
        fig->values = ar_built_figure_take (built, g_steal_pointer (&owned)); /* on demand */
      else if (attention->one_layer && attention->layer_values != NULL && !view->normalize_rows
               && g_bytes_get_data (attention->layer_values, NULL) == (gconstpointer) matrix)
        fig->values = ar_built_figure_keep_bytes (built, attention->layer_values); /* shared */
      else if (view->aggregate == AR_AGGREGATE_HEAD && !view->normalize_rows)
        {
          /* The head's matrix is the trace's own: borrowed, not copied. */
          ar_built_figure_keep_trace (built, t);
          fig->values = matrix;
        }
      else
        fig->values = ar_built_figure_take (
            built, g_memdup2 (matrix, (gsize) t->n_tokens * t->n_tokens * sizeof (float)));
      ar_token_axes_set (built, fig, t, view);
      /* the selection is a target token: the encoder's tokens are the source's */
      fig->highlight_row = fig->highlight_col
          = view->selected_token < t->n_tokens && view->kind != AR_ATTENTION_ENCODER
                ? view->selected_token
                : -1;
    }
  if (view->normalize_rows)
    ar_normalize_rows ((float *) fig->values, fig->values, fig->n_rows, fig->n_cols);
  fig->row_axis = _ ("Queries");
  fig->col_axis = _ ("Keys");
  gboolean translation = t->source != NULL || texts->target_text != NULL;
  g_autofree char *title = ar_attention_kind_title (view, t->n_head, t->n_kv_head, translation);
  if (block)
    {
      /* Translators: an attention figure's title and its sentence filter ("A → B"). */
      char *filtered
          = g_strdup_printf (_ ("%s · sentences %s"), title, ar_segments_arrow (view->segments));
      g_free (title);
      title = filtered;
    }
  /* A causal sliding window masks the keys the query never saw; of one layer only (rollout
   * mixes layers) and of the tokens' own matrix (words pool across the window's edge). */
  int window = view->aggregate != AR_AGGREGATE_ROLLOUT && !view->pool_words && !block
                       && view->kind != AR_ATTENTION_CROSS
                   ? layer_window (t, view->layer)
                   : 0;
  if (window > 0)
    {
      /* Translators: an attention figure's title and the layer's sliding window. */
      char *local = g_strdup_printf (_ ("%s · sliding window of %d tokens"), title, window);
      g_free (title);
      title = local;
    }
  fig->window = window;
  if (weighted)
    {
      char *normed = norm_title (attention, view, title);
      g_free (title);
      title = normed;
    }
  fig->title
      = ar_built_figure_take (built, view->pool_words ? g_strdup_printf (_ ("%s · words"), title)
                                                      : g_steal_pointer (&title));
  fig->subtitle = ar_built_figure_take (
      built,
      ar_figure_texts_subtitle (texts, view->kind == AR_ATTENTION_ENCODER ? AR_SUBTITLE_SOURCE
                                                                          : AR_SUBTITLE_TEXT));
  fig->colormap = view->colormap;
  /* A bidirectional trace (an encoder) is a full square: nothing is masked. */
  fig->mask_upper = t->causal && !block;
  /* norms are not in [0, 1]: a weighted figure spans its data's range */
  ArViewSelection ranged = *view;
  ranged.autoscale = ranged.autoscale || weighted;
  ar_heatmap_view_range (&ranged, fig, &fig->vmin, &fig->vmax);
  fig->clipped = ar_heatmap_find_clipped (fig);
  fig->log_colors = view->log_colors;
  fig->annotate = view->annotate;
  if (block_side == 1)
    fig->colorbar_label = attention_colorbar_label (view, weighted);
  ar_built_figure_edit (built)->figure = ar_figure_from_heatmap (fig);
  return built;
}

ArBuiltFigure *
ar_build_heads_grid (const ArHeadsGridSource *source, const ArViewSelection *view,
                     const ArFigureTexts *texts)
{
  const AsTrace *trace = source->trace;
  gboolean each = view->autoscale && view->autoscale_each;
  if ((view->autoscale && source->range == NULL) || (each && source->head_ranges == NULL))
    return NULL;
  ArBuiltFigure *built = ar_built_figure_new ();
  ArGridFigure *fig = &ar_built_figure_edit (built)->grid;
  ar_grid_figure_init (fig);
  ar_built_figure_keep_trace (built, trace);
  gsize n_heads = (gsize) trace->n_layer * trace->n_head;
  fig->title = source->title;
  fig->subtitle = ar_built_figure_take (
      built,
      ar_figure_texts_subtitle (texts, view->kind == AR_ATTENTION_ENCODER ? AR_SUBTITLE_SOURCE
                                                                          : AR_SUBTITLE_TEXT));
  fig->n_layers = trace->n_layer;
  fig->n_heads = trace->n_head;
  fig->n_kv_heads = source->n_kv_heads;
  fig->n_tokens = trace->n_tokens;
  if (source->n_keys > 0)
    fig->n_keys = source->n_keys;
  fig->attn = source->attn;
  fig->colormap = view->colormap;
  fig->vmin = 0, fig->vmax = 1;
  if (view->autoscale && source->range[1] > source->range[0])
    fig->vmin = source->range[0], fig->vmax = source->range[1];
  fig->log_colors = view->log_colors;
  if (view->log_colors)
    fig->vmin = MAX (view->autoscale ? fig->vmin : 0, (view->autoscale ? 1e-4 : 1e-3) * fig->vmax);
  if (each)
    {
      fig->head_ranges = ar_built_figure_take (
          built, g_memdup2 (source->head_ranges, 2 * n_heads * sizeof (double)));
      /* Translators: the ends of a colour bar whose range differs from head to head. */
      fig->colorbar_low = _ ("min");
      fig->colorbar_high = _ ("max");
    }
  fig->mask_upper = source->causal;
  if (source->layer_windows != NULL)
    fig->layer_windows = ar_built_figure_take (
        built, g_memdup2 (source->layer_windows, fig->n_layers * sizeof (int)));
  fig->clipped = view->autoscale && source->causal && (each || fig->vmax < 1 - 1e-6);
  gboolean one_head = view->aggregate == AR_AGGREGATE_HEAD;
  fig->highlight_layer = one_head ? view->layer : -1;
  fig->highlight_head = one_head ? view->head : -1;
  fig->colorbar_label
      = each ? _ ("Attention weight (each head its own range)") : _ ("Attention weight");
  return built;
}

ArBuiltFigure *
ar_build_grid_figure (const ArAttention *attention, const AsHeadStats *stats,
                      const ArViewSelection *view, const ArFigureTexts *texts)
{
  const AsTrace *trace = attention->trace;
  g_return_val_if_fail (stats->n_layer == trace->n_layer && stats->n_head == trace->n_head, NULL);
  /* a trace on demand: its heads pooled into thumbnails (as many cells a side as tokens up to
   * AR_THUMBNAIL_CELLS, then blocks) */
  gboolean held = as_trace_attention_held (trace);
  if (!held && attention->thumbnails == NULL)
    return NULL;
  ArHeadsGridSource source = {
    .trace = trace,
    .attn = held ? trace->attn : attention->thumbnails,
    .n_kv_heads = trace->n_kv_head,
    .causal = trace->causal,
    .range = attention->range,
    .head_ranges = attention->head_ranges,
    .title = ar_all_heads_title (view, trace->source != NULL || texts->target_text != NULL),
  };
  g_autofree int *windows = g_new (int, trace->n_layer); /* [L] */
  for (int l = 0; l < trace->n_layer; l++)
    windows[l] = layer_window (trace, l);
  g_autofree char *local = view->kind == AR_ATTENTION_CROSS ? NULL : local_layers_text (trace);
  source.layer_windows = local != NULL ? windows : NULL;
  ArBuiltFigure *built = ar_build_heads_grid (&source, view, texts);
  if (built == NULL)
    return NULL;
  ArGridFigure *fig = &ar_built_figure_edit (built)->grid;
  if (local != NULL)
    fig->title = ar_built_figure_take (built, g_strdup_printf ("%s · %s", fig->title, local));
  gsize n_heads = (gsize) trace->n_layer * trace->n_head;
  if (!held)
    {
      /* the figure keeps its own copy: the analysis may drop its thumbnails while it is shown */
      fig->n_tokens = ar_attention_thumbnail_size (trace);
      fig->attn = ar_built_figure_take (
          built, g_memdup2 (attention->thumbnails,
                            n_heads * fig->n_tokens * fig->n_tokens * sizeof (float)));
    }
  fig->patterns
      = ar_built_figure_take (built, g_memdup2 (stats->patterns, n_heads * sizeof (AsHeadPattern)));
  ar_built_figure_edit (built)->figure = ar_figure_from_grid (fig);
  return built;
}
