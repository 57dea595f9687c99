/* attnscope-whatif-chip.h — the chip under the text entry that says what the window changed in
 * the model: "2 heads ablated" (with a reset button, and a menu that chooses the ablation: zero,
 * the heads' contexts replaced by zeros, or mean, by their means over a file of texts chosen with
 * "Mean over…") and "no positions". Hidden while the model is as it is. */
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

/* Computes the means over PATH's texts (as "Mean over…" does after its file chooser) and then
 * switches to mean ablation; a bad file leaves the ablation as it was and the chip names the
 * problem (attnscope_whatif_chip_get_status). */
void attnscope_whatif_chip_mean_over (AttnscopeWhatifChip *self, const char *path);
/* Whether the means are being computed. */
gboolean attnscope_whatif_chip_get_busy (AttnscopeWhatifChip *self);
/* The chip's message ("" without): the means being computed, or why a file was refused. */
const char *attnscope_whatif_chip_get_status (AttnscopeWhatifChip *self);
/* The chip's menu (the ablation choices; tests and screenshots open it). */
GtkMenuButton *attnscope_whatif_chip_get_menu_button (AttnscopeWhatifChip *self);

G_END_DECLS
