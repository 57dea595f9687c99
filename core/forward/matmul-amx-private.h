/* matmul-amx-private.h — products with BF16 and float32 weights on Intel AMX tiles, to float32
 * accuracy (matmul-amx.c).
 *
 * AMX multiplies BF16 tiles into float32 sums, sixteen times the float32 rate of AVX-512 on the
 * same core. A float32 value is exactly the sum of three BF16 values (hi, mid, lo: 8 bits of the
 * 24-bit significand each), and the product of two BF16 values is exact in float32, so for a
 * BF16 weight w
 *
 *   x · w = x_lo · w + x_mid · w + x_hi · w, each product exact, the sums in float32:
 *
 * the product of the widened weight that the float32 path computes, rounded like any float32
 * GEMM (test-matmul-amx: within about one unit of 2⁻²⁴·Σ|x_k w_k| of the exact sum). Every output
 * element is the same sequence of tile operations whatever the thread count, the number of rows
 * or where a row falls in a tile: a row's result is the same bits computed alone or among
 * others, so the output head needs no last row apart on this path.
 *
 * A float32 weight is split the same way, panel by panel as the product reads it, and takes six
 * products: every pair of parts whose product can exceed 2⁻²⁴ of |x w| (hi·hi; hi·mid and mid·hi,
 * up to 2⁻⁸; hi·lo, mid·mid and lo·hi, up to 2⁻¹⁶). The three dropped (mid·lo, lo·mid, lo·lo) are
 * at most 2⁻²³ of |x w| together, two units of float32's rounding, inside a float32 dot product's
 * own bound: the sums keep float32 GEMM accuracy (test-matmul-amx: at most 2.1 units measured).
 * Splitting W costs about what reading it costs, so only the output head of many rows takes this
 * path (as_matmul_logits: from 33 rows; 767 rows of GPT-2's head 189 → 101 ms on two cores); the
 * layers' float32 projections and a head's few rows stay on OpenBLAS. */
#pragma once

#include <glib.h>

#include "dtype-private.h"
#include "worker-team-private.h"

G_BEGIN_DECLS

/* Whether this process multiplies on AMX tiles: the CPU has AMX-BF16 and AVX512-BF16, Linux
 * granted the tile state, and ATTNSCOPE_AMX is not "0". Asked once. */
gboolean as_amx_usable (void);

/* Rows of x split and packed once for several products (a batch's projections of one x). */
typedef struct _AsAmxRows AsAmxRows;

/* How many rows of depth IN to pack at once: up to 16 MiB of packed rows (6 bytes a value), so a
 * pass's working memory stays bounded whatever T (a multiple of 32, at most 1,024). */
int as_amx_rows_at_once (int in);

/* X [n][in] packed (6 bytes per value); NULL when AMX is not usable. */
AsAmxRows *as_amx_rows_new (const float *x, int n, int in);
/* Packs N other rows of X into ROWS, N at most the rows it was made for. */
void as_amx_rows_pack (AsAmxRows *rows, const float *x, int n);
void as_amx_rows_free (AsAmxRows *rows);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (AsAmxRows, as_amx_rows_free)

/* out[:, c0 .. c0 + cols) (+ with ACCUMULATE)= x · W[c0 .. c0 + cols)ᵀ on the calling thread; W
 * BF16 [*][in], OUT [n][ldo]. */
void as_amx_rows_multiply (const AsAmxRows *x, float *out, int ldo, gboolean accumulate,
                           const void *w, int c0, int cols);

/* out [n][out_dim] = x [n][in] · Wᵀ, W [out_dim][in] BF16 or float32, on AMX tiles (see above),
 * shared by TEAM's members. FALSE, touching nothing, when AMX is not usable or W is F16. */
gboolean as_amx_matmul_transposed (AsWorkerTeam *team, float *out, const float *x, const void *w,
                                   AsDType dtype, int n, int in, int out_dim);

/* The sums of W's rows [V_BEGIN, V_BEGIN + ROWS) (unit UNIT of as_amx_unit_rows rows) for the
 * positions [P0, P0 + POSITIONS) of x: SUMS [POSITIONS][LD], position P0 + c's at SUMS + c·LD,
 * each the bits as_amx_matmul_transposed would write. The callee may change them in place. Units
 * run on the team's threads at once; each (unit, position) is handed over exactly once. */
typedef void (*AsAmxSumsFunc) (gpointer data, int unit, int v_begin, int rows, int p0,
                               int positions, float *sums, int ld);

/* W's rows per unit of as_amx_matmul_visit for weights of DTYPE and depth IN. */
int as_amx_unit_rows (AsDType dtype, int in);

/* As as_amx_matmul_transposed, but each unit's sums go to VISIT while they are in the core's
 * cache, and nothing is written: a reader that needs only a summary of every row of x · Wᵀ (the
 * logit lens's top K and normaliser) never writes or reads back [n][out_dim]. */
gboolean as_amx_matmul_visit (AsWorkerTeam *team, const float *x, const void *w, AsDType dtype,
                              int n, int in, int out_dim, AsAmxSumsFunc visit, gpointer data);

G_END_DECLS
