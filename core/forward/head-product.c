/* head-product.c — the output head as one product (stack-private.h, AsHeadProduct): the logits
 * every family with such a head writes, in one place, so that the logit lens's ranked read-out
 * (read-out-ranked.c) applies the same steps in the same order. */
#include "stack-private.h"

#include "kernels-private.h"

void
as_head_finish_row (const AsHeadProduct *head, float *logits, int v_begin, int n)
{
  if (head->bias != NULL)
    as_add_inplace (logits, head->bias + v_begin, n);
  if (head->soft_cap > 0.0f)
    for (int i = 0; i < n; i++)
      logits[i] = as_head_soft_cap (logits[i], head->soft_cap);
}

void
as_head_logits (AsWorkerTeam *team, float *out, const float *x, const AsHeadProduct *head, int n,
                int d, int v)
{
  if (n <= 0)
    return;
  g_autofree float *scaled = NULL;
  if (head->x_scale != 1.0f)
    {
      scaled = g_new (float, (gsize) n *d);
      for (gsize i = 0; i < (gsize) n * d; i++)
        scaled[i] = x[i] * head->x_scale;
      x = scaled;
    }
  as_matmul_logits (team, out, x, &head->weight, n, d, v);
  for (int i = 0; i < n; i++)
    as_head_finish_row (head, out + (gsize) i * v, 0, v);
}

void
as_pass_head_logits (AsPass *pass, const float *final,
                     void (*head_product) (const AsConfig *config, gconstpointer weights,
                                           AsHeadProduct *head))
{
  const AsConfig *c = pass->config;
  AsTrace *t = pass->trace;
  int T = t->n_tokens, D = c->n_embd, rows = t->logits_rows;
  AsHeadProduct head;
  head_product (c, pass->weights, &head);
  as_head_logits (pass->team, t->logits, final + (gsize) (T - rows) * D, &head, rows, D,
                  c->vocab_size);
}
