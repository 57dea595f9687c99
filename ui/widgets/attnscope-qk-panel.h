/* attnscope-qk-panel.h — the query–key view of the Attribution page (core/include/as-qk.h): for
 * the view's layer and head and its selected token as the query (the last token when none is
 * selected), every key the query sees × the dimensions that add most to the scores, each cell
 * q_d·k_jd·scale, the score in the last column, the softmax weight beside each key
 * (ui/render/qk-figure.h). The window's passes do not keep the queries and keys: the panel runs
 * the text once more with them captured (as_qk_trace_with_qkv) in a GTask thread, once per text,
 * and keeps its figure on screen meanwhile. A query that sees more than QK_PANEL_ROWS keys shows
 * the last of them (zoom out for all). A model or input it does not apply to gets one line
 * saying why. */
#pragma once

#include "as-qk.h"
#include "attnscope-heatmap-view.h"
#include "attnscope-page.h"

G_BEGIN_DECLS

/* Keys in view when the query sees more than this many (the last ones, nearest the query). */
#define QK_PANEL_ROWS 24

#define ATTNSCOPE_TYPE_QK_PANEL (attnscope_qk_panel_get_type ())

G_DECLARE_FINAL_TYPE (AttnscopeQkPanel, attnscope_qk_panel, ATTNSCOPE, QK_PANEL, GtkWidget)

/* Brings the panel up to date with PAGE's session, analysis and view; TRUE while it waits for
 * its pass (the panel emits "ready" when the pass lands: update again then). */
gboolean attnscope_qk_panel_update (AttnscopeQkPanel *self, AttnscopePage *page);
/* The panel's figure for VIEW (a new reference), or NULL while its pass runs or when the view
 * does not apply. */
ArBuiltFigure *attnscope_qk_panel_build_figure (AttnscopeQkPanel *self, AttnscopePage *page,
                                                const ArViewSelection *view);

AttnscopeHeatmapView *attnscope_qk_panel_get_heatmap (AttnscopeQkPanel *self);
/* The view on screen (borrowed), or NULL. */
const AsQk *attnscope_qk_panel_get_qk (AttnscopeQkPanel *self);
/* Why there is no figure, or NULL. */
const char *attnscope_qk_panel_get_failure (AttnscopeQkPanel *self);

/* Whether the figure shows the query before RoPE (a model that rotates; others show q as it is):
 * the columns' q values and the subtitle's q line. */
void attnscope_qk_panel_set_before_rope (AttnscopeQkPanel *self, gboolean before);
gboolean attnscope_qk_panel_get_before_rope (AttnscopeQkPanel *self);

G_END_DECLS
