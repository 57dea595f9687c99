/* attnscope-grid-drawing.c — the heads grid's kept drawing (see attnscope-grid-drawing.h). */
#include "attnscope-grid-drawing.h"

#include <math.h>

#include "grid-render.h"

/* a frame taller or wider than this is drawn in tiles of it (one texture of a renderer holds at
 * most 16,384 pixels a side) */
#define FRAME_TILE 4096

struct _AttnscopeGridDrawing
{
  /* what the kept nodes draw: FIGURE's screen copy (or one alike) at WIDTH × HEIGHT */
  ArBuiltFigure *figure; /* a reference: DRAWN borrows its arrays */
  ArGridFigure drawn;
  int width, height;
  GskRenderNode *frame;
  GskRenderNode **thumbs; /* [L][H], NULL where none is kept */
  double *rects;          /* [L][H][3] where each kept thumbnail was drawn: x, y, size */
  int n_thumbs;
  int redrawn;
};

AttnscopeGridDrawing *
attnscope_grid_drawing_new (void)
{
  return g_new0 (AttnscopeGridDrawing, 1);
}

static void
forget (AttnscopeGridDrawing *self)
{
  for (int i = 0; i < self->n_thumbs; i++)
    g_clear_pointer (&self->thumbs[i], gsk_render_node_unref);
  g_clear_pointer (&self->thumbs, g_free);
  g_clear_pointer (&self->rects, g_free);
  self->n_thumbs = 0;
  g_clear_pointer (&self->frame, gsk_render_node_unref);
  g_clear_pointer (&self->figure, ar_built_figure_unref);
}

void
attnscope_grid_drawing_free (AttnscopeGridDrawing *self)
{
  if (self == NULL)
    return;
  forget (self);
  g_free (self);
}

typedef struct
{
  AttnscopeGridDrawing *self;
  const ArGridFigure *fig;
  gboolean keep;  /* the kept thumbnails were drawn at this size from a figure of this shape */
  gboolean *seen; /* [L][H] the thumbnails the figure draws */
} ThumbPass;

/* ar_grid_render_parts' target: NULL where the kept node draws the same at the same place, else
 * a new node's context. */
static cairo_t *
thumb_target (gpointer data, int layer, int head, double x, double y, double size)
{
  ThumbPass *pass = data;
  AttnscopeGridDrawing *self = pass->self;
  int e = layer * pass->fig->n_heads + head;
  pass->seen[e] = TRUE;
  double *rect = self->rects + 3 * e;
  if (pass->keep && self->thumbs[e] != NULL && rect[0] == x && rect[1] == y && rect[2] == size
      && ar_grid_same_thumb (&self->drawn, pass->fig, layer, head))
    return NULL;
  g_clear_pointer (&self->thumbs[e], gsk_render_node_unref);
  rect[0] = x, rect[1] = y, rect[2] = size;
  /* the node's bounds: the thumbnail's pixels, rounded out */
  double x0 = floor (x), y0 = floor (y), x1 = ceil (x + size), y1 = ceil (y + size);
  self->thumbs[e] = gsk_cairo_node_new (&GRAPHENE_RECT_INIT (x0, y0, x1 - x0, y1 - y0));
  self->redrawn++;
  return gsk_cairo_node_get_draw_context (self->thumbs[e]);
}

static GskRenderNode *
draw_frame (const ArGridFigure *fig, int width, int height)
{
  GtkSnapshot *inner = gtk_snapshot_new ();
  for (int y = 0; y < height; y += FRAME_TILE)
    for (int x = 0; x < width; x += FRAME_TILE)
      {
        graphene_rect_t tile
            = GRAPHENE_RECT_INIT (x, y, MIN (FRAME_TILE, width - x), MIN (FRAME_TILE, height - y));
        cairo_t *cr = gtk_snapshot_append_cairo (inner, &tile);
        ar_grid_render_parts (cr, fig, width, height, NULL, NULL);
        cairo_destroy (cr);
      }
  return gtk_snapshot_free_to_node (inner);
}

void
attnscope_grid_drawing_snapshot (AttnscopeGridDrawing *self, GtkSnapshot *snapshot,
                                 ArBuiltFigure *figure, const ArFigureParts *parts, int width,
                                 int height)
{
  const ArGridFigure *fig = &parts->grid;
  int n = fig->n_layers * fig->n_heads;
  gboolean same_size = self->figure != NULL && self->width == width && self->height == height;
  gboolean same_shape = same_size && self->n_thumbs == n && self->drawn.n_heads == fig->n_heads;
  if (!same_shape)
    {
      forget (self);
      self->n_thumbs = n;
      self->thumbs = g_new0 (GskRenderNode *, n);
      self->rects = g_new0 (double, 3 * (gsize) MAX (n, 1));
    }
  if (self->frame == NULL || !ar_grid_same_frame (&self->drawn, fig))
    {
      g_clear_pointer (&self->frame, gsk_render_node_unref);
      self->frame = draw_frame (fig, width, height);
    }
  self->redrawn = 0;
  g_autofree gboolean *seen = g_new0 (gboolean, MAX (n, 1));
  ThumbPass pass = { self, fig, same_shape, seen };
  ar_grid_render_parts (NULL, fig, width, height, thumb_target, &pass);
  for (int e = 0; e < n; e++)
    if (!seen[e])
      g_clear_pointer (&self->thumbs[e], gsk_render_node_unref);
  /* every kept node now draws what FIGURE's would: compare with FIGURE from now on */
  ar_built_figure_ref (figure);
  g_clear_pointer (&self->figure, ar_built_figure_unref);
  self->figure = figure;
  self->drawn = *fig;
  self->width = width, self->height = height;

  gtk_snapshot_append_node (snapshot, self->frame);
  for (int e = 0; e < n; e++)
    if (self->thumbs[e] != NULL)
      gtk_snapshot_append_node (snapshot, self->thumbs[e]);
}

int
attnscope_grid_drawing_get_redrawn (AttnscopeGridDrawing *self)
{
  return self->redrawn;
}
