/* cli-common.h — what every subcommand shares: exit codes, error and usage lines, option
 * parsing, the model and text arguments, --lines files, and the final flush of the output.
 * The contract (README.md, "Command line"): exit 0 on success; 1 on failure with one line
 * "attnscope: error: ..." on stderr naming the file or argument at fault; 2 on a usage error. */
#pragma once

#include <glib.h>

#include "as-forward.h"
#include "as-model.h"

G_BEGIN_DECLS

enum
{
  CLI_EXIT_OK = 0,
  CLI_EXIT_FAILURE = 1,
  CLI_EXIT_USAGE = 2,
};

/* Prints "attnscope: error: MESSAGE" (one line: control characters escaped) and returns
 * CLI_EXIT_FAILURE. Takes ERROR. */
int cli_fail (GError *error);
/* Prints "attnscope: error: FORMAT..." and returns CLI_EXIT_FAILURE. */
int cli_fail_printf (const char *format, ...) G_GNUC_PRINTF (1, 2);
/* Prints "attnscope: usage error: FORMAT..." and a hint, returns CLI_EXIT_USAGE. */
int cli_usage_printf (const char *command, const char *format, ...) G_GNUC_PRINTF (2, 3);

/* Parses ARGV with ENTRIES for COMMAND; on a bad option prints the usage error and returns
 * FALSE with *EXIT_CODE = CLI_EXIT_USAGE (or CLI_EXIT_OK for --help). The values of string
 * options must be valid UTF-8 (else the error names the option; CLI_EXIT_FAILURE). ARGV keeps
 * the positional arguments (argv[0] = command). */
gboolean cli_parse_options (const char *command, const char *parameter_string, const char *summary,
                            const GOptionEntry *entries, int *argc, char ***argv, int *exit_code);

/* Set by --strict: a model whose weight files hold tensors the config does not use is refused
 * instead of loading with a warning. */
extern gboolean cli_strict;

/* The --strict option, in the options of every command that loads a model (cli_load_model). */
#define CLI_STRICT_OPTION                                                                          \
  {                                                                                                \
    "strict", 0, 0, G_OPTION_ARG_NONE, &cli_strict,                                                \
        "Refuse a model whose weight files hold tensors the config does not use (default: a "      \
        "warning)",                                                                                \
        NULL                                                                                       \
  }

/* Loads the model named by SPEC (NULL = the default model): with --strict, tensors of its weight
 * files that the config does not use are an error; otherwise they are named in one line
 * "attnscope: warning: ..." on stderr. */
AsModel *cli_load_model (const char *spec, GError **error);

/* Reads the whole TEXT argument, or fails for NULL. Checks UTF-8 (naming ARGUMENT). */
gboolean cli_check_text (const char *text, const char *argument, GError **error);

/* as_forward_pair (MODEL, TEXT, PAIR, TRUNCATE, OPTIONS), but a text far longer than the
 * model's context is first cut to the prefix that decides the tokens the context can take
 * (as_tokenizer_prefix_for: the first 4 × context tokens), so a 64 MB --lines line costs what its
 * first tokens cost: refused at once without TRUNCATE ("more than N tokens"), truncated exactly
 * as the whole text would be with it. */
AsTrace *cli_forward_text (AsModel *model, const char *text, const char *pair, gboolean truncate,
                           const AsForwardOptions *options, GError **error);

/* The pass over TEXT as cli_forward_text gives it, or else over the ids IDS lists ("1,2,3", named
 * --ids in messages). */
AsTrace *cli_forward_text_or_ids (AsModel *model, const char *text, const char *ids,
                                  gboolean truncate, const AsForwardOptions *options,
                                  GError **error);

/* An output file option (OPTION, e.g. "-o") of COMMAND, checked before any work: returns -1 when
 * PATH names a file, else prints the usage error (an empty name, a folder's name) and returns
 * CLI_EXIT_USAGE. Whether the file can be written is as_output_file_check's. */
int cli_check_output_name (const char *command, const char *option, const char *path);

/* --type-ids with MODEL: returns -1 when the model takes them (token types, or an encoder's
 * segment marks), else — a decoder, a translation model — prints the usage error and returns
 * CLI_EXIT_USAGE. */
int cli_check_type_ids_model (const char *command, AsModel *model);

/* Parses "1,2,3" into int32 ids; fails naming ARGUMENT. Returns a GArray of int32_t. */
GArray *cli_parse_ids (const char *list, const char *argument, GError **error);

/* Parses --type-ids "0,0,1" (one per id of IDS); fails naming the option and both counts. */
GArray *cli_parse_type_ids (const char *list, const GArray *ids, GError **error);

/* The largest --lines file: far more text than a run over it would finish in. */
#define CLI_LINES_MAX_BYTES (64u << 20)

/* Reads the --lines file PATH (as-input-file.h: a regular file of at most CLI_LINES_MAX_BYTES
 * without NUL bytes); errors start with "--lines: ". */
char *cli_read_lines_file (const char *path, gsize *length, GError **error);

/* Calls FUNC for every non-blank line of the --lines file PATH (a trailing CR is dropped), in
 * order. An error of FUNC is returned prefixed with "--lines: PATH line N: "; reading PATH or a
 * file without any non-blank line fails too. */
typedef gboolean (*CliLineFunc) (const char *line, gpointer user_data, GError **error);
gboolean cli_foreach_text_line (const char *path, CliLineFunc func, gpointer user_data,
                                GError **error);
/* The same for a file given as OPTION (e.g. "--pairs"), as the messages name it. */
gboolean cli_foreach_text_line_named (const char *option, const char *path, CliLineFunc func,
                                      gpointer user_data, GError **error);

/* Closes standard output and standard error (gnulib's close_stdout discipline): when writing
 * either failed — a full disk, /dev/full, a closed pipe — a successful STATUS becomes
 * CLI_EXIT_FAILURE, with one error line when stderr still works. Returns the exit status. */
int cli_finish (int status);

G_END_DECLS
