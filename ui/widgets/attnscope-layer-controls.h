/* attnscope-layer-controls.h — the aggregation drop-down and the layer and head spin buttons,
 * bound to a session: the controls the attention, similarity, embeddings and compare pages
 * share. Changing one changes the session, so every page follows. */
#pragma once

#include <gtk/gtk.h>

#include "attnscope-session.h"

G_BEGIN_DECLS

#define ATTNSCOPE_TYPE_LAYER_CONTROLS (attnscope_layer_controls_get_type ())

G_DECLARE_FINAL_TYPE (AttnscopeLayerControls, attnscope_layer_controls, ATTNSCOPE, LAYER_CONTROLS,
                      GtkWidget)

AttnscopeSession *attnscope_layer_controls_get_session (AttnscopeLayerControls *self);
void attnscope_layer_controls_set_session (AttnscopeLayerControls *self, AttnscopeSession *session);

/* Whether the aggregation drop-down is shown (default TRUE). */
void attnscope_layer_controls_set_show_aggregate (AttnscopeLayerControls *self, gboolean show);
/* Whether the head spin button is always usable, whatever the aggregation (pages whose vectors
 * belong to a head). */
void attnscope_layer_controls_set_head_always (AttnscopeLayerControls *self, gboolean always);

G_END_DECLS
