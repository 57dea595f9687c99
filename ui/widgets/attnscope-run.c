/* attnscope-run.c — a text and the forward passes over it (see attnscope-run.h). */
#include "attnscope-run.h"

#include <glib/gi18n.h>

#include "attnscope-tasks.h"
#include "as-sentence-pairs.h"

struct _AttnscopeRun
{
  GObject parent_instance;

  AsModel *model;
  gboolean truncate;
  char *text;
  char *target; /* a translation model's target text */
  char *pair;   /* the second text of a sentence pair (encoders), or NULL */
  GArray *ids;  /* int32_t: the ids TEXT stands for after an Append (the passes use them), or
                 * NULL: TEXT is tokenized */
  AsTrace *trace;
  char *trace_text;          /* the text TRACE came from */
  char *trace_pair;          /* and its pair's second text, or NULL */
  char *trace_target;        /* the target TRACE came from (translation models) */
  AttnscopeCross *cross;     /* TRACE's cross-attention results (translation models) */
  GCancellable *cancellable; /* the pass in flight, NULL when idle */
  GCancellable *translating; /* the translation in flight, NULL when idle */
  char *error_message;
  gboolean empty_input; /* the error says a translation's source or target is empty */
  gboolean too_long;
  int n_text_tokens;            /* the whole text's tokens at the last pass, -1 unknown */
  int n_a, n_b;                 /* a pair's texts' own tokens at the last pass, -1 unknown */
  AttnscopeWhatifState *whatif; /* the passes' interventions, or NULL */
  AttnscopeProgress *progress;  /* the pass in flight's layers, or NULL */
  guint progress_tick;          /* the timeout that reads it */
  gint64 started;               /* monotonic µs the pass started */
  int shown_done, shown_total;  /* the progress "progress" gives; total 0: none shown */
};

G_DEFINE_FINAL_TYPE (AttnscopeRun, attnscope_run, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_TEXT,
  PROP_PAIR,
  PROP_TRACE,
  PROP_RUNNING,
  PROP_ERROR_MESSAGE,
  PROP_TOO_LONG,
  PROP_TRUNCATE,
  PROP_N_TEXT_TOKENS,
  PROP_TARGET,
  PROP_TRANSLATING,
  PROP_PROGRESS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
set_error (AttnscopeRun *self, const char *message, gboolean too_long)
{
  if (g_strcmp0 (self->error_message, message) != 0)
    {
      g_free (self->error_message);
      self->error_message = g_strdup (message);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ERROR_MESSAGE]);
    }
  if (self->too_long != too_long)
    {
      self->too_long = too_long;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TOO_LONG]);
    }
}

static gboolean
translation_model (AttnscopeRun *self)
{
  return self->model != NULL && as_model_get_config (self->model)->encoder_decoder;
}

static void
set_trace (AttnscopeRun *self, AsTrace *trace, const char *text, const char *pair,
           const char *target, AttnscopeCross *cross)
{
  if (self->trace == trace)
    return;
  g_clear_pointer (&self->trace, as_trace_unref);
  g_clear_pointer (&self->cross, attnscope_cross_unref);
  self->trace = trace != NULL ? as_trace_ref (trace) : NULL;
  self->cross = trace != NULL && cross != NULL ? attnscope_cross_ref (cross) : NULL;
  g_free (self->trace_text);
  self->trace_text = g_strdup (trace != NULL ? text : NULL);
  g_free (self->trace_pair);
  self->trace_pair = g_strdup (trace != NULL ? pair : NULL);
  g_free (self->trace_target);
  self->trace_target = g_strdup (trace != NULL ? target : NULL);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TRACE]);
}

static void
set_counts (AttnscopeRun *self, int n_tokens, int n_a, int n_b)
{
  if (self->n_text_tokens == n_tokens && self->n_a == n_a && self->n_b == n_b)
    return;
  self->n_text_tokens = n_tokens;
  self->n_a = n_a;
  self->n_b = n_b;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_TEXT_TOKENS]);
}

/* The tokens of TEXT alone, without special tokens; -1 when it cannot be tokenized. */
static int
own_tokens (AsTokenizer *tokenizer, const char *text)
{
  g_autoptr (AsEncoding) enc
      = as_tokenizer_encode_full (tokenizer, text, -1, NULL, 0, AS_ENCODE_NO_SPECIAL, NULL);
  return enc != NULL ? (int) enc->ids->len : -1;
}

/* Counts the text's tokens now (a decoder's or an encoder's: a translation's come with its pass),
 * so that the token count and a too-long message change in the frame the text does, not when a
 * pass over it ends (tokenizing takes a millisecond, a pass far longer). Ends truncation when the
 * text fits. Returns FALSE, with the message, when the text is longer than the context and not
 * to be truncated: no pass would succeed. */
static gboolean
count_now (AttnscopeRun *self)
{
  AsTokenizer *tokenizer = as_model_get_tokenizer (self->model);
  const char *pair = attnscope_run_get_pair_in_use (self);
  int n = -1, n_a = -1, n_b = -1;
  if (self->ids != NULL)
    n = (int) self->ids->len;
  else if (tokenizer != NULL)
    {
      g_autoptr (AsEncoding) enc
          = as_tokenizer_encode_full (tokenizer, self->text, -1, pair, -1, AS_ENCODE_DEFAULT, NULL);
      n = enc != NULL ? (int) enc->ids->len : -1;
      if (pair != NULL)
        n_a = own_tokens (tokenizer, self->text), n_b = own_tokens (tokenizer, pair);
    }
  set_counts (self, n, n_a, n_b);
  int context = as_model_get_config (self->model)->n_positions;
  /* Truncation belongs to the text that needed it: a text that fits ends it. */
  if (self->truncate && n >= 0 && n <= context)
    {
      self->truncate = FALSE;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TRUNCATE]);
    }
  if (n > context && !self->truncate)
    {
      /* the core's words (as_forward); the window names the numbers in its own */
      g_autofree char *message = g_strdup_printf (
          _ ("the input has %d tokens but the model's context length is %d tokens"), n, context);
      set_error (self, message, TRUE);
      return FALSE;
    }
  /* a message about an earlier text goes with it */
  set_error (self, NULL, FALSE);
  return TRUE;
}

/* A pass shows its layers once it has run this long. */
#define PROGRESS_DELAY_US (G_USEC_PER_SEC / 2)
#define PROGRESS_TICK_MS 100

static void
show_progress (AttnscopeRun *self, int done, int total)
{
  if (done == self->shown_done && total == self->shown_total)
    return;
  self->shown_done = done;
  self->shown_total = total;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PROGRESS]);
}

static gboolean
progress_tick (gpointer user_data)
{
  AttnscopeRun *self = user_data;
  if (g_get_monotonic_time () - self->started >= PROGRESS_DELAY_US)
    show_progress (self, g_atomic_int_get (&self->progress->done),
                   g_atomic_int_get (&self->progress->total));
  return G_SOURCE_CONTINUE;
}

/* Follows the progress of the pass CANCELLABLE identifies. */
static void
start_progress (AttnscopeRun *self, GCancellable *cancellable)
{
  self->progress = attnscope_progress_new ();
  attnscope_progress_attach (self->progress, cancellable);
  self->started = g_get_monotonic_time ();
  self->progress_tick = g_timeout_add (PROGRESS_TICK_MS, progress_tick, self);
}

static void
stop_progress (AttnscopeRun *self)
{
  g_clear_handle_id (&self->progress_tick, g_source_remove);
  g_clear_pointer (&self->progress, attnscope_progress_unref);
  show_progress (self, 0, 0);
}

/* Cancels the pass in flight; returns whether there was one. */
static gboolean
cancel (AttnscopeRun *self)
{
  stop_progress (self);
  if (self->cancellable == NULL)
    return FALSE;
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  return TRUE;
}

typedef struct
{
  AttnscopeRun *self;        /* owned */
  GCancellable *cancellable; /* owned: identifies the pass */
  char *text, *pair;
  char *target;
} PassData;

static void
pass_finished (GObject *source, GAsyncResult *result, gpointer user_data)
{
  PassData *data = user_data;
  AttnscopeRun *self = data->self;
  g_autoptr (GError) error = NULL;
  AttnscopeTokenCounts counts;
  g_autoptr (AsTrace) trace = attnscope_forward_text_finish (result, &counts, &error);
  g_autoptr (AttnscopeCross) cross = attnscope_forward_dup_cross (result);
  int n_tokens = counts.n_tokens;
  /* Only the newest pass lands; a stale or cancelled one is dropped. */
  if (self->cancellable == data->cancellable && !g_cancellable_is_cancelled (data->cancellable))
    {
      g_clear_object (&self->cancellable);
      g_object_freeze_notify (G_OBJECT (self));
      stop_progress (self);
      int context = as_model_get_config (self->model)->n_positions;
      if (data->target != NULL)
        context = G_MAXINT; /* a translation's length errors name their numbers themselves */
      /* a text's counts were set when it was set (count_now); a translation's come now */
      if (data->target != NULL || n_tokens >= 0)
        set_counts (self, n_tokens, counts.n_a, counts.n_b);
      if (trace != NULL)
        {
          set_error (self, NULL, FALSE);
          set_trace (self, trace, data->text, data->pair, data->target, cross);
        }
      else
        set_error (self, error->message, n_tokens > context);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RUNNING]);
      g_object_thaw_notify (G_OBJECT (self));
    }
  g_object_unref (data->cancellable);
  g_object_unref (data->self);
  g_free (data->text);
  g_free (data->pair);
  g_free (data->target);
  g_free (data);
}

/* A translation model's pass needs a source and a target: without one the run says so and keeps
 * its trace. Returns whether the pass can run. */
static gboolean
check_translation_input (AttnscopeRun *self)
{
  const char *message = NULL;
  if (self->target == NULL || *self->target == '\0')
    message = _ ("Type the target sentence, or press Translate for the model's translation.");
  if (message == NULL)
    {
      if (self->empty_input)
        set_error (self, NULL, FALSE);
      self->empty_input = FALSE;
      return TRUE;
    }
  set_error (self, message, FALSE);
  self->empty_input = TRUE;
  return FALSE;
}

static void
run (AttnscopeRun *self)
{
  gboolean was_running = cancel (self);
  if (self->model == NULL || self->text == NULL || *self->text == '\0')
    {
      /* Nothing to run: an empty text shows the empty state, not the last text's figure. */
      set_error (self, NULL, FALSE);
      self->empty_input = FALSE;
      set_counts (self, -1, -1, -1);
      set_trace (self, NULL, NULL, NULL, NULL, NULL);
      if (was_running)
        g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RUNNING]);
      return;
    }
  if ((translation_model (self) && !check_translation_input (self))
      || (!translation_model (self) && !count_now (self)))
    {
      if (was_running)
        g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RUNNING]);
      return;
    }
  self->cancellable = g_cancellable_new ();
  start_progress (self, self->cancellable);
  PassData *data = g_new0 (PassData, 1);
  data->self = g_object_ref (self);
  data->cancellable = g_object_ref (self->cancellable);
  data->text = g_strdup (self->text);
  if (translation_model (self))
    {
      data->target = g_strdup (self->target);
      attnscope_forward_translation_async (self->model, self->text, self->target, self->cancellable,
                                           pass_finished, data);
    }
  else if (self->ids != NULL)
    attnscope_forward_ids_whatif_async (self->model, self->ids, self->whatif, self->cancellable,
                                        pass_finished, data);
  else
    {
      data->pair = g_strdup (attnscope_run_get_pair_in_use (self));
      attnscope_forward_text_whatif_async (self->model, data->text, data->pair, self->truncate,
                                           self->whatif, self->cancellable, pass_finished, data);
    }
  if (!was_running)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RUNNING]);
}

static void cancel_translation (AttnscopeRun *self);

void
attnscope_run_set_whatif (AttnscopeRun *self, AttnscopeWhatifState *whatif)
{
  g_return_if_fail (ATTNSCOPE_IS_RUN (self));
  if (attnscope_whatif_state_equal (self->whatif, whatif))
    return;
  g_clear_pointer (&self->whatif, attnscope_whatif_state_unref);
  self->whatif = whatif != NULL ? attnscope_whatif_state_ref (whatif) : NULL;
  /* the last trace stays on screen until the changed model's pass lands */
  if (!translation_model (self))
    run (self);
}

void
attnscope_run_set_text (AttnscopeRun *self, const char *text)
{
  g_return_if_fail (ATTNSCOPE_IS_RUN (self));
  if (g_strcmp0 (self->text, text) == 0)
    return;
  /* a translation of the old text would no longer fit */
  cancel_translation (self);
  g_free (self->text);
  self->text = g_strdup (text);
  /* a typed text is tokenized again */
  g_clear_pointer (&self->ids, g_array_unref);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TEXT]);
  run (self);
}

/* The text of IDS [N] as the entry shows it: decoded as Hugging Face decodes, without the special
 * tokens the tokenizer put before the text (a Llama's <s>). Newly allocated. */
static char *
ids_text (const AsTokenizer *tokenizer, const int32_t *ids, int n)
{
  int first = 0;
  while (first < n && as_tokenizer_is_special (tokenizer, ids[first]))
    first++;
  return as_tokenizer_decode (tokenizer, ids + first, (gsize) (n - first));
}

gboolean
attnscope_run_append_id (AttnscopeRun *self, const AsTrace *from, int32_t id)
{
  g_return_val_if_fail (ATTNSCOPE_IS_RUN (self), FALSE);
  g_return_val_if_fail (from != NULL, FALSE);
  AsTokenizer *tokenizer = self->model != NULL ? as_model_get_tokenizer (self->model) : NULL;
  if (tokenizer == NULL || translation_model (self) || from->ids == NULL)
    return FALSE;
  GArray *ids = g_array_sized_new (FALSE, FALSE, sizeof (int32_t), from->n_tokens + 1);
  g_array_append_vals (ids, from->ids, from->n_tokens);
  g_array_append_val (ids, id);
  g_autofree char *text = ids_text (tokenizer, (const int32_t *) ids->data, (int) ids->len);
  cancel_translation (self);
  g_free (self->text);
  self->text = g_steal_pointer (&text);
  g_clear_pointer (&self->ids, g_array_unref);
  self->ids = ids;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TEXT]);
  run (self);
  return TRUE;
}

const GArray *
attnscope_run_get_ids (AttnscopeRun *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_RUN (self), NULL);
  return self->ids;
}

void
attnscope_run_set_target (AttnscopeRun *self, const char *target)
{
  g_return_if_fail (ATTNSCOPE_IS_RUN (self));
  if (g_strcmp0 (self->target, target) == 0)
    return;
  /* a target typed meanwhile wins over the translation in flight */
  cancel_translation (self);
  g_free (self->target);
  self->target = g_strdup (target);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TARGET]);
  if (translation_model (self))
    run (self);
}

const char *
attnscope_run_get_target (AttnscopeRun *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_RUN (self), NULL);
  return self->target;
}

const char *
attnscope_run_get_trace_target (AttnscopeRun *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_RUN (self), NULL);
  return self->trace_target;
}

AttnscopeCross *
attnscope_run_get_cross (AttnscopeRun *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_RUN (self), NULL);
  return self->cross;
}

gboolean
attnscope_run_get_translating (AttnscopeRun *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_RUN (self), FALSE);
  return self->translating != NULL;
}

static void
cancel_translation (AttnscopeRun *self)
{
  if (self->translating == NULL)
    return;
  g_cancellable_cancel (self->translating);
  g_clear_object (&self->translating);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TRANSLATING]);
}

static void
translation_finished (GObject *source, GAsyncResult *result, gpointer user_data)
{
  PassData *data = user_data;
  AttnscopeRun *self = data->self;
  g_autoptr (GError) error = NULL;
  g_autofree char *text = attnscope_translate_text_finish (result, &error);
  if (self->translating == data->cancellable && !g_cancellable_is_cancelled (data->cancellable))
    {
      g_clear_object (&self->translating);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TRANSLATING]);
      if (text != NULL)
        attnscope_run_set_target (self, text);
      else
        set_error (self, error->message, FALSE);
    }
  g_object_unref (data->cancellable);
  g_object_unref (data->self);
  g_free (data);
}

void
attnscope_run_translate (AttnscopeRun *self)
{
  g_return_if_fail (ATTNSCOPE_IS_RUN (self));
  if (!translation_model (self))
    return;
  cancel_translation (self);
  if (self->text == NULL || *self->text == '\0')
    {
      set_error (self, _ ("The source text is empty: type the sentence to translate."), FALSE);
      self->empty_input = TRUE;
      return;
    }
  self->translating = g_cancellable_new ();
  PassData *data = g_new0 (PassData, 1);
  data->self = g_object_ref (self);
  data->cancellable = g_object_ref (self->translating);
  attnscope_translate_text_async (self->model, self->text, self->translating, translation_finished,
                                  data);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TRANSLATING]);
}

void
attnscope_run_set_pair (AttnscopeRun *self, const char *pair)
{
  g_return_if_fail (ATTNSCOPE_IS_RUN (self));
  if (pair != NULL && *pair == '\0')
    pair = NULL;
  if (g_strcmp0 (self->pair, pair) == 0)
    return;
  g_free (self->pair);
  self->pair = g_strdup (pair);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PAIR]);
  run (self);
}

const char *
attnscope_run_get_pair (AttnscopeRun *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_RUN (self), NULL);
  return self->pair;
}

const char *
attnscope_run_get_pair_in_use (AttnscopeRun *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_RUN (self), NULL);
  return self->pair != NULL && self->model != NULL && as_model_takes_pairs (self->model)
             ? self->pair
             : NULL;
}

const char *
attnscope_run_get_trace_pair (AttnscopeRun *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_RUN (self), NULL);
  return self->trace_pair;
}

void
attnscope_run_get_pair_tokens (AttnscopeRun *self, int *n_a, int *n_b)
{
  g_return_if_fail (ATTNSCOPE_IS_RUN (self));
  *n_a = self->n_a;
  *n_b = self->n_b;
}

void
attnscope_run_set_model (AttnscopeRun *self, AsModel *model)
{
  g_return_if_fail (ATTNSCOPE_IS_RUN (self));
  if (self->model == model)
    return;
  g_object_freeze_notify (G_OBJECT (self));
  g_clear_pointer (&self->model, as_model_unref);
  self->model = model != NULL ? as_model_ref (model) : NULL;
  cancel_translation (self);
  /* A trace of another model would no longer match the model's shape, its ids another
   * vocabulary: the text is tokenized again. */
  set_trace (self, NULL, NULL, NULL, NULL, NULL);
  g_clear_pointer (&self->ids, g_array_unref);
  if (!translation_model (self) && self->empty_input)
    set_error (self, NULL, FALSE);
  self->empty_input = FALSE;
  run (self);
  g_object_thaw_notify (G_OBJECT (self));
}

void
attnscope_run_set_truncate (AttnscopeRun *self, gboolean truncate)
{
  g_return_if_fail (ATTNSCOPE_IS_RUN (self));
  if (self->truncate == !!truncate)
    return;
  self->truncate = !!truncate;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TRUNCATE]);
  run (self);
}

gboolean
attnscope_run_get_truncate (AttnscopeRun *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_RUN (self), FALSE);
  return self->truncate;
}

int
attnscope_run_get_n_text_tokens (AttnscopeRun *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_RUN (self), -1);
  return self->n_text_tokens;
}

gboolean
attnscope_run_get_truncated (AttnscopeRun *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_RUN (self), FALSE);
  return self->trace != NULL && self->truncate && self->n_text_tokens > self->trace->n_tokens;
}

const char *
attnscope_run_get_text (AttnscopeRun *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_RUN (self), NULL);
  return self->text;
}

AsTrace *
attnscope_run_get_trace (AttnscopeRun *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_RUN (self), NULL);
  return self->trace;
}

const char *
attnscope_run_get_trace_text (AttnscopeRun *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_RUN (self), NULL);
  return self->trace_text;
}

gboolean
attnscope_run_get_running (AttnscopeRun *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_RUN (self), FALSE);
  return self->cancellable != NULL;
}

const char *
attnscope_run_get_error_message (AttnscopeRun *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_RUN (self), NULL);
  return self->error_message;
}

gboolean
attnscope_run_get_too_long (AttnscopeRun *self)
{
  g_return_val_if_fail (ATTNSCOPE_IS_RUN (self), FALSE);
  return self->too_long;
}

gboolean
attnscope_run_get_progress (AttnscopeRun *self, int *done, int *total)
{
  g_return_val_if_fail (ATTNSCOPE_IS_RUN (self), FALSE);
  *done = self->shown_done;
  *total = self->shown_total;
  return self->shown_total > 0;
}

void
attnscope_run_cancel (AttnscopeRun *self)
{
  g_return_if_fail (ATTNSCOPE_IS_RUN (self));
  if (cancel (self))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RUNNING]);
}

static void
attnscope_run_dispose (GObject *object)
{
  AttnscopeRun *self = ATTNSCOPE_RUN (object);
  cancel (self);
  if (self->translating != NULL)
    g_cancellable_cancel (self->translating);
  g_clear_object (&self->translating);
  g_clear_pointer (&self->trace, as_trace_unref);
  g_clear_pointer (&self->cross, attnscope_cross_unref);
  g_clear_pointer (&self->model, as_model_unref);
  G_OBJECT_CLASS (attnscope_run_parent_class)->dispose (object);
}

static void
attnscope_run_finalize (GObject *object)
{
  AttnscopeRun *self = ATTNSCOPE_RUN (object);
  g_free (self->text);
  g_free (self->target);
  g_free (self->pair);
  g_clear_pointer (&self->ids, g_array_unref);
  g_free (self->trace_text);
  g_free (self->trace_pair);
  g_free (self->trace_target);
  g_free (self->error_message);
  g_clear_pointer (&self->whatif, attnscope_whatif_state_unref);
  G_OBJECT_CLASS (attnscope_run_parent_class)->finalize (object);
}

static void
attnscope_run_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  AttnscopeRun *self = ATTNSCOPE_RUN (object);
  switch (prop_id)
    {
    case PROP_TEXT:
      g_value_set_string (value, self->text);
      break;
    case PROP_PAIR:
      g_value_set_string (value, self->pair);
      break;
    case PROP_TRACE:
      g_value_set_boxed (value, self->trace);
      break;
    case PROP_RUNNING:
      g_value_set_boolean (value, attnscope_run_get_running (self));
      break;
    case PROP_ERROR_MESSAGE:
      g_value_set_string (value, self->error_message);
      break;
    case PROP_TOO_LONG:
      g_value_set_boolean (value, self->too_long);
      break;
    case PROP_TRUNCATE:
      g_value_set_boolean (value, self->truncate);
      break;
    case PROP_N_TEXT_TOKENS:
      g_value_set_int (value, self->n_text_tokens);
      break;
    case PROP_TARGET:
      g_value_set_string (value, self->target);
      break;
    case PROP_TRANSLATING:
      g_value_set_boolean (value, self->translating != NULL);
      break;
    case PROP_PROGRESS:
      g_value_set_double (
          value, self->shown_total > 0 ? (double) self->shown_done / self->shown_total : -1.0);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
attnscope_run_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  AttnscopeRun *self = ATTNSCOPE_RUN (object);
  switch (prop_id)
    {
    case PROP_TEXT:
      attnscope_run_set_text (self, g_value_get_string (value));
      break;
    case PROP_PAIR:
      attnscope_run_set_pair (self, g_value_get_string (value));
      break;
    case PROP_TRUNCATE:
      attnscope_run_set_truncate (self, g_value_get_boolean (value));
      break;
    case PROP_TARGET:
      attnscope_run_set_target (self, g_value_get_string (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
attnscope_run_class_init (AttnscopeRunClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  object_class->dispose = attnscope_run_dispose;
  object_class->finalize = attnscope_run_finalize;
  object_class->get_property = attnscope_run_get_property;
  object_class->set_property = attnscope_run_set_property;

  GParamFlags ro = G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;
  properties[PROP_TEXT]
      = g_param_spec_string ("text", NULL, NULL, NULL,
                             G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_PAIR]
      = g_param_spec_string ("pair", NULL, NULL, NULL,
                             G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_TRACE] = g_param_spec_boxed ("trace", NULL, NULL, ATTNSCOPE_TYPE_TRACE, ro);
  properties[PROP_RUNNING] = g_param_spec_boolean ("running", NULL, NULL, FALSE, ro);
  properties[PROP_ERROR_MESSAGE] = g_param_spec_string ("error-message", NULL, NULL, NULL, ro);
  properties[PROP_TOO_LONG] = g_param_spec_boolean ("too-long", NULL, NULL, FALSE, ro);
  properties[PROP_TRUNCATE]
      = g_param_spec_boolean ("truncate", NULL, NULL, FALSE,
                              G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_N_TEXT_TOKENS]
      = g_param_spec_int ("n-text-tokens", NULL, NULL, -1, G_MAXINT, -1, ro);
  properties[PROP_TARGET]
      = g_param_spec_string ("target", NULL, NULL, NULL,
                             G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_TRANSLATING] = g_param_spec_boolean ("translating", NULL, NULL, FALSE, ro);
  properties[PROP_PROGRESS] = g_param_spec_double ("progress", NULL, NULL, -1.0, 1.0, -1.0, ro);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
attnscope_run_init (AttnscopeRun *self)
{
  self->n_text_tokens = -1;
  self->n_a = self->n_b = -1;
}

AttnscopeRun *
attnscope_run_new (void)
{
  return g_object_new (ATTNSCOPE_TYPE_RUN, NULL);
}
