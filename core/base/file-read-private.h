/* file-read-private.h — reading an input file whole, safely: never blocking on a FIFO or a
 * device, never reading more than a limit the caller states for that kind of file.
 *
 * Model folders come from strangers: config.json may be a FIFO (reading would hang forever) or
 * 100 MB of garbage. Every loader of a small file (config.json, vocab.json, merges.txt,
 * tokenizer.json, ...) reads it through here, with a limit per file kind (core/README.md, "Bad
 * input"). Errors name the file and the problem. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Size limits per file kind, far above any real file of that kind. */
#define AS_LIMIT_CONFIG_BYTES (4u << 20)       /* config.json, tokenizer_config.json, ... */
#define AS_LIMIT_VOCABULARY_BYTES (256u << 20) /* vocab.json, merges.txt, tokenizer.json */

/* Fails with AS_ERROR_IO (naming PATH) unless PATH, after following symbolic links, is a regular
 * file; opens it without blocking (O_NONBLOCK) so that a FIFO is refused, not waited on. Returns
 * the open descriptor (O_CLOEXEC), or -1. *SIZE receives its size. */
int as_file_open_regular (const char *path, goffset *size, GError **error);

/* Reads PATH whole into *CONTENTS (NUL-terminated, owned) and *LENGTH. Fails naming PATH when it
 * is missing (AS_ERROR_NOT_FOUND), not a regular file, unreadable, or larger than MAX_BYTES
 * (AS_ERROR_FORMAT, naming both sizes). */
gboolean as_file_read_all (const char *path, gsize max_bytes, char **contents, gsize *length,
                           GError **error);

G_END_DECLS
