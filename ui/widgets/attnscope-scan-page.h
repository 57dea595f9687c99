/* attnscope-scan-page.h — the ablation scan: every single head of the main text's model switched
 * off in turn (zero ablation, as `attnscope ablate --scan`) and its effect on a token's logit, a
 * logit difference or the loss, as an L × H heatmap (ui/render/scan-figure.h) with the effects'
 * range printed. The scan runs in a GTask thread (as_ablation_scan_full) with a progress bar and
 * a Cancel button; a new text cancels it and, once a measure was asked for, scans the new text.
 * It scans the model as it is (the heads the window switched off are not switched off here). */
#pragma once

#include "as-ablation.h"
#include "attnscope-heatmap-view.h"
#include "attnscope-page.h"

G_BEGIN_DECLS

#define ATTNSCOPE_TYPE_SCAN_PAGE (attnscope_scan_page_get_type ())

G_DECLARE_FINAL_TYPE (AttnscopeScanPage, attnscope_scan_page, ATTNSCOPE, SCAN_PAGE, AttnscopePage)

/* Asks for a scan of the measure KIND (AS_METRIC_LOGIT, AS_METRIC_LOGIT_DIFF, AS_METRIC_LOSS) of
 * TOKEN and VS_TOKEN (words of the vocabulary; ignored where the measure needs none), as the
 * toolbar's Scan does. FALSE (the status line says why) on a word that is not one token. */
gboolean attnscope_scan_page_scan (AttnscopeScanPage *self, int kind, const char *token,
                                   const char *vs_token);
/* Stops the scan in flight (the Cancel button). */
void attnscope_scan_page_cancel (AttnscopeScanPage *self);
gboolean attnscope_scan_page_get_scanning (AttnscopeScanPage *self);
/* The shown scan's effects [L][H] (NULL without one) and its clean value. */
const double *attnscope_scan_page_get_effects (AttnscopeScanPage *self, int *n_layer, int *n_head,
                                               double *clean);
const char *attnscope_scan_page_get_status (AttnscopeScanPage *self);
AttnscopeHeatmapView *attnscope_scan_page_get_heatmap (AttnscopeScanPage *self);

G_END_DECLS
