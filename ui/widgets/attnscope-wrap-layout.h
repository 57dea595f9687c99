/* attnscope-wrap-layout.h — a layout manager that places children left to right at their natural
 * widths and starts a new line when the next one would not fit, like words in a paragraph
 * (GTK 4.8 has no wrap box; GtkFlowBox aligns its children in columns). */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define ATTNSCOPE_TYPE_WRAP_LAYOUT (attnscope_wrap_layout_get_type ())

G_DECLARE_FINAL_TYPE (AttnscopeWrapLayout, attnscope_wrap_layout, ATTNSCOPE, WRAP_LAYOUT,
                      GtkLayoutManager)

GtkLayoutManager *attnscope_wrap_layout_new (int spacing, int line_spacing);

G_END_DECLS
