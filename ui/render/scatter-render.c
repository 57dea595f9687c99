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
#define NATURAL_PANEL_W 400.0
#define NATURAL_PANEL_H 360.0
#define PANEL_GAP 28.0
#define PANEL_TITLE_GAP 6.0

/* One plot: its data range, ticks and rectangle. */
typedef struct
{
  double lo_x, hi_x, lo_y, hi_y; /* data range shown */
  ArTicks ticks_x, ticks_y;
  double tick_w;         /* widest y tick label */
  double px, py, pw, ph; /* plot rectangle */
} Panel;

typedef struct
{
  double title_h, tick_h, axis_h, legend_row_h, panel_title_h;
  int legend_rows;
  int legend_shown; /* groups listed; the rest are summed up as "+ N more" */
  double legend_h;
  int n_panels;
  Panel panels[2];
} Layout;

/* Where the points and their labels are drawn: n = n_panels × n_points entries, the second
 * panel's after the first's. */
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

int
ar_scatter_get_n_panels (const ArScatterFigure *fig)
{
  return fig->xy2 != NULL ? 2 : 1;
}

static const float *
panel_xy (const ArScatterFigure *fig, int panel)
{
  return panel == 0 ? fig->xy : fig->xy2;
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

/* The padded data range of coordinate K (0 = x, 1 = y) of XY. */
static void
data_range (const ArScatterFigure *fig, const float *xy, int k, double *lo, double *hi)
{
  double a = INFINITY, b = -INFINITY;
  for (int i = 0; i < fig->n_points; i++)
    {
      double v = xy[2 * i + k];
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
  lo->n_panels = ar_scatter_get_n_panels (fig);
  if (!has_data (fig))
    return;
  for (int k = 0; k < lo->n_panels; k++)
    {
      Panel *panel = &lo->panels[k];
      data_range (fig, panel_xy (fig, k), 1, &panel->lo_y, &panel->hi_y);
      ar_ticks_compute (&panel->ticks_y, panel->lo_y, panel->hi_y, 6);
      panel->tick_w = widest_tick (pc, style, &panel->ticks_y);
    }
  ar_text_measure (pc, style, "0", AR_FONT_SMALL, PANGO_WEIGHT_NORMAL, NULL, &lo->tick_h);
  ar_text_measure (pc, style, "Ag", AR_FONT_AXIS, PANGO_WEIGHT_NORMAL, NULL, &lo->axis_h);
  lo->legend_row_h = lo->tick_h + LEGEND_ROW_GAP;
  if (lo->n_panels > 1)
    lo->panel_title_h = lo->axis_h + PANEL_TITLE_GAP;
}

/* The room left of a plot: axis name, tick labels, ticks. */
static double
left_of_plot (const Layout *lo, const Panel *panel)
{
  return lo->axis_h + AXIS_GAP + panel->tick_w + TICK_GAP + TICK_LENGTH;
}

static double
left_extent (const Layout *lo)
{
  return MARGIN + left_of_plot (lo, &lo->panels[0]);
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

/* "+ N more": the entry that stands for the groups the legend has no room for. */
static char *
legend_more_text (int n)
{
  return g_strdup_printf ("+ %d more", n);
}

/* Calls FUNC for each legend entry laid out in rows WIDTH wide from (X0, Y0): its group (-1 for
 * "+ N more", whose text is NAME), the dot's centre, where its name starts and its width.
 * Entries fill at most AR_SCATTER_LEGEND_ROWS rows; when the groups do not fit, the last row ends
 * with "+ N more". Returns the number of rows; *SHOWN (may be NULL) = the groups listed. */
typedef void (*LegendFunc) (int g, const char *name, double cx, double cy, double name_x, double w,
                            gpointer data);

static int
legend_walk (PangoContext *pc, const ArRenderStyle *style, const ArScatterFigure *fig,
             const Layout *lo, double width, double x0, double y0, LegendFunc func, gpointer data,
             int *shown)
{
  if (shown != NULL)
    *shown = 0;
  if (!has_legend (fig))
    return 0;
  int n = fig->n_groups;
  g_autofree double *widths = g_new (double, n);
  g_autofree int *row_of = g_new (int, n);
  g_autofree double *x_of = g_new (double, n);
  int rows = 1;
  double x = x0;
  for (int g = 0; g < n; g++)
    {
      widths[g] = MIN (legend_entry_width (pc, style, fig->group_names[g]), width);
      if (x > x0 && x + widths[g] > x0 + width)
        rows++, x = x0;
      row_of[g] = rows, x_of[g] = x;
      x += widths[g] + LEGEND_SPACING;
    }
  int count = n;
  g_autofree char *more = NULL;
  double more_w = 0, more_x = x0;
  int more_row = 0;
  if (rows > AR_SCATTER_LEGEND_ROWS)
    {
      /* Keep the entries of the allowed rows that leave room for "+ N more" after them. */
      count = 0;
      while (count < n && row_of[count] <= AR_SCATTER_LEGEND_ROWS)
        count++;
      for (;;)
        {
          g_free (more);
          more = legend_more_text (n - count);
          more_w = legend_entry_width (pc, style, more) - 2 * POINT_RADIUS - 5;
          if (count == 0)
            {
              more_row = 1, more_x = x0;
              break;
            }
          double end = x_of[count - 1] + widths[count - 1] + LEGEND_SPACING;
          if (end + more_w <= x0 + width)
            {
              more_row = row_of[count - 1], more_x = end;
              break;
            }
          count--;
        }
      rows = more_row;
      for (int g = 0; g < count; g++)
        rows = MAX (rows, row_of[g]);
    }
  if (func != NULL)
    {
      for (int g = 0; g < count; g++)
        func (g, fig->group_names[g], x_of[g] + POINT_RADIUS,
              y0 + (row_of[g] - 0.5) * lo->legend_row_h, x_of[g] + 2 * POINT_RADIUS + 5, widths[g],
              data);
      if (more != NULL)
        func (-1, more, more_x, y0 + (more_row - 0.5) * lo->legend_row_h, more_x, more_w, data);
    }
  if (shown != NULL)
    *shown = count;
  return rows;
}

static void
fit (Layout *lo, PangoContext *pc, const ArRenderStyle *style, const ArScatterFigure *fig,
     double width, double height)
{
  double left0 = round (left_extent (lo));
  double gap = lo->n_panels > 1 ? PANEL_GAP + left_of_plot (lo, &lo->panels[1]) : 0;
  double total = MAX (floor (width - left0 - MARGIN - gap), 0);
  double pw = lo->n_panels > 1 ? floor (total / 2) : total;
  lo->legend_rows = legend_walk (pc, style, fig, lo, width - left0 - MARGIN, 0, 0, NULL, NULL,
                                 &lo->legend_shown);
  lo->legend_h = lo->legend_rows > 0 ? lo->legend_rows * lo->legend_row_h + LEGEND_GAP : 0;
  double py = round (MARGIN + lo->title_h + lo->legend_h + lo->panel_title_h);
  double ph = MAX (floor (height - py - bottom_extent (lo)), 0);
  for (int k = 0; k < lo->n_panels; k++)
    {
      Panel *panel = &lo->panels[k];
      panel->px = k == 0 ? left0 : round (left0 + pw + gap);
      panel->pw = pw;
      panel->py = py;
      panel->ph = ph;
      if (!has_data (fig) || pw <= 0)
        continue;
      data_range (fig, panel_xy (fig, k), 0, &panel->lo_x, &panel->hi_x);
      ar_ticks_compute (&panel->ticks_x, panel->lo_x, panel->hi_x, 6);
    }
}

static void
to_plot (const Panel *lo, double vx, double vy, double *x, double *y)
{
  *x = lo->px + (vx - lo->lo_x) / (lo->hi_x - lo->lo_x) * lo->pw;
  *y = lo->py + lo->ph - (vy - lo->lo_y) / (lo->hi_y - lo->lo_y) * lo->ph;
}

static void
layout_for (Layout *lo, PangoContext *pc, const ArScatterFigure *fig, double width, double height)
{
  const ArRenderStyle *style = ar_render_style_or_default (fig->style);
  measure (lo, pc, style, fig);
  /* the title block wraps to the width instead of being cut */
  lo->title_h = ar_title_block_height_wrapped (pc, style, fig->title, fig->subtitle, width);
  fit (lo, pc, style, fig, width, height);
}

/* The natural width of one plot. */
static double
natural_plot_w (const Layout *lo)
{
  return lo->n_panels > 1 ? NATURAL_PANEL_W : NATURAL_W;
}

void
ar_scatter_get_size (const ArScatterFigure *fig, double *width, double *height)
{
  Layout lo;
  PangoContext *pc = ar_text_context_new ();
  measure (&lo, pc, ar_render_style_or_default (fig->style), fig);
  g_object_unref (pc);
  double w = round (left_extent (&lo)) + natural_plot_w (&lo) + MARGIN;
  if (lo.n_panels > 1)
    w += PANEL_GAP + left_of_plot (&lo, &lo.panels[1]) + natural_plot_w (&lo);
  *width = ceil (w);
  *height = ar_scatter_get_height_for_width (fig, *width);
}

double
ar_scatter_get_height_for_width (const ArScatterFigure *fig, double width)
{
  Layout lo;
  PangoContext *pc = ar_text_context_new ();
  layout_for (&lo, pc, fig, width, 1e7);
  g_object_unref (pc);
  double aspect = lo.n_panels > 1 ? NATURAL_PANEL_H / NATURAL_PANEL_W : NATURAL_H / NATURAL_W;
  return ceil (lo.panels[0].py + lo.panels[0].pw * aspect + bottom_extent (&lo));
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
 * first of them. Points of different panels never coincide: their plots do not overlap. */
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

/* TRUE when BOX covers a drawn point of PROMINENT [N_PROMINENT] (marked or highlighted) other
 * than entry I. */
static gboolean
covers_prominent (const Placement *p, const double *box, int i, const int *prominent,
                  int n_prominent)
{
  double r = POINT_RADIUS + 1.5;
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
 * FALSE takes the first place whatever it covers. */
static gboolean
place_label (Placement *p, const Panel *panel, int i, double w, double h, const int *placed,
             int n_placed, const int *prominent, int n_prominent, gboolean declutter)
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
static gboolean
is_dimmed (const ArScatterFigure *fig, int i)
{
  return fig->dim_unmarked && fig->marked != NULL && !fig->marked[i] && i != fig->highlight_point;
}

/* The order labels are placed in: the highlighted point, the marked points, the rest. */
static int
label_priority (const ArScatterFigure *fig, int i)
{
  if (i == fig->highlight_point)
    return 0;
  return is_marked (fig, i) ? 1 : 2;
}

static void
place_labels (Placement *p, PangoContext *pc, const ArRenderStyle *style,
              const ArScatterFigure *fig, const Layout *lo)
{
  if (!fig->show_labels || fig->labels == NULL)
    return;
  gboolean declutter = fig->label_mode != AR_LABELS_ALL;
  g_autofree int *placed = g_new (int, p->n);
  g_autofree int *prominent = g_new (int, p->n);
  int n_placed = 0, n_prominent = 0, n = fig->n_points;
  for (int k = 0; k < p->n; k++)
    if (label_priority (fig, k % n) < 2 && isfinite (p->x[k]) && isfinite (p->y[k]))
      prominent[n_prominent++] = k;
  PangoLayout *layout = ar_text_layout (pc, style, "", AR_FONT_SMALL, PANGO_WEIGHT_NORMAL, 0);
  for (int pass = 0; pass < 3; pass++)
    for (int k = 0; k < p->n; k++)
      {
        int i = k % n;
        if (label_priority (fig, i) != pass || fig->labels[i] == NULL || !isfinite (p->x[k])
            || !isfinite (p->y[k]))
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

static void
place (Placement *p, PangoContext *pc, const ArScatterFigure *fig, const Layout *lo)
{
  int n = fig->n_points, total = n * lo->n_panels;
  p->n = total;
  p->x = g_new (double, MAX (total, 1)), p->y = g_new (double, MAX (total, 1));
  p->cx = g_new (double, MAX (total, 1)), p->cy = g_new (double, MAX (total, 1));
  p->box = g_new0 (double, 4 * (gsize) MAX (total, 1));
  p->labelled = g_new0 (gboolean, MAX (total, 1));
  if (!has_data (fig) || lo->panels[0].pw <= 0 || lo->panels[0].ph <= 0)
    {
      for (int k = 0; k < total; k++)
        p->x[k] = p->y[k] = p->cx[k] = p->cy[k] = NAN;
      return;
    }
  for (int k = 0; k < total; k++)
    {
      const float *xy = panel_xy (fig, k / n);
      int i = k % n;
      to_plot (&lo->panels[k / n], xy[2 * i], xy[2 * i + 1], &p->x[k], &p->y[k]);
      p->cx[k] = p->x[k], p->cy[k] = p->y[k];
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
draw_panel_axes (cairo_t *cr, PangoContext *pc, const ArRenderStyle *style, const Layout *lo,
                 const Panel *panel, const char *x_axis, const char *y_axis, const char *title)
{
  cairo_set_line_width (cr, 1.0);
  PangoLayout *layout = ar_text_layout (pc, style, "", AR_FONT_SMALL, PANGO_WEIGHT_NORMAL, 0);
  for (int axis = 0; axis < 2; axis++)
    {
      const ArTicks *ticks = axis == 0 ? &panel->ticks_x : &panel->ticks_y;
      for (int i = 0; i < ticks->n; i++)
        {
          double x, y;
          to_plot (panel, axis == 0 ? ticks->values[i] : panel->lo_x,
                   axis == 0 ? panel->lo_y : ticks->values[i], &x, &y);
          ar_render_set_rgb (cr, style->grid);
          if (axis == 0)
            cairo_move_to (cr, round (x) + 0.5, panel->py),
                cairo_line_to (cr, round (x) + 0.5, panel->py + panel->ph);
          else
            cairo_move_to (cr, panel->px, round (y) + 0.5),
                cairo_line_to (cr, panel->px + panel->pw, round (y) + 0.5);
          cairo_stroke (cr);
          ar_render_set_rgb (cr, style->rule);
          if (axis == 0)
            cairo_move_to (cr, round (x) + 0.5, panel->py + panel->ph),
                cairo_rel_line_to (cr, 0, TICK_LENGTH);
          else
            cairo_move_to (cr, panel->px, round (y) + 0.5), cairo_rel_line_to (cr, -TICK_LENGTH, 0);
          cairo_stroke (cr);
          g_autofree char *text = ar_format_number (ticks->values[i], ticks->decimals);
          pango_layout_set_text (layout, text, -1);
          ar_render_set_rgb (cr, style->text);
          if (axis == 0)
            ar_text_draw (cr, layout, x, panel->py + panel->ph + TICK_LENGTH + TICK_GAP, 0.5, 0, 0);
          else
            ar_text_draw (cr, layout, panel->px - TICK_LENGTH - TICK_GAP, y, 1, 0.5, 0);
        }
    }
  g_object_unref (layout);
  ar_render_set_rgb (cr, style->rule);
  cairo_rectangle (cr, panel->px + 0.5, panel->py + 0.5, panel->pw - 1, panel->ph - 1);
  cairo_stroke (cr);

  ar_axis_names_draw (cr, pc, style, x_axis, y_axis, panel->px, panel->py, panel->pw, panel->ph,
                      panel->py + panel->ph + TICK_LENGTH + TICK_GAP + lo->tick_h + AXIS_GAP,
                      panel->px - left_of_plot (lo, panel) + lo->axis_h / 2);
  if (title != NULL)
    {
      PangoLayout *t
          = ar_text_layout (pc, style, title, AR_FONT_AXIS, PANGO_WEIGHT_BOLD, panel->pw);
      ar_render_set_rgb (cr, style->text);
      ar_text_draw (cr, t, panel->px, panel->py - PANEL_TITLE_GAP, 0, 1, 0);
      g_object_unref (t);
    }
}

static void
draw_axes (cairo_t *cr, PangoContext *pc, const ArRenderStyle *style, const ArScatterFigure *fig,
           const Layout *lo)
{
  gboolean two = lo->n_panels > 1;
  draw_panel_axes (cr, pc, style, lo, &lo->panels[0], fig->x_axis, fig->y_axis,
                   two ? fig->panel_titles[0] : NULL);
  if (two)
    draw_panel_axes (cr, pc, style, lo, &lo->panels[1],
                     fig->x_axis2 != NULL ? fig->x_axis2 : fig->x_axis,
                     fig->y_axis2 != NULL ? fig->y_axis2 : fig->y_axis, fig->panel_titles[1]);
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
  int n = fig->n_points;
  cairo_save (cr);
  cairo_set_line_width (cr, 0.75);
  ar_render_set_rgb (cr, style->muted);
  for (int k = 0; k < p->n; k++)
    if (p->x[k] != p->cx[k] || p->y[k] != p->cy[k])
      {
        cairo_move_to (cr, p->cx[k], p->cy[k]);
        cairo_line_to (cr, p->x[k], p->y[k]);
        cairo_stroke (cr);
      }
  cairo_restore (cr);
  /* Dimmed points first, marked and highlighted points last, on top. */
  for (int pass = 3; pass >= 0; pass--)
    for (int k = 0; k < p->n; k++)
      {
        int i = k % n;
        gboolean dimmed = is_dimmed (fig, i);
        if ((dimmed ? 3 : label_priority (fig, i)) != pass || !isfinite (p->x[k])
            || !isfinite (p->y[k]))
          continue;
        gboolean on = i == fig->highlight_point, marked = pass == 1;
        double radius = on || marked ? POINT_RADIUS + 1.5
                        : dimmed     ? POINT_RADIUS - 1
                                     : POINT_RADIUS;
        cairo_arc (cr, p->x[k], p->y[k], radius, 0, 2 * G_PI);
        if (dimmed)
          ar_render_set_rgb (cr, style->muted);
        else
          ar_render_set_color8 (cr, ar_palette_color (group_of (fig, i)));
        cairo_fill_preserve (cr);
        cairo_set_line_width (cr, on || marked ? 2.0 : 1.0);
        ar_render_set_rgb (cr, on ? style->accent : marked ? style->text : style->background);
        cairo_stroke (cr);
      }
  PangoLayout *layout = ar_text_layout (pc, style, "", AR_FONT_SMALL, PANGO_WEIGHT_NORMAL, 0);
  for (int k = 0; k < p->n; k++)
    if (p->labelled[k])
      {
        int i = k % n;
        pango_layout_set_text (layout, fig->labels[i], -1);
        ar_render_set_rgb (cr, i == fig->highlight_point ? style->accent
                               : is_dimmed (fig, i)      ? style->muted
                                                         : style->text);
        ar_text_draw (cr, layout, p->box[4 * k], p->box[4 * k + 1], 0, 0, 0);
      }
  g_object_unref (layout);
}

typedef struct
{
  cairo_t *cr;
  PangoContext *pc;
  const ArRenderStyle *style;
} LegendDraw;

static void
draw_legend_entry (int g, const char *name, double cx, double cy, double name_x, double w,
                   gpointer data)
{
  LegendDraw *d = data;
  if (g >= 0)
    {
      cairo_arc (d->cr, cx, cy, POINT_RADIUS, 0, 2 * G_PI);
      ar_render_set_color8 (d->cr, ar_palette_color (g));
      cairo_fill (d->cr);
    }
  PangoLayout *layout = legend_entry (d->pc, d->style, name);
  if (g >= 0)
    pango_layout_set_width (layout, (int) ((w - 2 * POINT_RADIUS - 5) * PANGO_SCALE));
  ar_render_set_rgb (d->cr, g >= 0 ? d->style->text : d->style->muted);
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
  ar_figure_frame_draw_wrapped (cr, pc, style, fig->title, fig->subtitle, width, height);
  const Panel *first = &lo.panels[0];
  if (has_data (fig) && first->pw > 0 && first->ph > 0)
    {
      Placement p;
      place (&p, pc, fig, &lo);
      draw_axes (cr, pc, style, fig, &lo);
      draw_points (cr, pc, style, fig, &p);
      LegendDraw d = { cr, pc, style };
      legend_walk (pc, style, fig, &lo, width - first->px - MARGIN, first->px,
                   first->py - lo.panel_title_h - lo.legend_h, draw_legend_entry, &d, NULL);
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
  for (int k = 0; k < p.n; k++)
    {
      double d2 = (p.x[k] - x) * (p.x[k] - x) + (p.y[k] - y) * (p.y[k] - y);
      if (d2 <= best_d2)
        best = k, best_d2 = d2;
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
  *x = index >= 0 && index < p.n ? p.x[index] : NAN;
  *y = index >= 0 && index < p.n ? p.y[index] : NAN;
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
  for (int k = 0; k < p.n; k++)
    if (p.labelled[k])
      {
        if (boxes != NULL)
          for (int c = 0; c < 4; c++)
            boxes[4 * n + c] = p.box[4 * k + c];
        if (indices != NULL)
          indices[n] = k;
        n++;
      }
  placement_clear (&p);
  return n;
}

typedef struct
{
  double *boxes;
  int *groups;
  int n;
  double row_h;
} LegendBoxes;

static void
collect_legend_box (int g, const char *name, double cx, double cy, double name_x, double w,
                    gpointer data)
{
  LegendBoxes *b = data;
  if (b->boxes != NULL)
    {
      double x0 = g >= 0 ? cx - POINT_RADIUS : name_x;
      double *box = b->boxes + 4 * b->n;
      box[0] = x0, box[1] = cy - b->row_h / 2, box[2] = w, box[3] = b->row_h;
    }
  if (b->groups != NULL)
    b->groups[b->n] = g;
  b->n++;
}

int
ar_scatter_get_legend_boxes (const ArScatterFigure *fig, double width, double height, double *boxes,
                             int *groups, double *plot)
{
  Layout lo;
  PangoContext *pc = ar_text_context_new ();
  layout_for (&lo, pc, fig, width, height);
  const Panel *first = &lo.panels[0];
  if (plot != NULL)
    plot[0] = first->px, plot[1] = first->py, plot[2] = first->pw, plot[3] = first->ph;
  LegendBoxes b = { boxes, groups, 0, lo.legend_row_h };
  legend_walk (pc, ar_render_style_or_default (fig->style), fig, &lo, width - first->px - MARGIN,
               first->px, first->py - lo.panel_title_h - lo.legend_h, collect_legend_box, &b, NULL);
  g_object_unref (pc);
  return b.n;
}
