/* scatter-placement.c — where each point and label of a scatter plot is drawn (see
 * scatter-layout-private.h): points that land on the same spot spread on a small circle around
 * it, labels placed one by one where they neither leave the plot nor cover a label already placed
 * or a marked point. */
#include "scatter-layout-private.h"

#include <math.h>

#include "render-text.h"

#define LABEL_GAP 3.0

void
ar_scatter_placement_clear (ArScatterPlacement *p)
{
  g_free (p->x);
  g_free (p->y);
  g_free (p->cx);
  g_free (p->cy);
  g_free (p->box);
  g_free (p->labelled);
}

/* Orders point indices by their x in XS (ties by index). */
static int
by_x (gconstpointer a, gconstpointer b, gpointer xs)
{
  const float *x = xs;
  double d = x[*(const int *) a] - x[*(const int *) b];
  return d < 0 ? -1 : d > 0 ? 1 : *(const int *) a - *(const int *) b;
}

static int
find_root (int *parent, int i)
{
  while (parent[i] != i)
    i = parent[i] = parent[parent[i]];
  return i;
}

/* Spreads the points of P that coincide (within AR_SCATTER_COINCIDENT) on a circle around the
 * first of them. Points of different panels never coincide: their plots do not overlap. */
static void
spread_coincident (ArScatterPlacement *p)
{
  int n = p->n;
  g_autofree int *order = g_new (int, n);
  g_autofree float *xs = g_new (float, n);
  g_autofree int *parent = g_new (int, n);
  for (int i = 0; i < n; i++)
    order[i] = parent[i] = i, xs[i] = isfinite (p->x[i]) ? (float) p->x[i] : INFINITY;
  g_qsort_with_data (order, n, sizeof (int), by_x, xs);
  for (int a = 0; a < n; a++)
    for (int b = a + 1; b < n && xs[order[b]] - xs[order[a]] <= AR_SCATTER_COINCIDENT; b++)
      if (fabs (p->y[order[a]] - p->y[order[b]]) <= AR_SCATTER_COINCIDENT)
        parent[find_root (parent, order[b])] = find_root (parent, order[a]);
  g_autofree int *count = g_new0 (int, n), *rank = g_new0 (int, n);
  for (int i = 0; i < n; i++)
    rank[i] = count[find_root (parent, i)]++;
  for (int i = 0; i < n; i++)
    {
      int root = find_root (parent, i), k = count[root];
      if (k < 2)
        continue;
      double radius = AR_SCATTER_POINT_RADIUS + 2 + (k > 6 ? (k - 6) * 0.8 : 0);
      double angle = 2 * G_PI * rank[i] / k - G_PI / 2;
      p->cx[i] = p->x[root], p->cy[i] = p->y[root];
      p->x[i] = p->cx[i] + radius * cos (angle);
      p->y[i] = p->cy[i] + radius * sin (angle);
    }
}

static gboolean
boxes_overlap (const double *a, const double *b)
{
  return a[0] < b[0] + b[2] && b[0] < a[0] + a[2] && a[1] < b[1] + b[3] && b[1] < a[1] + a[3];
}

/* TRUE when BOX covers a drawn point of PROMINENT [N_PROMINENT] (marked or highlighted) other
 * than entry I. */
static gboolean
covers_prominent (const ArScatterPlacement *p, const double *box, int i, const int *prominent,
                  int n_prominent)
{
  double r = AR_SCATTER_POINT_RADIUS + 1.5;
  for (int k = 0; k < n_prominent; k++)
    {
      int j = prominent[k];
      if (j == i)
        continue;
      double dot[4] = { p->x[j] - r, p->y[j] - r, 2 * r, 2 * r };
      if (boxes_overlap (box, dot))
        return TRUE;
    }
  return FALSE;
}

/* Tries the places of entry I's label of size W × H inside PANEL; sets its box and returns TRUE
 * when one is free: inside the plot, over no label placed before and no marked point. DECLUTTER
 * FALSE takes the first ar_scatter_place whatever it covers. */
static gboolean
place_label (ArScatterPlacement *p, const ArScatterPanel *panel, int i, double w, double h,
             const int *placed, int n_placed, const int *prominent, int n_prominent,
             gboolean declutter)
{
  double r = AR_SCATTER_POINT_RADIUS + LABEL_GAP, x = p->x[i], y = p->y[i];
  const double candidates[4][2] = {
    { x + r, y - h / 2 },     /* right */
    { x - r - w, y - h / 2 }, /* left */
    { x - w / 2, y - r - h }, /* above */
    { x - w / 2, y + r },     /* below */
  };
  for (int c = 0; c < 4; c++)
    {
      double *box = p->box + 4 * i;
      box[0] = candidates[c][0], box[1] = candidates[c][1], box[2] = w, box[3] = h;
      if (!declutter)
        return TRUE;
      if (box[0] < panel->px || box[1] < panel->py || box[0] + w > panel->px + panel->pw
          || box[1] + h > panel->py + panel->ph)
        continue;
      gboolean free = !covers_prominent (p, box, i, prominent, n_prominent);
      for (int k = 0; k < n_placed && free; k++)
        free = !boxes_overlap (box, p->box + 4 * placed[k]);
      if (free)
        return TRUE;
    }
  return FALSE;
}

static gboolean
is_marked (const ArScatterFigure *fig, int i)
{
  return fig->marked != NULL && fig->marked[i];
}

/* Drawn small and grey: not marked while a word is highlighted. */
gboolean
ar_scatter_is_dimmed (const ArScatterFigure *fig, int i)
{
  return fig->dim_unmarked && fig->marked != NULL && !fig->marked[i] && i != fig->highlight_point;
}

/* The order labels are placed in: the highlighted point, the marked points, the rest. */
int
ar_scatter_label_priority (const ArScatterFigure *fig, int i)
{
  if (i == fig->highlight_point)
    return 0;
  return is_marked (fig, i) ? 1 : 2;
}

static void
place_labels (ArScatterPlacement *p, PangoContext *pc, const ArRenderStyle *style,
              const ArScatterFigure *fig, const ArScatterLayout *lo)
{
  if (!fig->show_labels || fig->labels == NULL)
    return;
  gboolean declutter = fig->label_mode != AR_LABELS_ALL;
  g_autofree int *placed = g_new (int, p->n);
  g_autofree int *prominent = g_new (int, p->n);
  int n_placed = 0, n_prominent = 0, n = fig->n_points;
  for (int k = 0; k < p->n; k++)
    if (ar_scatter_label_priority (fig, k % n) < 2 && isfinite (p->x[k]) && isfinite (p->y[k]))
      prominent[n_prominent++] = k;
  PangoLayout *layout = ar_text_layout (pc, style, "", AR_FONT_SMALL, PANGO_WEIGHT_NORMAL, 0);
  for (int pass = 0; pass < 3; pass++)
    for (int k = 0; k < p->n; k++)
      {
        int i = k % n;
        if (ar_scatter_label_priority (fig, i) != pass || fig->labels[i] == NULL
            || !isfinite (p->x[k]) || !isfinite (p->y[k]))
          continue;
        double w, h;
        pango_layout_set_text (layout, fig->labels[i], -1);
        ar_text_extent (layout, &w, &h);
        if (place_label (p, &lo->panels[k / n], k, w, h, placed, n_placed, prominent, n_prominent,
                         declutter))
          {
            p->labelled[k] = TRUE;
            placed[n_placed++] = k;
          }
      }
  g_object_unref (layout);
}

void
ar_scatter_place (ArScatterPlacement *p, PangoContext *pc, const ArScatterFigure *fig,
                  const ArScatterLayout *lo)
{
  int n = fig->n_points, total = n * lo->n_panels;
  p->n = total;
  p->x = g_new (double, MAX (total, 1)), p->y = g_new (double, MAX (total, 1));
  p->cx = g_new (double, MAX (total, 1)), p->cy = g_new (double, MAX (total, 1));
  p->box = g_new0 (double, 4 * (gsize) MAX (total, 1));
  p->labelled = g_new0 (gboolean, MAX (total, 1));
  if (!ar_scatter_has_data (fig) || lo->panels[0].pw <= 0 || lo->panels[0].ph <= 0)
    {
      for (int k = 0; k < total; k++)
        p->x[k] = p->y[k] = p->cx[k] = p->cy[k] = NAN;
      return;
    }
  for (int k = 0; k < total; k++)
    {
      const float *xy = ar_scatter_panel_xy (fig, k / n);
      int i = k % n;
      ar_scatter_to_plot (&lo->panels[k / n], xy[2 * i], xy[2 * i + 1], &p->x[k], &p->y[k]);
      p->cx[k] = p->x[k], p->cy[k] = p->y[k];
    }
  spread_coincident (p);
  place_labels (p, pc, ar_render_style_or_default (fig->style), fig, lo);
}

/* ArScatterLayout and placement at WIDTH × HEIGHT with a context of their own. */
void
ar_scatter_place_only (ArScatterLayout *lo, ArScatterPlacement *p, const ArScatterFigure *fig,
                       double width, double height)
{
  PangoContext *pc = ar_text_context_new ();
  ar_scatter_layout (lo, pc, fig, width, height);
  ar_scatter_place (p, pc, fig, lo);
  g_object_unref (pc);
}
