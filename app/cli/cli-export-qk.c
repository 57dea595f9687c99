/* cli-export-qk.c — `attnscope export --qk` (see cli-export-qk.h): the query–key view computed
 * with the core (as-qk.h, on a pass with the queries and keys captured) and drawn by the builder
 * the window calls, so that the window's export and this command write the same file. */
#include "cli-export-qk.h"

#include "as-qk.h"
#include "qk-figure.h"

ArBuiltFigure *
cli_export_qk_figure (AsModel *model, AsTrace *trace, const ArViewSelection *view,
                      const ArFigureTexts *texts, GError **error)
{
  int query = view->selected_token >= 0 ? view->selected_token : trace->n_tokens - 1;
  g_autoptr (AsTrace) captured = as_qk_trace_with_qkv (model, trace, error);
  if (captured == NULL)
    return NULL;
  g_autoptr (AsQk) qk = as_qk_compute (model, captured, view->layer, view->head, query, error);
  if (qk == NULL)
    return NULL;
  return ar_build_qk_figure (qk, captured, texts, view);
}
