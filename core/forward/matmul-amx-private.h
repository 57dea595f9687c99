/* matmul-amx-private.h — products with BF16 weights on Intel AMX tiles, to float32 accuracy
 * (matmul-amx.c).
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
 * Float32 weights stay on OpenBLAS. Split into three parts as well, they need six products; tried
 * on the logit lens of a distilgpt2-shaped model they were no faster (310 against 330 ms) and the
 * forward pass's 128 rows of logits were slower (90 against 74 ms). */
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

/* out [n][out_dim] = x [n][in] · Wᵀ, W [out_dim][in] BF16, on AMX tiles (see above), shared by
 * TEAM's members. FALSE, touching nothing, when AMX is not usable or W is another dtype. */
gboolean as_amx_matmul_transposed (AsWorkerTeam *team, float *out, const float *x, const void *w,
                                   AsDType dtype, int n, int in, int out_dim);

G_END_DECLS
