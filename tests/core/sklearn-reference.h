/* sklearn-reference.h — running tests/reference/sklearn_reference.py (and the other Python
 * references) from the PCA, t-SNE and UMAP tests.
 *
 * The script runs under $ATTNSCOPE_PYTHON (Debian's python3 with numpy, h5py and scikit-learn).
 * When the variable is unset or empty the calling test is skipped with a reason; when the script
 * fails, the test fails with its stderr. */
#pragma once

#include <glib.h>
#include <stdarg.h>

G_BEGIN_DECLS

/* TRUE when the Python reference can run; otherwise marks the test skipped and returns FALSE. */
gboolean sklearn_reference_available (void);

/* Runs the script with the NULL-terminated arguments (subcommand first). Returns its stdout
 * (owned) or NULL after failing the test. */
char *sklearn_reference_run (const char *first, ...) G_GNUC_NULL_TERMINATED;

/* The same for any reference script (SCRIPT_RELATIVE to the source tree, e.g.
 * "tests/reference/umap_reference.py") with the arguments FIRST, AP... (NULL-terminated). */
char *reference_script_run_valist (const char *script_relative, const char *first, va_list ap);

/* The number KEY of the JSON object in TEXT; fails the test and returns NAN when missing. */
double sklearn_reference_json_number (const char *text, const char *key);

/* A path inside test_tmpdir() (owned). */
char *sklearn_reference_tmp (const char *name);

/* Writes a labelled Gaussian mixture (N points, D dimensions, 5 clusters, SEED) to a new file in
 * test_tmpdir() and returns its path (owned), or NULL after failing the test. */
char *sklearn_reference_mixture (int n, int d, int seed);

G_END_DECLS
