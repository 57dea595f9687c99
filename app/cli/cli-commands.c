/* cli-commands.c — the table of subcommands (name, one-line summary, function) and the dispatch
 * to them. A subcommand's exit status also covers writing its output (cli_finish), and
 * SIGINT/SIGTERM remove its temporary output files. */
#include "cli-commands.h"

#include <stdio.h>
#include <string.h>

#include "as-model.h"
#include "as-output-file.h"
#include "cli-common.h"

typedef struct
{
  const char *name;
  const char *summary;
  int (*run) (int argc, char **argv);
} CliCommand;

static const CliCommand commands[] = {
  { "info", "model summary: architecture, L, H, D, vocabulary, context, parameters", cli_info },
  { "tokenize", "text to token ids and token strings", cli_tokenize },
  { "run", "one forward pass, every layer and head dumped to HDF5", cli_run },
  { "predict", "next-token top-K and greedy continuation", cli_predict },
  { "bench", "time forward passes in-process", cli_bench },
  { "similarity", "cosine similarity of a text's vectors; one token's table", cli_similarity },
  { "stats", "head statistics: entropy, previous/first/self shares, labels", cli_stats },
  { "compare", "two texts: hidden-state similarity, attention differences", cli_compare },
  { "project", "2-D projection (PCA, t-SNE or UMAP) of a matrix or of texts' vectors",
    cli_project },
  { "perplexity", "per-token log-probabilities; perplexity over the lines of a file",
    cli_perplexity },
  { "lens", "the logit lens: each layer's hidden state read through the model's output", cli_lens },
  { "translate", "translation with an encoder–decoder model (greedy or beam search)",
    cli_translate },
  { "export", "the figure of a view as PNG, SVG or PDF, sized for print", cli_export },
  { "download", "a model from the Hugging Face hub into the Hugging Face cache", cli_download },
  { "list", "the models in the Hugging Face cache, and whether attnscope opens them", cli_list },
  { "merge", "join the part files of a sharded corpus run (--shard K/N) into one result",
    cli_merge },
  { "ablate", "switch off each head in turn: its effect on a logit or the loss", cli_ablate },
  { "patch", "activation patching between two texts: which heads and positions matter", cli_patch },
};

static void
print_usage (FILE *out)
{
  fprintf (out, "Usage: attnscope [--model M] [--text T]    open the window\n"
                "       attnscope COMMAND [OPTIONS]          run a command without a display\n"
                "\n"
                "Running attnscope without a command opens the desktop window on the default\n"
                "model (--model and --text choose the model and the text it shows).\n"
                "\nCommands:\n");
  for (gsize i = 0; i < G_N_ELEMENTS (commands); i++)
    fprintf (out, "  %-10s %s\n", commands[i].name, commands[i].summary);
  fprintf (out,
           "\nRun 'attnscope COMMAND --help' for the options of a command, 'attnscope --version'\n"
           "for the version.\n"
           "--model takes a model folder, the name of a shipped model (default: %s) or a\n"
           "Hugging Face hub id found in the local cache ('attnscope download ID' fetches one).\n",
           as_model_default_name ());
}

int
cli_main (int argc, char **argv)
{
  g_assert (argc >= 2);
  /* An interrupted command leaves no temporary output file behind. */
  as_output_file_install_signal_cleanup ();
  if (strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0
      || strcmp (argv[1], "help") == 0)
    {
      print_usage (stdout);
      return cli_finish (CLI_EXIT_OK);
    }
  for (gsize i = 0; i < G_N_ELEMENTS (commands); i++)
    if (strcmp (argv[1], commands[i].name) == 0)
      return cli_finish (commands[i].run (argc - 1, argv + 1));

  fprintf (stderr, "attnscope: usage error: unknown command '%s'\n", argv[1]);
  print_usage (stderr);
  return cli_finish (CLI_EXIT_USAGE);
}
