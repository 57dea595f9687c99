/* test-model-load.c — loading model folders: config.json, tf_model.h5, model.safetensors.
 *
 * Every model here is written by fixture-model.c with deterministic weights, so the tests check
 * the loaded numbers element by element, not only that loading succeeds. The bad-input tests
 * check the error code and that the message names the file, key or dataset at fault. The model
 * locator (folder, shipped name, Hugging Face cache) has its own program, test-model-locate.c. */
#include <glib/gstdio.h>
#include <hdf5.h>
#include <math.h>
#include <string.h>

#include "as-error.h"
#include "as-model.h"
#include "check-close.h"
#include "fixture-model.h"
#include "gpt2-private.h"
#include "tensor-store-private.h"
#include "toy-attention-private.h"

/* Writes a fixture model to a fresh folder NAME in the test's temporary directory. */
static char *
write_fixture (const char *name, const FixtureModelSpec *spec)
{
  g_autoptr (GError) error = NULL;
  char *dir = g_build_filename (test_tmpdir (), name, NULL);
  g_assert_true (fixture_model_write (dir, spec, &error));
  g_assert_no_error (error);
  return dir;
}

/* Writes a fixture model like write_fixture() (the folder goes to DIR) and returns the path of
 * its file FILE. */
static char *
write_fixture_file (const char *name, const FixtureModelSpec *spec, const char *file, char **dir)
{
  *dir = write_fixture (name, spec);
  return g_build_filename (*dir, file, NULL);
}

/* Every GPT-2 weight of MODEL equals what the fixture wrote for SPEC, element for element. */
static void
assert_weights_are_fixture (const AsModel *model, const FixtureModelSpec *spec)
{
  const AsConfig *c = as_model_get_config (model);
  const AsGpt2Weights *w = as_gpt2_weights (model);
  gsize D = c->n_embd, F = c->n_inner;
  g_assert_nonnull (w);
  struct
  {
    const float *data;
    char *name;
    gsize n;
  } items[64];
  int n_items = 0;
#define ITEM(ptr, nm, count) items[n_items++] = (typeof (items[0])){ (ptr), (nm), (count) }
  ITEM (w->wte, g_strdup ("wte.weight"), (gsize) c->vocab_size * D);
  ITEM (w->wpe, g_strdup ("wpe.weight"), (gsize) c->n_positions * D);
  ITEM (w->lnf_g, g_strdup ("ln_f.weight"), D);
  ITEM (w->lnf_b, g_strdup ("ln_f.bias"), D);
  for (int l = 0; l < c->n_layer && n_items + 12 <= 64; l++)
    {
      const AsGpt2Layer *y = &w->layers[l];
      ITEM (y->ln1_g, g_strdup_printf ("h.%d.ln_1.weight", l), D);
      ITEM (y->ln1_b, g_strdup_printf ("h.%d.ln_1.bias", l), D);
      ITEM (y->attn_w, g_strdup_printf ("h.%d.attn.c_attn.weight", l), D * 3 * D);
      ITEM (y->attn_b, g_strdup_printf ("h.%d.attn.c_attn.bias", l), 3 * D);
      ITEM (y->proj_w, g_strdup_printf ("h.%d.attn.c_proj.weight", l), D * D);
      ITEM (y->proj_b, g_strdup_printf ("h.%d.attn.c_proj.bias", l), D);
      ITEM (y->ln2_g, g_strdup_printf ("h.%d.ln_2.weight", l), D);
      ITEM (y->ln2_b, g_strdup_printf ("h.%d.ln_2.bias", l), D);
      ITEM (y->fc_w, g_strdup_printf ("h.%d.mlp.c_fc.weight", l), D * F);
      ITEM (y->fc_b, g_strdup_printf ("h.%d.mlp.c_fc.bias", l), F);
      ITEM (y->fc2_w, g_strdup_printf ("h.%d.mlp.c_proj.weight", l), F * D);
      ITEM (y->fc2_b, g_strdup_printf ("h.%d.mlp.c_proj.bias", l), D);
    }
#undef ITEM
  for (int i = 0; i < n_items; i++)
    {
      g_autofree float *expected = g_new (float, items[i].n);
      for (gsize j = 0; j < items[i].n; j++)
        expected[j] = fixture_model_value (spec, items[i].name, j);
      g_assert_nonnull (items[i].data);
      check_close (items[i].name, items[i].data, expected, items[i].n, 0, 0);
      g_free (items[i].name);
    }
}

/* The parameter count of a GPT-2 with these sizes, as HF's num_parameters() gives it. */
static int64_t
gpt2_param_count (int64_t L, int64_t D, int64_t F, int64_t V, int64_t P)
{
  int64_t per_layer = 2 * D + (D * 3 * D + 3 * D) + (D * D + D) + 2 * D + (D * F + F) + (F * D + D);
  return V * D + P * D + L * per_layer + 2 * D;
}

static void
test_config_values (void)
{
  FixtureModelSpec spec;
  fixture_model_spec_init (&spec);
  g_autofree char *dir = write_fixture ("default", &spec);
  g_autoptr (GError) error = NULL;
  g_autoptr (AsModel) model = as_model_load (dir, &error);
  g_assert_no_error (error);

  const AsConfig *c = as_model_get_config (model);
  g_assert_cmpstr (c->family, ==, "gpt2");
  g_assert_cmpstr (c->model_type, ==, "gpt2");
  g_assert_true (c->causal_lm);
  g_assert_cmpint (c->n_layer, ==, 2);
  g_assert_cmpint (c->n_head, ==, 2);
  g_assert_cmpint (c->n_embd, ==, 8);
  g_assert_cmpint (c->head_dim, ==, 4);
  g_assert_cmpint (c->n_inner, ==, 32); /* null in config.json: 4·n_embd */
  g_assert_cmpint (c->n_positions, ==, 16);
  g_assert_cmpint (c->vocab_size, ==, 271);
  g_assert_cmpfloat (c->layer_norm_eps, ==, 1e-5f);
  g_assert_cmpint (c->activation, ==, AS_ACT_GELU_NEW);
  g_assert_cmpint (c->bos_token_id, ==, 270);
  g_assert_cmpint (c->eos_token_id, ==, 270);

  g_autofree char *canonical = g_canonicalize_filename (dir, NULL);
  g_autofree char *weights = g_build_filename (canonical, "tf_model.h5", NULL);
  g_assert_cmpstr (as_model_get_path (model), ==, canonical);
  g_assert_cmpstr (as_model_get_weights_path (model), ==, weights);
  g_assert_cmpstr (as_model_get_name (model), ==, "default");

  AsTokenizer *tok = as_model_get_tokenizer (model);
  g_assert_cmpint (as_tokenizer_get_vocab_size (tok), ==, 271);
  g_assert_cmpint (as_tokenizer_lookup (tok, "\xc4\xa0the"), ==, 262); /* "Ġthe", as in GPT-2 */
  g_assert_cmpint (as_tokenizer_lookup (tok, "!"), ==, 0);

  /* Reference counting keeps the model alive. */
  AsModel *extra = as_model_ref (model);
  g_assert_true (extra == model);
  as_model_unref (extra);
  g_assert_cmpint (as_model_get_config (model)->n_embd, ==, 8);
}

static void
test_weights_and_params (void)
{
  FixtureModelSpec spec;
  fixture_model_spec_init (&spec);
  spec.n_layer = 3;
  spec.n_embd = 12;
  spec.n_head = 3;
  spec.n_inner = 20;
  spec.n_positions = 10;
  spec.seed = 7;
  g_autofree char *dir = write_fixture ("weights", &spec);
  g_autoptr (GError) error = NULL;
  g_autoptr (AsModel) model = as_model_load (dir, &error);
  g_assert_no_error (error);
  g_assert_cmpint (as_model_get_config (model)->n_inner, ==, 20);
  assert_weights_are_fixture (model, &spec);

  /* A few values by hand: the LayerNorm scales are 1 + noise, the rest small noise. */
  const AsGpt2Weights *w = as_gpt2_weights (model);
  g_assert_cmpfloat (w->wte[3 * 12 + 5], ==, fixture_model_value (&spec, "wte.weight", 41));
  g_assert_cmpfloat (w->layers[2].fc2_w[19 * 12 + 11], ==,
                     fixture_model_value (&spec, "h.2.mlp.c_proj.weight", 239));
  g_assert_cmpfloat (fabsf (w->layers[1].ln2_g[4] - 1.0f), <, 0.18f);
  g_assert_cmpfloat (fabsf (w->layers[1].ln2_b[4]), <, 0.18f);
  g_assert_cmpfloat (w->layers[1].ln2_b[4], !=, 0.0f);

  /* 271·12 + 10·12 + 3·(24 + 12·36 + 36 + 12·12 + 12 + 24 + 12·20 + 20 + 20·12 + 12) + 24 */
  g_assert_cmpint (gpt2_param_count (3, 12, 20, 271, 10), ==, 6948);
  g_assert_cmpint (as_model_get_n_params (model), ==, 6948);
  /* The same formula gives HF's count for GPT-2 small. */
  g_assert_cmpint (gpt2_param_count (12, 768, 3072, 50257, 1024), ==, 124439808);
}

/* Loads DIR and returns its model (asserting success). */
static AsModel *
load_ok (const char *dir)
{
  g_autoptr (GError) error = NULL;
  AsModel *model = as_model_load (dir, &error);
  g_assert_no_error (error);
  g_assert_nonnull (model);
  return model;
}

static void
test_keras_vs_safetensors (void)
{
  FixtureModelSpec spec;
  fixture_model_spec_init (&spec);
  spec.seed = 11;
  spec.write_safetensors = TRUE;
  g_autofree char *both = write_fixture ("both", &spec);
  spec.write_h5 = FALSE;
  g_autofree char *st_only = write_fixture ("st-only", &spec);
  spec.safetensors_prefix = TRUE;
  g_autofree char *st_prefix = write_fixture ("st-prefix", &spec);

  g_autoptr (AsModel) keras = load_ok (both);
  g_autoptr (AsModel) st = load_ok (st_only);
  g_autoptr (AsModel) prefixed = load_ok (st_prefix);
  g_assert_true (g_str_has_suffix (as_model_get_weights_path (keras), "/tf_model.h5"));
  g_assert_true (g_str_has_suffix (as_model_get_weights_path (st), "/model.safetensors"));
  assert_weights_are_fixture (keras, &spec);
  assert_weights_are_fixture (st, &spec);
  assert_weights_are_fixture (prefixed, &spec);

  /* The attention-mask buffers in the safetensors file are not parameters. */
  g_assert_cmpint (as_model_get_n_params (st), ==, as_model_get_n_params (keras));
  g_assert_cmpint (as_model_get_n_params (st), ==, gpt2_param_count (2, 8, 32, 271, 16));

  /* The two readers give identical tensors, bit for bit. */
  const AsGpt2Weights *a = as_gpt2_weights (keras), *b = as_gpt2_weights (st);
  g_assert_cmpmem (a->wte, 271 * 8 * 4, b->wte, 271 * 8 * 4);
  g_assert_cmpmem (a->layers[1].attn_w, 8 * 24 * 4, b->layers[1].attn_w, 8 * 24 * 4);
  g_assert_cmpmem (a->layers[1].attn_b, 24 * 4, b->layers[1].attn_b, 24 * 4);
}

static void
test_keras_variants (void)
{
  FixtureModelSpec spec;
  fixture_model_spec_init (&spec);
  spec.seed = 3;
  spec.split_weight_names = TRUE;
  g_autofree char *split = write_fixture ("split", &spec);
  spec.split_weight_names = FALSE;
  spec.vlen_strings = TRUE;
  g_autofree char *vlen = write_fixture ("vlen", &spec);
  spec.split_weight_names = TRUE;
  g_autofree char *both = write_fixture ("split-vlen", &spec);
  spec.split_weight_names = FALSE;
  spec.vlen_strings = FALSE;
  spec.class_scope = "tf_gpt2_model";
  g_autofree char *scope = write_fixture ("other-scope", &spec);

  const char *dirs[] = { split, vlen, both, scope };
  for (gsize i = 0; i < G_N_ELEMENTS (dirs); i++)
    {
      g_autoptr (AsModel) model = load_ok (dirs[i]);
      assert_weights_are_fixture (model, &spec);
      g_assert_cmpint (as_model_get_n_params (model), ==, gpt2_param_count (2, 8, 32, 271, 16));
    }

  /* The store keeps the full names, class scope included, in weight_names order. */
  g_autofree char *path = g_build_filename (scope, "tf_model.h5", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (AsTensorStore) store = as_tensor_store_load_keras_h5 (path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (as_tensor_store_get_n_tensors (store), ==, 2 + 2 * 12 + 2);
  const AsTensor *first = as_tensor_store_get_nth (store, 0);
  g_assert_cmpstr (first->name, ==, "transformer/tf_gpt2_model/transformer/wte/weight:0");
  g_assert_cmpint (first->ndim, ==, 2);
  g_assert_cmpint (first->shape[0], ==, 271);
  g_assert_cmpint (first->shape[1], ==, 8);
  const AsTensor *bias = as_tensor_store_find_suffix (store, "h_._1/attn/c_attn/bias:0");
  g_assert_nonnull (bias);
  g_assert_cmpint (bias->ndim, ==, 2); /* Keras writes Conv1D biases as (1, n) */
  g_assert_cmpint (bias->shape[0], ==, 1);
  g_assert_cmpint (bias->shape[1], ==, 24);
}

static void
test_store_suffix (void)
{
  FixtureModelSpec spec;
  fixture_model_spec_init (&spec);
  spec.n_layer = 12;
  spec.n_embd = 4;
  spec.n_head = 1;
  g_autofree char *dir = NULL;
  g_autofree char *path = write_fixture_file ("twelve", &spec, "tf_model.h5", &dir);
  g_autoptr (GError) error = NULL;
  g_autoptr (AsTensorStore) store = as_tensor_store_load_keras_h5 (path, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (as_tensor_store_get_path (store), ==, path);

  /* h_._1 must not match h_._11; a suffix must start at a '/' or '.' boundary. */
  const AsTensor *t = as_tensor_store_find_suffix (store, "h_._1/ln_1/gamma:0");
  g_assert_nonnull (t);
  g_assert_cmpstr (t->name, ==, "transformer/tfgp_t2lm_head_model/transformer/h_._1/ln_1/gamma:0");
  g_assert_null (as_tensor_store_find_suffix (store, "te/weight:0"));
  g_assert_null (as_tensor_store_find_suffix (store, "1/ln_1/gamma:0"));
  g_assert_nonnull (as_tensor_store_find_suffix (store, "wte/weight:0"));
  g_assert_nonnull (as_tensor_store_find_suffix (store, t->name));

  /* require: (1, 3D) is accepted for (3D); a different element count is a shape error. */
  int64_t row[1] = { 12 };
  const float *b = as_tensor_store_require (store, "h_._11/attn/c_attn/bias:0", 1, row, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (b[5], ==, fixture_model_value (&spec, "h.11.attn.c_attn.bias", 5));
  int64_t wrong[2] = { 4, 13 };
  g_assert_null (as_tensor_store_require (store, "h_._11/attn/c_attn/weight:0", 2, wrong, &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_SHAPE);
  g_assert_nonnull (strstr (error->message, "(4, 12)"));
  g_assert_nonnull (strstr (error->message, "(4, 13)"));
  g_clear_error (&error);
  g_assert_null (as_tensor_store_require (store, "h_._12/ln_1/gamma:0", 1, row, &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, "h_._12/ln_1/gamma:0"));
  g_assert_nonnull (strstr (error->message, path));
}

/* Loads PATH with the HDF5 (H5) or safetensors reader, mapping allowed or not. */
static AsTensorStore *
load_store (const char *path, gboolean h5, gboolean allow_map)
{
  if (allow_map)
    g_unsetenv ("ATTNSCOPE_NO_MMAP");
  else
    g_setenv ("ATTNSCOPE_NO_MMAP", "1", TRUE);
  g_autoptr (GError) error = NULL;
  AsTensorStore *store = h5 ? as_tensor_store_load_keras_h5 (path, &error)
                            : as_tensor_store_load_safetensors (path, &error);
  g_unsetenv ("ATTNSCOPE_NO_MMAP");
  g_assert_no_error (error);
  return store;
}

/* How many of STORE's tensors live in the file mapping. */
static guint
count_mapped (const AsTensorStore *store)
{
  guint n = 0;
  for (guint i = 0; i < as_tensor_store_get_n_tensors (store); i++)
    n += as_tensor_store_is_mapped (store, as_tensor_store_get_nth (store, i));
  return n;
}

/* The same tensors (same names), bit for bit, whichever way they were read. */
static void
assert_stores_equal (const AsTensorStore *a, const AsTensorStore *b)
{
  g_assert_cmpuint (as_tensor_store_get_n_tensors (a), ==, as_tensor_store_get_n_tensors (b));
  for (guint i = 0; i < as_tensor_store_get_n_tensors (a); i++)
    {
      const AsTensor *x = as_tensor_store_get_nth (a, i);
      const AsTensor *y = as_tensor_store_find_suffix (b, x->name);
      g_assert_nonnull (y);
      g_assert_cmpint (x->n_elements, ==, y->n_elements);
      g_assert_cmpmem (x->data, x->n_elements * 4, y->data, y->n_elements * 4);
    }
}

static void
test_store_mapped_and_copied (void)
{
  FixtureModelSpec spec;
  fixture_model_spec_init (&spec);
  spec.write_safetensors = TRUE;
  g_autofree char *dir = write_fixture ("mapped", &spec);
  spec.write_h5 = FALSE;
  spec.safetensors_unaligned = TRUE;
  g_autofree char *odd = write_fixture ("unaligned", &spec);
  g_autofree char *h5 = g_build_filename (dir, "tf_model.h5", NULL);
  g_autofree char *st = g_build_filename (dir, "model.safetensors", NULL);
  g_autofree char *st_odd = g_build_filename (odd, "model.safetensors", NULL);

  /* Keras writes contiguous float32: every dataset is used in place, or all are read. */
  g_autoptr (AsTensorStore) h5_map = load_store (h5, TRUE, TRUE);
  g_autoptr (AsTensorStore) h5_copy = load_store (h5, TRUE, FALSE);
  guint n = as_tensor_store_get_n_tensors (h5_map);
  g_assert_cmpuint (n, ==, 2 + 2 * 12 + 2);
  g_assert_cmpuint (count_mapped (h5_map), ==, n);
  g_assert_cmpuint (count_mapped (h5_copy), ==, 0);
  assert_stores_equal (h5_map, h5_copy);

  /* A big-endian dataset needs HDF5's conversion: read into the block, the rest in place. */
  FixtureModelSpec be;
  fixture_model_spec_init (&be);
  be.big_endian_tensor = "h.0.attn.c_attn.weight";
  g_autofree char *be_dir = write_fixture ("big-endian", &be);
  g_autofree char *be_h5 = g_build_filename (be_dir, "tf_model.h5", NULL);
  g_autoptr (AsTensorStore) be_store = load_store (be_h5, TRUE, TRUE);
  g_assert_cmpuint (count_mapped (be_store), ==, n - 1);
  const AsTensor *bt = as_tensor_store_find_suffix (be_store, "h_._0/attn/c_attn/weight:0");
  g_assert_false (as_tensor_store_is_mapped (be_store, bt));
  assert_stores_equal (h5_map, be_store);

  /* safetensors: aligned data in place; unaligned data (and no mapping) copied. */
  g_autoptr (AsTensorStore) st_map = load_store (st, FALSE, TRUE);
  g_autoptr (AsTensorStore) st_copy = load_store (st, FALSE, FALSE);
  g_autoptr (AsTensorStore) st_unaligned = load_store (st_odd, FALSE, TRUE);
  g_assert_cmpuint (as_tensor_store_get_n_tensors (st_map), ==, n); /* mask buffers skipped */
  g_assert_cmpuint (count_mapped (st_map), ==, n);
  g_assert_cmpuint (count_mapped (st_copy), ==, 0);
  g_assert_cmpuint (count_mapped (st_unaligned), ==, 0);
  for (guint i = 0; i < n; i++)
    g_assert_cmpuint ((guintptr) as_tensor_store_get_nth (st_unaligned, i)->data % 64, ==, 0);
  assert_stores_equal (st_map, st_copy);
  assert_stores_equal (st_map, st_unaligned);
  const AsTensor *w = as_tensor_store_find_suffix (st_map, "h.1.mlp.c_fc.weight");
  g_assert_nonnull (w);
  for (gsize j = 0; j < (gsize) w->n_elements; j++)
    g_assert_cmpfloat (w->data[j], ==, fixture_model_value (&spec, "h.1.mlp.c_fc.weight", j));
}

/* ---- bad folders and files ------------------------------------------------------------ */

static void
test_bad_folders (void)
{
  g_autofree char *missing = g_build_filename (test_tmpdir (), "no-such-folder", NULL);
  assert_load_fails (missing, AS_ERROR_NOT_FOUND, (const char *[]){ missing, NULL });

  FixtureModelSpec spec;
  fixture_model_spec_init (&spec);
  g_autofree char *no_config = NULL;
  g_autofree char *config = write_fixture_file ("no-config", &spec, "config.json", &no_config);
  g_assert_cmpint (g_unlink (config), ==, 0);
  assert_load_fails (no_config, AS_ERROR_NOT_FOUND,
                     (const char *[]){ "no-config", "config.json", NULL });

  spec.write_h5 = FALSE;
  g_autofree char *no_weights = write_fixture ("no-weights", &spec);
  assert_load_fails (no_weights, AS_ERROR_NOT_FOUND,
                     (const char *[]){ "no-weights", "tf_model.h5", "model.safetensors", NULL });

  spec.write_h5 = TRUE;
  spec.write_tokenizer = FALSE;
  g_autofree char *no_vocab = write_fixture ("no-vocab", &spec);
  assert_load_fails (no_vocab, AS_ERROR_NOT_FOUND,
                     (const char *[]){ "no-vocab", "vocab.json", NULL });

  /* A tokenizer with more tokens than the embedding has rows. */
  spec.write_tokenizer = TRUE;
  spec.vocab_size = 100;
  g_autofree char *small = write_fixture ("small-vocab", &spec);
  assert_load_fails (small, AS_ERROR_CONFIG, (const char *[]){ "vocab.json", "271", "100", NULL });
}

static void
test_bad_hdf5 (void)
{
  FixtureModelSpec spec;
  fixture_model_spec_init (&spec);
  g_autofree char *text = NULL;
  g_autofree char *text_h5 = write_fixture_file ("not-hdf5", &spec, "tf_model.h5", &text);
  g_assert_true (
      g_file_set_contents (text_h5, "version https://git-lfs.github.com/spec/v1\n", -1, NULL));
  assert_load_fails (text, AS_ERROR_FORMAT, (const char *[]){ text_h5, "not an HDF5 file", NULL });

  g_autofree char *cut = NULL;
  g_autofree char *cut_h5 = write_fixture_file ("truncated", &spec, "tf_model.h5", &cut);
  g_assert_true (fixture_truncate_file (cut_h5, 0.5, NULL));
  assert_load_fails (cut, AS_ERROR_FORMAT, (const char *[]){ cut_h5, "truncated", NULL });

  /* An HDF5 file that is not a Keras weight file (no layer_names). */
  g_autofree char *foreign = NULL;
  g_autofree char *foreign_h5 = write_fixture_file ("foreign", &spec, "tf_model.h5", &foreign);
  hid_t file = H5Fcreate (foreign_h5, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  g_assert_cmpint (file, >=, 0);
  hid_t group = H5Gcreate2 (file, "attentions", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  g_assert_cmpint (group, >=, 0);
  H5Gclose (group);
  H5Fclose (file);
  assert_load_fails (foreign, AS_ERROR_FORMAT, (const char *[]){ foreign_h5, "layer_names", NULL });
}

static void
test_bad_tensors (void)
{
  struct
  {
    FixtureCorruption corruption;
    const char *tensor;
    gsize index;
    AsErrorCode code;
    const char *needles[4];
  } cases[] = {
    { FIXTURE_CORRUPT_MISSING,
      "h.1.attn.c_proj.weight",
      0,
      AS_ERROR_NOT_FOUND,
      { "h_._1/attn/c_proj/weight:0", "tf_model.h5", NULL } },
    { FIXTURE_CORRUPT_SHAPE,
      "h.0.mlp.c_fc.weight",
      0,
      AS_ERROR_SHAPE,
      { "h_._0/mlp/c_fc/weight:0", "(9, 32)", "(8, 32)", NULL } },
    { FIXTURE_CORRUPT_TRANSPOSED,
      "h.1.attn.c_attn.weight",
      0,
      AS_ERROR_SHAPE,
      { "h_._1/attn/c_attn/weight:0", "(24, 8)", "(8, 24)", NULL } },
    { FIXTURE_CORRUPT_DTYPE,
      "wpe.weight",
      0,
      AS_ERROR_SHAPE,
      { "wpe/embeddings:0", "float64", "float32", NULL } },
    { FIXTURE_CORRUPT_NAN,
      "h.1.mlp.c_fc.bias",
      3,
      AS_ERROR_VALUE,
      { "h_._1/mlp/c_fc/bias:0", "NaN", "element 3", NULL } },
    { FIXTURE_CORRUPT_INF,
      "wte.weight",
      1000,
      AS_ERROR_VALUE,
      { "wte/weight:0", "+Inf", "element 1000", NULL } },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      FixtureModelSpec spec;
      fixture_model_spec_init (&spec);
      spec.corruption = cases[i].corruption;
      spec.corrupt_tensor = cases[i].tensor;
      spec.corrupt_index = cases[i].index;
      g_autofree char *name = g_strdup_printf ("bad-tensor-%" G_GSIZE_FORMAT, i);
      g_autofree char *dir = write_fixture (name, &spec);
      g_autofree char *h5 = g_build_filename (dir, "tf_model.h5", NULL);
      const char *needles[6] = { h5 };
      memcpy (needles + 1, cases[i].needles, sizeof cases[i].needles);
      assert_load_fails (dir, cases[i].code, needles);
    }
}

static void
test_bad_safetensors (void)
{
  FixtureModelSpec spec;
  fixture_model_spec_init (&spec);
  spec.write_h5 = FALSE;
  spec.write_safetensors = TRUE;

  /* A header length larger than the file. */
  g_autofree char *len_dir = NULL;
  g_autofree char *len_st
      = write_fixture_file ("st-header-length", &spec, "model.safetensors", &len_dir);
  guint64 huge = GUINT64_TO_LE (G_GUINT64_CONSTANT (1) << 40);
  g_assert_true (fixture_patch_file (len_st, 0, &huge, 8, NULL));
  assert_load_fails (len_dir, AS_ERROR_FORMAT, (const char *[]){ len_st, "header length", NULL });

  /* Cut in the middle of the data: offsets point past the end. */
  g_autofree char *cut_dir = NULL;
  g_autofree char *cut_st
      = write_fixture_file ("st-truncated", &spec, "model.safetensors", &cut_dir);
  g_assert_true (fixture_truncate_file (cut_st, 0.8, NULL));
  assert_load_fails (cut_dir, AS_ERROR_FORMAT, (const char *[]){ cut_st, "truncated", NULL });

  /* Not even the 8 bytes of the length. */
  g_autofree char *tiny_dir = NULL;
  g_autofree char *tiny_st = write_fixture_file ("st-tiny", &spec, "model.safetensors", &tiny_dir);
  g_assert_true (g_file_set_contents (tiny_st, "{}", -1, NULL));
  assert_load_fails (tiny_dir, AS_ERROR_FORMAT, (const char *[]){ tiny_st, "safetensors", NULL });

  /* An unknown dtype, and a known one that is not F32. */
  spec.corruption = FIXTURE_CORRUPT_DTYPE;
  spec.corrupt_tensor = "h.0.attn.c_proj.bias";
  spec.safetensors_dtype = "Q4";
  g_autofree char *q4_dir = write_fixture ("st-dtype-q4", &spec);
  assert_load_fails (q4_dir, AS_ERROR_SHAPE,
                     (const char *[]){ "model.safetensors", "h.0.attn.c_proj.bias", "Q4", NULL });
  spec.safetensors_dtype = "F64";
  g_autofree char *f64_dir = write_fixture ("st-dtype-f64", &spec);
  assert_load_fails (f64_dir, AS_ERROR_SHAPE,
                     (const char *[]){ "model.safetensors", "h.0.attn.c_proj.bias", "F64", NULL });

  /* NaN in a safetensors weight. */
  spec.corruption = FIXTURE_CORRUPT_NAN;
  spec.corrupt_tensor = "ln_f.bias";
  spec.corrupt_index = 7;
  g_autofree char *nan_dir = write_fixture ("st-nan", &spec);
  assert_load_fails (
      nan_dir, AS_ERROR_VALUE,
      (const char *[]){ "model.safetensors", "ln_f.bias", "NaN", "element 7", NULL });
}

/* ---- config.json ---------------------------------------------------------------------- */

/* Writes a fixture whose config.json omits OMIT and sets SET and SET2 (each may be NULL). */
static char *
write_config_variant (const char *name, const char *omit, const char *set, const char *set2)
{
  FixtureModelSpec spec;
  fixture_model_spec_init (&spec);
  const char *omit_keys[] = { omit, NULL };
  const char *set_keys[] = { set, set2, NULL };
  spec.config_omit = omit_keys;
  spec.config_set = set_keys;
  return write_fixture (name, &spec);
}

static void
test_bad_config (void)
{
  struct
  {
    const char *omit, *set, *set2;
    AsErrorCode code;
    const char *needle1, *needle2;
  } cases[] = {
    { "n_head", NULL, NULL, AS_ERROR_CONFIG, "missing key 'n_head'", NULL },
    { "n_layer", NULL, NULL, AS_ERROR_CONFIG, "missing key 'n_layer'", NULL },
    { "vocab_size", NULL, NULL, AS_ERROR_CONFIG, "missing key 'vocab_size'", NULL },
    { "model_type", NULL, NULL, AS_ERROR_CONFIG, "missing key 'model_type'", "gpt2" },
    { NULL, "n_head=0", NULL, AS_ERROR_CONFIG, "'n_head' is 0", NULL },
    { NULL, "n_layer=-2", NULL, AS_ERROR_CONFIG, "'n_layer' is -2", NULL },
    { NULL, "n_head=3", NULL, AS_ERROR_CONFIG, "n_embd (8) is not divisible by n_head (3)", NULL },
    { NULL, "n_embd=\"8\"", NULL, AS_ERROR_CONFIG, "'n_embd' must be an integer", NULL },
    { NULL, "n_embd=8.5", NULL, AS_ERROR_CONFIG, "'n_embd' must be an integer", NULL },
    { NULL, "layer_norm_epsilon=0", NULL, AS_ERROR_CONFIG, "'layer_norm_epsilon' is 0", NULL },
    { NULL, "layer_norm_epsilon=-1e-5", NULL, AS_ERROR_CONFIG, "'layer_norm_epsilon'", NULL },
    { NULL, "vocab_size=20000000", NULL, AS_ERROR_CONFIG, "'vocab_size' is 20000000", NULL },
    { NULL, "eos_token_id=5000", NULL, AS_ERROR_CONFIG, "'eos_token_id' is 5000", NULL },
    { NULL, "activation_function=\"quick_gelu\"", NULL, AS_ERROR_CONFIG, "quick_gelu", "gelu_new" },
    { NULL, "model_type=\"pegasus\"", NULL, AS_ERROR_CONFIG, "\"pegasus\" is not supported",
      "gpt2, llama, mistral, qwen2, qwen3, phi3, gemma2, gemma3_text, gpt_neox, toy-attention, "
      "bert, roberta, distilbert" },
    /* 1000 layers of width 2^16: ~200 TB of weights. */
    { NULL, "n_embd=65536", "n_layer=1000", AS_ERROR_CONFIG, "n_embd 65536", "more than" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *name = g_strdup_printf ("config-%" G_GSIZE_FORMAT, i);
      g_autofree char *dir
          = write_config_variant (name, cases[i].omit, cases[i].set, cases[i].set2);
      g_autofree char *config = g_build_filename (dir, "config.json", NULL);
      const char *needles[] = { config, cases[i].needle1, cases[i].needle2, NULL };
      assert_load_fails (dir, cases[i].code, needles);
    }

  /* Malformed JSON: the message gives the line. */
  g_autofree char *bad = write_config_variant ("config-malformed", NULL, NULL, NULL);
  g_autofree char *bad_config = g_build_filename (bad, "config.json", NULL);
  g_assert_true (
      g_file_set_contents (bad_config, "{\n  \"n_layer\": 2,\n  \"n_head\" 2\n}\n", -1, NULL));
  assert_load_fails (bad, AS_ERROR_FORMAT,
                     (const char *[]){ bad_config, "malformed JSON at line 3", NULL });
  g_assert_true (g_file_set_contents (bad_config, "[1, 2]", -1, NULL));
  assert_load_fails (bad, AS_ERROR_FORMAT, (const char *[]){ bad_config, "JSON object", NULL });
}

static void
test_config_fallbacks (void)
{
  /* n_ctx stands in for a missing n_positions; explicit n_inner and activation are read. */
  FixtureModelSpec spec;
  fixture_model_spec_init (&spec);
  const char *omit[] = { "n_positions", NULL };
  const char *set[] = { "activation_function=\"gelu\"", "layer_norm_epsilon=1e-6", NULL };
  spec.config_omit = omit;
  spec.config_set = set;
  g_autofree char *dir = NULL;
  g_autofree char *path = write_fixture_file ("config-fallbacks", &spec, "config.json", &dir);
  AsConfig config;
  g_autoptr (GError) error = NULL;
  g_assert_true (as_config_load (&config, path, &error));
  g_assert_no_error (error);
  g_assert_cmpint (config.n_positions, ==, 16);
  g_assert_cmpint (config.activation, ==, AS_ACT_GELU);
  g_assert_cmpfloat (config.layer_norm_eps, ==, 1e-6f);
  as_config_clear (&config);
  g_assert_null (config.model_type);

  /* A missing file is NOT_FOUND and leaves the config cleared. */
  g_autofree char *missing = g_build_filename (dir, "nope.json", NULL);
  g_assert_false (as_config_load (&config, missing, &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, missing));
  g_assert_null (config.model_type);
}

static void
test_config_toy (void)
{
  g_autofree char *path = g_build_filename (test_tmpdir (), "toy-config.json", NULL);
  const char *json = "{\"model_type\": \"toy-attention\", \"n_embd\": 10, \"n_head\": 2,\n"
                     " \"head_dim\": 5, \"vocab_size\": 6, \"use_projections\": true,\n"
                     " \"use_output_projection\": true, \"scale_scores\": true}";
  g_assert_true (g_file_set_contents (path, json, -1, NULL));
  AsConfig c;
  g_autoptr (GError) error = NULL;
  g_assert_true (as_config_load (&c, path, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (c.family, ==, "toy-attention");
  g_assert_false (c.causal_lm);
  g_assert_cmpint (c.n_layer, ==, 1);
  g_assert_cmpint (c.n_embd, ==, 10);
  g_assert_cmpint (c.n_head, ==, 2);
  g_assert_cmpint (c.head_dim, ==, 5);
  g_assert_cmpint (c.vocab_size, ==, 6);
  g_assert_cmpint (c.n_positions, ==, 512);
  g_assert_true (as_toy_settings (&c)->use_projections);
  g_assert_true (as_toy_settings (&c)->use_output);
  g_assert_true (as_toy_settings (&c)->scale_scores);
  g_assert_false (as_toy_settings (&c)->sinusoidal);
  g_assert_false (as_toy_settings (&c)->causal);
  as_config_clear (&c);

  const char *bad = "{\"model_type\": \"toy-attention\", \"n_embd\": 10, \"n_head\": 1,\n"
                    " \"vocab_size\": 6, \"causal\": \"yes\"}";
  g_assert_true (g_file_set_contents (path, bad, -1, NULL));
  g_assert_false (as_config_load (&c, path, &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_CONFIG);
  g_assert_nonnull (strstr (error->message, "'causal'"));
  g_assert_nonnull (strstr (error->message, path));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/model/load/config-values", test_config_values);
  g_test_add_func ("/core/model/load/weights-and-params", test_weights_and_params);
  g_test_add_func ("/core/model/load/keras-vs-safetensors", test_keras_vs_safetensors);
  g_test_add_func ("/core/model/load/keras-variants", test_keras_variants);
  g_test_add_func ("/core/model/store/suffix-and-require", test_store_suffix);
  g_test_add_func ("/core/model/store/mapped-and-copied", test_store_mapped_and_copied);
  g_test_add_func ("/core/model/bad/folders", test_bad_folders);
  g_test_add_func ("/core/model/bad/hdf5", test_bad_hdf5);
  g_test_add_func ("/core/model/bad/tensors", test_bad_tensors);
  g_test_add_func ("/core/model/bad/safetensors", test_bad_safetensors);
  g_test_add_func ("/core/model/config/bad", test_bad_config);
  g_test_add_func ("/core/model/config/fallbacks", test_config_fallbacks);
  g_test_add_func ("/core/model/config/toy-attention", test_config_toy);
  int status = g_test_run ();
  test_tmpdir_cleanup ();
  return status;
}
