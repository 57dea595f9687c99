/* attnscope-grid-drawing.h — the heads grid widget's kept drawing: its frame (title, captions,
 * frames, labels, key, colour bar) and each thumbnail as render nodes of their own, kept while a
 * new figure draws them alike (ar_grid_same_frame, ar_grid_same_thumb).
 *
 * A long text's grid gets a new figure every ATTNSCOPE_THUMBNAIL_STREAM_MS while its heads are
 * computed, each with one or a few more heads than the last. Drawing all thumbnails anew for each
 * (and GTK repainting and sending the whole grid to the display server, as a new node is all
 * damage) kept the UI thread busy; with the kept nodes only the heads that changed are drawn, and
 * GTK, finding the other nodes unchanged, repaints only their squares. */
#pragma once

#include <gtk/gtk.h>

#include "built-figure.h"

G_BEGIN_DECLS

typedef struct _AttnscopeGridDrawing AttnscopeGridDrawing;

AttnscopeGridDrawing *attnscope_grid_drawing_new (void);
void attnscope_grid_drawing_free (AttnscopeGridDrawing *self);

/* Appends to SNAPSHOT the drawing of FIGURE (a grid built figure; its screen copy PARTS) at WIDTH ×
 * HEIGHT: the kept nodes where they draw the same, new ones where not. */
void attnscope_grid_drawing_snapshot (AttnscopeGridDrawing *self, GtkSnapshot *snapshot,
                                      ArBuiltFigure *figure, const ArFigureParts *parts, int width,
                                      int height);

/* How many thumbnails the last snapshot drew anew (the others were kept). */
int attnscope_grid_drawing_get_redrawn (AttnscopeGridDrawing *self);

G_END_DECLS
