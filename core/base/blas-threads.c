/* blas-threads.c — OpenBLAS on one thread, for the whole process (blas-threads-private.h). */
#include "blas-threads-private.h"

#include <cblas.h>

void
as_blas_single_threaded (void)
{
  static gsize done = 0;
  if (g_once_init_enter (&done))
    {
      openblas_set_num_threads (1);
      g_once_init_leave (&done, 1);
    }
}
