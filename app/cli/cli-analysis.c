/* cli-analysis.c — see cli-analysis.h. */
#include "cli-analysis.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "as-forward.h"
#include "cli-common.h"

AsTrace *
cli_analysis_forward (AsModel *model, const char *text, const char *argument, gboolean truncate,
                      GError **error)
{
  if (!cli_check_text (text, argument, error))
    return NULL;
  AsForwardOptions options = { .all_logits = FALSE };
  return cli_forward_text (model, text, NULL, truncate, &options, error);
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
  return cli_parse_vector_selection_named (command, "--of", "--layer", "--head", of, source, layer,
                                           head);
}

int
cli_parse_vector_selection_named (const char *command, const char *of_option,
                                  const char *layer_option, const char *head_option, const char *of,
                                  AsVectorSource *source, int *layer, int *head)
{
  if (of == NULL)
    return cli_usage_printf (command,
                             "%s embeddings|token-embeddings|contexts|attn_out|hidden is "
                             "required",
                             of_option);
  GError *error = NULL;
  if (!as_vector_source_from_string (of, source, &error))
    {
      int code = cli_usage_printf (command, "%s: %s", of_option, error->message);
      g_error_free (error);
      return code;
    }
  if (*layer == G_MININT && as_vector_source_needs_layer (*source))
    return cli_usage_printf (command, "%s %s needs %s L", of_option, of, layer_option);
  if (*head == G_MININT && as_vector_source_needs_head (*source))
    return cli_usage_printf (command, "%s %s needs %s L and %s H", of_option, of, layer_option,
                             head_option);
  if (*layer == G_MININT || !as_vector_source_needs_layer (*source))
    *layer = 0;
  if (*head == G_MININT)
    *head = -1;
  return CLI_EXIT_OK;
}
