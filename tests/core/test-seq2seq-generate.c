/* test-seq2seq-generate.c — the generation options of real encoder–decoder checkpoints
 * (facebook/bart-large-cnn's and distilbart-cnn's generation_config.json: forced_bos_token_id,
 * no_repeat_ngram_size, length_penalty, early_stopping, min_length; mBART's forced_bos_token_id
 * = the target language) on random BART, mBART and T5 models, greedy and beam search id for id
 * with the reference's generate (tests/reference/marian_generate.py, transformers' processors),
 * beam scores within 1e-4.
 *
 * Each option is checked to matter: on the same weights and sources, the model folder with the
 * option gives other ids than the one without it (greedy and beam search for the processors,
 * beam search only for length_penalty and early_stopping, which greedy search ignores: there
 * the ids must be equal). The random BART's </s> is made likely (final_logits_bias + 14) and
 * no_repeat_ngram_size 3 keeps it out of one-token loops, so beams close at varied lengths and
 * the length penalty and early stopping change which hypothesis wins. Keys attnscope does not
 * implement are refused naming the key. */
#include <string.h>

#include "as-error.h"
#include "as-model.h"
#include "as-translate.h"
#include "bart-models.h"
#include "marian-fixtures.h"
#include "seq2seq-test.h"
#include "t5-models.h"

#define EOS_BASE "--seed", "1", "--eos-bias", "14", "--min-length", "3"
#define NGRAM3 "--gen", "no_repeat_ngram_size=3"

static const char *const eos_base[] = { EOS_BASE, NGRAM3, NULL };
static const char *const eos_lp2[] = { EOS_BASE, NGRAM3, "--gen", "length_penalty=2.0", NULL };
static const char *const eos_early[] = { EOS_BASE, NGRAM3, "--gen", "early_stopping=true", NULL };
static const char *const eos_bos[] = { EOS_BASE, NGRAM3, "--gen", "forced_bos_token_id=0", NULL };
static const char *const post_ngram3[] = { "--seed", "1", "--min-length", "6", NGRAM3, NULL };
/* bart-large-cnn's generation_config.json on top of the make-model defaults (bos 0,
 * decoder_start 2, eos 2, forced_eos 2, pad 1) */
static const char *const cnn[] = { "--seed",
                                   "1",
                                   "--eos-bias",
                                   "14",
                                   "--num-beams",
                                   "4",
                                   "--max-length",
                                   "142",
                                   "--min-length",
                                   "56",
                                   "--gen",
                                   "forced_bos_token_id=0",
                                   "--gen",
                                   "length_penalty=2.0",
                                   "--gen",
                                   "no_repeat_ngram_size=3",
                                   "--gen",
                                   "early_stopping=true",
                                   NULL };

typedef struct
{
  const char *name;
  const char *const *args;
  Seq2seqGenerated generated;
  Seq2seqIds ids;
  int vocab;
  char *dir;
  AsModel *model;
} Variant;

static gboolean
variant_open (Variant *v)
{
  v->dir
      = v->generated == t5_generated ? t5_model (v->name, v->args) : bart_model (v->name, v->args);
  if (v->dir == NULL)
    return FALSE;
  GError *error = NULL;
  v->model = as_model_load (v->dir, &error);
  g_assert_no_error (error);
  return TRUE;
}

static void
variant_close (Variant *v)
{
  g_clear_pointer (&v->model, as_model_unref);
  g_clear_pointer (&v->dir, g_free);
}

static gboolean
same_ids (const GArray *a, const GArray *b)
{
  return a->len == b->len && memcmp (a->data, b->data, a->len * sizeof (int32_t)) == 0;
}

/* No n-gram of size N occurs twice in IDS. */
static void
assert_no_repeated_ngram (const GArray *ids, int n)
{
  const int32_t *x = (const int32_t *) ids->data;
  for (int i = 0; i + n <= (int) ids->len; i++)
    for (int j = i + 1; j + n <= (int) ids->len; j++)
      g_assert_true (memcmp (x + i, x + j, (gsize) n * sizeof (int32_t)) != 0);
}

/* OPTION against BASE (the same weights without the option) on two sources, greedy and 4
 * beams, MAX_LENGTH tokens: both id for id with the reference; the option changes some beam
 * search's ids, and greedy search's when GREEDY_CHANGES, else none. CHECK (may be NULL) is
 * called on the option's every result. */
static void
check_option (Variant *option, Variant *base, int max_length, gboolean greedy_changes,
              void (*check) (const GArray *ids))
{
  if (!variant_open (option) || !variant_open (base))
    {
      variant_close (option), variant_close (base);
      return;
    }
  const int beams[] = { 1, 4 };
  for (int b = 0; b < 2; b++)
    {
      int changed = 0;
      for (guint32 i = 0; i < 2; i++)
        {
          g_autofree char *src = option->ids (9, option->vocab, 700 + i, TRUE);
          g_autoptr (GArray) got
              = seq2seq_check_generate (option->model, option->dir, option->name, option->generated,
                                        src, beams[b], max_length);
          g_autoptr (GArray) was = seq2seq_check_generate (
              base->model, base->dir, base->name, base->generated, src, beams[b], max_length);
          if (got == NULL || was == NULL)
            goto out;
          changed += !same_ids (got, was);
          if (check != NULL)
            check (got);
        }
      g_test_message ("%s vs %s, %d beams: %d of 2 sources changed", option->name, base->name,
                      beams[b], changed);
      if (beams[b] > 1 || greedy_changes)
        g_assert_cmpint (changed, >, 0);
      else
        g_assert_cmpint (changed, ==, 0);
    }
out:
  variant_close (option), variant_close (base);
}

static void
check_forced_bos_0 (const GArray *ids)
{
  g_assert_cmpint (ids->len, >=, 2);
  g_assert_cmpint (g_array_index (ids, int32_t, 1), ==, 0);
}

static void
check_no_trigram (const GArray *ids)
{
  assert_no_repeated_ngram (ids, 3);
}

#define BART(name, args)                                                                           \
  {                                                                                                \
    name, args, bart_generated, bart_ids, 300, NULL, NULL                                          \
  }

static void
test_forced_bos (void)
{
  Variant option = BART ("bart-eos-bos", eos_bos), base = BART ("bart-eos", eos_base);
  check_option (&option, &base, 24, TRUE, check_forced_bos_0);
}

static void
test_no_repeat_ngram (void)
{
  Variant option = BART ("bart-post-ngram3", post_ngram3), base = BART ("bart-post", bart_post);
  check_option (&option, &base, 24, TRUE, check_no_trigram);
}

static void
test_length_penalty (void)
{
  Variant option = BART ("bart-eos-lp2", eos_lp2), base = BART ("bart-eos", eos_base);
  check_option (&option, &base, 24, FALSE, NULL);
}

static void
test_early_stopping (void)
{
  Variant option = BART ("bart-eos-early", eos_early), base = BART ("bart-eos", eos_base);
  check_option (&option, &base, 24, FALSE, NULL);
}

/* bart-large-cnn's settings all at once (4 beams, max_length 142, min_length 56): the result
 * starts <s> after the start token, is at least 56 tokens long and repeats no trigram. */
static void
test_cnn_settings (void)
{
  Variant v = BART ("bart-cnn", cnn);
  if (!variant_open (&v))
    return;
  const AsGenerationConfig *g = as_model_get_generation_config (v.model);
  g_assert_cmpint (g->forced_bos_token_id, ==, 0);
  g_assert_cmpint (g->no_repeat_ngram_size, ==, 3);
  g_assert_cmpfloat (g->length_penalty, ==, 2.0);
  g_assert_true (g->early_stopping);
  for (int beams = 1; beams <= 4; beams += 3)
    for (guint32 i = 0; i < 2; i++)
      {
        g_autofree char *src = bart_ids (20, 300, 800 + i, TRUE);
        g_autoptr (GArray) ids
            = seq2seq_check_generate (v.model, v.dir, v.name, bart_generated, src, beams, 0);
        if (ids == NULL)
          break;
        g_test_message ("cnn, %d beams: %u ids", beams, ids->len);
        check_forced_bos_0 (ids);
        check_no_trigram (ids);
        g_assert_cmpint (ids->len, >=, 56);
        g_assert_cmpint (ids->len, <=, 142);
        g_assert_cmpint (g_array_index (ids, int32_t, ids->len - 1), ==, 2);
      }
  variant_close (&v);
}

/* mBART's forced_bos_token_id: the target language's id right after the start token. */
static void
test_mbart_language (void)
{
  g_autoptr (GPtrArray) args = g_ptr_array_new ();
  for (const char *const *a = bart_mbart; *a != NULL; a++)
    g_ptr_array_add (args, (gpointer) *a);
  g_ptr_array_add (args, "--gen");
  g_ptr_array_add (args, "forced_bos_token_id=250");
  g_ptr_array_add (args, NULL);
  Variant v = { "mbart-lang", (const char *const *) args->pdata, bart_generated, bart_ids, 320 };
  if (!variant_open (&v))
    return;
  for (int beams = 1; beams <= 4; beams += 3)
    {
      g_autofree char *src = bart_ids (12, 320, 900, TRUE);
      g_autoptr (GArray) ids
          = seq2seq_check_generate (v.model, v.dir, v.name, bart_generated, src, beams, 16);
      if (ids == NULL)
        break;
      g_assert_cmpint (g_array_index (ids, int32_t, 1), ==, 250);
    }
  variant_close (&v);
}

/* T5 shares the search: no_repeat_ngram_size 2 and a forced first token on the relu model. */
static void
test_t5 (void)
{
  static const char *const ngram2[]
      = { "--ff-proj", "relu", "--seed", "1", "--gen", "no_repeat_ngram_size=2", NULL };
  static const char *const bos[]
      = { "--ff-proj", "relu", "--seed", "1", "--gen", "forced_bos_token_id=5", NULL };
  Variant option = { "t5-relu-ngram2", ngram2, t5_generated, t5_ids, 300 };
  Variant base = { "t5-relu", t5_relu, t5_generated, t5_ids, 300 };
  check_option (&option, &base, 20, TRUE, NULL);
  Variant forced = { "t5-relu-bos5", bos, t5_generated, t5_ids, 300 };
  check_option (&forced, &base, 20, TRUE, NULL);
}

/* A generation_config.json with KEY: VALUE (JSON) added to the BART model's is refused naming
 * the key. */
static void
assert_refused (const char *dir, const char *key, const char *value, const char *needle)
{
  const char *skip[] = { "generation_config.json", NULL };
  g_autofree char *name = g_strdup_printf ("refuse-%s", key);
  g_autofree char *copy = marian_copy_model (dir, name, skip);
  g_autofree char *from = g_build_filename (dir, "generation_config.json", NULL);
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (from, &text, NULL, NULL));
  char *brace = strchr (text, '{');
  g_assert_nonnull (brace);
  g_autofree char *out = g_strdup_printf ("{\n  \"%s\": %s,%s", key, value, brace + 1);
  g_autofree char *to = g_build_filename (copy, "generation_config.json", NULL);
  g_assert_true (g_file_set_contents (to, out, -1, NULL));
  GError *error = NULL;
  g_assert_null (as_model_load (copy, &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_CONFIG);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, needle));
  g_clear_error (&error);
}

static void
test_refused (void)
{
  g_autofree char *dir = bart_model ("bart-post", bart_post);
  if (dir == NULL)
    return;
  assert_refused (dir, "encoder_no_repeat_ngram_size", "2", "encoder_no_repeat_ngram_size is 2");
  assert_refused (dir, "repetition_penalty", "1.2", "repetition_penalty is 1.2");
  assert_refused (dir, "no_repeat_ngram_size", "-1", "no_repeat_ngram_size");
  assert_refused (dir, "forced_bos_token_id", "300", "forced_bos_token_id");
  assert_refused (dir, "do_sample", "true", "do_sample is true");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/seq2seq-generate/forced-bos", test_forced_bos);
  g_test_add_func ("/seq2seq-generate/no-repeat-ngram", test_no_repeat_ngram);
  g_test_add_func ("/seq2seq-generate/length-penalty", test_length_penalty);
  g_test_add_func ("/seq2seq-generate/early-stopping", test_early_stopping);
  g_test_add_func ("/seq2seq-generate/bart-large-cnn", test_cnn_settings);
  g_test_add_func ("/seq2seq-generate/mbart-language", test_mbart_language);
  g_test_add_func ("/seq2seq-generate/t5", test_t5);
  g_test_add_func ("/seq2seq-generate/refused", test_refused);
  return g_test_run ();
}
