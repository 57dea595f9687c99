/* attribution-figure.h — direct logit attribution as a figure: an L × (H + 1) heatmap, the heads
 * of every layer and, in the last column, its MLP, in diverging colours over a range symmetric
 * around 0 (printed on the colour bar and in the subtitle), so that a red cell pushed the logit
 * up and a blue one down by what its number says. Drawn by the heatmap renderer, so the window and
 * the files show the same figure. */
#pragma once

#include "as-attribution.h"
#include "built-figure.h"

G_BEGIN_DECLS

/* The figure of AT; WHAT names the logit ("' car'", "' car' − ' man'"), SUBTITLE (or NULL) the
 * model and text; ANNOTATE as the heatmap's. */
ArBuiltFigure *ar_build_attribution_figure (const AsAttribution *at, const char *what,
                                            const char *subtitle, ArAnnotate annotate);

G_END_DECLS
