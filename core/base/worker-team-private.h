/* worker-team-private.h — a fixed team of threads that run one function together, again and again.
 *
 * Iterative numeric code (t-SNE runs 1000 gradient steps) needs a parallel-for whose start-up
 * costs microseconds, not a thread creation per step. The team's threads live as long as the
 * team; as_worker_team_run() hands every member the same function with its index, runs index 0
 * on the calling thread, and returns when all have finished. Work is split by index, so results
 * never depend on timing.
 *
 * Results must not depend on the number of members either (ATTNSCOPE_THREADS changes speed, never
 * a bit): a member's share is a run of whole blocks of a fixed size, and what a block computes
 * depends on the block alone (as_worker_team_run_blocks). A floating-point kernel given a range
 * whose bounds follow the thread count may round differently at different places of the range —
 * OpenBLAS does (tests/README.md, "Same bits for every thread count"). Private to the core. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef void (*AsWorkFunc) (gpointer data, int index, int n_workers);

typedef struct _AsWorkerTeam AsWorkerTeam;

/* A team of N_WORKERS members (>= 1): the caller plus N_WORKERS - 1 threads. */
AsWorkerTeam *as_worker_team_new (int n_workers);
void as_worker_team_free (AsWorkerTeam *team);

/* Whether TEAM's members, and the caller waiting for them, watch for the next job (or the end of
 * this one) for a few tens of microseconds, yielding the core, before they sleep: for teams that
 * run many small jobs back to back (a decoding step's products). Off by default. */
void as_worker_team_set_watching (AsWorkerTeam *team, gboolean watching);

/* Members in TEAM; 1 for a NULL team. */
int as_worker_team_size (const AsWorkerTeam *team);

/* Runs FUNC (DATA, index, n) for every index 0..n-1 and waits. A NULL team runs FUNC (DATA, 0, 1)
 * on the calling thread. */
void as_worker_team_run (AsWorkerTeam *team, AsWorkFunc func, gpointer data);

/* The half-open range [*begin, *end) of 0..N that member INDEX of N_WORKERS handles. Give it
 * counts of fixed-size blocks, or of items whose results do not depend on the range they are
 * computed in (a row of a t-SNE gradient). */
void as_worker_split (int n, int index, int n_workers, int *begin, int *end);

/* One block of a job split into fixed blocks: what it computes must depend on BLOCK alone. */
typedef void (*AsBlockFunc) (gpointer data, int block);

/* Runs FUNC (DATA, b) for every b in 0..N_BLOCKS-1, each member on a contiguous run of blocks
 * (as_worker_split), and waits. A NULL team runs them all on the calling thread, in order. */
void as_worker_team_run_blocks (AsWorkerTeam *team, int n_blocks, AsBlockFunc func, gpointer data);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AsWorkerTeam, as_worker_team_free)

G_END_DECLS
