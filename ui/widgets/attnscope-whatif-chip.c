/* attnscope-whatif-chip.c — what the window changed in the model, under the text entry (see
 * attnscope-whatif-chip.h). */
#include "attnscope-whatif-chip.h"

#include <glib/gi18n.h>

struct _AttnscopeWhatifChip
{
  GtkWidget parent_instance;

  GtkWidget *box;
  GtkWidget *menu_button; /* "2 heads ablated": its menu names the ablation and resets */
  GtkWidget *reset_button;
  GtkWidget *positions_label; /* "no positions" */
  char *text;
  AttnscopeWhatif *whatif; /* a reference, or NULL */
};

G_DEFINE_FINAL_TYPE (AttnscopeWhatifChip, attnscope_whatif_chip, GTK_TYPE_WIDGET)

static void
update (AttnscopeWhatifChip *self)
{
  int n = self->whatif != NULL ? attnscope_whatif_get_n_heads_off (self->whatif) : 0;
  gboolean no_positions = self->whatif != NULL && attnscope_whatif_get_no_positions (self->whatif);
  /* Translators: the chip under the text when heads are switched off */
  g_autofree char *heads = g_strdup_printf (ngettext ("%d head ablated", "%d heads ablated", n), n);
  gtk_menu_button_set_label (GTK_MENU_BUTTON (self->menu_button), heads);
  gtk_widget_set_visible (self->menu_button, n > 0);
  gtk_widget_set_visible (self->reset_button, n > 0);
  gtk_widget_set_visible (self->positions_label, no_positions);
  gtk_widget_set_visible (GTK_WIDGET (self), n > 0 || no_positions);
  GString *text = g_string_new (NULL);
  if (n > 0)
    g_string_append (text, heads);
  if (no_positions)
    g_string_append_printf (text, "%s%s", text->len > 0 ? " · " : "",
                            gtk_label_get_text (GTK_LABEL (self->positions_label)));
  g_free (self->text);
  self->text = g_string_free (text, FALSE);
}

void
attnscope_whatif_chip_set_session (AttnscopeWhatifChip *self, AttnscopeSession *session)
{
  g_return_if_fail (ATTNSCOPE_IS_WHATIF_CHIP (self));
  if (self->whatif != NULL)
    g_signal_handlers_disconnect_by_data (self->whatif, self);
  g_clear_object (&self->whatif);
  if (session != NULL)
    {
      self->whatif = g_object_ref (attnscope_session_get_whatif (session));
      g_signal_connect_swapped (self->whatif, "changed", G_CALLBACK (update), self);
    }
  update (self);
}

const char *
attnscope_whatif_chip_get_text (AttnscopeWhatifChip *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_WHATIF_CHIP (self), NULL);
  return self->text;
}

static void
reset_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  AttnscopeWhatifChip *self = ATTNSCOPE_WHATIF_CHIP (widget);
  if (self->whatif != NULL)
    attnscope_whatif_reset (self->whatif);
}

static GMenuModel *
chip_menu (void)
{
  GMenu *menu = g_menu_new ();
  GMenu *kind = g_menu_new ();
  /* The one ablation the window makes, named (mean ablation needs a reference text set: the
   * command line's --ablation mean --mean-over FILE). The item has no action: it says what is
   * done and cannot be chosen. */
  g_autoptr (GMenuItem) zero
      = g_menu_item_new (_ ("Zero ablation: the heads’ outputs replaced by zeros"), NULL);
  g_menu_append_item (kind, zero);
  g_menu_append_section (menu, NULL, G_MENU_MODEL (kind));
  g_object_unref (kind);
  g_menu_append (menu, _ ("Switch every head on again"), "chip.reset");
  return G_MENU_MODEL (menu);
}

static void
attnscope_whatif_chip_dispose (GObject *object)
{
  AttnscopeWhatifChip *self = ATTNSCOPE_WHATIF_CHIP (object);
  if (self->whatif != NULL)
    g_signal_handlers_disconnect_by_data (self->whatif, self);
  g_clear_object (&self->whatif);
  g_clear_pointer (&self->box, gtk_widget_unparent);
  G_OBJECT_CLASS (attnscope_whatif_chip_parent_class)->dispose (object);
}

static void
attnscope_whatif_chip_finalize (GObject *object)
{
  g_free (ATTNSCOPE_WHATIF_CHIP (object)->text);
  G_OBJECT_CLASS (attnscope_whatif_chip_parent_class)->finalize (object);
}

static void
attnscope_whatif_chip_class_init (AttnscopeWhatifChipClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  G_OBJECT_CLASS (klass)->dispose = attnscope_whatif_chip_dispose;
  G_OBJECT_CLASS (klass)->finalize = attnscope_whatif_chip_finalize;
  gtk_widget_class_install_action (widget_class, "chip.reset", NULL, reset_action);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "whatifchip");
}

static void
attnscope_whatif_chip_init (AttnscopeWhatifChip *self)
{
  self->text = g_strdup ("");
  self->box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  gtk_widget_set_parent (self->box, GTK_WIDGET (self));
  gtk_widget_set_halign (self->box, GTK_ALIGN_START);
  self->menu_button = gtk_menu_button_new ();
  g_autoptr (GMenuModel) menu = chip_menu ();
  gtk_menu_button_set_menu_model (GTK_MENU_BUTTON (self->menu_button), menu);
  gtk_widget_set_tooltip_text (
      self->menu_button, _ ("Heads switched off (Shift+click a head on the Heads page); every "
                            "page shows the model without them"));
  gtk_widget_add_css_class (self->menu_button, "pill");
  gtk_widget_add_css_class (self->menu_button, "small");
  gtk_box_append (GTK_BOX (self->box), self->menu_button);
  self->reset_button = gtk_button_new_from_icon_name ("edit-undo-symbolic");
  gtk_widget_set_tooltip_text (self->reset_button, _ ("Switch every head on again"));
  gtk_actionable_set_action_name (GTK_ACTIONABLE (self->reset_button), "chip.reset");
  gtk_widget_add_css_class (self->reset_button, "flat");
  gtk_widget_add_css_class (self->reset_button, "circular");
  gtk_box_append (GTK_BOX (self->box), self->reset_button);
  /* Translators: the chip under the text while the passes leave out the positions */
  self->positions_label = gtk_label_new (_ ("no positions"));
  gtk_widget_add_css_class (self->positions_label, "dim-label");
  gtk_box_append (GTK_BOX (self->box), self->positions_label);
  gtk_widget_set_visible (GTK_WIDGET (self), FALSE);
  update (self);
}

GtkWidget *
attnscope_whatif_chip_new (void)
{
  return g_object_new (ATTNSCOPE_TYPE_WHATIF_CHIP, NULL);
}
