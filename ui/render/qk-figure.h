/* qk-figure.h — the query–key view as a figure (core/include/as-qk.h): for one head and one
 * query token, a heatmap of the keys the query sees (rows, each labelled with its token and its
 * softmax weight) × the dimensions that add most to the scores (columns, largest first), each
 * cell q_d · k_jd · scale — what dimension d adds to key j's score — and in the last column the
 * score itself (the sum over every dimension, before the softmax), in diverging colours over a
 * range symmetric around 0. Drawn by the heatmap renderer, so the window and the files show the
 * same figure. */
#pragma once

#include "as-qk.h"
#include "built-figure.h"
#include "figure-subtitle.h"
#include "view-selection.h"

G_BEGIN_DECLS

/* Dimension columns at most (the rest add less; the score column sums them all). */
#define AR_QK_FIGURE_DIMS 16

/* The figure of QK, computed on TRACE; the subtitle of TEXTS, VIEW's annotation and token
 * labels. */
ArBuiltFigure *ar_build_qk_figure (const AsQk *qk, const AsTrace *trace, const ArFigureTexts *texts,
                                   const ArViewSelection *view);

G_END_DECLS
