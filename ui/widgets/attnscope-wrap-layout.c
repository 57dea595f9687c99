/* attnscope-wrap-layout.c — children in lines, wrapped at the available width (see
 * attnscope-wrap-layout.h). Width-for-height is not needed: the layout trades height for width. */
#include "attnscope-wrap-layout.h"

struct _AttnscopeWrapLayout
{
  GtkLayoutManager parent_instance;
  int spacing;      /* between children of a line */
  int line_spacing; /* between lines */
  guint resize_id;  /* idle that re-measures after a width change */
};

G_DEFINE_FINAL_TYPE (AttnscopeWrapLayout, attnscope_wrap_layout, GTK_TYPE_LAYOUT_MANAGER)

static GtkSizeRequestMode
wrap_layout_get_request_mode (GtkLayoutManager *manager, GtkWidget *widget)
{
  return GTK_SIZE_REQUEST_HEIGHT_FOR_WIDTH;
}

/* Walks the visible children in lines of at most WIDTH; returns the total height. When ALLOCATE
 * is TRUE the children are also allocated. */
static int
wrap_layout_flow (AttnscopeWrapLayout *self, GtkWidget *widget, int width, gboolean allocate)
{
  int x = 0, y = 0, line_height = 0;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      if (!gtk_widget_should_layout (child))
        continue;
      GtkRequisition natural;
      gtk_widget_get_preferred_size (child, NULL, &natural);
      int w = MIN (natural.width, MAX (width, 1));
      if (x > 0 && x + w > width)
        {
          x = 0;
          y += line_height + self->line_spacing;
          line_height = 0;
        }
      if (allocate)
        gtk_widget_size_allocate (child, &(GtkAllocation){ x, y, w, natural.height }, -1);
      x += w + self->spacing;
      line_height = MAX (line_height, natural.height);
    }
  return y + line_height;
}

static void
wrap_layout_measure (GtkLayoutManager *manager, GtkWidget *widget, GtkOrientation orientation,
                     int for_size, int *minimum, int *natural, int *minimum_baseline,
                     int *natural_baseline)
{
  AttnscopeWrapLayout *self = ATTNSCOPE_WRAP_LAYOUT (manager);
  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    {
      /* At least the widest child; naturally everything on one line. */
      int widest = 0, total = 0;
      for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
           child = gtk_widget_get_next_sibling (child))
        {
          if (!gtk_widget_should_layout (child))
            continue;
          int child_min, child_nat;
          gtk_widget_measure (child, orientation, -1, &child_min, &child_nat, NULL, NULL);
          widest = MAX (widest, child_min);
          total += child_nat + (total > 0 ? self->spacing : 0);
        }
      *minimum = widest;
      *natural = total;
    }
  else
    {
      /* A scrolled window asks for the height without a width; the current width is the best
       * answer then (allocate() corrects it when the width changes). */
      int width = for_size >= 0 ? for_size : gtk_widget_get_width (widget);
      int height = wrap_layout_flow (self, widget, width > 0 ? width : G_MAXINT / 2, FALSE);
      *minimum = *natural = height;
    }
}

static gboolean
resize_idle (gpointer user_data)
{
  AttnscopeWrapLayout *self = user_data;
  self->resize_id = 0;
  gtk_layout_manager_layout_changed (GTK_LAYOUT_MANAGER (self));
  return G_SOURCE_REMOVE;
}

static void
wrap_layout_allocate (GtkLayoutManager *manager, GtkWidget *widget, int width, int height,
                      int baseline)
{
  AttnscopeWrapLayout *self = ATTNSCOPE_WRAP_LAYOUT (manager);
  int needed = wrap_layout_flow (self, widget, width, TRUE);
  /* The lines need another height at this width than was measured: measure again (not from
   * inside the allocation). */
  if (needed != height && self->resize_id == 0)
    self->resize_id = g_idle_add (resize_idle, self);
}

static void
wrap_layout_dispose (GObject *object)
{
  AttnscopeWrapLayout *self = ATTNSCOPE_WRAP_LAYOUT (object);
  g_clear_handle_id (&self->resize_id, g_source_remove);
  G_OBJECT_CLASS (attnscope_wrap_layout_parent_class)->dispose (object);
}

static void
attnscope_wrap_layout_class_init (AttnscopeWrapLayoutClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkLayoutManagerClass *layout_class = GTK_LAYOUT_MANAGER_CLASS (klass);
  object_class->dispose = wrap_layout_dispose;
  layout_class->get_request_mode = wrap_layout_get_request_mode;
  layout_class->measure = wrap_layout_measure;
  layout_class->allocate = wrap_layout_allocate;
}

static void
attnscope_wrap_layout_init (AttnscopeWrapLayout *self)
{
  self->spacing = 6;
  self->line_spacing = 6;
}

GtkLayoutManager *
attnscope_wrap_layout_new (int spacing, int line_spacing)
{
  AttnscopeWrapLayout *self = g_object_new (ATTNSCOPE_TYPE_WRAP_LAYOUT, NULL);
  self->spacing = spacing;
  self->line_spacing = line_spacing;
  return GTK_LAYOUT_MANAGER (self);
}
