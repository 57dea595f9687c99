/* cli-download.c — `attnscope download ORG/NAME [--revision R] [--any-family]`: a model from the
 * Hugging Face hub into the cache Python's huggingface_hub shares (core/include/as-hub.h does the
 * work; core/hub/README.md, "The Hugging Face cache").
 *
 * The download runs in a worker thread while this thread shows its progress: on a terminal a
 * bar redrawn in place (bytes, speed, time left, the file), with a line for each file once it
 * is in place; into a pipe or a file plain lines — each file as it is placed, and a line on the
 * long file being received at most every five seconds. The last line of standard output is the
 * snapshot folder, which `--model` takes as it is. Ctrl-C (or SIGTERM) stops the download, keeps
 * what was received for the next run to resume, and exits with 130. */
#include <glib-unix.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "as-error.h"
#include "as-hub.h"
#include "cli-commands.h"
#include "cli-common.h"

#define CLI_EXIT_INTERRUPTED 130
#define REFRESH_MS 100
#define PLAIN_EVERY_US (5 * G_USEC_PER_SEC)

typedef struct
{
  AsHubDownload *download;
  GCancellable *cancellable;
  GMainLoop *loop;
  gboolean tty;
  gboolean header_shown;
  gboolean bar_shown;
  guint files_shown;
  gint64 last_plain_us;
  char *path;
  GError *error;
} Cli;

static int
terminal_width (void)
{
  struct winsize ws;
  if (ioctl (STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20)
    return ws.ws_col;
  return 80;
}

static void
clear_bar (Cli *cli)
{
  if (cli->bar_shown)
    fputs ("\r\033[K", stdout);
  cli->bar_shown = FALSE;
}

static void
show_header (Cli *cli, const AsHubProgress *p)
{
  if (cli->header_shown || p->stage < AS_HUB_STAGE_DOWNLOADING)
    return;
  cli->header_shown = TRUE;
  g_autofree char *total = as_hub_format_size (p->total_bytes);
  g_autofree char *cached = as_hub_format_size (p->cached_bytes);
  clear_bar (cli);
  printf ("%s, revision %s (commit %.12s), into %s\n", as_hub_download_get_repo_id (cli->download),
          as_hub_download_get_revision (cli->download), p->commit,
          as_hub_download_get_repo_dir (cli->download));
  printf ("%u files, %s", p->n_files, total);
  if (p->cached_bytes > 0)
    printf (" (%s of it in the cache already)", cached);
  printf ("\n");
}

/* A line for each file placed since the last call. */
static void
show_files (Cli *cli)
{
  g_autoptr (GPtrArray) files = as_hub_download_dup_done (cli->download, cli->files_shown);
  for (guint i = 0; i < files->len; i++)
    {
      const AsHubFileDone *file = files->pdata[i];
      g_autofree char *size = as_hub_format_size (file->size);
      clear_bar (cli);
      printf ("  %s  %s%s\n", file->name, size, file->cached ? "  (in the cache)" : "");
    }
  cli->files_shown += files->len;
}

static void
show_bar (Cli *cli, const AsHubProgress *p)
{
  if (p->file == NULL || p->total_bytes == 0)
    return;
  int width = terminal_width ();
  double fraction = (double) p->done_bytes / (double) p->total_bytes;
  g_autofree char *text = as_hub_progress_format (p);
  /* "  [###...] 45%  TEXT  FILE" in WIDTH - 1 columns: the bar takes what is left, 10 to 30 */
  int rest = (int) (strlen (text) + strlen (p->file)) + 14;
  int cells = CLAMP (width - 1 - rest, 10, 30);
  int filled = (int) (fraction * cells + 0.5);
  g_autoptr (GString) line = g_string_new ("  [");
  for (int i = 0; i < cells; i++)
    g_string_append_c (line, i < filled ? '#' : '.');
  g_string_append_printf (line, "] %3d%%  %s  %s", (int) (fraction * 100), text, p->file);
  if (line->len > (gsize) width - 1)
    g_string_truncate (line, (gsize) width - 1);
  printf ("\r%s\033[K", line->str);
  cli->bar_shown = TRUE;
}

static void
show_plain (Cli *cli, const AsHubProgress *p)
{
  gint64 now = g_get_monotonic_time ();
  if (p->file == NULL || p->file_bytes == 0 || now - cli->last_plain_us < PLAIN_EVERY_US)
    return;
  if (cli->last_plain_us == 0)
    {
      /* the first line comes after one interval, so that small files make none */
      cli->last_plain_us = now;
      return;
    }
  cli->last_plain_us = now;
  g_autofree char *text = as_hub_progress_format (p);
  printf ("  %s: %d%% of the file; %s\n", p->file,
          (int) (100.0 * (double) p->file_done / (double) p->file_bytes), text);
}

static gboolean
refresh (gpointer user_data)
{
  Cli *cli = user_data;
  AsHubProgress p = { 0 };
  as_hub_download_get_progress (cli->download, &p);
  show_header (cli, &p);
  if (cli->header_shown)
    show_files (cli);
  if (cli->tty)
    show_bar (cli, &p);
  else
    show_plain (cli, &p);
  fflush (stdout);
  as_hub_progress_clear (&p);
  return G_SOURCE_CONTINUE;
}

static gboolean
on_signal (gpointer user_data)
{
  Cli *cli = user_data;
  g_cancellable_cancel (cli->cancellable);
  return G_SOURCE_CONTINUE;
}

static void
finished (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Cli *cli = user_data;
  cli->path = as_hub_download_run_finish (cli->download, result, &cli->error);
  g_main_loop_quit (cli->loop);
}

static void
show_summary (Cli *cli)
{
  AsHubProgress p = { 0 };
  as_hub_download_get_progress (cli->download, &p);
  if (as_hub_get_offline ())
    printf ("HF_HUB_OFFLINE is set: the cache has %s at revision %s (commit %.12s); nothing was "
            "downloaded\n",
            as_hub_download_get_repo_id (cli->download),
            as_hub_download_get_revision (cli->download), p.commit);
  else
    {
      show_header (cli, &p);
      show_files (cli);
      clear_bar (cli);
      g_autofree char *received = as_hub_format_size (p.received_bytes);
      g_autofree char *duration = as_hub_format_duration (p.elapsed);
      g_autofree char *speed = as_hub_format_size (
          p.elapsed > 0 ? (guint64) ((double) p.received_bytes / p.elapsed) : 0);
      if (p.received_bytes > 0)
        printf ("done: %s received in %s (%s/s)\n", received, duration, speed);
      else
        printf ("done: every file was in the cache, nothing was received\n");
    }
  as_hub_progress_clear (&p);
}

int
cli_download (int argc, char **argv)
{
  const char *revision = NULL;
  gboolean any_family = FALSE;
  const GOptionEntry entries[] = {
    { "revision", 'r', 0, G_OPTION_ARG_STRING, &revision,
      "A branch, tag or commit of the model (default: main)", "R" },
    { "any-family", 0, 0, G_OPTION_ARG_NONE, &any_family,
      "Download even a model whose model_type attnscope does not open", NULL },
    { NULL },
  };
  int exit_code = CLI_EXIT_OK;
  if (!cli_parse_options ("download", "ORG/NAME",
                          "Download a model from the Hugging Face hub into the Hugging Face cache "
                          "(shared with Python's huggingface_hub).\n"
                          "Environment: HF_HUB_CACHE, HF_HOME, HF_ENDPOINT, HF_TOKEN, "
                          "HF_HUB_OFFLINE.",
                          entries, &argc, &argv, &exit_code))
    return exit_code;
  if (argc != 2)
    return cli_usage_printf ("download", "expected one model id, e.g. openai-community/gpt2");
  GError *error = NULL;
  g_autoptr (AsHubDownload) download = as_hub_download_new (
      argv[1], revision, any_family ? AS_HUB_DOWNLOAD_ANY_FAMILY : AS_HUB_DOWNLOAD_DEFAULT, &error);
  if (download == NULL)
    return cli_fail (error);

  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  g_autoptr (GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  Cli cli = {
    .download = download, .cancellable = cancellable, .loop = loop, .tty = isatty (STDOUT_FILENO)
  };
  guint sigint = g_unix_signal_add (SIGINT, on_signal, &cli);
  guint sigterm = g_unix_signal_add (SIGTERM, on_signal, &cli);
  guint timer = g_timeout_add (REFRESH_MS, refresh, &cli);
  as_hub_download_run_async (download, cancellable, finished, &cli);
  g_main_loop_run (loop);
  g_source_remove (timer);
  g_source_remove (sigint);
  g_source_remove (sigterm);

  if (cli.path == NULL)
    {
      show_files (&cli);
      clear_bar (&cli);
      fflush (stdout);
      if (g_error_matches (cli.error, AS_ERROR, AS_ERROR_CANCELLED))
        {
          fprintf (stderr, "attnscope: interrupted: %s\n", cli.error->message);
          g_error_free (cli.error);
          return CLI_EXIT_INTERRUPTED;
        }
      return cli_fail (cli.error);
    }
  show_summary (&cli);
  printf ("%s\n", cli.path);
  g_free (cli.path);
  return CLI_EXIT_OK;
}
