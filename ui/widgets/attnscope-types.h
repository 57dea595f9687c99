/* attnscope-types.h — GTypes the GUI needs around the core's plain C types: boxed wrappers for
 * the reference-counted model and trace (so they can be GObject properties) and the enums the
 * views expose as properties (aggregation of heads, vector sources, projection methods: the
 * values of ui/render's and the core's enums). */
#pragma once

#include <glib-object.h>

#include "as-model.h"
#include "as-projection.h"
#include "as-trace-vectors.h"
#include "as-trace.h"
#include "projection-figure.h"
#include "view-selection.h"

G_BEGIN_DECLS

#define ATTNSCOPE_TYPE_MODEL (attnscope_model_get_type ())
#define ATTNSCOPE_TYPE_TRACE (attnscope_trace_get_type ())
#define ATTNSCOPE_TYPE_AGGREGATE (attnscope_aggregate_get_type ())
#define ATTNSCOPE_TYPE_VECTOR_SOURCE (attnscope_vector_source_get_type ())
#define ATTNSCOPE_TYPE_PROJECTION (attnscope_projection_get_type ())

GType attnscope_model_get_type (void) G_GNUC_CONST;
GType attnscope_trace_get_type (void) G_GNUC_CONST;

/* What the attention view shows for a layer: ui/render's ArAggregate, registered as a GEnum. */
typedef ArAggregate AttnscopeAggregate;
#define ATTNSCOPE_AGGREGATE_HEAD AR_AGGREGATE_HEAD
#define ATTNSCOPE_AGGREGATE_MEAN AR_AGGREGATE_MEAN
#define ATTNSCOPE_AGGREGATE_ROLLOUT AR_AGGREGATE_ROLLOUT

GType attnscope_aggregate_get_type (void) G_GNUC_CONST;

/* Same values as the core's AsVectorSource, registered as a GEnum. */
GType attnscope_vector_source_get_type (void) G_GNUC_CONST;

/* The core's AsProjectionMethod, registered as a GEnum. */
typedef AsProjectionMethod AttnscopeProjection;
#define ATTNSCOPE_PROJECTION_PCA AS_PROJECTION_PCA
#define ATTNSCOPE_PROJECTION_TSNE AS_PROJECTION_TSNE
#define ATTNSCOPE_PROJECTION_UMAP AS_PROJECTION_UMAP

GType attnscope_projection_get_type (void) G_GNUC_CONST;

/* The sequential colour maps offered in the UI, in menu order ("ylgnbu", "viridis", "magma",
 * "greys"), and the position of NAME among them (0 when unknown). */
#define ATTNSCOPE_N_COLORMAPS 4
const char *attnscope_colormap_name (guint index);
guint attnscope_colormap_index (const char *name);

/* Binding transforms between an int property and a uint one (a drop-down's "selected"). */
gboolean attnscope_int_to_uint (GBinding *binding, const GValue *from, GValue *to,
                                gpointer user_data);
gboolean attnscope_uint_to_int (GBinding *binding, const GValue *from, GValue *to,
                                gpointer user_data);

G_END_DECLS
