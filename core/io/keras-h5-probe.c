/* keras-h5-probe.c — the HDF5 child's side of reading tf_model.h5 (keras-h5-probe-private.h).
 *
 * Runs in the forked child only, so it may let libhdf5 loose on a hostile file: a crash here ends
 * the child, not attnscope. It still bounds what it reads before reading it (the number and
 * length of names, the bytes of an attribute) so that a garbage file fails fast instead of
 * running into the child's memory limit. Messages name the file (PATH) and the object. Only
 * plain C and libhdf5 here: no GLib calls that could wait on a lock held at fork(). */
#include "keras-h5-probe-private.h"

#include <hdf5.h>
#include <stdlib.h>
#include <string.h>

#include "as-error.h"
#include "h5-dataset-private.h"

#define AS_KERAS_MAX_ATTRIBUTE_BYTES (64u << 20)

typedef struct
{
  int channel;
  const char *path;
  hid_t file;
  char **names; /* full dataset paths, one per record sent */
  guint32 n_names;
} Probe;

/* Sends an AS_ERROR_FORMAT message about OBJECT ("PATH: dataset 'OBJECT' WHY") and returns
 * FALSE. */
static gboolean
probe_fail (Probe *p, const char *kind, const char *object, const char *why)
{
  as_h5_channel_send_error (p->channel, AS_ERROR_FORMAT, "%s: %s '%s' %s", p->path, kind, object,
                            why);
  return FALSE;
}

/* Appends string S (N bytes) to the probe's names as "PREFIX/S"; FALSE when there are too many
 * or it is too long. */
static gboolean
probe_add_name (Probe *p, const char *prefix, const char *s, gsize n, const char *where)
{
  if (p->n_names >= AS_KERAS_MAX_DATASETS)
    {
      as_h5_channel_send_error (p->channel, AS_ERROR_FORMAT,
                                "%s: %s lists more than %d weights; not a model attnscope can load",
                                p->path, where, AS_KERAS_MAX_DATASETS);
      return FALSE;
    }
  gsize lp = strlen (prefix);
  while (n > 0 && s[n - 1] == '\0') /* fixed-length strings are padded with NULs */
    n--;
  if (memchr (s, '\0', n) != NULL || n + lp + 1 > AS_H5_DATASET_MAX_NAME)
    {
      as_h5_channel_send_error (p->channel, AS_ERROR_FORMAT,
                                "%s: %s holds a weight name with a NUL byte or longer than %d "
                                "bytes (damaged file?)",
                                p->path, where, AS_H5_DATASET_MAX_NAME);
      return FALSE;
    }
  char *name = malloc (lp + 1 + n + 1);
  char **grown = realloc (p->names, (p->n_names + 1) * sizeof *p->names);
  if (name == NULL || grown == NULL)
    {
      free (name);
      if (grown != NULL)
        p->names = grown;
      as_h5_channel_send_error (p->channel, AS_ERROR_MEMORY, "%s: out of memory listing weights",
                                p->path);
      return FALSE;
    }
  p->names = grown;
  gsize at = 0;
  if (lp > 0)
    {
      memcpy (name, prefix, lp);
      name[lp] = '/';
      at = lp + 1;
    }
  memcpy (name + at, s, n);
  name[at + n] = '\0';
  p->names[p->n_names++] = name;
  return TRUE;
}

/* Reads the N strings of attribute ATTR (named NAME, in memory type MEM; variable-length when
 * VLEN, else SIZE bytes each) and adds each, prefixed with PREFIX, to the probe's names. */
static gboolean
probe_add_strings (Probe *p, hid_t attr, hid_t mem, hid_t space, hssize_t n, gboolean vlen,
                   size_t size, const char *prefix, const char *where, const char *name)
{
  void *buffer = calloc ((size_t) n, vlen ? sizeof (char *) : size);
  if (buffer == NULL || H5Aread (attr, mem, buffer) < 0)
    {
      char detail[512];
      as_h5_error_detail (detail, sizeof detail);
      as_h5_channel_send_error (p->channel, AS_ERROR_FORMAT,
                                "%s: could not read attribute '%s' of %s (%s)", p->path, name,
                                where, buffer == NULL ? "out of memory" : detail);
      free (buffer);
      return FALSE;
    }
  gboolean ok = TRUE;
  for (hssize_t i = 0; ok && i < n; i++)
    {
      const char *s = vlen ? ((char **) buffer)[i] : (char *) buffer + (gsize) i * size;
      gsize len = vlen ? (s != NULL ? strlen (s) : 0) : size;
      ok = probe_add_name (p, prefix, s != NULL ? s : "", len, where);
    }
  if (vlen)
    H5Dvlen_reclaim (mem, space, H5P_DEFAULT, buffer);
  free (buffer);
  return ok;
}

/* Reads the strings of attribute NAME of OBJ (fixed- or variable-length) and adds each, prefixed
 * with PREFIX, to the probe's names. WHERE names OBJ in messages. */
static gboolean
probe_read_strings (Probe *p, hid_t obj, const char *name, const char *prefix, const char *where)
{
  gboolean ok = FALSE;
  hid_t attr = H5Aopen (obj, name, H5P_DEFAULT);
  hid_t type = attr >= 0 ? H5Aget_type (attr) : H5I_INVALID_HID;
  hid_t space = attr >= 0 ? H5Aget_space (attr) : H5I_INVALID_HID;
  hid_t mem = H5I_INVALID_HID;
  char detail[512];
  if (attr < 0 || type < 0 || space < 0)
    {
      as_h5_error_detail (detail, sizeof detail);
      as_h5_channel_send_error (p->channel, AS_ERROR_FORMAT,
                                "%s: could not read attribute '%s' of %s (%s)", p->path, name,
                                where, detail);
      goto out;
    }
  if (H5Tget_class (type) != H5T_STRING)
    {
      as_h5_channel_send_error (
          p->channel, AS_ERROR_FORMAT,
          "%s: attribute '%s' of %s is not a list of strings (not a Keras weight file?)", p->path,
          name, where);
      goto out;
    }
  hssize_t n = H5Sget_simple_extent_npoints (space);
  size_t size = H5Tget_size (type);
  htri_t vlen = H5Tis_variable_str (type);
  if (n < 0 || size == 0 || vlen < 0 || n > AS_KERAS_MAX_DATASETS
      || (!vlen && (guint64) n * size > AS_KERAS_MAX_ATTRIBUTE_BYTES))
    {
      as_h5_channel_send_error (p->channel, AS_ERROR_FORMAT,
                                "%s: attribute '%s' of %s declares %lld strings of %zu bytes, "
                                "more than a weight list holds (damaged file?)",
                                p->path, name, where, (long long) n, size);
      goto out;
    }
  mem = H5Tcopy (H5T_C_S1);
  if (mem < 0 || H5Tset_size (mem, vlen ? H5T_VARIABLE : size) < 0
      || H5Tset_cset (mem, H5Tget_cset (type)) < 0
      /* read fixed-length strings byte for byte: a NULLTERM memory type would replace the last
       * character of h5py's NULLPAD strings with the terminator */
      || (!vlen && H5Tset_strpad (mem, H5T_STR_NULLPAD) < 0))
    {
      as_h5_channel_send_error (p->channel, AS_ERROR_FORMAT,
                                "%s: attribute '%s' of %s has an unreadable string type", p->path,
                                name, where);
      goto out;
    }
  ok = n == 0 || probe_add_strings (p, attr, mem, space, n, vlen, size, prefix, where, name);
out:
  if (mem >= 0)
    H5Tclose (mem);
  if (space >= 0)
    H5Sclose (space);
  if (type >= 0)
    H5Tclose (type);
  if (attr >= 0)
    H5Aclose (attr);
  return ok;
}

/* The layer's weight_names, or the concatenation of weight_names0, weight_names1, ... (Keras
 * splits large attributes). */
static gboolean
probe_read_weight_names (Probe *p, hid_t group, const char *layer)
{
  char where[AS_H5_DATASET_MAX_NAME + 16];
  snprintf (where, sizeof where, "group '/%s'", layer);
  if (H5Aexists (group, "weight_names") > 0)
    return probe_read_strings (p, group, "weight_names", layer, where);
  unsigned parts = 0;
  for (;; parts++)
    {
      char name[32];
      snprintf (name, sizeof name, "weight_names%u", parts);
      if (H5Aexists (group, name) <= 0)
        break;
      if (!probe_read_strings (p, group, name, layer, where))
        return FALSE;
    }
  if (parts == 0)
    {
      as_h5_channel_send_error (p->channel, AS_ERROR_FORMAT,
                                "%s: %s has no attribute 'weight_names' (not a Keras weight file?)",
                                p->path, where);
      return FALSE;
    }
  return TRUE;
}

/* Lists the layers and weights, sending one record per weight, then END. */
static gboolean
probe_list (Probe *p)
{
  if (H5Aexists (p->file, "layer_names") <= 0)
    {
      as_h5_channel_send_error (p->channel, AS_ERROR_FORMAT,
                                "%s: HDF5 file without the root attribute 'layer_names' "
                                "(not a Keras weight file such as tf_model.h5)",
                                p->path);
      return FALSE;
    }
  if (!probe_read_strings (p, p->file, "layer_names", "", "the root group"))
    return FALSE;
  /* The layer names become the prefixes of the weights; the list is rebuilt below. */
  guint32 n_layers = p->n_names;
  char **layers = p->names;
  p->names = NULL;
  p->n_names = 0;
  gboolean ok = TRUE;
  for (guint32 i = 0; ok && i < n_layers; i++)
    {
      ok = as_h5_dataset_check_links (p->channel, p->path, p->file, layers[i], NULL, "layer",
                                      "is listed in layer_names but there is no such group");
      hid_t group = ok ? H5Gopen2 (p->file, layers[i], H5P_DEFAULT) : H5I_INVALID_HID;
      if (ok && group < 0)
        ok = probe_fail (p, "layer", layers[i],
                         "is listed in layer_names but there is no such group");
      if (ok)
        ok = probe_read_weight_names (p, group, layers[i]);
      if (group >= 0)
        H5Gclose (group);
    }
  for (guint32 i = 0; i < n_layers; i++)
    free (layers[i]);
  free (layers);

  for (guint32 i = 0; ok && i < p->n_names; i++)
    {
      AsH5DatasetInfo info;
      ok = as_h5_dataset_check_links (p->channel, p->path, p->file, p->names[i],
                                      i > 0 ? p->names[i - 1] : NULL, "weight",
                                      "is listed in weight_names but there is no such dataset")
           && as_h5_dataset_describe (p->channel, p->path, p->file, p->names[i], &info);
      if (!ok)
        break;
      info.name_length = (guint32) strlen (p->names[i]);
      AsH5MessageHeader header = { AS_KERAS_MSG_DATASET, sizeof info + info.name_length };
      ok = as_h5_channel_write (p->channel, &header, sizeof header)
           && as_h5_channel_write (p->channel, &info, sizeof info)
           && as_h5_channel_write (p->channel, p->names[i], info.name_length);
    }
  if (!ok)
    return FALSE;
  hid_t fcpl = H5Fget_create_plist (p->file);
  hsize_t userblock = 0;
  if (fcpl < 0 || H5Pget_userblock (fcpl, &userblock) < 0)
    userblock = 1; /* unknown: the parent then never maps */
  if (fcpl >= 0)
    H5Pclose (fcpl);
  guint64 ub = userblock;
  return as_h5_channel_send (p->channel, AS_KERAS_MSG_END, &ub, sizeof ub);
}

int
as_keras_h5_probe_main (int channel, const char *path, const char *file_path, gpointer data)
{
  Probe p = { .channel = channel, .path = path, .file = H5I_INVALID_HID };
  htri_t is_h5 = H5Fis_hdf5 (file_path);
  if (is_h5 <= 0)
    {
      as_h5_channel_send_error (
          channel, AS_ERROR_FORMAT,
          is_h5 == 0 ? "%s is not an HDF5 file" : "%s could not be read as an HDF5 file", path);
      return 0;
    }
  p.file = H5Fopen (file_path, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (p.file < 0)
    {
      char detail[512];
      as_h5_error_detail (detail, sizeof detail);
      as_h5_channel_send_error (
          channel, AS_ERROR_FORMAT,
          "%s: the HDF5 file could not be opened; it is truncated or damaged (%s)", path, detail);
      return 0;
    }
  if (probe_list (&p))
    for (;;)
      {
        AsH5MessageHeader header;
        guint32 index = 0;
        if (!as_h5_channel_receive (channel, &header, &index, sizeof index)
            || header.type != AS_KERAS_MSG_READ || index >= p.n_names
            || !as_h5_dataset_send_floats (channel, path, p.file, p.names[index]))
          break;
      }
  /* Closed and freed although the child ends now: the probe also runs in-process under the
   * fuzzer (tests/fuzz/fuzz-keras-probe.c). */
  for (guint32 i = 0; i < p.n_names; i++)
    free (p.names[i]);
  free (p.names);
  H5Fclose (p.file);
  return 0;
}
