/* attnscope-heatmap-view-input.c — the heatmap widget's tooltips (a cell's tokens and exact
 * value) and input: a click activates a cell, a drag or scrolling pans a zoomed view, Ctrl+scroll
 * zooms around the pointer, and the keys move the cursor, zoom and activate. */
#include "attnscope-heatmap-view-private.h"

#include <glib/gi18n.h>
#include <math.h>

#include "attnscope-figure-widget.h"
#include "render-text.h"

/* Zoom steps multiply the cells in view by this. */
#define ZOOM_STEP 1.4142
/* A press that moves less than this is a click, not a drag. */
#define CLICK_SLOP 4.0

static char *
axis_label (const char *const *labels, int i)
{
  return labels != NULL ? g_strdup (labels[i]) : g_strdup_printf ("%d", i);
}

/* What cell (ROW, COL) holds, as the tooltip says it. Newly allocated. */
static char *
cell_text (const ArHeatmapFigure *fig, int row, int col)
{
  switch (ar_heatmap_cell_state (fig, row, col))
    {
    case AR_CELL_MASKED:
      if (fig->window > 0 && col < row)
        /* Translators: a cell left of a layer's sliding window (Mistral, Gemma's local layers) */
        return g_strdup_printf (_ ("masked: outside the layer's sliding window of %d tokens"),
                                fig->window);
      return g_strdup (_ ("masked: the model cannot attend to a later token"));
    case AR_CELL_NO_PARTNER:
      return g_strdup (_ ("no value: a token without a partner in the other text"));
    case AR_CELL_VALUE:
    default:
      {
        g_autofree char *value = ar_format_number (fig->values[(gsize) row * fig->n_cols + col], 6);
        if (!ar_heatmap_cell_clipped (fig, row, col))
          return g_steal_pointer (&value);
        /* Translators: a cell's value above the colour range, drawn in its top colour */
        return g_strdup_printf (_ ("%s (above the colour range: clipped)"), value);
      }
    }
}

char *
attnscope_heatmap_view_dup_tooltip_at (AttnscopeHeatmapView *self, double x, double y)
{
  g_return_val_if_fail (ATTNSCOPE_IS_HEATMAP_VIEW (self), NULL);
  char *exact = attnscope_heatmap_view_dup_exact_tooltip (self, x, y);
  if (exact != NULL)
    return exact;
  int row, col;
  if (!attnscope_heatmap_view_hit (self, x, y, &row, &col))
    return NULL;
  const ArHeatmapFigure *fig = attnscope_heatmap_view_heatmap (self);
  g_autofree char *row_label = axis_label (fig->row_labels, row);
  g_autofree char *col_label = axis_label (fig->col_labels, col);
  g_autofree char *value
      = self->describe != NULL ? self->describe (row, col, self->describe_data) : NULL;
  if (value == NULL)
    value = cell_text (fig, row, col);
  return g_markup_printf_escaped (
      "%s: <b>%s</b> (%d)\n%s: <b>%s</b> (%d)\n%s", fig->row_axis ? fig->row_axis : _ ("Row"),
      row_label, row, fig->col_axis ? fig->col_axis : _ ("Column"), col_label, col, value);
}

static gboolean
on_query_tooltip (GtkWidget *widget, int x, int y, gboolean keyboard, GtkTooltip *tooltip,
                  gpointer user_data)
{
  if (keyboard)
    return FALSE;
  g_autofree char *markup
      = attnscope_heatmap_view_dup_tooltip_at (ATTNSCOPE_HEATMAP_VIEW (widget), x, y);
  if (markup == NULL)
    return FALSE;
  gtk_tooltip_set_markup (tooltip, markup);
  return TRUE;
}

gboolean
attnscope_heatmap_view_get_cell_rect (AttnscopeHeatmapView *self, int row, int col, double *x,
                                      double *y, double *width, double *height)
{
  g_return_val_if_fail (ATTNSCOPE_IS_HEATMAP_VIEW (self), FALSE);
  if (self->figure == NULL || row < 0 || col < 0 || row >= attnscope_heatmap_view_n_rows (self)
      || col >= attnscope_heatmap_view_n_cols (self))
    return FALSE;
  ArFigureParts parts;
  attnscope_heatmap_view_screen_figure (self, &parts);
  ar_heatmap_get_cell_rect (&parts.heatmap, gtk_widget_get_width (GTK_WIDGET (self)),
                            gtk_widget_get_height (GTK_WIDGET (self)), row, col, x, y, width,
                            height);
  return TRUE;
}

void
attnscope_heatmap_view_zoom_at (AttnscopeHeatmapView *self, double factor, double x, double y)
{
  g_return_if_fail (ATTNSCOPE_IS_HEATMAP_VIEW (self));
  int row, col;
  if (attnscope_heatmap_view_hit (self, x, y, &row, &col))
    attnscope_heatmap_view_zoom_around (self, factor, row, col);
  else
    attnscope_heatmap_view_zoom (self, factor);
}

/* ---- input ---- */

static void
on_drag_begin (GtkGestureDrag *gesture, double x, double y, AttnscopeHeatmapView *self)
{
  self->drag_row0 = self->row0, self->drag_col0 = self->col0;
  self->drag_cell = 0;
  if (self->figure != NULL && self->zoom > 0)
    {
      ArFigureParts parts;
      attnscope_heatmap_view_screen_figure (self, &parts);
      double x0, y0, pw, ph;
      ar_heatmap_get_plot_rect (&parts.heatmap, gtk_widget_get_width (GTK_WIDGET (self)),
                                gtk_widget_get_height (GTK_WIDGET (self)), &x0, &y0, &pw, &ph);
      self->drag_cell = (pw + 1) / MIN (self->zoom, attnscope_heatmap_view_n_cols (self));
    }
}

static void
on_drag_update (GtkGestureDrag *gesture, double dx, double dy, AttnscopeHeatmapView *self)
{
  if (self->drag_cell <= 0 || hypot (dx, dy) < CLICK_SLOP)
    return;
  attnscope_heatmap_view_apply_view (self, self->drag_row0 - (int) lround (dy / self->drag_cell),
                                     self->drag_col0 - (int) lround (dx / self->drag_cell),
                                     self->zoom);
}

static void
on_drag_end (GtkGestureDrag *gesture, double dx, double dy, AttnscopeHeatmapView *self)
{
  if (hypot (dx, dy) >= CLICK_SLOP)
    return;
  double x, y;
  int row, col;
  gtk_gesture_drag_get_start_point (gesture, &x, &y);
  gtk_widget_grab_focus (GTK_WIDGET (self));
  if (attnscope_heatmap_view_hit (self, x, y, &row, &col))
    {
      attnscope_heatmap_view_set_cursor (self, row, col);
      attnscope_heatmap_view_emit_activated (self, row, col);
    }
}

static void
on_motion (GtkEventControllerMotion *motion, double x, double y, AttnscopeHeatmapView *self)
{
  self->pointer_x = x, self->pointer_y = y;
}

static gboolean
on_scroll (GtkEventControllerScroll *scroll, double dx, double dy, AttnscopeHeatmapView *self)
{
  GdkModifierType mods
      = gtk_event_controller_get_current_event_state (GTK_EVENT_CONTROLLER (scroll));
  if (mods & GDK_CONTROL_MASK)
    {
      attnscope_heatmap_view_zoom_at (self, dy > 0 ? ZOOM_STEP : 1 / ZOOM_STEP, self->pointer_x,
                                      self->pointer_y);
      return TRUE;
    }
  if (self->zoom == 0)
    return FALSE;
  int step = MAX (1, self->zoom / 8);
  if (mods & GDK_SHIFT_MASK)
    dx = dx != 0 ? dx : dy, dy = 0;
  attnscope_heatmap_view_apply_view (self, self->row0 + (int) lround (dy * step),
                                     self->col0 + (int) lround (dx * step), self->zoom);
  return TRUE;
}

static gboolean
on_key_pressed (GtkEventControllerKey *key, guint keyval, guint keycode, GdkModifierType state,
                AttnscopeHeatmapView *self)
{
  if (state & (GDK_ALT_MASK | GDK_CONTROL_MASK | GDK_SUPER_MASK))
    return FALSE;
  int page = self->zoom > 0 ? MAX (1, self->zoom - 1) : 8;
  switch (keyval)
    {
    case GDK_KEY_Up:
    case GDK_KEY_KP_Up:
      attnscope_heatmap_view_move_cursor (self, -1, 0);
      return TRUE;
    case GDK_KEY_Down:
    case GDK_KEY_KP_Down:
      attnscope_heatmap_view_move_cursor (self, 1, 0);
      return TRUE;
    case GDK_KEY_Left:
    case GDK_KEY_KP_Left:
      attnscope_heatmap_view_move_cursor (self, 0, -1);
      return TRUE;
    case GDK_KEY_Right:
    case GDK_KEY_KP_Right:
      attnscope_heatmap_view_move_cursor (self, 0, 1);
      return TRUE;
    case GDK_KEY_Page_Up:
      attnscope_heatmap_view_move_cursor (self, -page, 0);
      return TRUE;
    case GDK_KEY_Page_Down:
      attnscope_heatmap_view_move_cursor (self, page, 0);
      return TRUE;
    case GDK_KEY_plus:
    case GDK_KEY_equal:
    case GDK_KEY_KP_Add:
      attnscope_heatmap_view_zoom (self, 1 / ZOOM_STEP);
      return TRUE;
    case GDK_KEY_minus:
    case GDK_KEY_KP_Subtract:
      attnscope_heatmap_view_zoom (self, ZOOM_STEP);
      return TRUE;
    case GDK_KEY_0:
    case GDK_KEY_KP_0:
      attnscope_heatmap_view_apply_view (self, 0, 0, 0);
      return TRUE;
    case GDK_KEY_Return:
    case GDK_KEY_KP_Enter:
    case GDK_KEY_space:
      if (self->cursor_row < 0)
        return FALSE;
      attnscope_heatmap_view_emit_activated (self, self->cursor_row, self->cursor_col);
      return TRUE;
    default:
      return FALSE;
    }
}

void
attnscope_heatmap_view_init_input (AttnscopeHeatmapView *self)
{
  GtkWidget *widget = GTK_WIDGET (self);
  attnscope_figure_widget_init (widget, G_CALLBACK (on_query_tooltip), NULL);

  GtkGesture *drag = gtk_gesture_drag_new ();
  g_signal_connect (drag, "drag-begin", G_CALLBACK (on_drag_begin), self);
  g_signal_connect (drag, "drag-update", G_CALLBACK (on_drag_update), self);
  g_signal_connect (drag, "drag-end", G_CALLBACK (on_drag_end), self);
  gtk_widget_add_controller (widget, GTK_EVENT_CONTROLLER (drag));

  GtkEventController *motion = gtk_event_controller_motion_new ();
  g_signal_connect (motion, "motion", G_CALLBACK (on_motion), self);
  gtk_widget_add_controller (widget, motion);

  GtkEventController *scroll = gtk_event_controller_scroll_new (
      GTK_EVENT_CONTROLLER_SCROLL_BOTH_AXES | GTK_EVENT_CONTROLLER_SCROLL_DISCRETE);
  g_signal_connect (scroll, "scroll", G_CALLBACK (on_scroll), self);
  gtk_widget_add_controller (widget, scroll);

  GtkEventController *key = gtk_event_controller_key_new ();
  g_signal_connect (key, "key-pressed", G_CALLBACK (on_key_pressed), self);
  gtk_widget_add_controller (widget, key);
}
