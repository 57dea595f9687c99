/* trace-pool-private.h — the large arrays of a freed trace, kept for the next trace of the same
 * shape (trace.c; core/README.md, "Attention on demand").
 *
 * A pass writes every page of its trace once. On a virtual machine the first touch of memory the
 * process has just mapped is slow (a fault per page, and the host backing it): at 2,048 tokens of
 * a SmolLM2-135M shape the trace's 460 MB cost more CPU to touch than the capture's copies into
 * them. A window or a benchmark that runs pass after pass on texts of one length gets the last
 * freed trace's arrays back instead, zeroed in place (a memset of memory already backed). The
 * pool keeps one trace's arrays at most (AS_TRACE_POOL_SLOTS) of at least
 * AS_TRACE_POOL_MIN_BYTES each; a trace of another shape frees every block it cannot use before
 * it checks the memory budget, so the pool never adds to what a new trace needs. Thread-safe.
 * Private to the core. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define AS_TRACE_POOL_SLOTS 12
#define AS_TRACE_POOL_MIN_BYTES ((guint64) 8 << 20)

/* Frees every pooled block whose size is none of SIZES [N] (floats): before a trace that needs
 * those arrays allocates. */
void as_trace_pool_keep (const guint64 *sizes, int n);

/* A pooled block of exactly N floats, zeroed, or NULL. */
float *as_trace_pool_take (guint64 n);

/* Keeps P (N floats, allocated for a trace) for a later trace when N is large enough and a slot
 * is free; frees it otherwise. P may be NULL. */
void as_trace_pool_give (float *p, guint64 n);

G_END_DECLS
