/* attnscope-thumbnail-stream.h — the heads grid's thumbnails of a long text, computed head by head
 * in the background, the heads visible on screen first.
 *
 * A trace that computes its attention on demand has no matrices to draw the grid from: each
 * head's thumbnail is pooled (attention-thumbnails.h). A stream computes them in a worker thread,
 * one head at a time: first the heads of its priority list (the grid's visible heads, set again
 * when the grid scrolls), then the others layer by layer. ARRIVED is called on the UI thread as
 * heads land (at most every ATTNSCOPE_THUMBNAIL_STREAM_MS), so that the grid draws those there
 * while the others stay placeholders. Freeing the stream (a new text, model or set of switched-off
 * heads: another trace) cancels the worker (ui/README.md, "Attention at long lengths"). */
#pragma once

#include <gtk/gtk.h>

#include "as-trace.h"
#include "attention-figure.h"
#include "attnscope-head-grid-view.h"

G_BEGIN_DECLS

#define ATTNSCOPE_THUMBNAIL_STREAM_MS 100

typedef struct _AttnscopeThumbnailStream AttnscopeThumbnailStream;

/* Starts computing TRACE's thumbnails (a reference is kept). */
AttnscopeThumbnailStream *attnscope_thumbnail_stream_new (AsTrace *trace, GSourceFunc arrived,
                                                          gpointer data);
void attnscope_thumbnail_stream_free (AttnscopeThumbnailStream *self);

AsTrace *attnscope_thumbnail_stream_get_trace (AttnscopeThumbnailStream *self);

/* The N heads HEADS (layer·H + head) are computed next, in this order, before any other. */
void attnscope_thumbnail_stream_prioritise (AttnscopeThumbnailStream *self, const int *heads,
                                            int n);

/* A copy of the thumbnails so far [L][H][P][P] (P = ar_attention_thumbnail_size ()), NaN where a
 * head is not computed yet; *N_DONE the heads computed. g_free it. */
float *attnscope_thumbnail_stream_dup (AttnscopeThumbnailStream *self, int *n_done);

/* All of them when every head is computed (borrowed, until the stream is freed), else NULL. */
const float *attnscope_thumbnail_stream_get_complete (AttnscopeThumbnailStream *self);

/* The heads (layer·H + head) in the order they were computed so far: *N of them (borrowed; valid
 * until the next call into the stream). */
const int *attnscope_thumbnail_stream_get_order (AttnscopeThumbnailStream *self, int *n);

/* The grid of ATTENTION's trace (whose thumbnails are the stream's) while heads are missing:
 * those computed drawn, the others placeholders (NaN: the masked grey); without STATS yet no
 * pattern labels, without ATTENTION's range yet the colours on 0..1. NULL for a cross view. */
ArBuiltFigure *attnscope_thumbnail_stream_build_partial (AttnscopeThumbnailStream *self,
                                                         const ArAttention *attention,
                                                         const AsHeadStats *stats,
                                                         const ArViewSelection *view,
                                                         const ArFigureTexts *texts);

/* The heads of GRID whose thumbnails are at least partly visible in its scrolled window (or in
 * its own allocation), top to bottom: into OUT [L·H], their number returned. */
int attnscope_head_grid_visible_heads (AttnscopeHeadGridView *grid, int *out);

G_END_DECLS
