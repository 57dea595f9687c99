/* tsne-simd-private.h — 16-lane float vectors for the t-SNE kernels (private to the core).
 *
 * GCC/Clang vector extensions: the kernels that include this are compiled as target clones for
 * AVX-512, AVX2 and the baseline, and the same source runs everywhere. Vectors are never passed
 * by value (that would tie the ABI to the instruction set): helpers take pointers and inline. */
#pragma once

#include <string.h>

#define VL 16
typedef float vfloat __attribute__ ((vector_size (VL * sizeof (float))));
typedef int vint __attribute__ ((vector_size (VL * sizeof (int))));

#define LOAD(v, src) memcpy (&(v), (src), sizeof (v))

static inline double
lane_sum (const vfloat *v)
{
  double s = 0.0;
  for (int l = 0; l < VL; l++)
    s += (*v)[l];
  return s;
}

/* Natural log of every lane (x >= 1 here: x = 1 + d²), Cephes' logf: x = m·2^e with m in
 * [√½, √2), log(1 + f) by a degree-9 polynomial; ~1e-7 relative. */
static inline void
vlog (vfloat *out, const vfloat *in)
{
  const vint bits = (vint) *in;
  vint e = ((bits >> 23) & 0xff) - 126;
  vfloat m = (vfloat) ((bits & 0x807fffff) | 0x3f000000); /* [0.5, 1) */
  vint small = m < 0.707106781186547524f;                 /* lanes -1 where true */
  e += small;
  m = m - 1.0f + (vfloat) ((vint) m & small);
  vfloat z = m * m;
  vfloat y = 7.0376836292e-2f * m - 1.1514610310e-1f;
  y = y * m + 1.1676998740e-1f;
  y = y * m - 1.2420140846e-1f;
  y = y * m + 1.4249322787e-1f;
  y = y * m - 1.6668057665e-1f;
  y = y * m + 2.0000714765e-1f;
  y = y * m - 2.4999993993e-1f;
  y = y * m + 3.3333331174e-1f;
  y = y * m * z;
  vfloat ef = __builtin_convertvector(e, vfloat);
  y += -2.12194440e-4f * ef - 0.5f * z;
  *out = m + y + 0.693359375f * ef;
}

/* Run-time dispatch needs x86-64, an ifunc-capable C library (glibc) and GCC or Clang >= 14;
 * elsewhere the kernels are compiled once for the build's target. */
#if defined(__x86_64__) && defined(__GLIBC__)                                                      \
    && (defined(__clang__) ? __clang_major__ >= 14 : defined(__GNUC__))
#define TSNE_TARGET_CLONES __attribute__ ((target_clones ("avx512f", "avx2", "default")))
#else
#define TSNE_TARGET_CLONES
#endif
