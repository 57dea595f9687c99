/* fixture-model.c — writes small GPT-2 model folders in the Hugging Face layout (fixture-model.h).
 *
 * Independent of the core on purpose: the HDF5 file is written with the HDF5 C API in the layout
 * Keras' save_weights produces (as h5py would), the safetensors file byte by byte, the byte
 * table of the tokenizer from core/tokenizers/README.md ("Tokenizers"). A loader bug therefore
 * cannot hide behind a writer that shares its code. */
#include "fixture-model.h"

#include <glib/gstdio.h>
#include <hdf5.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#define FIXTURE_ERROR (g_quark_from_static_string ("fixture-model-error"))

/* The first merges of GPT-2's merges.txt, so their ids (256...) are GPT-2's. */
static const char *const fixture_merges[] = {
  "Ġ t", "Ġ a", "h e", "i n", "r e", "o n", "Ġt he",
  "e r", "Ġ s", "a t", "Ġ w", "Ġ o", "e n", "Ġ c",
};
#define N_MERGES G_N_ELEMENTS (fixture_merges)

typedef struct
{
  char *name;  /* canonical (safetensors) name, "h.0.ln_1.weight" */
  char *keras; /* Keras name after the class scope, "transformer/h_._0/ln_1/gamma:0" */
  int ndim;    /* shape as written in safetensors */
  int64_t shape[2];
  int keras_ndim; /* shape as written in tf_model.h5: biases of Conv1D are (1, n) */
  int64_t keras_shape[2];
  float *data;
  gsize n;
  gboolean as_double; /* FIXTURE_CORRUPT_DTYPE */
  gboolean big_endian;
} FixtureTensor;

void
fixture_model_spec_init (FixtureModelSpec *spec)
{
  memset (spec, 0, sizeof *spec);
  spec->n_layer = 2;
  spec->n_head = 2;
  spec->n_embd = 8;
  spec->n_positions = 16;
  spec->seed = 1;
  spec->std = 0.1;
  spec->write_h5 = TRUE;
  spec->write_tokenizer = TRUE;
}

int
fixture_model_tokenizer_size (void)
{
  return 256 + (int) N_MERGES + 1;
}

static guint64
splitmix64 (guint64 x)
{
  x += G_GUINT64_CONSTANT (0x9E3779B97F4A7C15);
  x = (x ^ (x >> 30)) * G_GUINT64_CONSTANT (0xBF58476D1CE4E5B9);
  x = (x ^ (x >> 27)) * G_GUINT64_CONSTANT (0x94D049BB133111EB);
  return x ^ (x >> 31);
}

float
fixture_model_value (const FixtureModelSpec *spec, const char *tensor, gsize index)
{
  guint64 h = G_GUINT64_CONSTANT (1469598103934665603);
  for (const char *p = tensor; *p; p++)
    h = (h ^ (guint8) *p) * G_GUINT64_CONSTANT (1099511628211);
  guint64 r = splitmix64 (h ^ ((guint64) spec->seed << 32) ^ splitmix64 (index));
  double u = (double) (r >> 11) / 9007199254740992.0 * 2.0 - 1.0; /* [-1, 1) */
  double v = u * sqrt (3.0) * spec->std;                          /* std = spec->std */
  if (g_str_has_suffix (tensor, "ln_1.weight") || g_str_has_suffix (tensor, "ln_2.weight")
      || g_str_has_suffix (tensor, "ln_f.weight"))
    v += 1.0;
  return (float) v;
}

static void
fixture_tensor_free (gpointer data)
{
  FixtureTensor *t = data;
  g_free (t->name);
  g_free (t->keras);
  g_free (t->data);
  g_free (t);
}

/* Adds a tensor of shape (d0) or (d0, d1); KERAS_ROW makes the Keras shape (1, d0). */
static void
add_tensor (GPtrArray *list, const FixtureModelSpec *spec, int layer, const char *st,
            const char *keras, int64_t d0, int64_t d1, gboolean keras_row)
{
  FixtureTensor *t = g_new0 (FixtureTensor, 1);
  t->name = layer < 0 ? g_strdup (st) : g_strdup_printf ("h.%d.%s", layer, st);
  t->keras = layer < 0 ? g_strdup_printf ("transformer/%s", keras)
                       : g_strdup_printf ("transformer/h_._%d/%s", layer, keras);
  t->ndim = d1 > 0 ? 2 : 1;
  t->shape[0] = d0;
  t->shape[1] = d1;
  t->keras_ndim = keras_row ? 2 : t->ndim;
  t->keras_shape[0] = keras_row ? 1 : d0;
  t->keras_shape[1] = keras_row ? d0 : d1;
  t->n = (gsize) d0 * (gsize) (d1 > 0 ? d1 : 1);
  t->data = g_new (float, t->n);
  for (gsize i = 0; i < t->n; i++)
    t->data[i] = fixture_model_value (spec, t->name, i);
  g_ptr_array_add (list, t);
}

static void
corrupt_tensor (FixtureTensor *t, const FixtureModelSpec *spec)
{
  switch (spec->corruption)
    {
    case FIXTURE_CORRUPT_SHAPE:
      t->shape[0] += 1;
      t->keras_shape[0] += 1;
      t->n = (gsize) t->shape[0] * (gsize) (t->ndim == 2 ? t->shape[1] : 1);
      t->data = g_renew (float, t->data, t->n);
      for (gsize i = 0; i < t->n; i++)
        t->data[i] = fixture_model_value (spec, t->name, i);
      break;
    case FIXTURE_CORRUPT_TRANSPOSED:
      {
        g_assert (t->ndim == 2 && t->keras_ndim == 2);
        int64_t r = t->shape[0], c = t->shape[1];
        float *d = g_new (float, t->n);
        for (int64_t i = 0; i < r; i++)
          for (int64_t j = 0; j < c; j++)
            d[j * r + i] = t->data[i * c + j];
        g_free (t->data);
        t->data = d;
        t->shape[0] = t->keras_shape[0] = c;
        t->shape[1] = t->keras_shape[1] = r;
        break;
      }
    case FIXTURE_CORRUPT_DTYPE:
      t->as_double = TRUE;
      break;
    case FIXTURE_CORRUPT_NAN:
    case FIXTURE_CORRUPT_INF:
      g_assert (spec->corrupt_index < t->n);
      t->data[spec->corrupt_index] = spec->corruption == FIXTURE_CORRUPT_NAN ? NAN : INFINITY;
      break;
    default:
      break;
    }
}

/* The GPT-2 weights of SPEC, in the order HF's TF model creates them, corruption applied. */
static GPtrArray *
fixture_tensors (const FixtureModelSpec *spec, int vocab_size)
{
  GPtrArray *list = g_ptr_array_new_with_free_func (fixture_tensor_free);
  int64_t D = spec->n_embd, F = spec->n_inner > 0 ? spec->n_inner : 4 * spec->n_embd;
  add_tensor (list, spec, -1, "wte.weight", "wte/weight:0", vocab_size, D, FALSE);
  add_tensor (list, spec, -1, "wpe.weight", "wpe/embeddings:0", spec->n_positions, D, FALSE);
  for (int l = 0; l < spec->n_layer; l++)
    {
      add_tensor (list, spec, l, "ln_1.weight", "ln_1/gamma:0", D, 0, FALSE);
      add_tensor (list, spec, l, "ln_1.bias", "ln_1/beta:0", D, 0, FALSE);
      add_tensor (list, spec, l, "attn.c_attn.weight", "attn/c_attn/weight:0", D, 3 * D, FALSE);
      add_tensor (list, spec, l, "attn.c_attn.bias", "attn/c_attn/bias:0", 3 * D, 0, TRUE);
      add_tensor (list, spec, l, "attn.c_proj.weight", "attn/c_proj/weight:0", D, D, FALSE);
      add_tensor (list, spec, l, "attn.c_proj.bias", "attn/c_proj/bias:0", D, 0, TRUE);
      add_tensor (list, spec, l, "ln_2.weight", "ln_2/gamma:0", D, 0, FALSE);
      add_tensor (list, spec, l, "ln_2.bias", "ln_2/beta:0", D, 0, FALSE);
      add_tensor (list, spec, l, "mlp.c_fc.weight", "mlp/c_fc/weight:0", D, F, FALSE);
      add_tensor (list, spec, l, "mlp.c_fc.bias", "mlp/c_fc/bias:0", F, 0, TRUE);
      add_tensor (list, spec, l, "mlp.c_proj.weight", "mlp/c_proj/weight:0", F, D, FALSE);
      add_tensor (list, spec, l, "mlp.c_proj.bias", "mlp/c_proj/bias:0", D, 0, TRUE);
    }
  add_tensor (list, spec, -1, "ln_f.weight", "ln_f/gamma:0", D, 0, FALSE);
  add_tensor (list, spec, -1, "ln_f.bias", "ln_f/beta:0", D, 0, FALSE);

  for (guint i = 0; spec->big_endian_tensor != NULL && i < list->len; i++)
    {
      FixtureTensor *t = list->pdata[i];
      t->big_endian = g_str_equal (t->name, spec->big_endian_tensor);
    }
  for (guint i = 0; spec->corrupt_tensor != NULL && i < list->len; i++)
    {
      FixtureTensor *t = list->pdata[i];
      if (!g_str_equal (t->name, spec->corrupt_tensor))
        continue;
      if (spec->corruption == FIXTURE_CORRUPT_MISSING)
        g_ptr_array_remove_index (list, i);
      else
        corrupt_tensor (t, spec);
      return list;
    }
  g_assert (spec->corruption == FIXTURE_CORRUPT_NONE);
  return list;
}

/* ---- tf_model.h5 ---------------------------------------------------------------------- */

static gboolean
h5_write_strings (hid_t obj, const char *name, const char *const *strings, gsize n, gboolean vlen,
                  gboolean scalar)
{
  hid_t type = H5Tcopy (H5T_C_S1);
  gsize width = 1;
  for (gsize i = 0; i < n; i++)
    width = MAX (width, strlen (strings[i]));
  if (vlen)
    {
      H5Tset_size (type, H5T_VARIABLE);
      H5Tset_cset (type, H5T_CSET_UTF8);
    }
  else
    {
      H5Tset_size (type, width);
      H5Tset_strpad (type, H5T_STR_NULLPAD);
    }
  hsize_t dims[1] = { n };
  hid_t space = scalar ? H5Screate (H5S_SCALAR) : H5Screate_simple (1, dims, NULL);
  hid_t attr = H5Acreate2 (obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
  herr_t status = -1;
  if (attr >= 0 && vlen)
    status = H5Awrite (attr, type, strings);
  else if (attr >= 0)
    {
      g_autofree char *buffer = g_malloc0 (n * width);
      for (gsize i = 0; i < n; i++)
        memcpy (buffer + i * width, strings[i], strlen (strings[i]));
      status = H5Awrite (attr, type, buffer);
    }
  if (attr >= 0)
    H5Aclose (attr);
  H5Sclose (space);
  H5Tclose (type);
  return status >= 0;
}

static gboolean
h5_write_tensor (hid_t file, const char *path, const FixtureTensor *t)
{
  hsize_t dims[2] = { (hsize_t) t->keras_shape[0], (hsize_t) t->keras_shape[1] };
  hid_t space = H5Screate_simple (t->keras_ndim, dims, NULL);
  hid_t lcpl = H5Pcreate (H5P_LINK_CREATE);
  H5Pset_create_intermediate_group (lcpl, 1);
  hid_t type = t->as_double ? H5T_IEEE_F64LE : t->big_endian ? H5T_IEEE_F32BE : H5T_IEEE_F32LE;
  hid_t dset = H5Dcreate2 (file, path, type, space, lcpl, H5P_DEFAULT, H5P_DEFAULT);
  herr_t status = -1;
  if (dset >= 0 && t->as_double)
    {
      g_autofree double *d = g_new (double, t->n);
      for (gsize i = 0; i < t->n; i++)
        d[i] = t->data[i];
      status = H5Dwrite (dset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, d);
    }
  else if (dset >= 0)
    status = H5Dwrite (dset, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, t->data);
  if (dset >= 0)
    H5Dclose (dset);
  H5Pclose (lcpl);
  H5Sclose (space);
  return status >= 0;
}

static gboolean
write_h5 (const char *path, const FixtureModelSpec *spec, GPtrArray *tensors, GError **error)
{
  H5Eset_auto2 (H5E_DEFAULT, NULL, NULL);
  const char *scope = spec->class_scope != NULL ? spec->class_scope : "tfgp_t2lm_head_model";
  hid_t file = H5Fcreate (path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  if (file < 0)
    {
      g_set_error (error, FIXTURE_ERROR, 1, "could not create %s", path);
      return FALSE;
    }
  const char *layer_names[] = { "transformer" };
  const char *backend[] = { "tensorflow" };
  const char *version[] = { "2.11.0" };
  gboolean ok = h5_write_strings (file, "layer_names", layer_names, 1, spec->vlen_strings, FALSE)
                && h5_write_strings (file, "backend", backend, 1, spec->vlen_strings, TRUE)
                && h5_write_strings (file, "keras_version", version, 1, spec->vlen_strings, TRUE);

  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < tensors->len; i++)
    {
      const FixtureTensor *t = tensors->pdata[i];
      g_ptr_array_add (names, g_strdup_printf ("%s/%s", scope, t->keras));
    }
  hid_t group = H5Gcreate2 (file, "transformer", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  const char *const *all = (const char *const *) names->pdata;
  if (spec->split_weight_names)
    {
      guint half = names->len / 2;
      ok = ok && h5_write_strings (group, "weight_names0", all, half, spec->vlen_strings, FALSE)
           && h5_write_strings (group, "weight_names1", all + half, names->len - half,
                                spec->vlen_strings, FALSE);
    }
  else
    ok = ok && h5_write_strings (group, "weight_names", all, names->len, spec->vlen_strings, FALSE);
  H5Gclose (group);

  for (guint i = 0; ok && i < tensors->len; i++)
    {
      g_autofree char *dset = g_strdup_printf ("transformer/%s", all[i]);
      ok = h5_write_tensor (file, dset, tensors->pdata[i]);
    }
  if (H5Fclose (file) < 0)
    ok = FALSE;
  if (!ok)
    g_set_error (error, FIXTURE_ERROR, 1, "could not write %s", path);
  return ok;
}

/* ---- model.safetensors ---------------------------------------------------------------- */

static void
st_append_entry (GString *header, GByteArray *data, const char *name, const char *dtype, int ndim,
                 const int64_t *shape, const void *bytes, gsize n_bytes)
{
  g_string_append_printf (header, "%s\"%s\":{\"dtype\":\"%s\",\"shape\":[",
                          header->len > 1 ? "," : "", name, dtype);
  for (int i = 0; i < ndim; i++)
    g_string_append_printf (header, "%s%" G_GINT64_FORMAT, i ? "," : "", shape[i]);
  g_string_append_printf (header, "],\"data_offsets\":[%u,%" G_GSIZE_FORMAT "]}", data->len,
                          data->len + n_bytes);
  g_byte_array_append (data, bytes, (guint) n_bytes);
}

static gboolean
write_safetensors (const char *path, const FixtureModelSpec *spec, GPtrArray *tensors,
                   GError **error)
{
  const char *prefix = spec->safetensors_prefix ? "transformer." : "";
  g_autoptr (GString) header = g_string_new ("{");
  g_autoptr (GByteArray) data = g_byte_array_new ();
  g_string_append (header, "\"__metadata__\":{\"format\":\"pt\"}");
  for (guint i = 0; i < tensors->len; i++)
    {
      const FixtureTensor *t = tensors->pdata[i];
      g_autofree char *name = g_strconcat (prefix, t->name, NULL);
      if (t->as_double)
        {
          g_autofree double *d = g_new (double, t->n);
          for (gsize j = 0; j < t->n; j++)
            d[j] = t->data[j];
          const char *dtype = spec->safetensors_dtype != NULL ? spec->safetensors_dtype : "F64";
          st_append_entry (header, data, name, dtype, t->ndim, t->shape, d, t->n * 8);
        }
      else
        st_append_entry (header, data, name, "F32", t->ndim, t->shape, t->data, t->n * 4);
    }
  /* PyTorch's causal-mask buffers, which the loader must skip. */
  for (int l = 0; l < spec->n_layer; l++)
    {
      int64_t P = spec->n_positions, mask_shape[4] = { 1, 1, P, P };
      g_autofree float *mask = g_new0 (float, P *P);
      for (int64_t i = 0; i < P; i++)
        for (int64_t j = 0; j <= i; j++)
          mask[i * P + j] = 1.0f;
      float masked_bias = -1e4f;
      g_autofree char *bias = g_strdup_printf ("%sh.%d.attn.bias", prefix, l);
      g_autofree char *masked = g_strdup_printf ("%sh.%d.attn.masked_bias", prefix, l);
      st_append_entry (header, data, bias, "F32", 4, mask_shape, mask, (gsize) (P * P * 4));
      st_append_entry (header, data, masked, "F32", 0, NULL, &masked_bias, 4);
    }
  g_string_append_c (header, '}');
  /* The data starts at 8 + header length: pad to a multiple of 8, or to 2 past one. */
  while ((8 + header->len) % 8 != (spec->safetensors_unaligned ? 2u : 0u))
    g_string_append_c (header, ' ');

  guint64 n = GUINT64_TO_LE ((guint64) header->len);
  g_autoptr (GByteArray) file = g_byte_array_new ();
  g_byte_array_append (file, (const guint8 *) &n, 8);
  g_byte_array_append (file, (const guint8 *) header->str, (guint) header->len);
  g_byte_array_append (file, data->data, data->len);
  return g_file_set_contents (path, (const char *) file->data, file->len, error);
}

/* ---- config.json and the tokenizer ---------------------------------------------------- */

static gboolean
write_config (const char *path, const FixtureModelSpec *spec, int vocab_size, GError **error)
{
  g_autoptr (JsonObject) obj = json_object_new ();
  json_object_set_string_member (obj, "activation_function", "gelu_new");
  /* <|endoftext|>, unless the vocabulary was made smaller than the tokenizer. */
  int eos = MIN (fixture_model_tokenizer_size (), vocab_size) - 1;
  json_object_set_int_member (obj, "bos_token_id", eos);
  json_object_set_int_member (obj, "eos_token_id", eos);
  json_object_set_double_member (obj, "layer_norm_epsilon", 1e-5);
  json_object_set_string_member (obj, "model_type", "gpt2");
  json_object_set_int_member (obj, "n_ctx", spec->n_positions);
  json_object_set_int_member (obj, "n_embd", spec->n_embd);
  json_object_set_int_member (obj, "n_head", spec->n_head);
  if (spec->n_inner > 0)
    json_object_set_int_member (obj, "n_inner", spec->n_inner);
  else
    json_object_set_null_member (obj, "n_inner");
  json_object_set_int_member (obj, "n_layer", spec->n_layer);
  json_object_set_int_member (obj, "n_positions", spec->n_positions);
  json_object_set_int_member (obj, "vocab_size", vocab_size);

  for (const char *const *k = spec->config_omit; k != NULL && *k != NULL; k++)
    json_object_remove_member (obj, *k);
  for (const char *const *kv = spec->config_set; kv != NULL && *kv != NULL; kv++)
    {
      g_auto (GStrv) parts = g_strsplit (*kv, "=", 2);
      g_assert (parts[0] != NULL && parts[1] != NULL);
      JsonNode *value = json_from_string (parts[1], error);
      if (value == NULL)
        return FALSE;
      json_object_set_member (obj, parts[0], value);
    }
  g_autoptr (JsonNode) root = json_node_init_object (json_node_alloc (), obj);
  g_autofree char *text = json_to_string (root, TRUE);
  return g_file_set_contents (path, text, -1, error);
}

static gboolean
byte_is_printable (int b)
{
  return (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
}

static gboolean
write_tokenizer (const char *dir, GError **error)
{
  /* GPT-2's vocabulary starts with the printable bytes, then the others as U+0100 + n. */
  g_autoptr (JsonObject) vocab = json_object_new ();
  int id = 0, n = 0;
  for (int b = 0; b < 256; b++)
    if (byte_is_printable (b))
      {
        char s[8] = { 0 };
        g_unichar_to_utf8 ((gunichar) b, s);
        json_object_set_int_member (vocab, s, id++);
      }
  for (int b = 0; b < 256; b++)
    if (!byte_is_printable (b))
      {
        char s[8] = { 0 };
        g_unichar_to_utf8 ((gunichar) (256 + n++), s);
        json_object_set_int_member (vocab, s, id++);
      }
  g_autoptr (GString) merges = g_string_new ("#version: 0.2\n");
  for (gsize i = 0; i < N_MERGES; i++)
    {
      g_auto (GStrv) pair = g_strsplit (fixture_merges[i], " ", 2);
      g_autofree char *merged = g_strconcat (pair[0], pair[1], NULL);
      json_object_set_int_member (vocab, merged, id++);
      g_string_append_printf (merges, "%s\n", fixture_merges[i]);
    }
  json_object_set_int_member (vocab, "<|endoftext|>", id++);
  g_assert (id == fixture_model_tokenizer_size ());

  g_autoptr (JsonNode) root = json_node_init_object (json_node_alloc (), vocab);
  g_autofree char *text = json_to_string (root, FALSE);
  g_autofree char *vocab_path = g_build_filename (dir, "vocab.json", NULL);
  g_autofree char *merges_path = g_build_filename (dir, "merges.txt", NULL);
  return g_file_set_contents (vocab_path, text, -1, error)
         && g_file_set_contents (merges_path, merges->str, (gssize) merges->len, error);
}

gboolean
fixture_model_write (const char *dir, const FixtureModelSpec *spec, GError **error)
{
  if (g_mkdir_with_parents (dir, 0755) != 0)
    {
      g_set_error (error, FIXTURE_ERROR, 1, "could not create %s", dir);
      return FALSE;
    }
  int vocab_size = spec->vocab_size > 0 ? spec->vocab_size : fixture_model_tokenizer_size ();
  g_autoptr (GPtrArray) tensors = fixture_tensors (spec, vocab_size);
  g_autofree char *config = g_build_filename (dir, "config.json", NULL);
  g_autofree char *h5 = g_build_filename (dir, "tf_model.h5", NULL);
  g_autofree char *st = g_build_filename (dir, "model.safetensors", NULL);
  return write_config (config, spec, vocab_size, error)
         && (!spec->write_tokenizer || write_tokenizer (dir, error))
         && (!spec->write_h5 || write_h5 (h5, spec, tensors, error))
         && (!spec->write_safetensors || write_safetensors (st, spec, tensors, error));
}

gboolean
fixture_truncate_file (const char *path, double fraction, GError **error)
{
  g_autofree char *contents = NULL;
  gsize length = 0;
  if (!g_file_get_contents (path, &contents, &length, error))
    return FALSE;
  return g_file_set_contents (path, contents, (gssize) (length * fraction), error);
}

gboolean
fixture_patch_file (const char *path, gsize offset, const void *data, gsize n, GError **error)
{
  g_autofree char *contents = NULL;
  gsize length = 0;
  if (!g_file_get_contents (path, &contents, &length, error))
    return FALSE;
  g_assert (offset + n <= length);
  memcpy (contents + offset, data, n);
  return g_file_set_contents (path, contents, (gssize) length, error);
}
