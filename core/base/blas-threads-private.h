/* blas-threads-private.h — OpenBLAS on one thread, for the whole process.
 *
 * attnscope does its own threading with worker teams split into fixed blocks
 * (worker-team-private.h), so that a result is the same bits for every thread count. OpenBLAS's own
 * threads split a product by the thread count, and its kernels round differently at different
 * places of a split, so a product it threads changes in the last bits with OPENBLAS_NUM_THREADS;
 * its threaded level-1 routines (inside LAPACK) add partial sums in an order that follows the
 * thread count too. Its thread count is one global of the library: a count set around each forward
 * pass and restored after it raced between the passes the window runs on GTask threads (one pass
 * restoring the count while another multiplied). So it is set to one once, for the process, and
 * never restored. Private to the core. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Makes OpenBLAS single-threaded for the rest of the process (the first call; later calls cost an
 * atomic read). Every core function that calls BLAS or LAPACK calls it first. */
void as_blas_single_threaded (void);

G_END_DECLS
