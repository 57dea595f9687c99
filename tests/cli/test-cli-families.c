/* test-cli-families.c — the command line on Qwen3, Phi-3, Gemma 2 and Gemma 3 models as a user
 * runs it: `info` names their settings (q/k norm, head_dim, the sliding window, longrope's factors,
 * the fused projections, the soft-caps, the local RoPE, the RoPE base, the norm variant, the output
 * head, Gemma's embedding scale); `run --ids --dump` writes what the PyTorch
 * reference computes (attention within 1e-5, contexts, hidden states and logits within 1e-4
 * relative, the window's masked keys exactly 0); `run --text`, `stats` and `export` (one head, the
 * grid) work on them. The models come from tests/reference/decoder_reference.py
 * (tests/core/decoder-models.h) with the tiny GPT-2 tokenizer copied in. */
#include <glib/gstdio.h>
#include <hdf5.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "check-close.h"
#include "cli-support.h"
#include "decoder-models.h"
#include "trace-compare.h"

#define SMALL                                                                                      \
  "--layers", "2", "--heads", "4", "--kv-heads", "2", "--hidden", "64", "--intermediate", "112",   \
      "--vocab", "320", "--positions", "1024"

/* the upper layer slides with a window of 9; head_dim 24 */
static const char *const qwen3[]
    = { "--family", "qwen3", SMALL, "--head-dim", "24", "--sliding-window", "9", NULL };
/* longrope past 16 positions, half of each head rotated, a window of 11 on both layers */
static const char *const phi3[] = { "--family", "phi3",
                                    SMALL,      "--rope-scaling",
                                    "longrope", "--original-max",
                                    "16",       "--partial-rotary",
                                    "0.5",      "--sliding-window",
                                    "11",       "--dtype",
                                    "bf16",     NULL };

/* Gemma 2 with soft-caps: layer 0 slides (9 keys), layer 1 is global; Gemma 3 with the local
 * RoPE on its sliding layer 0 */
static const char *const gemma2[]
    = { "--family", "gemma2",    SMALL, "--head-dim", "16", "--sliding-window",
        "9",        "--softcap", "5,3", "--tie",      NULL };
static const char *const gemma3[]
    = { "--family", "gemma3_text",       SMALL, "--head-dim", "16",      "--sliding-window",
        "9",        "--sliding-pattern", "2",   "--tie",      "--dtype", "bf16",
        NULL };

typedef struct
{
  const char *name;
  const char *const *args;
  const char *model_type;
  const char *setting, *value; /* a setting info names and part of its value */
  int windows[2];
} FamilyCli;

static const FamilyCli families[] = {
  { "cli-qwen3", qwen3, "qwen3", "qk_norm", "RMSNorm of each head's q and k", { 0, 9 } },
  { "cli-phi3",
    phi3,
    "phi3",
    "rope",
    "longrope scaling, original_max_position_embeddings 16",
    { 11, 11 } },
  { "cli-gemma2", gemma2, "gemma2", "softcap", "cap·tanh(s/cap) with cap 5", { 9, 0 } },
  { "cli-gemma3", gemma3, "gemma3_text", "rope_local", "on the 1 sliding layers", { 9, 0 } },
};

static void
test_info (gconstpointer data)
{
  const FamilyCli *f = data;
  g_autofree char *model = decoder_model (f->name, f->args, TRUE);
  if (model == NULL)
    return;
  g_auto (Run) r = run_cli ("info", "--model", model, "--json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonNode) root = parse_json (r.out);
  JsonObject *o = json_node_get_object (root);
  g_assert_cmpstr (json_object_get_string_member (o, "model_type"), ==, f->model_type);
  g_assert_cmpint (json_object_get_int_member (o, "n_kv_head"), ==, 2);
  JsonObject *settings = json_object_get_object_member (o, "settings");
  g_assert_nonnull (strstr (json_object_get_string_member (settings, f->setting), f->value));
  g_assert_true (json_object_has_member (settings, "sliding_window"));
  g_assert_true (json_object_has_member (settings, "attention"));
  /* every family setting: the RoPE base, the window pattern, the norm variant, the output head,
   * Gemma's soft-caps and embedding scale */
  g_assert_nonnull (strstr (json_object_get_string_member (settings, "rope"), "theta 10000"));
  g_assert_nonnull (strstr (json_object_get_string_member (settings, "norm"), "RMSNorm"));
  g_assert_true (json_object_has_member (settings, "output"));
  const char *window = json_object_get_string_member (settings, "sliding_window");
  gboolean gemma = g_str_has_prefix (f->model_type, "gemma");
  g_assert_nonnull (strstr (window, f->windows[0] || f->windows[1] ? " tokens on " : "none"));
  if (gemma)
    {
      g_assert_nonnull (strstr (json_object_get_string_member (settings, "norm"), "1 + w"));
      g_assert_true (json_object_has_member (settings, "embed_scale"));
    }
  if (g_str_equal (f->model_type, "gemma2"))
    g_assert_nonnull (strstr (json_object_get_string_member (settings, "softcap"),
                              "final logits: cap·tanh(x/cap) with cap 3"));
  if (g_str_equal (f->model_type, "gemma3_text"))
    g_assert_nonnull (strstr (json_object_get_string_member (settings, "rope_local"), "theta"));
}

/* run --ids --dump against the reference, at 23 tokens (past both windows and longrope's 16). */
static void
test_run_dump (gconstpointer data)
{
  const FamilyCli *f = data;
  g_autofree char *model = decoder_model (f->name, f->args, TRUE);
  if (model == NULL)
    return;
  const int lengths[] = { 23 };
  g_autofree char *expected = decoder_expected (model, lengths, 1, 320, 9, NULL);
  if (expected == NULL)
    return;
  g_autofree char *ids = decoder_ids (23, 320, 9, 0);
  g_autofree char *name = g_strconcat (f->name, ".h5", NULL);
  g_autofree char *out = g_build_filename (test_tmpdir (), name, NULL);
  g_auto (Run) r = run_cli ("run", "--model", model, "--ids", ids, "--dump", out, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "23 tokens, 2 layers x 4 heads"));

  hid_t dump = H5Fopen (out, H5F_ACC_RDONLY, H5P_DEFAULT);
  hid_t ref = H5Fopen (expected, H5F_ACC_RDONLY, H5P_DEFAULT);
  g_assert_cmpint (dump, >=, 0);
  g_assert_cmpint (ref, >=, 0);
  int hd = g_str_equal (f->model_type, "qwen3") ? 24 : 16; /* Gemma's 16 given */
  hsize_t attn_dims[] = { 2, 4, 23, 23 }, hidden_dims[] = { 3, 23, 64 };
  hsize_t ctx_dims[] = { 2, 4, 23, (hsize_t) hd }, logit_dims[] = { 23, 320 };
  g_autofree float *attn = trace_read_floats (dump, "", "attentions", 4, attn_dims);
  g_autofree float *attn_ref = trace_read_floats (ref, "seq0", "attentions", 4, attn_dims);
  check_close ("dump attentions", attn, attn_ref, 2 * 4 * 23 * 23, TRACE_ATTN_ATOL, 0.0);
  for (int l = 0; l < 2; l++)
    {
      const float *row = attn + (gsize) l * 4 * 23 * 23 + 22 * 23; /* head 0, query 22 */
      int w = f->windows[l];
      if (w > 0)
        {
          g_assert_cmpfloat (row[22 - w], ==, 0.0f); /* outside the window */
          g_assert_cmpfloat (row[23 - w], >, 0.0f);
        }
      else
        g_assert_cmpfloat (row[0], >, 0.0f);
    }
  g_autofree float *hidden = trace_read_floats (dump, "", "hidden_states", 3, hidden_dims);
  trace_compare_vectors ("dump", "hidden_states", hidden, ref, "seq0", 3, hidden_dims);
  g_autofree float *ctx = trace_read_floats (dump, "", "contexts", 4, ctx_dims);
  trace_compare_vectors ("dump", "contexts", ctx, ref, "seq0", 4, ctx_dims);
  g_autofree float *logits = trace_read_floats (dump, "", "logits", 2, logit_dims);
  trace_compare_vectors ("dump", "logits", logits, ref, "seq0", 2, logit_dims);
  H5Fclose (dump);
  H5Fclose (ref);
}

/* The views: run --text, stats --json (every head's shares within [0, 1]) and export of one head
 * and of the grid as PNG. */
static void
test_views (gconstpointer data)
{
  const FamilyCli *f = data;
  g_autofree char *model = decoder_model (f->name, f->args, TRUE);
  if (model == NULL)
    return;
  const char *text = "the cat sat on the mat and the dog sat on the cat";
  g_autofree char *dump_name = g_strconcat (f->name, "-text.h5", NULL);
  g_autofree char *dump = g_build_filename (test_tmpdir (), dump_name, NULL);
  g_auto (Run) run = run_cli ("run", "--model", model, "--text", text, "--dump", dump, NULL);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_nonnull (strstr (run.out, "2 layers x 4 heads"));

  g_auto (Run) stats = run_cli ("stats", "--model", model, "--text", text, "--json", NULL);
  g_assert_cmpint (stats.status, ==, 0);
  g_autoptr (JsonNode) root = parse_json (stats.out);
  JsonArray *heads = json_object_get_array_member (json_node_get_object (root), "heads");
  g_assert_cmpint (json_array_get_length (heads), ==, 2 * 4);
  for (guint e = 0; e < json_array_get_length (heads); e++)
    {
      JsonObject *h = json_array_get_object_element (heads, e);
      double previous = json_object_get_double_member (h, "previous");
      double entropy = json_object_get_double_member (h, "entropy");
      g_assert_cmpfloat (previous, >=, 0.0);
      g_assert_cmpfloat (previous, <=, 1.0);
      g_assert_true (isfinite (entropy) && entropy >= 0.0);
    }

  const char *const figures[][3] = { { "--layer", "1", "--head=2" }, { "--grid", NULL, NULL } };
  for (gsize i = 0; i < G_N_ELEMENTS (figures); i++)
    {
      g_autofree char *file = g_strdup_printf ("%s-%" G_GSIZE_FORMAT ".png", f->name, i);
      g_autofree char *png = g_build_filename (test_tmpdir (), file, NULL);
      const char *argv[]
          = { "export", "--model",     model,         "--text",      text, "--output",
              png,      figures[i][0], figures[i][1], figures[i][2], NULL };
      g_auto (Run) r = run_cli_argv (argv);
      g_assert_cmpint (r.status, ==, 0);
      g_autofree char *bytes = NULL;
      gsize length = 0;
      g_assert_true (g_file_get_contents (png, &bytes, &length, NULL));
      g_assert_cmpuint (length, >, 1000);
      g_assert_cmpmem (bytes, 8, "\x89PNG\r\n\x1a\n", 8);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  H5Eset_auto2 (H5E_DEFAULT, NULL, NULL);
  for (gsize i = 0; i < G_N_ELEMENTS (families); i++)
    {
      const char *type = families[i].model_type;
      g_autofree char *info = g_strdup_printf ("/cli/families/%s/info", type);
      g_autofree char *run = g_strdup_printf ("/cli/families/%s/run-dump", type);
      g_autofree char *views = g_strdup_printf ("/cli/families/%s/views", type);
      g_test_add_data_func (info, &families[i], test_info);
      g_test_add_data_func (run, &families[i], test_run_dump);
      g_test_add_data_func (views, &families[i], test_views);
    }
  int status = g_test_run ();
  test_tmpdir_cleanup ();
  return status;
}
