/* alignment-render.c — source and target tokens linked by cross-attention (see
 * alignment-render.h). */
#include "alignment-render.h"

#include <glib/gi18n-lib.h>
#include <math.h>

#include "render-text.h"

#define BOX_PAD_X 6.0    /* text to the box's side */
#define BOX_PAD_Y 4.0    /* text to the box's top and bottom */
#define BOX_GAP 8.0      /* between two boxes of a line */
#define LINK_BAND 150.0  /* between the lines */
#define CAPTION_GAP 14.0 /* caption to the first box */
#define TITLE_GAP 16.0   /* title block to the source line */
#define MAX_LABEL 140.0  /* longer labels are ellipsized */
#define NOTE_GAP 10.0    /* target line to the thinning note */

void
ar_alignment_figure_init (ArAlignmentFigure *fig)
{
  *fig = (ArAlignmentFigure){ .vmax = 1, .highlight_source = -1, .highlight_target = -1 };
}

/* Where everything goes: the lines in their own units (scaled by SCALE from (X0, Y0)). */
typedef struct
{
  double title_h, caption_w, box_h;
  double *source_x, *source_w; /* [S] left edge and width of each box, line units */
  double *target_x, *target_w; /* [T] */
  double lines_w;              /* the wider line */
  double note_h;               /* the thinning note under the target line, 0 without */
  double x0, y0, scale;        /* after fit () */
  double inner_w;              /* room for the lines, line units */
} Layout;

static void
layout_clear (Layout *lo)
{
  g_free (lo->source_x);
  g_free (lo->source_w);
  g_free (lo->target_x);
  g_free (lo->target_w);
}

static gboolean
has_data (const ArAlignmentFigure *fig)
{
  return fig->n_source > 0 && fig->n_target > 0 && fig->weights != NULL
         && fig->source_labels != NULL && fig->target_labels != NULL;
}

/* Box widths of LABELS [N] into W [N]; returns the line's width. */
static double
measure_line (PangoContext *pc, const ArRenderStyle *style, const char *const *labels, int n,
              double *w)
{
  double total = 0;
  for (int k = 0; k < n; k++)
    {
      double tw = 0;
      ar_text_measure (pc, style, labels[k], AR_FONT_TICK, PANGO_WEIGHT_BOLD, &tw, NULL);
      w[k] = MIN (tw, MAX_LABEL) + 2 * BOX_PAD_X;
      total += w[k] + (k > 0 ? BOX_GAP : 0);
    }
  return total;
}

/* The boxes of a line WIDTH wide into X [N], on the wider line's LINES_W: centred, or, when the
 * line is less than half as wide (a 31-token translation of a 997-token source), spread evenly
 * over the whole width, so that its tokens stand under the part of the source they come from
 * instead of all in the middle. */
static void
place_line (double *x, const double *w, int n, double width, double lines_w)
{
  gboolean spread = n > 1 && width < lines_w / 2;
  double gap = spread ? BOX_GAP + (lines_w - width) / (n - 1) : BOX_GAP;
  double at = spread ? 0 : (lines_w - width) / 2;
  for (int k = 0; k < n; k++)
    x[k] = at, at += w[k] + gap;
}

int
ar_alignment_links_per_target (const ArAlignmentFigure *fig)
{
  return fig->n_source > AR_ALIGNMENT_DENSE_SOURCE ? AR_ALIGNMENT_LINKS_PER_TARGET : 0;
}

static char *
thinning_note (const ArAlignmentFigure *fig)
{
  return g_strdup_printf (_ ("Each target token's %d strongest links of %d; point at a token for "
                             "all of its links"),
                          ar_alignment_links_per_target (fig), fig->n_source);
}

static void
measure (Layout *lo, PangoContext *pc, const ArRenderStyle *style, const ArAlignmentFigure *fig)
{
  *lo = (Layout){ .scale = 1 };
  lo->title_h = ar_title_block_height (pc, style, fig->title, fig->subtitle);
  if (!has_data (fig))
    return;
  double th = 0;
  ar_text_measure (pc, style, "Ag", AR_FONT_TICK, PANGO_WEIGHT_BOLD, NULL, &th);
  lo->box_h = th + 2 * BOX_PAD_Y;
  const char *captions[] = { fig->source_caption, fig->target_caption };
  for (int k = 0; k < 2; k++)
    if (captions[k] != NULL)
      {
        double cw = 0;
        ar_text_measure (pc, style, captions[k], AR_FONT_AXIS, PANGO_WEIGHT_NORMAL, &cw, NULL);
        lo->caption_w = MAX (lo->caption_w, cw + CAPTION_GAP);
      }
  lo->source_x = g_new (double, fig->n_source);
  lo->source_w = g_new (double, fig->n_source);
  lo->target_x = g_new (double, fig->n_target);
  lo->target_w = g_new (double, fig->n_target);
  double sw = measure_line (pc, style, fig->source_labels, fig->n_source, lo->source_w);
  double tw = measure_line (pc, style, fig->target_labels, fig->n_target, lo->target_w);
  lo->lines_w = MAX (sw, tw);
  place_line (lo->source_x, lo->source_w, fig->n_source, sw, lo->lines_w);
  place_line (lo->target_x, lo->target_w, fig->n_target, tw, lo->lines_w);
  if (ar_alignment_links_per_target (fig) > 0)
    {
      double nh = 0;
      g_autofree char *note = thinning_note (fig);
      ar_text_measure (pc, style, note, AR_FONT_AXIS, PANGO_WEIGHT_NORMAL, NULL, &nh);
      lo->note_h = NOTE_GAP + nh;
    }
}

static double
lines_height (const Layout *lo)
{
  return 2 * lo->box_h + LINK_BAND + lo->note_h;
}

static double
top_of_lines (const Layout *lo)
{
  return AR_FIGURE_MARGIN + lo->title_h + (lo->title_h > 0 ? TITLE_GAP : 0);
}

/* The title block wrapped to a figure WIDTH wide, instead of cut. */
static void
wrap_title (Layout *lo, PangoContext *pc, const ArRenderStyle *style, const ArAlignmentFigure *fig,
            double width)
{
  lo->title_h = ar_title_block_height_wrapped (pc, style, fig->title, fig->subtitle, width);
}

/* Scales the lines to fit WIDTH × HEIGHT (never above their natural size) and centres them. */
static void
fit (Layout *lo, double width, double height)
{
  double room_w = width - 2 * AR_FIGURE_MARGIN - lo->caption_w;
  double room_h = height - top_of_lines (lo) - AR_FIGURE_MARGIN;
  lo->scale = 1;
  if (lo->lines_w > 0 && room_w < lo->lines_w)
    lo->scale = room_w / lo->lines_w;
  if (lines_height (lo) > 0 && room_h < lines_height (lo) * lo->scale)
    lo->scale = room_h / lines_height (lo);
  lo->scale = MAX (lo->scale, 0.01);
  lo->inner_w = room_w / lo->scale;
  lo->x0 = AR_FIGURE_MARGIN + lo->caption_w + MAX (0, (room_w - lo->lines_w * lo->scale) / 2);
  lo->y0 = top_of_lines (lo);
}

static void
layout_at (Layout *lo, const ArAlignmentFigure *fig, double width, double height)
{
  const ArRenderStyle *style = ar_render_style_or_default (fig->style);
  PangoContext *pc = ar_text_context_new ();
  measure (lo, pc, style, fig);
  wrap_title (lo, pc, style, fig, width);
  fit (lo, width, height);
  g_object_unref (pc);
}

void
ar_alignment_get_size (const ArAlignmentFigure *fig, double *width, double *height)
{
  Layout lo;
  const ArRenderStyle *style = ar_render_style_or_default (fig->style);
  PangoContext *pc = ar_text_context_new ();
  measure (&lo, pc, style, fig);
  double w = 2 * AR_FIGURE_MARGIN + lo.caption_w + lo.lines_w;
  if (lo.title_h > 0)
    {
      /* wide enough for the title block */
      double tw = 0, sw = 0;
      if (fig->title != NULL)
        ar_text_measure (pc, style, fig->title, AR_FONT_TITLE, PANGO_WEIGHT_BOLD, &tw, NULL);
      if (fig->subtitle != NULL)
        ar_text_measure (pc, style, fig->subtitle, AR_FONT_SUBTITLE, PANGO_WEIGHT_NORMAL, &sw,
                         NULL);
      w = MAX (w, 2 * AR_FIGURE_MARGIN + MAX (tw, sw));
    }
  *width = ceil (MAX (w, 320));
  *height = ceil (top_of_lines (&lo) + lines_height (&lo) + AR_FIGURE_MARGIN);
  layout_clear (&lo);
  g_object_unref (pc);
}

double
ar_alignment_get_height_for_width (const ArAlignmentFigure *fig, double width)
{
  Layout lo;
  layout_at (&lo, fig, width, G_MAXDOUBLE);
  double h = ceil (lo.y0 + lines_height (&lo) * lo.scale + AR_FIGURE_MARGIN);
  layout_clear (&lo);
  return h;
}

double
ar_alignment_link_strength (const ArAlignmentFigure *fig, int i, int j)
{
  double w = fig->weights[(gsize) i * fig->n_source + j];
  double a = fig->vmax > 0 && isfinite (w) ? CLAMP (w / fig->vmax, 0, 1) : 0;
  return a < AR_ALIGNMENT_MIN_LINK ? 0 : a;
}

/* One link, line units: from the bottom of source box J to the top of target box I. */
static void
draw_link (cairo_t *cr, const Layout *lo, int i, int j, ArRgb color, double alpha, double a)
{
  double x1 = lo->source_x[j] + lo->source_w[j] / 2, y1 = lo->box_h;
  double x2 = lo->target_x[i] + lo->target_w[i] / 2, y2 = lo->box_h + LINK_BAND;
  double mid = (y1 + y2) / 2;
  cairo_move_to (cr, x1, y1);
  cairo_curve_to (cr, x1, mid, x2, mid, x2, y2);
  cairo_set_source_rgba (cr, color.r, color.g, color.b, alpha);
  cairo_set_line_width (cr, 0.75 + 4.25 * a);
  cairo_stroke (cr);
}

/* FLOOR [T]: with a dense source, the strength of each target token's K-th strongest link (links
 * weaker than it are left out unless highlighted); 0 otherwise. */
static void
thinning_floor (double *floor, const ArAlignmentFigure *fig)
{
  int k = ar_alignment_links_per_target (fig);
  g_autofree double *row = g_new (double, fig->n_source);
  for (int i = 0; i < fig->n_target; i++)
    {
      floor[i] = 0;
      if (k <= 0)
        continue;
      /* the K largest by partial selection: K passes over the row */
      for (int j = 0; j < fig->n_source; j++)
        row[j] = ar_alignment_link_strength (fig, i, j);
      double last = G_MAXDOUBLE;
      for (int pass = 0; pass < k; pass++)
        {
          double best = 0;
          for (int j = 0; j < fig->n_source; j++)
            if (row[j] < last && row[j] > best)
              best = row[j];
          if (best <= 0)
            break;
          last = best;
        }
      floor[i] = last == G_MAXDOUBLE ? 0 : last;
    }
}

static void
draw_links (cairo_t *cr, const ArRenderStyle *style, const ArAlignmentFigure *fig, const Layout *lo)
{
  gboolean any = fig->highlight_source >= 0 || fig->highlight_target >= 0;
  g_autofree double *floor = g_new (double, fig->n_target);
  thinning_floor (floor, fig);
  cairo_set_line_cap (cr, CAIRO_LINE_CAP_ROUND);
  /* the faded or ordinary links first, the highlighted ones on top */
  for (int pass = 0; pass < 2; pass++)
    for (int i = 0; i < fig->n_target; i++)
      for (int j = 0; j < fig->n_source; j++)
        {
          gboolean on = (j == fig->highlight_source) || (i == fig->highlight_target);
          if (on != (pass == 1))
            continue;
          double a = ar_alignment_link_strength (fig, i, j);
          if (a <= 0 || (!on && a < floor[i]))
            continue;
          double alpha = on ? 0.25 + 0.75 * a : (any ? 0.12 : 0.9) * a;
          draw_link (cr, lo, i, j, on ? style->accent : style->text, alpha, a);
        }
}

static void
draw_line (cairo_t *cr, PangoContext *pc, const ArRenderStyle *style, const char *const *labels,
           int n, const double *x, const double *w, double y, double box_h, int highlight)
{
  for (int k = 0; k < n; k++)
    {
      gboolean on = k == highlight;
      cairo_rectangle (cr, x[k], y, w[k], box_h);
      if (style->paint_background)
        {
          ar_render_set_rgb (cr, style->background);
          cairo_fill_preserve (cr);
        }
      cairo_set_line_width (cr, on ? 2.0 : 1.0);
      ar_render_set_rgb (cr, on ? style->accent : style->rule);
      cairo_stroke (cr);
      PangoLayout *layout
          = ar_text_layout (pc, style, labels[k], AR_FONT_TICK,
                            on ? PANGO_WEIGHT_BOLD : PANGO_WEIGHT_NORMAL, MAX_LABEL);
      ar_render_set_rgb (cr, on ? style->accent : style->text);
      ar_text_draw (cr, layout, x[k] + w[k] / 2, y + box_h / 2, 0.5, 0.5, 0);
      g_object_unref (layout);
    }
}

void
ar_alignment_render (cairo_t *cr, const ArAlignmentFigure *fig, double width, double height)
{
  const ArRenderStyle *style = ar_render_style_or_default (fig->style);
  PangoContext *pc = ar_text_context_new ();
  Layout lo;
  measure (&lo, pc, style, fig);
  wrap_title (&lo, pc, style, fig, width);
  fit (&lo, width, height);
  cairo_save (cr);
  ar_figure_frame_draw_wrapped (cr, pc, style, fig->title, fig->subtitle, width, height);
  if (has_data (fig))
    {
      const char *captions[] = { fig->source_caption, fig->target_caption };
      double ys[]
          = { lo.y0 + lo.box_h * lo.scale / 2, lo.y0 + (lo.box_h * 1.5 + LINK_BAND) * lo.scale };
      for (int k = 0; k < 2; k++)
        if (captions[k] != NULL)
          {
            PangoLayout *layout
                = ar_text_layout (pc, style, captions[k], AR_FONT_AXIS, PANGO_WEIGHT_NORMAL, 0);
            ar_render_set_rgb (cr, style->muted);
            ar_text_draw (cr, layout, AR_FIGURE_MARGIN, ys[k], 0, 0.5, 0);
            g_object_unref (layout);
          }
      cairo_save (cr);
      cairo_translate (cr, lo.x0, lo.y0);
      cairo_scale (cr, lo.scale, lo.scale);
      draw_links (cr, style, fig, &lo);
      draw_line (cr, pc, style, fig->source_labels, fig->n_source, lo.source_x, lo.source_w, 0,
                 lo.box_h, fig->highlight_source);
      draw_line (cr, pc, style, fig->target_labels, fig->n_target, lo.target_x, lo.target_w,
                 lo.box_h + LINK_BAND, lo.box_h, fig->highlight_target);
      cairo_restore (cr);
      if (lo.note_h > 0)
        {
          g_autofree char *note = thinning_note (fig);
          PangoLayout *layout
              = ar_text_layout (pc, style, note, AR_FONT_AXIS, PANGO_WEIGHT_NORMAL, 0);
          ar_render_set_rgb (cr, style->muted);
          ar_text_draw (cr, layout, AR_FIGURE_MARGIN,
                        lo.y0 + (2 * lo.box_h + LINK_BAND) * lo.scale + NOTE_GAP, 0, 0, 0);
          g_object_unref (layout);
        }
    }
  cairo_restore (cr);
  layout_clear (&lo);
  g_object_unref (pc);
}

static void
token_rect (const Layout *lo, gboolean target, int index, double *x, double *y, double *w,
            double *h)
{
  double lx = target ? lo->target_x[index] : lo->source_x[index];
  double lw = target ? lo->target_w[index] : lo->source_w[index];
  double ly = target ? lo->box_h + LINK_BAND : 0;
  *x = lo->x0 + lx * lo->scale;
  *y = lo->y0 + ly * lo->scale;
  *w = lw * lo->scale;
  *h = lo->box_h * lo->scale;
}

gboolean
ar_alignment_hit (const ArAlignmentFigure *fig, double width, double height, double x, double y,
                  gboolean *target, int *index)
{
  if (!has_data (fig))
    return FALSE;
  Layout lo;
  layout_at (&lo, fig, width, height);
  gboolean found = FALSE;
  for (int line = 0; line < 2 && !found; line++)
    {
      int n = line ? fig->n_target : fig->n_source;
      for (int k = 0; k < n && !found; k++)
        {
          double bx, by, bw, bh;
          token_rect (&lo, line, k, &bx, &by, &bw, &bh);
          if (x >= bx && x < bx + bw && y >= by && y < by + bh)
            {
              *target = line == 1;
              *index = k;
              found = TRUE;
            }
        }
    }
  layout_clear (&lo);
  return found;
}

void
ar_alignment_get_token_rect (const ArAlignmentFigure *fig, double width, double height,
                             gboolean target, int index, double *x, double *y, double *w, double *h)
{
  Layout lo;
  layout_at (&lo, fig, width, height);
  *x = *y = *w = *h = 0;
  if (has_data (fig) && index >= 0 && index < (target ? fig->n_target : fig->n_source))
    token_rect (&lo, target, index, x, y, w, h);
  layout_clear (&lo);
}
