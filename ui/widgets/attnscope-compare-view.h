/* attnscope-compare-view.h — two sentences side by side (ui/render/compare-render.h): the same
 * head (or mean, or rollout) for text A and text B, their difference B − A in the diverging map
 * when the token counts match, and a chart of the per-layer similarity of the tokens they share.
 * The whole comparison is one figure, drawn on screen and exported by the same function. */
#pragma once

#include <gtk/gtk.h>

#include "compare-render.h"

G_BEGIN_DECLS

#define ATTNSCOPE_TYPE_COMPARE_VIEW (attnscope_compare_view_get_type ())

G_DECLARE_FINAL_TYPE (AttnscopeCompareView, attnscope_compare_view, ATTNSCOPE, COMPARE_VIEW,
                      GtkWidget)

GtkWidget *attnscope_compare_view_new (void);

/* Panel 0 (A) or 1 (B): VALUES [N][N] with LABELS [N] and a TITLE, copied. VALUES NULL clears. */
void attnscope_compare_view_set_panel (AttnscopeCompareView *self, int panel, const float *values,
                                       int n, const char *const *labels, const char *title);
/* The difference B − A [N][N] (same N as both panels), or NULL for none. */
void attnscope_compare_view_set_difference (AttnscopeCompareView *self, const float *diff, int n);
/* The chart: VALUES [N_SERIES][N_X] named SERIES_NAMES, x labelled X_LABELS; NULL for none. */
void attnscope_compare_view_set_chart (AttnscopeCompareView *self, const double *values,
                                       int n_series, int n_x, const char *const *series_names,
                                       const char *const *x_labels);
void attnscope_compare_view_set_titles (AttnscopeCompareView *self, const char *title,
                                        const char *subtitle, const char *note);
/* Colour map, range and annotation of the A and B panels (the difference is symmetric around 0
 * in the diverging map, ±DIFF_MAX). */
void attnscope_compare_view_set_style (AttnscopeCompareView *self, const char *colormap,
                                       double vmax, double diff_max, gboolean annotate,
                                       gboolean mask_upper);
/* Rows/columns outlined in A and B (-1: none). */
void attnscope_compare_view_set_highlight (AttnscopeCompareView *self, int token_a, int token_b);

gboolean attnscope_compare_view_has_panels (AttnscopeCompareView *self);
gboolean attnscope_compare_view_has_difference (AttnscopeCompareView *self);
/* Value of cell (ROW, COL) of PANEL (0 A, 1 B, 2 difference); NaN when absent. */
float attnscope_compare_view_get_value (AttnscopeCompareView *self, int panel, int row, int col);

/* The figure as on screen, print style; it and its parts borrow the widget (for export). */
void attnscope_compare_view_get_figure (AttnscopeCompareView *self, ArCompareFigure *fig);

G_END_DECLS
