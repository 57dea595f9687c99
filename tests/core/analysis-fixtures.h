/* analysis-fixtures.h — hand-built traces, random attention and the numpy reference runner shared
 * by the analysis tests (test-similarity, test-head-stats, test-rollout, test-compare). */
#pragma once

#include <glib.h>

#include "as-trace.h"

G_BEGIN_DECLS

/* A zeroed trace of the given sizes (no logits) whose tokens are copies of TOKENS [T] (or "t0",
 * "t1", ... when TOKENS is NULL). */
AsTrace *fixture_trace_new (int n_layer, int n_head, int n_tokens, int d_model, int head_dim,
                            const char *const *tokens, gboolean causal);

/* Fills ATTN with N_MATRICES random [T][T] softmax matrices (rows sum to 1; entries above the
 * diagonal exactly 0 when CAUSAL). */
void fixture_random_attention (float *attn, int n_matrices, int n_tokens, gboolean causal,
                               GRand *rand);

/* Fills X [N] with values uniform in [-1, 1). */
void fixture_random_floats (float *x, gsize n, GRand *rand);

/* Runs tests/reference/analysis_reference.py KIND on INPUT [N_IN] (float32) with SHAPE ("4,3,5")
 * and returns its N_OUT float64 results converted to float. Returns NULL after g_test_skip() when
 * $ATTNSCOPE_PYTHON or numpy is missing, and fails the test when the script fails or writes the
 * wrong number of values. */
float *fixture_reference_run (const char *kind, const float *input, gsize n_in, const char *shape,
                              gsize n_out);

/* The same with up to two more arguments after the output file (ARG1, ARG2; NULL ends them). */
float *fixture_reference_run_args (const char *kind, const float *input, gsize n_in,
                                   const char *shape, const char *arg1, const char *arg2,
                                   gsize n_out);

G_END_DECLS
