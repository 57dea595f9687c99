/* reference-cache.h — files made by a tests/reference script once per build folder and shared by
 * the test programs (decoder-models.c, encoder-models.c, bart-models.c, t5-models.c).
 *
 * A result lives in $ATTNSCOPE_BUILD_DIR/tests/<FOLDER> ($ATTNSCOPE_REFERENCE_CACHE/<FOLDER> when
 * that is set, so that two build folders share it; the test's temporary folder without either)
 * under "<name>-<16 hex digits>", the digits a SHA-256 of what was asked and of the reference's
 * source files, so a second program or a second run reuses it and a changed reference makes a new
 * one. A result is made under a temporary name and renamed into place, so programs running side by
 * side never see half of it. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct
{
  const char *folder;         /* below $ATTNSCOPE_BUILD_DIR/tests */
  const char *script;         /* the reference run, relative to the source tree */
  const char *const *sources; /* NULL-terminated: the files whose text keys the cache */
} ReferenceCache;

/* The cache path for NAME and WHAT (owned; the folder is created). */
char *reference_cache_path (const ReferenceCache *cache, const char *name, const char *what);

/* PATH with ".tmp-<pid>" appended, then SUFFIX (may be ""): where a result is made (owned). */
char *reference_cache_temporary (const char *path, const char *suffix);

/* Renames TMP to PATH; when another program made PATH meanwhile, removes TMP and keeps that one. */
void reference_cache_publish (const char *tmp, const char *path);

/* Runs PYTHON on the cache's script with ARGS (args[0] the subcommand); asserts it succeeded. */
void reference_cache_run (const ReferenceCache *cache, const char *python, GPtrArray *args);

/* Copies the file FROM to TO. */
void reference_cache_copy_file (const char *from, const char *to);

/* The encoder–decoder scripts' subcommands (bart_reference.py, t5_reference.py), each made when
 * missing; NULL with the test skipped when the reference's Python cannot run.
 *   make-model OUT ARGS…: the model folder (owned path), NAME labels it;
 *   expected MODEL OUT --src-ids SRC[i] --tgt-ids TGT[i] for N pairs: an HDF5 file;
 *   generate MODEL --src-ids SRC [--beams BEAMS] [--max-length MAX_LENGTH] --out OUT (0: the
 *   model's): the JSON object {ids, beams, max_length, score}. */
char *reference_cache_model (const ReferenceCache *cache, const char *name,
                             const char *const *args);
char *reference_cache_expected (const ReferenceCache *cache, const char *model_dir,
                                const char *const *src, const char *const *tgt, int n);
char *reference_cache_generated (const ReferenceCache *cache, const char *model_dir,
                                 const char *src, int beams, int max_length);

/* Runs ARGS (args[0] the subcommand, the output path at OUT_INDEX filled here) into a cached file
 * named after MODEL_DIR, KIND and WHAT, ending in SUFFIX; NULL (the test skipped) without the
 * reference's Python. */
char *reference_cache_output (const ReferenceCache *cache, const char *model_dir, const char *kind,
                              const char *what, GPtrArray *args, guint out_index,
                              const char *suffix);

G_END_DECLS
