/* marian-fixtures.h — the Marian fixtures that tests/reference/make_marian_fixtures.py writes
 * into the build folder once per test run (meson runs it before the tests that read them), for
 * the core and command-line tests: random models in the exact Hugging Face layout, the shipped
 * attnscope-mini-en-de, the reference's expected outputs, translations and token ids. */
#pragma once

#include <glib.h>
#include <hdf5.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* The fixtures' manifest.json (borrowed; lives until the program ends), or NULL after marking
 * the test skipped (the reference's tools are missing) or failed (generating them failed). */
JsonObject *marian_fixtures (void);

/* Member NAME of the manifest's object SECTION ("models", "expected", "generate",
 * "tokenize"), or NULL (test failed). */
JsonNode *marian_fixture (const char *section, const char *name);
/* A path-valued fixture, e.g. ("models", "small"). */
const char *marian_fixture_path (const char *section, const char *name);

/* A JSON array of integers as int32 ids. */
GArray *marian_json_ids (JsonArray *array);

/* A copy of model folder FROM in the test's temporary directory as NAME, leaving out the files
 * named in the NULL-terminated SKIP (owned path). */
char *marian_copy_model (const char *from, const char *name, const char *const *skip);

/* Dataset GROUP/NAME (GROUP NULL: NAME at the root) of FILE as floats after checking its shape is
 * RANK × DIMS, or NULL (test failed); int64 datasets as int32 with marian_read_ids. */
float *marian_read_floats (hid_t file, const char *group, const char *name, int rank,
                           const hsize_t *dims);
GArray *marian_read_ids (hid_t file, const char *group, const char *name);

/* Compares ACTUAL [N] with EXPECTED with the vector tolerance of tests/README.md:
 * |a − e| ≤ 1e-4·|e| + 1e-5·rms(e). */
gboolean marian_check_vectors (const char *what, const float *actual, const float *expected,
                               gsize n);

/* Attention weights: within 1e-5 absolute. */
gboolean marian_check_attention (const char *what, const float *actual, const float *expected,
                                 gsize n);

G_END_DECLS
