/* matmul.c — the projections of the forward passes: x · W with W in either layout and dtype.
 *
 * Every product is cut into blocks of output columns, each multiplied by one
 * single-threaded cblas_sgemm (or sgemv) call; the members of the pass's worker team take
 * contiguous runs of blocks, so a member reads only its share of the weights, which is what
 * matters when few tokens make the product memory-bound. The blocks never depend on the number
 * of members: OpenBLAS rounds an output column differently depending on where it falls in the
 * call that computes it (its kernels treat the edges of a panel apart), so slices sized by the
 * thread count made every result depend on ATTNSCOPE_THREADS in the last bits. With fixed blocks
 * each column is computed by the same call whatever the thread count, and the result is the
 * same bits (tests/README.md, "Same bits for every thread count").
 *
 * Weights stored as BF16 or F16 ([out][in], nn.Linear's layout) are never widened whole: a member
 * widens a tile of TILE_ROWS rows × TILE_DEPTH columns of its block into a small float32 buffer
 * that stays in its cache, multiplies the matching columns of x by it into the output
 * (accumulating over the depth), and moves on. A 1.2B-parameter BF16 model therefore runs in the
 * memory its file takes, and every value is the exact float32 widening of the stored one
 * (base/dtype-private.h). The tile's shape keeps OpenBLAS's repacking of x to 1/TILE_ROWS of the
 * work and the tile (TILE_ROWS·TILE_DEPTH floats, 256 KiB) inside a core's L2 cache. The output
 * head (as_matmul_logits) widens larger tiles, a whole block at the full depth up to 4 MiB: with
 * many positions x is as large as the tile, and 128-row tiles repacked it 2,048 times for Gemma 3's
 * 262,144 tokens; the last row is multiplied apart from the same tile, as a last-row-only pass
 * multiplies it.
 *
 * Where the CPU has AMX tiles, BF16 weights are not widened at all: their products, the output
 * head's included, run on the tiles by exact split products (matmul-amx-private.h). */
#include "kernels-private.h"

#include <cblas.h>
#include <string.h>

#include "blas-threads-private.h"
#include "matmul-amx-private.h"

/* Output columns per block, chosen from the product's width alone — never from the thread count.
 * A block's BLAS call repacks all of x (OpenBLAS packs both operands of every call), which costs
 * ~1/width of the block's work when x is large (512 tokens: +7 % of a pass with blocks of 128–512
 * columns, against ±1 % with these), so a block is as wide as leaves MATMUL_MIN_BLOCKS blocks to
 * share: 192 of a 768-wide projection, 768 of a 3072-wide MLP — even shares for 2 and 4 threads —
 * and at most MATMUL_MAX_BLOCK (the vocabulary's logits, whose block of weights stays in the
 * cache for the row the logits keep apart). A multiple of 64 floats: whole cache lines. */
#define MATMUL_MIN_BLOCKS 4
#define MATMUL_MIN_BLOCK 128
#define MATMUL_MAX_BLOCK 1024
#define MATMUL_BLOCK_ALIGN 64

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
  gboolean last_apart;  /* the last row by a product of its own (as_matmul_logits) */
  int tile_rows;        /* a 16-bit W's tile: rows × depth widened at once (0: TILE_ROWS, */
  int tile_depth;       /* TILE_DEPTH; as_matmul_logits: see logits_tile) */
  int block;            /* output columns per block (matmul_block_width) */
  const AsAmxRows *amx; /* x packed for AMX tiles (a BF16 W; see matmul_batch_run) or NULL */
} MatmulJob;

/* out[:, c0..c0+cols) (+)= x · W[c0..c0+cols)ᵀ for a 16-bit W [out][in], tile by tile. */
static void
matmul_widened (const MatmulJob *j, int c0, int cols)
{
  gsize es = as_dtype_size (j->dtype);
  int tile_rows = j->tile_rows > 0 ? j->tile_rows : TILE_ROWS;
  int tile_depth = j->tile_depth > 0 ? j->tile_depth : TILE_DEPTH;
  float *tile = g_malloc (sizeof (float) * tile_rows * tile_depth); /* [rows][depth] */
  for (int r0 = c0; r0 < c0 + cols; r0 += tile_rows)
    {
      int rows = MIN (tile_rows, c0 + cols - r0);
      for (int k0 = 0; k0 < j->in; k0 += tile_depth)
        {
          int depth = MIN (tile_depth, j->in - k0);
          for (int r = 0; r < rows; r++)
            as_dtype_widen (tile + (gsize) r * depth,
                            (const char *) j->w + ((gsize) (r0 + r) * j->in + k0) * es, j->dtype,
                            depth);
          float beta = k0 == 0 ? j->beta : 1.0f;
          int head = j->n;
          if (j->last_apart && j->n > 1)
            {
              /* the last row by a product of its own, from the same widened tile: the bits a
               * pass keeping only the last row's logits computes (see matmul_block) */
              head = j->n - 1;
              cblas_sgemm (CblasRowMajor, CblasNoTrans, CblasTrans, 1, rows, depth, 1.0f,
                           j->x + (gsize) head * j->in + k0, j->in, tile, depth, beta,
                           j->out + (gsize) head * j->out_dim + r0, j->out_dim);
            }
          cblas_sgemm (CblasRowMajor, CblasNoTrans, CblasTrans, head, rows, depth, 1.0f, j->x + k0,
                       j->in, tile, depth, beta, j->out + r0, j->out_dim);
        }
    }
  g_free (tile);
}

/* Columns per block of a product OUT_DIM wide. */
static int
matmul_block_width (int out_dim)
{
  int width = out_dim / MATMUL_MIN_BLOCKS / MATMUL_BLOCK_ALIGN * MATMUL_BLOCK_ALIGN;
  return CLAMP (width, MATMUL_MIN_BLOCK, MATMUL_MAX_BLOCK);
}

static int
matmul_blocks (const MatmulJob *j)
{
  return (j->out_dim + j->block - 1) / j->block;
}

/* Block BLOCK of JOB: out[:, c0..c0+cols) (+)= x · W[c0..c0+cols). */
static void
matmul_block (const MatmulJob *j, int block)
{
  if (j->last_apart && j->n > 1 && j->kind != W_WIDENED)
    {
      MatmulJob head = *j, last = *j;
      head.n = j->n - 1;
      head.last_apart = last.last_apart = FALSE;
      last.n = 1;
      last.x += (gsize) head.n * j->in;
      last.out += (gsize) head.n * j->out_dim;
      /* the last row first: it streams the block of weights into the cache for the others */
      matmul_block (&last, block);
      matmul_block (&head, block);
      return;
    }
  int c0 = block * j->block, cols = MIN (j->block, j->out_dim - c0);
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
      if (j->amx != NULL)
        as_amx_rows_multiply (j->amx, j->out, j->out_dim, j->beta != 0.0f, j->w, c0, cols);
      else
        matmul_widened (j, c0, cols);
      break;
    }
}

typedef struct
{
  MatmulJob *jobs;
  int n_jobs;
  int first[5];        /* [n_jobs + 1]: the batch's first block of each job */
  AsEpilogue epilogue; /* applied to each block of jobs[0] once it is computed */
  AsActivation act;
} MatmulBatch;

/* The epilogue on block BLOCK of the batch's first output (the same columns of the second for
 * AS_EPILOGUE_GATE, whose width is the same), while its rows are still in the cache. */
static void
matmul_epilogue (const MatmulBatch *b, int block)
{
  const MatmulJob *j = &b->jobs[0];
  int c0 = block * j->block, cols = MIN (j->block, j->out_dim - c0);
  for (int i = 0; i < j->n; i++)
    {
      float *row = j->out + (gsize) i * j->out_dim + c0; /* [cols] */
      if (b->epilogue == AS_EPILOGUE_GATE)
        as_gate (row, b->jobs[1].out + (gsize) i * j->out_dim + c0, cols, b->act);
      else
        as_activate (row, cols, b->act);
    }
}

/* Unit UNIT of a batch: a block of one job, numbered job after job; with AS_EPILOGUE_GATE the
 * same block of both jobs, so that one member has both halves of the gate. */
static void
matmul_unit (gpointer data, int unit)
{
  const MatmulBatch *b = data;
  if (b->epilogue == AS_EPILOGUE_GATE)
    {
      matmul_block (&b->jobs[0], unit);
      matmul_block (&b->jobs[1], unit);
      matmul_epilogue (b, unit);
      return;
    }
  int i = 0;
  while (unit >= b->first[i + 1])
    i++;
  matmul_block (&b->jobs[i], unit - b->first[i]);
  if (i == 0 && b->epilogue == AS_EPILOGUE_ACTIVATE)
    matmul_epilogue (b, unit);
}

/* Whether a batch multiplies on AMX tiles: every W is BF16 (read in place, exact products of the
 * widened weight at float32's accuracy) and the rows are the same x. Float32 and F16 weights keep
 * OpenBLAS (matmul-amx-private.h says why). */
static gboolean
batch_on_amx (const MatmulJob *jobs, int n_jobs)
{
  if (!as_amx_usable ())
    return FALSE;
  for (int i = 0; i < n_jobs; i++)
    if (jobs[i].kind != W_WIDENED || jobs[i].dtype != AS_DTYPE_BF16 || jobs[i].x != jobs[0].x
        || jobs[i].in != jobs[0].in || jobs[i].n != jobs[0].n)
      return FALSE;
  return TRUE;
}

/* The batch on AMX tiles: its rows packed a bounded number at a time (as_amx_rows_at_once), each
 * group in one round of TEAM. A row's results do not depend on its group (matmul-amx-private.h). */
static void
amx_batch_run (AsWorkerTeam *team, MatmulBatch *batch, gsize work, int units)
{
  MatmulJob *jobs = batch->jobs, whole[G_N_ELEMENTS (batch->first) - 1];
  int n = jobs[0].n, in = jobs[0].in, at_once = MIN (n, as_amx_rows_at_once (in));
  memcpy (whole, jobs, sizeof (MatmulJob) * batch->n_jobs);
  g_autoptr (AsAmxRows) amx = as_amx_rows_new (jobs[0].x, at_once, in);
  for (int r0 = 0; r0 < n; r0 += at_once)
    {
      int rows = MIN (at_once, n - r0);
      if (r0 > 0)
        as_amx_rows_pack (amx, whole[0].x + (gsize) r0 * in, rows);
      for (int i = 0; i < batch->n_jobs; i++)
        {
          jobs[i] = whole[i];
          jobs[i].x += (gsize) r0 * in;
          jobs[i].out += (gsize) r0 * whole[i].out_dim;
          jobs[i].n = rows;
          jobs[i].amx = amx;
        }
      as_parallel_blocks (team, work / n * rows, units, matmul_unit, batch);
    }
}

/* Runs the batch's jobs in one round of TEAM. */
static void
matmul_batch_run (AsWorkerTeam *team, MatmulJob *jobs, int n_jobs, AsEpilogue epilogue,
                  AsActivation act)
{
  as_blas_single_threaded ();
  MatmulBatch batch = { jobs, n_jobs, { 0 }, epilogue, act };
  gsize work = 0;
  /* one width for the whole batch, so that its blocks are equal shares (q with GQA's narrower
   * k and v) */
  int narrowest = jobs[0].out_dim;
  for (int i = 1; i < n_jobs; i++)
    narrowest = MIN (narrowest, jobs[i].out_dim);
  for (int i = 0; i < n_jobs; i++)
    {
      jobs[i].block = matmul_block_width (narrowest);
      batch.first[i + 1] = batch.first[i] + matmul_blocks (&jobs[i]);
      work += (gsize) jobs[i].n * jobs[i].in * jobs[i].out_dim;
    }
  int units = epilogue == AS_EPILOGUE_GATE ? matmul_blocks (&jobs[0]) : batch.first[n_jobs];
  if (batch_on_amx (jobs, n_jobs))
    {
      amx_batch_run (team, &batch, work, units);
      return;
    }
  as_parallel_blocks (team, work, units, matmul_unit, &batch);
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
  matmul_batch_run (team, job, 1, epilogue, act);
}

void
as_matmul (AsWorkerTeam *team, float *out, const float *x, const float *w, const float *bias, int n,
           int in, int out_dim)
{
  MatmulJob job
      = { .out = out, .x = x, .w = w, .n = n, .in = in, .out_dim = out_dim, .kind = W_IN_OUT };
  matmul_run (team, &job, bias, AS_EPILOGUE_NONE, 0);
}

void
as_matmul_activate (AsWorkerTeam *team, float *out, const float *x, const float *w,
                    const float *bias, int n, int in, int out_dim, AsActivation act)
{
  MatmulJob job
      = { .out = out, .x = x, .w = w, .n = n, .in = in, .out_dim = out_dim, .kind = W_IN_OUT };
  matmul_run (team, &job, bias, AS_EPILOGUE_ACTIVATE, act);
}

/* The job out [n][out_dim] = x [n][in] · Wᵀ for W [out_dim][in] as stored (float32, or 16-bit
 * widened tile by tile). */
static MatmulJob
weight_job (float *out, const float *x, const AsWeight *w, int n, int in, int out_dim)
{
  MatmulKind kind = w->dtype == AS_DTYPE_F32 ? W_OUT_IN : W_WIDENED;
  return (MatmulJob){ .out = out,
                      .x = x,
                      .w = w->data,
                      .dtype = w->dtype,
                      .n = n,
                      .in = in,
                      .out_dim = out_dim,
                      .kind = kind };
}

void
as_matmul_transposed (AsWorkerTeam *team, float *out, const float *x, const float *w, int n, int in,
                      int out_dim)
{
  MatmulJob job = weight_job (out, x, &(AsWeight){ w, AS_DTYPE_F32 }, n, in, out_dim);
  matmul_run (team, &job, NULL, AS_EPILOGUE_NONE, 0);
}

void
as_matmul_weight (AsWorkerTeam *team, float *out, const float *x, const AsWeight *w,
                  const float *bias, int n, int in, int out_dim)
{
  MatmulJob job = weight_job (out, x, w, n, in, out_dim);
  matmul_run (team, &job, bias, AS_EPILOGUE_NONE, 0);
}

/* The output head's tiles: a whole block of rows at the full depth, up to LOGITS_TILE_BYTES.
 * The logits of many positions repack x once per tile, and x is as large as the tile there
 * (512 positions of Gemma 3: 128-row tiles repacked x 2,048 times, a quarter of the product's
 * time); other products keep the cache-sized tiles. */
#define LOGITS_TILE_BYTES (4u << 20)

/* Rows of logits from which a float32 head goes to the AMX tiles (as_matmul_logits). */
#define AMX_F32_MIN_ROWS 32

static void
logits_tile (MatmulJob *job)
{
  int rows = (int) (LOGITS_TILE_BYTES / (sizeof (float) * (gsize) job->in));
  job->tile_depth = job->in;
  job->tile_rows = CLAMP (rows / MATMUL_BLOCK_ALIGN * MATMUL_BLOCK_ALIGN, MATMUL_BLOCK_ALIGN,
                          MATMUL_MAX_BLOCK);
}

void
as_matmul_logits (AsWorkerTeam *team, float *out, const float *x, const AsWeight *w, int n, int in,
                  int out_dim)
{
  /* a BF16 head on AMX: a row's logits are the same bits alone or among others (no row apart) */
  if (w->dtype != AS_DTYPE_F32
      && as_amx_matmul_transposed (team, out, x, w->data, w->dtype, n, in, out_dim))
    return;
  /* a float32 head on the tiles only for many rows (splitting its panels costs as much as reading
   * them); the last row then by OpenBLAS alone, the bits of a pass that keeps only its logits */
  if (w->dtype == AS_DTYPE_F32 && n > AMX_F32_MIN_ROWS
      && as_amx_matmul_transposed (team, out, x, w->data, w->dtype, n - 1, in, out_dim))
    {
      out += (gsize) (n - 1) * out_dim;
      x += (gsize) (n - 1) * in;
      n = 1;
    }
  MatmulJob job = weight_job (out, x, w, n, in, out_dim);
  job.last_apart = TRUE;
  logits_tile (&job);
  matmul_run (team, &job, NULL, AS_EPILOGUE_NONE, 0);
}

void
as_matmul_logits_transposed (AsWorkerTeam *team, float *out, const float *x, const float *w, int n,
                             int in, int out_dim)
{
  as_matmul_logits (team, out, x, &(AsWeight){ w, AS_DTYPE_F32 }, n, in, out_dim);
}

void
as_matmul_weights (AsWorkerTeam *team, const float *x, int n, int in, const AsProjection *p,
                   int n_projections, AsEpilogue epilogue, AsActivation act)
{
  g_assert (n_projections > 0 && n_projections <= 4);
  g_assert (epilogue != AS_EPILOGUE_GATE || (n_projections == 2 && p[0].out_dim == p[1].out_dim));
  MatmulJob jobs[4];
  for (int i = 0; i < n_projections; i++)
    {
      jobs[i] = weight_job (p[i].out, x, p[i].w, n, in, p[i].out_dim);
      matmul_prepare (&jobs[i], p[i].bias);
    }
  matmul_batch_run (team, jobs, n_projections, epilogue, act);
}
