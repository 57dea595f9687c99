/* cli-dump-select.c — `run --dump --layers 3,7 --heads 0-3` (cli-dump-select.h). */
#include "cli-dump-select.h"

#include "as-error.h"

/* The largest index a list may name: the biggest models have ~100 layers and ~128 heads. */
#define SELECT_INDEX_MAX 1000000

static int
compare_ints (gconstpointer a, gconstpointer b)
{
  int x = *(const int *) a, y = *(const int *) b;
  return (x > y) - (x < y);
}

static gboolean
parse_index (const char *text, guint64 *value)
{
  g_autofree char *part = g_strstrip (g_strdup (text));
  return g_ascii_string_to_unsigned (part, 10, 0, SELECT_INDEX_MAX, value, NULL);
}

GArray *
cli_dump_select_parse (const char *spec, const char *argument, GError **error)
{
  g_autoptr (GArray) list = g_array_new (FALSE, FALSE, sizeof (int));
  g_auto (GStrv) items = g_strsplit (spec, ",", -1);
  if (items[0] == NULL)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT, "%s is empty: give indices such as 0,3 or 0-3",
                   argument);
      return NULL;
    }
  for (int i = 0; items[i] != NULL; i++)
    {
      g_auto (GStrv) ends = g_strsplit (items[i], "-", 3);
      guint64 first = 0, last = 0;
      gboolean ok = ends[0] != NULL && parse_index (ends[0], &first);
      if (ok && ends[1] != NULL)
        ok = ends[2] == NULL && parse_index (ends[1], &last) && first <= last;
      else
        last = first;
      if (!ok)
        {
          g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                       "%s: '%s' (item %d) is not an index or a range such as 0-3", argument,
                       items[i], i + 1);
          return NULL;
        }
      for (guint64 v = first; v <= last; v++)
        {
          int n = (int) v;
          g_array_append_val (list, n);
        }
    }
  g_array_sort (list, compare_ints);
  guint kept = 0;
  for (guint i = 0; i < list->len; i++)
    if (kept == 0 || g_array_index (list, int, i) != g_array_index (list, int, kept - 1))
      g_array_index (list, int, kept++) = g_array_index (list, int, i);
  g_array_set_size (list, kept);
  return g_steal_pointer (&list);
}

/* Fails when LIST holds an index ≥ COUNT, naming the model's COUNT NOUNs. */
static gboolean
check_below (const GArray *list, int count, const char *argument, const char *noun, AsModel *model,
             GError **error)
{
  if (list == NULL || list->len == 0 || g_array_index (list, int, list->len - 1) < count)
    return TRUE;
  g_set_error (error, AS_ERROR, AS_ERROR_INPUT, "%s: %s %d is out of range: %s has %d %ss (0-%d)",
               argument, noun, g_array_index (list, int, list->len - 1), as_model_get_name (model),
               count, noun, count - 1);
  return FALSE;
}

gboolean
cli_dump_select_check (AsTraceDumpSelection *selection, AsModel *model, const GArray *layers,
                       const GArray *heads, GError **error)
{
  const AsConfig *c = as_model_get_config (model);
  int L = c->encoder_decoder ? MIN (c->n_layer, c->n_encoder_layer) : c->n_layer;
  int H = c->encoder_decoder ? MIN (c->n_head, c->n_encoder_head) : c->n_head;
  if (!check_below (layers, L, "--layers", "layer", model, error)
      || !check_below (heads, H, "--heads", "head", model, error))
    return FALSE;
  *selection = (AsTraceDumpSelection){
    .layers = layers != NULL ? &g_array_index (layers, int, 0) : NULL,
    .n_layers = layers != NULL ? (int) layers->len : 0,
    .heads = heads != NULL ? &g_array_index (heads, int, 0) : NULL,
    .n_heads = heads != NULL ? (int) heads->len : 0,
  };
  return TRUE;
}
