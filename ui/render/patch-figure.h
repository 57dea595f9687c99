/* patch-figure.h — activation patching as a figure: the normalised effect of patching each head
 * (L × H), each MLP (1 × L) or the residual stream at each (layer, position) (L × T, the columns
 * labelled with the tokens) from one text's pass into the other's, 0 = the patched text's own
 * value and 1 = the other text's, in diverging colours over a range symmetric around 0 that holds
 * 1; the clean values and the effects' range are printed in the subtitle. The Compare page's
 * patching panel and `attnscope export --patch` draw it through this one builder. */
#pragma once

#include "as-patching.h"
#include "built-figure.h"
#include "figure-subtitle.h"

G_BEGIN_DECLS

/* The figure of EFFECTS (as_patch's, for WHAT on BASE's tokens: BASE is the text patched into,
 * a trace of N_LAYER × N_HEAD); REVERSE: A's activations into B's pass (else B's into A's);
 * RESULT the clean values, MEASURE the logit difference (ar_ablation_measure_label), TEXTS the
 * model and both texts (text A, compare_text B). */
ArBuiltFigure *ar_build_patch_figure (const double *effects, AsPatchWhat what, const AsTrace *base,
                                      gboolean reverse, const AsPatchResult *result,
                                      const char *measure, const ArFigureTexts *texts,
                                      ArAnnotate annotate);

G_END_DECLS
