/* export-sidecar.c — the reproduction record beside an exported figure (see export-sidecar.h). */
#include "export-sidecar.h"

#include <errno.h>
#include <json-glib/json-glib.h>
#include <string.h>
#include <unistd.h>

#include "as-error.h"
#include "as-output-file.h"
#include "render-text.h"

#define HASH_BLOCK (1 << 20)

char *
export_sidecar_path (const char *figure_path)
{
  return g_strconcat (figure_path, ".json", NULL);
}

char *
export_sidecar_hash_file (const char *path, GError **error)
{
  g_autoptr (GFile) file = g_file_new_for_path (path);
  GError *local = NULL;
  g_autoptr (GFileInputStream) in = g_file_read (file, NULL, &local);
  if (in == NULL)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_IO, "cannot hash '%s': %s", path, local->message);
      g_error_free (local);
      return NULL;
    }
  g_autoptr (GChecksum) sum = g_checksum_new (G_CHECKSUM_SHA256);
  g_autofree guchar *block = g_malloc (HASH_BLOCK);
  gssize n;
  while ((n = g_input_stream_read (G_INPUT_STREAM (in), block, HASH_BLOCK, NULL, &local)) > 0)
    g_checksum_update (sum, block, n);
  if (n < 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_IO, "cannot hash '%s': %s", path, local->message);
      g_error_free (local);
      return NULL;
    }
  return g_strdup (g_checksum_get_string (sum));
}

static void
set_string (JsonBuilder *b, const char *member, const char *value)
{
  json_builder_set_member_name (b, member);
  if (value != NULL)
    json_builder_add_string_value (b, value);
  else
    json_builder_add_null_value (b);
}

static void
set_double (JsonBuilder *b, const char *member, double value)
{
  json_builder_set_member_name (b, member);
  json_builder_add_double_value (b, value);
}

static void
set_int (JsonBuilder *b, const char *member, gint64 value)
{
  json_builder_set_member_name (b, member);
  json_builder_add_int_value (b, value);
}

gboolean
export_sidecar_write (const char *figure_path, const char *const *argv, const AsModel *model,
                      const char *sha256, const ArExportOptions *options,
                      const ArExportGeometry *geometry, GError **error)
{
  ArExportFormat format;
  if (!ar_export_format_from_path (figure_path, &format, error))
    return FALSE;
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  set_string (b, "attnscope", ATTNSCOPE_VERSION);
  json_builder_set_member_name (b, "command");
  json_builder_begin_array (b);
  GString *line = g_string_new (NULL);
  for (int i = 0; argv[i] != NULL; i++)
    {
      json_builder_add_string_value (b, argv[i]);
      g_autofree char *quoted = g_shell_quote (argv[i]);
      /* Plain words need no quotes. */
      gboolean plain = argv[i][0] != '\0'
                       && strspn (argv[i], "abcdefghijklmnopqrstuvwxyz"
                                           "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                           "0123456789-_./=:,+@%")
                              == strlen (argv[i]);
      g_string_append_printf (line, "%s%s", i > 0 ? " " : "", plain ? argv[i] : quoted);
    }
  json_builder_end_array (b);
  g_autofree char *command_line = g_string_free (line, FALSE);
  set_string (b, "command_line", command_line);

  json_builder_set_member_name (b, "model");
  json_builder_begin_object (b);
  set_string (b, "name", as_model_get_name (model));
  set_string (b, "path", as_model_get_path (model));
  set_string (b, "type", as_model_get_config (model)->model_type);
  set_string (b, "weights", as_model_get_weights_path (model));
  set_string (b, "sha256", sha256);
  json_builder_end_object (b);

  json_builder_set_member_name (b, "figure");
  json_builder_begin_object (b);
  g_autofree char *base = g_path_get_basename (figure_path);
  set_string (b, "file", base);
  set_string (b, "format", ar_export_format_extension (format) + 1);
  set_double (b, "width_pt", geometry->page_w);
  set_double (b, "height_pt", geometry->page_h);
  set_double (b, "font_size_pt", geometry->unit_pt * AR_FONT_TICK);
  if (format == AR_EXPORT_PNG)
    {
      set_int (b, "width_px", geometry->pixel_w);
      set_int (b, "height_px", geometry->pixel_h);
      set_double (b, "dpi", options->dpi);
    }
  json_builder_end_object (b);
  json_builder_end_object (b);

  g_autoptr (JsonGenerator) gen = json_generator_new ();
  json_generator_set_pretty (gen, TRUE);
  g_autoptr (JsonNode) root = json_builder_get_root (b);
  json_generator_set_root (gen, root);
  gsize length = 0;
  g_autofree char *text = json_generator_to_data (gen, &length);
  g_autofree char *path = export_sidecar_path (figure_path);
  /* Through as-output-file.h like the figure: whole or not at all, never over a device. */
  g_autoptr (AsOutputFile) output = as_output_file_new (path, AS_OUTPUT_DEFAULT, error);
  if (output == NULL)
    return FALSE;
  int fd = as_output_file_get_fd (output);
  for (gsize done = 0; done < length;)
    {
      gssize n = write (fd, text + done, length - done);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          int saved = errno;
          g_set_error (error, AS_ERROR, AS_ERROR_IO, "cannot write '%s': %s", path,
                       g_strerror (saved));
          return FALSE;
        }
      done += (gsize) n;
    }
  return as_output_file_commit (output, error);
}
