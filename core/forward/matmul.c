/* matmul.c — the projections of the forward passes: x · W with W in either layout and dtype.
 *
 * Every product is shared out by output columns between the members of the pass's worker team,
 * each running single-threaded cblas_sgemm on its own slice: a member reads only its share of the
 * weights, which is what matters when few tokens make the product memory-bound.
 *
 * Weights stored as BF16 or F16 ([out][in], nn.Linear's layout) are never widened whole: a member
 * widens a tile of TILE_ROWS rows × TILE_DEPTH columns of its slice into a small float32 buffer
 * that stays in its cache, multiplies the matching columns of x by it into the output
 * (accumulating over the depth), and moves on. A 1.2B-parameter BF16 model therefore runs in the
 * memory its file takes, and every value is the exact float32 widening of the stored one
 * (base/dtype-private.h). The tile's shape keeps OpenBLAS's repacking of x to 1/TILE_ROWS of the
 * work and the tile (TILE_ROWS·TILE_DEPTH floats, 256 KiB) inside a core's L2 cache. */
#include "kernels-private.h"

#include <cblas.h>
#include <string.h>

/* Columns per thread are rounded to this, so every slice starts on a cache line. */
#define MATMUL_COLUMN_ALIGN 16

#define TILE_ROWS 128
#define TILE_DEPTH 512

typedef enum
{
  W_IN_OUT,  /* W [in][out] f32 (Conv1D, Keras) */
  W_OUT_IN,  /* W [out][in] f32 (nn.Linear, the tied embedding) */
  W_WIDENED, /* W [out][in] BF16/F16, widened tile by tile */
} MatmulKind;

typedef struct
{
  float *out;
  const float *x;
  const void *w;
  AsDType dtype;
  float beta;
  int n, in, out_dim;
  MatmulKind kind;
} MatmulJob;

/* out[:, c0..c0+cols) (+)= x · W[c0..c0+cols)ᵀ for a 16-bit W [out][in], tile by tile. */
static void
matmul_widened (const MatmulJob *j, int c0, int cols)
{
  gsize es = as_dtype_size (j->dtype);
  float *tile = g_malloc (sizeof (float) * TILE_ROWS * TILE_DEPTH); /* [rows][depth] */
  for (int r0 = c0; r0 < c0 + cols; r0 += TILE_ROWS)
    {
      int rows = MIN (TILE_ROWS, c0 + cols - r0);
      for (int k0 = 0; k0 < j->in; k0 += TILE_DEPTH)
        {
          int depth = MIN (TILE_DEPTH, j->in - k0);
          for (int r = 0; r < rows; r++)
            as_dtype_widen (tile + (gsize) r * depth,
                            (const char *) j->w + ((gsize) (r0 + r) * j->in + k0) * es, j->dtype,
                            depth);
          cblas_sgemm (CblasRowMajor, CblasNoTrans, CblasTrans, j->n, rows, depth, 1.0f, j->x + k0,
                       j->in, tile, depth, k0 == 0 ? j->beta : 1.0f, j->out + r0, j->out_dim);
        }
    }
  g_free (tile);
}

/* The output columns [*c0, *c0 + return) of OUT_DIM that member INDEX of N_WORKERS computes. */
static int
matmul_columns (int out_dim, int index, int n_workers, int *c0)
{
  int b0, b1;
  as_worker_split ((out_dim + MATMUL_COLUMN_ALIGN - 1) / MATMUL_COLUMN_ALIGN, index, n_workers, &b0,
                   &b1);
  *c0 = b0 * MATMUL_COLUMN_ALIGN;
  return MIN (b1 * MATMUL_COLUMN_ALIGN, out_dim) - *c0;
}

/* Member INDEX's share of JOB. */
static void
matmul_job_slice (const MatmulJob *j, int index, int n_workers)
{
  int c0, cols = matmul_columns (j->out_dim, index, n_workers, &c0);
  if (cols <= 0)
    return;
  const float *w = j->w;
  switch (j->kind)
    {
    case W_IN_OUT:
      cblas_sgemm (CblasRowMajor, CblasNoTrans, CblasNoTrans, j->n, cols, j->in, 1.0f, j->x, j->in,
                   w + c0, j->out_dim, j->beta, j->out + c0, j->out_dim);
      break;
    case W_OUT_IN:
      if (j->n == 1)
        cblas_sgemv (CblasRowMajor, CblasNoTrans, cols, j->in, 1.0f, w + (gsize) c0 * j->in, j->in,
                     j->x, 1, j->beta, j->out + c0, 1);
      else
        cblas_sgemm (CblasRowMajor, CblasNoTrans, CblasTrans, j->n, cols, j->in, 1.0f, j->x, j->in,
                     w + (gsize) c0 * j->in, j->in, j->beta, j->out + c0, j->out_dim);
      break;
    case W_WIDENED:
      matmul_widened (j, c0, cols);
      break;
    }
}

typedef struct
{
  MatmulJob *jobs;
  int n_jobs;
  AsEpilogue epilogue; /* applied by each member to its own columns of jobs[0] */
  AsActivation act;
} MatmulBatch;

/* The epilogue on member INDEX's columns of the batch's first output (the same columns of the
 * second for AS_EPILOGUE_GATE, whose width is the same): rows stay in the member's cache. */
static void
matmul_epilogue (const MatmulBatch *b, int index, int n_workers)
{
  const MatmulJob *j = &b->jobs[0];
  int c0, cols = matmul_columns (j->out_dim, index, n_workers, &c0);
  for (int i = 0; i < j->n && cols > 0; i++)
    {
      float *row = j->out + (gsize) i * j->out_dim + c0; /* [cols] */
      if (b->epilogue == AS_EPILOGUE_GATE)
        as_gate (row, b->jobs[1].out + (gsize) i * j->out_dim + c0, cols, b->act);
      else
        as_activate (row, cols, b->act);
    }
}

/* Every job of a batch is split between the members, so the batch costs one team round. */
static void
matmul_slice (gpointer data, int index, int n_workers)
{
  const MatmulBatch *b = data;
  for (int i = 0; i < b->n_jobs; i++)
    matmul_job_slice (&b->jobs[i], index, n_workers);
  if (b->epilogue != AS_EPILOGUE_NONE)
    matmul_epilogue (b, index, n_workers);
}

/* Fills JOB's output with BIAS (the product then accumulates onto it) when there is one. */
static void
matmul_prepare (MatmulJob *job, const float *bias)
{
  job->beta = 0.0f;
  if (bias == NULL)
    return;
  for (int i = 0; i < job->n; i++)
    memcpy (job->out + (gsize) i * job->out_dim, bias, sizeof (float) * job->out_dim);
  job->beta = 1.0f;
}

static void
matmul_run (AsWorkerTeam *team, MatmulJob *job, const float *bias, AsEpilogue epilogue,
            AsActivation act)
{
  matmul_prepare (job, bias);
  MatmulBatch batch = { job, 1, epilogue, act };
  as_parallel_run (team, (gsize) job->n * job->in * job->out_dim, matmul_slice, &batch);
}

void
as_matmul (AsWorkerTeam *team, float *out, const float *x, const float *w, const float *bias, int n,
           int in, int out_dim)
{
  MatmulJob job = { out, x, w, AS_DTYPE_F32, 0.0f, n, in, out_dim, W_IN_OUT };
  matmul_run (team, &job, bias, AS_EPILOGUE_NONE, 0);
}

void
as_matmul_activate (AsWorkerTeam *team, float *out, const float *x, const float *w,
                    const float *bias, int n, int in, int out_dim, AsActivation act)
{
  MatmulJob job = { out, x, w, AS_DTYPE_F32, 0.0f, n, in, out_dim, W_IN_OUT };
  matmul_run (team, &job, bias, AS_EPILOGUE_ACTIVATE, act);
}

void
as_matmul_transposed (AsWorkerTeam *team, float *out, const float *x, const float *w, int n, int in,
                      int out_dim)
{
  MatmulJob job = { out, x, w, AS_DTYPE_F32, 0.0f, n, in, out_dim, W_OUT_IN };
  matmul_run (team, &job, NULL, AS_EPILOGUE_NONE, 0);
}

void
as_matmul_weight (AsWorkerTeam *team, float *out, const float *x, const AsWeight *w,
                  const float *bias, int n, int in, int out_dim)
{
  MatmulKind kind = w->dtype == AS_DTYPE_F32 ? W_OUT_IN : W_WIDENED;
  MatmulJob job = { out, x, w->data, w->dtype, 0.0f, n, in, out_dim, kind };
  matmul_run (team, &job, bias, AS_EPILOGUE_NONE, 0);
}

void
as_matmul_weights (AsWorkerTeam *team, const float *x, int n, int in, const AsProjection *p,
                   int n_projections, AsEpilogue epilogue, AsActivation act)
{
  g_assert (n_projections > 0 && n_projections <= 4);
  g_assert (epilogue != AS_EPILOGUE_GATE || (n_projections == 2 && p[0].out_dim == p[1].out_dim));
  MatmulJob jobs[4];
  gsize work = 0;
  for (int i = 0; i < n_projections; i++)
    {
      MatmulKind kind = p[i].w->dtype == AS_DTYPE_F32 ? W_OUT_IN : W_WIDENED;
      jobs[i] = (MatmulJob){ p[i].out, x,  p[i].w->data, p[i].w->dtype, 0.0f,
                             n,        in, p[i].out_dim, kind };
      matmul_prepare (&jobs[i], p[i].bias);
      work += (gsize) n * in * p[i].out_dim;
    }
  MatmulBatch batch = { jobs, n_projections, epilogue, act };
  as_parallel_run (team, work, matmul_slice, &batch);
}
