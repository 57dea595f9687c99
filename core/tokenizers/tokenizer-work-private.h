/* tokenizer-work-private.h — a count of the tokenizers' inner-loop steps, for tests.
 *
 * Every stage of encoding must cost time linear in its input (core/README.md, "Bad input, memory
 * and threads"); wall-clock time is too noisy to show that in a test on a loaded machine, so the
 * stages count their steps — bytes normalized and pre-tokenized, trie and automaton steps,
 * lattice edges, merges — in a per-thread counter that white-box tests read before and after an
 * encoding (tests/core/test-tokenizer-scaling.c). The count costs one add per step. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

extern _Thread_local guint64 as_tokenizer_work_steps;

static inline void
as_tokenizer_work_add (guint64 steps)
{
  as_tokenizer_work_steps += steps;
}

/* The steps this thread has counted so far. */
guint64 as_tokenizer_work (void);

G_END_DECLS
