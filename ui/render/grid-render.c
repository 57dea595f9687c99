/* grid-render.c — layout, drawing and hit-testing of the all-heads grid. */
#include "grid-render.h"

#include <glib/gi18n-lib.h>
#include <math.h>

#include "colorbar-render.h"
#include "matrix-paint.h"
#include "render-text.h"

#define MARGIN AR_FIGURE_MARGIN
#define CAPTION_GAP 6.0
#define NUMBER_GAP 6.0
#define H_GAP 10.0
#define V_GAP 8.0
#define LABEL_GAP 3.0
#define KEY_GAP 6.0
#define COLORBAR_GAP 20.0
#define COLORBAR_MAX 360.0

typedef struct
{
  double title_h, caption_h, number_w, number_h, label_h, colorbar_w;
  int label_length; /* pattern labels: 0 full, 1 short, 2 initials (with a key below) */
  double key_h;     /* the key of the initials, with its gap, or 0 */
  double size;      /* thumbnail side */
  double x0, y0;    /* top left of the first thumbnail */
  double pitch_x;   /* thumbnail + horizontal gap */
  double pitch_y;   /* thumbnail + label band + vertical gap */
} Layout;

void
ar_grid_figure_init (ArGridFigure *fig)
{
  *fig = (ArGridFigure){
    .colormap = AR_COLORMAP_YLGNBU,
    .vmin = 0,
    .vmax = 1,
    .highlight_layer = -1,
    .highlight_head = -1,
    .colorbar = TRUE,
  };
}

ArRgb
ar_head_pattern_color (AsHeadPattern pattern)
{
  int index = pattern == AS_HEAD_PATTERN_PREVIOUS ? 0
              : pattern == AS_HEAD_PATTERN_FIRST  ? 1
              : pattern == AS_HEAD_PATTERN_SELF   ? 2
              : pattern == AS_HEAD_PATTERN_NEXT   ? 3
              : pattern == AS_HEAD_PATTERN_CLS    ? 4
              : pattern == AS_HEAD_PATTERN_SEP    ? 5
                                                  : -1;
  if (index < 0)
    return (ArRgb){ 0.55, 0.55, 0.55 };
  ArColor8 c = ar_palette_color (index);
  return (ArRgb){ c.r / 255.0, c.g / 255.0, c.b / 255.0 };
}

const char *
ar_head_pattern_label (AsHeadPattern pattern)
{
  switch (pattern)
    {
    case AS_HEAD_PATTERN_CLS:
      return "[CLS]";
    case AS_HEAD_PATTERN_SEP:
      return "[SEP]";
    default:
      return as_head_pattern_to_string (pattern);
    }
}

static ArColorbar
grid_colorbar (const ArGridFigure *fig)
{
  ArColorbar bar = { .colormap = fig->colormap,
                     .vmin = fig->vmin,
                     .vmax = fig->vmax,
                     .label = fig->colorbar_label,
                     .log = fig->log_colors,
                     .clipped = fig->clipped };
  if (fig->head_ranges != NULL)
    {
      bar.vmin = 0, bar.vmax = 1, bar.log = FALSE;
      bar.low_label = fig->colorbar_low, bar.high_label = fig->colorbar_high;
    }
  return bar;
}

static gboolean
has_data (const ArGridFigure *fig)
{
  return fig->attn != NULL && fig->n_layers > 0 && fig->n_heads > 0 && fig->n_tokens > 0;
}

/* Below each thumbnail: the pattern label (or nothing) and the gap to the next row. */
static double
band_below (const Layout *lo)
{
  return (lo->label_h > 0 ? LABEL_GAP + lo->label_h : 0) + V_GAP;
}

static double
left_extent (const Layout *lo)
{
  return MARGIN + lo->caption_h + CAPTION_GAP + lo->number_w + NUMBER_GAP;
}

static double
top_extent (const Layout *lo)
{
  return MARGIN + lo->title_h + lo->caption_h + CAPTION_GAP + lo->number_h + NUMBER_GAP;
}

static double
right_extent (const Layout *lo)
{
  return MARGIN + (lo->colorbar_w > 0 ? COLORBAR_GAP + lo->colorbar_w : 0);
}

static void
measure (Layout *lo, PangoContext *pc, const ArRenderStyle *style, const ArGridFigure *fig)
{
  *lo = (Layout){ 0 };
  lo->title_h = ar_title_block_height (pc, style, fig->title, fig->subtitle);
  if (!has_data (fig))
    return;
  ar_text_measure (pc, style, "Layer", AR_FONT_AXIS, PANGO_WEIGHT_NORMAL, NULL, &lo->caption_h);
  g_autofree char *widest = g_strdup_printf ("%d", MAX (fig->n_layers, fig->n_heads) - 1);
  ar_text_measure (pc, style, widest, AR_FONT_TICK, PANGO_WEIGHT_BOLD, &lo->number_w,
                   &lo->number_h);
  if (fig->patterns != NULL || fig->pattern_labels != NULL)
    ar_text_measure (pc, style, "previous", AR_FONT_SMALL, PANGO_WEIGHT_NORMAL, NULL, &lo->label_h);
  if (fig->colorbar)
    {
      ArColorbar bar = grid_colorbar (fig);
      lo->colorbar_w = ar_colorbar_get_width (pc, style, &bar);
    }
}

/* The pattern labels, in three lengths: the full names (ar_head_pattern_label), short forms,
 * initials. */
static const char *
pattern_label (AsHeadPattern pattern, int length)
{
  static const char *const short_names[AS_HEAD_PATTERN_COUNT]
      = { "mix", "prev", "first", "self", "next", "CLS", "SEP", "broad" };
  static const char *const initials[AS_HEAD_PATTERN_COUNT]
      = { "m", "p", "f", "s", "n", "C", "S", "b" };
  if (length == 0 || (guint) pattern >= AS_HEAD_PATTERN_COUNT)
    return ar_head_pattern_label (pattern);
  return length == 1 ? short_names[pattern] : initials[pattern];
}

/* The longest labels (0 full, 1 short, 2 initials) whose widest fits under a thumbnail SIZE wide:
 * narrow grids (one journal column) shorten their labels rather than cut them. */
static int
pattern_label_length (PangoContext *pc, const ArRenderStyle *style, double size)
{
  for (int length = 0; length < 2; length++)
    {
      double widest = 0, w;
      for (int pattern = 0; pattern < AS_HEAD_PATTERN_COUNT; pattern++)
        {
          ar_text_measure (pc, style, pattern_label (pattern, length), AR_FONT_SMALL,
                           PANGO_WEIGHT_NORMAL, &w, NULL);
          widest = MAX (widest, w);
        }
      if (widest <= size + H_GAP - 2)
        return length;
    }
  return 2;
}

/* The key of the initials: an encoder's grid (a head labelled next, [CLS], [SEP] or broad) names
 * those too. */
static const char *
pattern_key (const ArGridFigure *fig)
{
  for (int i = 0; i < fig->n_layers * fig->n_heads; i++)
    if (fig->patterns[i] >= AS_HEAD_PATTERN_NEXT)
      /* Translators: the key of an encoder's heads grid pattern initials (p, f, s, n, C, S, b,
       * m). */
      return _ ("p previous token · f first token · s self · n next token · C [CLS] · S [SEP] · "
                "b broad · m mixed");
  /* Translators: the key of the heads grid's pattern initials (p, f, s, m). */
  return _ ("p previous token · f first token · s self · m mixed");
}

static PangoLayout *
key_layout (PangoContext *pc, const ArRenderStyle *style, const ArGridFigure *fig, double width)
{
  PangoLayout *layout
      = ar_text_layout (pc, style, pattern_key (fig), AR_FONT_SMALL, PANGO_WEIGHT_NORMAL, 0);
  pango_layout_set_width (layout, (int) (MAX (width - 2 * MARGIN, 1) * PANGO_SCALE));
  pango_layout_set_wrap (layout, PANGO_WRAP_WORD);
  return layout;
}

static void
fit (Layout *lo, const ArGridFigure *fig, double width, double height)
{
  if (!has_data (fig))
    return;
  double avail_w = width - left_extent (lo) - right_extent (lo);
  double avail_h = height - top_extent (lo) - MARGIN - lo->key_h;
  double below = band_below (lo);
  double size
      = MIN ((avail_w + H_GAP) / fig->n_heads - H_GAP, (avail_h + V_GAP) / fig->n_layers - below);
  size = MAX (size, 0.0);
  if (size >= 8)
    size = floor (size);
  lo->size = size;
  lo->pitch_x = size + H_GAP;
  lo->pitch_y = size + below;
  double grid_w = fig->n_heads * lo->pitch_x - H_GAP;
  double grid_h = fig->n_layers * lo->pitch_y - V_GAP;
  lo->x0 = round (left_extent (lo) + MAX (avail_w - grid_w, 0) / 2);
  lo->y0 = round (top_extent (lo) + MAX (avail_h - grid_h, 0) / 2);
}

/* What depends on the figure's WIDTH besides the thumbnails: the title block wrapped to it, and
 * the pattern labels' length for thumbnails as large as the width allows (with initials, the key
 * below the grid). */
static void
fit_texts (Layout *lo, PangoContext *pc, const ArGridFigure *fig, double width)
{
  const ArRenderStyle *style = ar_render_style_or_default (fig->style);
  lo->title_h = ar_title_block_height_wrapped (pc, style, fig->title, fig->subtitle, width);
  lo->label_length = 0, lo->key_h = 0;
  if (!has_data (fig) || fig->patterns == NULL)
    return;
  double size = ((width - left_extent (lo) - right_extent (lo)) + H_GAP) / fig->n_heads - H_GAP;
  if (size >= 8)
    size = floor (size);
  lo->label_length = pattern_label_length (pc, style, MAX (size, 0));
  if (lo->label_length == 2)
    {
      double h;
      PangoLayout *layout = key_layout (pc, style, fig, width);
      ar_text_extent (layout, NULL, &h);
      g_object_unref (layout);
      lo->key_h = KEY_GAP + h;
    }
}

static void
layout_only (Layout *lo, const ArGridFigure *fig, double width, double height)
{
  PangoContext *pc = ar_text_context_new ();
  measure (lo, pc, ar_render_style_or_default (fig->style), fig);
  fit_texts (lo, pc, fig, width);
  fit (lo, fig, width, height);
  g_object_unref (pc);
}

void
ar_grid_get_size (const ArGridFigure *fig, double *width, double *height)
{
  Layout lo;
  PangoContext *pc = ar_text_context_new ();
  measure (&lo, pc, ar_render_style_or_default (fig->style), fig);
  double size = floor (CLAMP (720.0 / MAX (fig->n_layers, fig->n_heads), 56.0, 120.0));
  *width
      = has_data (fig)
            ? ceil (left_extent (&lo) + fig->n_heads * (size + H_GAP) - H_GAP + right_extent (&lo))
            : 2 * MARGIN + 320;
  fit_texts (&lo, pc, fig, *width);
  g_object_unref (pc);
  if (!has_data (fig))
    {
      *height = ceil (2 * MARGIN + lo.title_h);
      return;
    }
  *height = ceil (top_extent (&lo) + fig->n_layers * (size + band_below (&lo)) - V_GAP + MARGIN
                  + lo.key_h);
}

double
ar_grid_get_height_for_width (const ArGridFigure *fig, double width)
{
  Layout lo;
  PangoContext *pc = ar_text_context_new ();
  measure (&lo, pc, ar_render_style_or_default (fig->style), fig);
  fit_texts (&lo, pc, fig, width);
  g_object_unref (pc);
  if (!has_data (fig))
    return ceil (2 * MARGIN + lo.title_h);
  double avail_w = width - left_extent (&lo) - right_extent (&lo);
  double size = MAX ((avail_w + H_GAP) / fig->n_heads - H_GAP, 0.0);
  if (size >= 8)
    size = floor (size);
  return ceil (top_extent (&lo) + fig->n_layers * (size + band_below (&lo)) - V_GAP + MARGIN
               + lo.key_h);
}

static void
draw_captions (cairo_t *cr, PangoContext *pc, const ArRenderStyle *style, const ArGridFigure *fig,
               const Layout *lo)
{
  double grid_w = fig->n_heads * lo->pitch_x - H_GAP;
  double grid_h = fig->n_layers * lo->pitch_y - V_GAP;
  double numbers_y = lo->y0 - NUMBER_GAP - lo->number_h;
  double numbers_x = lo->x0 - NUMBER_GAP;
  ar_render_set_rgb (cr, style->text);
  PangoLayout *caption = ar_text_layout (pc, style, "Head", AR_FONT_AXIS, PANGO_WEIGHT_NORMAL, 0);
  ar_text_draw (cr, caption, lo->x0 + grid_w / 2, numbers_y - CAPTION_GAP, 0.5, 1, 0);
  pango_layout_set_text (caption, "Layer", -1);
  ar_text_draw (cr, caption, numbers_x - lo->number_w - CAPTION_GAP - lo->caption_h / 2,
                lo->y0 + grid_h / 2, 0.5, 0.5, -G_PI / 2);
  g_object_unref (caption);

  for (int h = 0; h < fig->n_heads; h++)
    {
      g_autofree char *text = g_strdup_printf ("%d", h);
      gboolean on = h == fig->highlight_head;
      PangoLayout *layout = ar_text_layout (pc, style, text, AR_FONT_TICK,
                                            on ? PANGO_WEIGHT_BOLD : PANGO_WEIGHT_NORMAL, 0);
      ar_render_set_rgb (cr, on ? style->accent : style->text);
      ar_text_draw (cr, layout, lo->x0 + h * lo->pitch_x + lo->size / 2, numbers_y, 0.5, 0, 0);
      g_object_unref (layout);
    }
  for (int l = 0; l < fig->n_layers; l++)
    {
      g_autofree char *text = g_strdup_printf ("%d", l);
      gboolean on = l == fig->highlight_layer;
      PangoLayout *layout = ar_text_layout (pc, style, text, AR_FONT_TICK,
                                            on ? PANGO_WEIGHT_BOLD : PANGO_WEIGHT_NORMAL, 0);
      ar_render_set_rgb (cr, on ? style->accent : style->text);
      ar_text_draw (cr, layout, numbers_x, lo->y0 + l * lo->pitch_y + lo->size / 2, 1, 0.5, 0);
      g_object_unref (layout);
    }
}

/* A switched-off head: its thumbnail veiled and crossed out corner to corner. */
static void
draw_cross (cairo_t *cr, const ArRenderStyle *style, double x, double y, double size)
{
  ArRgb bg = style->background;
  cairo_set_source_rgba (cr, bg.r, bg.g, bg.b, 0.55);
  cairo_rectangle (cr, x, y, size, size);
  cairo_fill (cr);
  cairo_set_line_width (cr, MAX (2.0, size / 24));
  cairo_set_line_cap (cr, CAIRO_LINE_CAP_ROUND);
  ar_render_set_rgb (cr, style->text);
  double pad = size * 0.12;
  cairo_move_to (cr, x + pad, y + pad);
  cairo_line_to (cr, x + size - pad, y + size - pad);
  cairo_move_to (cr, x + size - pad, y + pad);
  cairo_line_to (cr, x + pad, y + size - pad);
  cairo_stroke (cr);
  cairo_set_line_cap (cr, CAIRO_LINE_CAP_BUTT);
}

/* What draw_thumb draws of a thumbnail: its cells and, for a switched-off head, the cross over
 * them; its frame (the highlight) and pattern label. */
enum
{
  THUMB_CELLS = 1 << 0,
  THUMB_FRAME = 1 << 1,
  THUMB_ALL = THUMB_CELLS | THUMB_FRAME,
};

static void
draw_thumb (cairo_t *cr, PangoContext *pc, const ArRenderStyle *style, const ArGridFigure *fig,
            const Layout *lo, int l, int h, int label_length, int what)
{
  int t = fig->n_tokens;
  double x = lo->x0 + h * lo->pitch_x, y = lo->y0 + l * lo->pitch_y;
  if (what & THUMB_CELLS)
    {
      const double *range = fig->head_ranges != NULL
                                ? fig->head_ranges + 2 * ((gsize) l * fig->n_heads + h)
                                : (const double[]){ fig->vmin, fig->vmax };
      ArMatrixPaint paint = {
        .colormap = fig->colormap,
        .vmin = range[0],
        .vmax = range[1],
        .log = fig->log_colors,
        .mask_upper = fig->mask_upper,
        .window = fig->mask_upper && fig->layer_windows != NULL ? fig->layer_windows[l] : 0,
        .masked = style->masked,
      };
      if (fig->log_colors && fig->head_ranges != NULL)
        paint.vmin = MAX (paint.vmin, 1e-4 * paint.vmax);
      int keys = fig->n_keys > 0 ? fig->n_keys : t;
      const float *matrix = fig->attn + ((gsize) l * fig->n_heads + h) * t * keys; /* [T][keys] */
      ar_matrix_paint (cr, &paint, matrix, t, keys, x, y, lo->size / keys, lo->size / t);
    }

  if (what & THUMB_FRAME)
    {
      gboolean on = l == fig->highlight_layer && h == fig->highlight_head;
      cairo_set_line_width (cr, on ? 2.5 : 1.0);
      ar_render_set_rgb (cr, on ? style->accent : style->grid);
      double inset = on ? -1.25 : -0.5;
      cairo_rectangle (cr, x + inset, y + inset, lo->size - 2 * inset, lo->size - 2 * inset);
      cairo_stroke (cr);
    }
  if ((what & THUMB_CELLS) && fig->crossed != NULL && fig->crossed[l * fig->n_heads + h])
    draw_cross (cr, style, x, y, lo->size);

  if (!(what & THUMB_FRAME))
    return;
  if (fig->pattern_labels != NULL)
    {
      PangoLayout *layout = ar_text_layout (pc, style, fig->pattern_labels[l * fig->n_heads + h],
                                            AR_FONT_SMALL, PANGO_WEIGHT_NORMAL, lo->size + H_GAP);
      ar_render_set_rgb (cr, style->muted);
      ar_text_draw (cr, layout, x + lo->size / 2, y + lo->size + LABEL_GAP, 0.5, 0, 0);
      g_object_unref (layout);
    }
  else if (fig->patterns != NULL)
    {
      AsHeadPattern pattern = fig->patterns[l * fig->n_heads + h];
      PangoLayout *layout = ar_text_layout (pc, style, pattern_label (pattern, label_length),
                                            AR_FONT_SMALL, PANGO_WEIGHT_NORMAL, lo->size + H_GAP);
      gboolean plain = pattern == AS_HEAD_PATTERN_MIXED || pattern == AS_HEAD_PATTERN_BROAD;
      ar_render_set_rgb (cr, plain ? style->muted : ar_head_pattern_color (pattern));
      ar_text_draw (cr, layout, x + lo->size / 2, y + lo->size + LABEL_GAP, 0.5, 0, 0);
      g_object_unref (layout);
    }
}

/* The query heads that share one key/value head (grouped-query attention), or 0 when each has
 * its own. */
static int
group_size (const ArGridFigure *fig)
{
  if (fig->n_kv_heads <= 0 || fig->n_kv_heads >= fig->n_heads || fig->n_heads % fig->n_kv_heads)
    return 0;
  return fig->n_heads / fig->n_kv_heads;
}

/* Grouped-query attention: behind each group of query heads sharing a key/value head, in every
 * layer, one tinted background spanning its thumbnails and labels; between groups the figure's
 * own background shows, so the groups read as blocks without moving any thumbnail. */
static void
draw_groups (cairo_t *cr, const ArRenderStyle *style, const ArGridFigure *fig, const Layout *lo)
{
  int n = group_size (fig);
  if (n == 0)
    return;
  /* the frame's colour, faint: darker than the masked cells in the light style, lighter in
   * the dark one */
  ArRgb c = style->rule;
  cairo_set_source_rgba (cr, c.r, c.g, c.b, 0.16);
  double pad = MIN (H_GAP / 2 - 2, 4);
  for (int l = 0; l < fig->n_layers; l++)
    for (int g = 0; g < fig->n_kv_heads; g++)
      {
        double x = lo->x0 + g * n * lo->pitch_x - pad;
        double y = lo->y0 + l * lo->pitch_y - pad;
        cairo_rectangle (cr, x, y, n * lo->pitch_x - H_GAP + 2 * pad,
                         lo->pitch_y - V_GAP + 2 * pad);
      }
  cairo_fill (cr);
}

/* The grid, or with WHAT = THUMB_FRAME all but the thumbnails' cells and crosses. */
static void
render (cairo_t *cr, const ArGridFigure *fig, double width, double height, int what)
{
  const ArRenderStyle *style = ar_render_style_or_default (fig->style);
  PangoContext *pc = ar_text_context_new ();
  Layout lo;
  measure (&lo, pc, style, fig);
  fit_texts (&lo, pc, fig, width);
  fit (&lo, fig, width, height);

  cairo_save (cr);
  ar_figure_frame_draw_wrapped (cr, pc, style, fig->title, fig->subtitle, width, height);
  if (has_data (fig) && lo.size > 0)
    {
      draw_captions (cr, pc, style, fig, &lo);
      draw_groups (cr, style, fig, &lo);
      for (int l = 0; l < fig->n_layers; l++)
        for (int h = 0; h < fig->n_heads; h++)
          draw_thumb (cr, pc, style, fig, &lo, l, h, lo.label_length, what);
      if (lo.key_h > 0)
        {
          PangoLayout *layout = key_layout (pc, style, fig, width);
          ar_render_set_rgb (cr, style->muted);
          ar_text_draw (cr, layout, MARGIN, lo.y0 + fig->n_layers * lo.pitch_y - V_GAP + KEY_GAP, 0,
                        0, 0);
          g_object_unref (layout);
        }
      if (fig->colorbar)
        {
          ArColorbar bar = grid_colorbar (fig);
          double grid_w = fig->n_heads * lo.pitch_x - H_GAP;
          double grid_h = fig->n_layers * lo.pitch_y - band_below (&lo);
          ar_colorbar_draw (cr, pc, style, &bar, lo.x0 + grid_w + COLORBAR_GAP, lo.y0,
                            MIN (grid_h, COLORBAR_MAX));
        }
    }
  cairo_restore (cr);
  g_object_unref (pc);
}

void
ar_grid_render (cairo_t *cr, const ArGridFigure *fig, double width, double height)
{
  render (cr, fig, width, height, THUMB_ALL);
}

void
ar_grid_render_parts (cairo_t *cr, const ArGridFigure *fig, double width, double height,
                      ArGridThumbTarget target, gpointer data)
{
  if (cr != NULL)
    render (cr, fig, width, height, THUMB_FRAME);
  if (target == NULL || !has_data (fig))
    return;
  const ArRenderStyle *style = ar_render_style_or_default (fig->style);
  Layout lo;
  layout_only (&lo, fig, width, height);
  if (lo.size <= 0)
    return;
  for (int l = 0; l < fig->n_layers; l++)
    for (int h = 0; h < fig->n_heads; h++)
      {
        cairo_t *thumb
            = target (data, l, h, lo.x0 + h * lo.pitch_x, lo.y0 + l * lo.pitch_y, lo.size);
        if (thumb == NULL)
          continue;
        draw_thumb (thumb, NULL, style, fig, &lo, l, h, lo.label_length, THUMB_CELLS);
        cairo_destroy (thumb);
      }
}

gboolean
ar_grid_hit (const ArGridFigure *fig, double width, double height, double x, double y, int *layer,
             int *head)
{
  if (!has_data (fig))
    return FALSE;
  Layout lo;
  layout_only (&lo, fig, width, height);
  if (lo.size <= 0)
    return FALSE;
  double h = floor ((x - lo.x0) / lo.pitch_x), l = floor ((y - lo.y0) / lo.pitch_y);
  if (h < 0 || l < 0 || h >= fig->n_heads || l >= fig->n_layers)
    return FALSE;
  /* Inside the thumbnail or its label, not in the gaps between heads. */
  if (x - lo.x0 - h * lo.pitch_x > lo.size || y - lo.y0 - l * lo.pitch_y > lo.pitch_y - V_GAP)
    return FALSE;
  *layer = (int) l;
  *head = (int) h;
  return TRUE;
}

void
ar_grid_get_thumb_rect (const ArGridFigure *fig, double width, double height, int layer, int head,
                        double *x, double *y, double *size)
{
  Layout lo;
  layout_only (&lo, fig, width, height);
  *x = lo.x0 + head * lo.pitch_x;
  *y = lo.y0 + layer * lo.pitch_y;
  *size = lo.size;
}
