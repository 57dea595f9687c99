/* tokenizer-work.c — the per-thread step count of tokenizer-work-private.h. */
#include "tokenizer-work-private.h"

_Thread_local guint64 as_tokenizer_work_steps;

guint64
as_tokenizer_work (void)
{
  return as_tokenizer_work_steps;
}
