/* scan-figure.h — the ablation scan as a figure: an L × H heatmap of each single head's effect
 * (the measure with that head switched off minus the clean measure) in diverging colours over a
 * range symmetric around 0, with the effects' own range printed in the subtitle. The window's
 * Ablation page and `attnscope export --ablation-scan` draw it through this one builder. */
#pragma once

#include "as-ablation.h"
#include "as-tokenizer.h"
#include "built-figure.h"
#include "figure-subtitle.h"

G_BEGIN_DECLS

/* What METRIC measures, for the title: "logit(“ car”)", "logit(“ car”) − logit(“ man”)" or
 * "loss" (TOKENIZER gives the tokens' texts). Newly allocated. */
char *ar_ablation_measure_label (const AsTokenizer *tokenizer, const AsMetric *metric);

/* The figure of EFFECTS [L][H] (N_LAYER × N_HEAD) and the CLEAN value; MEASURE names what was
 * measured (ar_ablation_measure_label), ABLATION the ablation ("zero"), TEXTS the model and text
 * of the subtitle (ar_figure_texts_subtitle); ANNOTATE as the heatmap's. */
ArBuiltFigure *ar_build_ablation_scan_figure (const double *effects, int n_layer, int n_head,
                                              double clean, const char *measure,
                                              const char *ablation, const ArFigureTexts *texts,
                                              ArAnnotate annotate);

G_END_DECLS
