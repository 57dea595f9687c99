/* cli-merge.c — `attnscope merge PART...`: joins the part files that the shards of a corpus run
 * wrote (`stats --lines F --shard K/N -o part-K.json`, cli-shard.h) into exactly what one
 * process prints for the whole corpus (same text or JSON, the same bits: the parts hold exact
 * sums). The parts must be one complete run (as_shard_parts_check): the same command, model,
 * corpus, options and N, each shard once. Output on stdout, or with -o in a file. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "as-error.h"
#include "as-output-file.h"
#include "as-shard.h"
#include "cli-analysis.h"
#include "cli-commands.h"
#include "cli-common.h"
#include "cli-shard.h"

/* The commands whose parts merge knows; each merger formats what its command prints. */
static const struct
{
  const char *command;
  CliShardMergeFunc merge;
} mergers[] = {
  { "stats", cli_stats_merge },
  { "perplexity", cli_perplexity_merge },
  { "ablate", cli_ablate_merge },
  { "patch", cli_patch_merge },
};

static CliShardMergeFunc
find_merger (const char *command)
{
  for (gsize i = 0; i < G_N_ELEMENTS (mergers); i++)
    if (strcmp (mergers[i].command, command) == 0)
      return mergers[i].merge;
  return NULL;
}

static gboolean
write_output (const char *path, const GString *text, GError **error)
{
  g_autoptr (AsOutputFile) out = as_output_file_new (path, AS_OUTPUT_DEFAULT, error);
  if (out == NULL)
    return FALSE;
  int fd = as_output_file_get_fd (out);
  gsize done = 0;
  while (done < text->len)
    {
      gssize n = write (fd, text->str + done, text->len - done);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          g_set_error (error, AS_ERROR, AS_ERROR_IO, "cannot write '%s': %s", path,
                       g_strerror (errno));
          return FALSE;
        }
      done += n;
    }
  return as_output_file_commit (out, error);
}

/* Reads, checks and merges the part files FILES [N] into OUT. */
static gboolean
merge_parts (GString *out, char **files, int n, gboolean json, GError **error)
{
  g_autoptr (GPtrArray) parts
      = g_ptr_array_new_with_free_func ((GDestroyNotify) as_shard_part_free);
  for (int i = 0; i < n; i++)
    {
      AsShardPart *part = as_shard_part_read (files[i], error);
      if (part == NULL)
        return FALSE;
      g_ptr_array_add (parts, part);
    }
  if (!as_shard_parts_check (parts, error))
    return FALSE;
  const AsShardPart *first = parts->pdata[0];
  CliShardMergeFunc merge = find_merger (first->command);
  if (merge == NULL)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "'%s' is a part of '%s', whose parts this attnscope cannot merge", first->path,
                   first->command);
      return FALSE;
    }
  return merge (out, parts, json, error);
}

int
cli_merge (int argc, char **argv)
{
  g_autofree char *output = NULL;
  gboolean json = FALSE;
  const GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
      "Write the merged result to FILE (whole or not at all) instead of standard output", "FILE" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print JSON (as the command's --json)", NULL },
    { NULL },
  };
  int code;
  if (!cli_parse_options ("merge", "PART...",
                          "Join the part files of a sharded corpus run (--shard K/N -o PART) into "
                          "the result of one run over the whole corpus.",
                          entries, &argc, &argv, &code))
    return code;
  if (argc < 2)
    return cli_usage_printf ("merge", "give the part files to merge (e.g. part-*.json)");
  code = cli_check_output_name ("merge", "-o", output);
  if (code >= 0)
    return code;
  GError *error = NULL;
  if (output != NULL && !as_output_file_check (output, AS_OUTPUT_DEFAULT, &error))
    return cli_fail (error);
  g_autoptr (GString) out = g_string_new (NULL);
  if (!merge_parts (out, argv + 1, argc - 1, json, &error))
    return cli_fail (error);
  if (output == NULL)
    cli_print (out);
  else if (!write_output (output, out, &error))
    return cli_fail (error);
  return CLI_EXIT_OK;
}
