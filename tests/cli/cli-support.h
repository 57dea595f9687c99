/* cli-support.h — running the attnscope binary from the command-line tests and checking the
 * contract of its output (README.md, "Command line": exit 0/1/2, one "attnscope: error: ..." line).
 */
#pragma once

#include <glib.h>
#include <stdarg.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

typedef struct
{
  int status; /* exit status, or 128 + signal */
  char *out;  /* stdout */
  char *err;  /* stderr */
} Run;

void run_clear (Run *r);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Run, run_clear)

/* Runs $ATTNSCOPE_BIN with the NULL-terminated arguments ARGV (argv[0] is the first argument,
 * not the program). */
Run run_cli_argv (const char *const *argv);

/* Runs $ATTNSCOPE_BIN with the NULL-terminated list of arguments. */
Run run_cli (const char *first, ...) G_GNUC_NULL_TERMINATED;

/* Runs $ATTNSCOPE_BIN PREFIX... FIRST AP...: PREFIX is a NULL-terminated array (or NULL), the
 * rest a NULL-terminated argument list; for test wrappers such as run_export (...). */
Run run_cli_valist (const char *const *prefix, const char *first, va_list ap);

/* Asserts an error run: exit STATUS; for 1 exactly one stderr line starting "attnscope: error: ",
 * for 2 a line starting "attnscope: usage error: "; stderr contains NEEDLE (unless NULL);
 * nothing on stdout. */
void assert_error (const Run *r, int status, const char *needle);

/* TRUE (and a test message naming WHAT) in a sanitizer build ($ATTNSCOPE_SANITIZED): the command
 * ran and was checked for memory errors; its numbers are compared with the PyTorch reference by
 * the normal build's run of the same test, so the sanitizer run leaves that comparison out. */
gboolean reference_left_to_normal_build (const char *what);

/* Parses TEXT as JSON (asserting it is valid); returns an owned copy of the root node. */
JsonNode *parse_json (const char *text);

/* Reads and parses the JSON file PATH (asserting it exists and is valid). */
JsonNode *read_json_file (const char *path);

/* O's MEMBER, an array of arrays of numbers (such as metrics.json's [layer][head] tables), at
 * [ROW][COL]. */
double json_table_get (JsonObject *o, const char *member, int row, int col);

G_END_DECLS
