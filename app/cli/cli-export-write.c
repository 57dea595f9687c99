/* cli-export-write.c — writes a figure `attnscope export` built (cli-export-write.h): the file,
 * its sidecar with the command that made it, and the line that says what was written. */
#include "cli-export-write.h"

#include <math.h>
#include <stdio.h>

#include "cli-common.h"
#include "export-sidecar.h"
#include "figure-export.h"

/* The sidecar of PATH: the command that wrote it (ARGV as given), the model and its hash. */
static gboolean
write_sidecar (const char *path, char **argv, const AsModel *model, const ExportRequest *req,
               const ArExportGeometry *g, GError **error)
{
  g_autofree char *sha256 = export_sidecar_hash_file (as_model_get_weights_path (model), error);
  if (sha256 == NULL)
    return FALSE;
  g_autoptr (GPtrArray) command = g_ptr_array_new ();
  g_ptr_array_add (command, "attnscope");
  for (int i = 0; argv[i] != NULL; i++)
    g_ptr_array_add (command, argv[i]);
  g_ptr_array_add (command, NULL);
  return export_sidecar_write (path, (const char *const *) command->pdata, model, sha256,
                               &req->options, g, error);
}

int
cli_export_write_figure (ArBuiltFigure *built, const char *path, const ExportRequest *req,
                         const AsModel *model, char **argv)
{
  GError *error = NULL;
  const ArFigure *fig = ar_built_figure_get (built);
  if (fig->kind == AR_FIGURE_COMPARE && fig->compare->diff == NULL && fig->compare->note != NULL)
    fprintf (stderr, "attnscope: note: %s\n", fig->compare->note);
  AsOutputFlags flags = req->force ? AS_OUTPUT_FORCE : AS_OUTPUT_DEFAULT;
  ArExportGeometry g;
  if (!ar_export_geometry (fig, &req->options, &g, &error)
      || !ar_figure_export_with_options (fig, path, &req->options, flags, &error))
    return cli_fail (error);
  if (req->sidecar && !write_sidecar (path, argv, model, req, &g, &error))
    return cli_fail (error);
  ArExportFormat format = AR_EXPORT_PNG;
  ar_export_format_from_path (path, &format, NULL);
  if (format == AR_EXPORT_PNG)
    printf ("wrote %s (%d x %d px, %g dpi)\n", path, g.pixel_w, g.pixel_h, req->options.dpi);
  else
    printf ("wrote %s (%g x %g pt)\n", path, round (g.page_w * 100) / 100,
            round (g.page_h * 100) / 100);
  return CLI_EXIT_OK;
}
