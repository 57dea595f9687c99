/* memory-private.h — what the process holds, for the memory budget (as-trace.h).
 *
 * The budget applies to everything a command holds at once, not to one request alone: `compare`
 * holds two traces, the GUI a model and its traces. Whoever allocates something large for the
 * rest of its life — a trace, a model's weights (copied or mapped) — declares it here, and
 * as_memory_check() counts it against ATTNSCOPE_MEMORY_LIMIT. (Against MemAvailable it need not:
 * what is held is already missing from MemAvailable.) */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* BYTES now held for good (until released). */
void as_memory_hold (guint64 bytes);

/* BYTES held before are free again. */
void as_memory_release (guint64 bytes);

/* Bytes held now. */
guint64 as_memory_held (void);

/* as_memory_check (as-trace.h) with ADVICE ending the message instead of "use a shorter text". */
gboolean as_memory_check_advice (guint64 bytes, const char *what, const char *advice,
                                 GError **error);

/* Asks for transparent huge pages under the large array P of BYTES (madvise; a hint the kernel
 * may ignore, and nothing for arrays under 8 MiB). On this project's virtual machines the first
 * touch of a fresh 4 KiB page costs a fault of ~17 µs: touching 460 MB (a SmolLM2-135M trace on
 * demand at 2,048 tokens) took 117,760 faults and 2.0 s of CPU, with huge pages 741 faults — a
 * 2 MiB page costs one fault for 512 of them. */
void as_memory_advise_huge_pages (void *p, gsize bytes);

G_END_DECLS
