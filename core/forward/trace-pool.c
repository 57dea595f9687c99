/* trace-pool.c — a freed trace's large arrays kept for the next trace (trace-pool-private.h). */
#include "trace-pool-private.h"

#include <string.h>

typedef struct
{
  float *p;
  guint64 n; /* floats */
} Block;

static GMutex lock;
static Block pool[AS_TRACE_POOL_SLOTS];

void
as_trace_pool_keep (const guint64 *sizes, int n)
{
  g_mutex_lock (&lock);
  for (int b = 0; b < AS_TRACE_POOL_SLOTS; b++)
    {
      gboolean used = FALSE;
      for (int i = 0; i < n && pool[b].p != NULL && !used; i++)
        used = sizes[i] == pool[b].n;
      if (pool[b].p != NULL && !used)
        {
          g_free (pool[b].p);
          pool[b] = (Block){ NULL, 0 };
        }
    }
  g_mutex_unlock (&lock);
}

float *
as_trace_pool_take (guint64 n)
{
  float *p = NULL;
  g_mutex_lock (&lock);
  for (int b = 0; b < AS_TRACE_POOL_SLOTS && p == NULL; b++)
    if (pool[b].p != NULL && pool[b].n == n)
      {
        p = pool[b].p;
        pool[b] = (Block){ NULL, 0 };
      }
  g_mutex_unlock (&lock);
  if (p != NULL)
    memset (p, 0, n * sizeof (float));
  return p;
}

void
as_trace_pool_give (float *p, guint64 n)
{
  if (p == NULL)
    return;
  if (n * sizeof (float) >= AS_TRACE_POOL_MIN_BYTES)
    {
      g_mutex_lock (&lock);
      for (int b = 0; b < AS_TRACE_POOL_SLOTS; b++)
        if (pool[b].p == NULL)
          {
            pool[b] = (Block){ p, n };
            p = NULL;
            break;
          }
      g_mutex_unlock (&lock);
    }
  g_free (p);
}
