/* gui-model-menu.c — listing the models a user can open (see gui-model-menu.h). */
#include "gui-model-menu.h"

#include <glib/gi18n.h>

#include "as-model.h"

static int
compare_strings (gconstpointer a, gconstpointer b)
{
  return g_strcmp0 (*(char *const *) a, *(char *const *) b);
}

GStrv
gui_model_menu_dup_shipped_names (void)
{
  g_auto (GStrv) dirs = as_model_dup_shipped_dirs ();
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; dirs[i] != NULL; i++)
    {
      g_autoptr (GDir) dir = g_dir_open (dirs[i], 0, NULL);
      const char *entry;
      while (dir != NULL && (entry = g_dir_read_name (dir)) != NULL)
        {
          g_autofree char *config = g_build_filename (dirs[i], entry, "config.json", NULL);
          if (!g_file_test (config, G_FILE_TEST_IS_REGULAR))
            continue;
          if (!g_ptr_array_find_with_equal_func (names, entry, g_str_equal, NULL))
            g_ptr_array_add (names, g_strdup (entry));
        }
    }
  g_ptr_array_sort (names, compare_strings);
  g_ptr_array_add (names, NULL);
  return (GStrv) g_ptr_array_steal (names, NULL);
}

static GMenu *
section_of (const char *const *specs)
{
  GMenu *section = g_menu_new ();
  for (guint i = 0; specs[i] != NULL; i++)
    {
      g_autoptr (GMenuItem) item = g_menu_item_new (specs[i], NULL);
      g_menu_item_set_action_and_target_value (item, "win.load-model",
                                               g_variant_new_string (specs[i]));
      g_menu_append_item (section, item);
    }
  return section;
}

void
gui_model_menu_fill (GMenu *menu)
{
  g_menu_remove_all (menu);
  g_auto (GStrv) shipped = gui_model_menu_dup_shipped_names ();
  g_auto (GStrv) cached = as_model_dup_cached_hub_ids ();
  if (shipped[0] != NULL)
    {
      g_autoptr (GMenu) section = section_of ((const char *const *) shipped);
      g_menu_append_section (menu, _ ("Shipped with attnscope"), G_MENU_MODEL (section));
    }
  if (cached[0] != NULL)
    {
      g_autoptr (GMenu) section = section_of ((const char *const *) cached);
      g_menu_append_section (menu, _ ("Hugging Face cache"), G_MENU_MODEL (section));
    }
  g_autoptr (GMenu) open = g_menu_new ();
  g_menu_append (open, _ ("_Open Model Folder…"), "win.open-model-folder");
  g_menu_append (open, _ ("_Download a Model…"), "app.download-model");
  g_menu_append_section (menu, NULL, G_MENU_MODEL (open));
}
