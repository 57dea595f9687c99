/* amx-probe.c — whether this process may multiply on AMX tiles (matmul-amx-private.h).
 *
 * Compiled for the baseline x86-64, unlike matmul-amx.c, so that asking is safe on every CPU.
 * Linux keeps the tile state (8 KiB per thread) off until the process asks for it
 * (arch_prctl ARCH_REQ_XCOMP_PERM, Linux ≥ 5.16); without the grant a tile instruction faults. */
#include "matmul-amx-private.h"
#include "read-out-ranked-private.h"

#include <string.h>

#if defined(AS_HAVE_AMX)
#include <cpuid.h>
#include <sys/syscall.h>
#include <unistd.h>

#define ARCH_REQ_XCOMP_PERM 0x1023
#define XFEATURE_XTILEDATA 18

static gboolean
cpu_has_amx (void)
{
  unsigned a, b, c, d;
  if (!__get_cpuid_count (1, 0, &a, &b, &c, &d) || !(c & (1u << 27))) /* OSXSAVE */
    return FALSE;
  if (!__get_cpuid_count (7, 0, &a, &b, &c, &d))
    return FALSE;
  gboolean avx512 = (b & (1u << 16)) && (b & (1u << 30)) && (b & (1u << 31)); /* F, BW, VL */
  gboolean amx = (d & (1u << 24)) && (d & (1u << 22));                        /* TILE, BF16 */
  if (!avx512 || !amx || !__get_cpuid_count (7, 1, &a, &b, &c, &d) || !(a & (1u << 5)))
    return FALSE; /* AVX512-BF16 */
  unsigned lo, hi;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  guint64 xcr0 = ((guint64) hi << 32) | lo;
  guint64 needed = (1u << 1) | (1u << 2) | (7u << 5) | (3u << 17); /* SSE, AVX, AVX-512, tiles */
  return (xcr0 & needed) == needed;
}

static gpointer
probe (gpointer unused)
{
  const char *env = g_getenv ("ATTNSCOPE_AMX");
  if (env != NULL && strcmp (env, "0") == 0)
    return GINT_TO_POINTER (FALSE);
  if (!cpu_has_amx ())
    return GINT_TO_POINTER (FALSE);
  return GINT_TO_POINTER (syscall (SYS_arch_prctl, ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA) == 0);
}

gboolean
as_amx_usable (void)
{
  static GOnce once = G_ONCE_INIT;
  return GPOINTER_TO_INT (g_once (&once, probe, NULL));
}

#else

gboolean
as_amx_usable (void)
{
  return FALSE;
}

gboolean
as_amx_matmul_transposed (AsWorkerTeam *team, float *out, const float *x, const void *w,
                          AsDType dtype, int n, int in, int out_dim)
{
  return FALSE;
}

AsAmxRows *
as_amx_rows_new (const float *x, int n, int in)
{
  return NULL;
}

int
as_amx_rows_at_once (int in)
{
  return 32;
}

void
as_amx_rows_pack (AsAmxRows *rows, const float *x, int n)
{
  g_assert_not_reached ();
}

void
as_amx_rows_free (AsAmxRows *rows)
{
}

void
as_amx_rows_multiply (const AsAmxRows *x, float *out, int ldo, gboolean accumulate, const void *w,
                      int c0, int cols)
{
  g_assert_not_reached ();
}

int
as_amx_unit_rows (AsDType dtype, int in)
{
  return 32;
}

gboolean
as_amx_matmul_visit (AsWorkerTeam *team, const float *x, const void *w, AsDType dtype, int n,
                     int in, int out_dim, AsAmxSumsFunc visit, gpointer data)
{
  return FALSE;
}

void
as_rank_unit (gpointer data, int unit, int v_begin, int rows, int p0, int positions, float *sums,
              int ld)
{
  g_assert_not_reached ();
}

#endif
