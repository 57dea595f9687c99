/* fixture-model.h — writes small GPT-2 model folders in the exact Hugging Face layout, from C.
 *
 * fixture_model_write() creates config.json, tf_model.h5 (the Keras-HDF5 layout of
 * core/io/README.md, "Weight files": root layer_names, a group "transformer" whose weight_names
 * carry a class scope, one float32 dataset per weight), optionally model.safetensors (§5), and a
 * tiny byte-level BPE tokenizer: vocab.json with the 256 byte symbols in GPT-2's order (so
 * single-byte ids equal GPT-2's), the first merges of GPT-2 (" the" is id 262 as in GPT-2) and
 * <|endoftext|> last.
 *
 * Weights are deterministic pseudo-random numbers: fixture_model_value() gives every element
 * without reading the files. Spec fields select variants of the Keras layout (variable-length
 * strings, weight_names split in two, another class scope) and damaged files (a missing, wrongly
 * shaped, float64, NaN or Inf weight; config.json keys removed or overridden). */
#pragma once

#include <glib.h>
#include <stdint.h>

G_BEGIN_DECLS

typedef enum
{
  FIXTURE_CORRUPT_NONE,
  FIXTURE_CORRUPT_MISSING,    /* corrupt_tensor is left out (not listed, not written) */
  FIXTURE_CORRUPT_SHAPE,      /* corrupt_tensor's first dimension is one larger */
  FIXTURE_CORRUPT_TRANSPOSED, /* a 2-D corrupt_tensor is written transposed (same count) */
  FIXTURE_CORRUPT_DTYPE,      /* float64 dataset in HDF5; safetensors_dtype in safetensors */
  FIXTURE_CORRUPT_NAN,        /* element corrupt_index of corrupt_tensor is NaN */
  FIXTURE_CORRUPT_INF,        /* ... is +Inf */
} FixtureCorruption;

typedef struct
{
  int n_layer;     /* default 2 */
  int n_head;      /* default 2 */
  int n_embd;      /* default 8 */
  int n_positions; /* default 16 */
  int n_inner;     /* 0 (default): 4·n_embd, written as null in config.json */
  int vocab_size;  /* 0 (default): the fixture tokenizer's size */
  guint32 seed;    /* default 1 */
  double std;      /* weight standard deviation, default 0.1 */

  gboolean write_h5;              /* default TRUE */
  gboolean write_safetensors;     /* default FALSE */
  gboolean write_tokenizer;       /* vocab.json + merges.txt, default TRUE */
  const char *class_scope;        /* default "tfgp_t2lm_head_model" */
  gboolean vlen_strings;          /* variable-length string attributes (default fixed-length) */
  gboolean split_weight_names;    /* weight_names0 + weight_names1 instead of weight_names */
  gboolean safetensors_prefix;    /* names start with "transformer." */
  gboolean safetensors_unaligned; /* data starts 2 bytes past a 4-byte boundary (default: the
                                   * header is padded with spaces to 8 bytes, as real files) */

  const char *big_endian_tensor; /* canonical name of a weight written as big-endian float32 in
                                  * tf_model.h5 (valid, but HDF5 must convert it), or NULL */

  FixtureCorruption corruption;
  const char *corrupt_tensor;    /* canonical name, e.g. "h.1.attn.c_proj.weight" */
  gsize corrupt_index;           /* element for NAN/INF */
  const char *safetensors_dtype; /* dtype written for FIXTURE_CORRUPT_DTYPE, default "F64" */

  const char *const *config_omit; /* NULL-terminated keys left out of config.json */
  const char *const *config_set;  /* NULL-terminated "key=<JSON value>" overrides */
} FixtureModelSpec;

/* Fills SPEC with the defaults above. */
void fixture_model_spec_init (FixtureModelSpec *spec);

/* Writes the model folder DIR (created if needed) as SPEC says. */
gboolean fixture_model_write (const char *dir, const FixtureModelSpec *spec, GError **error);

/* Size of the fixture tokenizer's vocabulary (256 bytes + merges + <|endoftext|>). */
int fixture_model_tokenizer_size (void);

/* Element INDEX (row-major) of weight TENSOR, named as in safetensors without prefix
 * ("wte.weight", "h.0.ln_1.weight", "ln_f.bias", ...), as written for SPEC (ignoring
 * corruption). LayerNorm scales are 1 + noise, everything else noise of SPEC->std. */
float fixture_model_value (const FixtureModelSpec *spec, const char *tensor, gsize index);

/* Cuts PATH to FRACTION of its size. */
gboolean fixture_truncate_file (const char *path, double fraction, GError **error);

/* Overwrites N bytes of PATH at OFFSET with DATA. */
gboolean fixture_patch_file (const char *path, gsize offset, const void *data, gsize n,
                             GError **error);

G_END_DECLS
