/* fuzz-support.h — what the fuzz harnesses of tests/fuzz share (see tests/fuzz/README.md,
 * "Fuzzing").
 *
 * Every harness defines LLVMFuzzerTestOneInput. Built with clang's -fsanitize=fuzzer it is a
 * libFuzzer program; built with replay-main.c it replays committed inputs (the seed corpus and
 * every crash found, tests/fuzz/corpus/ and tests/fuzz/regressions/) as a test of the suite, with
 * the project's own compiler and sanitizers. */
#pragma once

#include <glib.h>
#include <stddef.h>
#include <stdint.h>

G_BEGIN_DECLS

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);
int LLVMFuzzerInitialize (int *argc, char ***argv);

/* Writes DATA to input file SLOT (0 or 1) of this process and returns its path: a regular file
 * in /dev/shm (else the temporary folder), created once and rewritten for every input. A real
 * file, not a memfd: libhdf5 resolves the real path of what it opens, and a memfd has none. */
const char *fuzz_write_input (int slot, const void *data, size_t size);

/* Stops the process with a message when a property of the code under test does not hold (the
 * fuzzer records the input as a crash). */
void fuzz_fail (const char *format, ...) G_GNUC_PRINTF (1, 2) G_GNUC_NORETURN;

/* Checks that a loader either succeeded or set one error with a non-empty, valid UTF-8 message
 * (names from the file may put line breaks in it: the command line escapes them). */
void fuzz_check_error (gboolean ok, const GError *error);

/* Reads every one of X[0..N-1], so that a tensor pointing outside its memory is caught by the
 * sanitizer. */
void fuzz_touch_floats (const float *x, gsize n);

G_END_DECLS
