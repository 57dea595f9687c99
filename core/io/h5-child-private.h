/* h5-child-private.h — libhdf5 on untrusted files, run in a child process.
 *
 * libhdf5 is not safe on malformed files: fuzzed tf_model.h5 files make 1.10.8 read out of
 * bounds, recurse until the stack ends (a virtual dataset that references itself) or ask for
 * hundreds of gigabytes (core/README.md, "Bad input, memory and threads"). So every HDF5 file
 * attnscope reads (tf_model.h5, `project --input`) is parsed by a forked child: the parent opens
 * the file (a regular file, checked), forks, and the child opens the very same file through
 * /proc/self/fd, reads what the parent asks for and sends it back over a socket pair. The child
 * runs with a time limit (no message for AS_H5_CHILD_TIMEOUT_MS, or AS_H5_CHILD_CPU_SECONDS of
 * CPU), a memory limit (RLIMIT_DATA: its data segment at the fork plus AS_H5_CHILD_MEMORY_BYTES),
 * no core dumps and stderr on /dev/null (ATTNSCOPE_DEBUG_HDF5_CHILD=1 keeps it). Whatever
 * happens to it — a
 * crash, a sanitizer abort, a hang, running out of memory — the parent gets an error that names
 * the file as damaged and goes on; in the GUI the current model stays.
 *
 * Messages are a header (type, length) and a payload. The child must not take locks another
 * thread of the parent may have held at fork() (no GError, no g_print, no GType): only malloc,
 * libhdf5 and the channel functions below. */
#pragma once

#include <glib.h>
#include <stdint.h>

G_BEGIN_DECLS

#define AS_H5_CHILD_TIMEOUT_MS 30000
#define AS_H5_CHILD_CPU_SECONDS 120
#define AS_H5_CHILD_MEMORY_BYTES (G_GUINT64_CONSTANT (1) << 30)

/* Message types shared by every child; readers number theirs from AS_H5_MSG_USER. */
enum
{
  AS_H5_MSG_ERROR = 1, /* payload: guint32 AsErrorCode, then the message (UTF-8, no NUL) */
  AS_H5_MSG_QUIT = 2,  /* parent → child: nothing more to read */
  AS_H5_MSG_DATA = 3,  /* child → parent: elements of a dataset (h5-dataset-private.h) */
  AS_H5_MSG_USER = 16,
};

typedef struct
{
  guint32 type;
  guint32 length; /* payload bytes that follow */
} AsH5MessageHeader;

/* The child's main function: talk to the parent through CHANNEL about the file (open it as
 * FILE_PATH, a /proc/self/fd path to the parent's descriptor; name it PATH in messages). Its
 * return value is the child's exit status. */
typedef int (*AsH5ChildMain) (int channel, const char *path, const char *file_path, gpointer data);

typedef struct _AsH5Child AsH5Child;

/* Forks a child running MAIN on the regular file FD (PATH in messages). FD stays the caller's. */
AsH5Child *as_h5_child_spawn (const char *path, int fd, AsH5ChildMain main_func, gpointer data,
                              GError **error);

/* Receives the next message header. An AS_H5_MSG_ERROR from the child becomes ERROR (its code
 * and message); a child that died, timed out or sent garbage gives an AS_ERROR_FORMAT error that
 * calls the file damaged. */
gboolean as_h5_child_receive (AsH5Child *child, AsH5MessageHeader *header, GError **error);

/* Receives exactly N payload bytes into BUFFER (after as_h5_child_receive). */
gboolean as_h5_child_receive_payload (AsH5Child *child, void *buffer, gsize n, GError **error);

/* Sends a message to the child. */
gboolean as_h5_child_send (AsH5Child *child, guint32 type, const void *payload, guint32 length,
                           GError **error);

/* Ends the child (it has nothing left to do) and frees everything. */
void as_h5_child_free (AsH5Child *child);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (AsH5Child, as_h5_child_free)

/* For the tests of the mechanism itself: the inactivity timeout and the memory allowance of
 * children spawned from now on (0 restores the default). */
void as_h5_child_set_limits (guint timeout_ms, guint64 memory_bytes);

/* ---- in the child ---- */

/* Sends one message; FALSE when the parent is gone. */
gboolean as_h5_channel_send (int channel, guint32 type, const void *payload, gsize length);

/* Sends the payload of a message in pieces: the header first (LENGTH bytes follow), then any
 * number of as_h5_channel_write calls adding up to LENGTH. */
gboolean as_h5_channel_write (int channel, const void *data, gsize n);

/* Sends AS_H5_MSG_ERROR with CODE and the formatted message (at most 4 KiB). */
gboolean as_h5_channel_send_error (int channel, guint32 code, const char *format, ...)
    G_GNUC_PRINTF (3, 4);

/* Waits for the next message from the parent; its payload (at most MAX bytes, else FALSE) goes
 * to PAYLOAD. FALSE when the parent is gone. */
gboolean as_h5_channel_receive (int channel, AsH5MessageHeader *header, void *payload, gsize max);

/* The most specific message on HDF5's error stack, into BUFFER (for the child's messages). */
void as_h5_error_detail (char *buffer, gsize size);

G_END_DECLS
