/* test-hostile-numbers.c — numbers that hurt the forward pass rather than the loaders (recipes in
 * hostile-numbers.h).
 *
 * Finite weights that overflow float32 load, and then every family's pass (and Marian's
 * generation steps) fails with an error naming the layer, the first position and its token, never
 * a trace of infinities; the exp kernel takes NaN and ±Inf without undefined behaviour (this
 * program also runs under UBSan). A config eps that is 0 as a float32 is refused naming its key.
 * Weight files with more layers than config.json loads with one warning, or fails strictly; fewer
 * layers fail. */
#include <math.h>
#include <string.h>

#include "as-error.h"
#include "as-forward.h"
#include "as-model.h"
#include "as-translate.h"
#include "check-close.h"
#include "fixture-model.h"
#include "hostile-numbers.h"
#include "kernels-private.h"
#include "pass-private.h"

static void
assert_message (const GError *error, const char *needle)
{
  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, needle));
  g_assert_null (strchr (error->message, '\n'));
}

/* Each overflow folder loads, and its pass fails naming the stage, a position and its token. */
static void
test_overflow (void)
{
  g_autofree char *source = test_source_path ("");
  for (HostileOverflow o = 0; o < HOSTILE_N_OVERFLOWS; o++)
    {
      g_autofree char *dir = g_build_filename (test_tmpdir (), hostile_overflow_name (o), NULL);
      g_autoptr (GError) error = NULL;
      g_assert_true (hostile_overflow_folder_write (dir, source, o, &error));
      g_assert_no_error (error);
      g_autoptr (AsModel) model = as_model_load (dir, &error);
      g_assert_no_error (error);
      g_autoptr (AsTrace) trace
          = hostile_overflow_is_translation (o)
                ? as_forward_translation_text (model, "the house", "das Haus", NULL, &error)
                : as_forward_text (model, "the cat sat", FALSE, NULL, &error);
      g_assert_null (trace);
      g_assert_error (error, AS_ERROR, AS_ERROR_VALUE);
      assert_message (error, hostile_overflow_needle (o));
      assert_message (error, " at position ");
      assert_message (error, "(token '");
      assert_message (error, "overflow float32");
      if (hostile_overflow_step_needle (o) == NULL)
        continue;
      g_clear_error (&error);
      g_autoptr (AsTranslation) translation = as_translate_text (model, "the house", NULL, &error);
      g_assert_null (translation);
      g_assert_error (error, AS_ERROR, AS_ERROR_VALUE);
      assert_message (error, hostile_overflow_step_needle (o));
    }
}

/* e^x on NaN gives NaN, on ±Inf the clamped extremes, and on finite values stays within 2e-7
 * relative of libm's expf. */
static void
test_exp_kernel (void)
{
  float x[] = { NAN, INFINITY, -INFINITY, -NAN, 0.0f, 1.0f, -1.0f, 10.5f, -10.5f, 80.0f, -80.0f };
  float y[G_N_ELEMENTS (x)];
  memcpy (y, x, sizeof x);
  as_exp_inplace (y, G_N_ELEMENTS (y));
  g_assert_true (isnan (y[0]) && isnan (y[3]));
  g_assert_true (y[1] > 1e38f);                  /* e^88.7 or +Inf: saturated */
  g_assert_true (y[2] >= 0.0f && y[2] < 1e-37f); /* e^-87.3 */
  for (gsize i = 4; i < G_N_ELEMENTS (x); i++)
    {
      double want = exp ((double) x[i]);
      g_assert_cmpfloat (fabs (y[i] - want), <=, 2e-7 * want);
    }
}

/* as_find_non_finite finds the first NaN or infinity wherever it is, block edges included. */
static void
test_find_non_finite (void)
{
  gsize n = 10000;
  g_autofree float *x = g_new (float, n);
  for (gsize i = 0; i < n; i++)
    x[i] = (float) i - 5000.0f;
  g_assert_cmpint (as_find_non_finite (x, n), ==, -1);
  gsize at[] = { 0, 4095, 4096, 9999 };
  for (gsize k = 0; k < G_N_ELEMENTS (at); k++)
    {
      float keep = x[at[k]];
      x[at[k]] = k % 2 ? NAN : -INFINITY;
      g_assert_cmpint (as_find_non_finite (x, n), ==, (gssize) at[k]);
      x[at[k]] = keep;
    }
  x[7000] = INFINITY;
  x[9000] = NAN;
  g_assert_cmpint (as_find_non_finite (x, n), ==, 7000);
  GError *error = NULL;
  char *tokens[] = { "a", "b", "c", "d", " e", NULL };
  g_assert_false (as_check_finite (x + 6000, 2, 1000, 3, "layer 2", "position", tokens, &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_VALUE);
  assert_message (error, "layer 2 produced a non-finite value (+Inf) at position 4 (token ' e')");
  g_clear_error (&error);
}

/* A fixture model whose config.json says layer_norm_epsilon is EPS (as written), loaded. */
static AsModel *
load_with_eps (const char *name, const char *eps, GError **error)
{
  FixtureModelSpec spec;
  fixture_model_spec_init (&spec);
  const char *set[] = { "layer_norm_epsilon=\"EPS\"", NULL };
  spec.config_set = set;
  g_autofree char *dir = g_build_filename (test_tmpdir (), name, NULL);
  g_assert_true (fixture_model_write (dir, &spec, NULL));
  /* json-glib would write 1e-300 as "1e-300.0": the number goes in as text */
  g_autofree char *path = g_build_filename (dir, "config.json", NULL);
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  g_autoptr (GString) config = g_string_new (text);
  g_assert_cmpuint (g_string_replace (config, "\"EPS\"", eps, 1), ==, 1);
  g_assert_true (g_file_set_contents (path, config->str, -1, NULL));
  return as_model_load (dir, error);
}

/* An eps that float32 turns into 0 (or 1) is refused, naming the key and the value. */
static void
test_eps_as_float (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AsModel) tiny = load_with_eps ("eps-tiny", "1e-300", &error);
  g_assert_null (tiny);
  g_assert_error (error, AS_ERROR, AS_ERROR_CONFIG);
  assert_message (error,
                  "config.json: key 'layer_norm_epsilon' is 1e-300, which is 0 as a float32");
  g_clear_error (&error);
  g_autoptr (AsModel) one = load_with_eps ("eps-one", "0.99999999999", &error);
  g_assert_null (one);
  assert_message (error, "which is 1 as a float32");
  g_clear_error (&error);
  g_autoptr (AsModel) small = load_with_eps ("eps-small", "1e-30", &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (as_model_get_config (small)->layer_norm_eps, ==, 1e-30f);
}

/* More layers in the file than config.json says: one warning naming how many tensors, the first
 * names and the layer count; an error when loading strictly. Fewer: an error either way. The
 * same for tf_model.h5 (Keras names) and model.safetensors. */
static void
test_layers (void)
{
  for (int keras = 0; keras < 2; keras++)
    {
      const char *file = keras ? "tf_model.h5" : "model.safetensors";
      const char *layer2 = keras ? "h_._2/ln_1/gamma:0" : "h.2.ln_1.weight";
      g_autoptr (GError) error = NULL;
      g_autofree char *more
          = g_build_filename (test_tmpdir (), keras ? "more-h5" : "more-st", NULL);
      g_assert_true (hostile_layers_folder_write (more, 3, 2, keras, &error));
      g_autoptr (AsModel) model = as_model_load (more, &error);
      g_assert_no_error (error);
      const char *warning = as_model_get_warning (model);
      g_assert_nonnull (warning);
      g_test_message ("%s", warning);
      g_autofree char *path = g_build_filename (more, file, NULL);
      g_autofree char *head = g_strdup_printf ("%s has 12 tensors the config does not use (", path);
      g_assert_true (g_str_has_prefix (warning, head));
      g_assert_nonnull (strstr (warning, layer2));
      g_assert_true (g_str_has_suffix (warning, ", …); n_layer is 2"));
      g_assert_cmpint (as_model_get_config (model)->n_layer, ==, 2);

      g_autoptr (AsModel) strict = as_model_load_with (more, AS_MODEL_LOAD_STRICT, &error);
      g_assert_null (strict);
      g_assert_error (error, AS_ERROR, AS_ERROR_CONFIG);
      assert_message (error, head);
      assert_message (error, "loading strictly");
      g_clear_error (&error);

      g_autofree char *fewer
          = g_build_filename (test_tmpdir (), keras ? "fewer-h5" : "fewer-st", NULL);
      g_assert_true (hostile_layers_folder_write (fewer, 2, 3, keras, &error));
      g_autoptr (AsModel) short_model = as_model_load (fewer, &error);
      g_assert_null (short_model);
      g_assert_error (error, AS_ERROR, AS_ERROR_NOT_FOUND);
      assert_message (error, layer2);
      g_clear_error (&error);

      g_autofree char *same
          = g_build_filename (test_tmpdir (), keras ? "same-h5" : "same-st", NULL);
      g_assert_true (hostile_layers_folder_write (same, 2, 2, keras, &error));
      g_autoptr (AsModel) clean = as_model_load_with (same, AS_MODEL_LOAD_STRICT, &error);
      g_assert_no_error (error);
      g_assert_null (as_model_get_warning (clean));
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/hostile-numbers/overflow", test_overflow);
  g_test_add_func ("/core/hostile-numbers/exp-kernel", test_exp_kernel);
  g_test_add_func ("/core/hostile-numbers/find-non-finite", test_find_non_finite);
  g_test_add_func ("/core/hostile-numbers/eps-as-float", test_eps_as_float);
  g_test_add_func ("/core/hostile-numbers/layers", test_layers);
  int status = g_test_run ();
  test_tmpdir_cleanup ();
  return status;
}
