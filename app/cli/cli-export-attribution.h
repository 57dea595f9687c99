/* cli-export-attribution.h — `attnscope export --attribution`: direct logit attribution's figure,
 * as the Attribution page draws it (ui/render/attribution-figure.h). */
#pragma once

#include "as-model.h"
#include "built-figure.h"
#include "figure-subtitle.h"
#include "view-selection.h"

G_BEGIN_DECLS

/* The attribution options of export (G_MININT: not given). */
typedef struct
{
  gboolean attribution; /* --attribution: the heads' and MLPs' direct effects on a logit */
  int target_id;        /* --target-id N: the token whose logit is split (default: predicted) */
  int vs_id;            /* --vs-id N2: split the difference of the two tokens' logits */
  char *target_token;   /* --target-token WORD: the token by its text (one vocabulary token) */
  char *vs_token;       /* --vs-target-token WORD2: the other token by its text */
} CliExportAttribution;

#define CLI_EXPORT_ATTRIBUTION_INIT                                                                \
  {                                                                                                \
    FALSE, G_MININT, G_MININT, NULL, NULL                                                          \
  }

/* Checks the options that need no model (FOLLOW: --follow or --follow-id was given); returns -1
 * when fine, else the exit code. */
int cli_export_attribution_check (const CliExportAttribution *at, gboolean follow);

/* Frees the strings of AT. */
void cli_export_attribution_clear (CliExportAttribution *at);

/* The figure --attribution asks for of TRACE (MODEL's) at POSITION (G_MININT: the last token):
 * the --target-id (or --target-token) token's logit (default: the predicted token), minus
 * --vs-id's (or --vs-target-token's) when given. A word the vocabulary splits is refused with
 * its pieces named. Fails for a model attribution does not apply to (the core's reason), an id or
 * position out of range. */
ArBuiltFigure *cli_export_attribution_figure (AsModel *model, const AsTrace *trace,
                                              const CliExportAttribution *at, int position,
                                              const ArViewSelection *view,
                                              const ArFigureTexts *texts, GError **error);

G_END_DECLS
