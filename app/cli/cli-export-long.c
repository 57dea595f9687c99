/* cli-export-long.c — a long text's mean over heads and rollout for `attnscope export` (see
 * cli-export-long.h). The figure is built by the window's head overview (attention-overview.h)
 * from the pooled aggregate, then given the aggregate's title and colour-bar label: the same
 * layout, legend and block labels as the heatmap's overview of a head. */
#include "cli-export-long.h"

#include <glib/gi18n.h>
#include <stdlib.h>
#include <string.h>

#include "as-attention-pool.h"
#include "as-error.h"
#include "as-rollout-long.h"
#include "attention-figure.h"
#include "attention-overview.h"

/* VIEW as the head overview sees it: one head, unweighted. */
static ArViewSelection
as_head_view (const ArViewSelection *view)
{
  ArViewSelection head = *view;
  head.aggregate = AR_AGGREGATE_HEAD;
  head.head = 0;
  head.norm_weighted = FALSE;
  return head;
}

gboolean
cli_export_long_aggregate (const AsTrace *trace, const ArViewSelection *view)
{
  if (view->aggregate != AR_AGGREGATE_MEAN && view->aggregate != AR_AGGREGATE_ROLLOUT)
    return FALSE;
  ArViewSelection head = as_head_view (view);
  return ar_attention_overview_factor (trace, &head) > 1;
}

static double
rollout_max_seconds (void)
{
  const char *env = g_getenv ("ATTNSCOPE_ROLLOUT_MAX_SECONDS");
  return env != NULL && *env != '\0' ? g_ascii_strtod (env, NULL) : CLI_ROLLOUT_MAX_SECONDS;
}

/* OUT [P][P] = VIEW's aggregate of TRACE pooled in blocks of K × K. */
static gboolean
pooled_aggregate (float *out, const AsTrace *trace, const ArViewSelection *view, int k,
                  GError **error)
{
  int T = trace->n_tokens;
  AsPool pool = view->pool_mean ? AS_POOL_MEAN : AS_POOL_MAX;
  if (view->aggregate == AR_AGGREGATE_MEAN)
    {
      as_trace_mean_heads_pool (out, trace, view->layer, k, pool);
      return TRUE;
    }
  if (!as_rollout_check (T, view->layer, rollout_max_seconds (), error))
    return FALSE;
  g_autofree float *rollout = g_try_new (float, (gsize) T *T); /* [T][T] */
  if (rollout == NULL)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_MEMORY,
                   "could not allocate the rollout of layer %d over %d tokens", view->layer, T);
      return FALSE;
    }
  if (!as_trace_rollout_layer (trace, view->layer, NULL, rollout, error))
    return FALSE;
  as_matrix_pool (out, rollout, T, T, k, pool);
  return TRUE;
}

/* *FIELD (a string of BUILT) with its prefix FROM replaced by TO; a field that does not start
 * with FROM becomes TO. */
static void
replace_prefix (ArBuiltFigure *built, const char **field, const char *from, const char *to,
                gboolean keep_rest)
{
  const char *rest
      = *field != NULL && g_str_has_prefix (*field, from) ? *field + strlen (from) : "";
  *field = ar_built_figure_take (built, g_strconcat (to, keep_rest ? rest : "", NULL));
}

ArBuiltFigure *
cli_export_long_figure (const AsTrace *trace, const ArViewSelection *view,
                        const ArFigureTexts *texts, GError **error)
{
  ArViewSelection head = as_head_view (view);
  int k = ar_attention_overview_factor (trace, &head), P = as_pool_size (trace->n_tokens, k);
  g_autofree float *pooled = g_new (float, (gsize) P *P); /* [P][P] */
  if (!pooled_aggregate (pooled, trace, view, k, error))
    return NULL;
  ArAttention attention = { .trace = trace, .overview = pooled };
  ArBuiltFigure *built = ar_build_attention_figure (&attention, &head, texts);
  ArHeatmapFigure *fig = &ar_built_figure_edit (built)->heatmap;
  gboolean translation = trace->source != NULL || texts->target_text != NULL;
  g_autofree char *head_title
      = ar_attention_kind_title (&head, trace->n_head, trace->n_kv_head, translation);
  g_autofree char *title
      = ar_attention_kind_title (view, trace->n_head, trace->n_kv_head, translation);
  gboolean rollout = view->aggregate == AR_AGGREGATE_ROLLOUT;
  /* the mean keeps the layer's sliding window in its title; the rollout mixes layers */
  replace_prefix (built, &fig->title, head_title, title, !rollout);
  if (rollout)
    {
      fig->window = 0;
      /* the figure builders' own words, in their text domain (ui/render) */
      replace_prefix (built, &fig->colorbar_label, g_dgettext ("attnscope", "Attention weight"),
                      g_dgettext ("attnscope", "Rollout weight"), TRUE);
    }
  fig->pool_trace = NULL; /* not one head's blocks: nothing to zoom into */
  return built;
}
