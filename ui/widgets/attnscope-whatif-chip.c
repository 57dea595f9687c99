/* attnscope-whatif-chip.c — what the window changed in the model, under the text entry (see
 * attnscope-whatif-chip.h). */
#include "attnscope-whatif-chip.h"

#include <glib/gi18n.h>

#include "as-ablation.h"

struct _AttnscopeWhatifChip
{
  GtkWidget parent_instance;

  GtkWidget *box;
  GtkWidget *menu_button; /* "2 heads ablated": its menu names the ablation and resets */
  GtkWidget *reset_button;
  GtkWidget *positions_label;  /* "no positions" */
  GtkWidget *status;           /* the means being computed, or why a file was refused */
  GSimpleActionGroup *actions; /* "ablation.kind" (zero|mean), "ablation.mean-over" */
  GMenu *kinds;                /* the menu's section of the two ablations (its second item
                                * names the file: changed in place, the popover stays) */
  char *mean_label;            /* that item's label */
  char *text;
  AttnscopeWhatif *whatif;   /* a reference, or NULL */
  AttnscopeSession *session; /* a reference, or NULL */
  GCancellable *loading;     /* the means in computation, or NULL */
  AsModel *loading_model;    /* the model they are computed for */
};

G_DEFINE_FINAL_TYPE (AttnscopeWhatifChip, attnscope_whatif_chip, GTK_TYPE_WIDGET)

/* The mean ablation's item of the menu for the file MEAN_OVER (may be NULL). */
static char *
mean_label (const char *mean_over)
{
  g_autofree char *name = mean_over != NULL ? g_path_get_basename (mean_over) : NULL;
  /* Translators: %s is the file of texts the means are over */
  return name != NULL ? g_strdup_printf (_ ("Mean ablation: their means over %s"), name)
                      : g_strdup (_ ("Mean ablation: their means over a file of texts…"));
}

/* The menu names the file of the means; the kind action's state follows the ablation's. */
static void
update_menu (AttnscopeWhatifChip *self)
{
  const char *mean_over
      = self->whatif != NULL ? attnscope_whatif_get_mean_over (self->whatif) : NULL;
  g_autofree char *label = mean_label (mean_over);
  if (g_strcmp0 (label, self->mean_label) != 0)
    {
      g_menu_remove (self->kinds, 1);
      g_menu_insert (self->kinds, 1, label, "ablation.kind::mean");
      g_free (self->mean_label);
      self->mean_label = g_steal_pointer (&label);
    }
  gboolean mean
      = self->whatif != NULL && attnscope_whatif_get_kind (self->whatif) == AS_ABLATION_MEAN;
  GAction *kind = g_action_map_lookup_action (G_ACTION_MAP (self->actions), "kind");
  g_simple_action_set_state (G_SIMPLE_ACTION (kind), g_variant_new_string (mean ? "mean" : "zero"));
}

static void
set_status (AttnscopeWhatifChip *self, const char *text, gboolean error)
{
  gtk_label_set_text (GTK_LABEL (self->status), text != NULL ? text : "");
  gtk_widget_set_visible (self->status, text != NULL);
  if (error)
    gtk_widget_add_css_class (self->status, "error");
  else
    gtk_widget_remove_css_class (self->status, "error");
}

static void
update (AttnscopeWhatifChip *self)
{
  int n = self->whatif != NULL ? attnscope_whatif_get_n_heads_off (self->whatif) : 0;
  gboolean no_positions = self->whatif != NULL && attnscope_whatif_get_no_positions (self->whatif);
  /* Translators: the chip under the text when heads are switched off */
  g_autofree char *count = g_strdup_printf (ngettext ("%d head ablated", "%d heads ablated", n), n);
  gboolean mean
      = self->whatif != NULL && attnscope_whatif_get_kind (self->whatif) == AS_ABLATION_MEAN;
  g_autofree char *heads = NULL;
  if (mean)
    {
      g_autofree char *name = g_path_get_basename (attnscope_whatif_get_mean_over (self->whatif));
      /* Translators: the chip with mean ablation: "2 heads ablated · mean over texts.txt" */
      heads = g_strdup_printf (_ ("%s · mean over %s"), count, name);
    }
  else
    heads = g_strdup (count);
  gtk_menu_button_set_label (GTK_MENU_BUTTON (self->menu_button), heads);
  update_menu (self);
  gtk_widget_set_visible (self->menu_button, n > 0);
  gtk_widget_set_visible (self->reset_button, n > 0);
  gtk_widget_set_visible (self->positions_label, no_positions);
  gtk_widget_set_visible (GTK_WIDGET (self),
                          n > 0 || no_positions || gtk_widget_get_visible (self->status));
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
  g_set_object (&self->session, session);
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

/* The chip's menu; *KINDS (owned) its section of the two ablations, *LABEL its second item's. */
static GMenuModel *
chip_menu (GMenu **kinds, char **label)
{
  GMenu *menu = g_menu_new ();
  GMenu *kind = g_menu_new ();
  g_menu_append (kind, _ ("Zero ablation: the heads’ outputs replaced by zeros"),
                 "ablation.kind::zero");
  *label = mean_label (NULL);
  g_menu_append (kind, *label, "ablation.kind::mean");
  g_menu_append_section (menu, NULL, G_MENU_MODEL (kind));
  *kinds = kind;
  GMenu *more = g_menu_new ();
  g_menu_append (more, _ ("Mean over…"), "ablation.mean-over");
  g_menu_append (more, _ ("Switch every head on again"), "chip.reset");
  g_menu_append_section (menu, NULL, G_MENU_MODEL (more));
  g_object_unref (more);
  return G_MENU_MODEL (menu);
}

static void
means_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  AttnscopeWhatifChip *self = user_data;
  GCancellable *cancellable = g_task_get_cancellable (G_TASK (result));
  AttnscopeWhatif *whatif = ATTNSCOPE_WHATIF (source);
  if (cancellable == self->loading && !g_cancellable_is_cancelled (cancellable)
      && whatif == self->whatif && self->session != NULL
      && attnscope_session_get_model (self->session) == self->loading_model)
    {
      g_autoptr (GError) error = NULL;
      g_clear_object (&self->loading);
      g_clear_pointer (&self->loading_model, as_model_unref);
      if (attnscope_whatif_mean_over_finish (whatif, result, &error))
        set_status (self, NULL, FALSE);
      else
        set_status (self, error->message, TRUE);
      update (self);
    }
  g_object_unref (self);
}

void
attnscope_whatif_chip_mean_over (AttnscopeWhatifChip *self, const char *path)
{
  g_return_if_fail (ATTNSCOPE_IS_WHATIF_CHIP (self));
  AsModel *model = self->session != NULL ? attnscope_session_get_model (self->session) : NULL;
  if (model == NULL || self->whatif == NULL)
    {
      set_status (self, _ ("Open a model first: the means are the model’s."), TRUE);
      update (self);
      return;
    }
  if (self->loading != NULL)
    g_cancellable_cancel (self->loading);
  g_clear_object (&self->loading);
  g_clear_pointer (&self->loading_model, as_model_unref);
  self->loading = g_cancellable_new ();
  self->loading_model = as_model_ref (model);
  g_autofree char *name = g_path_get_basename (path);
  /* Translators: while the means over a file of texts are computed */
  g_autofree char *text = g_strdup_printf (_ ("Averaging over %s…"), name);
  set_status (self, text, FALSE);
  update (self);
  attnscope_whatif_mean_over_async (self->whatif, model, path, self->loading, means_done,
                                    g_object_ref (self));
}

gboolean
attnscope_whatif_chip_get_busy (AttnscopeWhatifChip *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_WHATIF_CHIP (self), FALSE);
  return self->loading != NULL;
}

const char *
attnscope_whatif_chip_get_status (AttnscopeWhatifChip *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_WHATIF_CHIP (self), NULL);
  return gtk_widget_get_visible (self->status) ? gtk_label_get_text (GTK_LABEL (self->status)) : "";
}

GtkMenuButton *
attnscope_whatif_chip_get_menu_button (AttnscopeWhatifChip *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_WHATIF_CHIP (self), NULL);
  return GTK_MENU_BUTTON (self->menu_button);
}

static void
on_file_chosen (GtkNativeDialog *dialog, int response, gpointer user_data)
{
  AttnscopeWhatifChip *self = user_data;
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      g_autofree char *path = file != NULL ? g_file_get_path (file) : NULL;
      if (path != NULL)
        attnscope_whatif_chip_mean_over (self, path);
    }
  g_object_unref (dialog);
  g_object_unref (self);
}

static void
choose_file (AttnscopeWhatifChip *self)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
  GtkFileChooserNative *dialog
      = gtk_file_chooser_native_new (_ ("Mean over: a text file, one text a line"),
                                     GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL,
                                     GTK_FILE_CHOOSER_ACTION_OPEN, _ ("_Average"), _ ("_Cancel"));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (dialog), TRUE);
  g_signal_connect (dialog, "response", G_CALLBACK (on_file_chosen), g_object_ref (self));
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

static void
on_mean_over (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  choose_file (ATTNSCOPE_WHATIF_CHIP (user_data));
}

/* "zero" switches back at once; "mean" needs means: without them it asks for the file. */
static void
on_kind (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  AttnscopeWhatifChip *self = ATTNSCOPE_WHATIF_CHIP (user_data);
  if (self->whatif == NULL)
    return;
  gboolean mean = g_strcmp0 (g_variant_get_string (parameter, NULL), "mean") == 0;
  if (!attnscope_whatif_set_kind (self->whatif, mean ? AS_ABLATION_MEAN : AS_ABLATION_ZERO))
    choose_file (self);
  update (self);
}

static void
attnscope_whatif_chip_dispose (GObject *object)
{
  AttnscopeWhatifChip *self = ATTNSCOPE_WHATIF_CHIP (object);
  if (self->whatif != NULL)
    g_signal_handlers_disconnect_by_data (self->whatif, self);
  g_clear_object (&self->whatif);
  g_clear_object (&self->session);
  if (self->loading != NULL)
    g_cancellable_cancel (self->loading);
  g_clear_object (&self->loading);
  g_clear_pointer (&self->loading_model, as_model_unref);
  g_clear_object (&self->actions);
  g_clear_object (&self->kinds);
  g_clear_pointer (&self->box, gtk_widget_unparent);
  G_OBJECT_CLASS (attnscope_whatif_chip_parent_class)->dispose (object);
}

static void
attnscope_whatif_chip_finalize (GObject *object)
{
  g_free (ATTNSCOPE_WHATIF_CHIP (object)->text);
  g_free (ATTNSCOPE_WHATIF_CHIP (object)->mean_label);
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
  self->actions = g_simple_action_group_new ();
  const GActionEntry entries[] = {
    { .name = "kind", .activate = on_kind, .parameter_type = "s", .state = "'zero'" },
    { .name = "mean-over", .activate = on_mean_over },
  };
  g_action_map_add_action_entries (G_ACTION_MAP (self->actions), entries, G_N_ELEMENTS (entries),
                                   self);
  gtk_widget_insert_action_group (GTK_WIDGET (self), "ablation", G_ACTION_GROUP (self->actions));
  g_autoptr (GMenuModel) menu = chip_menu (&self->kinds, &self->mean_label);
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
  self->status = gtk_label_new (NULL);
  gtk_label_set_wrap (GTK_LABEL (self->status), TRUE);
  gtk_label_set_xalign (GTK_LABEL (self->status), 0);
  gtk_widget_set_visible (self->status, FALSE);
  gtk_box_append (GTK_BOX (self->box), self->status);
  gtk_widget_set_visible (GTK_WIDGET (self), FALSE);
  update (self);
}

GtkWidget *
attnscope_whatif_chip_new (void)
{
  return g_object_new (ATTNSCOPE_TYPE_WHATIF_CHIP, NULL);
}
