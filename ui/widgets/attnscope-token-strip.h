/* attnscope-token-strip.h — the tokens of the session's main trace as a row of chips.
 *
 * Each chip shows a token's label (GPT-2's 'Ġ' as a visible space mark, or the raw vocabulary
 * string when the view state's "raw-tokens" is on) and its id and position in a tooltip.
 * Clicking a chip selects that token in the view state (every view highlights its row and
 * column); clicking it again clears the selection. The strip is one stop of the Tab key (the
 * selected chip, else the first); the arrow keys, Home and End move between the chips and space
 * toggles one. The strip follows the main run and the view
 * state through signal groups. With "source" set it shows a translation's source tokens (the
 * main trace's encoder trace) instead, which are not selectable (a selection is a target
 * token). */
#pragma once

#include <gtk/gtk.h>

#include "attnscope-session.h"

G_BEGIN_DECLS

#define ATTNSCOPE_TYPE_TOKEN_STRIP (attnscope_token_strip_get_type ())

G_DECLARE_FINAL_TYPE (AttnscopeTokenStrip, attnscope_token_strip, ATTNSCOPE, TOKEN_STRIP, GtkWidget)

GtkWidget *attnscope_token_strip_new (void);
AttnscopeSession *attnscope_token_strip_get_session (AttnscopeTokenStrip *self);
void attnscope_token_strip_set_session (AttnscopeTokenStrip *self, AttnscopeSession *session);

/* The chips shown (one per token) and the label of chip I. */
guint attnscope_token_strip_get_n_chips (AttnscopeTokenStrip *self);
const char *attnscope_token_strip_get_chip_label (AttnscopeTokenStrip *self, guint i);
GtkToggleButton *attnscope_token_strip_get_chip (AttnscopeTokenStrip *self, guint i);
/* The tooltip the strip shows over chip I (position, id, vocabulary string, ...), made now. */
char *attnscope_token_strip_dup_chip_tooltip (AttnscopeTokenStrip *self, guint i);

G_END_DECLS
