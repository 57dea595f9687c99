/* attnscope-view-state.c — the view selection the pages share (see attnscope-view-state.h). */
#include "attnscope-view-state.h"

struct _AttnscopeViewState
{
  GObject parent_instance;

  int n_layers, n_heads, n_tokens;
  int selected_token;
  int layer, head;
  AttnscopeAggregate aggregate;
  ArAttentionKind kind;
  char *colormap;
  gboolean annotate, raw_tokens, autoscale;
  gboolean flags[ATTNSCOPE_VIEW_N_FLAGS];
  ArSegments segments;
};

G_DEFINE_FINAL_TYPE (AttnscopeViewState, attnscope_view_state, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_N_LAYERS,
  PROP_N_HEADS,
  PROP_SELECTED_TOKEN,
  PROP_LAYER,
  PROP_HEAD,
  PROP_AGGREGATE,
  PROP_COLORMAP,
  PROP_ANNOTATE,
  PROP_RAW_TOKENS,
  PROP_AUTOSCALE,
  PROP_ATTENTION_KIND,
  PROP_SEGMENTS,
  PROP_FLAG0, /* one property per AttnscopeViewFlag, in order */
  N_PROPS = PROP_FLAG0 + ATTNSCOPE_VIEW_N_FLAGS
};

static const char *const flag_names[ATTNSCOPE_VIEW_N_FLAGS] = {
  "autoscale-each", "normalize-rows", "log-colors", "pool-words", "align-positions", "pool-mean",
};

static GParamSpec *properties[N_PROPS];

/* Sets *FIELD to VALUE and notifies PROP when it changes. */
static void
set_int (AttnscopeViewState *self, int *field, int value, int prop)
{
  if (*field == value)
    return;
  *field = value;
  g_object_notify_by_pspec (G_OBJECT (self), properties[prop]);
}

void
attnscope_view_state_set_shape (AttnscopeViewState *self, int n_layers, int n_heads, int n_tokens)
{
  g_return_if_fail (ATTNSCOPE_IS_VIEW_STATE (self));
  g_object_freeze_notify (G_OBJECT (self));
  set_int (self, &self->n_layers, MAX (n_layers, 0), PROP_N_LAYERS);
  set_int (self, &self->n_heads, MAX (n_heads, 0), PROP_N_HEADS);
  self->n_tokens = MAX (n_tokens, 0);
  attnscope_view_state_set_layer (self, self->layer);
  attnscope_view_state_set_head (self, self->head);
  if (self->selected_token >= self->n_tokens)
    attnscope_view_state_set_selected_token (self, -1);
  g_object_thaw_notify (G_OBJECT (self));
}

int
attnscope_view_state_get_n_layers (AttnscopeViewState *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_VIEW_STATE (self), 0);
  return self->n_layers;
}

int
attnscope_view_state_get_n_heads (AttnscopeViewState *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_VIEW_STATE (self), 0);
  return self->n_heads;
}

int
attnscope_view_state_get_selected_token (AttnscopeViewState *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_VIEW_STATE (self), -1);
  return self->selected_token;
}

void
attnscope_view_state_set_selected_token (AttnscopeViewState *self, int token)
{
  g_return_if_fail (ATTNSCOPE_IS_VIEW_STATE (self));
  set_int (self, &self->selected_token, token >= 0 && token < self->n_tokens ? token : -1,
           PROP_SELECTED_TOKEN);
}

int
attnscope_view_state_get_layer (AttnscopeViewState *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_VIEW_STATE (self), 0);
  return self->layer;
}

void
attnscope_view_state_set_layer (AttnscopeViewState *self, int layer)
{
  g_return_if_fail (ATTNSCOPE_IS_VIEW_STATE (self));
  set_int (self, &self->layer, CLAMP (layer, 0, MAX (self->n_layers - 1, 0)), PROP_LAYER);
}

int
attnscope_view_state_get_head (AttnscopeViewState *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_VIEW_STATE (self), 0);
  return self->head;
}

void
attnscope_view_state_set_head (AttnscopeViewState *self, int head)
{
  g_return_if_fail (ATTNSCOPE_IS_VIEW_STATE (self));
  set_int (self, &self->head, CLAMP (head, 0, MAX (self->n_heads - 1, 0)), PROP_HEAD);
}

AttnscopeAggregate
attnscope_view_state_get_aggregate (AttnscopeViewState *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_VIEW_STATE (self), ATTNSCOPE_AGGREGATE_HEAD);
  return self->aggregate;
}

void
attnscope_view_state_set_aggregate (AttnscopeViewState *self, AttnscopeAggregate aggregate)
{
  g_return_if_fail (ATTNSCOPE_IS_VIEW_STATE (self));
  if (self->aggregate == aggregate)
    return;
  self->aggregate = aggregate;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_AGGREGATE]);
}

const char *
attnscope_view_state_get_colormap (AttnscopeViewState *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_VIEW_STATE (self), NULL);
  return self->colormap;
}

void
attnscope_view_state_set_colormap (AttnscopeViewState *self, const char *colormap)
{
  g_return_if_fail (ATTNSCOPE_IS_VIEW_STATE (self));
  ArColormap map;
  if (colormap == NULL || g_strcmp0 (self->colormap, colormap) == 0
      || !ar_colormap_from_string (colormap, &map, NULL))
    return;
  g_free (self->colormap);
  self->colormap = g_strdup (colormap);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_COLORMAP]);
}

/* Sets the boolean *FIELD to VALUE and notifies PROP when it changes. */
static void
set_flag (AttnscopeViewState *self, gboolean *field, gboolean value, int prop)
{
  set_int (self, field, !!value, prop);
}

gboolean
attnscope_view_state_get_annotate (AttnscopeViewState *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_VIEW_STATE (self), FALSE);
  return self->annotate;
}

void
attnscope_view_state_set_annotate (AttnscopeViewState *self, gboolean annotate)
{
  g_return_if_fail (ATTNSCOPE_IS_VIEW_STATE (self));
  set_flag (self, &self->annotate, annotate, PROP_ANNOTATE);
}

gboolean
attnscope_view_state_get_raw_tokens (AttnscopeViewState *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_VIEW_STATE (self), FALSE);
  return self->raw_tokens;
}

void
attnscope_view_state_set_raw_tokens (AttnscopeViewState *self, gboolean raw_tokens)
{
  g_return_if_fail (ATTNSCOPE_IS_VIEW_STATE (self));
  set_flag (self, &self->raw_tokens, raw_tokens, PROP_RAW_TOKENS);
}

gboolean
attnscope_view_state_get_autoscale (AttnscopeViewState *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_VIEW_STATE (self), FALSE);
  return self->autoscale;
}

void
attnscope_view_state_set_autoscale (AttnscopeViewState *self, gboolean autoscale)
{
  g_return_if_fail (ATTNSCOPE_IS_VIEW_STATE (self));
  set_flag (self, &self->autoscale, autoscale, PROP_AUTOSCALE);
}

ArAttentionKind
attnscope_view_state_get_attention_kind (AttnscopeViewState *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_VIEW_STATE (self), AR_ATTENTION_SELF);
  return self->kind;
}

void
attnscope_view_state_set_attention_kind (AttnscopeViewState *self, ArAttentionKind kind)
{
  g_return_if_fail (ATTNSCOPE_IS_VIEW_STATE (self));
  kind = CLAMP ((int) kind, AR_ATTENTION_SELF, AR_ATTENTION_CROSS);
  if (self->kind == kind)
    return;
  self->kind = kind;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ATTENTION_KIND]);
}

gboolean
attnscope_view_state_get_flag (AttnscopeViewState *self, AttnscopeViewFlag flag)
{
  g_return_val_if_fail (ATTNSCOPE_IS_VIEW_STATE (self), FALSE);
  g_return_val_if_fail (flag < ATTNSCOPE_VIEW_N_FLAGS, FALSE);
  return self->flags[flag];
}

void
attnscope_view_state_set_flag (AttnscopeViewState *self, AttnscopeViewFlag flag, gboolean value)
{
  g_return_if_fail (ATTNSCOPE_IS_VIEW_STATE (self));
  g_return_if_fail (flag < ATTNSCOPE_VIEW_N_FLAGS);
  set_flag (self, &self->flags[flag], value, PROP_FLAG0 + flag);
}

ArSegments
attnscope_view_state_get_segments (AttnscopeViewState *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_VIEW_STATE (self), AR_SEGMENTS_ALL);
  return self->segments;
}

void
attnscope_view_state_set_segments (AttnscopeViewState *self, ArSegments segments)
{
  g_return_if_fail (ATTNSCOPE_IS_VIEW_STATE (self));
  g_return_if_fail (segments < AR_N_SEGMENTS);
  if (self->segments == segments)
    return;
  self->segments = segments;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SEGMENTS]);
}

void
attnscope_view_state_get_selection (AttnscopeViewState *self, ArViewSelection *selection)
{
  g_return_if_fail (ATTNSCOPE_IS_VIEW_STATE (self));
  ar_view_selection_init (selection);
  selection->layer = self->layer;
  selection->head = self->head;
  selection->aggregate = self->aggregate;
  selection->kind = self->kind;
  selection->selected_token = self->selected_token;
  ar_colormap_from_string (self->colormap, &selection->colormap, NULL);
  selection->annotate = self->annotate ? AR_ANNOTATE_AUTO : AR_ANNOTATE_NEVER;
  selection->raw_tokens = self->raw_tokens;
  selection->autoscale = self->autoscale;
  selection->autoscale_each = self->flags[ATTNSCOPE_VIEW_AUTOSCALE_EACH];
  selection->normalize_rows = self->flags[ATTNSCOPE_VIEW_NORMALIZE_ROWS];
  selection->log_colors = self->flags[ATTNSCOPE_VIEW_LOG_COLORS];
  selection->pool_words = self->flags[ATTNSCOPE_VIEW_POOL_WORDS];
  selection->alignment
      = self->flags[ATTNSCOPE_VIEW_ALIGN_POSITIONS] ? AS_ALIGN_POSITIONS : AS_ALIGN_TOKENS;
  selection->segments = self->segments;
  selection->pool_mean = self->flags[ATTNSCOPE_VIEW_POOL_MEAN];
}

static void
attnscope_view_state_finalize (GObject *object)
{
  g_free (ATTNSCOPE_VIEW_STATE (object)->colormap);
  G_OBJECT_CLASS (attnscope_view_state_parent_class)->finalize (object);
}

static void
attnscope_view_state_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  AttnscopeViewState *self = ATTNSCOPE_VIEW_STATE (object);
  switch (prop_id)
    {
    case PROP_N_LAYERS:
      g_value_set_int (value, self->n_layers);
      break;
    case PROP_N_HEADS:
      g_value_set_int (value, self->n_heads);
      break;
    case PROP_SELECTED_TOKEN:
      g_value_set_int (value, self->selected_token);
      break;
    case PROP_LAYER:
      g_value_set_int (value, self->layer);
      break;
    case PROP_HEAD:
      g_value_set_int (value, self->head);
      break;
    case PROP_AGGREGATE:
      g_value_set_enum (value, self->aggregate);
      break;
    case PROP_COLORMAP:
      g_value_set_string (value, self->colormap);
      break;
    case PROP_ANNOTATE:
      g_value_set_boolean (value, self->annotate);
      break;
    case PROP_RAW_TOKENS:
      g_value_set_boolean (value, self->raw_tokens);
      break;
    case PROP_ATTENTION_KIND:
      g_value_set_int (value, self->kind);
      break;
    case PROP_SEGMENTS:
      g_value_set_string (value, ar_segments_to_string (self->segments));
      break;
    case PROP_AUTOSCALE:
      g_value_set_boolean (value, self->autoscale);
      break;
    default:
      if (prop_id >= PROP_FLAG0 && prop_id < N_PROPS)
        {
          g_value_set_boolean (value, self->flags[prop_id - PROP_FLAG0]);
          break;
        }
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
attnscope_view_state_set_property (GObject *object, guint prop_id, const GValue *value,
                                   GParamSpec *pspec)
{
  AttnscopeViewState *self = ATTNSCOPE_VIEW_STATE (object);
  switch (prop_id)
    {
    case PROP_SELECTED_TOKEN:
      attnscope_view_state_set_selected_token (self, g_value_get_int (value));
      break;
    case PROP_LAYER:
      attnscope_view_state_set_layer (self, g_value_get_int (value));
      break;
    case PROP_HEAD:
      attnscope_view_state_set_head (self, g_value_get_int (value));
      break;
    case PROP_AGGREGATE:
      attnscope_view_state_set_aggregate (self, g_value_get_enum (value));
      break;
    case PROP_COLORMAP:
      attnscope_view_state_set_colormap (self, g_value_get_string (value));
      break;
    case PROP_ANNOTATE:
      attnscope_view_state_set_annotate (self, g_value_get_boolean (value));
      break;
    case PROP_RAW_TOKENS:
      attnscope_view_state_set_raw_tokens (self, g_value_get_boolean (value));
      break;
    case PROP_ATTENTION_KIND:
      attnscope_view_state_set_attention_kind (self, g_value_get_int (value));
      break;
    case PROP_AUTOSCALE:
      attnscope_view_state_set_autoscale (self, g_value_get_boolean (value));
      break;
    case PROP_SEGMENTS:
      {
        ArSegments segments = AR_SEGMENTS_ALL;
        ar_segments_from_string (g_value_get_string (value), &segments);
        attnscope_view_state_set_segments (self, segments);
      }
      break;
    default:
      if (prop_id >= PROP_FLAG0 && prop_id < N_PROPS)
        {
          attnscope_view_state_set_flag (self, prop_id - PROP_FLAG0, g_value_get_boolean (value));
          break;
        }
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

#define RO (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS)
#define RW (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS)

static void
attnscope_view_state_class_init (AttnscopeViewStateClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  object_class->finalize = attnscope_view_state_finalize;
  object_class->get_property = attnscope_view_state_get_property;
  object_class->set_property = attnscope_view_state_set_property;

  properties[PROP_N_LAYERS] = g_param_spec_int ("n-layers", NULL, NULL, 0, G_MAXINT, 0, RO);
  properties[PROP_N_HEADS] = g_param_spec_int ("n-heads", NULL, NULL, 0, G_MAXINT, 0, RO);
  properties[PROP_SELECTED_TOKEN]
      = g_param_spec_int ("selected-token", NULL, NULL, -1, G_MAXINT, -1, RW);
  properties[PROP_LAYER] = g_param_spec_int ("layer", NULL, NULL, 0, G_MAXINT, 0, RW);
  properties[PROP_HEAD] = g_param_spec_int ("head", NULL, NULL, 0, G_MAXINT, 0, RW);
  properties[PROP_AGGREGATE] = g_param_spec_enum ("aggregate", NULL, NULL, ATTNSCOPE_TYPE_AGGREGATE,
                                                  ATTNSCOPE_AGGREGATE_HEAD, RW);
  properties[PROP_COLORMAP] = g_param_spec_string ("colormap", NULL, NULL, "ylgnbu", RW);
  properties[PROP_ANNOTATE] = g_param_spec_boolean ("annotate", NULL, NULL, TRUE, RW);
  properties[PROP_RAW_TOKENS] = g_param_spec_boolean ("raw-tokens", NULL, NULL, FALSE, RW);
  properties[PROP_AUTOSCALE] = g_param_spec_boolean ("autoscale", NULL, NULL, TRUE, RW);
  properties[PROP_ATTENTION_KIND] = g_param_spec_int (
      "attention-kind", NULL, NULL, AR_ATTENTION_SELF, AR_ATTENTION_CROSS, AR_ATTENTION_SELF, RW);
  /* The sentence filter of a pair: "all", "a-a", "a-b", "b-a", "b-b" (segments.h). */
  properties[PROP_SEGMENTS] = g_param_spec_string ("segments", NULL, NULL, "all", RW);
  for (int f = 0; f < ATTNSCOPE_VIEW_N_FLAGS; f++)
    properties[PROP_FLAG0 + f] = g_param_spec_boolean (flag_names[f], NULL, NULL, FALSE, RW);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
attnscope_view_state_init (AttnscopeViewState *self)
{
  self->selected_token = -1;
  self->colormap = g_strdup ("ylgnbu");
  self->annotate = TRUE;
  self->autoscale = TRUE;
}

AttnscopeViewState *
attnscope_view_state_new (void)
{
  return g_object_new (ATTNSCOPE_TYPE_VIEW_STATE, NULL);
}
