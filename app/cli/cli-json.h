/* cli-json.h — the JSON the subcommands print, built with json-glib's JsonBuilder and written by
 * its JsonGenerator (escaping, nesting and commas are json-glib's, not ours).
 *
 * Numbers: integers (ids, indices, counts) are JSON integers; every other number is a double,
 * which json-glib writes with 17 significant digits — enough to read back exactly the float32 or
 * double value that was computed, so no precision is lost. NaN and the infinities, which JSON
 * cannot express, are written as null. Output is compact, one document per line. */
#pragma once

#include <json-glib/json-glib.h>

#include "as-trace.h"

G_BEGIN_DECLS

/* Adds VALUE to the array being built (null when not finite). */
void cli_json_add_number (JsonBuilder *builder, double value);

/* Sets MEMBER of the object being built to VALUE: a number (null when not finite), an integer or
 * a string. */
void cli_json_set_number (JsonBuilder *builder, const char *member, double value);
void cli_json_set_int (JsonBuilder *builder, const char *member, gint64 value);
void cli_json_set_string (JsonBuilder *builder, const char *member, const char *value);

/* Sets MEMBER to the array of TRACE's token strings. */
void cli_json_set_tokens (JsonBuilder *builder, const char *member, const AsTrace *trace);

/* BUILDER's document as one line ending in "\n" (free with g_free). */
char *cli_json_to_line (JsonBuilder *builder);

/* Writes BUILDER's document to stdout as one line. */
void cli_json_print (JsonBuilder *builder);

/* S as a JSON string literal with its quotes (the text outputs quote tokens this way). */
char *cli_json_quote (const char *s);

G_END_DECLS
