/* attnscope-compare-view.c — the comparison widget: owns both panels, the difference and the
 * chart, assembles the ArCompareFigure from them and draws it through ar_compare_render() (see
 * attnscope-compare-view.h). */
#include "attnscope-compare-view.h"

#include <glib/gi18n.h>
#include <math.h>

#include "attnscope-figure-widget.h"
#include "render-text.h"

typedef struct
{
  float *values; /* [n][n] */
  int n;
  char **labels; /* [n] */
  char *title;
} Panel;

struct _AttnscopeCompareView
{
  GtkWidget parent_instance;

  Panel panels[3]; /* A, B, difference (labels and title of the difference are A's) */
  double *chart;   /* [n_series][n_x] */
  int n_series, n_x;
  char **series_names, **x_labels;
  char *title, *subtitle, *note;
  ArColormap colormap;
  double vmax, diff_max;
  gboolean annotate, mask_upper;
  int highlight[2];

  /* Assembled by get_figure; the compare figure points at these. */
  ArHeatmapFigure parts[3];
  ArLineFigure line;
};

G_DEFINE_FINAL_TYPE (AttnscopeCompareView, attnscope_compare_view, GTK_TYPE_WIDGET)

static void
panel_clear (Panel *p)
{
  g_clear_pointer (&p->values, g_free);
  g_clear_pointer (&p->labels, g_strfreev);
  g_clear_pointer (&p->title, g_free);
  p->n = 0;
}

void
attnscope_compare_view_set_panel (AttnscopeCompareView *self, int panel, const float *values, int n,
                                  const char *const *labels, const char *title)
{
  g_return_if_fail (ATTNSCOPE_IS_COMPARE_VIEW (self));
  g_return_if_fail (panel == 0 || panel == 1);
  Panel *p = &self->panels[panel];
  panel_clear (p);
  if (values != NULL && n > 0)
    {
      p->values = g_memdup2 (values, sizeof (float) * (gsize) n * n);
      p->n = n;
      p->labels = labels != NULL ? g_strdupv ((char **) labels) : NULL;
      p->title = g_strdup (title);
    }
  gtk_widget_queue_resize (GTK_WIDGET (self));
}

void
attnscope_compare_view_set_difference (AttnscopeCompareView *self, const float *diff, int n)
{
  g_return_if_fail (ATTNSCOPE_IS_COMPARE_VIEW (self));
  Panel *p = &self->panels[2];
  panel_clear (p);
  if (diff != NULL && n > 0)
    {
      p->values = g_memdup2 (diff, sizeof (float) * (gsize) n * n);
      p->n = n;
      p->title = g_strdup (_ ("Difference B − A"));
    }
  gtk_widget_queue_resize (GTK_WIDGET (self));
}

void
attnscope_compare_view_set_chart (AttnscopeCompareView *self, const double *values, int n_series,
                                  int n_x, const char *const *series_names,
                                  const char *const *x_labels)
{
  g_return_if_fail (ATTNSCOPE_IS_COMPARE_VIEW (self));
  g_clear_pointer (&self->chart, g_free);
  g_clear_pointer (&self->series_names, g_strfreev);
  g_clear_pointer (&self->x_labels, g_strfreev);
  self->n_series = self->n_x = 0;
  if (values != NULL && n_series > 0 && n_x > 0)
    {
      self->chart = g_memdup2 (values, sizeof (double) * (gsize) n_series * n_x);
      self->n_series = n_series;
      self->n_x = n_x;
      self->series_names = series_names != NULL ? g_strdupv ((char **) series_names) : NULL;
      self->x_labels = x_labels != NULL ? g_strdupv ((char **) x_labels) : NULL;
    }
  gtk_widget_queue_resize (GTK_WIDGET (self));
}

void
attnscope_compare_view_set_titles (AttnscopeCompareView *self, const char *title,
                                   const char *subtitle, const char *note)
{
  g_return_if_fail (ATTNSCOPE_IS_COMPARE_VIEW (self));
  g_free (self->title);
  self->title = g_strdup (title);
  g_free (self->subtitle);
  self->subtitle = g_strdup (subtitle);
  g_free (self->note);
  self->note = g_strdup (note);
  gtk_widget_queue_resize (GTK_WIDGET (self));
}

void
attnscope_compare_view_set_style (AttnscopeCompareView *self, const char *colormap, double vmax,
                                  double diff_max, gboolean annotate, gboolean mask_upper)
{
  g_return_if_fail (ATTNSCOPE_IS_COMPARE_VIEW (self));
  if (colormap != NULL)
    ar_colormap_from_string (colormap, &self->colormap, NULL);
  self->vmax = vmax;
  self->diff_max = diff_max;
  self->annotate = annotate;
  self->mask_upper = mask_upper;
  gtk_widget_queue_resize (GTK_WIDGET (self));
}

void
attnscope_compare_view_set_highlight (AttnscopeCompareView *self, int token_a, int token_b)
{
  g_return_if_fail (ATTNSCOPE_IS_COMPARE_VIEW (self));
  self->highlight[0] = token_a;
  self->highlight[1] = token_b;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

gboolean
attnscope_compare_view_has_panels (AttnscopeCompareView *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_COMPARE_VIEW (self), FALSE);
  return self->panels[0].n > 0 && self->panels[1].n > 0;
}

gboolean
attnscope_compare_view_has_difference (AttnscopeCompareView *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_COMPARE_VIEW (self), FALSE);
  return self->panels[2].n > 0;
}

float
attnscope_compare_view_get_value (AttnscopeCompareView *self, int panel, int row, int col)
{
  g_return_val_if_fail (ATTNSCOPE_IS_COMPARE_VIEW (self), NAN);
  if (panel < 0 || panel > 2)
    return NAN;
  const Panel *p = &self->panels[panel];
  if (row < 0 || col < 0 || row >= p->n || col >= p->n)
    return NAN;
  return p->values[(gsize) row * p->n + col];
}

static void
fill_part (AttnscopeCompareView *self, int i, const ArRenderStyle *style)
{
  const Panel *p = &self->panels[i];
  const Panel *labelled = i == 2 ? &self->panels[0] : p;
  ArHeatmapFigure *part = &self->parts[i];
  ar_heatmap_figure_init (part);
  part->title = p->title;
  part->n_rows = part->n_cols = p->n;
  part->values = p->values;
  part->row_labels = part->col_labels = (const char *const *) labelled->labels;
  part->row_axis = _ ("Queries");
  part->col_axis = _ ("Keys");
  part->annotate = self->annotate ? AR_ANNOTATE_AUTO : AR_ANNOTATE_NEVER;
  part->mask_upper = self->mask_upper;
  part->style = style;
  if (i == 2)
    {
      part->colormap = AR_COLORMAP_RDBU_R;
      part->vmin = -self->diff_max;
      part->vmax = self->diff_max;
      part->colorbar_label = _ ("Difference");
      part->highlight_row = part->highlight_col = -1;
    }
  else
    {
      part->colormap = self->colormap;
      part->vmin = 0;
      part->vmax = self->vmax;
      part->colorbar = i == 1; /* one colour bar for both panels, beside B */
      part->colorbar_label = _ ("Attention weight");
      part->highlight_row = part->highlight_col
          = self->highlight[i] < p->n ? self->highlight[i] : -1;
    }
}

static void
fill_figure (AttnscopeCompareView *self, ArCompareFigure *fig, const ArRenderStyle *style)
{
  memset (fig, 0, sizeof *fig);
  fig->title = self->title;
  fig->subtitle = self->subtitle;
  fig->note = self->note;
  fig->style = style;
  for (int i = 0; i < 3; i++)
    fill_part (self, i, style);
  fig->a = &self->parts[0];
  fig->b = &self->parts[1];
  fig->diff = self->panels[2].n > 0 ? &self->parts[2] : NULL;
  if (self->chart != NULL)
    {
      ar_line_figure_init (&self->line);
      self->line.title = _ ("Similarity of the shared tokens per layer");
      self->line.n_series = self->n_series;
      self->line.n_x = self->n_x;
      self->line.values = self->chart;
      self->line.series_names = (const char *const *) self->series_names;
      self->line.x_labels = (const char *const *) self->x_labels;
      self->line.x_axis = _ ("Hidden state (0 = embeddings)");
      self->line.y_axis = _ ("Cosine similarity");
      self->line.style = style;
      fig->chart = &self->line;
    }
}

void
attnscope_compare_view_get_figure (AttnscopeCompareView *self, ArCompareFigure *fig)
{
  g_return_if_fail (ATTNSCOPE_IS_COMPARE_VIEW (self));
  fill_figure (self, fig, NULL);
}

static void
attnscope_compare_view_snapshot (GtkWidget *widget, GtkSnapshot *snapshot)
{
  AttnscopeCompareView *self = ATTNSCOPE_COMPARE_VIEW (widget);
  ArCompareFigure fig;
  fill_figure (self, &fig, attnscope_figure_style_get ());
  ArFigure figure = ar_figure_from_compare (&fig);
  attnscope_figure_widget_snapshot (widget, snapshot,
                                    attnscope_compare_view_has_panels (self) ? &figure : NULL);
}

static void
attnscope_compare_view_measure (GtkWidget *widget, GtkOrientation orientation, int for_size,
                                int *minimum, int *natural, int *minimum_baseline,
                                int *natural_baseline)
{
  AttnscopeCompareView *self = ATTNSCOPE_COMPARE_VIEW (widget);
  ArCompareFigure fig;
  fill_figure (self, &fig, attnscope_figure_style_get ());
  ArFigure figure = ar_figure_from_compare (&fig);
  /* Three panels and a chart stay readable: below 3/4 of its natural height the page scrolls
   * (its width always fits the window). */
  attnscope_figure_widget_measure (attnscope_compare_view_has_panels (self) ? &figure : NULL,
                                   orientation, orientation == GTK_ORIENTATION_VERTICAL ? 0.75 : 0,
                                   minimum, natural);
}

static char *
cell_tooltip (AttnscopeCompareView *self, int panel, int row, int col)
{
  const Panel *p = &self->panels[panel];
  const Panel *labelled = panel == 2 ? &self->panels[0] : p;
  if (row >= p->n || col >= p->n)
    return NULL;
  g_autofree char *value = ar_format_number (p->values[(gsize) row * p->n + col], 6);
  const char *q = labelled->labels != NULL ? labelled->labels[row] : "";
  const char *k = labelled->labels != NULL ? labelled->labels[col] : "";
  return g_markup_printf_escaped ("%s\n%s: <b>%s</b> (%d)\n%s: <b>%s</b> (%d)\n%s", p->title,
                                  _ ("Queries"), q, row, _ ("Keys"), k, col, value);
}

static gboolean
on_query_tooltip (GtkWidget *widget, int x, int y, gboolean keyboard, GtkTooltip *tooltip,
                  gpointer user_data)
{
  AttnscopeCompareView *self = ATTNSCOPE_COMPARE_VIEW (widget);
  if (keyboard || !attnscope_compare_view_has_panels (self))
    return FALSE;
  ArCompareFigure fig;
  fill_figure (self, &fig, attnscope_figure_style_get ());
  ArComparePanel panel;
  int row, col;
  if (!ar_compare_hit (&fig, gtk_widget_get_width (widget), gtk_widget_get_height (widget), x, y,
                       &panel, &row, &col))
    return FALSE;
  g_autofree char *markup = NULL;
  if (panel == AR_COMPARE_PANEL_CHART)
    {
      if (row >= self->n_series || col >= self->n_x)
        return FALSE;
      g_autofree char *value = ar_format_number (self->chart[(gsize) row * self->n_x + col], 4);
      markup = g_markup_printf_escaped (_ ("<b>%s</b>\nhidden state %d: %s"),
                                        self->series_names != NULL ? self->series_names[row] : "",
                                        col, value);
    }
  else
    markup = cell_tooltip (self,
                           panel == AR_COMPARE_PANEL_A   ? 0
                           : panel == AR_COMPARE_PANEL_B ? 1
                                                         : 2,
                           row, col);
  if (markup == NULL)
    return FALSE;
  gtk_tooltip_set_markup (tooltip, markup);
  return TRUE;
}

static void
attnscope_compare_view_finalize (GObject *object)
{
  AttnscopeCompareView *self = ATTNSCOPE_COMPARE_VIEW (object);
  for (int i = 0; i < 3; i++)
    panel_clear (&self->panels[i]);
  g_free (self->chart);
  g_strfreev (self->series_names);
  g_strfreev (self->x_labels);
  g_free (self->title);
  g_free (self->subtitle);
  g_free (self->note);
  G_OBJECT_CLASS (attnscope_compare_view_parent_class)->finalize (object);
}

static void
attnscope_compare_view_class_init (AttnscopeCompareViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->finalize = attnscope_compare_view_finalize;
  widget_class->snapshot = attnscope_compare_view_snapshot;
  widget_class->measure = attnscope_compare_view_measure;

  gtk_widget_class_set_css_name (widget_class, "compareview");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void
attnscope_compare_view_init (AttnscopeCompareView *self)
{
  self->colormap = AR_COLORMAP_YLGNBU;
  self->vmax = 1;
  self->diff_max = 1;
  self->annotate = TRUE;
  self->highlight[0] = self->highlight[1] = -1;
  attnscope_figure_widget_init (GTK_WIDGET (self), G_CALLBACK (on_query_tooltip), NULL);
}

GtkWidget *
attnscope_compare_view_new (void)
{
  return g_object_new (ATTNSCOPE_TYPE_COMPARE_VIEW, NULL);
}
