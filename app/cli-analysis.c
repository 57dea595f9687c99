/* cli-analysis.c — see cli-analysis.h. */
#include "cli-analysis.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "as-forward.h"
#include "cli.h"

AsTrace *
cli_analysis_forward (AsModel *model, const char *text, const char *argument, gboolean truncate,
                      GError **error)
{
  if (!cli_check_text (text, argument, error))
    return NULL;
  AsForwardOptions options = { .all_logits = FALSE };
  return as_forward_text (model, text, truncate, &options, error);
}

void
cli_csv_append_field (GString *buf, const char *s)
{
  if (strpbrk (s, ",\"\r\n") == NULL)
    {
      g_string_append (buf, s);
      return;
    }
  g_string_append_c (buf, '"');
  for (const char *p = s; *p != '\0'; p++)
    {
      if (*p == '"')
        g_string_append_c (buf, '"');
      g_string_append_c (buf, *p);
    }
  g_string_append_c (buf, '"');
}

void
cli_print (const GString *buf)
{
  fwrite (buf->str, 1, buf->len, stdout);
}

int
cli_parse_vector_selection (const char *command, const char *of, AsVectorSource *source, int *layer,
                            int *head)
{
  if (of == NULL)
    return cli_usage_printf (command, "--of embeddings|contexts|attn_out|hidden is required");
  GError *error = NULL;
  if (!as_vector_source_from_string (of, source, &error))
    {
      int code = cli_usage_printf (command, "--of: %s", error->message);
      g_error_free (error);
      return code;
    }
  if (*layer == G_MININT && *source != AS_VECTORS_EMBEDDINGS)
    return cli_usage_printf (command, "--of %s needs --layer L", of);
  if (*head == G_MININT && as_vector_source_needs_head (*source))
    return cli_usage_printf (command, "--of %s needs --layer L and --head H", of);
  if (*layer == G_MININT || *source == AS_VECTORS_EMBEDDINGS)
    *layer = 0;
  if (*head == G_MININT)
    *head = -1;
  return CLI_EXIT_OK;
}
