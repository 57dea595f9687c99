/* attnscope-background.c — worker threads below the UI thread (see attnscope-background.h). */
#include "attnscope-background.h"

#ifdef __linux__
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#define BACKGROUND_NICE 10

void
attnscope_background_thread (void)
{
#ifdef __linux__
  static __thread gboolean done;
  if (done)
    return;
  done = TRUE;
  /* on Linux a thread's nice value is its own (setpriority with its thread id) */
  pid_t tid = (pid_t) syscall (SYS_gettid);
  int now = getpriority (PRIO_PROCESS, (id_t) tid);
  if (now < BACKGROUND_NICE)
    setpriority (PRIO_PROCESS, (id_t) tid, BACKGROUND_NICE);
#endif
}

static gint running;

void
attnscope_background_begin (void)
{
  g_atomic_int_inc (&running);
}

void
attnscope_background_end (void)
{
  g_atomic_int_dec_and_test (&running);
}

gboolean
attnscope_background_wait (guint timeout_ms)
{
  gint64 end = g_get_monotonic_time () + (gint64) timeout_ms * 1000;
  while (g_atomic_int_get (&running) > 0 && g_get_monotonic_time () < end)
    g_usleep (2000);
  return g_atomic_int_get (&running) == 0;
}
