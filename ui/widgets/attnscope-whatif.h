/* attnscope-whatif.h — the window's interventions: the heads switched off (zero ablation) and
 * whether the passes leave out the positions (as-forward.h's AsForwardOptions.no_positions).
 *
 * The session owns one AttnscopeWhatif and hands its state to both run slots, so every page shows
 * the model as changed. The state (AttnscopeWhatifState) is an immutable, reference-counted
 * snapshot a pass's thread reads; each change makes a new one and emits "changed". A new model
 * resets it (its shape is the model's layers and heads; a translation model has none: the window
 * ablates decoder-only models and encoders). */
#pragma once

#include <gio/gio.h>

#include "as-forward.h"

G_BEGIN_DECLS

typedef struct
{
  int n_layer, n_head;
  const guint8 *heads; /* [L][H] non-zero: switched off (zeros replace its context) */
  int n_heads_off;
  gboolean no_positions;
} AttnscopeWhatifState;

AttnscopeWhatifState *attnscope_whatif_state_ref (AttnscopeWhatifState *state);
void attnscope_whatif_state_unref (AttnscopeWhatifState *state);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (AttnscopeWhatifState, attnscope_whatif_state_unref)

/* Whether A and B (either may be NULL: nothing changed) make the same passes. */
gboolean attnscope_whatif_state_equal (const AttnscopeWhatifState *a,
                                       const AttnscopeWhatifState *b);

/* Sets OPTIONS' no_positions and, with heads switched off, points OPTIONS' intervention at IV,
 * filled as as_ablation_intervention fills it for zero ablation (IV must live as long as
 * OPTIONS is used). STATE may be NULL. */
void attnscope_whatif_state_apply (const AttnscopeWhatifState *state, AsForwardOptions *options,
                                   AsIntervention *iv);

/* The heads switched off as the command line's --ablate takes them ("0.3,2.5"), "" for none. */
char *attnscope_whatif_state_dup_spec (const AttnscopeWhatifState *state);

#define ATTNSCOPE_TYPE_WHATIF (attnscope_whatif_get_type ())

G_DECLARE_FINAL_TYPE (AttnscopeWhatif, attnscope_whatif, ATTNSCOPE, WHATIF, GObject)

AttnscopeWhatif *attnscope_whatif_new (void);

/* The model's shape: resets every head (and keeps "no-positions"). 0 × 0: nothing to ablate. */
void attnscope_whatif_set_shape (AttnscopeWhatif *self, int n_layer, int n_head);

/* Switches head (LAYER, HEAD) off, or on again; FALSE (nothing done) outside the shape. */
gboolean attnscope_whatif_toggle_head (AttnscopeWhatif *self, int layer, int head);
gboolean attnscope_whatif_get_head (AttnscopeWhatif *self, int layer, int head);
/* "n-heads-off": how many heads are switched off. */
int attnscope_whatif_get_n_heads_off (AttnscopeWhatif *self);
/* Switches every head on again. */
void attnscope_whatif_reset (AttnscopeWhatif *self);

/* "no-positions": the passes leave out position embeddings (or the rotation). */
void attnscope_whatif_set_no_positions (AttnscopeWhatif *self, gboolean no_positions);
gboolean attnscope_whatif_get_no_positions (AttnscopeWhatif *self);

/* The current state (borrowed; never NULL). */
AttnscopeWhatifState *attnscope_whatif_get_state (AttnscopeWhatif *self);

G_END_DECLS
