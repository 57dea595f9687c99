/* dtype-private.h — the element types weights are stored in, and their exact widening to float32.
 *
 * safetensors checkpoints hold F32, BF16 or F16 tensors (core/io/README.md, "Weight files"). Both
 * 16-bit types widen to float32 exactly: BF16 is the upper half of an IEEE float32 (widening
 * appends 16 zero bits), F16 is IEEE binary16 (every value, subnormals, infinities and NaNs
 * included, is a float32 value). So a model is computed with the very numbers its file holds,
 * whether a weight is widened once at load or tile by tile during a forward pass.
 *
 * AsWeight is how a family hands a stored matrix to the kernels without widening it first: the
 * kernels (forward/kernels-private.h) widen small tiles of it as they multiply. Private to the
 * core. */
#pragma once

#include <glib.h>
#include <stdint.h>

G_BEGIN_DECLS

typedef enum
{
  AS_DTYPE_F32,
  AS_DTYPE_BF16,
  AS_DTYPE_F16,
} AsDType;

/* A row-major matrix as it is stored: DATA holds rows × cols elements of DTYPE. */
typedef struct
{
  const void *data;
  AsDType dtype;
} AsWeight;

/* "F32", "BF16", "F16": the safetensors spelling. */
const char *as_dtype_name (AsDType dtype);

/* Bytes per element: 4 or 2. */
gsize as_dtype_size (AsDType dtype);

/* out [n] = SRC [n] (of DTYPE) widened to float32, exactly. */
void as_dtype_widen (float *out, const void *src, AsDType dtype, gsize n);

/* TRUE when one of SRC [n] (of DTYPE) is a NaN or an infinity; *INDEX receives the first one. */
gboolean as_dtype_find_nonfinite (const void *src, AsDType dtype, gsize n, gsize *index);

/* The float32 value of the 16-bit patterns (exact). */
static inline float
as_bf16_to_f32 (guint16 h)
{
  union
  {
    guint32 u;
    float f;
  } v = { .u = (guint32) h << 16 };
  return v.f;
}

float as_f16_to_f32 (guint16 h);

G_END_DECLS
