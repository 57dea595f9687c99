/* attnscope-whatif-chip.h — the chip under the text entry that says what the window changed in
 * the model: "2 heads ablated" (with a reset button, and a menu naming the ablation: zero, the
 * heads' contexts replaced by zeros) and "no positions". Hidden while the model is as it is. */
#pragma once

#include <gtk/gtk.h>

#include "attnscope-session.h"

G_BEGIN_DECLS

#define ATTNSCOPE_TYPE_WHATIF_CHIP (attnscope_whatif_chip_get_type ())

G_DECLARE_FINAL_TYPE (AttnscopeWhatifChip, attnscope_whatif_chip, ATTNSCOPE, WHATIF_CHIP, GtkWidget)

GtkWidget *attnscope_whatif_chip_new (void);

/* The session whose interventions the chip shows (NULL: none). */
void attnscope_whatif_chip_set_session (AttnscopeWhatifChip *self, AttnscopeSession *session);

/* What the chip says ("2 heads ablated · no positions"), "" while hidden (tests). */
const char *attnscope_whatif_chip_get_text (AttnscopeWhatifChip *self);

G_END_DECLS
