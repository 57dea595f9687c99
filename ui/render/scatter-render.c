/* scatter-render.c — layout, point placement, label placement, drawing and hit-testing of the
 * scatter plot (see scatter-render.h). One placement (place) decides where every point and label
 * goes; drawing, hit-testing and the label boxes all start from it. */
#include "scatter-render.h"

#include <math.h>

#include "axis-ticks.h"
#include "colormap.h"
#include "render-text.h"

#define MARGIN AR_FIGURE_MARGIN
#define TICK_LENGTH 4.0
#define TICK_GAP 4.0
#define AXIS_GAP 8.0
#define POINT_RADIUS 4.5
#define PAD 0.08
#define NATURAL_W 480.0
#define NATURAL_H 400.0
#define LEGEND_GAP 10.0
#define LEGEND_SPACING 18.0
#define LEGEND_ROW_GAP 4.0
#define LEGEND_NAME_MAX 260.0
#define LABEL_GAP 3.0

typedef struct
{
  double title_h, tick_h, tick_w, axis_h, legend_row_h;
  int legend_rows;
  double legend_h;
  double lo_x, hi_x, lo_y, hi_y; /* data range shown */
  ArTicks ticks_x, ticks_y;
  double px, py, pw, ph; /* plot rectangle */
} Layout;

/* Where the points and their labels are drawn. */
typedef struct
{
  int n;
  double *x, *y;      /* [n] drawn positions */
  double *cx, *cy;    /* [n] the spot a spread point belongs to (= x, y when alone) */
  double *box;        /* [n][4] label boxes */
  gboolean *labelled; /* [n] */
} Placement;

void
ar_scatter_figure_init (ArScatterFigure *fig)
{
  *fig = (ArScatterFigure){
    .x_axis = "Component 1",
    .y_axis = "Component 2",
    .show_labels = TRUE,
    .label_mode = AR_LABELS_THINNED,
    .n_groups = 1,
    .highlight_point = -1,
  };
}

static gboolean
has_data (const ArScatterFigure *fig)
{
  return fig->xy != NULL && fig->n_points > 0;
}

static gboolean
has_legend (const ArScatterFigure *fig)
{
  return fig->group_names != NULL && fig->n_groups > 1;
}

/* The padded data range of coordinate K (0 = x, 1 = y). */
static void
data_range (const ArScatterFigure *fig, int k, double *lo, double *hi)
{
  double a = INFINITY, b = -INFINITY;
  for (int i = 0; i < fig->n_points; i++)
    {
      double v = fig->xy[2 * i + k];
      if (isfinite (v))
        a = MIN (a, v), b = MAX (b, v);
    }
  if (!isfinite (a))
    a = -1, b = 1;
  if (b - a < 1e-12)
    {
      double pad = MAX (fabs (a) * 0.1, 1.0);
      a -= pad, b += pad;
    }
  double pad = (b - a) * PAD;
  *lo = a - pad;
  *hi = b + pad;
}

static double
widest_tick (PangoContext *pc, const ArRenderStyle *style, const ArTicks *ticks)
{
  double widest = 0, w;
  for (int i = 0; i < ticks->n; i++)
    {
      g_autofree char *text = ar_format_number (ticks->values[i], ticks->decimals);
      ar_text_measure (pc, style, text, AR_FONT_SMALL, PANGO_WEIGHT_NORMAL, &w, NULL);
      widest = MAX (widest, w);
    }
  return ceil (widest);
}

static void
measure (Layout *lo, PangoContext *pc, const ArRenderStyle *style, const ArScatterFigure *fig)
{
  *lo = (Layout){ 0 };
  lo->title_h = ar_title_block_height (pc, style, fig->title, fig->subtitle);
  if (!has_data (fig))
    return;
  data_range (fig, 1, &lo->lo_y, &lo->hi_y);
  ar_ticks_compute (&lo->ticks_y, lo->lo_y, lo->hi_y, 6);
  ar_text_measure (pc, style, "0", AR_FONT_SMALL, PANGO_WEIGHT_NORMAL, NULL, &lo->tick_h);
  lo->tick_w = widest_tick (pc, style, &lo->ticks_y);
  ar_text_measure (pc, style, "Ag", AR_FONT_AXIS, PANGO_WEIGHT_NORMAL, NULL, &lo->axis_h);
  lo->legend_row_h = lo->tick_h + LEGEND_ROW_GAP;
}

static double
left_extent (const Layout *lo)
{
  return MARGIN + lo->axis_h + AXIS_GAP + lo->tick_w + TICK_GAP + TICK_LENGTH;
}

static double
bottom_extent (const Layout *lo)
{
  return TICK_LENGTH + TICK_GAP + lo->tick_h + AXIS_GAP + lo->axis_h + MARGIN;
}

/* A legend entry's layout (name shortened to LEGEND_NAME_MAX). */
static PangoLayout *
legend_entry (PangoContext *pc, const ArRenderStyle *style, const char *name)
{
  return ar_text_layout (pc, style, name, AR_FONT_SMALL, PANGO_WEIGHT_NORMAL, LEGEND_NAME_MAX);
}

static double
legend_entry_width (PangoContext *pc, const ArRenderStyle *style, const char *name)
{
  PangoLayout *layout = legend_entry (pc, style, name);
  double w;
  ar_text_extent (layout, &w, NULL);
  g_object_unref (layout);
  return 2 * POINT_RADIUS + 5 + w;
}

/* Calls FUNC for each legend entry laid out in rows WIDTH wide from (X0, Y0): its group, the
 * dot's centre and where its name starts. Returns the number of rows. */
typedef void (*LegendFunc) (int g, double cx, double cy, double name_x, gpointer data);

static int
legend_walk (PangoContext *pc, const ArRenderStyle *style, const ArScatterFigure *fig,
             const Layout *lo, double width, double x0, double y0, LegendFunc func, gpointer data)
{
  if (!has_legend (fig))
    return 0;
  int rows = 1;
  double x = x0;
  for (int g = 0; g < fig->n_groups; g++)
    {
      double w = legend_entry_width (pc, style, fig->group_names[g]);
      if (x > x0 && x + w > x0 + width)
        rows++, x = x0;
      if (func != NULL)
        func (g, x + POINT_RADIUS, y0 + (rows - 0.5) * lo->legend_row_h, x + 2 * POINT_RADIUS + 5,
              data);
      x += w + LEGEND_SPACING;
    }
  return rows;
}

static void
fit (Layout *lo, PangoContext *pc, const ArRenderStyle *style, const ArScatterFigure *fig,
     double width, double height)
{
  lo->px = round (left_extent (lo));
  lo->pw = MAX (floor (width - lo->px - MARGIN), 0);
  lo->legend_rows = legend_walk (pc, style, fig, lo, lo->pw, 0, 0, NULL, NULL);
  lo->legend_h = lo->legend_rows > 0 ? lo->legend_rows * lo->legend_row_h + LEGEND_GAP : 0;
  lo->py = round (MARGIN + lo->title_h + lo->legend_h);
  lo->ph = MAX (floor (height - lo->py - bottom_extent (lo)), 0);
  if (!has_data (fig) || lo->pw <= 0)
    return;
  data_range (fig, 0, &lo->lo_x, &lo->hi_x);
  ar_ticks_compute (&lo->ticks_x, lo->lo_x, lo->hi_x, 6);
}

static void
to_plot (const Layout *lo, double vx, double vy, double *x, double *y)
{
  *x = lo->px + (vx - lo->lo_x) / (lo->hi_x - lo->lo_x) * lo->pw;
  *y = lo->py + lo->ph - (vy - lo->lo_y) / (lo->hi_y - lo->lo_y) * lo->ph;
}

static void
layout_for (Layout *lo, PangoContext *pc, const ArScatterFigure *fig, double width, double height)
{
  const ArRenderStyle *style = ar_render_style_or_default (fig->style);
  measure (lo, pc, style, fig);
  fit (lo, pc, style, fig, width, height);
}

void
ar_scatter_get_size (const ArScatterFigure *fig, double *width, double *height)
{
  Layout lo;
  PangoContext *pc = ar_text_context_new ();
  measure (&lo, pc, ar_render_style_or_default (fig->style), fig);
  g_object_unref (pc);
  *width = ceil (left_extent (&lo) + NATURAL_W + MARGIN);
  *height = ar_scatter_get_height_for_width (fig, *width);
}

double
ar_scatter_get_height_for_width (const ArScatterFigure *fig, double width)
{
  Layout lo;
  PangoContext *pc = ar_text_context_new ();
  layout_for (&lo, pc, fig, width, 1e7);
  g_object_unref (pc);
  return ceil (lo.py + lo.pw * NATURAL_H / NATURAL_W + bottom_extent (&lo));
}

/* ---- placement ---- */

static void
placement_clear (Placement *p)
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
 * first of them. */
static void
spread_coincident (Placement *p)
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
      double radius = POINT_RADIUS + 2 + (k > 6 ? (k - 6) * 0.8 : 0);
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

/* Tries the places of point I's label of size W × H; sets its box and returns TRUE when one is
 * free. DECLUTTER FALSE takes the first place whatever it covers. */
static gboolean
place_label (Placement *p, const Layout *lo, int i, double w, double h, const int *placed,
             int n_placed, gboolean declutter)
{
  double r = POINT_RADIUS + LABEL_GAP, x = p->x[i], y = p->y[i];
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
      if (box[0] < lo->px || box[1] < lo->py || box[0] + w > lo->px + lo->pw
          || box[1] + h > lo->py + lo->ph)
        continue;
      gboolean free = TRUE;
      for (int k = 0; k < n_placed && free; k++)
        free = !boxes_overlap (box, p->box + 4 * placed[k]);
      if (free)
        return TRUE;
    }
  return FALSE;
}

/* The order labels are placed in: the highlighted point, the marked points, the rest. */
static int
label_priority (const ArScatterFigure *fig, int i)
{
  if (i == fig->highlight_point)
    return 0;
  return fig->marked != NULL && fig->marked[i] ? 1 : 2;
}

static void
place_labels (Placement *p, PangoContext *pc, const ArRenderStyle *style,
              const ArScatterFigure *fig, const Layout *lo)
{
  if (!fig->show_labels || fig->labels == NULL)
    return;
  gboolean declutter = fig->label_mode != AR_LABELS_ALL;
  g_autofree int *placed = g_new (int, p->n);
  int n_placed = 0;
  PangoLayout *layout = ar_text_layout (pc, style, "", AR_FONT_SMALL, PANGO_WEIGHT_NORMAL, 0);
  for (int pass = 0; pass < 3; pass++)
    for (int i = 0; i < p->n; i++)
      {
        if (label_priority (fig, i) != pass || fig->labels[i] == NULL || !isfinite (p->x[i])
            || !isfinite (p->y[i]))
          continue;
        double w, h;
        pango_layout_set_text (layout, fig->labels[i], -1);
        ar_text_extent (layout, &w, &h);
        if (place_label (p, lo, i, w, h, placed, n_placed, declutter))
          {
            p->labelled[i] = TRUE;
            placed[n_placed++] = i;
          }
      }
  g_object_unref (layout);
}

static void
place (Placement *p, PangoContext *pc, const ArScatterFigure *fig, const Layout *lo)
{
  int n = fig->n_points;
  p->n = n;
  p->x = g_new (double, MAX (n, 1)), p->y = g_new (double, MAX (n, 1));
  p->cx = g_new (double, MAX (n, 1)), p->cy = g_new (double, MAX (n, 1));
  p->box = g_new0 (double, 4 * (gsize) MAX (n, 1));
  p->labelled = g_new0 (gboolean, MAX (n, 1));
  if (!has_data (fig) || lo->pw <= 0 || lo->ph <= 0)
    {
      for (int i = 0; i < n; i++)
        p->x[i] = p->y[i] = p->cx[i] = p->cy[i] = NAN;
      return;
    }
  for (int i = 0; i < n; i++)
    {
      to_plot (lo, fig->xy[2 * i], fig->xy[2 * i + 1], &p->x[i], &p->y[i]);
      p->cx[i] = p->x[i], p->cy[i] = p->y[i];
    }
  spread_coincident (p);
  place_labels (p, pc, ar_render_style_or_default (fig->style), fig, lo);
}

/* Layout and placement at WIDTH × HEIGHT with a context of their own. */
static void
place_only (Layout *lo, Placement *p, const ArScatterFigure *fig, double width, double height)
{
  PangoContext *pc = ar_text_context_new ();
  layout_for (lo, pc, fig, width, height);
  place (p, pc, fig, lo);
  g_object_unref (pc);
}

/* ---- drawing ---- */

static void
draw_axes (cairo_t *cr, PangoContext *pc, const ArRenderStyle *style, const ArScatterFigure *fig,
           const Layout *lo)
{
  cairo_set_line_width (cr, 1.0);
  PangoLayout *layout = ar_text_layout (pc, style, "", AR_FONT_SMALL, PANGO_WEIGHT_NORMAL, 0);
  for (int axis = 0; axis < 2; axis++)
    {
      const ArTicks *ticks = axis == 0 ? &lo->ticks_x : &lo->ticks_y;
      for (int i = 0; i < ticks->n; i++)
        {
          double x, y;
          to_plot (lo, axis == 0 ? ticks->values[i] : lo->lo_x,
                   axis == 0 ? lo->lo_y : ticks->values[i], &x, &y);
          ar_render_set_rgb (cr, style->grid);
          if (axis == 0)
            cairo_move_to (cr, round (x) + 0.5, lo->py),
                cairo_line_to (cr, round (x) + 0.5, lo->py + lo->ph);
          else
            cairo_move_to (cr, lo->px, round (y) + 0.5),
                cairo_line_to (cr, lo->px + lo->pw, round (y) + 0.5);
          cairo_stroke (cr);
          ar_render_set_rgb (cr, style->rule);
          if (axis == 0)
            cairo_move_to (cr, round (x) + 0.5, lo->py + lo->ph),
                cairo_rel_line_to (cr, 0, TICK_LENGTH);
          else
            cairo_move_to (cr, lo->px, round (y) + 0.5), cairo_rel_line_to (cr, -TICK_LENGTH, 0);
          cairo_stroke (cr);
          g_autofree char *text = ar_format_number (ticks->values[i], ticks->decimals);
          pango_layout_set_text (layout, text, -1);
          ar_render_set_rgb (cr, style->text);
          if (axis == 0)
            ar_text_draw (cr, layout, x, lo->py + lo->ph + TICK_LENGTH + TICK_GAP, 0.5, 0, 0);
          else
            ar_text_draw (cr, layout, lo->px - TICK_LENGTH - TICK_GAP, y, 1, 0.5, 0);
        }
    }
  g_object_unref (layout);
  ar_render_set_rgb (cr, style->rule);
  cairo_rectangle (cr, lo->px + 0.5, lo->py + 0.5, lo->pw - 1, lo->ph - 1);
  cairo_stroke (cr);

  ar_axis_names_draw (cr, pc, style, fig->x_axis, fig->y_axis, lo->px, lo->py, lo->pw, lo->ph,
                      lo->py + lo->ph + TICK_LENGTH + TICK_GAP + lo->tick_h + AXIS_GAP,
                      MARGIN + lo->axis_h / 2);
}

static int
group_of (const ArScatterFigure *fig, int i)
{
  return fig->groups != NULL ? fig->groups[i] : 0;
}

static void
draw_points (cairo_t *cr, PangoContext *pc, const ArRenderStyle *style, const ArScatterFigure *fig,
             const Placement *p)
{
  cairo_save (cr);
  cairo_set_line_width (cr, 0.75);
  ar_render_set_rgb (cr, style->muted);
  for (int i = 0; i < p->n; i++)
    if (p->x[i] != p->cx[i] || p->y[i] != p->cy[i])
      {
        cairo_move_to (cr, p->cx[i], p->cy[i]);
        cairo_line_to (cr, p->x[i], p->y[i]);
        cairo_stroke (cr);
      }
  cairo_restore (cr);
  /* Marked and highlighted points last, on top. */
  for (int pass = 2; pass >= 0; pass--)
    for (int i = 0; i < p->n; i++)
      {
        if (label_priority (fig, i) != pass || !isfinite (p->x[i]) || !isfinite (p->y[i]))
          continue;
        gboolean on = i == fig->highlight_point, marked = pass == 1;
        cairo_arc (cr, p->x[i], p->y[i], on || marked ? POINT_RADIUS + 1.5 : POINT_RADIUS, 0,
                   2 * G_PI);
        ar_render_set_color8 (cr, ar_palette_color (group_of (fig, i)));
        cairo_fill_preserve (cr);
        cairo_set_line_width (cr, on || marked ? 2.0 : 1.0);
        ar_render_set_rgb (cr, on ? style->accent : marked ? style->text : style->background);
        cairo_stroke (cr);
      }
  PangoLayout *layout = ar_text_layout (pc, style, "", AR_FONT_SMALL, PANGO_WEIGHT_NORMAL, 0);
  for (int i = 0; i < p->n; i++)
    if (p->labelled[i])
      {
        pango_layout_set_text (layout, fig->labels[i], -1);
        ar_render_set_rgb (cr, i == fig->highlight_point ? style->accent : style->text);
        ar_text_draw (cr, layout, p->box[4 * i], p->box[4 * i + 1], 0, 0, 0);
      }
  g_object_unref (layout);
}

typedef struct
{
  cairo_t *cr;
  PangoContext *pc;
  const ArRenderStyle *style;
  const ArScatterFigure *fig;
} LegendDraw;

static void
draw_legend_entry (int g, double cx, double cy, double name_x, gpointer data)
{
  LegendDraw *d = data;
  cairo_arc (d->cr, cx, cy, POINT_RADIUS, 0, 2 * G_PI);
  ar_render_set_color8 (d->cr, ar_palette_color (g));
  cairo_fill (d->cr);
  PangoLayout *layout = legend_entry (d->pc, d->style, d->fig->group_names[g]);
  ar_render_set_rgb (d->cr, d->style->text);
  ar_text_draw (d->cr, layout, name_x, cy, 0, 0.5, 0);
  g_object_unref (layout);
}

void
ar_scatter_render (cairo_t *cr, const ArScatterFigure *fig, double width, double height)
{
  const ArRenderStyle *style = ar_render_style_or_default (fig->style);
  PangoContext *pc = ar_text_context_new ();
  Layout lo;
  layout_for (&lo, pc, fig, width, height);
  cairo_save (cr);
  ar_figure_frame_draw (cr, pc, style, fig->title, fig->subtitle, width, height);
  if (has_data (fig) && lo.pw > 0 && lo.ph > 0)
    {
      Placement p;
      place (&p, pc, fig, &lo);
      draw_axes (cr, pc, style, fig, &lo);
      draw_points (cr, pc, style, fig, &p);
      LegendDraw d = { cr, pc, style, fig };
      legend_walk (pc, style, fig, &lo, lo.pw, lo.px, lo.py - lo.legend_h, draw_legend_entry, &d);
      placement_clear (&p);
    }
  cairo_restore (cr);
  g_object_unref (pc);
}

gboolean
ar_scatter_hit (const ArScatterFigure *fig, double width, double height, double x, double y,
                int *index)
{
  if (!has_data (fig))
    return FALSE;
  Layout lo;
  Placement p;
  place_only (&lo, &p, fig, width, height);
  int best = -1;
  double best_d2 = AR_SCATTER_HIT_RADIUS * AR_SCATTER_HIT_RADIUS;
  for (int i = 0; i < fig->n_points; i++)
    {
      double d2 = (p.x[i] - x) * (p.x[i] - x) + (p.y[i] - y) * (p.y[i] - y);
      if (d2 <= best_d2)
        best = i, best_d2 = d2;
    }
  placement_clear (&p);
  if (best < 0)
    return FALSE;
  *index = best;
  return TRUE;
}

void
ar_scatter_get_point_position (const ArScatterFigure *fig, double width, double height, int index,
                               double *x, double *y)
{
  Layout lo;
  Placement p;
  place_only (&lo, &p, fig, width, height);
  *x = p.x[index];
  *y = p.y[index];
  placement_clear (&p);
}

int
ar_scatter_get_label_boxes (const ArScatterFigure *fig, double width, double height, double *boxes,
                            int *indices)
{
  Layout lo;
  Placement p;
  place_only (&lo, &p, fig, width, height);
  int n = 0;
  for (int i = 0; i < p.n; i++)
    if (p.labelled[i])
      {
        if (boxes != NULL)
          for (int k = 0; k < 4; k++)
            boxes[4 * n + k] = p.box[4 * i + k];
        if (indices != NULL)
          indices[n] = i;
        n++;
      }
  placement_clear (&p);
  return n;
}
