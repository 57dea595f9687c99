/* attnscope-whatif.h — the window's interventions: the heads switched off (zero ablation, or mean
 * ablation over a file of texts as `--ablation mean --mean-over FILE` makes it) and whether the
 * passes leave out the positions (as-forward.h's AsForwardOptions.no_positions).
 *
 * The session owns one AttnscopeWhatif and hands its state to both run slots, so every page shows
 * the model as changed. The state (AttnscopeWhatifState) is an immutable, reference-counted
 * snapshot a pass's thread reads; each change makes a new one and emits "changed". A new model
 * resets it (its shape is the model's layers and heads; a translation model has none: the window
 * ablates decoder-only models and encoders). */
#pragma once

#include <gio/gio.h>

#include "as-ablation.h"
#include "as-forward.h"

G_BEGIN_DECLS

typedef struct
{
  int n_layer, n_head;
  const guint8 *heads; /* [L][H] non-zero: switched off (zeros replace its context) */
  int n_heads_off;
  gboolean no_positions;
  AsAblationKind kind;     /* AS_ABLATION_MEAN: the means below replace a head's context */
  const float *head_means; /* [L][H][hd] the means over mean_over (mean ablation), else NULL */
  const float *mlp_means;  /* [L][D] */
  const char *mean_over;   /* the file of texts the means are over, or NULL */
  gpointer means;          /* private: holds the means */
} AttnscopeWhatifState;

AttnscopeWhatifState *attnscope_whatif_state_ref (AttnscopeWhatifState *state);
void attnscope_whatif_state_unref (AttnscopeWhatifState *state);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (AttnscopeWhatifState, attnscope_whatif_state_unref)

/* Whether A and B (either may be NULL: nothing changed) make the same passes. */
gboolean attnscope_whatif_state_equal (const AttnscopeWhatifState *a,
                                       const AttnscopeWhatifState *b);

/* Sets OPTIONS' no_positions and, with heads switched off, points OPTIONS' intervention at IV,
 * filled as as_ablation_intervention fills it for the state's kind (IV must live as long as
 * OPTIONS is used). STATE may be NULL. */
void attnscope_whatif_state_apply (const AttnscopeWhatifState *state, AsForwardOptions *options,
                                   AsIntervention *iv);

/* The heads switched off as the command line's --ablate takes them ("0.3,2.5"), "" for none. */
char *attnscope_whatif_state_dup_spec (const AttnscopeWhatifState *state);

/* Whether STATE (may be NULL) ablates its heads with means: mean ablation chosen and a head
 * switched off (with none off the model is as it is, and a scan makes zero ablation, as the
 * command line's --ablation mean needs --ablate). */
gboolean attnscope_whatif_state_mean (const AttnscopeWhatifState *state);

/* O (zeroed by the caller) for a scan or patching run on the model as STATE changes it (its
 * switched-off heads as the base ablation, its kind and means, its positions); SET is filled to
 * point into STATE, which must outlive O. STATE may be NULL. */
void attnscope_whatif_state_scan_options (const AttnscopeWhatifState *state, AsAblationSet *set,
                                          AsScanOptions *o);

/* "the model as the window changes it" in a sentence for the Ablation page and the patching
 * panel: "the model with heads 0.3, 2.5 switched off (mean ablation over texts.txt)", "the model
 * as it is". Owned. */
char *attnscope_whatif_state_describe (const AttnscopeWhatifState *state);

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

/* Mean ablation with HEAD_MEANS [L][H][hd] and MLP_MEANS [L][D] (as_ablation_means over the
 * texts of MEAN_OVER; taken), or zero ablation again (both NULL). The means belong to the model
 * of the current shape: a new shape drops them. */
void attnscope_whatif_set_means (AttnscopeWhatif *self, float *head_means, float *mlp_means,
                                 const char *mean_over);
/* AS_ABLATION_MEAN needs means (set_means); FALSE (nothing done) without. */
gboolean attnscope_whatif_set_kind (AttnscopeWhatif *self, AsAblationKind kind);
AsAblationKind attnscope_whatif_get_kind (AttnscopeWhatif *self);
/* The file the means were computed over (NULL: none). */
const char *attnscope_whatif_get_mean_over (AttnscopeWhatif *self);

/* Computes the means over PATH's texts (one a line, blank lines skipped, as --mean-over reads
 * them) for MODEL in a thread; _finish sets them (mean ablation) and returns TRUE, or returns
 * FALSE with an error naming the file (unreadable, not UTF-8, no text, a line longer than the
 * context, a translation model) and leaves the state as it was. */
void attnscope_whatif_mean_over_async (AttnscopeWhatif *self, AsModel *model, const char *path,
                                       GCancellable *cancellable, GAsyncReadyCallback callback,
                                       gpointer user_data);
gboolean attnscope_whatif_mean_over_finish (AttnscopeWhatif *self, GAsyncResult *result,
                                            GError **error);

/* "no-positions": the passes leave out position embeddings (or the rotation). */
void attnscope_whatif_set_no_positions (AttnscopeWhatif *self, gboolean no_positions);
gboolean attnscope_whatif_get_no_positions (AttnscopeWhatif *self);

/* The current state (borrowed; never NULL). */
AttnscopeWhatifState *attnscope_whatif_get_state (AttnscopeWhatif *self);

G_END_DECLS
