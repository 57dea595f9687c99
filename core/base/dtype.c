/* dtype.c — exact widening of BF16 and F16 to float32, and the finite check of stored weights
 * (dtype-private.h).
 *
 * Both are integer manipulations of the bit patterns, written branch-free so that the compiler
 * vectorises them: widening runs on every weight tile of a forward pass over 16-bit weights,
 * and the finite check once over every weight at load. */
#include "dtype-private.h"

#include <string.h>

#include "simd-private.h"

const char *
as_dtype_name (AsDType dtype)
{
  switch (dtype)
    {
    case AS_DTYPE_F32:
      return "F32";
    case AS_DTYPE_BF16:
      return "BF16";
    case AS_DTYPE_F16:
      return "F16";
    }
  g_assert_not_reached ();
}

gsize
as_dtype_size (AsDType dtype)
{
  return dtype == AS_DTYPE_F32 ? 4 : 2;
}

/* binary16 → binary32: the exponent and mantissa bits shifted into place give, read as a
 * float32, the value times 2^-112 — for subnormal halves too, which become float32 subnormals —
 * so one exact multiplication by 2^112 rebiases them. Infinities and NaNs (exponent all ones)
 * get the float32 exponent all ones and keep their mantissa. */
static inline guint32
f16_bits_to_f32_bits (guint32 h)
{
  guint32 sign = (h & 0x8000u) << 16;
  guint32 em = h & 0x7fffu;
  guint32 shifted = em << 13;
  float f;
  memcpy (&f, &shifted, 4);
  f *= 0x1p112f;
  guint32 bits;
  memcpy (&bits, &f, 4);
  bits |= em >= 0x7c00u ? 0x7f800000u : 0u;
  return bits | sign;
}

float
as_f16_to_f32 (guint16 h)
{
  guint32 bits = f16_bits_to_f32_bits (h);
  float f;
  memcpy (&f, &bits, 4);
  return f;
}

AS_CLONES static void
widen_bf16 (guint32 *out, const guint16 *src, gsize n)
{
  for (gsize i = 0; i < n; i++)
    out[i] = (guint32) src[i] << 16;
}

AS_CLONES static void
widen_f16 (guint32 *out, const guint16 *src, gsize n)
{
  for (gsize i = 0; i < n; i++)
    out[i] = f16_bits_to_f32_bits (src[i]);
}

void
as_dtype_widen (float *out, const void *src, AsDType dtype, gsize n)
{
  switch (dtype)
    {
    case AS_DTYPE_F32:
      memcpy (out, src, n * sizeof (float));
      break;
    case AS_DTYPE_BF16:
      widen_bf16 ((guint32 *) out, src, n);
      break;
    case AS_DTYPE_F16:
      widen_f16 ((guint32 *) out, src, n);
      break;
    }
}

/* Non-zero when one of the N patterns has every exponent bit set (MASK): adding the lowest
 * exponent bit (LOW) then carries into the bit above the exponent (CARRY) exactly for those.
 * Integer-only, in blocks of 64, so that it vectorises without -ffast-math. */
#define NONFINITE_SCAN(type, bits, n, mask, low, carry)                                            \
  do                                                                                               \
    {                                                                                              \
      for (gsize i0 = 0; i0 < (n); i0 += 64)                                                       \
        {                                                                                          \
          gsize i1 = MIN ((n), i0 + 64);                                                           \
          type acc = 0;                                                                            \
          for (gsize i = i0; i < i1; i++)                                                          \
            acc |= (type) ((((bits)[i] & (mask)) + (low)) & (carry));                              \
          if (acc != 0)                                                                            \
            for (gsize i = i0; i < i1; i++)                                                        \
              if (((bits)[i] & (mask)) == (mask))                                                  \
                {                                                                                  \
                  *index = i;                                                                      \
                  return TRUE;                                                                     \
                }                                                                                  \
        }                                                                                          \
    }                                                                                              \
  while (0)

AS_CLONES static gboolean
find_nonfinite_f32 (const guint32 *bits, gsize n, gsize *index)
{
  NONFINITE_SCAN (guint32, bits, n, 0x7f800000u, 0x00800000u, 0x80000000u);
  return FALSE;
}

AS_CLONES static gboolean
find_nonfinite_16 (const guint16 *bits, gsize n, guint16 mask, guint16 low, guint16 carry,
                   gsize *index)
{
  NONFINITE_SCAN (guint16, bits, n, mask, low, carry);
  return FALSE;
}

gboolean
as_dtype_find_nonfinite (const void *src, AsDType dtype, gsize n, gsize *index)
{
  switch (dtype)
    {
    case AS_DTYPE_F32:
      return find_nonfinite_f32 (src, n, index);
    case AS_DTYPE_BF16: /* exponent bits 14..7 */
      return find_nonfinite_16 (src, n, 0x7f80u, 0x0080u, 0x8000u, index);
    case AS_DTYPE_F16: /* exponent bits 14..10 */
      return find_nonfinite_16 (src, n, 0x7c00u, 0x0400u, 0x8000u, index);
    }
  g_assert_not_reached ();
}
