/* fuzz-keras-probe.c — the HDF5 child's listing of tf_model.h5 (keras-h5-probe.c) run in this
 * process, without the isolation. It finds libhdf5's own crashes on malformed files within
 * minutes; it is not run in CI. Its crash inputs are what the isolated reader must survive: they
 * go to tests/fuzz/regressions/keras-h5/, replayed by every test run through fuzz-keras-h5.c (see
 * tests/fuzz/README.md, "Fuzzing"). */
#include "fuzz-support.h"

#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>

#include "keras-h5-probe-private.h"

static void *
drain (void *data)
{
  int fd = GPOINTER_TO_INT (data);
  char buffer[65536];
  while (read (fd, buffer, sizeof buffer) > 0)
    ;
  return NULL;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  int pair[2];
  const char *path = fuzz_write_input (0, data, size);
  if (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0)
    fuzz_fail ("socketpair failed");
  pthread_t reader;
  pthread_create (&reader, NULL, drain, GINT_TO_POINTER (pair[0]));
  /* The listing ends by waiting for requests: a closed channel ends the wait. */
  shutdown (pair[1], SHUT_RD);
  as_keras_h5_probe_main (pair[1], "fuzz.h5", path, NULL);
  close (pair[1]);
  pthread_join (reader, NULL);
  close (pair[0]);
  return 0;
}
