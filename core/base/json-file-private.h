/* json-file-private.h — JSON input bounded before json-glib sees it.
 *
 * json-glib parses recursively: a document nested 100,000 deep overflows the stack. And it wraps
 * integers past 64 bits silently (9223372036854775808 reads as -9223372036854775808) and turns
 * 1e999 into infinity, so a range check would report a value the file does not hold. So the text
 * is scanned first (strings skipped) and refused when arrays and objects nest deeper than
 * AS_JSON_MAX_DEPTH — real Hugging Face files nest fewer than 20 levels — or when a number is out
 * of range (the message quotes the number as written, its key and line). The file is read with
 * as_file_read_all() (regular files only, a size limit per kind). Errors name the file, and for
 * malformed JSON the line and column. */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define AS_JSON_MAX_DEPTH 1000

/* Parses DATA (LENGTH bytes) and returns its root (owned), or NULL with ERROR naming WHAT (a
 * file name, or a description such as "the safetensors header of x.safetensors"). */
JsonNode *as_json_parse (const char *what, const char *data, gsize length, GError **error);

/* Reads PATH (at most MAX_BYTES, a regular file) and parses it. */
JsonNode *as_json_load_file (const char *path, gsize max_bytes, GError **error);

/* Like as_json_load_file, and fails (naming PATH) unless the root is an object. */
JsonNode *as_json_load_object_file (const char *path, gsize max_bytes, GError **error);

G_END_DECLS
