/* attnscope-types.c — boxed and enum GTypes for the core's types (see attnscope-types.h). */
#include "attnscope-types.h"

G_DEFINE_BOXED_TYPE (AsModel, attnscope_model, as_model_ref, as_model_unref)
G_DEFINE_BOXED_TYPE (AsTrace, attnscope_trace, as_trace_ref, as_trace_unref)

G_DEFINE_ENUM_TYPE (AttnscopeAggregate, attnscope_aggregate,
                    G_DEFINE_ENUM_VALUE (ATTNSCOPE_AGGREGATE_HEAD, "head"),
                    G_DEFINE_ENUM_VALUE (ATTNSCOPE_AGGREGATE_MEAN, "mean"),
                    G_DEFINE_ENUM_VALUE (ATTNSCOPE_AGGREGATE_ROLLOUT, "rollout"))

G_DEFINE_ENUM_TYPE (AsVectorSource, attnscope_vector_source,
                    G_DEFINE_ENUM_VALUE (AS_VECTORS_EMBEDDINGS, "embeddings"),
                    G_DEFINE_ENUM_VALUE (AS_VECTORS_CONTEXTS, "contexts"),
                    G_DEFINE_ENUM_VALUE (AS_VECTORS_ATTN_OUT, "attn_out"),
                    G_DEFINE_ENUM_VALUE (AS_VECTORS_HIDDEN, "hidden"),
                    G_DEFINE_ENUM_VALUE (AS_VECTORS_TOKEN_EMBEDDINGS, "token-embeddings"))

G_DEFINE_ENUM_TYPE (AttnscopeProjection, attnscope_projection,
                    G_DEFINE_ENUM_VALUE (ATTNSCOPE_PROJECTION_PCA, "pca"),
                    G_DEFINE_ENUM_VALUE (ATTNSCOPE_PROJECTION_TSNE, "tsne"),
                    G_DEFINE_ENUM_VALUE (ATTNSCOPE_PROJECTION_UMAP, "umap"))

static const char *const colormap_names[ATTNSCOPE_N_COLORMAPS]
    = { "ylgnbu", "viridis", "magma", "greys" };

const char *
attnscope_colormap_name (guint index)
{
  return colormap_names[MIN (index, ATTNSCOPE_N_COLORMAPS - 1)];
}

guint
attnscope_colormap_index (const char *name)
{
  for (guint i = 0; i < ATTNSCOPE_N_COLORMAPS; i++)
    if (g_strcmp0 (name, colormap_names[i]) == 0)
      return i;
  return 0;
}

gboolean
attnscope_int_to_uint (GBinding *binding, const GValue *from, GValue *to, gpointer user_data)
{
  g_value_set_uint (to, (guint) MAX (g_value_get_int (from), 0));
  return TRUE;
}

gboolean
attnscope_uint_to_int (GBinding *binding, const GValue *from, GValue *to, gpointer user_data)
{
  guint value = g_value_get_uint (from);
  if (value > G_MAXINT) /* GTK_INVALID_LIST_POSITION: nothing selected */
    return FALSE;
  g_value_set_int (to, (int) value);
  return TRUE;
}
