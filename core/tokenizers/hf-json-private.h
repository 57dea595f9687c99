/* hf-json-private.h — reading tokenizer.json's members with the JSON path in every message.
 *
 * Every component reader of tokenizer.json (normalizers, pre-tokenizers, models, ...) takes an
 * AsHfJson: the node it reads, the file name and the node's JSON path ("pre_tokenizer",
 * "pre_tokenizer.pretokenizers[1]", ...). Errors then read, e.g.,
 * `tokenizer.json: pre_tokenizer.pretokenizers[1]: unknown type "Foo"` (core/tokenizers/README.md,
 * "Tokenizers"). A member that is absent or null takes the default the caller gives, as serde
 * does in Hugging Face's reader; a member of the wrong type is an error. */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

typedef struct
{
  JsonNode *node;   /* borrowed */
  const char *file; /* for messages, e.g. "tokenizer.json" */
  const char *path; /* JSON path of NODE, e.g. "normalizer.normalizers[0]" */
} AsHfJson;

/* Sets an AS_ERROR_FORMAT error "FILE: PATH: <message>" and returns FALSE. */
gboolean as_hf_json_fail (const AsHfJson *json, GError **error, const char *format, ...)
    G_GNUC_PRINTF (3, 4);

/* The object of JSON, or NULL with an error when JSON is not an object. */
JsonObject *as_hf_json_object (const AsHfJson *json, GError **error);

/* Member NAME of JSON's object: *OUT receives it (NULL when absent or null). The path of the
 * member ("PATH.NAME") is written to *CHILD_PATH (owned) when CHILD_PATH is not NULL. */
JsonNode *as_hf_json_member (const AsHfJson *json, const char *name);
char *as_hf_json_child_path (const AsHfJson *json, const char *name, gint index);

/* Typed members: absent or null gives DEFAULT (and TRUE); another type is an error. */
gboolean as_hf_json_bool (const AsHfJson *json, const char *name, gboolean fallback, gboolean *out,
                          GError **error);
gboolean as_hf_json_int (const AsHfJson *json, const char *name, gint64 fallback, gint64 min,
                         gint64 max, gint64 *out, GError **error);
gboolean as_hf_json_double (const AsHfJson *json, const char *name, double fallback, double *out,
                            GError **error);
/* A string member, borrowed (NULL when absent/null and FALLBACK is NULL). */
gboolean as_hf_json_string (const AsHfJson *json, const char *name, const char *fallback,
                            const char **out, GError **error);
/* A required string member. */
gboolean as_hf_json_required_string (const AsHfJson *json, const char *name, const char **out,
                                     GError **error);
/* The "type" member, required. */
gboolean as_hf_json_type (const AsHfJson *json, const char **type, GError **error);
/* A required array member (borrowed). */
gboolean as_hf_json_array (const AsHfJson *json, const char *name, JsonArray **out, GError **error);
/* Reads every element of the array member NAME with READ (each with its path "PATH.NAME[i]")
 * into a new array that frees them with FREE_FUNC; NULL with the first error. For the
 * components' "Sequence" types. */
typedef gpointer (*AsHfJsonReader) (const AsHfJson *json, GError **error);
GPtrArray *as_hf_json_read_list (const AsHfJson *json, const char *name, AsHfJsonReader read,
                                 GDestroyNotify free_func, GError **error);

/* A string that must hold exactly one character (Metaspace's replacement, Strip's content). */
gboolean as_hf_json_char (const AsHfJson *json, const char *name, gunichar fallback, gunichar *out,
                          GError **error);

G_END_DECLS
