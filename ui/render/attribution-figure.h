/* attribution-figure.h — direct logit attribution as a figure: an L × H heatmap of the heads of
 * every layer and, beside it, a bar per layer for its MLP (the heatmap's row bars), in diverging
 * colours over a range symmetric around 0 (printed on the colour bar and in the subtitle; the
 * bars' own length axis ±max|MLP| below them), so that a red cell pushed the logit up and a blue
 * one down by what its number says. Drawn by the heatmap renderer, so the window and
 * the files show the same figure. */
#pragma once

#include "as-attribution.h"
#include "as-tokenizer.h"
#include "built-figure.h"
#include "figure-subtitle.h"
#include "view-selection.h"

G_BEGIN_DECLS

/* The parts of an attribution summed by group, as the figures' subtitles print them: heads + MLPs
 * + embeddings + biases + cross_heads + cross_biases = AT->sum (the last two 0 for a decoder-only
 * model). */
typedef struct
{
  double heads, mlps, embeddings;
  double biases;       /* the attention output biases and the final norm's bias (norm_bias) */
  double cross_heads;  /* a translation model's cross-attention heads */
  double cross_biases; /* their output biases, the norms' biases and final_logits_bias */
} ArAttributionTotals;

void ar_attribution_totals (const AsAttribution *at, ArAttributionTotals *totals);

/* The figure of AT; WHAT names the logit ("' car'", "' car' − ' man'"), SUBTITLE (or NULL) the
 * model and text; ANNOTATE as the heatmap's. The subtitle's second line is the logit, the sum of
 * the parts and every group of ArAttributionTotals (a translation model's cross groups too), so
 * that the printed numbers add up to the logit. */
ArBuiltFigure *ar_build_attribution_figure (const AsAttribution *at, const char *what,
                                            const char *subtitle, ArAnnotate annotate);

/* A translation model's cross-attention heads (AT->cross_heads) as a second L × H heatmap, in the
 * same diverging colours over its own range symmetric around 0 (printed on the colour bar and in
 * the subtitle with the sum of the cross biases, the norms' biases and final_logits_bias). */
ArBuiltFigure *ar_build_attribution_cross_figure (const AsAttribution *at, const char *what,
                                                  const char *subtitle, ArAnnotate annotate);

/* What the figure's title names: "“ car”", or "“ car” − “ man”" with a second token (VS_ID ≥ 0),
 * the tokens' texts in TOKENIZER. Newly allocated. */
char *ar_attribution_what (const AsTokenizer *tokenizer, int32_t target_id, int32_t vs_id);

/* The figure the Attribution page shows and `attnscope export --attribution` writes: the subtitle
 * of TEXTS, VIEW's annotation; the cross-attention heads' figure when VIEW's kind is
 * AR_ATTENTION_CROSS and AT has them (`export --attribution --kind cross`). */
ArBuiltFigure *ar_build_attribution_view_figure (const AsAttribution *at,
                                                 const AsTokenizer *tokenizer,
                                                 const ArFigureTexts *texts,
                                                 const ArViewSelection *view);

G_END_DECLS
