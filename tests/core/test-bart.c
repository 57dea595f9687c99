/* test-bart.c — the bart family (BART post-norm, mBART pre-norm with a DistilBART-like decoder
 * depth) against the project's independent PyTorch reference of Hugging Face's eager
 * modeling_bart.py / modeling_mbart.py (tests/reference/bart_reference.py; models and outputs
 * cached by bart-models.c).
 *
 * Forward: source/target pairs at T = 1, a prime length and >= 256 through
 * as_forward_translation (all logits): encoder, decoder and cross-attention within 1e-5 absolute,
 * hidden states of both stacks and the logits within |a − e| ≤ 1e-4·|e| + 1e-5·rms(e), masked
 * decoder weights exactly 0 and every row summing to 1.
 *
 * Generation: greedy and beam search id for id with the reference's generate (marian_generate.py
 * with the model's generation_config.json), beam scores within 1e-4.
 *
 * Text and settings: the byte-level BPE tokenizer.json puts <s> … </s> around a text
 * (RobertaProcessing); `info`'s settings name the norm placement, the position offset and the
 * embedding scale; tie_word_embeddings false is refused naming the key. */
#include <glib/gstdio.h>
#include <hdf5.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "as-error.h"
#include "as-forward.h"
#include "as-model.h"
#include "as-tokenizer.h"
#include "as-translate.h"
#include "bart-models.h"
#include "check-close.h"
#include "marian-fixtures.h"
#include "seq2seq-test.h"

/* Source/target pairs at T = 1, a prime and ≥ 256. */
static void
compare_model (const char *name, const char *const *args, int vocab, const char *label)
{
  g_autofree char *dir = bart_model (name, args);
  seq2seq_compare_model (dir, bart_expected, bart_ids, vocab, label, NULL);
}

static void
test_forward_bart (void)
{
  compare_model ("bart-post", bart_post, 300, "bart post-norm f32");
}

static void
test_forward_mbart (void)
{
  compare_model ("mbart-pre", bart_mbart, 320, "mbart pre-norm bf16 sharded");
}

static const Seq2seqCase generate_cases[]
    = { { 9, 1, 0 }, { 9, 3, 0 }, { 20, 0, 12 }, { 5, 4, 16 }, { 31, 2, 25 } };

/* Greedy and beam search id for id with the reference. */
static void
compare_generate (const char *name, const char *const *args, int vocab)
{
  g_autofree char *dir = bart_model (name, args);
  seq2seq_compare_generate (dir, name, bart_generated, bart_ids, vocab, generate_cases,
                            G_N_ELEMENTS (generate_cases));
}

static void
test_generate_bart (void)
{
  compare_generate ("bart-post", bart_post, 300);
}

static void
test_generate_mbart (void)
{
  compare_generate ("mbart-pre", bart_mbart, 320);
}

/* Settings in info, the tokenizer's template, a refused key. */
static void
test_settings (void)
{
  g_autofree char *dir = bart_model ("bart-post", bart_post);
  g_autofree char *mdir = bart_model ("mbart-pre", bart_mbart);
  if (dir == NULL || mdir == NULL)
    return;
  GError *error = NULL;
  g_autoptr (AsModel) model = as_model_load (dir, &error);
  g_assert_no_error (error);
  g_auto (GStrv) settings = as_config_dup_settings (as_model_get_config (model));
  g_autofree char *joined = g_strjoinv ("=", settings);
  g_test_message ("%s", joined);
  g_assert_nonnull (strstr (joined, "norm=post-norm LayerNorm"));
  g_assert_nonnull (strstr (joined, "positions=learned, offset 2 (table of 302 rows)"));
  g_assert_nonnull (strstr (joined, "scale_embedding=false"));
  g_assert_nonnull (strstr (joined, "activation_function=gelu (erf)"));

  g_autoptr (AsModel) mbart = as_model_load (mdir, &error);
  g_assert_no_error (error);
  g_auto (GStrv) msettings = as_config_dup_settings (as_model_get_config (mbart));
  g_autofree char *mjoined = g_strjoinv ("=", msettings);
  g_assert_nonnull (strstr (mjoined, "norm=pre-norm LayerNorm, a final layer_norm"));
  g_assert_nonnull (strstr (mjoined, "scale_embedding=true (×9.79796)"));

  /* <s> the text </s>: byte-level symbols, the merge of "Ġt" and "h" */
  AsTokenizer *tok = as_model_get_tokenizer (model);
  g_assert_nonnull (tok);
  g_autoptr (GArray) ids = as_tokenizer_encode (tok, "a the", -1, &error);
  g_assert_no_error (error);
  g_assert_cmpint (ids->len, >=, 3);
  g_assert_cmpint (g_array_index (ids, int32_t, 0), ==, 0);
  g_assert_cmpint (g_array_index (ids, int32_t, ids->len - 1), ==, 2);

  g_autofree char *untied = seq2seq_edited_copy (dir, "untied", "tie_word_embeddings", "false");
  g_assert_null (as_model_load (untied, &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_CONFIG);
  g_assert_nonnull (strstr (error->message, "tie_word_embeddings is false"));
  g_clear_error (&error);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/bart/forward/bart", test_forward_bart);
  g_test_add_func ("/bart/forward/mbart-bf16-sharded", test_forward_mbart);
  g_test_add_func ("/bart/generate/bart", test_generate_bart);
  g_test_add_func ("/bart/generate/mbart", test_generate_mbart);
  g_test_add_func ("/bart/settings", test_settings);
  return g_test_run ();
}
