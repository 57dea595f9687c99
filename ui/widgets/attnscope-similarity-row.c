/* attnscope-similarity-row.c — a table row with its values as properties, so column view cells
 * and sorters can read them (see attnscope-similarity-row.h). */
#include "attnscope-similarity-row.h"

struct _AttnscopeSimilarityRow
{
  GObject parent_instance;
  int index;
  char *token;
  double similarity;
  double attention;
  gboolean masked; /* the selected token cannot attend to this one (a causal model's later one) */
};

G_DEFINE_FINAL_TYPE (AttnscopeSimilarityRow, attnscope_similarity_row, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_INDEX,
  PROP_TOKEN,
  PROP_SIMILARITY,
  PROP_ATTENTION,
  PROP_MASKED,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

int
attnscope_similarity_row_get_index (AttnscopeSimilarityRow *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_SIMILARITY_ROW (self), -1);
  return self->index;
}

const char *
attnscope_similarity_row_get_token (AttnscopeSimilarityRow *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_SIMILARITY_ROW (self), NULL);
  return self->token;
}

double
attnscope_similarity_row_get_similarity (AttnscopeSimilarityRow *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_SIMILARITY_ROW (self), 0);
  return self->similarity;
}

double
attnscope_similarity_row_get_attention (AttnscopeSimilarityRow *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_SIMILARITY_ROW (self), 0);
  return self->attention;
}

gboolean
attnscope_similarity_row_get_masked (AttnscopeSimilarityRow *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_SIMILARITY_ROW (self), FALSE);
  return self->masked;
}

static void
attnscope_similarity_row_finalize (GObject *object)
{
  g_free (ATTNSCOPE_SIMILARITY_ROW (object)->token);
  G_OBJECT_CLASS (attnscope_similarity_row_parent_class)->finalize (object);
}

static void
attnscope_similarity_row_get_property (GObject *object, guint prop_id, GValue *value,
                                       GParamSpec *pspec)
{
  AttnscopeSimilarityRow *self = ATTNSCOPE_SIMILARITY_ROW (object);
  switch (prop_id)
    {
    case PROP_INDEX:
      g_value_set_int (value, self->index);
      break;
    case PROP_TOKEN:
      g_value_set_string (value, self->token);
      break;
    case PROP_SIMILARITY:
      g_value_set_double (value, self->similarity);
      break;
    case PROP_ATTENTION:
      g_value_set_double (value, self->attention);
      break;
    case PROP_MASKED:
      g_value_set_boolean (value, self->masked);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
attnscope_similarity_row_class_init (AttnscopeSimilarityRowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  object_class->finalize = attnscope_similarity_row_finalize;
  object_class->get_property = attnscope_similarity_row_get_property;

  GParamFlags ro = G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;
  properties[PROP_INDEX] = g_param_spec_int ("index", NULL, NULL, 0, G_MAXINT, 0, ro);
  properties[PROP_TOKEN] = g_param_spec_string ("token", NULL, NULL, NULL, ro);
  properties[PROP_SIMILARITY]
      = g_param_spec_double ("similarity", NULL, NULL, -G_MAXDOUBLE, G_MAXDOUBLE, 0, ro);
  properties[PROP_ATTENTION]
      = g_param_spec_double ("attention", NULL, NULL, -G_MAXDOUBLE, G_MAXDOUBLE, 0, ro);
  properties[PROP_MASKED] = g_param_spec_boolean ("masked", NULL, NULL, FALSE, ro);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
attnscope_similarity_row_init (AttnscopeSimilarityRow *self)
{
}

AttnscopeSimilarityRow *
attnscope_similarity_row_new (int index, const char *token, double similarity, double attention,
                              gboolean masked)
{
  AttnscopeSimilarityRow *self = g_object_new (ATTNSCOPE_TYPE_SIMILARITY_ROW, NULL);
  attnscope_similarity_row_set (self, index, token, similarity, attention, masked);
  return self;
}

void
attnscope_similarity_row_set (AttnscopeSimilarityRow *self, int index, const char *token,
                              double similarity, double attention, gboolean masked)
{
  g_return_if_fail (ATTNSCOPE_IS_SIMILARITY_ROW (self));
  /* No freeze/thaw: a thousand rows, of which only the few on screen have handlers. */
  if (self->index != index)
    {
      self->index = index;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_INDEX]);
    }
  if (g_strcmp0 (self->token, token) != 0)
    {
      g_free (self->token);
      self->token = g_strdup (token);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TOKEN]);
    }
  if (self->similarity != similarity)
    {
      self->similarity = similarity;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SIMILARITY]);
    }
  if (self->attention != attention)
    {
      self->attention = attention;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ATTENTION]);
    }
  if (self->masked != !!masked)
    {
      self->masked = !!masked;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MASKED]);
    }
}
