/* built-figure.h — a figure description that owns what it shows: what the figure builders
 * (attention-figure.h, similarity-figure.h, projection-figure.h, compare-figure.h) return.
 *
 * The figure structs borrow their arrays and strings; a built figure keeps those alive — copies
 * it owns, or references to the traces whose arrays it points into — so a widget can hold one
 * while the analysis that produced it is long gone, and export draws exactly what the widget
 * draws. Immutable once built and reference counted. Its style is NULL (the light print style):
 * widgets draw a restyled copy (ar_figure_parts_restyle). */
#pragma once

#include <glib.h>

#include "as-trace.h"
#include "figure.h"

G_BEGIN_DECLS

typedef struct _ArBuiltFigure ArBuiltFigure;

ArBuiltFigure *ar_built_figure_ref (ArBuiltFigure *fig);
void ar_built_figure_unref (ArBuiltFigure *fig);

/* The figure and its parts (borrowed from FIG). */
const ArFigure *ar_built_figure_get (const ArBuiltFigure *fig);
const ArFigureParts *ar_built_figure_get_parts (const ArBuiltFigure *fig);

/* For the builders: an empty figure; its parts to fill in; memory freed (g_free) with the
 * figure, returned as given; a string vector freed with the figure; shared data kept alive with
 * it (its bytes returned, not copied: a 4,096-token similarity is 67 MB); a trace kept alive with
 * it. */
ArBuiltFigure *ar_built_figure_new (void);
ArFigureParts *ar_built_figure_edit (ArBuiltFigure *fig);
gpointer ar_built_figure_take (ArBuiltFigure *fig, gpointer memory);
const char *const *ar_built_figure_take_strv (ArBuiltFigure *fig, char **strv);
gconstpointer ar_built_figure_keep_bytes (ArBuiltFigure *fig, GBytes *bytes);
void ar_built_figure_keep_trace (ArBuiltFigure *fig, const AsTrace *trace);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ArBuiltFigure, ar_built_figure_unref)

G_END_DECLS
