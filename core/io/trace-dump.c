/* trace-dump.c — a trace written to HDF5 under the names of the command-line contract.
 *
 * The file is first written under a temporary name beside the target and renamed over it only
 * when every dataset was written and the file closed, so a failure never leaves a partial file. */
#include "as-trace-dump.h"

#include <hdf5.h>
#include <string.h>

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

/* The layers and heads a dataset of [L][H][…] keeps: SELECTION's, else all of L and H. */
typedef struct
{
  int n_layers, n_heads;
  int *layers, *heads; /* [n_layers], [n_heads]: indices into the trace's L and H */
  gboolean chosen;     /* a selection was given: the dataset says which (attributes) */
} Pick;

static int *
pick_list (const int *given, int n_given, int all, int *n)
{
  *n = given != NULL ? n_given : all;
  int *list = g_new (int, MAX (*n, 1));
  for (int i = 0; i < *n; i++)
    list[i] = given != NULL ? given[i] : i;
  return list;
}

static void
pick_init (Pick *pick, const AsTraceDumpSelection *selection, int L, int H)
{
  gboolean any = selection != NULL;
  pick->layers = pick_list (any ? selection->layers : NULL, any ? selection->n_layers : 0, L,
                            &pick->n_layers);
  pick->heads
      = pick_list (any ? selection->heads : NULL, any ? selection->n_heads : 0, H, &pick->n_heads);
  pick->chosen = any && (selection->layers != NULL || selection->heads != NULL);
}

static void
pick_clear (Pick *pick)
{
  g_free (pick->layers);
  g_free (pick->heads);
}

/* The attributes `layers` and `heads` (int64 [n]) of dataset DSET: the trace's layer and head
 * each index of its first two axes stands for. */
static herr_t
write_pick_attributes (hid_t dset, const Pick *pick)
{
  herr_t status = 0;
  const int *lists[] = { pick->layers, pick->heads };
  const int sizes[] = { pick->n_layers, pick->n_heads };
  const char *names[] = { "layers", "heads" };
  for (int k = 0; k < 2 && status >= 0; k++)
    {
      g_autofree gint64 *values = g_new (gint64, MAX (sizes[k], 1)); /* [n] */
      for (int i = 0; i < sizes[k]; i++)
        values[i] = lists[k][i];
      hsize_t n = sizes[k];
      hid_t space = H5Screate_simple (1, &n, NULL);
      hid_t attr
          = space < 0 ? H5I_INVALID_HID
                      : H5Acreate2 (dset, names[k], H5T_STD_I64LE, space, H5P_DEFAULT, H5P_DEFAULT);
      status = attr < 0 ? -1 : H5Awrite (attr, H5T_NATIVE_INT64, values);
      if (attr >= 0)
        H5Aclose (attr);
      if (space >= 0)
        H5Sclose (space);
    }
  return status;
}

/* Where a dataset of [layers][heads][rows][cols] float32 gets its rows: an AsTrace's attention
 * computed tile by tile, or an array [L][H][rows][cols] in memory. */
typedef struct
{
  const AsTrace *trace; /* attention through as_trace_attention_tile(), or NULL */
  const float *array;   /* [L][H][rows][cols] when trace is NULL */
  int n_head;           /* the array's H */
} HeadSource;

static void
read_rows (const HeadSource *src, int l, int h, hsize_t r0, hsize_t n, hsize_t rows, hsize_t cols,
           float *block)
{
  if (src->trace != NULL)
    as_trace_attention_tile (src->trace, l, h, (int) r0, (int) n, 0, (int) cols, block, (int) cols);
  else
    memcpy (block, src->array + (((gsize) l * src->n_head + h) * rows + r0) * cols,
            sizeof (float) * n * cols);
}

/* Writes BLOCK (float, COUNT [RANK] elements) to the part of DSET (of dataspace SPACE) that starts
 * at START; the HDF5 status. */
static herr_t
write_block (hid_t dset, hid_t space, int rank, const hsize_t *start, const hsize_t *count,
             const float *block)
{
  hid_t memory = H5Screate_simple (rank, count, NULL);
  herr_t status
      = memory < 0 ? -1 : H5Sselect_hyperslab (space, H5S_SELECT_SET, start, NULL, count, NULL);
  if (status >= 0)
    status = H5Dwrite (dset, H5T_NATIVE_FLOAT, memory, space, H5P_DEFAULT, block);
  if (memory >= 0)
    H5Sclose (memory);
  return status;
}

/* Writes dataset NAME [picked layers][picked heads][ROWS][COLS] from SRC, chunked
 * [1][1][≤ 256][COLS] and written a block of rows of one head at a time (the layers in order), so
 * that attention computed on demand never needs more than one block in memory; with a selection,
 * the attributes say which layers and heads it holds. Fails with AS_ERROR_IO naming it. */
static gboolean
write_heads (hid_t file, const char *name, const HeadSource *src, const Pick *pick, hsize_t rows,
             hsize_t cols, GError **error)
{
  hsize_t nl = pick->n_layers, nh = pick->n_heads, block_rows = MIN (rows, DUMP_ROW_BLOCK);
  hsize_t dims[] = { nl, nh, rows, cols }, chunk[] = { 1, 1, MAX (block_rows, 1), MAX (cols, 1) };
  hid_t space = H5Screate_simple (4, dims, NULL);
  hid_t plist = H5Pcreate (H5P_DATASET_CREATE);
  herr_t status = space < 0 || plist < 0      ? -1
                  : nl * nh * rows * cols > 0 ? H5Pset_chunk (plist, 4, chunk)
                                              : 0;
  hid_t dset = status < 0 ? H5I_INVALID_HID
                          : H5Dcreate2 (file, name, H5T_IEEE_F32LE, space, H5P_DEFAULT, plist,
                                        H5P_DEFAULT);
  status = dset < 0 ? -1 : 0;
  if (status >= 0 && pick->chosen)
    status = write_pick_attributes (dset, pick);
  g_autofree float *block = g_new (float, MAX (block_rows * cols, 1)); /* [block_rows][cols] */
  for (hsize_t e = 0; status >= 0 && e < nl * nh; e++)
    for (hsize_t r0 = 0; status >= 0 && r0 < rows; r0 += block_rows)
      {
        hsize_t n = MIN (block_rows, rows - r0);
        read_rows (src, pick->layers[e / nh], pick->heads[e % nh], r0, n, rows, cols, block);
        hsize_t start[] = { e / nh, e % nh, r0, 0 }, count[] = { 1, 1, n, cols };
        status = write_block (dset, space, 4, start, count, block);
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

/* The self-attention of T [picked L][picked H][T][T], computed block by block. */
static gboolean
write_attention (hid_t file, const char *name, const AsTrace *t,
                 const AsTraceDumpSelection *selection, GError **error)
{
  Pick pick;
  pick_init (&pick, selection, t->n_layer, t->n_head);
  HeadSource src = { .trace = t };
  gboolean ok = write_heads (file, name, &src, &pick, t->n_tokens, t->n_tokens, error);
  pick_clear (&pick);
  return ok;
}

/* ARRAY [L][H][ROWS][COLS] of T (contexts, cross-attention) restricted to the selection. */
static gboolean
write_head_array (hid_t file, const char *name, const AsTrace *t, const float *array, hsize_t rows,
                  hsize_t cols, const AsTraceDumpSelection *selection, GError **error)
{
  Pick pick;
  pick_init (&pick, selection, t->n_layer, t->n_head);
  HeadSource src = { .array = array, .n_head = t->n_head };
  gboolean ok = write_heads (file, name, &src, &pick, rows, cols, error);
  pick_clear (&pick);
  return ok;
}

/* Where the `logits` dataset gets rows the trace does not hold (as_trace_dump_h5_streamed). */
typedef struct
{
  AsTraceDumpLogitsFunc rows;
  gpointer data;
} LogitsSource;

/* Logits rows computed and written per block: 64 × V floats (12.6 MB at V = 49,152). */
#define DUMP_LOGITS_BLOCK 64

/* logits [T][V] of T: the trace's own when it holds every row, else chunked [≤ 64][V] and
 * filled block by block from SRC. Fails with AS_ERROR_IO naming the dataset, or as SRC fails. */
static gboolean
write_logits (hid_t file, const AsTrace *t, const LogitsSource *src, GError **error)
{
  hsize_t T = t->n_tokens, V = t->vocab_size;
  hsize_t dims[] = { T, V };
  if (t->logits_rows == t->n_tokens)
    return as_h5_write_dataset (file, "logits", H5T_IEEE_F32LE, t->logits, 2, dims, error);
  g_return_val_if_fail (src != NULL && src->rows != NULL, FALSE);
  hsize_t block_rows = MIN (T, DUMP_LOGITS_BLOCK), chunk[] = { MAX (block_rows, 1), MAX (V, 1) };
  hid_t space = H5Screate_simple (2, dims, NULL);
  hid_t plist = H5Pcreate (H5P_DATASET_CREATE);
  herr_t status = space < 0 || plist < 0 ? -1 : T * V > 0 ? H5Pset_chunk (plist, 2, chunk) : 0;
  hid_t dset = status < 0 ? H5I_INVALID_HID
                          : H5Dcreate2 (file, "logits", H5T_IEEE_F32LE, space, H5P_DEFAULT, plist,
                                        H5P_DEFAULT);
  status = dset < 0 ? -1 : 0;
  gboolean computed = TRUE;
  float *block = g_try_new (float, MAX (block_rows * V, 1)); /* [block_rows][V] */
  if (block == NULL)
    status = -1;
  for (hsize_t r0 = 0; status >= 0 && computed && r0 < T; r0 += block_rows)
    {
      hsize_t n = MIN (block_rows, T - r0);
      computed = src->rows (src->data, (int) r0, (int) n, block, error);
      hsize_t start[] = { r0, 0 }, count[] = { n, V };
      if (computed)
        status = write_block (dset, space, 2, start, count, block);
    }
  g_free (block);
  if (dset >= 0)
    H5Dclose (dset);
  if (plist >= 0)
    H5Pclose (plist);
  if (space >= 0)
    H5Sclose (space);
  if (!computed)
    return FALSE;
  if (status < 0)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_IO, "could not write dataset 'logits'");
      return FALSE;
    }
  return TRUE;
}

/* An encoder–decoder trace: both stacks and the cross-attention, with the names of transformers'
 * Seq2SeqLMOutput (encoder_attentions, decoder_attentions, cross_attentions, ...). */
static gboolean
write_translation (hid_t file, const AsTrace *t, const AsTraceDumpSelection *selection,
                   const LogitsSource *logits_src, GError **error)
{
  const AsTrace *e = t->source;
  hsize_t L = t->n_layer, T = t->n_tokens, D = t->d_model;
  hsize_t Le = e->n_layer, S = e->n_tokens;
  hsize_t enc_hidden[] = { Le + 1, S, D }, dec_hidden[] = { L + 1, T, D };
  return write_ids (file, "source_ids", e->ids, S, error)
         && write_ids (file, "target_ids", t->ids, T, error)
         && write_tokens (file, "source_tokens", e->tokens, S, error)
         && write_tokens (file, "target_tokens", t->tokens, T, error)
         && write_attention (file, "encoder_attentions", e, selection, error)
         && write_attention (file, "decoder_attentions", t, selection, error)
         && write_head_array (file, "cross_attentions", t, t->cross_attn, T, S, selection, error)
         && as_h5_write_dataset (file, "encoder_hidden_states", H5T_IEEE_F32LE, e->hidden, 3,
                                 enc_hidden, error)
         && as_h5_write_dataset (file, "decoder_hidden_states", H5T_IEEE_F32LE, t->hidden, 3,
                                 dec_hidden, error)
         && write_logits (file, t, logits_src, error);
}

static gboolean
write_trace (hid_t file, const AsTrace *t, const char *model_name, const char *architecture,
             const AsTraceDumpSelection *selection, const LogitsSource *logits_src, GError **error)
{
  hsize_t L = t->n_layer, T = t->n_tokens, D = t->d_model, hd = t->head_dim;
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
  ok = ok && write_attention (file, "attentions", t, selection, error);
  ok = ok
       && as_h5_write_dataset (file, "hidden_states", H5T_IEEE_F32LE, t->hidden, 3, hidden_dims,
                               error);
  ok = ok && write_head_array (file, "contexts", t, t->ctx, T, hd, selection, error);
  if (V > 0)
    ok = ok && write_logits (file, t, logits_src, error);
  ok = ok && write_string_attribute (file, "model", model_name, error);
  ok = ok && write_string_attribute (file, "architecture", architecture, error);
  return ok;
}

gboolean
as_trace_dump_h5 (const AsTrace *trace, const char *model_name, const char *architecture,
                  const char *path, AsOutputFlags flags, GError **error)
{
  return as_trace_dump_h5_select (trace, model_name, architecture, NULL, path, flags, error);
}

gboolean
as_trace_dump_h5_select (const AsTrace *trace, const char *model_name, const char *architecture,
                         const AsTraceDumpSelection *selection, const char *path,
                         AsOutputFlags flags, GError **error)
{
  g_return_val_if_fail (trace != NULL, FALSE);
  g_return_val_if_fail (trace->vocab_size == 0 || trace->logits_rows == trace->n_tokens, FALSE);
  return as_trace_dump_h5_streamed (trace, model_name, architecture, selection, NULL, NULL, path,
                                    flags, error);
}

gboolean
as_trace_dump_h5_streamed (const AsTrace *trace, const char *model_name, const char *architecture,
                           const AsTraceDumpSelection *selection, AsTraceDumpLogitsFunc logits,
                           gpointer logits_data, const char *path, AsOutputFlags flags,
                           GError **error)
{
  g_return_val_if_fail (trace != NULL && path != NULL, FALSE);
  g_return_val_if_fail (
      trace->vocab_size == 0 || trace->logits_rows == trace->n_tokens || logits != NULL, FALSE);
  LogitsSource logits_src = { logits, logits_data };
  AsH5Atomic atomic;
  if (!as_h5_atomic_begin (&atomic, path, flags, error))
    return FALSE;
  GError *local = NULL;
  gboolean ok
      = trace->source != NULL
            ? write_translation (atomic.file, trace, selection, &logits_src, &local)
                  && write_string_attribute (atomic.file, "model", model_name ? model_name : "",
                                             &local)
                  && write_string_attribute (atomic.file, "architecture",
                                             architecture ? architecture : "", &local)
            : write_trace (atomic.file, trace, model_name ? model_name : "",
                           architecture ? architecture : "", selection, &logits_src, &local);
  if (!as_h5_atomic_end (&atomic, ok, ok ? error : NULL) || !ok)
    {
      if (local != NULL)
        g_propagate_prefixed_error (error, local, "%s: ", path);
      return FALSE;
    }
  return TRUE;
}
