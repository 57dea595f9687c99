/* cli-json.c — JSON output through json-glib (see cli-json.h). */
#include "cli-json.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void
cli_json_add_number (JsonBuilder *builder, double value)
{
  if (isfinite (value))
    json_builder_add_double_value (builder, value);
  else
    json_builder_add_null_value (builder);
}

void
cli_json_set_number (JsonBuilder *builder, const char *member, double value)
{
  json_builder_set_member_name (builder, member);
  cli_json_add_number (builder, value);
}

void
cli_json_set_int (JsonBuilder *builder, const char *member, gint64 value)
{
  json_builder_set_member_name (builder, member);
  json_builder_add_int_value (builder, value);
}

void
cli_json_set_string (JsonBuilder *builder, const char *member, const char *value)
{
  json_builder_set_member_name (builder, member);
  json_builder_add_string_value (builder, value);
}

void
cli_json_set_tokens (JsonBuilder *builder, const char *member, const AsTrace *trace)
{
  json_builder_set_member_name (builder, member);
  json_builder_begin_array (builder);
  for (int i = 0; i < trace->n_tokens; i++)
    json_builder_add_string_value (builder, trace->tokens[i]);
  json_builder_end_array (builder);
}

static char *
node_to_line (JsonNode *node)
{
  g_autoptr (JsonGenerator) generator = json_generator_new ();
  json_generator_set_root (generator, node);
  g_autofree char *text = json_generator_to_data (generator, NULL);
  return g_strconcat (text, "\n", NULL);
}

char *
cli_json_to_line (JsonBuilder *builder)
{
  g_autoptr (JsonNode) root = json_builder_get_root (builder);
  return node_to_line (root);
}

void
cli_json_print (JsonBuilder *builder)
{
  g_autofree char *line = cli_json_to_line (builder);
  fputs (line, stdout);
}

char *
cli_json_quote (const char *s)
{
  g_autoptr (JsonNode) node = json_node_init_string (json_node_alloc (), s);
  g_autofree char *line = node_to_line (node);
  return g_strndup (line, strlen (line) - 1);
}
