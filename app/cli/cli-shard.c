/* cli-shard.c — the --shard K/N -o FILE options of the corpus commands (cli-shard.h). */
#include "cli-shard.h"

#include "as-error.h"
#include "as-output-file.h"

int
cli_shard_setup (CliShard *shard, const char *command, const char *shard_text,
                 const char *part_path)
{
  *shard = (CliShard){ .command = command, .spec = { 0, 1 }, .path = part_path };
  if (shard_text == NULL && part_path == NULL)
    return -1;
  if (shard_text == NULL)
    return cli_usage_printf (command, "-o writes a shard's part: it goes with --shard K/N");
  if (part_path == NULL)
    return cli_usage_printf (command, "--shard %s needs -o FILE, the part file to write",
                             shard_text);
  GError *error = NULL;
  if (!as_shard_spec_parse (&shard->spec, shard_text, "--shard", &error))
    {
      int code = cli_usage_printf (command, "%s", error->message);
      g_error_free (error);
      return code;
    }
  int code = cli_check_output_name (command, "-o", part_path);
  if (code >= 0)
    return code;
  if (!as_output_file_check (part_path, AS_OUTPUT_DEFAULT, &error))
    return cli_fail (error);
  shard->active = TRUE;
  return -1;
}

void
cli_shard_clear (CliShard *shard)
{
  g_clear_pointer (&shard->corpus_sha256, g_free);
}

typedef struct
{
  CliShard *shard;
  CliLineFunc func;
  gpointer user_data;
} ShardLines;

static gboolean
shard_line (const char *line, gpointer user_data, GError **error)
{
  ShardLines *job = user_data;
  gint64 index = job->shard->n_items++;
  if (!as_shard_spec_takes (&job->shard->spec, index))
    return TRUE;
  job->shard->n_taken++;
  return job->func (line, job->user_data, error);
}

gboolean
cli_shard_foreach_line (CliShard *shard, const char *option, const char *path, CliLineFunc func,
                        gpointer user_data, GError **error)
{
  shard->n_items = shard->n_taken = 0;
  if (!shard->active)
    return cli_foreach_text_line_named (option, path, func, user_data, error);
  gsize length = 0;
  g_autofree char *contents = cli_read_lines_file (path, &length, error);
  if (contents == NULL)
    return FALSE;
  g_free (shard->corpus_sha256);
  shard->corpus_sha256 = as_shard_sha256_hex (contents, length);
  ShardLines job = { shard, func, user_data };
  return cli_foreach_text_line_named (option, path, shard_line, &job, error);
}

gboolean
cli_shard_write_part (CliShard *shard, AsModel *model, JsonNode *options, JsonNode *result,
                      GError **error)
{
  g_autoptr (AsShardPart) part = as_shard_part_new ();
  part->options = options;
  part->result = result;
  part->model_fingerprint = as_shard_model_fingerprint (as_model_get_path (model), error);
  if (part->model_fingerprint == NULL)
    return FALSE;
  part->command = g_strdup (shard->command);
  part->spec = shard->spec;
  part->model_name = g_strdup (as_model_get_name (model));
  part->corpus_sha256 = g_strdup (shard->corpus_sha256);
  part->corpus_items = shard->n_items;
  part->items = shard->n_taken;
  return as_shard_part_write (part, shard->path, error);
}
