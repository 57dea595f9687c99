/* cli-list.c — `attnscope list [--json]`: the models in the Hugging Face hub cache (the one
 * `attnscope download` and Python's huggingface_hub write to), one line per snapshot: id,
 * revision (the refs naming it), commit, size, config.json's model type, and whether attnscope
 * opens it (and why not). A download that never finished is listed too. Never connects. */
#include <stdio.h>
#include <string.h>

#include "as-hub.h"
#include "cli-commands.h"
#include "cli-common.h"
#include "cli-json.h"

static void
print_json (const char *cache, GPtrArray *models)
{
  g_autoptr (JsonBuilder) out = json_builder_new ();
  json_builder_begin_object (out);
  cli_json_set_string (out, "cache", cache);
  json_builder_set_member_name (out, "models");
  json_builder_begin_array (out);
  for (guint i = 0; i < models->len; i++)
    {
      const AsHubCachedModel *m = models->pdata[i];
      json_builder_begin_object (out);
      cli_json_set_string (out, "id", m->repo_id);
      json_builder_set_member_name (out, "refs");
      json_builder_begin_array (out);
      g_auto (GStrv) refs = g_strsplit (m->refs != NULL ? m->refs : "", ", ", -1);
      for (guint r = 0; refs[r] != NULL; r++)
        if (*refs[r] != '\0')
          json_builder_add_string_value (out, refs[r]);
      json_builder_end_array (out);
      json_builder_set_member_name (out, "commit");
      if (m->commit != NULL)
        json_builder_add_string_value (out, m->commit);
      else
        json_builder_add_null_value (out);
      cli_json_set_string (out, "path", m->path);
      cli_json_set_int (out, "size", (gint64) MIN (m->size, G_MAXINT64));
      json_builder_set_member_name (out, "model_type");
      if (m->model_type != NULL)
        json_builder_add_string_value (out, m->model_type);
      else
        json_builder_add_null_value (out);
      json_builder_set_member_name (out, "opens");
      json_builder_add_boolean_value (out, m->opens);
      json_builder_set_member_name (out, "reason");
      if (m->reason != NULL)
        json_builder_add_string_value (out, m->reason);
      else
        json_builder_add_null_value (out);
      json_builder_end_object (out);
    }
  json_builder_end_array (out);
  json_builder_end_object (out);
  cli_json_print (out);
}

/* One row of the table: the cells, in the columns' order. */
static GStrv
row_of (const AsHubCachedModel *m)
{
  GStrv row = g_new0 (char *, 7);
  row[0] = g_strdup (m->repo_id);
  row[1] = g_strdup (m->refs != NULL ? m->refs : "-");
  row[2] = m->commit != NULL ? g_strndup (m->commit, 12) : g_strdup ("-");
  row[3] = as_hub_format_size (m->size);
  row[4] = g_strdup (m->model_type != NULL ? m->model_type : "-");
  row[5] = m->opens ? g_strdup ("yes") : g_strdup_printf ("no: %s", m->reason);
  return row;
}

static void
print_table (const char *cache, GPtrArray *models)
{
  if (models->len == 0)
    {
      printf ("no models in the Hugging Face cache %s (attnscope download ORG/NAME adds one)\n",
              cache);
      return;
    }
  printf ("Hugging Face cache: %s\n", cache);
  static const char *const heads[] = { "ID", "REVISION", "COMMIT", "SIZE", "TYPE", "OPENS" };
  g_autoptr (GPtrArray) rows = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
  int width[G_N_ELEMENTS (heads)];
  for (gsize c = 0; c < G_N_ELEMENTS (heads); c++)
    width[c] = (int) strlen (heads[c]);
  for (guint i = 0; i < models->len; i++)
    {
      GStrv row = row_of (models->pdata[i]);
      for (gsize c = 0; c + 1 < G_N_ELEMENTS (heads); c++)
        width[c] = MAX (width[c], (int) strlen (row[c]));
      g_ptr_array_add (rows, row);
    }
  for (gsize c = 0; c < G_N_ELEMENTS (heads); c++)
    printf (c + 1 < G_N_ELEMENTS (heads) ? "%-*s  " : "%-*s\n", width[c], heads[c]);
  for (guint i = 0; i < rows->len; i++)
    {
      GStrv row = rows->pdata[i];
      for (gsize c = 0; c < G_N_ELEMENTS (heads); c++)
        printf (c + 1 < G_N_ELEMENTS (heads) ? "%-*s  " : "%-*s\n", width[c], row[c]);
    }
}

int
cli_list (int argc, char **argv)
{
  gboolean json = FALSE;
  const GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print JSON", NULL },
    { NULL },
  };
  int exit_code = CLI_EXIT_OK;
  if (!cli_parse_options ("list", "",
                          "List the models in the Hugging Face cache ($HF_HUB_CACHE, else "
                          "$HF_HOME/hub, else ~/.cache/huggingface/hub).",
                          entries, &argc, &argv, &exit_code))
    return exit_code;
  if (argc != 1)
    return cli_usage_printf ("list", "list takes no arguments");
  g_autofree char *cache = as_hub_dup_cache_dir ();
  GError *error = NULL;
  g_autoptr (GPtrArray) models = as_hub_list_cached (cache, &error);
  if (models == NULL)
    return cli_fail (error);
  if (json)
    print_json (cache, models);
  else
    print_table (cache, models);
  return CLI_EXIT_OK;
}
