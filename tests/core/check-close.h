/* check-close.h — helpers shared by the test programs. */
#pragma once

#include <glib.h>
#include <stdint.h>

#include "as-model.h"

G_BEGIN_DECLS

/* Compares ACTUAL with EXPECTED element by element: |a - e| <= atol + rtol·|e|.
 * On failure prints WHAT, the max abs and rel errors and the first mismatching index, and fails
 * the current test. Returns TRUE when all are close. */
gboolean check_close (const char *what, const float *actual, const float *expected, gsize n,
                      double atol, double rtol);

/* Max |a - e| and max |a - e| / max(|e|, tiny) over N elements. */
void check_error_stats (const float *actual, const float *expected, gsize n, double *max_abs,
                        double *max_rel);

/* $ATTNSCOPE_SOURCE_DIR/RELATIVE (owned). Fails the test when the variable is unset. */
char *test_source_path (const char *relative);

/* The model NAME shipped in data/models; fails the test when it does not load. */
AsModel *test_load_shipped_model (const char *name);

/* A fresh temporary directory for this test program (removed by test_tmpdir_cleanup). */
const char *test_tmpdir (void);
void test_tmpdir_cleanup (void);

/* The Python interpreter of the references ($ATTNSCOPE_PYTHON) when it can import MODULES
 * (e.g. "torch, h5py"); otherwise marks the test skipped with a message naming what is missing
 * and returns NULL. */
const char *test_python_with (const char *modules);

/* TRUE in a sanitizer build ($ATTNSCOPE_SANITIZED, set by tests/meson.build): there a test runs
 * its code paths once for memory errors and leaves repetitions of the same path — more peers'
 * data sets, more thread counts, the comparison with the references — to the normal build. */
gboolean test_sanitized (void);

/* With test_sanitized (): marks the test skipped with a message naming WHAT (the check the
 * normal build's run makes) and returns TRUE; otherwise FALSE. */
gboolean test_left_to_normal_build (const char *what);

/* Runs ARGV (NULL-terminated) synchronously, capturing stdout/stderr; returns the exit status
 * (0..255) or -1 when it could not be started. */
int test_spawn (const char *const *argv, char **out, char **err);

/* Loads SPEC (a model folder) expecting an AS_ERROR with CODE whose message contains every
 * string of the NULL-terminated NEEDLES. */
void assert_load_fails (const char *spec, int code, const char *const *needles);

G_END_DECLS
