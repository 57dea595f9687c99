/* attnscope-wrap-layout.c — children in lines, wrapped at the available width (see
 * attnscope-wrap-layout.h). Width-for-height is not needed: the layout trades height for width. */
#include "attnscope-wrap-layout.h"

struct _AttnscopeWrapLayout
{
  GtkLayoutManager parent_instance;
  int spacing;      /* between children of a line */
  int line_spacing; /* between lines */
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
      int height = wrap_layout_flow (self, widget, for_size < 0 ? G_MAXINT / 2 : for_size, FALSE);
      *minimum = *natural = height;
    }
}

static void
wrap_layout_allocate (GtkLayoutManager *manager, GtkWidget *widget, int width, int height,
                      int baseline)
{
  wrap_layout_flow (ATTNSCOPE_WRAP_LAYOUT (manager), widget, width, TRUE);
}

static void
attnscope_wrap_layout_class_init (AttnscopeWrapLayoutClass *klass)
{
  GtkLayoutManagerClass *layout_class = GTK_LAYOUT_MANAGER_CLASS (klass);
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
