/* attnscope-tooltips.h — tooltips that help and never get in the way: labels that may be cut
 * with "…" show their whole text as their tooltip, kept current as the text changes; a menu
 * button hides its tooltip while its popover is open (the tooltip would cover the menu). */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* LABEL's tooltip is from now on its whole text (markup when the label uses markup), and the
 * tooltip LABEL had before (a note saying what it is), if any, on a line of its own below. */
void attnscope_label_tooltip_full_text (GtkLabel *label);

/* BUTTON shows no tooltip while its popover (whichever it has now or later) is open. */
void attnscope_menu_button_hide_tooltip_when_open (GtkMenuButton *button);

/* Both of the above for every label that ellipsizes and every menu button under ROOT (ROOT
 * included). */
void attnscope_tooltips_attach (GtkWidget *root);

G_END_DECLS
