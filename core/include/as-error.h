/* as-error.h — the error domain of the attnscope core.
 *
 * Every core function that can fail on bad input takes a GError ** and sets an error of this
 * domain whose message names the file, dataset, key or argument at fault and what was expected.
 * Programmer errors are g_assert()s, never errors. Values are append-only. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define AS_ERROR (as_error_quark ())

typedef enum
{
  AS_ERROR_IO,        /* a file could not be opened, read or written */
  AS_ERROR_FORMAT,    /* a file is not what it claims to be (not HDF5, bad JSON, truncated) */
  AS_ERROR_CONFIG,    /* config.json misses a key or holds an absurd value */
  AS_ERROR_SHAPE,     /* a tensor has the wrong shape or dtype */
  AS_ERROR_VALUE,     /* NaN/Inf in weights or inputs */
  AS_ERROR_INPUT,     /* user input: empty text, invalid UTF-8, too long, bad index */
  AS_ERROR_MEMORY,    /* the request would not fit in memory */
  AS_ERROR_CANCELLED, /* the caller cancelled the operation */
  AS_ERROR_NOT_FOUND, /* a model, file or dataset that was asked for does not exist */
} AsErrorCode;

GQuark as_error_quark (void);

G_END_DECLS
