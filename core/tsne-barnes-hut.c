/* tsne-barnes-hut.c — the Barnes-Hut t-SNE objective (van der Maaten 2014).
 *
 * Attraction runs over the sparse P (CSR): A_i = Σ_j p_ij w_ij (y_i − y_j). Repulsion walks the
 * quadtree from every point: a cell whose squared side is below θ² times the squared distance to
 * its centre of mass stands for all its N_cell points (sum_q += N_cell·w, force += N_cell·w²·d),
 * as in sklearn; a leaf that is too close is summed point by point (exactly, the point itself
 * excluded by its position). Points are visited in tree order so that neighbouring walks share
 * cache lines; the tree order is split between the worker team and every point's sums are
 * written to its own slot, so the result does not depend on the number of threads.
 *
 * The divergence estimate uses the Barnes-Hut Z of the same evaluation (what sklearn reports);
 * final_kl recomputes Z exactly over all pairs for n <= AS_TSNE_EXACT_KL_MAX. */
#include <math.h>

#include "as-tsne.h"
#include "quadtree.h"
#include "tsne-private.h"

#define STACK_SIZE (4 * 64)

typedef struct
{
  double ax, ay; /* attraction */
  double rx, ry; /* repulsion before division by Z */
  double q;      /* Σ_j w_ij as estimated by the tree */
  double log_w;  /* Σ_j p_ij log(1 + d_ij²) over the sparse P */
} PointSums;

typedef struct
{
  TsneObjective parent;
  const TsneSparseP *p; /* borrowed */
  int n;
  double theta2;
  AsWorkerTeam *team;
  double sum_p, sum_plogp;
  AsQuadtree tree;
  const float *y; /* [n][2] during an evaluation */
  PointSums *sums; /* [n] */
  gboolean with_kl;
} BarnesHutObjective;

/* Repulsion sums of the point at tree position POS. */
static void
repulsion (PointSums *out, const AsQuadtree *tree, int pos, double theta2)
{
  const double xi = tree->px[pos], yi = tree->py[pos];
  double rx = 0.0, ry = 0.0, q = 0.0;
  int stack[STACK_SIZE];
  int top = 0;
  stack[top++] = 0;
  while (top > 0)
    {
      const AsQuadNode *node = &tree->nodes[stack[--top]];
      double dx = xi - node->cx, dy = yi - node->cy;
      double d2 = dx * dx + dy * dy;
      if (node->width2 < theta2 * d2)
        {
          double w = 1.0 / (1.0 + d2);
          double m = node->count * w * w;
          q += node->count * w;
          rx += m * dx;
          ry += m * dy;
        }
      else if (node->child < 0)
        {
          for (int p = node->begin; p < node->end; p++)
            {
              if (p == pos)
                continue;
              double ex = xi - tree->px[p], ey = yi - tree->py[p];
              double w = 1.0 / (1.0 + ex * ex + ey * ey);
              q += w;
              rx += w * w * ex;
              ry += w * w * ey;
            }
        }
      else
        for (int c = node->n_children - 1; c >= 0; c--)
          stack[top++] = node->child + c;
    }
  out->rx = rx;
  out->ry = ry;
  out->q = q;
}

/* Attraction (and, for the divergence, Σ p log(1 + d²)) of point I over its row of P. */
static void
attraction (PointSums *out, const TsneSparseP *p, const float *y, int i, gboolean with_kl)
{
  double ax = 0.0, ay = 0.0, log_w = 0.0;
  for (int64_t e = p->row_ptr[i]; e < p->row_ptr[i + 1]; e++)
    {
      int j = p->col[e];
      double dx = (double) y[2 * i] - y[2 * j], dy = (double) y[2 * i + 1] - y[2 * j + 1];
      double d2 = dx * dx + dy * dy;
      double pw = p->val[e] / (1.0 + d2);
      ax += pw * dx;
      ay += pw * dy;
      if (with_kl)
        log_w += p->val[e] * log1p (d2);
    }
  out->ax = ax;
  out->ay = ay;
  out->log_w = log_w;
}

static void
bh_points (gpointer data, int index, int n_workers)
{
  BarnesHutObjective *self = data;
  int begin, end;
  as_worker_split (self->n, index, n_workers, &begin, &end);
  for (int pos = begin; pos < end; pos++)
    {
      int i = self->tree.order[pos];
      repulsion (&self->sums[i], &self->tree, pos, self->theta2);
      attraction (&self->sums[i], self->p, self->y, i, self->with_kl);
    }
}

static double
bh_kl (BarnesHutObjective *self, double exag, double z)
{
  double log_w = 0.0;
  for (int i = 0; i < self->n; i++)
    log_w += self->sums[i].log_w;
  return exag * (self->sum_plogp + self->sum_p * log (exag) + log_w + self->sum_p * log (z));
}

static double
bh_gradient (TsneObjective *obj, float *grad, const float *y, double exag, gboolean compute_kl)
{
  BarnesHutObjective *self = (BarnesHutObjective *) obj;
  as_quadtree_build (&self->tree, y);
  self->y = y;
  self->with_kl = compute_kl;
  as_worker_team_run (self->team, bh_points, self);

  double z = 0.0;
  for (int i = 0; i < self->n; i++)
    z += self->sums[i].q;
  for (int i = 0; i < self->n; i++)
    {
      const PointSums *s = &self->sums[i];
      grad[2 * i] = (float) (4.0 * (exag * s->ax - s->rx / z));
      grad[2 * i + 1] = (float) (4.0 * (exag * s->ay - s->ry / z));
    }
  return compute_kl ? bh_kl (self, exag, z) : NAN;
}

static double
bh_final_kl (TsneObjective *obj, const float *y)
{
  BarnesHutObjective *self = (BarnesHutObjective *) obj;
  g_autofree float *grad = g_new (float, 2 * (gsize) self->n); /* [n][2] */
  double kl = bh_gradient (obj, grad, y, 1.0, TRUE);
  if (self->n > AS_TSNE_EXACT_KL_MAX)
    return kl;
  return bh_kl (self, 1.0, tsne_exact_z (y, self->n, self->team));
}

static void
bh_free (TsneObjective *obj)
{
  BarnesHutObjective *self = (BarnesHutObjective *) obj;
  as_quadtree_clear (&self->tree);
  g_free (self->sums);
  g_free (self);
}

TsneObjective *
tsne_barnes_hut_new (const TsneSparseP *p, double theta, AsWorkerTeam *team)
{
  BarnesHutObjective *self = g_new0 (BarnesHutObjective, 1);
  self->parent.gradient = bh_gradient;
  self->parent.final_kl = bh_final_kl;
  self->parent.free = bh_free;
  self->p = p;
  self->n = p->n;
  self->theta2 = theta * theta;
  self->team = team;
  self->sums = g_new0 (PointSums, p->n);
  as_quadtree_init (&self->tree, p->n);
  for (int64_t e = 0; e < p->row_ptr[p->n]; e++)
    {
      double v = p->val[e];
      self->sum_p += v;
      if (v > 0)
        self->sum_plogp += v * log (v);
    }
  return &self->parent;
}
