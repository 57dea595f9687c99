/* attnscope-layer-controls.h — the aggregation drop-down and the layer and head spin buttons,
 * bound (GBindingGroup) to the view state of a session: the controls the attention, similarity,
 * embeddings and compare pages share. Changing one changes the view state, so every page
 * follows. */
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
/* When the head spin button is usable. */
typedef enum
{
  ATTNSCOPE_HEAD_MODE_AGGREGATE, /* when the aggregation is one head (default) */
  ATTNSCOPE_HEAD_MODE_ALWAYS,    /* always (vectors that belong to a head) */
  ATTNSCOPE_HEAD_MODE_NEVER,     /* never (vectors of the whole layer) */
} AttnscopeHeadMode;

void attnscope_layer_controls_set_head_mode (AttnscopeLayerControls *self, AttnscopeHeadMode mode);

G_END_DECLS
