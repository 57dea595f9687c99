/* trace-compare.h — comparing a forward pass with an expected-outputs file of the references.
 *
 * tests/reference/gpt2_reference.py, decoder_reference.py and encoder_reference.py `expected`
 * write one HDF5 group /seqN per sequence: ids, attentions, q, k, v, contexts, attn_out,
 * hidden_states, logits (the encoder reference also type_ids and position_ids). These helpers
 * read them, run a model on a group's ids and compare every captured array with the tolerances of
 * tests/README.md ("Tolerances"): attention weights within 1e-5 absolute; vectors and logits
 * |a − e| ≤ 1e-4·|e| + 1e-5·rms(e) element by element. Masked attention weights (future keys, keys
 * outside a sliding window) must be exactly 0 and every row must sum to 1 within 1e-6. */
#pragma once

#include <hdf5.h>

#include "as-forward.h"

G_BEGIN_DECLS

#define TRACE_ATTN_ATOL 1e-5
#define TRACE_VEC_RTOL 1e-4
#define TRACE_VEC_ATOL_PER_RMS 1e-5

typedef struct
{
  const int *windows; /* [L] sliding window per layer (0: plain causal), or NULL */
  gboolean no_qkv;    /* the expected file has no q, k, v */
} TraceCompareSpec;

/* Reads GROUP/NAME of FILE, checking its RANK dims equal WANT; NULL (test failed) otherwise. */
float *trace_read_floats (hid_t file, const char *group, const char *name, int rank,
                          const hsize_t *want);

/* The ids of GROUP (int64 [T]) as int32, or NULL when the group does not exist. */
GArray *trace_read_ids (hid_t file, const char *group);

/* Root mean square of X [n]. */
double trace_rms (const float *x, gsize n);

/* Checks ACTUAL [n] against dataset NAME of GROUP with the vector tolerance; LABEL names the
 * comparison in messages. */
void trace_compare_vectors (const char *label, const char *name, const float *actual, hid_t file,
                            const char *group, int rank, const hsize_t *dims);

/* Masked weights exactly 0 (the future, and keys outside each layer's window), rows summing to
 * 1 within 1e-6. WINDOWS [L] or NULL. */
void trace_check_attention_rows (const char *label, const AsTrace *t, const int *windows);

/* Runs MODEL on sequence GROUP of FILE (all logits, q/k/v captured) and compares everything;
 * also checks that a default pass (last-position logits, no q/k/v) gives the same attention and
 * last logits. FALSE when GROUP is absent. */
gboolean trace_compare_sequence (AsModel *model, hid_t file, const char *group, const char *label,
                                 const TraceCompareSpec *spec);

/* Loads MODEL_DIR and compares every /seqN of EXPECTED_PATH; returns the number of sequences. */
int trace_compare_model (const char *model_dir, const char *expected_path, const char *label,
                         const TraceCompareSpec *spec);

G_END_DECLS
