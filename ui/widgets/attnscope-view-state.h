/* attnscope-view-state.h — what every page looks at, whatever the text: the selected token, the
 * layer and head, the aggregation of heads, the colour map, annotation, raw token labels,
 * autoscaled colours and the switches of AttnscopeViewFlag (per-head ranges, row normalisation,
 * log colours, words, the comparison's alignment) and a pair's sentence filter. The GUI's side of
 * ui/render's ArViewSelection.
 *
 * The layer, head and token are clamped to the shape of what is shown (set_shape): layers and
 * heads of the model, tokens of the main trace; a selected token beyond the trace is dropped. */
#pragma once

#include <glib-object.h>

#include "attnscope-types.h"

G_BEGIN_DECLS

#define ATTNSCOPE_TYPE_VIEW_STATE (attnscope_view_state_get_type ())

G_DECLARE_FINAL_TYPE (AttnscopeViewState, attnscope_view_state, ATTNSCOPE, VIEW_STATE, GObject)

AttnscopeViewState *attnscope_view_state_new (void);

/* The limits: N_LAYERS × N_HEADS of the model, N_TOKENS of the main trace (0: none). */
void attnscope_view_state_set_shape (AttnscopeViewState *self, int n_layers, int n_heads,
                                     int n_tokens);
int attnscope_view_state_get_n_layers (AttnscopeViewState *self);
int attnscope_view_state_get_n_heads (AttnscopeViewState *self);

/* The selected token (-1: none). */
int attnscope_view_state_get_selected_token (AttnscopeViewState *self);
void attnscope_view_state_set_selected_token (AttnscopeViewState *self, int token);
int attnscope_view_state_get_layer (AttnscopeViewState *self);
void attnscope_view_state_set_layer (AttnscopeViewState *self, int layer);
int attnscope_view_state_get_head (AttnscopeViewState *self);
void attnscope_view_state_set_head (AttnscopeViewState *self, int head);
AttnscopeAggregate attnscope_view_state_get_aggregate (AttnscopeViewState *self);
void attnscope_view_state_set_aggregate (AttnscopeViewState *self, AttnscopeAggregate aggregate);
/* Colour map name as ui/render knows it ("ylgnbu", "viridis", "magma", "greys"). */
const char *attnscope_view_state_get_colormap (AttnscopeViewState *self);
void attnscope_view_state_set_colormap (AttnscopeViewState *self, const char *colormap);
gboolean attnscope_view_state_get_annotate (AttnscopeViewState *self);
void attnscope_view_state_set_annotate (AttnscopeViewState *self, gboolean annotate);
gboolean attnscope_view_state_get_raw_tokens (AttnscopeViewState *self);
void attnscope_view_state_set_raw_tokens (AttnscopeViewState *self, gboolean raw_tokens);
gboolean attnscope_view_state_get_autoscale (AttnscopeViewState *self);
void attnscope_view_state_set_autoscale (AttnscopeViewState *self, gboolean autoscale);

/* A translation model's attention the attention and heads pages show ("attention-kind", an
 * int): the decoder's self-attention (AR_ATTENTION_SELF), the encoder's, or the
 * cross-attention. Other models show their only self-attention whatever it says. */
ArAttentionKind attnscope_view_state_get_attention_kind (AttnscopeViewState *self);
void attnscope_view_state_set_attention_kind (AttnscopeViewState *self, ArAttentionKind kind);

/* Further switches of the view, each also a boolean property of the name given. */
typedef enum
{
  ATTNSCOPE_VIEW_AUTOSCALE_EACH,  /* "autoscale-each": each head / panel its own colour range */
  ATTNSCOPE_VIEW_NORMALIZE_ROWS,  /* "normalize-rows": attention rows ÷ their maximum */
  ATTNSCOPE_VIEW_LOG_COLORS,      /* "log-colors" */
  ATTNSCOPE_VIEW_POOL_WORDS,      /* "pool-words": words instead of tokens */
  ATTNSCOPE_VIEW_ALIGN_POSITIONS, /* "align-positions": comparisons by position, not by token */
  ATTNSCOPE_VIEW_POOL_MEAN,       /* "pool-mean": a long text's pooled blocks show their mean */
  ATTNSCOPE_VIEW_N_FLAGS,
} AttnscopeViewFlag;

/* The sentence filter of a pair's attention (segments.h), also the string property "segments"
 * ("all", "a-a", "a-b", "b-a", "b-b"; the window's action "win.segments"). */
ArSegments attnscope_view_state_get_segments (AttnscopeViewState *self);
void attnscope_view_state_set_segments (AttnscopeViewState *self, ArSegments segments);

gboolean attnscope_view_state_get_flag (AttnscopeViewState *self, AttnscopeViewFlag flag);
void attnscope_view_state_set_flag (AttnscopeViewState *self, AttnscopeViewFlag flag,
                                    gboolean value);

/* The state as the figure builders take it (annotation AUTO when on, NEVER when off). */
void attnscope_view_state_get_selection (AttnscopeViewState *self, ArViewSelection *selection);

G_END_DECLS
