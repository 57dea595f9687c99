/* attnscope-patch-panel.h — activation patching between the Compare page's texts A and B: each
 * head's output, each MLP's output or the residual stream at each (layer, position) taken from
 * B's pass into A's (or A's into B's), one at a time, and a logit difference at the last position
 * measured, normalised so that 0 = the patched text's own value and 1 = the other's
 * (as_patch; `attnscope patch --json` computes the same). Drawn as a heatmap
 * (ui/render/patch-figure.h) with the range printed. Texts of different lengths get one message
 * naming both counts. The patching runs in a GTask thread; a newer request or new texts make
 * the one in flight land nowhere. */
#pragma once

#include <gtk/gtk.h>

#include "as-patching.h"
#include "attnscope-heatmap-view.h"
#include "attnscope-session.h"

G_BEGIN_DECLS

#define ATTNSCOPE_TYPE_PATCH_PANEL (attnscope_patch_panel_get_type ())

G_DECLARE_FINAL_TYPE (AttnscopePatchPanel, attnscope_patch_panel, ATTNSCOPE, PATCH_PANEL, GtkWidget)

GtkWidget *attnscope_patch_panel_new (void);

/* The session whose main text is A and comparison text B (NULL: none). */
void attnscope_patch_panel_set_session (AttnscopePatchPanel *self, AttnscopeSession *session);

/* Patches WHAT between A and B (REVERSE: A's activations into B's pass) on the model as the
 * window changes it (its switched-off heads as a base ablation, its positions), measuring
 * logit(TOKEN) − logit(VS_TOKEN), as the panel's Patch button does; again whenever A or B
 * changes. FALSE (the status says why) on a word that is not one token. */
gboolean attnscope_patch_panel_patch (AttnscopePatchPanel *self, const char *token,
                                      const char *vs_token, AsPatchWhat what, gboolean reverse);
gboolean attnscope_patch_panel_get_running (AttnscopePatchPanel *self);
/* Stops the patching in flight (its computation, as the panel's Cancel button does); the
 * result shown stays, new texts are not patched until asked again. */
void attnscope_patch_panel_cancel (AttnscopePatchPanel *self);
/* The shown effects (rows × cols as the figure; NULL without) and the clean values. */
const double *attnscope_patch_panel_get_effects (AttnscopePatchPanel *self, int *rows, int *cols,
                                                 AsPatchResult *result);
const char *attnscope_patch_panel_get_status (AttnscopePatchPanel *self);
/* The figure shown (borrowed), or NULL. */
ArBuiltFigure *attnscope_patch_panel_get_figure (AttnscopePatchPanel *self);

G_END_DECLS
