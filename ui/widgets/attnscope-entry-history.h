/* attnscope-entry-history.h — undo and redo for an entry whose text the program replaces too.
 *
 * GtkText records a replaced text as two steps, deleting all and inserting the new text, so after
 * Fill or Append the first Ctrl+Z left the entry empty (and, an empty text keeping the last
 * figure, the old figure on screen) and only a second one brought the text back. An entry with
 * this history has GTK's own undo turned off and keeps its own: a replacement
 * (attnscope_entry_history_replace) is one step, typing is one step per burst (edits less than a
 * second apart are one step, as in a text editor), Ctrl+Z undoes and Ctrl+Shift+Z or Ctrl+Y redo.
 * Every change, undo and redo included, reaches the entry as one "changed" with the whole new
 * text (never an empty text in between). */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Gives ENTRY (a GtkEntry) the history, replacing GTK's. */
void attnscope_entry_history_attach (GtkEntry *entry);

/* Sets ENTRY's text to TEXT as one step of its history (nothing when it is the text already). */
void attnscope_entry_history_replace (GtkEntry *entry, const char *text);

/* Undoes or redoes one step; FALSE when there is none. */
gboolean attnscope_entry_history_undo (GtkEntry *entry);
gboolean attnscope_entry_history_redo (GtkEntry *entry);

G_END_DECLS
