/* as-output-file.h — writing an output file safely.
 *
 * Every file attnscope writes (`run --dump`, `export -o`, the GUI's export, matrices) goes
 * through here, so that it appears whole or not at all and never harms what was at its place:
 * - a symbolic link is followed to the file it names, and the temporary file is made beside that
 *   file (the link stays a link);
 * - anything that is not a regular file (a device, a FIFO, a socket, a folder) is refused — even
 *   for root, `--dump /dev/full` must not replace the device;
 * - a read-only file is refused unless AS_OUTPUT_FORCE (`--force`);
 * - the temporary file has a short hidden name of its own (".NAME.XXXXXX.tmp" with NAME cut to
 *   64 bytes), so it fits whatever legal name the target has (255 bytes);
 * - it is removed when the process is interrupted (SIGINT, SIGTERM, SIGHUP), when writing fails,
 *   or when the caller gives up;
 * - the committed file keeps the permission bits of the file it replaces.
 * Errors (AS_ERROR_IO) name the path and the problem. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  AS_OUTPUT_DEFAULT = 0,
  AS_OUTPUT_FORCE = 1 << 0, /* replace a read-only file too */
} AsOutputFlags;

typedef struct _AsOutputFile AsOutputFile;

/* Checks that PATH could be written as described above, without creating anything: for
 * commands that want to fail before their work rather than after it. */
gboolean as_output_file_check (const char *path, AsOutputFlags flags, GError **error);

/* Prepares to write PATH as described above: resolves symbolic links, checks the target, and
 * creates the empty temporary file. */
AsOutputFile *as_output_file_new (const char *path, AsOutputFlags flags, GError **error);

/* The temporary file to write (by name, for libraries that open files themselves). */
const char *as_output_file_get_temp_path (const AsOutputFile *file);

/* The temporary file, open for writing (owned by FILE). */
int as_output_file_get_fd (const AsOutputFile *file);

/* The file that will be replaced: PATH with symbolic links followed. */
const char *as_output_file_get_target (const AsOutputFile *file);

/* Closes the temporary file and renames it over the target. Fails naming PATH (the temporary
 * file is removed then). */
gboolean as_output_file_commit (AsOutputFile *file, GError **error);

/* Removes the temporary file unless it was committed, and frees FILE. */
void as_output_file_free (AsOutputFile *file);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (AsOutputFile, as_output_file_free)

/* Makes SIGINT, SIGTERM and SIGHUP remove every temporary file in progress before the process
 * dies of the signal as it would have (signals the process ignores stay ignored). For main(). */
void as_output_file_install_signal_cleanup (void);

G_END_DECLS
