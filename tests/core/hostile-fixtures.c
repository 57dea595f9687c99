/* hostile-fixtures.c — see hostile-fixtures.h. */
#include "hostile-fixtures.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <hdf5.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fixture-model.h"

#define HOSTILE_ERROR (g_quark_from_static_string ("hostile-fixture"))
#define KERAS_PREFIX "transformer/tfgp_t2lm_head_model/transformer/"
#define LN_F_BETA KERAS_PREFIX "ln_f/beta:0"
#define WTE KERAS_PREFIX "wte/weight:0"

static const struct
{
  const char *name, *file, *needle;
} hostile_cases[HOSTILE_N_CASES] = {
  [HOSTILE_VDS_SELF] = { "vds-self", "tf_model.h5", "virtual dataset" },
  [HOSTILE_EXTERNAL_LINK] = { "external-link", "tf_model.h5", "external link" },
  [HOSTILE_SOFT_LINK] = { "soft-link", "tf_model.h5", "soft link" },
  [HOSTILE_EXTERNAL_PASSWD] = { "external-passwd", "tf_model.h5", "external file '/etc/passwd'" },
  [HOSTILE_EXTERNAL_ZERO] = { "external-zero", "tf_model.h5", "external file '/dev/zero'" },
  [HOSTILE_EXTERNAL_FIFO] = { "external-fifo", "tf_model.h5", "external file" },
  [HOSTILE_HUGE_UNUSED] = { "huge-unused", "tf_model.h5", NULL },
  [HOSTILE_HUGE_NEEDED] = { "huge-needed", "tf_model.h5", "only 0 of its 1145 chunks are stored" },
  [HOSTILE_OFFSET_OUTSIDE] = { "offset-outside", "tf_model.h5", "but the file has only" },
  [HOSTILE_CONFIG_NESTED] = { "config-nested", "config.json", "nest more than 1000 levels" },
  [HOSTILE_VOCAB_NESTED] = { "vocab-nested", "vocab.json", "nest more than 1000 levels" },
  [HOSTILE_CONFIG_HUGE] = { "config-huge", "config.json", "such a file may have" },
  [HOSTILE_CONFIG_2_63] = { "config-2-63", "config.json", "9223372036854775808" },
  [HOSTILE_CONFIG_FIFO] = { "config-fifo", "config.json", "is a FIFO" },
  [HOSTILE_VOCAB_FIFO] = { "vocab-fifo", "vocab.json", "is a FIFO" },
  [HOSTILE_MERGES_FIFO] = { "merges-fifo", "merges.txt", "is a FIFO" },
  [HOSTILE_WEIGHTS_FIFO] = { "weights-fifo", "tf_model.h5", "is a FIFO" },
  [HOSTILE_SAFETENSORS_FIFO] = { "safetensors-fifo", "model.safetensors", "is a FIFO" },
  [HOSTILE_CONFIG_NUL_KEY]
  = { "config-nul-key", "config.json", "the key \"n_layer\\u0000x\" holds a NUL character" },
  [HOSTILE_SAFETENSORS_NUL_KEY] = { "safetensors-nul-key", "model.safetensors",
                                    "the key \"wte.weight\\u0000x\" holds a NUL character" },
  [HOSTILE_INDEX_NUL_SHARD]
  = { "index-nul-shard", "model.safetensors.index.json",
      "the string \"model-00001-of-00001.safetensors\\u0000x\" (key \"wte.weight\") holds a NUL "
      "character" },
  [HOSTILE_SHARD_TEXT_LINK] = { "shard-text-link", "model-00001-of-00001.safetensors",
                                "(a symbolic link to merges.txt) is not a safetensors file: it "
                                "begins with text (\"#version\") where the 8-byte header length "
                                "belongs" },
};

const char *
hostile_case_name (HostileCase c)
{
  return hostile_cases[c].name;
}

const char *
hostile_case_file (HostileCase c)
{
  return hostile_cases[c].file;
}

const char *
hostile_case_needle (HostileCase c)
{
  return hostile_cases[c].needle;
}

static gboolean
fail (GError **error, const char *what, const char *path)
{
  g_set_error (error, HOSTILE_ERROR, 1, "could not %s in %s", what, path);
  return FALSE;
}

/* Reads the float32 dataset NAME of FILE (at most 2-D) into *DATA, with its shape. */
static gboolean
read_dataset (hid_t file, const char *name, float **data, int *ndim, hsize_t *dims)
{
  hid_t dset = H5Dopen2 (file, name, H5P_DEFAULT);
  hid_t space = dset >= 0 ? H5Dget_space (dset) : H5I_INVALID_HID;
  *ndim = space >= 0 ? H5Sget_simple_extent_ndims (space) : -1;
  gboolean ok = *ndim >= 1 && *ndim <= 2 && H5Sget_simple_extent_dims (space, dims, NULL) >= 0;
  if (ok)
    {
      *data = g_new (float, dims[0] * (*ndim == 2 ? dims[1] : 1));
      ok = H5Dread (dset, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, *data) >= 0;
    }
  if (space >= 0)
    H5Sclose (space);
  if (dset >= 0)
    H5Dclose (dset);
  return ok;
}

gboolean
hostile_h5_external_storage (const char *path, const char *name, const char *external,
                             GError **error)
{
  H5Eset_auto2 (H5E_DEFAULT, NULL, NULL);
  hid_t file = H5Fopen (path, H5F_ACC_RDWR, H5P_DEFAULT);
  g_autofree float *data = NULL;
  int ndim = 0;
  hsize_t dims[2] = { 0, 0 };
  gboolean ok = file >= 0 && read_dataset (file, name, &data, &ndim, dims)
                && H5Ldelete (file, name, H5P_DEFAULT) >= 0;
  hid_t dcpl = H5Pcreate (H5P_DATASET_CREATE);
  hid_t space = H5Screate_simple (ndim > 0 ? ndim : 1, dims, NULL);
  ok = ok && H5Pset_external (dcpl, external, 0, H5F_UNLIMITED) >= 0;
  hid_t dset = ok ? H5Dcreate2 (file, name, H5T_IEEE_F32LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT)
                  : H5I_INVALID_HID;
  ok = ok && dset >= 0;
  if (dset >= 0)
    H5Dclose (dset);
  H5Sclose (space);
  H5Pclose (dcpl);
  if (file >= 0)
    H5Fclose (file);
  return ok || fail (error, "give a dataset external storage", path);
}

gboolean
hostile_h5_external_link (const char *path, const char *name, const char *other, GError **error)
{
  H5Eset_auto2 (H5E_DEFAULT, NULL, NULL);
  hid_t file = H5Fopen (path, H5F_ACC_RDWR, H5P_DEFAULT);
  g_autofree float *data = NULL;
  int ndim = 0;
  hsize_t dims[2] = { 0, 0 };
  gboolean ok = file >= 0 && read_dataset (file, name, &data, &ndim, dims)
                && H5Ldelete (file, name, H5P_DEFAULT) >= 0;
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *other_path = g_build_filename (dir, other, NULL);
  hid_t out
      = ok ? H5Fcreate (other_path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT) : H5I_INVALID_HID;
  ok = ok && out >= 0;
  if (ok)
    {
      g_autofree float *pad = g_new0 (float, 100000);
      hsize_t pad_dims[1] = { 100000 };
      hid_t pad_space = H5Screate_simple (1, pad_dims, NULL);
      hid_t data_space = H5Screate_simple (ndim, dims, NULL);
      hid_t d1 = H5Dcreate2 (out, "pad", H5T_IEEE_F32LE, pad_space, H5P_DEFAULT, H5P_DEFAULT,
                             H5P_DEFAULT);
      hid_t d2 = H5Dcreate2 (out, "x", H5T_IEEE_F32LE, data_space, H5P_DEFAULT, H5P_DEFAULT,
                             H5P_DEFAULT);
      ok = d1 >= 0 && d2 >= 0
           && H5Dwrite (d1, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, pad) >= 0
           && H5Dwrite (d2, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0;
      if (d1 >= 0)
        H5Dclose (d1);
      if (d2 >= 0)
        H5Dclose (d2);
      H5Sclose (pad_space);
      H5Sclose (data_space);
      H5Fclose (out);
    }
  ok = ok && H5Lcreate_external (other, "/x", file, name, H5P_DEFAULT, H5P_DEFAULT) >= 0;
  if (file >= 0)
    H5Fclose (file);
  return ok || fail (error, "make an external link", path);
}

gboolean
hostile_h5_vds_self (const char *path, const char *name, GError **error)
{
  H5Eset_auto2 (H5E_DEFAULT, NULL, NULL);
  hid_t file = H5Fopen (path, H5F_ACC_RDWR, H5P_DEFAULT);
  g_autofree float *data = NULL;
  int ndim = 0;
  hsize_t dims[2] = { 0, 0 };
  gboolean ok = file >= 0 && read_dataset (file, name, &data, &ndim, dims)
                && H5Ldelete (file, name, H5P_DEFAULT) >= 0;
  hid_t space = H5Screate_simple (ndim > 0 ? ndim : 1, dims, NULL);
  hid_t dcpl = H5Pcreate (H5P_DATASET_CREATE);
  g_autofree char *source = g_strdup_printf ("/%s", name);
  ok = ok && H5Pset_virtual (dcpl, space, ".", source, space) >= 0;
  hid_t dset = ok ? H5Dcreate2 (file, name, H5T_IEEE_F32LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT)
                  : H5I_INVALID_HID;
  ok = ok && dset >= 0;
  if (dset >= 0)
    H5Dclose (dset);
  H5Pclose (dcpl);
  H5Sclose (space);
  if (file >= 0)
    H5Fclose (file);
  return ok || fail (error, "make a virtual dataset", path);
}

gboolean
hostile_h5_unwritten (const char *path, const char *name, guint64 rows, guint64 cols,
                      GError **error)
{
  H5Eset_auto2 (H5E_DEFAULT, NULL, NULL);
  hid_t file = H5Fopen (path, H5F_ACC_RDWR, H5P_DEFAULT);
  gboolean ok = file >= 0;
  if (ok && H5Lexists (file, name, H5P_DEFAULT) > 0)
    ok = H5Ldelete (file, name, H5P_DEFAULT) >= 0;
  hsize_t dims[2] = { rows, cols }, chunk[2] = { MIN (rows, 8192), cols };
  hid_t space = H5Screate_simple (2, dims, NULL);
  hid_t dcpl = H5Pcreate (H5P_DATASET_CREATE);
  hid_t lcpl = H5Pcreate (H5P_LINK_CREATE);
  H5Pset_create_intermediate_group (lcpl, 1);
  ok = ok && H5Pset_chunk (dcpl, 2, chunk) >= 0;
  hid_t dset = ok ? H5Dcreate2 (file, name, H5T_IEEE_F32LE, space, lcpl, dcpl, H5P_DEFAULT)
                  : H5I_INVALID_HID;
  ok = ok && dset >= 0;
  if (dset >= 0)
    H5Dclose (dset);
  H5Pclose (lcpl);
  H5Pclose (dcpl);
  H5Sclose (space);
  if (file >= 0)
    H5Fclose (file);
  return ok || fail (error, "make an unwritten dataset", path);
}

/* Adds NAME (relative to the group) to the group's weight_names. */
static gboolean
add_weight_name (const char *path, const char *group_name, const char *name, GError **error)
{
  hid_t file = H5Fopen (path, H5F_ACC_RDWR, H5P_DEFAULT);
  hid_t group = file >= 0 ? H5Gopen2 (file, group_name, H5P_DEFAULT) : H5I_INVALID_HID;
  hid_t attr = group >= 0 ? H5Aopen (group, "weight_names", H5P_DEFAULT) : H5I_INVALID_HID;
  hid_t type = attr >= 0 ? H5Aget_type (attr) : H5I_INVALID_HID;
  hid_t space = attr >= 0 ? H5Aget_space (attr) : H5I_INVALID_HID;
  gboolean ok = type >= 0 && space >= 0 && !H5Tis_variable_str (type);
  gsize width = ok ? H5Tget_size (type) : 0;
  hssize_t n = ok ? H5Sget_simple_extent_npoints (space) : 0;
  gsize new_width = MAX (width, strlen (name));
  g_autofree char *old = g_malloc0 (n * width + 1);
  g_autofree char *all = g_malloc0 ((n + 1) * new_width);
  ok = ok && H5Aread (attr, type, old) >= 0;
  for (hssize_t i = 0; ok && i < n; i++)
    memcpy (all + i * new_width, old + i * width, width);
  memcpy (all + n * new_width, name, strlen (name));
  if (type >= 0)
    H5Tclose (type);
  if (space >= 0)
    H5Sclose (space);
  if (attr >= 0)
    H5Aclose (attr);
  ok = ok && H5Adelete (group, "weight_names") >= 0;
  hid_t new_type = H5Tcopy (H5T_C_S1);
  H5Tset_size (new_type, new_width);
  H5Tset_strpad (new_type, H5T_STR_NULLPAD);
  hsize_t dims[1] = { (hsize_t) n + 1 };
  hid_t new_space = H5Screate_simple (1, dims, NULL);
  hid_t new_attr
      = ok ? H5Acreate2 (group, "weight_names", new_type, new_space, H5P_DEFAULT, H5P_DEFAULT)
           : H5I_INVALID_HID;
  ok = ok && new_attr >= 0 && H5Awrite (new_attr, new_type, all) >= 0;
  if (new_attr >= 0)
    H5Aclose (new_attr);
  H5Sclose (new_space);
  H5Tclose (new_type);
  if (group >= 0)
    H5Gclose (group);
  if (file >= 0)
    H5Fclose (file);
  return ok || fail (error, "add to weight_names", path);
}

char *
hostile_json_nested (const char *object, int depth)
{
  const char *brace = strchr (object, '{');
  g_assert (brace != NULL);
  GString *s = g_string_sized_new (strlen (object) + 2 * (gsize) depth + 16);
  g_string_append (s, "{\"x\": ");
  for (int i = 0; i < depth; i++)
    g_string_append_c (s, '[');
  for (int i = 0; i < depth; i++)
    g_string_append_c (s, ']');
  g_string_append (s, ", ");
  g_string_append (s, brace + 1);
  return g_string_free (s, FALSE);
}

/* Replaces the file FILE of DIR by a FIFO. */
static gboolean
make_fifo (const char *dir, const char *file, GError **error)
{
  g_autofree char *path = g_build_filename (dir, file, NULL);
  g_unlink (path);
  if (mkfifo (path, 0644) != 0)
    {
      g_set_error (error, HOSTILE_ERROR, 1, "mkfifo %s: %s", path, g_strerror (errno));
      return FALSE;
    }
  return TRUE;
}

/* Rewrites FILE of DIR with TRANSFORM (the old contents in, the new out). */
static gboolean
rewrite (const char *dir, const char *file, char *(*transform) (const char *old), GError **error)
{
  g_autofree char *path = g_build_filename (dir, file, NULL);
  g_autofree char *old = NULL;
  if (!g_file_get_contents (path, &old, NULL, error))
    return FALSE;
  g_autofree char *text = transform (old);
  return g_file_set_contents (path, text, -1, error);
}

static char *
nest_100000 (const char *old)
{
  return hostile_json_nested (old, 100000);
}

static char *
pad_to_100_mb (const char *old)
{
  gsize n = 100u << 20;
  char *text = g_malloc (n + 1);
  memset (text, ' ', n);
  memcpy (text, old, strlen (old));
  text[n] = '\0';
  return text;
}

static char *
n_layer_nul (const char *old)
{
  GString *s = g_string_new (old);
  g_assert (g_string_replace (s, "\"n_layer\" : 2", "\"n_layer\\u0000x\" : 7, \"n_layer\" : 2", 1)
            == 1);
  return g_string_free (s, FALSE);
}

/* The weights as a sharded checkpoint whose one shard is BROKEN: the weight map's shard name
 * gets "\u0000x", or the shard is a symbolic link to merges.txt. */
static gboolean
broken_shards (const char *dir, HostileCase broken, GError **error)
{
  const char *shard = "model-00001-of-00001.safetensors";
  const char *suffix = broken == HOSTILE_INDEX_NUL_SHARD ? "\\u0000x" : "";
  g_autofree char *index = g_strdup_printf (
      "{\"metadata\": {}, \"weight_map\": {\"wte.weight\": \"%s%s\"}}", shard, suffix);
  g_autofree char *index_path = g_build_filename (dir, "model.safetensors.index.json", NULL);
  if (!g_file_set_contents (index_path, index, -1, error))
    return FALSE;
  if (broken != HOSTILE_SHARD_TEXT_LINK)
    return TRUE;
  g_autofree char *link = g_build_filename (dir, shard, NULL);
  if (symlink ("merges.txt", link) != 0)
    return fail (error, "make a symbolic link", link);
  return TRUE;
}

/* A model.safetensors whose header's one entry is named "wte.weight\u0000x". */
static gboolean
safetensors_nul_key (const char *dir, GError **error)
{
  const char *header = "{\"wte.weight\\u0000x\":{\"dtype\":\"F32\",\"shape\":[1],"
                       "\"data_offsets\":[0,4]}}";
  guint64 n = GUINT64_TO_LE ((guint64) strlen (header));
  g_autoptr (GString) file = g_string_new_len ((const char *) &n, 8);
  g_string_append (file, header);
  g_string_append_len (file, "\0\0\0\0", 4);
  g_autofree char *path = g_build_filename (dir, "model.safetensors", NULL);
  return g_file_set_contents (path, file->str, (gssize) file->len, error);
}

static char *
n_layer_2_63 (const char *old)
{
  GString *s = g_string_new (old);
  g_assert (g_string_replace (s, "\"n_layer\" : 2", "\"n_layer\" : 9223372036854775808", 1) == 1);
  return g_string_free (s, FALSE);
}

/* The 12 GB dataset of the attack's recipe: 3e9 / 128 rows of 128 floats in 8192-row chunks. */
#define HUGE_ROWS (G_GUINT64_CONSTANT (3000000000) / 128)

/* wte as 12 GB that config.json agrees with (vocab_size 9,375,000 of width 320, within the
 * config's limits), chunked and never written. */
static gboolean
huge_needed (const char *dir, const char *h5, GError **error)
{
  FixtureModelSpec spec;
  fixture_model_spec_init (&spec);
  spec.n_embd = 320;
  spec.n_layer = 1;
  const char *set[] = { "vocab_size=9375000", NULL };
  spec.config_set = set;
  return fixture_model_write (dir, &spec, error)
         && hostile_h5_unwritten (h5, WTE, 9375000, 320, error);
}

/* Points ln_f/beta:0's contiguous data past the end of the file: its address field in the
 * layout message is found by value (H5Dget_offset) and patched. */
static gboolean
offset_outside (const char *h5, GError **error)
{
  hid_t file = H5Fopen (h5, H5F_ACC_RDONLY, H5P_DEFAULT);
  hid_t dset = file >= 0 ? H5Dopen2 (file, LN_F_BETA, H5P_DEFAULT) : H5I_INVALID_HID;
  haddr_t offset = dset >= 0 ? H5Dget_offset (dset) : HADDR_UNDEF;
  if (dset >= 0)
    H5Dclose (dset);
  if (file >= 0)
    H5Fclose (file);
  g_autofree char *bytes = NULL;
  gsize n = 0;
  if (offset == HADDR_UNDEF || !g_file_get_contents (h5, &bytes, &n, error))
    return fail (error, "find ln_f/beta:0", h5);
  guint64 le = GUINT64_TO_LE ((guint64) offset), far = GUINT64_TO_LE ((guint64) n * 4);
  int found = 0;
  for (gsize i = 0; i + 8 <= n; i++)
    if (memcmp (bytes + i, &le, 8) == 0 && i != offset)
      {
        memcpy (bytes + i, &far, 8);
        found++;
      }
  if (found == 0)
    return fail (error, "find the address of ln_f/beta:0", h5);
  return g_file_set_contents (h5, bytes, (gssize) n, error);
}

gboolean
hostile_folder_write (const char *dir, HostileCase c, GError **error)
{
  FixtureModelSpec spec;
  fixture_model_spec_init (&spec);
  g_autofree char *h5 = g_build_filename (dir, "tf_model.h5", NULL);
  if (c == HOSTILE_HUGE_NEEDED)
    return huge_needed (dir, h5, error);
  if (c == HOSTILE_SAFETENSORS_FIFO)
    {
      spec.write_h5 = FALSE;
      spec.write_safetensors = TRUE;
      return fixture_model_write (dir, &spec, error) && make_fifo (dir, "model.safetensors", error);
    }
  if (c == HOSTILE_SAFETENSORS_NUL_KEY || c == HOSTILE_INDEX_NUL_SHARD
      || c == HOSTILE_SHARD_TEXT_LINK)
    {
      spec.write_h5 = FALSE;
      if (!fixture_model_write (dir, &spec, error))
        return FALSE;
      return c == HOSTILE_SAFETENSORS_NUL_KEY ? safetensors_nul_key (dir, error)
                                              : broken_shards (dir, c, error);
    }
  if (!fixture_model_write (dir, &spec, error))
    return FALSE;
  switch (c)
    {
    case HOSTILE_VDS_SELF:
      return hostile_h5_vds_self (h5, WTE, error);
    case HOSTILE_EXTERNAL_LINK:
      return hostile_h5_external_link (h5, LN_F_BETA, "other.h5", error);
    case HOSTILE_SOFT_LINK:
      {
        hid_t file = H5Fopen (h5, H5F_ACC_RDWR, H5P_DEFAULT);
        gboolean ok
            = file >= 0 && H5Ldelete (file, LN_F_BETA, H5P_DEFAULT) >= 0
              && H5Lcreate_soft ("/" LN_F_BETA, file, LN_F_BETA, H5P_DEFAULT, H5P_DEFAULT) >= 0;
        if (file >= 0)
          H5Fclose (file);
        return ok || fail (error, "make a soft link", h5);
      }
    case HOSTILE_EXTERNAL_PASSWD:
      return hostile_h5_external_storage (h5, LN_F_BETA, "/etc/passwd", error);
    case HOSTILE_EXTERNAL_ZERO:
      return hostile_h5_external_storage (h5, LN_F_BETA, "/dev/zero", error);
    case HOSTILE_EXTERNAL_FIFO:
      {
        g_autofree char *fifo = g_build_filename (dir, "fifo", NULL);
        if (mkfifo (fifo, 0644) != 0)
          return fail (error, "make a FIFO", fifo);
        return hostile_h5_external_storage (h5, LN_F_BETA, fifo, error);
      }
    case HOSTILE_HUGE_UNUSED:
      return hostile_h5_unwritten (h5, KERAS_PREFIX "huge:0", HUGE_ROWS, 128, error)
             && add_weight_name (h5, "transformer", "tfgp_t2lm_head_model/transformer/huge:0",
                                 error);
    case HOSTILE_OFFSET_OUTSIDE:
      return offset_outside (h5, error);
    case HOSTILE_CONFIG_NESTED:
      return rewrite (dir, "config.json", nest_100000, error);
    case HOSTILE_VOCAB_NESTED:
      return rewrite (dir, "vocab.json", nest_100000, error);
    case HOSTILE_CONFIG_HUGE:
      return rewrite (dir, "config.json", pad_to_100_mb, error);
    case HOSTILE_CONFIG_2_63:
      return rewrite (dir, "config.json", n_layer_2_63, error);
    case HOSTILE_CONFIG_NUL_KEY:
      return rewrite (dir, "config.json", n_layer_nul, error);
    case HOSTILE_CONFIG_FIFO:
      return make_fifo (dir, "config.json", error);
    case HOSTILE_VOCAB_FIFO:
      return make_fifo (dir, "vocab.json", error);
    case HOSTILE_MERGES_FIFO:
      return make_fifo (dir, "merges.txt", error);
    case HOSTILE_WEIGHTS_FIFO:
      return make_fifo (dir, "tf_model.h5", error);
    case HOSTILE_HUGE_NEEDED:
    case HOSTILE_SAFETENSORS_FIFO:
    case HOSTILE_SAFETENSORS_NUL_KEY:
    case HOSTILE_INDEX_NUL_SHARD:
    case HOSTILE_SHARD_TEXT_LINK:
    case HOSTILE_N_CASES:
      break;
    }
  g_assert_not_reached ();
}

static gboolean
copy_file (const char *from, const char *to, GError **error)
{
  g_autofree char *contents = NULL;
  gsize n = 0;
  return g_file_get_contents (from, &contents, &n, error)
         && g_file_set_contents (to, contents, (gssize) n, error);
}

gboolean
hostile_fuzzed_folder_write (const char *dir, const char *source_dir, const char *h5,
                             GError **error)
{
  g_autofree char *model
      = g_build_filename (source_dir, "data", "models", "seed-single-head", NULL);
  g_autofree char *config = g_build_filename (model, "config.json", NULL);
  g_autofree char *vocab = g_build_filename (model, "vocab.json", NULL);
  g_autofree char *config_to = g_build_filename (dir, "config.json", NULL);
  g_autofree char *vocab_to = g_build_filename (dir, "vocab.json", NULL);
  g_autofree char *h5_to = g_build_filename (dir, "tf_model.h5", NULL);
  if (g_mkdir_with_parents (dir, 0755) != 0)
    return fail (error, "create the folder", dir);
  return copy_file (config, config_to, error) && copy_file (vocab, vocab_to, error)
         && copy_file (h5, h5_to, error);
}

static gint
compare_paths (gconstpointer a, gconstpointer b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

GPtrArray *
hostile_fuzzed_files (const char *source_dir)
{
  g_autofree char *folder
      = g_build_filename (source_dir, "tests", "fuzz", "regressions", "keras-h5", NULL);
  GPtrArray *files = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GDir) d = g_dir_open (folder, 0, NULL);
  for (const char *n; d != NULL && (n = g_dir_read_name (d)) != NULL;)
    g_ptr_array_add (files, g_build_filename (folder, n, NULL));
  g_ptr_array_sort (files, compare_paths);
  return files;
}
