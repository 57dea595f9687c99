/* gui-model-menu.h — the model chooser in the header bar: the models shipped with attnscope, the
 * models in the Hugging Face cache, "Open Model Folder…" (win.open-model-folder, whose folder
 * chooser is the window's: attnscope-window-load.c) and "Download a Model…" (app.download-model,
 * the application's: attnscope-download-dialog.c). */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* Names of the shipped models (folders with a config.json in the shipped-model folders), sorted,
 * without repeats. */
GStrv gui_model_menu_dup_shipped_names (void);

/* Replaces MENU's items with the current lists; items activate win.load-model. */
void gui_model_menu_fill (GMenu *menu);

G_END_DECLS
