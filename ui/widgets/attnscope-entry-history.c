/* attnscope-entry-history.c — an entry's own undo history (see attnscope-entry-history.h). */
#include "attnscope-entry-history.h"

/* Edits less than this apart (µs) are one step. */
#define BURST_US (1000 * 1000)
#define MAX_STEPS 200

typedef struct
{
  GPtrArray *undo, *redo; /* char *: the texts before each step, newest last */
  char *text;             /* the entry's text after the last change seen */
  gint64 last_typed;      /* when typing last changed it (0: the last step was not typing) */
  gboolean applying;      /* the history itself is changing the text */
} History;

static void
history_free (History *h)
{
  g_ptr_array_unref (h->undo);
  g_ptr_array_unref (h->redo);
  g_free (h->text);
  g_free (h);
}

static History *
history_of (GtkEntry *entry)
{
  return g_object_get_data (G_OBJECT (entry), "attnscope-entry-history");
}

static void
push (GPtrArray *stack, const char *text)
{
  if (stack->len >= MAX_STEPS)
    g_ptr_array_remove_index (stack, 0);
  g_ptr_array_add (stack, g_strdup (text != NULL ? text : ""));
}

/* Sets ENTRY's text through its buffer: one "changed", with the whole text. */
static void
apply (GtkEntry *entry, History *h, const char *text)
{
  h->applying = TRUE;
  gtk_entry_buffer_set_text (gtk_entry_get_buffer (entry), text, -1);
  gtk_editable_set_position (GTK_EDITABLE (entry), -1);
  h->applying = FALSE;
  g_free (h->text);
  h->text = g_strdup (text);
  h->last_typed = 0;
}

static void
on_changed (GtkEditable *editable, History *h)
{
  if (h->applying)
    return;
  const char *now_text = gtk_editable_get_text (editable);
  if (g_strcmp0 (now_text, h->text) == 0)
    return;
  gint64 now = g_get_monotonic_time ();
  /* a new burst of typing is a new step; within a burst the step grows */
  if (h->last_typed == 0 || now - h->last_typed > BURST_US)
    push (h->undo, h->text);
  g_ptr_array_set_size (h->redo, 0);
  h->last_typed = now;
  g_free (h->text);
  h->text = g_strdup (now_text);
}

void
attnscope_entry_history_replace (GtkEntry *entry, const char *text)
{
  History *h = history_of (entry);
  text = text != NULL ? text : "";
  if (h == NULL)
    {
      gtk_editable_set_text (GTK_EDITABLE (entry), text);
      return;
    }
  if (g_strcmp0 (gtk_editable_get_text (GTK_EDITABLE (entry)), text) == 0)
    return;
  push (h->undo, gtk_editable_get_text (GTK_EDITABLE (entry)));
  g_ptr_array_set_size (h->redo, 0);
  apply (entry, h, text);
}

/* Moves one step from FROM to TO. */
static gboolean
step (GtkEntry *entry, gboolean undo)
{
  History *h = history_of (entry);
  if (h == NULL)
    return FALSE;
  GPtrArray *from = undo ? h->undo : h->redo, *to = undo ? h->redo : h->undo;
  if (from->len == 0)
    return FALSE;
  g_autofree char *text = g_ptr_array_steal_index (from, from->len - 1);
  push (to, gtk_editable_get_text (GTK_EDITABLE (entry)));
  apply (entry, h, text);
  return TRUE;
}

gboolean
attnscope_entry_history_undo (GtkEntry *entry)
{
  g_return_val_if_fail (GTK_IS_ENTRY (entry), FALSE);
  return step (entry, TRUE);
}

gboolean
attnscope_entry_history_redo (GtkEntry *entry)
{
  g_return_val_if_fail (GTK_IS_ENTRY (entry), FALSE);
  return step (entry, FALSE);
}

static gboolean
on_undo (GtkWidget *widget, GVariant *args, gpointer user_data)
{
  attnscope_entry_history_undo (GTK_ENTRY (widget));
  return TRUE;
}

static gboolean
on_redo (GtkWidget *widget, GVariant *args, gpointer user_data)
{
  attnscope_entry_history_redo (GTK_ENTRY (widget));
  return TRUE;
}

void
attnscope_entry_history_attach (GtkEntry *entry)
{
  g_return_if_fail (GTK_IS_ENTRY (entry));
  History *h = g_new0 (History, 1);
  h->undo = g_ptr_array_new_with_free_func (g_free);
  h->redo = g_ptr_array_new_with_free_func (g_free);
  h->text = g_strdup (gtk_editable_get_text (GTK_EDITABLE (entry)));
  g_object_set_data_full (G_OBJECT (entry), "attnscope-entry-history", h,
                          (GDestroyNotify) history_free);
  gtk_editable_set_enable_undo (GTK_EDITABLE (entry), FALSE);
  g_signal_connect (entry, "changed", G_CALLBACK (on_changed), h);
  GtkEventController *shortcuts = gtk_shortcut_controller_new ();
  const struct
  {
    const char *trigger;
    GtkShortcutFunc func;
  } keys[] = {
    { "<Control>z", on_undo },
    { "<Control><Shift>z", on_redo },
    { "<Control>y", on_redo },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (keys); i++)
    gtk_shortcut_controller_add_shortcut (
        GTK_SHORTCUT_CONTROLLER (shortcuts),
        gtk_shortcut_new (gtk_shortcut_trigger_parse_string (keys[i].trigger),
                          gtk_callback_action_new (keys[i].func, NULL, NULL)));
  /* before the entry's GtkText, whose own Ctrl+Z would take the key even with its undo off */
  gtk_event_controller_set_propagation_phase (shortcuts, GTK_PHASE_CAPTURE);
  gtk_widget_add_controller (GTK_WIDGET (entry), shortcuts);
}
