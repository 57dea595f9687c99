/* attention-private.h — multi-head attention of one layer (causal, or bidirectional for
 * encoders), written into the trace.
 *
 * Every family computes its heads here, so they all compute attention the same way
 * (core/README.md, "Forward maths"): for each query head h, with the key/value head g it shares
 * (g = h / (H/K); K = H without grouped-query attention),
 *   P_h = softmax(q_h·k_gᵀ · scale) under the causal mask (and a sliding window) unless
 * bidirectional, ctx_h = P_h·v_g
 * where masked weights are exactly 0. P goes to the trace's attention [L][H][T][T], ctx to its
 * contexts [L][H][T][hd] and, heads side by side, to CC for the output projection.
 *
 * The work is dealt out in (head, block of 64 query rows) units, round robin over the members of
 * the pass's worker team: lower blocks see more keys, so dealing them in turn balances the work,
 * and each unit writes its own outputs (results never depend on timing). Each block multiplies
 * only by the keys it can see. Private to the core. */
#pragma once

#include "as-trace.h"
#include "worker-team-private.h"

G_BEGIN_DECLS

typedef struct
{
  const float *q; /* [T][ldq] query head h at columns h·hd .. */
  const float *k; /* [T][ldk] key/value head g at columns g·hd .. */
  const float *v; /* [T][ldv] */
  int ldq, ldk, ldv;
  float *cc; /* [T][ldc] out: context of head h at columns h·hd .. */
  int ldc;
  int window;             /* a query at i sees keys i−W+1 .. i; 0: every key up to i */
  gboolean bidirectional; /* every query sees every key (encoders); WINDOW is then ignored */
  float scale;            /* usually 1/√hd */
} AsAttentionInput;

/* Attention of every head of LAYER of trace T (its H, K, T and hd), into the trace and IN->cc. */
void as_attention_layer (AsWorkerTeam *team, AsTrace *t, int layer, const AsAttentionInput *in);

G_END_DECLS
