/* quadtree-private.h — a point quadtree over a 2-D embedding, for Barnes-Hut sums (private to the
 * core).
 *
 * Square cells split at their midpoint until a cell holds at most AS_QUADTREE_LEAF_SIZE points
 * (or is too small to split further, e.g. duplicates). Nodes live in one array; the children of
 * a node are contiguous. Points are reordered so that every cell's points form one contiguous
 * range of the tree order, and their coordinates are stored again in that order so that leaves
 * are read sequentially. The tree is rebuilt from scratch for every iteration (O(n log n)). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define AS_QUADTREE_LEAF_SIZE 32

typedef struct
{
  float cx, cy; /* centre of mass of the cell's points */
  float width2; /* squared side of the cell */
  int count;    /* points in the cell */
  int child;    /* index of the first child, -1 for a leaf */
  int n_children;
  int begin, end; /* the cell's points: tree positions [begin, end) */
} AsQuadNode;

typedef struct
{
  int n;
  AsQuadNode *nodes; /* [n_nodes]; node 0 is the root */
  int n_nodes, capacity;
  int *order;     /* [n] point index at each tree position */
  int *position;  /* [n] tree position of each point */
  float *px, *py; /* [n] coordinates in tree order */
  int *scratch;   /* [n] */
  int *leaves;    /* [n_leaves] leaf node indices, in tree order */
  int n_leaves;
} AsQuadtree;

void as_quadtree_init (AsQuadtree *tree, int n);
void as_quadtree_clear (AsQuadtree *tree);

/* (Re)builds TREE over Y [n][2] (all finite). */
void as_quadtree_build (AsQuadtree *tree, const float *y);

G_END_DECLS
