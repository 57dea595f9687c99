/* worker-team-private.h — a fixed team of threads that run one function together, again and again.
 *
 * Iterative numeric code (t-SNE runs 1000 gradient steps) needs a parallel-for whose start-up
 * costs microseconds, not a thread creation per step. The team's threads live as long as the
 * team; as_worker_team_run() hands every member the same function with its index, runs index 0
 * on the calling thread, and returns when all have finished. Work is split by index, so results
 * never depend on timing. Private to the core. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef void (*AsWorkFunc) (gpointer data, int index, int n_workers);

typedef struct _AsWorkerTeam AsWorkerTeam;

/* A team of N_WORKERS members (>= 1): the caller plus N_WORKERS - 1 threads. */
AsWorkerTeam *as_worker_team_new (int n_workers);
void as_worker_team_free (AsWorkerTeam *team);

/* Members in TEAM; 1 for a NULL team. */
int as_worker_team_size (const AsWorkerTeam *team);

/* Runs FUNC (DATA, index, n) for every index 0..n-1 and waits. A NULL team runs FUNC (DATA, 0, 1)
 * on the calling thread. */
void as_worker_team_run (AsWorkerTeam *team, AsWorkFunc func, gpointer data);

/* The half-open range [*begin, *end) of 0..N that member INDEX of N_WORKERS handles. */
void as_worker_split (int n, int index, int n_workers, int *begin, int *end);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AsWorkerTeam, as_worker_team_free)

G_END_DECLS
