/* attnscope-window.h — the main window: the model chooser and run indicator in the header, the
 * text entry with its inline error and token strip, and the pages (attention, heads, similarity,
 * embeddings, compare, predictions) in a view stack. The window owns the session every page
 * shows. */
#pragma once

#include <adwaita.h>

#include "attnscope-page.h"
#include "attnscope-session.h"
#include "attnscope-token-strip.h"
#include "attnscope-whatif-chip.h"

G_BEGIN_DECLS

#define ATTNSCOPE_TYPE_WINDOW (attnscope_window_get_type ())

G_DECLARE_FINAL_TYPE (AttnscopeWindow, attnscope_window, ATTNSCOPE, WINDOW, AdwApplicationWindow)

/* A window of APPLICATION remembering its model, view and page in SETTINGS (NULL: nothing is
 * remembered). */
AttnscopeWindow *attnscope_window_new (GtkApplication *application, GSettings *settings);
/* The settings given to attnscope_window_new (borrowed; may be NULL). */
GSettings *attnscope_window_get_settings (AttnscopeWindow *self);

AttnscopeSession *attnscope_window_get_session (AttnscopeWindow *self);
AttnscopeTokenStrip *attnscope_window_get_token_strip (AttnscopeWindow *self);
/* The chip under the text that says which heads are switched off (attnscope-whatif-chip.h). */
AttnscopeWhatifChip *attnscope_window_get_whatif_chip (AttnscopeWindow *self);
/* The page named NAME ("attention", "heads", "similarity", "embeddings", "compare",
 * "predictions"), or NULL. */
AttnscopePage *attnscope_window_get_page (AttnscopeWindow *self, const char *name);
/* Shows page NAME. */
void attnscope_window_show_page (AttnscopeWindow *self, const char *name);

/* Puts TEXT in the entry (which runs it). */
void attnscope_window_set_text (AttnscopeWindow *self, const char *text);
/* The line under the entry (why the text cannot run, or what was truncated; for a pair both
 * texts' lengths), or NULL when none shows. */
const char *attnscope_window_get_input_message (AttnscopeWindow *self);
/* The token count beside the entry ("" for none), counted when the text changed. */
const char *attnscope_window_get_token_count (AttnscopeWindow *self);
/* The title of the page shown instead of the views ("Type a Sentence", "No Model", ...), or NULL
 * while the views show. */
const char *attnscope_window_get_status_title (AttnscopeWindow *self);
/* Whether the Sentence B entry shows (the model takes pairs). */
gboolean attnscope_window_get_pair_visible (AttnscopeWindow *self);
/* Sets the second sentence of a pair (Sentence B; NULL or "": none), as typing it does. */
void attnscope_window_set_pair (AttnscopeWindow *self, const char *pair);

/* Opens the model SPEC (folder, shipped name or hub id) off the main thread. On failure a toast
 * shows the error and the current model stays. */
void attnscope_window_open_model (AttnscopeWindow *self, const char *spec);
/* Opens the first model that loads of: the last model (settings), the default model, the shipped
 * models in name order. */
void attnscope_window_open_startup_model (AttnscopeWindow *self);
/* TRUE while a model is being loaded. */
gboolean attnscope_window_get_loading (AttnscopeWindow *self);
/* The model name the header shows. */
const char *attnscope_window_get_model_label (AttnscopeWindow *self);
/* The message of the last error shown in a toast, or NULL. */
const char *attnscope_window_get_last_error (AttnscopeWindow *self);

/* Shows MESSAGE in a toast. */
void attnscope_window_show_toast (AttnscopeWindow *self, const char *message);
/* Shows "Saved PATH" in a toast with an Open Folder button (win.show-folder with the URI of
 * PATH's folder as its target). */
void attnscope_window_show_saved (AttnscopeWindow *self, const char *path);
/* Shows an error: a toast with a Details button opening the full MESSAGE. */
void attnscope_window_show_error (AttnscopeWindow *self, const char *summary, const char *message);

/* A translation model's target text: its entry (hidden for other models, get_target_visible),
 * and the Translate button that fills it with the model's translation (win.translate). */
void attnscope_window_set_target (AttnscopeWindow *self, const char *target);
const char *attnscope_window_get_target (AttnscopeWindow *self);
gboolean attnscope_window_get_target_visible (AttnscopeWindow *self);
GtkButton *attnscope_window_get_translate_button (AttnscopeWindow *self);
/* The strip of a translation's source tokens (above the target's). */
AttnscopeTokenStrip *attnscope_window_get_source_strip (AttnscopeWindow *self);

/* Asks for PAGE's figure to be exported: emits "export-figure" (void (*) (AttnscopeWindow *,
 * AttnscopePage *page, gpointer)), which the application answers with the export dialog
 * (attnscope-application.c); win.export-figure and win.export-all-heads call it. A window
 * nobody listens to exports nothing. */
void attnscope_window_export_figure (AttnscopeWindow *self, AttnscopePage *page);

G_END_DECLS
