/* rope.c — rotary position embeddings in Hugging Face's layout (rope-private.h).
 *
 * The frequencies follow transformers' modeling_rope_utils.py operation by operation in float32:
 * torch evaluates `1.0 / x` and `s / x` for a Python scalar s as reciprocal(x) · s, and
 * tensor-with-scalar arithmetic in float32. The angles are one rounded float32 product position ×
 * f_i, as HF's `inv_freq @ position_ids`; their cosines and sines are the float32 roundings of the
 * exact values. */
#include "rope-private.h"

#include <math.h>

const char *
as_rope_type_name (AsRopeType type)
{
  switch (type)
    {
    case AS_ROPE_DEFAULT:
      return "default";
    case AS_ROPE_LINEAR:
      return "linear";
    case AS_ROPE_LLAMA3:
      return "llama3";
    case AS_ROPE_LONGROPE:
      return "longrope";
    }
  g_assert_not_reached ();
}

/* torch's `s / x` for a Python scalar s and a float32 x. */
static inline float
scalar_over (double s, float x)
{
  return (1.0f / x) * (float) s;
}

/* _compute_llama3_parameters: wavelengths shorter than original/high keep f, longer than
 * original/low get f/factor, and a smooth mix in between. */
static float
llama3_scale (float f, const AsRope *r)
{
  float factor = (float) r->factor;
  float wavelen = scalar_over (2 * G_PI, f);
  float low_wavelen = (float) (r->original_max_positions / r->low_freq_factor);
  float high_wavelen = (float) (r->original_max_positions / r->high_freq_factor);
  float scaled = wavelen > low_wavelen ? f / factor : f; /* inv_freq_llama */
  float smooth = (scalar_over (r->original_max_positions, wavelen) - (float) r->low_freq_factor)
                 / (float) (r->high_freq_factor - r->low_freq_factor);
  float smoothed = (1.0f - smooth) * scaled / factor + smooth * scaled;
  gboolean medium = !(wavelen < high_wavelen) && !(wavelen > low_wavelen);
  return medium ? smoothed : scaled;
}

/* The ext factors longrope divides by: the long ones past the original context. */
static const double *
longrope_factors (const AsRope *r, int n_tokens)
{
  return (double) n_tokens > r->original_max_positions ? r->long_factor : r->short_factor;
}

void
as_rope_inv_freq (float *inv_freq, const AsRope *r, int n_tokens)
{
  int half = r->rotary_dim / 2;
  const double *ext = r->type == AS_ROPE_LONGROPE ? longrope_factors (r, n_tokens) : NULL;
  for (int i = 0; i < half; i++)
    {
      /* theta ** (arange(0, dim, 2).float() / dim), then 1.0 / that */
      float exponent = (float) (2 * i) / (float) r->rotary_dim;
      float power = (float) pow ((double) (float) r->theta, (double) exponent);
      float f = 1.0f / power;
      switch (r->type)
        {
        case AS_ROPE_DEFAULT:
          break;
        case AS_ROPE_LINEAR:
          f = f / (float) r->factor;
          break;
        case AS_ROPE_LLAMA3:
          f = llama3_scale (f, r);
          break;
        case AS_ROPE_LONGROPE:
          /* 1.0 / (ext_factors * base**inv_freq_shape): one float32 product, then 1/x */
          f = 1.0f / ((float) ext[i] * power);
          break;
        }
      inv_freq[i] = f;
    }
}

void
as_rope_tables (float *cos_table, float *sin_table, const AsRope *rope, int n_tokens)
{
  int half = rope->rotary_dim / 2;
  g_autofree float *inv_freq = g_new (float, MAX (half, 1)); /* [half] */
  as_rope_inv_freq (inv_freq, rope, n_tokens);
  gboolean scaled = rope->type == AS_ROPE_LONGROPE;
  float amplitude = scaled ? (float) rope->attention_factor : 1.0f;
  for (int p = 0; p < n_tokens; p++)
    for (int i = 0; i < half; i++)
      {
        float angle = (float) p * inv_freq[i];
        float c = (float) cos ((double) angle), s = (float) sin ((double) angle);
        cos_table[(gsize) p * half + i] = scaled ? c * amplitude : c;
        sin_table[(gsize) p * half + i] = scaled ? s * amplitude : s;
      }
}

void
as_rope_apply (float *x, int n_tokens, int ld, int n_heads, int head_dim, int rotary_dim,
               const float *cos_table, const float *sin_table)
{
  int half = rotary_dim / 2;
  for (int p = 0; p < n_tokens; p++)
    {
      const float *c = cos_table + (gsize) p * half; /* [half] */
      const float *s = sin_table + (gsize) p * half; /* [half] */
      for (int h = 0; h < n_heads; h++)
        {
          float *head = x + (gsize) p * ld + (gsize) h * head_dim; /* [head_dim] */
          for (int i = 0; i < half; i++)
            {
              float a = head[i], b = head[i + half];
              head[i] = a * c[i] - b * s[i];
              head[i + half] = b * c[i] + a * s[i];
            }
        }
    }
}
