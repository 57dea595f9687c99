/* attnscope-whatif.c — the heads switched off and the positions left out (see
 * attnscope-whatif.h). */
#include "attnscope-whatif.h"

#include <glib/gi18n.h>
#include <string.h>

/* The means of a mean ablation and the file they are over, shared by the states made with them. */
typedef struct
{
  float *head_means; /* [L][H][hd] */
  float *mlp_means;  /* [L][D] */
  char *path;
} Means;

static void
means_clear (Means *means)
{
  g_free (means->head_means);
  g_free (means->mlp_means);
  g_free (means->path);
}

static void
means_unref (Means *means)
{
  g_atomic_rc_box_release_full (means, (GDestroyNotify) means_clear);
}

static void
state_clear (AttnscopeWhatifState *state)
{
  g_free ((gpointer) state->heads);
  g_clear_pointer (&state->means, means_unref);
}

AttnscopeWhatifState *
attnscope_whatif_state_ref (AttnscopeWhatifState *state)
{
  return g_atomic_rc_box_acquire (state);
}

void
attnscope_whatif_state_unref (AttnscopeWhatifState *state)
{
  g_atomic_rc_box_release_full (state, (GDestroyNotify) state_clear);
}

gboolean
attnscope_whatif_state_equal (const AttnscopeWhatifState *a, const AttnscopeWhatifState *b)
{
  gboolean a_pos = a != NULL && a->no_positions, b_pos = b != NULL && b->no_positions;
  int a_off = a != NULL ? a->n_heads_off : 0, b_off = b != NULL ? b->n_heads_off : 0;
  if (a_pos != b_pos || a_off != b_off)
    return FALSE;
  if (a_off == 0)
    return TRUE;
  if (a->kind != b->kind || (a->kind == AS_ABLATION_MEAN && a->means != b->means))
    return FALSE;
  return a->n_layer == b->n_layer && a->n_head == b->n_head
         && memcmp (a->heads, b->heads, (gsize) a->n_layer * a->n_head) == 0;
}

void
attnscope_whatif_state_apply (const AttnscopeWhatifState *state, AsForwardOptions *options,
                              AsIntervention *iv)
{
  if (state == NULL)
    return;
  options->no_positions = state->no_positions;
  if (state->n_heads_off == 0)
    return;
  gboolean mean = attnscope_whatif_state_mean (state);
  *iv = (AsIntervention){
    .heads = state->heads,
    .head_means = mean ? state->head_means : NULL,
    .mlp_means = mean ? state->mlp_means : NULL,
  };
  options->intervention = iv;
}

gboolean
attnscope_whatif_state_mean (const AttnscopeWhatifState *state)
{
  return state != NULL && state->n_heads_off > 0 && state->kind == AS_ABLATION_MEAN;
}

void
attnscope_whatif_state_scan_options (const AttnscopeWhatifState *state, AsAblationSet *set,
                                     AsScanOptions *o)
{
  if (state == NULL)
    return;
  o->no_positions = state->no_positions;
  if (state->n_heads_off == 0)
    return;
  gboolean mean = attnscope_whatif_state_mean (state);
  o->kind = mean ? AS_ABLATION_MEAN : AS_ABLATION_ZERO;
  o->head_means = mean ? state->head_means : NULL;
  o->mlp_means = mean ? state->mlp_means : NULL;
  *set = (AsAblationSet){ .n_layer = state->n_layer,
                          .n_head = state->n_head,
                          .heads = (guint8 *) state->heads,
                          .n_heads_off = state->n_heads_off };
  o->base = set;
}

char *
attnscope_whatif_state_describe (const AttnscopeWhatifState *state)
{
  g_autofree char *spec = attnscope_whatif_state_dup_spec (state);
  gboolean no_positions = state != NULL && state->no_positions;
  if (*spec == '\0')
    return g_strdup (no_positions ? _ ("the model without positions") : _ ("the model as it is"));
  g_autofree char *base = NULL;
  if (attnscope_whatif_state_mean (state))
    {
      g_autofree char *name = g_path_get_basename (state->mean_over);
      /* Translators: the base ablation a scan or patching runs with; %s: heads, then a file */
      base = g_strdup_printf (_ ("the model with heads %s switched off (mean ablation over %s)"),
                              spec, name);
    }
  else
    /* Translators: the base ablation a scan or patching runs with; %s: heads "0.3,2.5" */
    base = g_strdup_printf (_ ("the model with heads %s switched off (zero ablation)"), spec);
  if (!no_positions)
    return g_steal_pointer (&base);
  /* Translators: appended to the description of the model the window changed */
  return g_strdup_printf (_ ("%s, without positions"), base);
}

char *
attnscope_whatif_state_dup_spec (const AttnscopeWhatifState *state)
{
  GString *spec = g_string_new (NULL);
  for (int l = 0; state != NULL && state->n_heads_off > 0 && l < state->n_layer; l++)
    for (int h = 0; h < state->n_head; h++)
      if (state->heads[l * state->n_head + h])
        g_string_append_printf (spec, "%s%d.%d", spec->len > 0 ? "," : "", l, h);
  return g_string_free (spec, FALSE);
}

/* ---- the object ---- */

struct _AttnscopeWhatif
{
  GObject parent_instance;

  int n_layer, n_head;
  guint8 *heads; /* [L][H] */
  int n_heads_off;
  gboolean no_positions;
  AsAblationKind kind;
  Means *means; /* or NULL */
  AttnscopeWhatifState *state;
};

G_DEFINE_FINAL_TYPE (AttnscopeWhatif, attnscope_whatif, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_N_HEADS_OFF,
  PROP_NO_POSITIONS,
  N_PROPS
};

enum
{
  CHANGED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

/* A new state from the object's fields; "changed". */
static void
changed (AttnscopeWhatif *self)
{
  AttnscopeWhatifState *state = g_atomic_rc_box_new0 (AttnscopeWhatifState);
  gsize n = (gsize) self->n_layer * self->n_head;
  *state = (AttnscopeWhatifState){
    .n_layer = self->n_layer,
    .n_head = self->n_head,
    .heads = n > 0 ? g_memdup2 (self->heads, n) : NULL,
    .n_heads_off = self->n_heads_off,
    .no_positions = self->no_positions,
    .kind = self->kind,
  };
  if (self->means != NULL)
    {
      Means *means = g_atomic_rc_box_acquire (self->means);
      state->means = means;
      state->head_means = means->head_means;
      state->mlp_means = means->mlp_means;
      state->mean_over = means->path;
    }
  g_clear_pointer (&self->state, attnscope_whatif_state_unref);
  self->state = state;
  g_signal_emit (self, signals[CHANGED], 0);
}

/* Every head on again (SHAPE: for a model of N_LAYER × N_HEAD, the means dropped). */
static void
clear_heads (AttnscopeWhatif *self, gboolean shape, int n_layer, int n_head)
{
  int was_off = self->n_heads_off;
  g_free (self->heads);
  if (shape)
    {
      g_clear_pointer (&self->means, means_unref);
      self->kind = AS_ABLATION_ZERO;
      self->n_layer = n_layer, self->n_head = n_head;
    }
  self->heads = g_new0 (guint8, MAX ((gsize) self->n_layer * self->n_head, 1));
  self->n_heads_off = 0;
  changed (self);
  if (was_off != 0)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_HEADS_OFF]);
}

void
attnscope_whatif_set_shape (AttnscopeWhatif *self, int n_layer, int n_head)
{
  g_return_if_fail (ATTNSCOPE_IS_WHATIF (self));
  g_return_if_fail (n_layer >= 0 && n_head >= 0);
  clear_heads (self, TRUE, n_layer, n_head);
}

gboolean
attnscope_whatif_toggle_head (AttnscopeWhatif *self, int layer, int head)
{
  g_return_val_if_fail (ATTNSCOPE_IS_WHATIF (self), FALSE);
  if (layer < 0 || layer >= self->n_layer || head < 0 || head >= self->n_head)
    return FALSE;
  guint8 *cell = self->heads + (gsize) layer * self->n_head + head;
  *cell = !*cell;
  self->n_heads_off += *cell ? 1 : -1;
  changed (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_HEADS_OFF]);
  return TRUE;
}

gboolean
attnscope_whatif_get_head (AttnscopeWhatif *self, int layer, int head)
{
  g_return_val_if_fail (ATTNSCOPE_IS_WHATIF (self), FALSE);
  if (layer < 0 || layer >= self->n_layer || head < 0 || head >= self->n_head)
    return FALSE;
  return self->heads[(gsize) layer * self->n_head + head] != 0;
}

int
attnscope_whatif_get_n_heads_off (AttnscopeWhatif *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_WHATIF (self), 0);
  return self->n_heads_off;
}

void
attnscope_whatif_reset (AttnscopeWhatif *self)
{
  g_return_if_fail (ATTNSCOPE_IS_WHATIF (self));
  if (self->n_heads_off == 0)
    return;
  clear_heads (self, FALSE, 0, 0);
}

void
attnscope_whatif_set_means (AttnscopeWhatif *self, float *head_means, float *mlp_means,
                            const char *mean_over)
{
  g_return_if_fail (ATTNSCOPE_IS_WHATIF (self));
  g_clear_pointer (&self->means, means_unref);
  self->kind = AS_ABLATION_ZERO;
  if (head_means != NULL)
    {
      self->means = g_atomic_rc_box_new0 (Means);
      *self->means = (Means){ .head_means = head_means,
                              .mlp_means = mlp_means,
                              .path = g_strdup (mean_over) };
      self->kind = AS_ABLATION_MEAN;
    }
  changed (self);
}

gboolean
attnscope_whatif_set_kind (AttnscopeWhatif *self, AsAblationKind kind)
{
  g_return_val_if_fail (ATTNSCOPE_IS_WHATIF (self), FALSE);
  if (kind == AS_ABLATION_MEAN && self->means == NULL)
    return FALSE;
  if (self->kind != kind)
    {
      self->kind = kind;
      changed (self);
    }
  return TRUE;
}

AsAblationKind
attnscope_whatif_get_kind (AttnscopeWhatif *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_WHATIF (self), AS_ABLATION_ZERO);
  return self->kind;
}

const char *
attnscope_whatif_get_mean_over (AttnscopeWhatif *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_WHATIF (self), NULL);
  return self->means != NULL ? self->means->path : NULL;
}

void
attnscope_whatif_set_no_positions (AttnscopeWhatif *self, gboolean no_positions)
{
  g_return_if_fail (ATTNSCOPE_IS_WHATIF (self));
  no_positions = !!no_positions;
  if (self->no_positions == no_positions)
    return;
  self->no_positions = no_positions;
  changed (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_NO_POSITIONS]);
}

gboolean
attnscope_whatif_get_no_positions (AttnscopeWhatif *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_WHATIF (self), FALSE);
  return self->no_positions;
}

AttnscopeWhatifState *
attnscope_whatif_get_state (AttnscopeWhatif *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_WHATIF (self), NULL);
  return self->state;
}

static void
attnscope_whatif_finalize (GObject *object)
{
  AttnscopeWhatif *self = ATTNSCOPE_WHATIF (object);
  g_free (self->heads);
  g_clear_pointer (&self->means, means_unref);
  g_clear_pointer (&self->state, attnscope_whatif_state_unref);
  G_OBJECT_CLASS (attnscope_whatif_parent_class)->finalize (object);
}

static void
attnscope_whatif_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  AttnscopeWhatif *self = ATTNSCOPE_WHATIF (object);
  switch (prop_id)
    {
    case PROP_N_HEADS_OFF:
      g_value_set_int (value, self->n_heads_off);
      break;
    case PROP_NO_POSITIONS:
      g_value_set_boolean (value, self->no_positions);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
attnscope_whatif_set_property (GObject *object, guint prop_id, const GValue *value,
                               GParamSpec *pspec)
{
  AttnscopeWhatif *self = ATTNSCOPE_WHATIF (object);
  switch (prop_id)
    {
    case PROP_NO_POSITIONS:
      attnscope_whatif_set_no_positions (self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
attnscope_whatif_class_init (AttnscopeWhatifClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  object_class->finalize = attnscope_whatif_finalize;
  object_class->get_property = attnscope_whatif_get_property;
  object_class->set_property = attnscope_whatif_set_property;

  properties[PROP_N_HEADS_OFF]
      = g_param_spec_int ("n-heads-off", NULL, NULL, 0, G_MAXINT, 0,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_NO_POSITIONS]
      = g_param_spec_boolean ("no-positions", NULL, NULL, FALSE,
                              G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
  /* A new state: a head switched off or on, the shape, the kind or means, the positions. */
  signals[CHANGED] = g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                                   NULL, NULL, G_TYPE_NONE, 0);
}

static void
attnscope_whatif_init (AttnscopeWhatif *self)
{
  self->heads = g_new0 (guint8, 1);
  self->state = g_atomic_rc_box_new0 (AttnscopeWhatifState);
}

AttnscopeWhatif *
attnscope_whatif_new (void)
{
  return g_object_new (ATTNSCOPE_TYPE_WHATIF, NULL);
}
