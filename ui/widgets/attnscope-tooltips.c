/* attnscope-tooltips.c — an ellipsizing label's whole text as its tooltip, menu buttons without
 * a tooltip while open (see attnscope-tooltips.h). A label's note (the tooltip set before) and a
 * menu button's watched popover are kept as object data. */
#include "attnscope-tooltips.h"

#define NOTE_KEY "attnscope-tooltips-note"

static void
update_tooltip (GtkLabel *label)
{
  const char *text = gtk_label_get_label (label);
  const char *note = g_object_get_data (G_OBJECT (label), NOTE_KEY);
  gboolean markup = gtk_label_get_use_markup (label);
  if (text == NULL || *text == '\0')
    {
      gtk_widget_set_tooltip_text (GTK_WIDGET (label), note);
      return;
    }
  g_autofree char *escaped_note = note != NULL ? g_markup_escape_text (note, -1) : NULL;
  g_autofree char *escaped_text = markup ? g_strdup (text) : g_markup_escape_text (text, -1);
  g_autofree char *tooltip
      = note != NULL ? g_strdup_printf ("%s\n%s", escaped_text, escaped_note) : NULL;
  gtk_widget_set_tooltip_markup (GTK_WIDGET (label), tooltip != NULL ? tooltip : escaped_text);
}

void
attnscope_label_tooltip_full_text (GtkLabel *label)
{
  g_return_if_fail (GTK_IS_LABEL (label));
  if (g_object_get_data (G_OBJECT (label), NOTE_KEY "-set") != NULL)
    return;
  g_object_set_data (G_OBJECT (label), NOTE_KEY "-set", GINT_TO_POINTER (1));
  const char *note = gtk_widget_get_tooltip_text (GTK_WIDGET (label));
  if (note != NULL)
    g_object_set_data_full (G_OBJECT (label), NOTE_KEY, g_strdup (note), g_free);
  g_signal_connect (label, "notify::label", G_CALLBACK (update_tooltip), NULL);
  g_signal_connect (label, "notify::use-markup", G_CALLBACK (update_tooltip), NULL);
  update_tooltip (label);
}

#define POPOVER_KEY "attnscope-tooltips-popover"

/* The popover of BUTTON (user data) was shown or hidden: no tooltip while it is up. */
static void
popover_visible_changed (GtkWidget *popover, GParamSpec *pspec, GtkWidget *button)
{
  gtk_widget_set_has_tooltip (button, !gtk_widget_get_visible (popover));
  /* hides a tooltip already shown, where the pointer has not moved since */
  gtk_widget_trigger_tooltip_query (button);
}

static void
watch_popover (GtkMenuButton *button)
{
  GtkPopover *old = g_object_get_data (G_OBJECT (button), POPOVER_KEY);
  GtkPopover *popover = gtk_menu_button_get_popover (button);
  if (old == popover)
    return;
  if (old != NULL)
    g_signal_handlers_disconnect_by_func (old, popover_visible_changed, button);
  g_object_set_data (G_OBJECT (button), POPOVER_KEY, popover);
  if (popover != NULL)
    g_signal_connect_object (popover, "notify::visible", G_CALLBACK (popover_visible_changed),
                             button, 0);
}

void
attnscope_menu_button_hide_tooltip_when_open (GtkMenuButton *button)
{
  g_return_if_fail (GTK_IS_MENU_BUTTON (button));
  if (g_object_get_data (G_OBJECT (button), POPOVER_KEY "-set") != NULL)
    return;
  g_object_set_data (G_OBJECT (button), POPOVER_KEY "-set", GINT_TO_POINTER (1));
  g_signal_connect (button, "notify::popover", G_CALLBACK (watch_popover), NULL);
  g_signal_connect (button, "notify::menu-model", G_CALLBACK (watch_popover), NULL);
  watch_popover (button);
}

void
attnscope_tooltips_attach (GtkWidget *root)
{
  g_return_if_fail (GTK_IS_WIDGET (root));
  if (GTK_IS_LABEL (root) && gtk_label_get_ellipsize (GTK_LABEL (root)) != PANGO_ELLIPSIZE_NONE)
    attnscope_label_tooltip_full_text (GTK_LABEL (root));
  if (GTK_IS_MENU_BUTTON (root))
    attnscope_menu_button_hide_tooltip_when_open (GTK_MENU_BUTTON (root));
  for (GtkWidget *c = gtk_widget_get_first_child (root); c != NULL;
       c = gtk_widget_get_next_sibling (c))
    attnscope_tooltips_attach (c);
}
