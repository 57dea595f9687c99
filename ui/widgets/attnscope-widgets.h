/* attnscope-widgets.h — one call that readies the widget library: registers the application's
 * GResource (templates, style sheet, icons) and the widget types that templates name. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Safe to call more than once. */
void attnscope_widgets_init (void);

G_END_DECLS
