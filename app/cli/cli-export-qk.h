/* cli-export-qk.h — `attnscope export --qk --layer L --head H [--token I]`: the query–key view's
 * figure, as the Attribution page's Query–key view draws it (ui/render/qk-figure.h). */
#pragma once

#include "as-model.h"
#include "built-figure.h"
#include "figure-subtitle.h"
#include "view-selection.h"

G_BEGIN_DECLS

/* The figure of head (VIEW->layer, VIEW->head) of TRACE (MODEL's) for the query
 * VIEW->selected_token
 * (-1: the last token). Fails for a layer, head or token out of range, a model that offers no
 * scale, a translation or sentence pair (as_qk_trace_with_qkv). */
ArBuiltFigure *cli_export_qk_figure (AsModel *model, AsTrace *trace, const ArViewSelection *view,
                                     const ArFigureTexts *texts, GError **error);

G_END_DECLS
