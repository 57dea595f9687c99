/* test-append.c — Append continues the text by the predicted token's id, and Fill and Append are
 * one undo step each.
 *
 * The real window under Xvfb:
 * - ten Appends of the top prediction equal `attnscope predict --steps 10 --append-ids --json`
 *   (Hugging Face generate()'s greedy loop): at every step the window's top three ids are the
 *   command's, the id appended is the command's top id, the trace's ids are the prompt's and the
 *   appended ones, and the entry holds those ids decoded (the command's text ends with it). On a
 *   Llama model with Llama 2's SentencePiece tokenizer (byte fallback; `decoder_model_llama_spm`,
 *   "stories260k-like": a tiny Llama with a real SentencePiece vocabulary) the greedy loop that
 *   re-tokenizes the text (`predict --steps 10`, what Append did) takes other ids, which the test
 *   checks too, so the window's loop is the by-id one; on attnscope-mini (GPT-2) both loops agree,
 *   and the window equals both;
 * - Ctrl+Z (a key press through the X server, gui_test_send_key) after an Append brings the text
 *   and its trace back in one step, Ctrl+Shift+Z redoes it; on attnscope-mini-bert Fill then
 *   Ctrl+Z gives back the masked text at once (it took two steps, the first an empty entry), and
 *   the entry never passes through an empty text. */
#include <adwaita.h>
#include <json-glib/json-glib.h>
#include <string.h>

#include "attnscope-predictions-page.h"
#include "check-close.h"
#include "decoder-models.h"
#include "gui-test-util.h"

#define TIMEOUT_MS 120000
#define STEPS 10

static AttnscopeApplication *app;
static AttnscopeWindow *window;

static void
ensure_window (void)
{
  if (window == NULL)
    app = gui_test_app_new (1280, 800, &window);
}

/* The steps of `attnscope predict --model MODEL --text TEXT --steps 10 --json [EXTRA]`: one JSON
 * object per step (owned array of JsonNode). */
static GPtrArray *
predict_steps (const char *model, const char *text, const char *extra)
{
  const char *argv[] = { g_getenv ("ATTNSCOPE_BIN"),
                         "predict",
                         "--model",
                         model,
                         "--text",
                         text,
                         "--steps",
                         "10",
                         "--json",
                         extra,
                         NULL };
  g_autofree char *out = NULL, *err = NULL;
  int status = test_spawn (argv, &out, &err);
  if (status != 0)
    g_test_message ("predict: %s", err);
  g_assert_cmpint (status, ==, 0);
  GPtrArray *steps = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  g_auto (GStrv) lines = g_strsplit (out, "\n", -1);
  for (int i = 0; lines[i] != NULL; i++)
    if (*lines[i] != '\0')
      {
        g_autoptr (GError) error = NULL;
        JsonNode *node = json_from_string (lines[i], &error);
        g_assert_no_error (error);
        g_ptr_array_add (steps, node);
      }
  g_assert_cmpuint (steps->len, ==, STEPS);
  return steps;
}

static JsonObject *
step_object (GPtrArray *steps, int s)
{
  return json_node_get_object (steps->pdata[s]);
}

static gint64
step_top_id (GPtrArray *steps, int s, int k)
{
  JsonArray *top = json_object_get_array_member (step_object (steps, s), "top");
  return json_object_get_int_member (json_array_get_object_element (top, k), "id");
}

static AttnscopePredictionsPage *
predictions (void)
{
  AttnscopePage *page = attnscope_window_get_page (window, "predictions");
  attnscope_window_show_page (window, "predictions");
  g_assert_true (gui_test_wait_page (page, TIMEOUT_MS));
  return ATTNSCOPE_PREDICTIONS_PAGE (page);
}

/* Ten Appends on MODEL from TEXT equal BY_ID (predict --append-ids) step by step. */
static void
check_appends (const char *model, const char *text, GPtrArray *by_id)
{
  gui_test_open (window, model, text, TIMEOUT_MS);
  AttnscopeRun *run = gui_test_main_run (window);
  AsTrace *prompt = attnscope_run_get_trace (run);
  int n0 = prompt->n_tokens;
  g_autofree int32_t *ids = g_memdup2 (prompt->ids, sizeof (int32_t) * n0);
  for (int s = 0; s < STEPS; s++)
    {
      AttnscopePredictionsPage *page = predictions ();
      g_assert_cmpint (attnscope_predictions_page_get_n_predictions (page), >=, 3);
      for (int k = 0; k < 3; k++)
        g_assert_cmpint (attnscope_predictions_page_get_id (page, k), ==,
                         step_top_id (by_id, s, k));
      int32_t next = attnscope_predictions_page_get_id (page, 0);
      attnscope_predictions_page_append (page, 0);
      g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
      AsTrace *trace = attnscope_run_get_trace (run);
      g_assert_cmpint (trace->n_tokens, ==, n0 + s + 1);
      ids = g_renew (int32_t, ids, n0 + s + 1);
      ids[n0 + s] = next;
      for (int i = 0; i < trace->n_tokens; i++)
        g_assert_cmpint (trace->ids[i], ==, ids[i]);
      g_assert_nonnull (attnscope_run_get_ids (run));
      const char *shown = attnscope_run_get_text (run);
      const char *want = json_object_get_string_member (step_object (by_id, s), "text");
      g_test_message ("step %d: +%d, the entry: %s", s + 1, next, shown);
      g_assert_true (g_str_has_suffix (want, shown));
    }
}

static void
test_llama_spm (void)
{
  g_autofree char *model = decoder_model_llama_spm ();
  if (model == NULL)
    return;
  ensure_window ();
  const char *text = "The old lighthouse";
  g_autoptr (GPtrArray) by_id = predict_steps (model, text, "--append-ids");
  g_autoptr (GPtrArray) retokenized = predict_steps (model, text, NULL);
  /* re-tokenizing the appended text leaves the greedy loop (the old Append) */
  int differ = 0;
  for (int s = 0; s < STEPS; s++)
    differ += step_top_id (by_id, s, 0) != step_top_id (retokenized, s, 0);
  g_test_message ("re-tokenizing takes another token at %d of %d steps", differ, STEPS);
  g_assert_cmpint (differ, >, 0);
  check_appends (model, text, by_id);
}

static void
test_gpt2 (void)
{
  ensure_window ();
  const char *text = "The old lighthouse";
  g_autoptr (GPtrArray) by_id = predict_steps ("attnscope-mini", text, "--append-ids");
  g_autoptr (GPtrArray) plain = predict_steps ("attnscope-mini", text, NULL);
  for (int s = 0; s < STEPS; s++)
    g_assert_cmpstr (json_object_get_string_member (step_object (by_id, s), "text"), ==,
                     json_object_get_string_member (step_object (plain, s), "text"));
  check_appends ("attnscope-mini", text, by_id);
}

static GtkEntry *
main_entry (void)
{
  /* the entry holds the main run's text: find it by its text */
  GtkWidget *focus = GTK_WIDGET (window);
  g_autoptr (GQueue) queue = g_queue_new ();
  g_queue_push_tail (queue, focus);
  const char *text = attnscope_run_get_text (gui_test_main_run (window));
  while (!g_queue_is_empty (queue))
    {
      GtkWidget *w = g_queue_pop_head (queue);
      if (GTK_IS_ENTRY (w) && gtk_widget_get_visible (w)
          && g_strcmp0 (gtk_editable_get_text (GTK_EDITABLE (w)), text) == 0)
        return GTK_ENTRY (w);
      for (GtkWidget *c = gtk_widget_get_first_child (w); c != NULL;
           c = gtk_widget_get_next_sibling (c))
        g_queue_push_tail (queue, c);
    }
  g_assert_not_reached ();
}

/* Every text the entry had, in order (its "changed" signals). */
static void
on_changed (GtkEditable *editable, GPtrArray *seen)
{
  g_ptr_array_add (seen, g_strdup (gtk_editable_get_text (editable)));
}

static void
press (guint keyval, GdkModifierType mods)
{
  if (!gui_test_send_key (GTK_WINDOW (window), keyval, mods))
    g_error ("no XTest on this display");
}

static void
test_append_undo (void)
{
  ensure_window ();
  const char *text = "The man hit the car";
  gui_test_open (window, "attnscope-mini", text, TIMEOUT_MS);
  GtkEntry *entry = main_entry ();
  gtk_widget_grab_focus (GTK_WIDGET (entry));
  AttnscopeRun *run = gui_test_main_run (window);
  AttnscopePredictionsPage *page = predictions ();
  attnscope_predictions_page_append (page, 0);
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
  g_autofree char *appended = g_strdup (gtk_editable_get_text (GTK_EDITABLE (entry)));
  g_assert_cmpstr (appended, !=, text);
  gtk_widget_grab_focus (GTK_WIDGET (entry));
  press (GDK_KEY_z, GDK_CONTROL_MASK);
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (entry)), ==, text);
  g_assert_cmpstr (attnscope_run_get_trace_text (run), ==, text);
  press (GDK_KEY_z, GDK_CONTROL_MASK | GDK_SHIFT_MASK);
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (entry)), ==, appended);
}

static void
test_fill_undo (void)
{
  ensure_window ();
  const char *text = "the cat sat on the [MASK] .";
  gui_test_open (window, "attnscope-mini-bert", text, TIMEOUT_MS);
  GtkEntry *entry = main_entry ();
  AttnscopePredictionsPage *page = predictions ();
  g_assert_cmpint (attnscope_predictions_page_get_n_masks (page), ==, 1);
  g_autoptr (GPtrArray) seen = g_ptr_array_new_with_free_func (g_free);
  gulong id = g_signal_connect (entry, "changed", G_CALLBACK (on_changed), seen);
  attnscope_predictions_page_fill (page, 0, 2);
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
  g_autofree char *filled = g_strdup (gtk_editable_get_text (GTK_EDITABLE (entry)));
  g_assert_null (strstr (filled, "[MASK]"));
  gtk_widget_grab_focus (GTK_WIDGET (entry));
  press (GDK_KEY_z, GDK_CONTROL_MASK);
  g_assert_true (gui_test_wait_runs (window, TIMEOUT_MS));
  /* one step back, and never an empty entry on the way */
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (entry)), ==, text);
  g_assert_cmpstr (attnscope_run_get_trace_text (gui_test_main_run (window)), ==, text);
  for (guint i = 0; i < seen->len; i++)
    {
      g_test_message ("the entry: %s", (char *) seen->pdata[i]);
      g_assert_cmpstr (seen->pdata[i], !=, "");
    }
  g_assert_cmpuint (seen->len, ==, 2);
  g_signal_handler_disconnect (entry, id);
}

int
main (int argc, char **argv)
{
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();
  g_test_add_func ("/ui/append/llama-spm-by-id", test_llama_spm);
  g_test_add_func ("/ui/append/gpt2-by-id", test_gpt2);
  g_test_add_func ("/ui/append/append-one-undo", test_append_undo);
  g_test_add_func ("/ui/append/fill-one-undo", test_fill_undo);
  int status = g_test_run ();
  if (window != NULL)
    gtk_window_destroy (GTK_WINDOW (window));
  g_clear_object (&app);
  test_tmpdir_cleanup ();
  return status;
}
