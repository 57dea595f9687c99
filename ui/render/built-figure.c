/* built-figure.c — a figure that owns its data (see built-figure.h). */
#include "built-figure.h"

struct _ArBuiltFigure
{
  grefcount ref;
  ArFigureParts parts;
  GPtrArray *owned;  /* memory freed with g_free */
  GPtrArray *strvs;  /* string vectors freed with g_strfreev */
  GPtrArray *traces; /* traces the parts borrow from */
  GPtrArray *bytes;  /* shared data the parts borrow from (GBytes) */
};

ArBuiltFigure *
ar_built_figure_new (void)
{
  ArBuiltFigure *fig = g_new0 (ArBuiltFigure, 1);
  g_ref_count_init (&fig->ref);
  fig->owned = g_ptr_array_new_with_free_func (g_free);
  fig->strvs = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
  fig->traces = g_ptr_array_new_with_free_func ((GDestroyNotify) as_trace_unref);
  fig->bytes = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  return fig;
}

ArBuiltFigure *
ar_built_figure_ref (ArBuiltFigure *fig)
{
  g_return_val_if_fail (fig != NULL, NULL);
  g_ref_count_inc (&fig->ref);
  return fig;
}

void
ar_built_figure_unref (ArBuiltFigure *fig)
{
  if (fig == NULL || !g_ref_count_dec (&fig->ref))
    return;
  g_ptr_array_unref (fig->owned);
  g_ptr_array_unref (fig->strvs);
  g_ptr_array_unref (fig->traces);
  g_ptr_array_unref (fig->bytes);
  g_free (fig);
}

const ArFigure *
ar_built_figure_get (const ArBuiltFigure *fig)
{
  g_return_val_if_fail (fig != NULL, NULL);
  return &fig->parts.figure;
}

const ArFigureParts *
ar_built_figure_get_parts (const ArBuiltFigure *fig)
{
  g_return_val_if_fail (fig != NULL, NULL);
  return &fig->parts;
}

ArFigureParts *
ar_built_figure_edit (ArBuiltFigure *fig)
{
  return &fig->parts;
}

gpointer
ar_built_figure_take (ArBuiltFigure *fig, gpointer memory)
{
  if (memory != NULL)
    g_ptr_array_add (fig->owned, memory);
  return memory;
}

const char *const *
ar_built_figure_take_strv (ArBuiltFigure *fig, char **strv)
{
  if (strv != NULL)
    g_ptr_array_add (fig->strvs, strv);
  return (const char *const *) strv;
}

gconstpointer
ar_built_figure_keep_bytes (ArBuiltFigure *fig, GBytes *bytes)
{
  g_ptr_array_add (fig->bytes, g_bytes_ref (bytes));
  return g_bytes_get_data (bytes, NULL);
}

void
ar_built_figure_keep_trace (ArBuiltFigure *fig, const AsTrace *trace)
{
  g_ptr_array_add (fig->traces, as_trace_ref ((AsTrace *) trace));
}
