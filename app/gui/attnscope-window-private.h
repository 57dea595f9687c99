/* attnscope-window-private.h — the main window's fields and the functions its parts share:
 * attnscope-window.c (template, session wiring, what is on screen), attnscope-window-load.c (model
 * loading and the startup model), attnscope-window-actions.c (the window's actions). Private to
 * app/gui/. */
#pragma once

#include "attnscope-window.h"

G_BEGIN_DECLS

struct _AttnscopeWindow
{
  AdwApplicationWindow parent_instance;

  AdwToastOverlay *toast_overlay;
  GtkMenuButton *model_button;
  GtkLabel *model_label;
  GtkSpinner *spinner;
  GtkBox *progress_box; /* the running pass's layers and its Cancel button */
  GtkProgressBar *progress_bar;
  GtkButton *cancel_button;
  GtkEntry *entry;
  GtkEntry *pair_entry;
  GtkLabel *token_count_label;
  GtkBox *target_box; /* a translation model's target and its Translate button */
  GtkEntry *target_entry;
  GtkButton *translate_button;
  GtkSpinner *translate_spinner;
  GtkWidget *source_row;     /* a translation's "Source" caption and strip */
  GtkWidget *target_caption; /* "Target" before the main strip of a translation */
  AttnscopeTokenStrip *source_strip;
  AdwViewStackPage *alignment_stack_page;
  AdwViewStackPage *predictions_stack_page;
  AdwViewStackPage *compare_stack_page;
  AdwViewStackPage *ablation_stack_page;
  GtkRevealer *error_revealer;
  GtkLabel *error_label;
  GtkButton *truncate_button;
  AttnscopeTokenStrip *token_strip;
  AttnscopeWhatifChip *whatif_chip; /* heads switched off, positions left out */
  GtkStack *content_stack;
  AdwStatusPage *status_page;
  GtkButton *status_button;
  AdwViewStack *view_stack;

  AttnscopeSession *session;
  AttnscopeRun *main_run; /* the session's main text (borrowed) */
  GSettings *settings;    /* may be NULL */
  GCancellable *loading;  /* the model load in flight */
  char *last_error;       /* also what the toast's Details button shows */
  GMenu *model_menu;      /* shipped models, the Hugging Face cache, "Open Model Folder…" */
  GStrv startup_candidates;
  guint startup_index;
  gboolean startup_from_settings; /* the first candidate is the last model of the settings */
  gboolean syncing_entry;         /* the entry is being set from the main run */
  gboolean syncing_target;        /* the target entry is being set from the main run */
};

/* The pages in the order of their Alt+N shortcuts (the alignment page shows only for translation
 * models); NULL-terminated. */
extern const char *const attnscope_window_page_names[];

/* attnscope-window.c: the spinner and the status page follow the load and the runs. */
void attnscope_window_refresh_status (AttnscopeWindow *self);

/* attnscope-window-actions.c: the win.* actions of the class, and the session's view-state and
 * load-model actions of SELF. */
void attnscope_window_class_add_actions (GtkWidgetClass *widget_class);
void attnscope_window_add_session_actions (AttnscopeWindow *self);

/* attnscope-window-load.c: cancels the model load in flight (dispose); asks for a model folder
 * and opens it (win.open-model-folder). */
void attnscope_window_cancel_loading (AttnscopeWindow *self);
void attnscope_window_choose_model_folder (AttnscopeWindow *self);

/* A toast saying TEXT (plain text) in a label cut in the middle, its whole text as the tooltip
 * (attnscope-window-toasts.c). */
AdwToast *attnscope_window_toast_new (const char *text);

G_END_DECLS
