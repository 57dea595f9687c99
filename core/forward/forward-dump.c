/* forward-dump.c — a model's trace dumped with its logits read out while the file is written
 * (as-forward-dump.h). */
#include "as-forward-dump.h"

#include "as-forward.h"

typedef struct
{
  AsModel *model;
  const AsTrace *trace;
} LogitsReader;

/* Logits rows FIRST … FIRST + N − 1 of the reader's trace: hidden[L] through the output head. */
static gboolean
read_logits_rows (gpointer data, int first, int n, float *out, GError **error)
{
  const LogitsReader *reader = data;
  g_autofree int *positions = g_new (int, MAX (n, 1));
  for (int i = 0; i < n; i++)
    positions[i] = first + i;
  return as_forward_read_out (reader->model, reader->trace, reader->trace->n_layer, positions, n,
                              out, error);
}

gboolean
as_forward_dump_h5 (AsModel *model, const AsTrace *trace, const AsTraceDumpSelection *selection,
                    const char *path, AsOutputFlags flags, GError **error)
{
  g_return_val_if_fail (model != NULL && trace != NULL, FALSE);
  LogitsReader reader = { model, trace };
  return as_trace_dump_h5_streamed (trace, as_model_get_name (model),
                                    as_model_get_config (model)->model_type, selection,
                                    read_logits_rows, &reader, path, flags, error);
}
