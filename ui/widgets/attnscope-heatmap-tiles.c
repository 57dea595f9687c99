/* attnscope-heatmap-tiles.c — the zoomed heatmap's cache of exact tiles (see
 * attnscope-heatmap-tiles.h). */
#include "attnscope-heatmap-tiles.h"

#include "attnscope-background.h"

#include <gio/gio.h>
#include <string.h>

#define S ATTNSCOPE_TILE_SIDE

typedef struct
{
  int tr, tc;               /* tile row and column: entries tr·S .., tc·S .. */
  int nr, nc;               /* entries it holds (fewer at the last row and column) */
  float *values;            /* [nr][nc] */
  guint64 used;             /* when it was last read: the least recent goes first */
  cairo_surface_t *picture; /* its colours (attnscope_heatmap_tiles_get_picture), or NULL */
  guint64 picture_key;
} Tile;

typedef struct
{
  AttnscopeHeatmapTiles *owner; /* NULL once the owner dropped the job */
  AsTrace *trace;
  int layer, head;
  int n;      /* tiles asked for */
  int *want;  /* [n][2] tile row, tile column */
  Tile **got; /* [n] computed in the worker */
} Job;

struct _AttnscopeHeatmapTiles
{
  GSourceFunc arrived;
  gpointer data;
  AsTrace *trace;
  int layer, head;
  GHashTable *tiles; /* tile key → Tile */
  gsize bytes, budget;
  guint64 clock;
  guint generation;
  Job *job; /* in flight, or NULL */
  GCancellable *cancellable;
};

static gpointer
key_of (int tr, int tc)
{
  return GUINT_TO_POINTER (((guint) tr << 16) | (guint) tc);
}

static void
tile_free (gpointer data)
{
  Tile *tile = data;
  g_clear_pointer (&tile->picture, cairo_surface_destroy);
  g_free (tile->values);
  g_free (tile);
}

static void
job_free (gpointer data)
{
  Job *job = data;
  for (int i = 0; job->got != NULL && i < job->n; i++)
    if (job->got[i] != NULL)
      tile_free (job->got[i]);
  g_free (job->got);
  g_free (job->want);
  as_trace_unref (job->trace);
  g_free (job);
}

AttnscopeHeatmapTiles *
attnscope_heatmap_tiles_new (GSourceFunc arrived, gpointer data)
{
  AttnscopeHeatmapTiles *self = g_new0 (AttnscopeHeatmapTiles, 1);
  self->arrived = arrived;
  self->data = data;
  self->tiles = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, tile_free);
  return self;
}

/* Drops the job in flight (its tiles are freed with it) and every tile. */
static void
clear (AttnscopeHeatmapTiles *self)
{
  if (self->job != NULL)
    self->job->owner = NULL;
  self->job = NULL;
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_hash_table_remove_all (self->tiles);
  self->bytes = 0;
}

void
attnscope_heatmap_tiles_free (AttnscopeHeatmapTiles *self)
{
  if (self == NULL)
    return;
  clear (self);
  g_clear_pointer (&self->trace, as_trace_unref);
  g_hash_table_unref (self->tiles);
  g_free (self);
}

void
attnscope_heatmap_tiles_set_source (AttnscopeHeatmapTiles *self, const AsTrace *trace, int layer,
                                    int head)
{
  if (trace == self->trace && (trace == NULL || (layer == self->layer && head == self->head)))
    return;
  clear (self);
  g_clear_pointer (&self->trace, as_trace_unref);
  self->trace = trace != NULL ? as_trace_ref ((AsTrace *) trace) : NULL;
  self->layer = layer, self->head = head;
}

static gsize
budget_of (AttnscopeHeatmapTiles *self)
{
  return self->budget > 0 ? self->budget : ATTNSCOPE_TILE_BUDGET;
}

/* Drops the least recently read tiles until the cache fits its budget. */
static void
evict (AttnscopeHeatmapTiles *self)
{
  while (self->bytes > budget_of (self) && g_hash_table_size (self->tiles) > 0)
    {
      GHashTableIter iter;
      gpointer key, value, oldest_key = NULL;
      guint64 oldest = G_MAXUINT64;
      g_hash_table_iter_init (&iter, self->tiles);
      while (g_hash_table_iter_next (&iter, &key, &value))
        if (((Tile *) value)->used < oldest)
          oldest = ((Tile *) value)->used, oldest_key = key;
      Tile *tile = g_hash_table_lookup (self->tiles, oldest_key);
      self->bytes -= (gsize) tile->nr * tile->nc * sizeof (float);
      g_hash_table_remove (self->tiles, oldest_key);
    }
}

static void
job_run (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  Job *job = task_data;
  int T = job->trace->n_tokens;
  attnscope_background_thread ();
  for (int i = 0; i < job->n; i++)
    {
      if (g_cancellable_is_cancelled (cancellable))
        break;
      Tile *tile = g_new0 (Tile, 1);
      tile->tr = job->want[2 * i], tile->tc = job->want[2 * i + 1];
      tile->nr = MIN (S, T - tile->tr * S), tile->nc = MIN (S, T - tile->tc * S);
      tile->values = g_new (float, (gsize) tile->nr * tile->nc);
      as_trace_attention_tile (job->trace, job->layer, job->head, tile->tr * S, tile->nr,
                               tile->tc * S, tile->nc, tile->values, tile->nc);
      job->got[i] = tile;
    }
  g_task_return_boolean (task, TRUE);
  attnscope_background_end ();
}

static void
job_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Job *job = g_task_get_task_data (G_TASK (result));
  AttnscopeHeatmapTiles *self = job->owner;
  if (self == NULL)
    return; /* dropped: its tiles go with the task */
  self->job = NULL;
  g_clear_object (&self->cancellable);
  for (int i = 0; i < job->n; i++)
    if (job->got[i] != NULL)
      {
        Tile *tile = g_steal_pointer (&job->got[i]);
        tile->used = ++self->clock;
        self->bytes += (gsize) tile->nr * tile->nc * sizeof (float);
        g_hash_table_replace (self->tiles, key_of (tile->tr, tile->tc), tile);
      }
  evict (self);
  self->generation++;
  if (self->arrived != NULL)
    self->arrived (self->data);
}

/* Starts a job for the N tiles WANT [N][2] (taken). */
static void
start (AttnscopeHeatmapTiles *self, int *want, int n)
{
  Job *job = g_new0 (Job, 1);
  job->owner = self;
  job->trace = as_trace_ref (self->trace);
  job->layer = self->layer, job->head = self->head;
  job->n = n, job->want = want;
  job->got = g_new0 (Tile *, n);
  self->job = job;
  self->cancellable = g_cancellable_new ();
  GTask *task = g_task_new (NULL, self->cancellable, job_done, NULL);
  g_task_set_task_data (task, job, job_free);
  attnscope_background_begin ();
  g_task_run_in_thread (task, job_run);
  g_object_unref (task);
}

gboolean
attnscope_heatmap_tiles_region (AttnscopeHeatmapTiles *self, float *out, int row0, int n_rows,
                                int col0, int n_cols)
{
  if (self->trace == NULL || n_rows <= 0 || n_cols <= 0)
    return FALSE;
  int tr0 = row0 / S, tr1 = (row0 + n_rows - 1) / S, tc0 = col0 / S, tc1 = (col0 + n_cols - 1) / S;
  int n = (tr1 - tr0 + 1) * (tc1 - tc0 + 1), missing = 0;
  /* A region the budget cannot hold is never complete: the widget keeps the pooled blocks. */
  if ((gsize) n * S * S * sizeof (float) > budget_of (self))
    return FALSE;
  g_autofree int *want = g_new (int, 2 * n); /* [n][2] */
  for (int tr = tr0; tr <= tr1; tr++)
    for (int tc = tc0; tc <= tc1; tc++)
      {
        Tile *tile = g_hash_table_lookup (self->tiles, key_of (tr, tc));
        if (tile == NULL)
          {
            want[2 * missing] = tr, want[2 * missing + 1] = tc;
            missing++;
            continue;
          }
        tile->used = ++self->clock;
        int r_lo = MAX (row0, tr * S), r_hi = MIN (row0 + n_rows, tr * S + tile->nr);
        int c_lo = MAX (col0, tc * S), c_hi = MIN (col0 + n_cols, tc * S + tile->nc);
        for (int r = r_lo; r < r_hi && out != NULL; r++)
          memcpy (out + (gsize) (r - row0) * n_cols + (c_lo - col0),
                  tile->values + (gsize) (r - tr * S) * tile->nc + (c_lo - tc * S),
                  (gsize) (c_hi - c_lo) * sizeof (float));
      }
  if (missing > 0 && self->job == NULL)
    start (self, g_steal_pointer (&want), missing);
  return missing == 0;
}

gboolean
attnscope_heatmap_tiles_covers (AttnscopeHeatmapTiles *self, int row0, int n_rows, int col0,
                                int n_cols)
{
  if (self->trace == NULL || n_rows <= 0 || n_cols <= 0)
    return FALSE;
  for (int tr = row0 / S; tr <= (row0 + n_rows - 1) / S; tr++)
    for (int tc = col0 / S; tc <= (col0 + n_cols - 1) / S; tc++)
      if (!g_hash_table_contains (self->tiles, key_of (tr, tc)))
        return FALSE;
  return TRUE;
}

gboolean
attnscope_heatmap_tiles_lookup (AttnscopeHeatmapTiles *self, int row, int col, float *value)
{
  if (self->trace == NULL || row < 0 || col < 0 || row >= self->trace->n_tokens
      || col >= self->trace->n_tokens)
    return FALSE;
  Tile *tile = g_hash_table_lookup (self->tiles, key_of (row / S, col / S));
  if (tile == NULL)
    return FALSE;
  *value = tile->values[(gsize) (row % S) * tile->nc + col % S];
  return TRUE;
}

gsize
attnscope_heatmap_tiles_get_bytes (AttnscopeHeatmapTiles *self)
{
  return self->bytes;
}

void
attnscope_heatmap_tiles_set_budget (AttnscopeHeatmapTiles *self, gsize bytes)
{
  self->budget = bytes;
  evict (self);
}

guint
attnscope_heatmap_tiles_get_generation (AttnscopeHeatmapTiles *self)
{
  return self->generation;
}

gboolean
attnscope_heatmap_tiles_busy (AttnscopeHeatmapTiles *self)
{
  return self->job != NULL;
}

cairo_surface_t *
attnscope_heatmap_tiles_get_picture (AttnscopeHeatmapTiles *self, int tr, int tc, guint64 key,
                                     AttnscopeTilePaint paint, gpointer data, int *nr, int *nc)
{
  Tile *tile = self->trace != NULL ? g_hash_table_lookup (self->tiles, key_of (tr, tc)) : NULL;
  if (tile == NULL)
    return NULL;
  tile->used = ++self->clock;
  if (tile->picture == NULL || tile->picture_key != key)
    {
      g_clear_pointer (&tile->picture, cairo_surface_destroy);
      tile->picture = paint (tile->values, tr * S, tile->nr, tc * S, tile->nc, data);
      tile->picture_key = key;
    }
  *nr = tile->nr, *nc = tile->nc;
  return tile->picture;
}
