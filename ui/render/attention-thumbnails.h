/* attention-thumbnails.h — the heads grid's thumbnails of a trace that computes its attention on
 * demand: every head pooled to at most AR_THUMBNAIL_CELLS blocks a side, each block the largest
 * weight it covers (as-attention-pool.h), so a one-token pattern stays visible in a small picture.
 * Up to AR_THUMBNAIL_CELLS tokens a block is one entry: the thumbnails are the matrices
 * themselves, and the grid draws the same pixels as from a trace that holds them. */
#pragma once

#include <gio/gio.h>

#include "as-trace.h"

G_BEGIN_DECLS

#define AR_THUMBNAIL_CELLS 128

/* Blocks a side of TRACE's thumbnails: min(T, AR_THUMBNAIL_CELLS) rounded as the pooling does. */
int ar_attention_thumbnail_size (const AsTrace *trace);

/* Every head of TRACE pooled into OUT [L][H][P][P], P = ar_attention_thumbnail_size (). Heads are
 * computed in the order ORDER [L·H] gives (layer·H + head; NULL: layer by layer); after each,
 * *PUBLISHED (when not NULL; atomic) counts the heads of ORDER done, so that another thread may
 * draw those already there. FALSE when CANCELLABLE was cancelled. */
gboolean ar_attention_thumbnails (float *out, const AsTrace *trace, const int *order,
                                  gint *published, GCancellable *cancellable);

/* The same into a new array (g_free it); NULL when cancelled. */
float *ar_attention_thumbnails_new (const AsTrace *trace, GCancellable *cancellable);

G_END_DECLS
