/* cli-commands.h — the subcommands of `attnscope`, one function each (cli-<name>.c), and the
 * dispatch from main() to them (cli-commands.c: the table of names and one-line summaries that
 * `attnscope --help` prints). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Subcommands. argv[0] is the subcommand's name; each returns the exit status (cli-common.h). */
int cli_info (int argc, char **argv);
int cli_tokenize (int argc, char **argv);
int cli_run (int argc, char **argv);
int cli_predict (int argc, char **argv);
int cli_bench (int argc, char **argv);
int cli_similarity (int argc, char **argv);
int cli_stats (int argc, char **argv);
int cli_compare (int argc, char **argv);
int cli_project (int argc, char **argv);
int cli_perplexity (int argc, char **argv);
int cli_lens (int argc, char **argv);
int cli_export (int argc, char **argv);
int cli_translate (int argc, char **argv);
int cli_download (int argc, char **argv);
int cli_list (int argc, char **argv);
int cli_merge (int argc, char **argv);
int cli_ablate (int argc, char **argv);
int cli_patch (int argc, char **argv);

/* Runs `attnscope ARGV[1] ...` (a subcommand, or --help/help) and returns its exit status, its
 * output flushed (cli_finish). An unknown command is a usage error. */
int cli_main (int argc, char **argv);

G_END_DECLS
