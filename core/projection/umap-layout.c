/* umap-layout.c — UMAP's stochastic gradient descent (McInnes, Healy & Melville 2018, section 3.2
 * and appendix C; umap-learn's optimize_layout_euclidean).
 *
 * The cross entropy between the graph's memberships w_ij and the low-dimensional similarities
 * q_ij = 1 / (1 + a·|y_i − y_j|^(2b)) is minimised by sampling: edge e = (j → k) is visited
 * every epochs_per_sample[e] = max(w) / w_e epochs (the epoch-per-sample schedule), and each
 * visit
 *   - attracts: g = −2ab·d^(2(b−1)) / (1 + a·d^(2b)) with d² = |y_j − y_k|², each coordinate
 *     of g·(y_j − y_k) clipped to ±4, added to y_j and subtracted from y_k (times α);
 *   - repels from random vertices: (epoch − next_negative[e]) / (epochs_per_sample[e] / rate)
 *     of them, each g = 2γb / ((0.001 + d²)(1 + a·d^(2b))), clipped, added to y_j only; a
 *     vertex drawn at distance 0 is skipped when it is j itself and does not move j otherwise;
 * with α = learning_rate·(1 − epoch / n_epochs) updated after every epoch. Each vertex draws its
 * negative samples from its own random stream (umap-learn keeps one per vertex too).
 *
 * Determinism with threads (as-umap.h): the vertices are split into fixed blocks of about equal
 * edge counts; during an epoch a block reads its own vertices live and the others from a copy
 * taken at the start of the epoch, and queues its moves of other blocks' vertices, which are
 * applied after the epoch in block order. With one block (small inputs) this is exactly the
 * sequential algorithm. */
#include <math.h>
#include <string.h>

#include "as-error.h"
#include "rng-private.h"
#include "umap-private.h"

#define CLIP 4.0
#define PROGRESS_EVERY 10

typedef struct
{
  int vertex;
  float dx, dy;
} Move;

typedef struct
{
  const AsSparseGraph *g;
  double a, b, gamma;
  int negative_rate;
  int n_epochs;
  double *epochs_per_sample;      /* [edges] */
  double *epoch_of_next_sample;   /* [edges] */
  double *epoch_of_next_negative; /* [edges] */
  guint64 *rng;                   /* [n] one stream per vertex */
  float *y;                       /* [n][2] the embedding, live */
  float *start;                   /* [n][2] the embedding at the start of the epoch */
  int n_blocks;
  int *block_start; /* [n_blocks + 1] first vertex of every block */
  GArray **moves;   /* [n_blocks] Move: a block's moves of other blocks' vertices */
  int epoch;
  double alpha;
} Descent;

static inline double
clip (double v)
{
  return v > CLIP ? CLIP : (v < -CLIP ? -CLIP : v);
}

/* One epoch of block B: every edge whose head is in the block and whose turn has come. */
static void
block_epoch (Descent *s, int block)
{
  const AsSparseGraph *g = s->g;
  int v0 = s->block_start[block], v1 = s->block_start[block + 1], n = g->n;
  double a = s->a, b = s->b, alpha = s->alpha, now = s->epoch;
  float fb = (float) b; /* powers in single precision, as umap-learn's float32 distances */
  GArray *moves = s->moves[block];
  for (int j = v0; j < v1; j++)
    {
      float *current = s->y + 2 * (gsize) j;
      for (int64_t e = g->row_ptr[j]; e < g->row_ptr[j + 1]; e++)
        {
          if (s->epoch_of_next_sample[e] > now)
            continue;
          int k = g->col[e];
          gboolean own = k >= v0 && k < v1;
          float *other = (own ? s->y : s->start) + 2 * (gsize) k;
          float dx = current[0] - other[0], dy = current[1] - other[1];
          float d2 = dx * dx + dy * dy;
          double coeff = 0.0;
          if (d2 > 0.0f)
            {
              double p = powf (d2, fb); /* d^(2b); d^(2(b−1)) = p / d² */
              coeff = -2.0 * a * b * (p / d2) / (a * p + 1.0);
            }
          double gx = clip (coeff * dx) * alpha, gy = clip (coeff * dy) * alpha;
          current[0] += (float) gx;
          current[1] += (float) gy;
          if (own)
            {
              other[0] -= (float) gx;
              other[1] -= (float) gy;
            }
          else
            {
              Move m = { k, (float) -gx, (float) -gy };
              g_array_append_val (moves, m);
            }
          s->epoch_of_next_sample[e] += s->epochs_per_sample[e];
          if (s->negative_rate <= 0)
            continue;

          double per_negative = s->epochs_per_sample[e] / s->negative_rate;
          int n_negative = (int) ((now - s->epoch_of_next_negative[e]) / per_negative);
          for (int p = 0; p < n_negative; p++)
            {
              int kk = as_rng_below (&s->rng[j], n);
              const float *far = (kk >= v0 && kk < v1 ? s->y : s->start) + 2 * (gsize) kk;
              float fx = current[0] - far[0], fy = current[1] - far[1];
              float f2 = fx * fx + fy * fy;
              if (f2 > 0.0f)
                {
                  double repel = 2.0 * s->gamma * b / ((0.001 + f2) * (a * powf (f2, fb) + 1.0));
                  current[0] += (float) (clip (repel * fx) * alpha);
                  current[1] += (float) (clip (repel * fy) * alpha);
                }
            }
          s->epoch_of_next_negative[e] += n_negative * per_negative;
        }
    }
}

static void
blocks_epoch (gpointer data, int index, int n_workers)
{
  Descent *s = data;
  int begin, end;
  as_worker_split (s->n_blocks, index, n_workers, &begin, &end);
  for (int block = begin; block < end; block++)
    block_epoch (s, block);
}

/* Applies the queued moves in block order and refreshes the start-of-epoch copy. */
static void
finish_epoch (Descent *s)
{
  for (int block = 0; block < s->n_blocks; block++)
    {
      GArray *moves = s->moves[block];
      for (guint m = 0; m < moves->len; m++)
        {
          const Move *mv = &g_array_index (moves, Move, m);
          s->y[2 * (gsize) mv->vertex] += mv->dx;
          s->y[2 * (gsize) mv->vertex + 1] += mv->dy;
        }
      g_array_set_size (moves, 0);
    }
  if (s->n_blocks > 1)
    memcpy (s->start, s->y, sizeof (float) * 2 * s->g->n);
}

/* BLOCK_START [n_blocks + 1]: contiguous vertex ranges holding about equal numbers of edges. */
static void
split_blocks (int *block_start, int n_blocks, const AsSparseGraph *g)
{
  int64_t edges = g->row_ptr[g->n];
  int v = 0;
  block_start[0] = 0;
  for (int b = 1; b < n_blocks; b++)
    {
      int64_t target = edges * b / n_blocks;
      while (v < g->n && g->row_ptr[v] < target)
        v++;
      block_start[b] = v;
    }
  block_start[n_blocks] = g->n;
}

/* Allocates S's schedule and streams; FALSE when the schedule does not fit. umap-learn's
 * make_epochs_per_sample: n_samples = n_epochs·w / max(w), epochs_per_sample = n_epochs /
 * n_samples; the first negative samples are due at epochs_per_sample / rate. */
static gboolean
descent_init (Descent *s, const AsUmapOptions *o)
{
  const AsSparseGraph *g = s->g;
  int n = g->n;
  int64_t edges = g->row_ptr[n];
  s->n_blocks = n >= AS_UMAP_BLOCKED_MIN_N ? AS_UMAP_BLOCKS : 1;
  s->start = s->n_blocks > 1 ? g_memdup2 (s->y, sizeof (float) * 2 * n) : s->y;
  s->rng = g_new (guint64, n);
  s->block_start = g_new (int, s->n_blocks + 1);
  s->moves = g_new0 (GArray *, s->n_blocks);
  for (int block = 0; block < s->n_blocks; block++)
    s->moves[block] = g_array_new (FALSE, FALSE, sizeof (Move));
  split_blocks (s->block_start, s->n_blocks, g);
  guint64 base = as_rng_hash (o->seed ^ 0x756d61702d736764ull); /* "umap-sgd" */
  for (int i = 0; i < n; i++)
    s->rng[i] = as_rng_hash (base + (guint64) i);

  s->epochs_per_sample = g_try_malloc (sizeof (double) * (edges + 1));
  s->epoch_of_next_sample = g_try_malloc (sizeof (double) * (edges + 1));
  s->epoch_of_next_negative = g_try_malloc (sizeof (double) * (edges + 1));
  if (s->epochs_per_sample == NULL || s->epoch_of_next_sample == NULL
      || s->epoch_of_next_negative == NULL)
    return FALSE;
  float max = 0.0f;
  for (int64_t e = 0; e < edges; e++)
    max = fmaxf (max, g->val[e]);
  for (int64_t e = 0; e < edges; e++)
    {
      double samples = s->n_epochs * ((double) g->val[e] / max);
      s->epochs_per_sample[e] = samples > 0 ? s->n_epochs / samples : -1.0;
      s->epoch_of_next_sample[e] = s->epochs_per_sample[e];
      s->epoch_of_next_negative[e]
          = s->negative_rate > 0 ? s->epochs_per_sample[e] / s->negative_rate : 0;
    }
  return TRUE;
}

static void
descent_clear (Descent *s)
{
  for (int block = 0; block < s->n_blocks; block++)
    g_clear_pointer (&s->moves[block], g_array_unref);
  g_free (s->moves);
  g_free (s->block_start);
  g_free (s->rng);
  if (s->start != s->y)
    g_free (s->start);
  g_free (s->epochs_per_sample);
  g_free (s->epoch_of_next_sample);
  g_free (s->epoch_of_next_negative);
}

gboolean
as_umap_optimize (float *y, const AsSparseGraph *g, int n_epochs, double a, double b,
                  const AsUmapOptions *o, AsWorkerTeam *team, GError **error)
{
  Descent s = { .g = g,
                .a = a,
                .b = b,
                .gamma = o->repulsion_strength,
                .negative_rate = o->negative_sample_rate,
                .n_epochs = n_epochs,
                .y = y,
                .alpha = o->learning_rate };
  gboolean ok = descent_init (&s, o);
  if (!ok)
    g_set_error (error, AS_ERROR, AS_ERROR_MEMORY,
                 "UMAP: the sampling schedule of %" G_GINT64_FORMAT " edges does not fit in memory",
                 g->row_ptr[g->n]);
  for (int epoch = 0; ok && epoch < n_epochs; epoch++)
    {
      if (g_cancellable_is_cancelled (o->cancellable))
        {
          g_set_error (error, AS_ERROR, AS_ERROR_CANCELLED, "UMAP was cancelled at epoch %d of %d",
                       epoch, n_epochs);
          ok = FALSE;
          break;
        }
      s.epoch = epoch;
      as_worker_team_run (s.n_blocks > 1 ? team : NULL, blocks_epoch, &s);
      finish_epoch (&s);
      s.alpha = o->learning_rate * (1.0 - (double) epoch / n_epochs);
      if (o->progress != NULL && ((epoch + 1) % PROGRESS_EVERY == 0 || epoch + 1 == n_epochs))
        o->progress (epoch + 1, n_epochs, y, g->n, o->user_data);
    }
  descent_clear (&s);
  return ok;
}
