/* matmul-amx.c — out = x · Wᵀ for a BF16 or float32 W on AMX tiles by split products
 * (matmul-amx-private.h).
 *
 * Roles: W's rows are the tiles' A operand (16 rows × 32 depth) and x the B operand, packed once
 * per call into AMX's pair-interleaved layout; a tile of sums is therefore [16 rows of W][16
 * positions] and is transposed on its way out.
 *
 * Two blockings (2 cores of an AMX Xeon; tests/bench/RESULTS.md, "BF16 products on AMX tiles" and
 * "Float32 output heads on AMX tiles"):
 * - as_amx_matmul_transposed (the output head): a unit of work is a block of W's rows (UNIT_BYTES
 *   of their parts, at most 1,024 rows), split (float32) or packed (BF16) into tile order once,
 *   the next unit's rows prefetched meanwhile; the parts stay in the core's L2 while every 32
 *   positions of x pass under all the unit's panels, and each position's sums of the unit are
 *   written as one run past the caches (multiply_rows_unit). The team's members take contiguous
 *   runs of units, so the result never depends on their number.
 * - as_amx_rows_multiply (a batch's projections, a block of columns at a time): W read in place
 *   when its depth is a multiple of 32 (else copied with zero padding), CHUNK positions of packed
 *   x at a time (~1 MiB, in L2), and for each panel of 32 rows of W the depth in SLICEs, whose
 *   2 × 16 rows of W stay in L1 while every pair of 16 positions of the chunk passes under them
 *   (multiply_rows).
 * Both: four tiles of sums (32 rows × 32 positions) and four of operands, each loaded tile serving
 * two products; every element the same sequence of products (x's parts smallest first, each over
 * the whole depth, for BF16), so both give the same bits. */
#include "matmul-amx-private.h"

/* GCC 12's AVX-512 headers start some intrinsics from _mm512_undefined_ps(), which its own
 * -Wmaybe-uninitialized then reports at every inlined use. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif

#include <immintrin.h>
#include <stdint.h>
#include <string.h>

#include "kernels-private.h"

#define STEP 32                /* depth per tile product: 32 BF16 values, 64 bytes */
#define TILE 16                /* rows of a tile */
#define PANEL 32               /* rows of W per panel: two tiles */
#define CHUNK 256              /* positions of x per chunk */
#define SLICE 384              /* depth per slice of a panel */
#define PACK_BYTES (16u << 20) /* of packed x at once (6 bytes a value) */
#define MAX_PACK_ROWS 1024
#define MAX_BLOCK 1024   /* rows of W per unit */
#define FEW_POSITIONS 64 /* of a BF16 head: read in place (amx_unit) */

typedef struct
{
  guint8 palette, start_row;
  guint8 reserved[14];
  guint16 colsb[16];
  guint8 rows[16];
} TileConfig;

/* The split products of x, smallest first: lo, mid, hi. */
static const int X_PARTS[] = { 2, 1, 0 };

struct _AsAmxRows
{
  guint16 *xb;    /* [3][np/16][kp/32][16 pairs][16 positions][2] */
  gsize xb_part;  /* elements per part of xb */
  gsize capacity; /* elements of one part allocated */
  int n, np, in, kp;
};

/* One product's rows of W [v_begin, v_end) into out (row stride ldo), set or accumulated. */
typedef struct
{
  const AsAmxRows *x;
  float *out;
  int ldo;
  gboolean accumulate;
  const guint16 *w; /* BF16 [*][in] */
  const float *w32; /* or float32 [*][in], split panel by panel (the six products) */
  int v_end;
  int block;           /* rows of W per unit (as_amx_matmul_transposed) */
  gboolean in_place;   /* W read as stored */
  AsAmxSumsFunc visit; /* or NULL: the sums are handed to it instead of written to out */
  gpointer visit_data;
  int p_offset; /* the packed rows' first position among the call's */
} AmxJob;

static inline __m512
bf16_widen (__m256i h)
{
  return _mm512_castsi512_ps (_mm512_slli_epi32 (_mm512_cvtepu16_epi32 (h), 16));
}

static inline __m256i
bf16_round (__m512 v)
{
  return (__m256i) _mm512_cvtneps_pbh (v);
}

/* V = parts[0] + parts[1] + parts[2] exactly (each difference is exact in float32). */
static inline void
split3 (__m512 v, __m256i parts[3])
{
  parts[0] = bf16_round (v);
  __m512 rest = _mm512_sub_ps (v, bf16_widen (parts[0]));
  parts[1] = bf16_round (rest);
  parts[2] = bf16_round (_mm512_sub_ps (rest, bf16_widen (parts[1])));
}

static inline __mmask16
first_lanes (int count)
{
  if (count <= 0)
    return 0;
  return count >= 16 ? (__mmask16) 0xFFFF : (__mmask16) ((1u << count) - 1);
}

/* The 16 × 16 floats of ROWS transposed in place. */
static inline void
transpose16 (__m512 r[16])
{
  __m512 t[16];
  for (int i = 0; i < 16; i += 2)
    {
      t[i] = _mm512_unpacklo_ps (r[i], r[i + 1]);
      t[i + 1] = _mm512_unpackhi_ps (r[i], r[i + 1]);
    }
  for (int i = 0; i < 16; i += 4)
    {
      r[i] = _mm512_shuffle_ps (t[i], t[i + 2], 0x44);
      r[i + 1] = _mm512_shuffle_ps (t[i], t[i + 2], 0xEE);
      r[i + 2] = _mm512_shuffle_ps (t[i + 1], t[i + 3], 0x44);
      r[i + 3] = _mm512_shuffle_ps (t[i + 1], t[i + 3], 0xEE);
    }
  for (int i = 0; i < 16; i += 8)
    for (int q = 0; q < 4; q++)
      {
        t[i + q] = _mm512_shuffle_f32x4 (r[i + q], r[i + q + 4], 0x88);
        t[i + q + 4] = _mm512_shuffle_f32x4 (r[i + q], r[i + q + 4], 0xDD);
      }
  for (int q = 0; q < 8; q++)
    {
      r[q] = _mm512_shuffle_f32x4 (t[q], t[q + 8], 0x88);
      r[q + 8] = _mm512_shuffle_f32x4 (t[q], t[q + 8], 0xDD);
    }
}

/* The 32 floats of ROW (the first COUNT of them; zeros past it, and all zeros when COUNT ≤ 0)
 * split into their three parts, 32 BF16 values each: a step of depth of x or of a float32 W. */
static inline void
split_step32 (__m512i parts[3], const float *row, int count)
{
  __m256i a[3], b[3];
  __m512 lo = _mm512_setzero_ps (), hi = _mm512_setzero_ps ();
  if (count > 0)
    {
      lo = _mm512_maskz_loadu_ps (first_lanes (count), row);
      hi = _mm512_maskz_loadu_ps (first_lanes (count - 16), row + 16);
    }
  split3 (lo, a);
  split3 (hi, b);
  for (int part = 0; part < 3; part++)
    parts[part] = _mm512_inserti64x4 (_mm512_castsi256_si512 (a[part]), b[part], 1);
}

/* Rows [p0, p0 + 16) of x (those below N; zeros past it) at depth [k0, k0 + 32), each row's
 * three parts as 16 pairs of BF16 in a 32-bit lane each: PARTS[part][row]. */
static void
split_step (__m512 parts[3][16], const float *x, int p0, int n, int in, int k0)
{
  for (int i = 0; i < TILE; i++)
    {
      __m512i row[3];
      split_step32 (row, x + (gsize) (p0 + i) * in + k0, p0 + i < n ? in - k0 : 0);
      for (int part = 0; part < 3; part++)
        parts[part][i] = _mm512_castsi512_ps (row[part]);
    }
}

/* x's N rows into xb, parts interleaved by pairs of depth: pair r of step s of position p is the
 * 32-bit word [p/16][s][r][p%16], a transpose of 16 rows' 16 pairs (the bits move, no value
 * changes). Every word of the NP positions is written: zero past N and past the depth. */
static void
pack_x (guint16 *xb, gsize xb_part, const float *x, int n, int np, int in, int kp)
{
  int steps = kp / STEP;
  for (int p0 = 0; p0 < np; p0 += TILE)
    for (int s = 0; s < steps; s++)
      {
        __m512 parts[3][16];
        split_step (parts, x, p0, n, in, s * STEP);
        for (int part = 0; part < 3; part++)
          {
            transpose16 (parts[part]);
            float *dst = (float *) (xb + part * xb_part) + ((gsize) (p0 / TILE) * steps + s) * 256;
            for (int r = 0; r < TILE; r++)
              _mm512_storeu_ps (dst + r * TILE, parts[part][r]);
          }
      }
}

/* ROWS rows of W from row V0 into WP [PADDED rows][kp], zero-padded to PADDED rows and to kp. */
static void
pack_w (guint16 *wp, const AmxJob *j, int v0, int rows, int padded)
{
  int in = j->x->in, kp = j->x->kp;
  memset (wp, 0, sizeof (guint16) * padded * kp);
  for (int r = 0; r < rows; r++)
    memcpy (wp + (gsize) r * kp, j->w + (gsize) (v0 + r) * in, sizeof (guint16) * in);
}

/* A tile of sums [16 rows of W from V][16 positions from P] into out [P + c][V + r]. */
static void
write_tile (const AmxJob *j, const float *tile, int v, int p)
{
  if (v >= j->v_end || p >= j->x->n)
    return;
  __m512 r[16];
  for (int i = 0; i < 16; i++)
    r[i] = _mm512_load_ps (tile + i * 16);
  transpose16 (r);
  __mmask16 lanes = first_lanes (j->v_end - v);
  int positions = MIN (16, j->x->n - p);
  for (int c = 0; c < positions; c++)
    {
      float *dst = j->out + (gsize) (p + c) * j->ldo + v;
      __m512 sum = j->accumulate ? _mm512_add_ps (_mm512_maskz_loadu_ps (lanes, dst), r[c]) : r[c];
      _mm512_mask_storeu_ps (dst, lanes, sum);
    }
}

static void
configure_tiles (void)
{
  TileConfig config;
  memset (&config, 0, sizeof config);
  config.palette = 1;
  for (int i = 0; i < 8; i++)
    {
      config.rows[i] = TILE;
      config.colsb[i] = STEP * sizeof (guint16);
    }
  _tile_loadconfig (&config);
}

/* The sums of one panel (rows A0 and A1 of W, stride A_STRIDE bytes) for the positions of one
 * chunk, one split product and one slice of depth [K0, K1), into the chunk's tiles C. */
static void
panel_slice (const AsAmxRows *x, float *c, const guint16 *a0, const guint16 *a1, gsize a_stride,
             const guint16 *xb, int p0, int positions, int k0, int k1, gboolean first)
{
  int steps = x->kp / STEP;
  for (int pp = 0; pp < positions; pp += PANEL)
    {
      float *sums = c + (gsize) (pp / PANEL) * 4 * TILE * TILE;
      const guint16 *b0 = xb + (gsize) ((p0 + pp) / TILE) * steps * TILE * STEP;
      const guint16 *b1 = b0 + (gsize) steps * TILE * STEP;
      if (first)
        {
          _tile_zero (0);
          _tile_zero (1);
          _tile_zero (2);
          _tile_zero (3);
        }
      else
        {
          _tile_loadd (0, sums, 64);
          _tile_loadd (1, sums + 256, 64);
          _tile_loadd (2, sums + 512, 64);
          _tile_loadd (3, sums + 768, 64);
        }
      for (int k = k0; k < k1; k += STEP)
        {
          gsize s = (gsize) (k / STEP) * TILE * STEP;
          _tile_loadd (4, a0 + k, a_stride);
          _tile_loadd (6, b0 + s, 64);
          _tile_dpbf16ps (0, 4, 6);
          _tile_loadd (7, b1 + s, 64);
          _tile_dpbf16ps (1, 4, 7);
          _tile_loadd (5, a1 + k, a_stride);
          _tile_dpbf16ps (2, 5, 6);
          _tile_dpbf16ps (3, 5, 7);
        }
      _tile_stored (0, sums, 64);
      _tile_stored (1, sums + 256, 64);
      _tile_stored (2, sums + 512, 64);
      _tile_stored (3, sums + 768, 64);
    }
}

/* Rows [V_BEGIN, V_BEGIN + ROWS) of W times every packed position, on the calling thread. */
static void
multiply_rows (const AmxJob *j, int v_begin, int rows)
{
  const AsAmxRows *x = j->x;
  int padded = (rows + PANEL - 1) / PANEL * PANEL;
  guint16 *wp = NULL;
  const guint16 *w_rows = j->w + (gsize) v_begin * x->in;
  gsize a_stride = sizeof (guint16) * x->in;
  if (!j->in_place || rows % PANEL != 0)
    {
      wp = g_aligned_alloc ((gsize) padded * x->kp, sizeof (guint16), 64);
      pack_w (wp, j, v_begin, rows, padded);
      w_rows = wp;
      a_stride = sizeof (guint16) * x->kp;
    }
  gsize row_elems = a_stride / sizeof (guint16);
  float *c = g_aligned_alloc ((gsize) CHUNK / PANEL * 4 * TILE * TILE, sizeof (float), 64);
  configure_tiles ();
  for (int p0 = 0; p0 < x->np; p0 += CHUNK)
    {
      int positions = MIN (CHUNK, x->np - p0);
      for (int v = 0; v < rows; v += PANEL)
        {
          const guint16 *a0 = w_rows + (gsize) v * row_elems;
          for (int t = 0; t < (int) G_N_ELEMENTS (X_PARTS); t++)
            {
              const guint16 *xb = x->xb + X_PARTS[t] * x->xb_part;
              for (int k0 = 0; k0 < x->kp; k0 += SLICE)
                panel_slice (x, c, a0, a0 + TILE * row_elems, a_stride, xb, p0, positions, k0,
                             MIN (x->kp, k0 + SLICE), t == 0 && k0 == 0);
            }
          for (int pp = 0; pp < positions; pp += PANEL)
            {
              const float *sums = c + (gsize) (pp / PANEL) * 4 * TILE * TILE;
              int vv = v_begin + v, p = p0 + pp;
              write_tile (j, sums, vv, p);
              write_tile (j, sums + 256, vv, p + TILE);
              write_tile (j, sums + 512, vv + TILE, p);
              write_tile (j, sums + 768, vv + TILE, p + TILE);
            }
        }
    }
  _tile_release ();
  g_aligned_free (c);
  g_aligned_free (wp);
}

/* Float32 weights: W's panels are split like x, on the fly, and multiplied by six products, the
 * pairs of parts matmul-amx-private.h lists. */

/* W's panel of 32 rows split into its parts: tile T of part Q at step S is the 1 KiB
 * [(Q·2 + T)·steps + S][16 rows][32 depth], so every tile load reads contiguous memory. */
static void
split_w_panel (guint16 *wp, const float *w, int rows, int in, int kp)
{
  int steps = kp / STEP;
  gsize part = (gsize) 2 * steps * TILE * STEP;
  for (int s = 0; s < steps; s++)
    for (int r = 0; r < PANEL; r++)
      {
        guint16 *dst = wp + (((gsize) (r / TILE) * steps + s) * TILE + r % TILE) * STEP;
        int k = s * STEP;
        __m512i parts[3];
        split_step32 (parts, w + (gsize) r * in + k, r < rows ? in - k : 0);
        for (int q = 0; q < 3; q++)
          _mm512_store_si512 ((__m512i *) (dst + q * part), parts[q]);
      }
}

/* BF16 W's panel of 32 rows in the same tile order, one part. */
static void
pack_w_panel (guint16 *wp, const guint16 *w, int rows, int in, int kp)
{
  int steps = kp / STEP;
  for (int s = 0; s < steps; s++)
    for (int r = 0; r < PANEL; r++)
      {
        guint16 *dst = wp + (((gsize) (r / TILE) * steps + s) * TILE + r % TILE) * STEP;
        int k = s * STEP, count = CLAMP (in - k, 0, STEP);
        __mmask32 lanes = count == STEP ? (__mmask32) 0xFFFFFFFFu : (__mmask32) ((1u << count) - 1);
        __m512i v = r < rows ? _mm512_maskz_loadu_epi16 (lanes, w + (gsize) r * in + k)
                             : _mm512_setzero_si512 ();
        _mm512_store_si512 ((__m512i *) dst, v);
      }
}

/* Four tile products: W part WQ's two tiles (loaded when LOAD_W) by x part XQ's two (loaded when
 * LOAD_X), at step S, into sums 0..3. */
#define TILE_QUAD(WQ, XQ, LOAD_W, LOAD_X)                                                          \
  do                                                                                               \
    {                                                                                              \
      const guint16 *w0 = wp + ((gsize) (WQ) *2 * steps + s) * TILE * STEP;                        \
      if (LOAD_W)                                                                                  \
        _tile_loadd (4, w0, 64);                                                                   \
      if (LOAD_X)                                                                                  \
        _tile_loadd (6, b0[XQ] + so, 64);                                                          \
      _tile_dpbf16ps (0, 4, 6);                                                                    \
      if (LOAD_X)                                                                                  \
        _tile_loadd (7, b1[XQ] + so, 64);                                                          \
      _tile_dpbf16ps (1, 4, 7);                                                                    \
      if (LOAD_W)                                                                                  \
        _tile_loadd (5, w0 + (gsize) steps * TILE * STEP, 64);                                     \
      _tile_dpbf16ps (2, 5, 6);                                                                    \
      _tile_dpbf16ps (3, 5, 7);                                                                    \
    }                                                                                              \
  while (0)

/* The four tiles of sums of panel WP by packed positions [P0, P0 + 32), prefetching FETCH lines
 * from *NEXT (advanced) per step meanwhile. A float32 panel (SPLIT) takes six products per step;
 * a BF16 panel three, x's parts smallest first, each over the whole depth (the sequence
 * multiply_rows gives every element, so both paths give the same bits). */
static void
panel_products (const AsAmxRows *x, float *sums, const guint16 *wp, gboolean split, int p0,
                const char **next, const char *next_end, int fetch)
{
  int steps = x->kp / STEP;
  const guint16 *b0[3], *b1[3];
  for (int q = 0; q < 3; q++)
    {
      b0[q] = x->xb + q * x->xb_part + (gsize) (p0 / TILE) * steps * TILE * STEP;
      b1[q] = b0[q] + (gsize) steps * TILE * STEP;
    }
  _tile_zero (0);
  _tile_zero (1);
  _tile_zero (2);
  _tile_zero (3);
  int passes = split ? 1 : (int) G_N_ELEMENTS (X_PARTS);
  for (int t = 0; t < passes; t++)
    for (int s = 0; s < steps; s++)
      {
        gsize so = (gsize) s * TILE * STEP;
        for (int f = 0; f < fetch && *next < next_end; f++, *next += 64)
          _mm_prefetch (*next, _MM_HINT_T0);
        if (!split)
          {
            TILE_QUAD (0, X_PARTS[t], TRUE, TRUE);
            continue;
          }
        /* smallest products first: hi·lo, hi·mid, mid·mid, mid·hi, lo·hi, hi·hi */
        TILE_QUAD (0, 2, TRUE, TRUE);
        TILE_QUAD (0, 1, FALSE, TRUE);
        TILE_QUAD (1, 1, TRUE, FALSE);
        TILE_QUAD (1, 0, FALSE, TRUE);
        TILE_QUAD (2, 0, TRUE, FALSE);
        TILE_QUAD (0, 0, TRUE, FALSE);
      }
  _tile_stored (0, sums, 64);
  _tile_stored (1, sums + 256, 64);
  _tile_stored (2, sums + 512, 64);
  _tile_stored (3, sums + 768, 64);
}

/* A tile of sums [16 rows of W][16 positions] transposed into BUF [16 positions][LDB]. */
static void
tile_to_rows (const float *tile, float *buf, int ldb)
{
  __m512 r[16];
  for (int i = 0; i < 16; i++)
    r[i] = _mm512_load_ps (tile + i * 16);
  transpose16 (r);
  for (int c = 0; c < 16; c++)
    _mm512_store_ps (buf + (gsize) c * ldb, r[c]);
}

/* DST [COUNT] = SRC (64-byte aligned) past the caches where whole lines allow: the logits are
 * read again only after the product, and written through the caches they would evict the split
 * weights and x the tiles read. */
static void
stream_row (float *dst, const float *src, int count)
{
  int head = (int) ((64 - ((uintptr_t) dst & 63)) & 63) / (int) sizeof (float);
  if (head >= count)
    {
      memcpy (dst, src, sizeof (float) * count);
      return;
    }
  memcpy (dst, src, sizeof (float) * head);
  int i = head;
  for (; i + 16 <= count; i += 16)
    _mm512_stream_ps (dst + i, _mm512_loadu_ps (src + i));
  memcpy (dst + i, src + i, sizeof (float) * (count - i));
}

/* Rows [V_BEGIN, V_BEGIN + ROWS) of W (at most j->block, a multiple of PANEL) times every packed
 * position, on the calling thread (as_amx_matmul_transposed): the rows are split (float32) or
 * packed (BF16) into tile order once, their parts stay in the core's L2 while each 32 positions
 * of x pass under all their panels, and the next unit's rows are prefetched meanwhile. Each
 * position's ROWS sums are gathered and written as one run: tile by tile, 64-byte pieces of 16 rows
 * of out cost twice the time of the products. */
static void
multiply_rows_unit (const AmxJob *j, int v_begin, int rows)
{
  const AsAmxRows *x = j->x;
  int panels = (rows + PANEL - 1) / PANEL, steps = x->kp / STEP, ldb = panels * PANEL;
  gboolean f32 = j->w32 != NULL;
  gsize panel_elems = (gsize) (f32 ? 3 : 1) * PANEL * x->kp, w_size = f32 ? 4 : 2;
  guint16 *wp = g_aligned_alloc (panel_elems * panels, sizeof (guint16), 64);
  float *sums = g_aligned_alloc (4 * TILE * TILE, sizeof (float), 64);
  float *buf = g_aligned_alloc ((gsize) PANEL * ldb, sizeof (float), 64); /* [32][ldb] */
  const char *w = (const char *) (f32 ? (const void *) j->w32 : (const void *) j->w)
                  + w_size * (gsize) v_begin * x->in;
  for (int v = 0; v < panels; v++)
    {
      const char *rows_at = w + w_size * (gsize) v * PANEL * x->in;
      int panel_rows = MIN (PANEL, rows - v * PANEL);
      if (f32)
        split_w_panel (wp + v * panel_elems, (const float *) rows_at, panel_rows, x->in, x->kp);
      else
        pack_w_panel (wp + v * panel_elems, (const guint16 *) rows_at, panel_rows, x->in, x->kp);
    }
  /* the next unit's rows, prefetched evenly over this unit's steps */
  int next_rows = CLAMP (j->v_end - v_begin - rows, 0, j->block);
  const char *next = w + w_size * (gsize) rows * x->in;
  const char *next_end = next + w_size * (gsize) next_rows * x->in;
  gsize iterations = (gsize) (x->np / PANEL) * panels * steps * (f32 ? 1 : G_N_ELEMENTS (X_PARTS));
  int fetch = (int) (((gsize) (next_end - next) / 64 + iterations - 1) / iterations);
  configure_tiles ();
  for (int pp = 0; pp < x->np; pp += PANEL)
    {
      for (int v = 0; v < panels; v++)
        {
          panel_products (x, sums, wp + v * panel_elems, f32, pp, &next, next_end, fetch);
          float *at = buf + v * PANEL;
          tile_to_rows (sums, at, ldb);
          tile_to_rows (sums + 256, at + (gsize) TILE * ldb, ldb);
          tile_to_rows (sums + 512, at + TILE, ldb);
          tile_to_rows (sums + 768, at + (gsize) TILE * ldb + TILE, ldb);
        }
      int positions = MIN (PANEL, x->n - pp);
      if (j->visit != NULL)
        j->visit (j->visit_data, v_begin / j->block, v_begin, rows, j->p_offset + pp, positions,
                  buf, ldb);
      else
        for (int c = 0; c < positions; c++)
          stream_row (j->out + (gsize) (pp + c) * j->ldo + v_begin, buf + (gsize) c * ldb, rows);
    }
  _mm_sfence ();
  _tile_release ();
  g_aligned_free (buf);
  g_aligned_free (sums);
  g_aligned_free (wp);
}

static void
amx_unit (gpointer data, int block)
{
  const AmxJob *j = data;
  int v_begin = block * j->block, rows = MIN (j->block, j->v_end - v_begin);
  /* a BF16 W for a few positions is read in place: packing it would double its traffic (the
   * same bits either way) */
  if (j->w32 == NULL && j->x->np <= FEW_POSITIONS && j->visit == NULL)
    multiply_rows (j, v_begin, rows);
  else
    multiply_rows_unit (j, v_begin, rows);
}

int
as_amx_rows_at_once (int in)
{
  gsize kp = (gsize) (MAX (in, 1) + STEP - 1) / STEP * STEP;
  int rows = (int) MIN (PACK_BYTES / (kp * 3 * sizeof (guint16)), MAX_PACK_ROWS);
  return MAX (rows / PANEL * PANEL, PANEL);
}

void
as_amx_rows_pack (AsAmxRows *rows, const float *x, int n)
{
  g_return_if_fail (n > 0 && (gsize) (n + PANEL - 1) / PANEL * PANEL * rows->kp <= rows->capacity);
  rows->n = n;
  rows->np = (n + PANEL - 1) / PANEL * PANEL;
  rows->xb_part = (gsize) rows->np * rows->kp;
  pack_x (rows->xb, rows->xb_part, x, n, rows->np, rows->in, rows->kp);
}

AsAmxRows *
as_amx_rows_new (const float *x, int n, int in)
{
  if (!as_amx_usable () || n <= 0 || in <= 0)
    return NULL;
  AsAmxRows *rows = g_new0 (AsAmxRows, 1);
  rows->in = in;
  rows->kp = (in + STEP - 1) / STEP * STEP;
  gsize np = (gsize) (n + PANEL - 1) / PANEL * PANEL;
  rows->capacity = np * rows->kp;
  rows->xb = g_aligned_alloc (3 * rows->capacity, sizeof (guint16), 64);
  as_amx_rows_pack (rows, x, n);
  return rows;
}

void
as_amx_rows_free (AsAmxRows *rows)
{
  if (rows == NULL)
    return;
  g_aligned_free (rows->xb);
  g_free (rows);
}

static AmxJob
amx_job (const AsAmxRows *x, const void *w)
{
  return (AmxJob){ .x = x, .w = w, .in_place = x->in % STEP == 0 };
}

void
as_amx_rows_multiply (const AsAmxRows *x, float *out, int ldo, gboolean accumulate, const void *w,
                      int c0, int cols)
{
  AmxJob job = amx_job (x, w);
  job.out = out;
  job.ldo = ldo;
  job.accumulate = accumulate;
  job.v_end = c0 + cols;
  multiply_rows (&job, c0, cols);
}

/* W's rows per unit: up to UNIT_BYTES of split or packed parts, which stay in the core's L2
 * beside the 32 positions of x passing under them (multiply_rows_unit). A visited product's units
 * are twice as large: with no sums written, x's passes from L3 — one per unit — are what the
 * larger unit halves (the logit lens of GPT-2 at 128 positions: 171–182 → 155–166 ms); a written
 * head gained nothing from them (bench-head 767 rows: 118–126 against 120–129 ms). */
#define UNIT_BYTES (5u << 17)
#define VISIT_UNIT_BYTES (5u << 18)

static int
unit_rows (AsDType dtype, int in, gsize unit_bytes)
{
  gsize kp = (gsize) (MAX (in, 1) + STEP - 1) / STEP * STEP;
  gsize row_bytes = kp * (dtype == AS_DTYPE_F32 ? 3 : 1) * sizeof (guint16);
  int block = (int) (unit_bytes / row_bytes) / PANEL * PANEL;
  return CLAMP (block, PANEL, MAX_BLOCK);
}

int
as_amx_unit_rows (AsDType dtype, int in)
{
  return unit_rows (dtype, in, VISIT_UNIT_BYTES);
}

/* x [n][in] · Wᵀ unit by unit, the sums written to OUT [n][out_dim] or handed to VISIT. */
static gboolean
run_units (AsWorkerTeam *team, float *out, const float *x, const void *w, AsDType dtype, int n,
           int in, int out_dim, AsAmxSumsFunc visit, gpointer visit_data)
{
  gboolean f32 = dtype == AS_DTYPE_F32;
  if (!as_amx_usable () || (dtype != AS_DTYPE_BF16 && !f32) || n <= 0 || in <= 0 || out_dim <= 0)
    return FALSE;
  int at_once = as_amx_rows_at_once (in);
  g_autoptr (AsAmxRows) rows = as_amx_rows_new (x, MIN (n, at_once), in);
  AmxJob job = amx_job (rows, f32 ? NULL : w);
  job.w32 = f32 ? w : NULL;
  job.block = unit_rows (dtype, in, visit != NULL ? VISIT_UNIT_BYTES : UNIT_BYTES);
  job.ldo = out_dim;
  job.v_end = out_dim;
  job.visit = visit;
  job.visit_data = visit_data;
  int units = (out_dim + job.block - 1) / job.block;
  gsize products = f32 ? 6 : G_N_ELEMENTS (X_PARTS);
  for (int p0 = 0; p0 < n; p0 += at_once)
    {
      if (p0 > 0)
        as_amx_rows_pack (rows, x + (gsize) p0 * in, MIN (at_once, n - p0));
      job.out = out != NULL ? out + (gsize) p0 * out_dim : NULL;
      job.p_offset = p0;
      as_parallel_blocks (team, (gsize) rows->np * rows->kp * out_dim * products, units, amx_unit,
                          &job);
    }
  return TRUE;
}

gboolean
as_amx_matmul_transposed (AsWorkerTeam *team, float *out, const float *x, const void *w,
                          AsDType dtype, int n, int in, int out_dim)
{
  return run_units (team, out, x, w, dtype, n, in, out_dim, NULL, NULL);
}

gboolean
as_amx_matmul_visit (AsWorkerTeam *team, const float *x, const void *w, AsDType dtype, int n,
                     int in, int out_dim, AsAmxSumsFunc visit, gpointer data)
{
  g_return_val_if_fail (visit != NULL, FALSE);
  return run_units (team, NULL, x, w, dtype, n, in, out_dim, visit, data);
}
