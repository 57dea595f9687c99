/* toy-attention-support.h — what the toy-attention tests (test-toy-attention.c,
 * test-toy-attention-bad.c) share: seed 000's embeddings, configurations of the toy layer and the
 * shipped seed models loaded by name. */
#pragma once

#include "as-model.h"
#include "toy-attention-private.h"

G_BEGIN_DECLS

#define T_SEED 6  /* tokens of "May the force be with you" */
#define D_SEED 10 /* the seed's embedding width */

/* Seed 000's embeddings of "May the force be with you" [T_SEED][D_SEED]. */
extern const float toy_seed_embeddings[T_SEED * D_SEED];

/* A one-layer toy-attention configuration (its settings live as long as the program). */
AsConfig toy_test_config (int D, int H, int hd, int V, gboolean projections, gboolean output,
                          gboolean scale, gboolean sinusoidal, gboolean causal);

/* Points $ATTNSCOPE_DATA_DIR at the source tree's data/ (the shipped models). */
void toy_test_use_source_data_dir (void);

/* The shipped model NAME loaded by name, asserted to be a toy-attention model. */
AsModel *toy_test_load_shipped (const char *name);

G_END_DECLS
