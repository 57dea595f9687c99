/* trace-dump.c — a trace written to HDF5 under the names of the command-line contract.
 *
 * The file is first written under a temporary name beside the target and renamed over it only
 * when every dataset was written and the file closed, so a failure never leaves a partial file. */
#include "as-trace-dump.h"

#include <hdf5.h>

#include "as-error.h"
#include "h5-write-private.h"

static gboolean
write_string_attribute (hid_t file, const char *name, const char *value, GError **error)
{
  hid_t type = H5Tcopy (H5T_C_S1);
  H5Tset_size (type, H5T_VARIABLE);
  H5Tset_cset (type, H5T_CSET_UTF8);
  hid_t space = H5Screate (H5S_SCALAR);
  hid_t attr = H5Acreate2 (file, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
  herr_t status = attr < 0 ? -1 : H5Awrite (attr, type, &value);
  if (attr >= 0)
    H5Aclose (attr);
  H5Sclose (space);
  H5Tclose (type);
  if (status < 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_IO, "could not write attribute '%s'", name);
      return FALSE;
    }
  return TRUE;
}

/* IDS [N] as an int64 dataset NAME. */
static gboolean
write_ids (hid_t file, const char *name, const int32_t *ids, hsize_t n, GError **error)
{
  g_autofree gint64 *ids64 = g_new (gint64, MAX (n, 1)); /* [N] */
  for (hsize_t i = 0; i < n; i++)
    ids64[i] = ids[i];
  return as_h5_write_dataset (file, name, H5T_STD_I64LE, ids64, 1, &n, error);
}

/* TOKENS [N] as a dataset NAME of UTF-8 strings. */
static gboolean
write_tokens (hid_t file, const char *name, char **tokens, hsize_t n, GError **error)
{
  hid_t str_type = H5Tcopy (H5T_C_S1);
  H5Tset_size (str_type, H5T_VARIABLE);
  H5Tset_cset (str_type, H5T_CSET_UTF8);
  gboolean ok = as_h5_write_dataset (file, name, str_type, tokens, 1, &n, error);
  H5Tclose (str_type);
  return ok;
}

/* Rows of one head written at a time, and the chunk's rows: 256 × T floats (8 MB at T = 8,192). */
#define DUMP_ROW_BLOCK 256

/* Writes the self-attention of T as a new dataset NAME [L][H][T][T], chunked [1][1][256][T] and
 * written block by block from as_trace_attention_tile(), so that a trace that computes attention
 * on demand never needs all of it in memory. Fails with AS_ERROR_IO naming the dataset. */
static gboolean
write_attention (hid_t file, const char *name, const AsTrace *t, GError **error)
{
  hsize_t L = t->n_layer, H = t->n_head, T = t->n_tokens, rows = MIN (T, DUMP_ROW_BLOCK);
  hsize_t dims[] = { L, H, T, T }, chunk[] = { 1, 1, rows, T };
  hid_t space = H5Screate_simple (4, dims, NULL);
  hid_t plist = H5Pcreate (H5P_DATASET_CREATE);
  herr_t status = space < 0 || plist < 0 ? -1 : H5Pset_chunk (plist, 4, chunk);
  hid_t dset = status < 0 ? H5I_INVALID_HID
                          : H5Dcreate2 (file, name, H5T_IEEE_F32LE, space, H5P_DEFAULT, plist,
                                        H5P_DEFAULT);
  status = dset < 0 ? -1 : 0;
  g_autofree float *block = g_new (float, rows *T); /* [rows][T] */
  for (hsize_t e = 0; status >= 0 && e < L * H; e++)
    for (hsize_t r0 = 0; status >= 0 && r0 < T; r0 += rows)
      {
        hsize_t n = MIN (rows, T - r0);
        as_trace_attention_tile (t, e / H, e % H, r0, n, 0, T, block, T);
        hsize_t start[] = { e / H, e % H, r0, 0 }, count[] = { 1, 1, n, T };
        hid_t memory = H5Screate_simple (4, count, NULL);
        status = memory < 0 ? -1
                            : H5Sselect_hyperslab (space, H5S_SELECT_SET, start, NULL, count, NULL);
        if (status >= 0)
          status = H5Dwrite (dset, H5T_NATIVE_FLOAT, memory, space, H5P_DEFAULT, block);
        if (memory >= 0)
          H5Sclose (memory);
      }
  if (dset >= 0)
    H5Dclose (dset);
  if (plist >= 0)
    H5Pclose (plist);
  if (space >= 0)
    H5Sclose (space);
  if (status < 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_IO, "could not write dataset '%s'", name);
      return FALSE;
    }
  return TRUE;
}

/* An encoder–decoder trace: both stacks and the cross-attention, with the names of transformers'
 * Seq2SeqLMOutput (encoder_attentions, decoder_attentions, cross_attentions, ...). */
static gboolean
write_translation (hid_t file, const AsTrace *t, GError **error)
{
  const AsTrace *e = t->source;
  hsize_t L = t->n_layer, H = t->n_head, T = t->n_tokens, D = t->d_model, V = t->vocab_size;
  hsize_t Le = e->n_layer, S = e->n_tokens;
  hsize_t cross[] = { L, H, T, S };
  hsize_t enc_hidden[] = { Le + 1, S, D }, dec_hidden[] = { L + 1, T, D }, logits[] = { T, V };
  return write_ids (file, "source_ids", e->ids, S, error)
         && write_ids (file, "target_ids", t->ids, T, error)
         && write_tokens (file, "source_tokens", e->tokens, S, error)
         && write_tokens (file, "target_tokens", t->tokens, T, error)
         && write_attention (file, "encoder_attentions", e, error)
         && write_attention (file, "decoder_attentions", t, error)
         && as_h5_write_dataset (file, "cross_attentions", H5T_IEEE_F32LE, t->cross_attn, 4, cross,
                                 error)
         && as_h5_write_dataset (file, "encoder_hidden_states", H5T_IEEE_F32LE, e->hidden, 3,
                                 enc_hidden, error)
         && as_h5_write_dataset (file, "decoder_hidden_states", H5T_IEEE_F32LE, t->hidden, 3,
                                 dec_hidden, error)
         && as_h5_write_dataset (file, "logits", H5T_IEEE_F32LE, t->logits, 2, logits, error);
}

static gboolean
write_trace (hid_t file, const AsTrace *t, const char *model_name, const char *architecture,
             GError **error)
{
  hsize_t L = t->n_layer, H = t->n_head, T = t->n_tokens, D = t->d_model, hd = t->head_dim;
  hsize_t V = t->vocab_size;

  gint64 *ids64 = g_new (gint64, T); /* [T] */
  for (hsize_t i = 0; i < T; i++)
    ids64[i] = t->ids[i];
  gboolean ok = as_h5_write_dataset (file, "token_ids", H5T_STD_I64LE, ids64, 1, &T, error);
  for (hsize_t i = 0; t->type_ids != NULL && i < T; i++)
    ids64[i] = t->type_ids[i];
  if (t->type_ids != NULL)
    ok = ok && as_h5_write_dataset (file, "token_type_ids", H5T_STD_I64LE, ids64, 1, &T, error);
  g_free (ids64);

  hid_t str_type = H5Tcopy (H5T_C_S1);
  H5Tset_size (str_type, H5T_VARIABLE);
  H5Tset_cset (str_type, H5T_CSET_UTF8);
  ok = ok && as_h5_write_dataset (file, "tokens", str_type, t->tokens, 1, &T, error);
  H5Tclose (str_type);

  hsize_t hidden_dims[] = { L + 1, T, D };
  hsize_t ctx_dims[] = { L, H, T, hd };
  hsize_t logits_dims[] = { T, V };
  ok = ok && write_attention (file, "attentions", t, error);
  ok = ok
       && as_h5_write_dataset (file, "hidden_states", H5T_IEEE_F32LE, t->hidden, 3, hidden_dims,
                               error);
  ok = ok && as_h5_write_dataset (file, "contexts", H5T_IEEE_F32LE, t->ctx, 4, ctx_dims, error);
  if (V > 0)
    ok = ok
         && as_h5_write_dataset (file, "logits", H5T_IEEE_F32LE, t->logits, 2, logits_dims, error);
  ok = ok && write_string_attribute (file, "model", model_name, error);
  ok = ok && write_string_attribute (file, "architecture", architecture, error);
  return ok;
}

gboolean
as_trace_dump_h5 (const AsTrace *trace, const char *model_name, const char *architecture,
                  const char *path, AsOutputFlags flags, GError **error)
{
  g_return_val_if_fail (trace != NULL && path != NULL, FALSE);
  g_return_val_if_fail (trace->vocab_size == 0 || trace->logits_rows == trace->n_tokens, FALSE);
  AsH5Atomic atomic;
  if (!as_h5_atomic_begin (&atomic, path, flags, error))
    return FALSE;
  GError *local = NULL;
  gboolean ok = trace->source != NULL
                    ? write_translation (atomic.file, trace, &local)
                          && write_string_attribute (atomic.file, "model",
                                                     model_name ? model_name : "", &local)
                          && write_string_attribute (atomic.file, "architecture",
                                                     architecture ? architecture : "", &local)
                    : write_trace (atomic.file, trace, model_name ? model_name : "",
                                   architecture ? architecture : "", &local);
  if (!as_h5_atomic_end (&atomic, ok, ok ? error : NULL) || !ok)
    {
      if (local != NULL)
        g_propagate_prefixed_error (error, local, "%s: ", path);
      return FALSE;
    }
  return TRUE;
}
