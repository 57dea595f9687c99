/* as-input-file.h — reading a text file named on the command line (`--lines FILE`).
 *
 * The same rules as every file the core reads (core/README.md, "Bad input, memory and threads"):
 * only a regular file (a FIFO or a device is refused, never waited on), at most a stated size;
 * and, being text, no NUL byte — a C string would silently end there and lose the rest. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Reads PATH whole into *CONTENTS (NUL-terminated, owned) and *LENGTH. Fails naming PATH when
 * it is missing (AS_ERROR_NOT_FOUND), not a regular file, unreadable (AS_ERROR_IO), larger than
 * MAX_BYTES, or holds a NUL byte (AS_ERROR_FORMAT; the message names the line). */
gboolean as_input_file_read_text (const char *path, gsize max_bytes, char **contents, gsize *length,
                                  GError **error);

G_END_DECLS
