/* config-reader-private.h — typed, range-checked reads of config.json keys, for the family
 * modules (family-private.h) that know which keys their architecture needs.
 *
 * Every reader fails with AS_ERROR_CONFIG and a message that names the file, the key, the value
 * found and what was expected. A key that is absent or null takes the default when the read is
 * optional. */
#pragma once

#include <json-glib/json-glib.h>

#include "as-config.h"

G_BEGIN_DECLS

/* Upper bounds far above any model this tool can run; larger values are typos or garbage. */
#define AS_CONFIG_MAX_LAYERS 1024
#define AS_CONFIG_MAX_HEADS 4096
#define AS_CONFIG_MAX_WIDTH (1 << 20)
#define AS_CONFIG_MAX_POSITIONS (1 << 22)
#define AS_CONFIG_MAX_VOCAB 10000000

typedef struct
{
  const char *path; /* config.json, for messages */
  JsonObject *obj;  /* its top-level object */
} AsConfigReader;

/* The member KEY, or NULL when it is absent or null. */
JsonNode *as_config_reader_member (const AsConfigReader *r, const char *key);

/* Integer KEY within MIN..MAX; absent: DEFAULT_VALUE when OPTIONAL, else an error. */
gboolean as_config_reader_int (const AsConfigReader *r, const char *key, gboolean optional,
                               int default_value, int min, int max, int *out, GError **error);

/* Boolean KEY; absent: DEFAULT_VALUE. */
gboolean as_config_reader_bool (const AsConfigReader *r, const char *key, gboolean default_value,
                                gboolean *out, GError **error);

/* String KEY (borrowed from the reader's object), or NULL when absent. */
gboolean as_config_reader_string (const AsConfigReader *r, const char *key, const char **out,
                                  GError **error);

/* A normalisation epsilon: a number strictly between 0 and 1, also as the float32 it becomes
 * (1e-300 is refused: it is 0 as a float); absent: DEFAULT_VALUE. */
gboolean as_config_reader_eps (const AsConfigReader *r, const char *key, float default_value,
                               float *out, GError **error);

/* An activation function name (gelu_new, gelu, relu, silu or swish); absent: DEFAULT_VALUE. */
gboolean as_config_reader_activation (const AsConfigReader *r, const char *key,
                                      AsActivation default_value, AsActivation *out,
                                      GError **error);

/* A finite number KEY within MIN..MAX that stays non-zero (when it is) and finite as a float32,
 * the precision the model computes in (RoPE's theta and factors are used as floats); absent:
 * DEFAULT_VALUE. */
gboolean as_config_reader_double (const AsConfigReader *r, const char *key, double default_value,
                                  double min, double max, double *out, GError **error);

/* The object KEY as a reader of its own (SUB->path reads "config.json: KEY", owned; free with
 * as_config_reader_clear). Absent or null: SUB->obj is NULL and TRUE is returned. */
gboolean as_config_reader_object (const AsConfigReader *r, const char *key, AsConfigReader *sub,
                                  GError **error);
void as_config_reader_clear (AsConfigReader *sub);

G_END_DECLS
