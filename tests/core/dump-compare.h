/* dump-compare.h — bit-for-bit comparisons of `attnscope run --dump` files and traces.
 *
 * The forward passes and analyses give the same bits for every thread count (tests/README.md,
 * "Same bits for every thread count"), so these comparisons have no tolerance: two dumps agree
 * when every dataset has the same name, type, shape and bytes (variable-length strings compared as
 * strings; the files' own bytes may differ, HDF5 writes no two files alike), and a trace agrees
 * with a dump when every array the dump takes from it has the same bytes. */
#pragma once

#include "as-trace.h"

G_BEGIN_DECLS

/* Whether the root datasets of the HDF5 files A and B are the same: names, types, shapes, bytes.
 * When not, *WHY (owned) names the first difference (the dataset, how many elements differ and by
 * how much at most). */
gboolean dump_same_datasets (const char *a, const char *b, char **why);

/* Asserts that T holds what DUMP (`attnscope run --dump` of the same input) holds, to the bit:
 * token ids, attentions, hidden states, contexts and T's logits (its last T->logits_rows rows of
 * the dump's); for an encoder–decoder trace the encoder's and decoder's attentions and hidden
 * states, the cross-attention and the logits. LABEL names the comparison in messages. */
void dump_assert_trace (const AsTrace *t, const char *dump, const char *label);

G_END_DECLS
