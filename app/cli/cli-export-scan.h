/* cli-export-scan.h — `attnscope export --ablation-scan`: the ablation scan's heatmap, as the
 * Ablation page draws it (ui/render/scan-figure.h). */
#pragma once

#include "as-model.h"
#include "built-figure.h"
#include "figure-subtitle.h"
#include "view-selection.h"

G_BEGIN_DECLS

/* The scan options of export (NULL / FALSE: not given). */
typedef struct
{
  gboolean scan;  /* --ablation-scan: every single head switched off in turn (zero ablation) */
  char *token;    /* --scan-token WORD: its logit at the last position */
  char *vs_token; /* --scan-vs-token W2: minus this token's logit */
  gboolean loss;  /* --scan-loss: the next-token loss over the text */
} CliExportScan;

/* Checks the options that need no model; returns -1 when fine, else the exit code. */
int cli_export_scan_check (const CliExportScan *scan);

/* The scan's figure of TRACE's ids (MODEL's; scanned with the model as it is) under VIEW. Fails
 * on a word the vocabulary splits, the loss of fewer than 2 tokens, a model without an output
 * head. */
ArBuiltFigure *cli_export_scan_figure (AsModel *model, const AsTrace *trace,
                                       const CliExportScan *scan, const ArViewSelection *view,
                                       const ArFigureTexts *texts, GError **error);

void cli_export_scan_clear (CliExportScan *scan);

G_END_DECLS
