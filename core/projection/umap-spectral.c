/* umap-spectral.c — UMAP's spectral initialisation, as umap-learn's spectral.py lays it out.
 *
 * A connected graph is embedded by the two eigenvectors of its normalised Laplacian after the
 * trivial one (umap-eigen.c). A graph of several connected components (well-separated clusters
 * give one per cluster) is laid out per component (multi_component_layout):
 *   - meta positions: for up to 2·dim = 4 components the points ±e_1, ±e_2 in turn; for more,
 *     the spectral embedding of the components' centroids (component_layout: affinities
 *     exp(−dist²) between centroids under the metric, normalised Laplacian with scipy's
 *     convention that an isolated vertex has degree 1, the diffusion-map coordinates
 *     eigenvector / √degree, signs fixed, divided by the largest coordinate);
 *   - each component: its own spectral layout scaled so that its largest coordinate is half the
 *     distance from its meta position to the nearest other one, around its meta position;
 *     components of fewer than 4 points get uniform noise of that size instead. */
#include <math.h>
#include <string.h>

#include "eigen-private.h"
#include "rng-private.h"
#include "umap-private.h"

#define DIM 2

int
as_umap_graph_components (int *label, const AsSparseGraph *g)
{
  int n = g->n, count = 0;
  g_autofree int *stack = g_new (int, n);
  for (int i = 0; i < n; i++)
    label[i] = -1;
  for (int s = 0; s < n; s++)
    {
      if (label[s] >= 0)
        continue;
      int top = 0;
      stack[top++] = s;
      label[s] = count;
      while (top > 0)
        {
          int v = stack[--top];
          for (int64_t e = g->row_ptr[v]; e < g->row_ptr[v + 1]; e++)
            if (label[g->col[e]] < 0)
              {
                label[g->col[e]] = count;
                stack[top++] = g->col[e];
              }
        }
      count++;
    }
  return count;
}

/* SUB = the graph G restricted to the M vertices VERTS (LOCAL [n] maps a vertex of G to its index
 * in VERTS). */
static void
subgraph (AsSparseGraph *sub, const AsSparseGraph *g, const int *verts, int m, const int *local)
{
  sub->n = m;
  sub->row_ptr = g_new0 (int64_t, m + 1);
  for (int r = 0; r < m; r++)
    sub->row_ptr[r + 1] = sub->row_ptr[r] + (g->row_ptr[verts[r] + 1] - g->row_ptr[verts[r]]);
  sub->col = g_new (int, sub->row_ptr[m] + 1);
  sub->val = g_new (float, sub->row_ptr[m] + 1);
  for (int r = 0; r < m; r++)
    {
      int64_t out = sub->row_ptr[r];
      for (int64_t e = g->row_ptr[verts[r]]; e < g->row_ptr[verts[r] + 1]; e++, out++)
        {
          sub->col[out] = local[g->col[e]]; /* a component's edges stay inside it */
          sub->val[out] = g->val[e];
        }
    }
}

/* EMB [m][2]: the spectral layout of the connected graph G (m >= 4). */
static gboolean
connected_layout (double *emb, const AsSparseGraph *g, guint64 *rng)
{
  g_autofree double *deg = g_new0 (double, g->n);
  for (int i = 0; i < g->n; i++)
    for (int64_t e = g->row_ptr[i]; e < g->row_ptr[i + 1]; e++)
      deg[i] += g->val[e];
  double values[2];
  return as_umap_eigen_top2 (emb, values, g, deg, FALSE, rng);
}

static void
uniform (double *out, int count, double range, guint64 *rng)
{
  for (int i = 0; i < count; i++)
    out[i] = -range + 2 * range * as_rng_uniform (rng);
}

/* META [c][2]: the spectral embedding of the centroids of the C > 4 components. */
static void
centroid_layout (double *meta, int c, const int *label, const float *x, int n, int d,
                 AsUmapMetric metric)
{
  g_autofree float *centroid = g_new0 (float, (gsize) c *d); /* [c][d] */
  g_autofree double *sum = g_new0 (double, (gsize) c *d);    /* [c][d] */
  g_autofree int *size = g_new0 (int, c);
  for (int i = 0; i < n; i++)
    {
      size[label[i]]++;
      for (int j = 0; j < d; j++)
        sum[(gsize) label[i] * d + j] += x[(gsize) i * d + j];
    }
  for (int a = 0; a < c; a++)
    for (int j = 0; j < d; j++)
      centroid[(gsize) a * d + j] = (float) (sum[(gsize) a * d + j] / size[a]);

  g_autofree double *s = g_new0 (double, (gsize) c *c); /* [c][c] normalised affinities */
  g_autofree double *root = g_new0 (double, c);         /* [c] √degree (1 when isolated) */
  for (int a = 0; a < c; a++)
    for (int b = 0; b < c; b++)
      if (a != b)
        {
          double dist
              = as_umap_distance (centroid + (gsize) a * d, centroid + (gsize) b * d, d, metric);
          s[(gsize) a * c + b] = exp (-dist * dist);
          root[a] += s[(gsize) a * c + b];
        }
  for (int a = 0; a < c; a++)
    {
      gboolean isolated = root[a] == 0.0;
      root[a] = isolated ? 1.0 : sqrt (root[a]);
      s[(gsize) a * c + a] = isolated ? 1.0 : 0.0; /* L's diagonal is 1 − isolated */
    }
  for (int a = 0; a < c; a++)
    for (int b = 0; b < c; b++)
      if (a != b)
        s[(gsize) a * c + b] /= root[a] * root[b];

  double values[3];
  g_autofree double *v = g_new (double, (gsize) c * 3); /* [c][3] */
  if (!as_eigen_top_dense (values, v, s, c, 3, "UMAP", NULL))
    {
      memset (meta, 0, sizeof (double) * 2 * c);
      return;
    }
  for (int a = 0; a < c; a++)
    for (int k = 0; k < 3; k++)
      v[(gsize) a * 3 + k] /= root[a];
  as_eigen_fix_signs (v, c, 3);
  double max = 0.0;
  for (int a = 0; a < c; a++)
    for (int k = 1; k < 3; k++)
      max = fmax (max, v[(gsize) a * 3 + k]);
  for (int a = 0; a < c; a++)
    for (int k = 1; k < 3; k++)
      meta[(gsize) a * 2 + k - 1] = max > 0 ? v[(gsize) a * 3 + k] / max : 0.0;
}

static void
meta_positions (double *meta, int c, const int *label, const float *x, int n, int d,
                AsUmapMetric metric)
{
  if (c > 2 * DIM)
    {
      centroid_layout (meta, c, label, x, n, d, metric);
      return;
    }
  /* numpy.vstack([base, −base])[:c] with base = [I_k | 0], k = ceil(c / 2) */
  int k = (c + 1) / 2;
  memset (meta, 0, sizeof (double) * 2 * c);
  for (int a = 0; a < c; a++)
    meta[(gsize) a * 2 + (a % k)] = a < k ? 1.0 : -1.0;
}

/* Half the distance from META row A to the nearest other distinct meta position (1 when there
 * is none). */
static double
half_gap (const double *meta, int c, int a)
{
  double best = INFINITY;
  for (int b = 0; b < c; b++)
    {
      double dist = hypot (meta[2 * a] - meta[2 * b], meta[2 * a + 1] - meta[2 * b + 1]);
      if (dist > 0)
        best = fmin (best, dist);
    }
  return isinf (best) ? 1.0 : best / 2.0;
}

gboolean
as_umap_spectral_layout (float *y, int *n_components, const AsSparseGraph *g, const float *x, int d,
                         AsUmapMetric metric, guint64 *rng)
{
  int n = g->n;
  g_autofree int *label = g_new (int, n);
  int c = as_umap_graph_components (label, g);
  *n_components = c;
  g_autofree double *emb = g_new (double, 2 * (gsize) n); /* [n][2] */
  if (c == 1)
    {
      gboolean ok = n >= 2 * DIM && connected_layout (emb, g, rng);
      if (!ok)
        uniform (emb, 2 * n, 10.0, rng);
      for (gsize k = 0; k < 2 * (gsize) n; k++)
        y[k] = (float) emb[k];
      return ok;
    }

  g_autofree double *meta = g_new (double, 2 * (gsize) c); /* [c][2] */
  meta_positions (meta, c, label, x, n, d, metric);
  g_autofree int *verts = g_new (int, n);
  g_autofree int *local = g_new (int, n);
  gboolean all_ok = TRUE;
  for (int a = 0; a < c; a++)
    {
      int m = 0;
      for (int i = 0; i < n; i++)
        if (label[i] == a)
          {
            local[i] = m;
            verts[m++] = i;
          }
      double range = half_gap (meta, c, a);
      gboolean ok = FALSE;
      if (m >= 2 * DIM)
        {
          AsSparseGraph sub = { 0 };
          subgraph (&sub, g, verts, m, local);
          ok = connected_layout (emb, &sub, rng);
          as_sparse_graph_clear (&sub);
          all_ok = all_ok && ok;
        }
      if (!ok)
        uniform (emb, 2 * m, range, rng);
      else
        {
          double max = 0.0;
          for (gsize k = 0; k < 2 * (gsize) m; k++)
            max = fmax (max, fabs (emb[k]));
          for (gsize k = 0; k < 2 * (gsize) m; k++)
            emb[k] *= max > 0 ? range / max : 0.0;
        }
      for (int r = 0; r < m; r++)
        for (int k = 0; k < 2; k++)
          y[(gsize) verts[r] * 2 + k] = (float) (emb[(gsize) r * 2 + k] + meta[(gsize) a * 2 + k]);
    }
  return all_ok;
}
