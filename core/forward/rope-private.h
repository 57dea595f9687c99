/* rope-private.h — rotary position embeddings (RoPE) as Hugging Face computes them.
 *
 * The Llama family and GPT-NeoX rotate each head's query and key by angles that grow with the
 * position (Su et al. 2021, "RoFormer"). Hugging Face's layout (core/families/README.md, "RoPE"):
 * of the first rotary_dim dims of a head, dim i < rotary_dim/2 pairs with dim i + rotary_dim/2:
 *   x'[i]       = x[i]·cos(p·f_i) − x[i + r/2]·sin(p·f_i)
 *   x'[i + r/2] = x[i + r/2]·cos(p·f_i) + x[i]·sin(p·f_i)
 * (rotate_half), the dims past rotary_dim pass unchanged (NeoX's partial rotary). The inverse
 * frequencies f_i = 1/θ^(2i/r), with linear, llama3 or longrope scaling, and the angles p·f_i are
 * computed in float32 exactly as transformers' modeling_rope_utils.py does, so that the angles —
 * which reach thousands of radians — round the same way. Private to the core. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  AS_ROPE_DEFAULT,
  AS_ROPE_LINEAR,   /* f_i / factor */
  AS_ROPE_LLAMA3,   /* Llama 3.1: low frequencies / factor, high ones kept, a smooth band between */
  AS_ROPE_LONGROPE, /* Phi-3 (LongRoPE): f_i / ext_i with the short or the long factors, chosen by
                     * the text's length; cos and sin times attention_factor */
} AsRopeType;

typedef struct
{
  AsRopeType type;
  double theta;                             /* base θ (rope_theta, NeoX rotary_emb_base) */
  int rotary_dim;                           /* dims rotated per head, even, ≤ head_dim */
  double factor;                            /* linear, llama3 */
  double low_freq_factor, high_freq_factor; /* llama3 */
  double original_max_positions;            /* llama3, longrope: original_max_position_embeddings */
  double *short_factor, *long_factor;       /* longrope: [rotary_dim/2] each (owned by the
                                             * settings that hold the AsRope) */
  double attention_factor;                  /* longrope: cos and sin are multiplied by it */
} AsRope;

/* "default", "linear", "llama3", "longrope". */
const char *as_rope_type_name (AsRopeType type);

/* inv_freq [rotary_dim/2]: f_i with the scaling of ROPE for a text of N_TOKENS tokens (longrope
 * uses its long factors when N_TOKENS > original_max_position_embeddings, as HF's
 * longrope_frequency_update does with max(position_ids) + 1), float32 as HF computes it. */
void as_rope_inv_freq (float *inv_freq, const AsRope *rope, int n_tokens);

/* cos, sin [T][rotary_dim/2] of the angles p·f_i for positions p = 0..T-1 (longrope: times
 * attention_factor, rounded to float32 as torch multiplies). */
void as_rope_tables (float *cos_table, float *sin_table, const AsRope *rope, int n_tokens);

/* Rotates, in place, the first ROTARY_DIM dims of each of N_HEADS heads of every row of
 * x [T][ld] (head h at columns h·head_dim..), with the tables of as_rope_tables. */
void as_rope_apply (float *x, int n_tokens, int ld, int n_heads, int head_dim, int rotary_dim,
                    const float *cos_table, const float *sin_table);

G_END_DECLS
