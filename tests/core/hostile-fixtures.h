/* hostile-fixtures.h — model folders and files built to hurt a loader, from C at test time.
 *
 * Each case is a reproduction recipe of an attack on the loaders (hostile files must not crash,
 * hang or fool attnscope), applied to a valid fixture model (fixture-model.h): the HDF5 ones with
 * libhdf5's own API (a virtual dataset that is its own source, an external link into a second file
 * after a pad, external raw storage in /etc/passwd, /dev/zero or a FIFO, an unwritten 12 GB chunked
 * dataset), the JSON ones by writing the text (nesting 100,000 deep, 100 MB, 2^63), and FIFOs in
 * place of the files. hostile_case_needle() is a piece of the error message the case must give
 * (NULL for the cases that must load: an unread dataset costs nothing). The core, command-line
 * and GUI tests share them. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  HOSTILE_VDS_SELF,      /* wte: a virtual dataset whose source is wte itself */
  HOSTILE_EXTERNAL_LINK, /* ln_f/beta:0: an external link to other.h5, after a 100,000-float pad */
  HOSTILE_SOFT_LINK,     /* ln_f/beta:0: a soft link (to itself) */
  HOSTILE_EXTERNAL_PASSWD,  /* ln_f/beta:0: raw storage in /etc/passwd */
  HOSTILE_EXTERNAL_ZERO,    /* ln_f/beta:0: raw storage in /dev/zero */
  HOSTILE_EXTERNAL_FIFO,    /* ln_f/beta:0: raw storage in a FIFO beside the file */
  HOSTILE_HUGE_UNUSED,      /* an unwritten 12 GB chunked dataset listed in weight_names, unused */
  HOSTILE_HUGE_NEEDED,      /* wte declared as 12 GB (config.json agrees), chunked, never written */
  HOSTILE_OFFSET_OUTSIDE,   /* a contiguous weight whose address points past the end of the file */
  HOSTILE_CONFIG_NESTED,    /* config.json nests 100,000 arrays deep */
  HOSTILE_VOCAB_NESTED,     /* vocab.json nests 100,000 arrays deep */
  HOSTILE_CONFIG_HUGE,      /* config.json is 100 MB */
  HOSTILE_CONFIG_2_63,      /* config.json: "n_layer": 9223372036854775808 */
  HOSTILE_CONFIG_FIFO,      /* config.json is a FIFO */
  HOSTILE_VOCAB_FIFO,       /* vocab.json is a FIFO */
  HOSTILE_MERGES_FIFO,      /* merges.txt is a FIFO */
  HOSTILE_WEIGHTS_FIFO,     /* tf_model.h5 is a FIFO */
  HOSTILE_SAFETENSORS_FIFO, /* model.safetensors is a FIFO (and there is no tf_model.h5) */
  HOSTILE_CONFIG_NUL_KEY,   /* config.json: "n_layer\u0000x": 7 besides "n_layer": 2 */
  HOSTILE_SAFETENSORS_NUL_KEY, /* model.safetensors: a header entry "wte.weight\u0000x" */
  HOSTILE_INDEX_NUL_SHARD,     /* model.safetensors.index.json: a shard name holding \u0000 */
  HOSTILE_SHARD_TEXT_LINK, /* the index's shard is a symbolic link to merges.txt (a text file) */
  HOSTILE_N_CASES
} HostileCase;

/* A short name for the case ("vds-self", ...), also the folder name tests use. */
const char *hostile_case_name (HostileCase c);

/* The file of the folder the error must name ("tf_model.h5", "config.json", ...). */
const char *hostile_case_file (HostileCase c);

/* What the error message must say, or NULL when the folder must load. */
const char *hostile_case_needle (HostileCase c);

/* Writes the hostile model folder DIR (created) for case C. */
gboolean hostile_folder_write (const char *dir, HostileCase c, GError **error);

/* Replaces dataset NAME of the HDF5 file PATH (a 1-D or 2-D float32 dataset) with external raw
 * storage in EXTERNAL. */
gboolean hostile_h5_external_storage (const char *path, const char *name, const char *external,
                                      GError **error);

/* Replaces dataset NAME of the HDF5 file PATH with an external link to OTHER:/x, where OTHER
 * holds a 100,000-float pad dataset first and then NAME's values as /x. */
gboolean hostile_h5_external_link (const char *path, const char *name, const char *other,
                                   GError **error);

/* Replaces dataset NAME of PATH with a virtual dataset whose source is NAME itself. */
gboolean hostile_h5_vds_self (const char *path, const char *name, GError **error);

/* Creates in PATH the chunked float32 dataset NAME of ROWS x COLS (chunks of 8192 rows), never
 * written, replacing NAME when it exists. */
gboolean hostile_h5_unwritten (const char *path, const char *name, guint64 rows, guint64 cols,
                               GError **error);

/* Writes the model folder DIR: the shipped toy model seed-single-head (from SOURCE_DIR) with the
 * tf_model.h5 at H5 — for the fuzzed files of tests/fuzz/regressions/keras-h5/, which libhdf5
 * crashes on. */
gboolean hostile_fuzzed_folder_write (const char *dir, const char *source_dir, const char *h5,
                                      GError **error);

/* The fuzzed tf_model.h5 files of SOURCE_DIR/tests/fuzz/regressions/keras-h5/ (sorted). */
GPtrArray *hostile_fuzzed_files (const char *source_dir);

/* Writes DEPTH nested arrays into a JSON object file: {"x": [[[...]]]} + the rest of OBJECT
 * (a JSON object text, its first '{' replaced). */
char *hostile_json_nested (const char *object, int depth);

G_END_DECLS
