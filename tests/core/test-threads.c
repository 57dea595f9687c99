/* test-threads.c — the number of threads changes the speed, never a bit (tests/README.md, "Same
 * bits for every thread count").
 *
 * - The kernels shared out between a worker team's members — every kind of projection (f32 in
 *   either layout, BF16 and F16 widened tile by tile, one row by sgemv, a batch of three, the gate
 *   and activation epilogues), the logits with their last row apart, norms, activations, the
 *   attention — give the same bytes without a team and with teams of 1, 2, 3 and 4 members, at
 *   widths of several blocks with a narrower last one.
 * - The logits of a last row alone are the bytes of the last row of all rows' logits.
 * - The rollout, the k-NN distances and the forward passes of the shipped models (GPT-2, BERT on a
 *   pair, Marian on a source and target) give the same bytes with ATTNSCOPE_THREADS = 1..4, and
 *   the same on a GTask-like worker thread as on the test's own.
 * - OpenBLAS is single-threaded for the whole process once the core has used it, also as seen from
 *   another thread: its own threads would split products by OPENBLAS_NUM_THREADS. */
#include <cblas.h>
#include <math.h>
#include <string.h>

#include "as-forward.h"
#include "as-model.h"
#include "as-rollout.h"
#include "attention-private.h"
#include "kernels-private.h"
#include "knn-private.h"

#define MAX_TEAM 4

/* Deterministic values in [-0.5, 0.5) [n] (owned). */
static float *
values (gsize n, guint32 seed)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (seed);
  float *x = g_new (float, n);
  for (gsize i = 0; i < n; i++)
    x[i] = (float) g_rand_double (rand) - 0.5f;
  return x;
}

/* The bits of F32 [n] as BF16 or F16 (truncated: any 16-bit pattern of a finite value will do). */
static guint16 *
to_16bit (const float *f, gsize n, AsDType dtype)
{
  guint16 *h = g_new (guint16, n);
  for (gsize i = 0; i < n; i++)
    {
      guint32 u;
      memcpy (&u, f + i, 4);
      if (dtype == AS_DTYPE_BF16)
        h[i] = u >> 16;
      else /* |f| < 0.5: a normal or subnormal half; keep 10 mantissa bits */
        {
          int e = (int) ((u >> 23) & 0xff) - 127 + 15;
          h[i] = (guint16) ((u >> 16) & 0x8000)
                 | (e > 0 ? (guint16) (e << 10) | ((u >> 13) & 0x3ff) : 0);
        }
    }
  return h;
}

typedef void (*Kernel) (AsWorkerTeam *team, float *out, gpointer data);

/* Runs KERNEL into OUT [n] without a team and with teams of 1..MAX_TEAM members; every result must
 * have the bytes of the first. */
static void
assert_same_for_teams (const char *what, Kernel kernel, gpointer data, gsize n)
{
  g_autofree float *first = g_new0 (float, n);
  g_autofree float *out = g_new0 (float, n);
  kernel (NULL, first, data);
  for (int members = 1; members <= MAX_TEAM; members++)
    {
      g_autoptr (AsWorkerTeam) team = as_worker_team_new (members);
      memset (out, 0, n * sizeof (float));
      kernel (team, out, data);
      gsize diff = 0;
      for (gsize i = 0; i < n; i++)
        diff += memcmp (first + i, out + i, sizeof (float)) != 0;
      if (diff > 0)
        g_error ("%s: %" G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT " values differ with %d members",
                 what, diff, n, members);
    }
  g_test_message ("%s: the same %" G_GSIZE_FORMAT " values for 0..%d members", what, n, MAX_TEAM);
}

typedef struct
{
  int n, in, out;
  const float *x;    /* [n][in] */
  const float *w;    /* [in][out] or [out][in] */
  const float *bias; /* [out] */
  AsWeight weight;
  AsWeight weight2; /* a second [out][in] for the batches */
} Product;

static void
k_matmul (AsWorkerTeam *team, float *out, gpointer data)
{
  const Product *p = data;
  as_matmul (team, out, p->x, p->w, p->bias, p->n, p->in, p->out);
}

static void
k_matmul_activate (AsWorkerTeam *team, float *out, gpointer data)
{
  const Product *p = data;
  as_matmul_activate (team, out, p->x, p->w, p->bias, p->n, p->in, p->out, AS_ACT_GELU_NEW);
}

static void
k_matmul_transposed (AsWorkerTeam *team, float *out, gpointer data)
{
  const Product *p = data;
  as_matmul_transposed (team, out, p->x, p->w, p->n, p->in, p->out);
}

static void
k_matmul_weight (AsWorkerTeam *team, float *out, gpointer data)
{
  const Product *p = data;
  as_matmul_weight (team, out, p->x, &p->weight, p->bias, p->n, p->in, p->out);
}

static void
k_logits (AsWorkerTeam *team, float *out, gpointer data)
{
  const Product *p = data;
  as_matmul_logits (team, out, p->x, &p->weight, p->n, p->in, p->out);
}

/* Three projections in one batch (q, k, v), outputs side by side in OUT [3][n][out]. */
static void
k_batch (AsWorkerTeam *team, float *out, gpointer data)
{
  const Product *p = data;
  gsize size = (gsize) p->n * p->out;
  AsProjection proj[] = { { out, &p->weight, p->bias, p->out },
                          { out + size, &p->weight2, NULL, p->out },
                          { out + 2 * size, &p->weight, NULL, p->out } };
  as_matmul_weights (team, p->x, p->n, p->in, proj, 3, AS_EPILOGUE_NONE, 0);
}

/* gate and up with the SwiGLU epilogue; OUT [2][n][out]. */
static void
k_gate (AsWorkerTeam *team, float *out, gpointer data)
{
  const Product *p = data;
  gsize size = (gsize) p->n * p->out;
  AsProjection proj[]
      = { { out, &p->weight, NULL, p->out }, { out + size, &p->weight2, NULL, p->out } };
  as_matmul_weights (team, p->x, p->n, p->in, proj, 2, AS_EPILOGUE_GATE, AS_ACT_SILU);
}

/* Products of every kind at widths of several blocks with a narrower last one (1000 = 7 · 128 +
 * 104), for 1, 23 and 70 rows. */
static void
test_products (void)
{
  const int rows[] = { 1, 23, 70 };
  const int in = 300, out = 1000;
  g_autofree float *w = values ((gsize) in * out, 2);
  g_autofree float *w2 = values ((gsize) in * out, 3);
  g_autofree float *bias = values (out, 4);
  for (guint r = 0; r < G_N_ELEMENTS (rows); r++)
    {
      int n = rows[r];
      g_autofree float *x = values ((gsize) n * in, 1);
      Product p = { n, in, out, x, w, bias, { w, AS_DTYPE_F32 }, { w2, AS_DTYPE_F32 } };
      gsize size = (gsize) n * out;
      g_test_message ("%d rows", n);
      assert_same_for_teams ("x·W (Conv1D layout) + b", k_matmul, &p, size);
      assert_same_for_teams ("gelu(x·W + b)", k_matmul_activate, &p, size);
      assert_same_for_teams ("x·Wᵀ", k_matmul_transposed, &p, size);
      assert_same_for_teams ("x·Wᵀ + b (f32)", k_matmul_weight, &p, size);
      assert_same_for_teams ("q, k, v in one batch", k_batch, &p, 3 * size);
      assert_same_for_teams ("silu(gate)·up", k_gate, &p, 2 * size);
      assert_same_for_teams ("logits", k_logits, &p, size);
      for (AsDType dtype = AS_DTYPE_BF16; dtype <= AS_DTYPE_F16; dtype++)
        {
          g_autofree guint16 *h = to_16bit (w, (gsize) in * out, dtype);
          g_autofree guint16 *h2 = to_16bit (w2, (gsize) in * out, dtype);
          Product q = { n, in, out, x, NULL, bias, { h, dtype }, { h2, dtype } };
          g_test_message ("%s", as_dtype_name (dtype));
          assert_same_for_teams ("x·Wᵀ + b (16-bit)", k_matmul_weight, &q, size);
          assert_same_for_teams ("silu(gate)·up (16-bit)", k_gate, &q, 2 * size);
          assert_same_for_teams ("logits (16-bit)", k_logits, &q, size);
        }
    }
}

/* The last row of every row's logits is the logits of the last row alone, to the bit (the window
 * and predict compute only the last row; run --dump all of them). */
static void
test_logits_last_row (void)
{
  const int n = 37, in = 256, out = 1000;
  g_autofree float *x = values ((gsize) n * in, 5);
  g_autofree float *w = values ((gsize) in * out, 6);
  g_autofree guint16 *h = to_16bit (w, (gsize) in * out, AS_DTYPE_BF16);
  g_autofree float *all = g_new (float, (gsize) n *out);
  g_autofree float *last = g_new (float, out);
  g_autoptr (AsWorkerTeam) team = as_worker_team_new (2);
  const AsWeight weights[] = { { w, AS_DTYPE_F32 }, { h, AS_DTYPE_BF16 } };
  for (guint i = 0; i < G_N_ELEMENTS (weights); i++)
    {
      as_matmul_logits (team, all, x, &weights[i], n, in, out);
      as_matmul_logits (NULL, last, x + (gsize) (n - 1) * in, &weights[i], 1, in, out);
      g_assert_cmpmem (all + (gsize) (n - 1) * out, out * sizeof (float), last,
                       out * sizeof (float));
    }
  as_matmul_logits_transposed (team, all, x, w, n, in, out);
  as_matmul_logits_transposed (NULL, last, x + (gsize) (n - 1) * in, w, 1, in, out);
  g_assert_cmpmem (all + (gsize) (n - 1) * out, out * sizeof (float), last, out * sizeof (float));
}

typedef struct
{
  const float *x, *gamma, *beta;
  int n, d;
} Rows;

static void
k_layernorm (AsWorkerTeam *team, float *out, gpointer data)
{
  const Rows *r = data;
  as_norm_rows (team, out, r->x, r->gamma, r->beta, 1e-5f, r->n, r->d);
}

static void
k_rmsnorm (AsWorkerTeam *team, float *out, gpointer data)
{
  const Rows *r = data;
  as_norm_rows (team, out, r->x, r->gamma, NULL, 1e-6f, r->n, r->d);
}

static void
k_activate (AsWorkerTeam *team, float *out, gpointer data)
{
  const Rows *r = data;
  memcpy (out, r->x, sizeof (float) * r->n * r->d);
  as_activate_rows (team, out, r->n, r->d, AS_ACT_GELU_NEW);
}

static void
test_rows (void)
{
  const int n = 101, d = 333; /* rows and widths that no vector length divides */
  g_autofree float *x = values ((gsize) n * d, 7);
  g_autofree float *gamma = values (d, 8);
  g_autofree float *beta = values (d, 9);
  Rows r = { x, gamma, beta, n, d };
  assert_same_for_teams ("layernorm", k_layernorm, &r, (gsize) n * d);
  assert_same_for_teams ("rmsnorm", k_rmsnorm, &r, (gsize) n * d);
  assert_same_for_teams ("gelu_new", k_activate, &r, (gsize) n * d);
}

typedef struct
{
  const float *q, *k, *v; /* [T][H·hd] */
  int T, H, hd;
  gboolean causal;
} Heads;

/* P [H][T][T] then cc [T][H·hd] in OUT. */
static void
k_attention (AsWorkerTeam *team, float *out, gpointer data)
{
  const Heads *a = data;
  int width = a->H * a->hd;
  AsAttention job = {
    .q = a->q,
    .k = a->k,
    .v = a->v,
    .q_head = a->hd,
    .k_head = a->hd,
    .v_head = a->hd,
    .ldq = width,
    .ldk = width,
    .ldv = width,
    .p = out,
    .p_head = (gsize) a->T * a->T,
    .cc = out + (gsize) a->H * a->T * a->T,
    .ldcc = width,
    .n_heads = a->H,
    .group = 1,
    .n_q = a->T,
    .n_k = a->T,
    .head_dim = a->hd,
    .causal = a->causal,
    .scale = 1.0f / sqrtf ((float) a->hd),
  };
  as_attend (team, &job);
}

static void
test_attention (void)
{
  const int T = 150, H = 3, hd = 40;
  g_autofree float *q = values ((gsize) T * H * hd, 10);
  g_autofree float *k = values ((gsize) T * H * hd, 11);
  g_autofree float *v = values ((gsize) T * H * hd, 12);
  gsize size = (gsize) H * T * T + (gsize) T * H * hd;
  for (int causal = 0; causal <= 1; causal++)
    {
      Heads a = { q, k, v, T, H, hd, causal };
      assert_same_for_teams (causal ? "causal attention" : "attention", k_attention, &a, size);
    }
}

static void
set_threads (int threads)
{
  g_autofree char *n = g_strdup_printf ("%d", threads);
  g_setenv ("ATTNSCOPE_THREADS", n, TRUE);
}

/* The rollout of 3 layers over 300 tokens (shared between threads from 256) for 1..4 threads. */
static void
test_rollout (void)
{
  const int L = 3, H = 2, T = 300;
  g_autofree float *attn = values ((gsize) L * H * T * T, 13);
  for (gsize i = 0; i < (gsize) L * H * T * T; i++)
    attn[i] += 0.5f; /* positive weights; the rollout normalises rows itself */
  gsize size = (gsize) L * T * T;
  g_autofree float *first = g_new (float, size);
  g_autofree float *out = g_new (float, size);
  set_threads (1);
  as_attention_rollout (first, attn, L, H, T);
  for (int threads = 2; threads <= MAX_TEAM; threads++)
    {
      set_threads (threads);
      as_attention_rollout (out, attn, L, H, T);
      g_assert_cmpmem (first, size * sizeof (float), out, size * sizeof (float));
    }
  g_unsetenv ("ATTNSCOPE_THREADS");
}

static void
k_knn (AsWorkerTeam *team, float *out, gpointer data)
{
  const Rows *r = data;
  const int k = 10;
  g_autofree int *nn = g_new (int, (gsize) r->n *k);
  g_autoptr (GError) error = NULL;
  g_assert_true (as_knn_exact (nn, out, r->x, r->n, r->d, k, team, NULL, "test", &error));
  g_assert_no_error (error);
}

static void
test_knn (void)
{
  const int n = 700, d = 50; /* several panels of rows */
  g_autofree float *x = values ((gsize) n * d, 14);
  Rows r = { x, NULL, NULL, n, d };
  assert_same_for_teams ("k-NN squared distances", k_knn, &r, (gsize) n * 10);
}

/* Asserts that traces A and B hold the same bytes. */
static void
assert_same_trace (const AsTrace *a, const AsTrace *b, const char *what)
{
  gsize L = a->n_layer, H = a->n_head, T = a->n_tokens, D = a->d_model, hd = a->head_dim;
  g_assert_cmpint (a->n_tokens, ==, b->n_tokens);
  g_assert_cmpmem (a->attn, L * H * T * T * 4, b->attn, L * H * T * T * 4);
  g_assert_cmpmem (a->hidden, (L + 1) * T * D * 4, b->hidden, (L + 1) * T * D * 4);
  g_assert_cmpmem (a->ctx, L * H * T * hd * 4, b->ctx, L * H * T * hd * 4);
  g_assert_cmpmem (a->attn_out, L * T * D * 4, b->attn_out, L * T * D * 4);
  gsize logits = (gsize) a->logits_rows * a->vocab_size * 4;
  g_assert_cmpint (a->logits_rows, ==, b->logits_rows);
  g_assert_cmpmem (a->logits, logits, b->logits, logits);
  if (a->source != NULL)
    {
      gsize S = a->source->n_tokens;
      g_assert_cmpmem (a->cross_attn, L * H * T * S * 4, b->cross_attn, L * H * T * S * 4);
      assert_same_trace (a->source, b->source, what);
    }
  g_test_message ("%s: the same trace", what);
}

typedef struct
{
  const char *model, *text, *second; /* SECOND: a pair's text B, or a translation's target */
  gboolean all_logits;
} Pass;

static AsTrace *
run_pass (AsModel *model, const Pass *p)
{
  AsForwardOptions options = { .all_logits = p->all_logits };
  g_autoptr (GError) error = NULL;
  AsTrace *t = as_model_get_config (model)->encoder_decoder
                   ? as_forward_translation_text (model, p->text, p->second, &options, &error)
                   : as_forward_pair (model, p->text, p->second, FALSE, &options, &error);
  g_assert_no_error (error);
  return t;
}

typedef struct
{
  AsModel *model;
  const Pass *pass;
} ThreadPass;

static gpointer
thread_pass (gpointer data)
{
  const ThreadPass *tp = data;
  return run_pass (tp->model, tp->pass);
}

static const Pass passes[] = {
  { "attnscope-mini", "The man hit the car, and then the car hit the man in the dark.", NULL,
    TRUE },
  { "attnscope-mini", "The man hit the car, and then the car hit the man in the dark.", NULL,
    FALSE },
  { "attnscope-mini-bert", "the cat sat on the [MASK] .", "a dog ran in the park all day long .",
    TRUE },
  { "attnscope-mini-en-de", "The group went home after the long day.",
    "Die Gruppe ging nach Hause.", FALSE },
};

static void
test_forward (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (passes); i++)
    {
      const Pass *p = &passes[i];
      g_autoptr (GError) error = NULL;
      g_autoptr (AsModel) model = as_model_load (p->model, &error);
      g_assert_no_error (error);
      set_threads (1);
      g_autoptr (AsTrace) first = run_pass (model, p);
      for (int threads = 2; threads <= MAX_TEAM; threads++)
        {
          set_threads (threads);
          g_autoptr (AsTrace) t = run_pass (model, p);
          g_autofree char *what = g_strdup_printf ("%s, %d threads", p->model, threads);
          assert_same_trace (first, t, what);
        }
      /* on a thread of its own, as the window runs its passes */
      ThreadPass tp = { model, p };
      g_autoptr (AsTrace) threaded = g_thread_join (g_thread_new ("pass", thread_pass, &tp));
      assert_same_trace (first, threaded, p->model);
      g_unsetenv ("ATTNSCOPE_THREADS");
    }
}

static gpointer
blas_threads (gpointer data)
{
  return GINT_TO_POINTER (openblas_get_num_threads ());
}

/* After a pass, OpenBLAS runs single-threaded, for every thread of the process. */
static void
test_blas_single_threaded (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AsModel) model = as_model_load ("attnscope-mini", &error);
  g_assert_no_error (error);
  g_autoptr (AsTrace) t = run_pass (model, &passes[1]);
  g_assert_cmpint (openblas_get_num_threads (), ==, 1);
  g_assert_cmpint (GPOINTER_TO_INT (g_thread_join (g_thread_new ("blas", blas_threads, NULL))), ==,
                   1);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/threads/products", test_products);
  g_test_add_func ("/core/threads/logits-last-row", test_logits_last_row);
  g_test_add_func ("/core/threads/rows", test_rows);
  g_test_add_func ("/core/threads/attention", test_attention);
  g_test_add_func ("/core/threads/rollout", test_rollout);
  g_test_add_func ("/core/threads/knn", test_knn);
  g_test_add_func ("/core/threads/forward", test_forward);
  g_test_add_func ("/core/threads/blas-single-threaded", test_blas_single_threaded);
  return g_test_run ();
}
