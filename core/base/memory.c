/* memory.c — the memory budget and what the process holds (as-trace.h, memory-private.h).
 *
 * A request is refused with both numbers instead of letting the machine swap. The budget is
 * ATTNSCOPE_MEMORY_LIMIT bytes when set — then it covers everything held (traces, weights) plus
 * the request — otherwise 90 % of MemAvailable, which already leaves out what is held. */
#include "memory-private.h"

#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "as-error.h"
#include "as-trace.h"

static guint64 held_bytes; /* atomic */

/* Arrays from this size on are backed by transparent huge pages where the system allows it. */
#define HUGE_PAGE_MIN_BYTES ((gsize) 8 << 20)
#define HUGE_PAGE_BYTES ((uintptr_t) 2 << 20)

void
as_memory_advise_huge_pages (void *p, gsize bytes)
{
#ifdef MADV_HUGEPAGE
  if (p == NULL || bytes < HUGE_PAGE_MIN_BYTES)
    return;
  uintptr_t start = ((uintptr_t) p + HUGE_PAGE_BYTES - 1) & ~(HUGE_PAGE_BYTES - 1);
  uintptr_t end = ((uintptr_t) p + bytes) & ~(HUGE_PAGE_BYTES - 1);
  if (end > start)
    madvise ((void *) start, end - start, MADV_HUGEPAGE); /* a hint: failure changes nothing */
#else
  (void) p;
  (void) bytes;
#endif
}

void
as_memory_hold (guint64 bytes)
{
  __atomic_add_fetch (&held_bytes, bytes, __ATOMIC_RELAXED);
}

void
as_memory_release (guint64 bytes)
{
  __atomic_sub_fetch (&held_bytes, bytes, __ATOMIC_RELAXED);
}

guint64
as_memory_held (void)
{
  return __atomic_load_n (&held_bytes, __ATOMIC_RELAXED);
}

static guint64
mem_available_bytes (void)
{
  g_autofree char *contents = NULL;
  if (!g_file_get_contents ("/proc/meminfo", &contents, NULL, NULL))
    return G_MAXUINT64;
  const char *line = strstr (contents, "MemAvailable:");
  if (line == NULL)
    return G_MAXUINT64;
  guint64 kib = g_ascii_strtoull (line + strlen ("MemAvailable:"), NULL, 10);
  return kib * 1024;
}

/* ATTNSCOPE_MEMORY_LIMIT in bytes, or 0 when unset or not a positive number. */
static guint64
memory_limit (void)
{
  const char *limit = g_getenv ("ATTNSCOPE_MEMORY_LIMIT");
  if (limit == NULL || *limit == '\0')
    return 0;
  return g_ascii_strtoull (limit, NULL, 10);
}

guint64
as_memory_budget (void)
{
  guint64 limit = memory_limit ();
  if (limit > 0)
    return limit;
  guint64 available = mem_available_bytes ();
  return available == G_MAXUINT64 ? available : available / 10 * 9;
}

gboolean
as_memory_check (guint64 bytes, const char *what, GError **error)
{
  return as_memory_check_advice (bytes, what, "use a shorter text", error);
}

gboolean
as_memory_check_advice (guint64 bytes, const char *what, const char *advice, GError **error)
{
  guint64 limit = memory_limit ();
  guint64 held = limit > 0 ? as_memory_held () : 0;
  guint64 budget = as_memory_budget ();
  if (bytes <= budget && held <= budget - bytes)
    return TRUE;
  g_autofree char *need = g_format_size (bytes);
  g_autofree char *have = g_format_size (budget);
  if (held > 0)
    {
      g_autofree char *in_use = g_format_size (held);
      g_set_error (error, AS_ERROR, AS_ERROR_MEMORY,
                   "%s needs %s of memory, but with the %s already held the limit of %s "
                   "(ATTNSCOPE_MEMORY_LIMIT) would be passed; %s",
                   what, need, in_use, have, advice);
    }
  else
    g_set_error (error, AS_ERROR, AS_ERROR_MEMORY,
                 "%s needs %s of memory but only %s are available; %s", what, need, have, advice);
  return FALSE;
}
