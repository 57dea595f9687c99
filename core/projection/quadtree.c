/* quadtree.c — building the Barnes-Hut quadtree by recursive four-way partitioning.
 *
 * The root square covers the bounding box of the points. A cell with more than
 * AS_QUADTREE_LEAF_SIZE points is split: its range of the tree order is counting-sorted into the
 * four quadrants (stable, so the build is deterministic), the non-empty quadrants become
 * contiguous child nodes, and each is split in turn. A cell stops splitting at depth
 * MAX_DEPTH, which only happens for (near-)duplicate points. */
#include "quadtree-private.h"

#include <math.h>

#define MAX_DEPTH 48

void
as_quadtree_init (AsQuadtree *tree, int n)
{
  *tree = (AsQuadtree){ .n = n };
  tree->capacity = MAX (16, n / 2);
  tree->nodes = g_new (AsQuadNode, tree->capacity);
  tree->order = g_new (int, n);
  tree->position = g_new (int, n);
  tree->px = g_new (float, n);
  tree->py = g_new (float, n);
  tree->scratch = g_new (int, n);
  tree->leaves = g_new (int, n);
}

void
as_quadtree_clear (AsQuadtree *tree)
{
  g_free (tree->nodes);
  g_free (tree->order);
  g_free (tree->position);
  g_free (tree->px);
  g_free (tree->py);
  g_free (tree->scratch);
  g_free (tree->leaves);
  *tree = (AsQuadtree){ 0 };
}

static int
add_nodes (AsQuadtree *tree, int count)
{
  if (tree->n_nodes + count > tree->capacity)
    {
      tree->capacity = MAX (tree->capacity * 2, tree->n_nodes + count);
      tree->nodes = g_renew (AsQuadNode, tree->nodes, tree->capacity);
    }
  int first = tree->n_nodes;
  tree->n_nodes += count;
  return first;
}

/* Sorts ORDER[begin, end) into the quadrants around the midpoint (MX, MY), stably, in the order
 * lower-left, lower-right, upper-left, upper-right; COUNTS [4] receives their sizes. */
static void
partition (AsQuadtree *tree, const float *y, int begin, int end, double mx, double my, int *counts)
{
  int *quadrant = tree->scratch + begin; /* [end - begin] */
  counts[0] = counts[1] = counts[2] = counts[3] = 0;
  for (int p = begin; p < end; p++)
    {
      int i = tree->order[p];
      int q = (y[2 * i] >= mx) + 2 * (y[2 * i + 1] >= my);
      quadrant[p - begin] = q;
      counts[q]++;
    }
  int start[4] = { 0, counts[0], counts[0] + counts[1], counts[0] + counts[1] + counts[2] };
  /* stable scatter through the position array, used here as a temporary */
  int *tmp = tree->position + begin;
  for (int p = begin; p < end; p++)
    tmp[start[quadrant[p - begin]]++] = tree->order[p];
  for (int p = begin; p < end; p++)
    tree->order[p] = tmp[p - begin];
}

static void
build_node (AsQuadtree *tree, const float *y, int index, int begin, int end, double x0, double y0,
            double side, int depth)
{
  double sx = 0.0, sy = 0.0;
  for (int p = begin; p < end; p++)
    {
      sx += y[2 * tree->order[p]];
      sy += y[2 * tree->order[p] + 1];
    }
  AsQuadNode *node = &tree->nodes[index];
  *node = (AsQuadNode){
    sx / (end - begin), sy / (end - begin), side * side, end - begin, -1, 0, begin, end
  };
  if (end - begin <= AS_QUADTREE_LEAF_SIZE || depth >= MAX_DEPTH)
    {
      tree->leaves[tree->n_leaves++] = index;
      return;
    }

  double half = side / 2;
  int counts[4];
  partition (tree, y, begin, end, x0 + half, y0 + half, counts);
  int n_children = (counts[0] > 0) + (counts[1] > 0) + (counts[2] > 0) + (counts[3] > 0);
  int first = add_nodes (tree, n_children); /* may move tree->nodes */
  tree->nodes[index].child = first;
  tree->nodes[index].n_children = n_children;
  for (int q = 0, c = 0, at = begin; q < 4; q++)
    {
      if (counts[q] == 0)
        continue;
      build_node (tree, y, first + c++, at, at + counts[q], x0 + (q & 1) * half,
                  y0 + (q >> 1) * half, half, depth + 1);
      at += counts[q];
    }
}

void
as_quadtree_build (AsQuadtree *tree, const float *y)
{
  int n = tree->n;
  double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
  for (int i = 0; i < n; i++)
    {
      tree->order[i] = i;
      xmin = fmin (xmin, y[2 * i]);
      xmax = fmax (xmax, y[2 * i]);
      ymin = fmin (ymin, y[2 * i + 1]);
      ymax = fmax (ymax, y[2 * i + 1]);
    }
  double side = fmax (xmax - xmin, ymax - ymin);
  side = side * (1.0 + 1e-6) + 1e-30; /* the largest point stays inside */
  tree->n_nodes = 0;
  tree->n_leaves = 0;
  add_nodes (tree, 1);
  build_node (tree, y, 0, 0, n, xmin, ymin, side, 0);
  for (int p = 0; p < n; p++)
    {
      int i = tree->order[p];
      tree->position[i] = p;
      tree->px[p] = y[2 * i];
      tree->py[p] = y[2 * i + 1];
    }
}
