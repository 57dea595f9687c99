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
