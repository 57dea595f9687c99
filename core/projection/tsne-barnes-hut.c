/* tsne-barnes-hut.c — the Barnes-Hut t-SNE objective (van der Maaten 2014).
 *
 * Attraction runs over the sparse P (CSR), row by row in storage order:
 * A_i = Σ_j p_ij w_ij (y_i − y_j). Repulsion uses the quadtree (quadtree.c) with sklearn's
 * opening rule — a cell whose squared side is below θ² times the squared distance to its centre
 * of mass stands for all its points — applied once per leaf rather than once per point: the walk
 * measures the distance to the leaf's bounding box, which is never larger than any of its points'
 * own distance, so every point gets at least sklearn's accuracy while the walk, the branchy part,
 * is shared by up to AS_QUADTREE_LEAF_SIZE points. Near leaves are listed point by point (exact).
 * The gathered lists are then summed with 16-wide vectors (tsne-simd-private.h).
 *
 * Leaves and rows are split between the worker team by position; every point's sums go to its
 * own slot and Z is summed in index order, so the result does not depend on the number of
 * threads. The divergence estimate uses the Barnes-Hut Z of the same evaluation (what sklearn
 * reports); final_kl recomputes Z exactly over all pairs for n <= AS_TSNE_EXACT_KL_MAX. */
#include <math.h>

#include "as-tsne.h"
#include "quadtree-private.h"
#include "tsne-private.h"
#include "tsne-simd-private.h"

/* The walk pushes at most 4 children per level and pops one: 3 · 48 levels + 4 fit. */
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
  AsTsneObjective parent;
  const AsSparseGraph *p; /* borrowed */
  int n;
  double theta2;
  AsWorkerTeam *team;
  double sum_p, sum_plogp;
  AsQuadtree tree;
  const float *y;  /* [n][2] during an evaluation */
  PointSums *sums; /* [n] */
  int max_row;     /* the longest row of P */
  gboolean with_kl;
} BarnesHutObjective;

/* Interactions gathered before the arithmetic so that it runs in vectors: positions (repulsion:
 * centres of mass and points) or offsets (attraction: y_i − y_j) in dx/dy, and weights c (cell
 * sizes, or P values); padded with zeros to a multiple of VL (a zero weight adds nothing). */
typedef struct
{
  float *dx, *dy, *c; /* [capacity] */
  int count;
} Interactions;

static void
interactions_init (Interactions *list, int capacity)
{
  list->dx = g_new (float, capacity + VL);
  list->dy = g_new (float, capacity + VL);
  list->c = g_new (float, capacity + VL);
  list->count = 0;
}

static void
interactions_clear (Interactions *list)
{
  g_free (list->dx);
  g_free (list->dy);
  g_free (list->c);
}

static inline void
interactions_add (Interactions *list, float dx, float dy, float c)
{
  list->dx[list->count] = dx;
  list->dy[list->count] = dy;
  list->c[list->count++] = c;
}

static inline void
interactions_pad (Interactions *list)
{
  while (list->count % VL != 0)
    interactions_add (list, 0.0f, 0.0f, 0.0f);
}

/* Repulsion on the point (XI, YI) from the cells and points of LIST (absolute positions):
 * q = Σ c·w, (rx, ry) = Σ c·w²·(dx, dy), dx = xi − x, w = 1 / (1 + dx² + dy²). The list holds the
 * point itself (dx = 0, w = 1): its 1 is taken out of q, and it adds no force. */
TSNE_TARGET_CLONES static void
repulsion_sums (PointSums *out, const Interactions *list, float xi, float yi)
{
  vfloat q = { 0 }, rx = { 0 }, ry = { 0 };
  for (int k = 0; k < list->count; k += VL)
    {
      vfloat x, y, c;
      LOAD (x, list->dx + k);
      LOAD (y, list->dy + k);
      LOAD (c, list->c + k);
      vfloat dx = xi - x, dy = yi - y;
      vfloat w = 1.0f / (1.0f + dx * dx + dy * dy);
      vfloat cw = c * w;
      q += cw;
      rx += cw * w * dx;
      ry += cw * w * dy;
    }
  out->q = lane_sum (&q) - 1.0;
  out->rx = lane_sum (&rx);
  out->ry = lane_sum (&ry);
}

/* Attraction: (ax, ay) = Σ p·w·(dx, dy); with WITH_KL also Σ p·log(1 + dx² + dy²). */
TSNE_TARGET_CLONES static void
attraction_sums (PointSums *out, const Interactions *list, gboolean with_kl)
{
  vfloat ax = { 0 }, ay = { 0 }, lw = { 0 };
  for (int k = 0; k < list->count; k += VL)
    {
      vfloat dx, dy, p;
      LOAD (dx, list->dx + k);
      LOAD (dy, list->dy + k);
      LOAD (p, list->c + k);
      vfloat u = 1.0f + dx * dx + dy * dy;
      vfloat pw = p / u;
      ax += pw * dx;
      ay += pw * dy;
      if (with_kl)
        {
          vfloat lu;
          vlog (&lu, &u);
          lw += p * lu;
        }
    }
  out->ax = lane_sum (&ax);
  out->ay = lane_sum (&ay);
  out->log_w = lane_sum (&lw);
}

/* The repulsion list shared by every point of the leaf LEAF: a cell whose squared side is below
 * θ² times the squared distance from its centre of mass to the leaf's bounding box stands for
 * all its points (entry: centre of mass, size); the points of the other leaves, including the
 * leaf itself, are listed one by one. The test against the box is the test of sklearn for the
 * leaf's nearest possible point, so every point of the leaf gets at least its accuracy. (Local
 * copies of every pointer and of the count: with -fno-strict-aliasing the compiler would reload
 * them after every float store.) */
static void
walk (Interactions *list, const AsQuadtree *tree, const AsQuadNode *leaf, float theta2)
{
  const AsQuadNode *restrict nodes = tree->nodes;
  const float *restrict px = tree->px, *restrict py = tree->py;
  float *restrict lx = list->dx, *restrict ly = list->dy, *restrict lc = list->c;
  float x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
  for (int p = leaf->begin; p < leaf->end; p++)
    {
      x0 = MIN (x0, px[p]);
      x1 = MAX (x1, px[p]);
      y0 = MIN (y0, py[p]);
      y1 = MAX (y1, py[p]);
    }
  int stack[STACK_SIZE];
  int top = 0, count = 0;
  stack[top++] = 0;
  while (top > 0)
    {
      const AsQuadNode *node = &nodes[stack[--top]];
      float gx = MAX (MAX (x0 - node->cx, node->cx - x1), 0.0f);
      float gy = MAX (MAX (y0 - node->cy, node->cy - y1), 0.0f);
      if (node->width2 < theta2 * (gx * gx + gy * gy))
        {
          lx[count] = node->cx;
          ly[count] = node->cy;
          lc[count++] = (float) node->count;
        }
      else if (node->child < 0)
        {
          for (int p = node->begin; p < node->end; p++)
            {
              lx[count] = px[p];
              ly[count] = py[p];
              lc[count++] = 1.0f;
            }
        }
      else
        for (int c = node->n_children - 1; c >= 0; c--)
          stack[top++] = node->child + c;
    }
  list->count = count;
  interactions_pad (list);
}

/* The attraction entries of point I: its row of P. */
static void
gather_row (Interactions *list, const AsSparseGraph *p, const float *y, int i)
{
  const int *restrict col = p->col;
  const float *restrict val = p->val;
  float *restrict ldx = list->dx, *restrict ldy = list->dy, *restrict lc = list->c;
  const float xi = y[2 * i], yi = y[2 * i + 1];
  int count = 0;
  for (int64_t e = p->row_ptr[i]; e < p->row_ptr[i + 1]; e++, count++)
    {
      int j = col[e];
      ldx[count] = xi - y[2 * j];
      ldy[count] = yi - y[2 * j + 1];
      lc[count] = val[e];
    }
  list->count = count;
  interactions_pad (list);
}

/* Repulsion for the leaves whose first point lies in this member's share of the tree order,
 * attraction for the same share of the rows of P. */
static void
bh_points (gpointer data, int index, int n_workers)
{
  BarnesHutObjective *self = data;
  const AsQuadtree *tree = &self->tree;
  int begin, end;
  as_worker_split (self->n, index, n_workers, &begin, &end);
  Interactions near, far;
  interactions_init (&near, self->max_row);
  interactions_init (&far, self->n);
  for (int l = 0; l < tree->n_leaves; l++)
    {
      const AsQuadNode *leaf = &tree->nodes[tree->leaves[l]];
      if (leaf->begin < begin || leaf->begin >= end)
        continue;
      walk (&far, tree, leaf, (float) self->theta2);
      for (int pos = leaf->begin; pos < leaf->end; pos++)
        repulsion_sums (&self->sums[tree->order[pos]], &far, tree->px[pos], tree->py[pos]);
    }
  /* attraction row by row in storage order: P streams through the cache */
  for (int i = begin; i < end; i++)
    {
      gather_row (&near, self->p, self->y, i);
      attraction_sums (&self->sums[i], &near, self->with_kl);
    }
  interactions_clear (&near);
  interactions_clear (&far);
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
bh_gradient (AsTsneObjective *obj, float *grad, const float *y, double exag, gboolean compute_kl)
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
bh_final_kl (AsTsneObjective *obj, const float *y)
{
  BarnesHutObjective *self = (BarnesHutObjective *) obj;
  g_autofree float *grad = g_new (float, 2 * (gsize) self->n); /* [n][2] */
  double kl = bh_gradient (obj, grad, y, 1.0, TRUE);
  if (self->n > AS_TSNE_EXACT_KL_MAX)
    return kl;
  return bh_kl (self, 1.0, as_tsne_exact_z (y, self->n, self->team));
}

static void
bh_free (AsTsneObjective *obj)
{
  BarnesHutObjective *self = (BarnesHutObjective *) obj;
  as_quadtree_clear (&self->tree);
  g_free (self->sums);
  g_free (self);
}

AsTsneObjective *
as_tsne_barnes_hut_new (const AsSparseGraph *p, double theta, AsWorkerTeam *team)
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
  for (int i = 0; i < p->n; i++)
    self->max_row = MAX (self->max_row, (int) (p->row_ptr[i + 1] - p->row_ptr[i]));
  for (int64_t e = 0; e < p->row_ptr[p->n]; e++)
    {
      double v = p->val[e];
      self->sum_p += v;
      if (v > 0)
        self->sum_plogp += v * log (v);
    }
  return &self->parent;
}
