/* worker-team.c — persistent threads released together by a generation counter.
 *
 * as_worker_team_run() bumps the generation under the mutex and broadcasts; each thread runs the
 * job once per generation and the last one to finish signals the caller. A watching team
 * (as_worker_team_set_watching: the step decoders') makes a member between jobs, and the caller
 * waiting for the members, first watch the counter for up to SPIN_US microseconds before sleeping
 * on the condition: a decoding step runs ~70 small products back to back, and a sleep and wake-up
 * per product (tens of microseconds through the kernel each) cost a third of a Flan-T5 greedy
 * translation (310 → 205 ms here, tests/bench/RESULTS.md). Other teams sleep at once: a team that
 * watched after every small job of the heads grid's stream kept a core busy and delayed the window
 * (gui-long-zoom's visible-heads-first order failed). */
#include "worker-team-private.h"

/* How long a waiting thread watches before it sleeps. */
#define SPIN_US 50

/* Watches *VALUE (read atomically) until it differs from UNLESS or SPIN_US pass, when WATCHING;
 * TRUE when it changed. */
static gboolean
spin_while_equal (gboolean watching, const guint64 *value, guint64 unless)
{
  if (!watching)
    return FALSE;
  gint64 deadline = 0;
  for (int i = 0;; i++)
    {
      if (__atomic_load_n (value, __ATOMIC_ACQUIRE) != unless)
        return TRUE;
      if ((i & 63) == 63)
        {
          gint64 now = g_get_monotonic_time ();
          if (deadline == 0)
            deadline = now + SPIN_US;
          else if (now >= deadline)
            return FALSE;
        }
      /* a yield, not a pause: on a busy machine the core goes to whoever needs it (a pause spin
       * there made a Flan-T5 translation 2.6x slower), on an idle one it returns at once */
      g_thread_yield ();
    }
}

struct _AsWorkerTeam
{
  int n_workers;
  GThread **threads; /* [n_workers - 1] */
  GMutex lock;
  GCond start;
  GCond done;
  guint64 generation; /* written under the lock, read atomically by the spinning */
  guint64 pending;    /* the same */
  gboolean quit;
  gboolean watching; /* as_worker_team_set_watching; read atomically */
  AsWorkFunc func;
  gpointer data;
};

typedef struct
{
  AsWorkerTeam *team;
  int index;
} Member;

static gpointer
member_main (gpointer user_data)
{
  Member *member = user_data;
  AsWorkerTeam *team = member->team;
  int index = member->index;
  g_free (member);

  guint64 seen = 0;
  for (;;)
    {
      spin_while_equal (__atomic_load_n (&team->watching, __ATOMIC_RELAXED), &team->generation,
                        seen);
      g_mutex_lock (&team->lock);
      while (team->generation == seen && !team->quit)
        g_cond_wait (&team->start, &team->lock);
      if (team->quit)
        break;
      seen = team->generation;
      AsWorkFunc func = team->func;
      gpointer data = team->data;
      g_mutex_unlock (&team->lock);

      func (data, index, team->n_workers);

      g_mutex_lock (&team->lock);
      if (__atomic_sub_fetch (&team->pending, 1, __ATOMIC_RELEASE) == 0)
        g_cond_signal (&team->done);
      g_mutex_unlock (&team->lock);
    }
  g_mutex_unlock (&team->lock);
  return NULL;
}

AsWorkerTeam *
as_worker_team_new (int n_workers)
{
  g_return_val_if_fail (n_workers >= 1, NULL);
  AsWorkerTeam *team = g_new0 (AsWorkerTeam, 1);
  team->n_workers = n_workers;
  g_mutex_init (&team->lock);
  g_cond_init (&team->start);
  g_cond_init (&team->done);
  team->threads = g_new0 (GThread *, n_workers);
  for (int i = 1; i < n_workers; i++)
    {
      Member *member = g_new (Member, 1);
      *member = (Member){ team, i };
      team->threads[i - 1] = g_thread_new ("as-worker", member_main, member);
    }
  return team;
}

void
as_worker_team_free (AsWorkerTeam *team)
{
  if (team == NULL)
    return;
  g_mutex_lock (&team->lock);
  team->quit = TRUE;
  g_cond_broadcast (&team->start);
  g_mutex_unlock (&team->lock);
  for (int i = 0; i < team->n_workers - 1; i++)
    g_thread_join (team->threads[i]);
  g_free (team->threads);
  g_mutex_clear (&team->lock);
  g_cond_clear (&team->start);
  g_cond_clear (&team->done);
  g_free (team);
}

void
as_worker_team_set_watching (AsWorkerTeam *team, gboolean watching)
{
  if (team != NULL)
    __atomic_store_n (&team->watching, watching, __ATOMIC_RELAXED);
}

int
as_worker_team_size (const AsWorkerTeam *team)
{
  return team != NULL ? team->n_workers : 1;
}

void
as_worker_team_run (AsWorkerTeam *team, AsWorkFunc func, gpointer data)
{
  if (team == NULL || team->n_workers == 1)
    {
      func (data, 0, 1);
      return;
    }
  g_mutex_lock (&team->lock);
  team->func = func;
  team->data = data;
  __atomic_store_n (&team->pending, (guint64) team->n_workers - 1, __ATOMIC_RELAXED);
  __atomic_add_fetch (&team->generation, 1, __ATOMIC_RELEASE);
  g_cond_broadcast (&team->start);
  g_mutex_unlock (&team->lock);

  func (data, 0, team->n_workers);

  guint64 left;
  while ((left = __atomic_load_n (&team->pending, __ATOMIC_ACQUIRE)) > 0
         && spin_while_equal (team->watching, &team->pending, left))
    ;
  if (left > 0)
    {
      g_mutex_lock (&team->lock);
      while (__atomic_load_n (&team->pending, __ATOMIC_ACQUIRE) > 0)
        g_cond_wait (&team->done, &team->lock);
      g_mutex_unlock (&team->lock);
    }
}

void
as_worker_split (int n, int index, int n_workers, int *begin, int *end)
{
  *begin = (int) ((gint64) n * index / n_workers);
  *end = (int) ((gint64) n * (index + 1) / n_workers);
}

typedef struct
{
  int n_blocks;
  AsBlockFunc func;
  gpointer data;
} BlockRun;

static void
blocks_member (gpointer data, int index, int n_workers)
{
  const BlockRun *run = data;
  int b0, b1;
  as_worker_split (run->n_blocks, index, n_workers, &b0, &b1);
  for (int b = b0; b < b1; b++)
    run->func (run->data, b);
}

void
as_worker_team_run_blocks (AsWorkerTeam *team, int n_blocks, AsBlockFunc func, gpointer data)
{
  BlockRun run = { n_blocks, func, data };
  as_worker_team_run (n_blocks > 1 ? team : NULL, blocks_member, &run);
}
