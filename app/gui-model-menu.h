/* gui-model-menu.h — the model chooser in the header bar: the models shipped with attnscope, the
 * models in the Hugging Face cache, and "Open Model Folder…" (a native folder chooser). */
#pragma once

#include "attnscope-window.h"

G_BEGIN_DECLS

/* Names of the shipped models (folders with a config.json in the shipped-model folders), sorted,
 * without repeats. */
GStrv gui_model_menu_dup_shipped_names (void);

/* Replaces MENU's items with the current lists; items activate win.load-model. */
void gui_model_menu_fill (GMenu *menu);

/* Asks for a model folder and opens it in WINDOW. */
void gui_model_menu_choose_folder (AttnscopeWindow *window);

G_END_DECLS
