/* hostile-numbers.c — see hostile-numbers.h. */
#include "hostile-numbers.h"

#include <gio/gio.h>
#include <hdf5.h>

#include "fixture-model.h"

#define HOSTILE_ERROR (g_quark_from_static_string ("hostile-numbers"))
#define GPT2 "transformer/tfgp_t2lm_head_model/transformer/"
#define BERT "bert/tf_bert_for_masked_lm/bert/encoder/layer_._0/"
#define MARIAN "model/tf_marian_mt_model/model/"

static const struct
{
  const char *name, *needle, *step_needle;
} overflows[HOSTILE_N_OVERFLOWS] = {
  [HOSTILE_OVERFLOW_LOGITS]
  = { "overflow-logits", "the output layer produced a non-finite value (+Inf) at position", NULL },
  [HOSTILE_OVERFLOW_LAYER] = { "overflow-layer", "layer 0 produced a non-finite value", NULL },
  [HOSTILE_OVERFLOW_BERT] = { "overflow-bert", "layer 0 produced a non-finite value", NULL },
  [HOSTILE_OVERFLOW_MARIAN_ENCODER]
  = { "overflow-marian-encoder", "encoder layer 0 produced a non-finite value",
      "encoder layer 0 produced a non-finite value" },
  [HOSTILE_OVERFLOW_MARIAN_DECODER]
  = { "overflow-marian-decoder", "decoder layer 0 produced a non-finite value",
      "decoder layer 0 (generating token 1) produced a non-finite value" },
};

const char *
hostile_overflow_name (HostileOverflow o)
{
  return overflows[o].name;
}

const char *
hostile_overflow_needle (HostileOverflow o)
{
  return overflows[o].needle;
}

const char *
hostile_overflow_step_needle (HostileOverflow o)
{
  return overflows[o].step_needle;
}

gboolean
hostile_overflow_is_translation (HostileOverflow o)
{
  return o == HOSTILE_OVERFLOW_MARIAN_ENCODER || o == HOSTILE_OVERFLOW_MARIAN_DECODER;
}

/* Sets every element of the float32 dataset NAME of the HDF5 file PATH to SCALE × itself, or to
 * FILL when SCALE is 0. */
static gboolean
h5_rewrite (const char *path, const char *name, double scale, float fill, GError **error)
{
  H5Eset_auto2 (H5E_DEFAULT, NULL, NULL);
  hid_t file = H5Fopen (path, H5F_ACC_RDWR, H5P_DEFAULT);
  hid_t dset = file >= 0 ? H5Dopen2 (file, name, H5P_DEFAULT) : H5I_INVALID_HID;
  hid_t space = dset >= 0 ? H5Dget_space (dset) : H5I_INVALID_HID;
  hssize_t n = space >= 0 ? H5Sget_simple_extent_npoints (space) : -1;
  gboolean ok = n > 0;
  if (ok)
    {
      g_autofree float *data = g_new (float, n);
      ok = H5Dread (dset, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0;
      for (hssize_t i = 0; ok && i < n; i++)
        data[i] = scale != 0 ? (float) (data[i] * scale) : fill;
      ok = ok && H5Dwrite (dset, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0;
    }
  if (space >= 0)
    H5Sclose (space);
  if (dset >= 0)
    H5Dclose (dset);
  if (file >= 0)
    H5Fclose (file);
  if (!ok)
    g_set_error (error, HOSTILE_ERROR, 1, "could not rewrite %s in %s", name, path);
  return ok;
}

/* Copies the files of the shipped model NAME (from SOURCE_DIR) into DIR. */
static gboolean
copy_shipped (const char *dir, const char *source_dir, const char *name, GError **error)
{
  g_autofree char *from = g_build_filename (source_dir, "data", "models", name, NULL);
  g_autoptr (GDir) d = g_dir_open (from, 0, error);
  if (d == NULL || g_mkdir_with_parents (dir, 0755) != 0)
    return FALSE;
  for (const char *f; (f = g_dir_read_name (d)) != NULL;)
    {
      g_autofree char *a = g_build_filename (from, f, NULL);
      g_autofree char *b = g_build_filename (dir, f, NULL);
      g_autoptr (GFile) src = g_file_new_for_path (a);
      g_autoptr (GFile) dst = g_file_new_for_path (b);
      if (!g_file_copy (src, dst, G_FILE_COPY_OVERWRITE, NULL, NULL, NULL, error))
        return FALSE;
    }
  return TRUE;
}

/* Scales the two matrices FIRST and SECOND (a feed-forward's) of DIR/tf_model.h5 by 1e30 each:
 * their product overflows. */
static gboolean
scale_pair (const char *dir, const char *first, const char *second, GError **error)
{
  g_autofree char *h5 = g_build_filename (dir, "tf_model.h5", NULL);
  return h5_rewrite (h5, first, 1e30, 0, error) && h5_rewrite (h5, second, 1e30, 0, error);
}

gboolean
hostile_overflow_folder_write (const char *dir, const char *source_dir, HostileOverflow o,
                               GError **error)
{
  FixtureModelSpec spec;
  fixture_model_spec_init (&spec);
  g_autofree char *h5 = g_build_filename (dir, "tf_model.h5", NULL);
  switch (o)
    {
    case HOSTILE_OVERFLOW_LOGITS:
      /* every embedding row is 3e38 everywhere, so each norm sees a constant row and gives its
       * bias: ln_f's bias of 1 makes every logit a sum of 3e38s */
      return fixture_model_write (dir, &spec, error)
             && h5_rewrite (h5, GPT2 "wte/weight:0", 0, 3e38f, error)
             && h5_rewrite (h5, GPT2 "ln_f/beta:0", 0, 1.0f, error);
    case HOSTILE_OVERFLOW_LAYER:
      return fixture_model_write (dir, &spec, error)
             && scale_pair (dir, GPT2 "h_._0/mlp/c_fc/weight:0", GPT2 "h_._0/mlp/c_proj/weight:0",
                            error);
    case HOSTILE_OVERFLOW_BERT:
      return copy_shipped (dir, source_dir, "attnscope-mini-bert", error)
             && scale_pair (dir, BERT "intermediate/dense/kernel:0", BERT "output/dense/kernel:0",
                            error);
    case HOSTILE_OVERFLOW_MARIAN_ENCODER:
      return copy_shipped (dir, source_dir, "attnscope-mini-en-de", error)
             && scale_pair (dir, MARIAN "encoder/layers.0/fc1/kernel:0",
                            MARIAN "encoder/layers.0/fc2/kernel:0", error);
    case HOSTILE_OVERFLOW_MARIAN_DECODER:
      return copy_shipped (dir, source_dir, "attnscope-mini-en-de", error)
             && scale_pair (dir, MARIAN "decoder/layers.0/fc1/kernel:0",
                            MARIAN "decoder/layers.0/fc2/kernel:0", error);
    case HOSTILE_N_OVERFLOWS:
      break;
    }
  g_assert_not_reached ();
}

gboolean
hostile_layers_folder_write (const char *dir, int file_layers, int config_layers, gboolean keras,
                             GError **error)
{
  FixtureModelSpec spec;
  fixture_model_spec_init (&spec);
  spec.n_layer = file_layers;
  spec.write_h5 = keras;
  spec.write_safetensors = !keras;
  g_autofree char *n_layer = g_strdup_printf ("n_layer=%d", config_layers);
  const char *set[] = { n_layer, NULL };
  spec.config_set = set;
  return fixture_model_write (dir, &spec, error);
}
