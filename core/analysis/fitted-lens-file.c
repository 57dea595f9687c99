/* fitted-lens-file.c — a fitted lens in an HDF5 file (as-lens.h; core/analysis/README.md "Fitted
 * lens"): maps [L·(D+1)][D] float32   the maps of hidden states 0..L-1, each [D+1][D] (row D =
 * bias) kl [2][L] float64           the held-out KL of the logit lens (row 0) and the fitted lens
 *   info [1][6] float64         ridge, training lines and positions, held-out lines and
 *                               positions, the format version (1)
 *   model_name [1][n] uint8     the model's name, UTF-8
 *   model_fingerprint [1][64] uint8   as_shard_model_fingerprint of the model's folder, hex
 * The file is read through the HDF5 child of as-matrix-h5.h (a file from anyone). */
#include "as-lens.h"

#include <hdf5.h>
#include <string.h>

#include "as-error.h"
#include "as-matrix-h5.h"
#include "as-shard.h"
#include "h5-write-private.h"

#define FITTED_LENS_VERSION 1

static gboolean
write_all (hid_t file, const AsFittedLens *lens, GError **error)
{
  int L = lens->n_layer, D = lens->d_model;
  g_autofree double *kl = g_new (double, 2 * L);
  memcpy (kl, lens->kl_logit, sizeof (double) * L);
  memcpy (kl + L, lens->kl_fitted, sizeof (double) * L);
  double info[6] = { lens->ridge,           lens->n_train_lines,       lens->n_train_positions,
                     lens->n_heldout_lines, lens->n_heldout_positions, FITTED_LENS_VERSION };
  hsize_t maps_dims[2] = { (hsize_t) L * (D + 1), (hsize_t) D };
  hsize_t kl_dims[2] = { 2, (hsize_t) L }, info_dims[2] = { 1, 6 };
  hsize_t name_dims[2] = { 1, strlen (lens->model_name) };
  hsize_t print_dims[2] = { 1, strlen (lens->model_fingerprint) };
  return as_h5_write_dataset (file, "maps", H5T_IEEE_F32LE, lens->maps, 2, maps_dims, error)
         && as_h5_write_dataset (file, "kl", H5T_IEEE_F64LE, kl, 2, kl_dims, error)
         && as_h5_write_dataset (file, "info", H5T_IEEE_F64LE, info, 2, info_dims, error)
         && as_h5_write_dataset (file, "model_name", H5T_STD_U8LE, lens->model_name, 2, name_dims,
                                 error)
         && as_h5_write_dataset (file, "model_fingerprint", H5T_STD_U8LE, lens->model_fingerprint,
                                 2, print_dims, error);
}

gboolean
as_fitted_lens_save (const AsFittedLens *lens, const char *path, gboolean force, GError **error)
{
  g_return_val_if_fail (lens != NULL && path != NULL, FALSE);
  AsH5Atomic atomic;
  if (!as_h5_atomic_begin (&atomic, path, force ? AS_OUTPUT_FORCE : AS_OUTPUT_DEFAULT, error))
    return FALSE;
  GError *local = NULL;
  gboolean ok = write_all (atomic.file, lens, &local);
  if (!as_h5_atomic_end (&atomic, ok, ok ? error : NULL) || !ok)
    {
      if (local != NULL)
        g_propagate_prefixed_error (error, local, "%s: ", path);
      return FALSE;
    }
  return TRUE;
}

/* Dataset NAME of PATH as a string of bytes [1][n] (the reader gives them as floats). */
static char *
read_bytes (const char *path, const char *name, GError **error)
{
  int rows = 0, cols = 0;
  g_autofree float *v = as_matrix_h5_read (path, name, &rows, &cols, error);
  if (v == NULL)
    return NULL;
  char *out = g_new0 (char, (gsize) rows *cols + 1);
  for (gsize i = 0; i < (gsize) rows * cols; i++)
    out[i] = (char) (int) v[i];
  return out;
}

static float *
read_shaped (const char *path, const char *name, int want_rows, int want_cols, GError **error)
{
  int rows = 0, cols = 0;
  float *v = as_matrix_h5_read (path, name, &rows, &cols, error);
  if (v != NULL && (rows != want_rows || cols != want_cols))
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "%s: dataset '%s' is [%d][%d]; the model needs [%d][%d]", path, name, rows, cols,
                   want_rows, want_cols);
      g_clear_pointer (&v, g_free);
    }
  return v;
}

/* Refuses a lens of another model than MODEL, naming both. */
static gboolean
check_model (const char *path, const AsFittedLens *lens, AsModel *model, GError **error)
{
  g_autofree char *fingerprint = as_shard_model_fingerprint (as_model_get_path (model), error);
  if (fingerprint == NULL)
    return FALSE;
  if (g_str_equal (fingerprint, lens->model_fingerprint))
    return TRUE;
  g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
               "%s is a lens of the model %s (fingerprint %.12s), not of %s (fingerprint %.12s)",
               path, lens->model_name, lens->model_fingerprint, as_model_get_name (model),
               fingerprint);
  return FALSE;
}

AsFittedLens *
as_fitted_lens_load (const char *path, AsModel *model, GError **error)
{
  g_return_val_if_fail (path != NULL && model != NULL, NULL);
  const AsConfig *c = as_model_get_config (model);
  int L = c->n_layer, D = c->n_embd;
  g_autoptr (AsFittedLens) lens = g_new0 (AsFittedLens, 1);
  lens->n_layer = L;
  lens->d_model = D;
  if ((lens->model_name = read_bytes (path, "model_name", error)) == NULL
      || (lens->model_fingerprint = read_bytes (path, "model_fingerprint", error)) == NULL
      || !check_model (path, lens, model, error))
    return NULL;
  g_autofree float *info = read_shaped (path, "info", 1, 6, error);
  g_autofree float *kl = info != NULL ? read_shaped (path, "kl", 2, L, error) : NULL;
  if (kl == NULL || (lens->maps = read_shaped (path, "maps", L * (D + 1), D, error)) == NULL)
    return NULL;
  if ((int) info[5] != FITTED_LENS_VERSION)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_INPUT,
                   "%s: a fitted lens of format version %g; this attnscope reads version %d", path,
                   info[5], FITTED_LENS_VERSION);
      return NULL;
    }
  lens->ridge = info[0];
  lens->n_train_lines = (int) info[1];
  lens->n_train_positions = (int) info[2];
  lens->n_heldout_lines = (int) info[3];
  lens->n_heldout_positions = (int) info[4];
  lens->kl_logit = g_new (double, L);
  lens->kl_fitted = g_new (double, L);
  for (int i = 0; i < L; i++)
    lens->kl_logit[i] = kl[i], lens->kl_fitted[i] = kl[L + i];
  return g_steal_pointer (&lens);
}
