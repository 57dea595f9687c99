/* as-error.c — the AS_ERROR domain. */
#include "as-error.h"

G_DEFINE_QUARK (attnscope - error - quark, as_error)
