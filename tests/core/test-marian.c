/* test-marian.c — the marian family against the project's independent PyTorch reference
 * (tests/reference/marian_reference.py, through the fixtures of make_marian_fixtures.py).
 *
 * Forward: every pair of every expected file is run with as_forward_translation (all logits) and
 * all six captured arrays are compared (tests/README.md, "Tolerances"): encoder, decoder and cross
 * attention within 1e-5 absolute; encoder and decoder hidden states and logits within
 * |a − e| ≤ 1e-4·|e| + 1e-5·rms(e). Masked decoder weights must be exactly 0 and every
 * attention row must sum to 1. Models: a random model read from tf_model.h5 and, the same
 * tensors, from model.safetensors; another shape with the pre-4.27 embedding name and no
 * final_logits_bias; a file whose embed_positions are not the sinusoid formula (the file's table
 * wins, as in Hugging Face) and one without them (the formula); the shipped attnscope-mini-en-de.
 *
 * Generation: greedy and beam search id for id with the reference's generate, with the model's
 * generation settings and with other beam counts and max_length; beam scores within 1e-4; the
 * decoded text equal. The step decoder's logits equal the last row of a full pass.
 *
 * Bad input: missing target.spm, vocab.json without <unk>, a damaged source.spm, a target or
 * max_length beyond the decoder's positions, an empty source, weights the config does not
 * match, generation settings attnscope does not implement, one-text entry points on a
 * translation model and the pair entry point on GPT-2. */
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "as-error.h"
#include "as-forward.h"
#include "as-head-stats.h"
#include "as-model.h"
#include "as-translate.h"
#include "check-close.h"
#include "family-private.h"
#include "marian-fixtures.h"
#include "seq2seq-test.h"

/* --- forward against the reference ----------------------------------------------------------- */

/* Runs MODEL on group GROUP of FILE and compares the six arrays (seq2seq-test.h), the ids and
 * the masks; the default pass (the last position's logits) gives the same numbers. */
static void
compare_group (AsModel *model, hid_t file, const char *group, const char *label)
{
  g_autoptr (GArray) src = marian_read_ids (file, group, "source_ids");
  g_autoptr (GArray) tgt = marian_read_ids (file, group, "target_ids");
  g_assert_nonnull (src);
  g_assert_nonnull (tgt);
  g_autoptr (AsTrace) t = seq2seq_compare_group (model, file, group, label);
  const AsTrace *e = t->source;
  g_assert_cmpint (e->n_tokens, ==, src->len);
  g_assert_cmpint (t->n_tokens, ==, tgt->len);
  g_assert_false (e->causal);
  g_assert_true (t->causal);
  g_assert_cmpmem (e->ids, e->n_tokens * 4, src->data, src->len * 4);
  g_assert_cmpmem (t->ids, t->n_tokens * 4, tgt->data, tgt->len * 4);

  hsize_t T = t->n_tokens, V = t->vocab_size;
  hsize_t logits[] = { T, V };
  g_autofree float *x_lg = marian_read_floats (file, group, "logits", 2, logits);
  g_assert_nonnull (x_lg);
  g_autofree char *w6 = g_strdup_printf ("%s %s logits", label, group);
  GError *error = NULL;
  g_autoptr (AsTrace) last
      = as_forward_translation (model, (int32_t *) src->data, (int) src->len, (int32_t *) tgt->data,
                                (int) tgt->len, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (last->logits_rows, ==, 1);
  marian_check_vectors (w6, last->logits, x_lg + (T - 1) * V, V);
}

/* Compares every group of the expected file of EXPECTED (a manifest name) with MODEL_DIR's
 * model; returns the number of groups. */
static int
compare_expected (const char *model_dir, const char *expected, const char *label)
{
  JsonNode *entry = marian_fixture ("expected", expected);
  if (entry == NULL)
    return 0;
  const char *path = json_object_get_string_member (json_node_get_object (entry), "expected");
  GError *error = NULL;
  g_autoptr (AsModel) model = as_model_load (model_dir, &error);
  g_assert_no_error (error);
  hid_t file = H5Fopen (path, H5F_ACC_RDONLY, H5P_DEFAULT);
  g_assert_cmpint (file, >=, 0);
  int n = 0;
  for (;; n++)
    {
      g_autofree char *group = g_strdup_printf ("seq%d", n);
      if (H5Lexists (file, group, H5P_DEFAULT) <= 0)
        break;
      compare_group (model, file, group, label);
    }
  H5Fclose (file);
  g_test_message ("%s: %d pairs compared", label, n);
  return n;
}

static void
test_forward_h5 (void)
{
  const char *small = marian_fixture_path ("models", "small");
  if (small != NULL)
    g_assert_cmpint (compare_expected (small, "small", "small tf_model.h5"), >=, 6);
}

static void
test_forward_safetensors (void)
{
  const char *small = marian_fixture_path ("models", "small");
  if (small == NULL)
    return;
  const char *skip[] = { "tf_model.h5", NULL };
  g_autofree char *dir = marian_copy_model (small, "small-safetensors", skip);
  g_assert_cmpint (compare_expected (dir, "small", "small model.safetensors"), >=, 6);
}

static void
test_forward_old_names (void)
{
  const char *old = marian_fixture_path ("models", "old-names");
  if (old != NULL)
    g_assert_cmpint (compare_expected (old, "old-names", "old names, no bias"), >=, 6);
}

/* The encoder's first hidden state (embeddings + positions) of pair 0 of "small" from DIR. */
static float *
first_hidden (const char *dir, gsize *n)
{
  GError *error = NULL;
  g_autoptr (AsModel) model = as_model_load (dir, &error);
  g_assert_no_error (error);
  const int32_t src[] = { 5, 9, 13, 0 }, tgt[] = { 0, 5 };
  g_autoptr (AsTrace) t = as_forward_translation (model, src, 4, tgt, 2, NULL, &error);
  g_assert_no_error (error);
  *n = (gsize) 4 * t->d_model;
  return g_memdup2 (t->source->hidden, *n * sizeof (float));
}

static void
test_forward_positions (void)
{
  const char *edited = marian_fixture_path ("models", "positions-edited");
  const char *absent = marian_fixture_path ("models", "positions-absent");
  const char *small = marian_fixture_path ("models", "small");
  if (edited == NULL || absent == NULL || small == NULL)
    return;
  /* the file's tables, from either weight file */
  g_assert_cmpint (compare_expected (edited, "positions-edited", "edited positions h5"), >=, 6);
  const char *skip[] = { "tf_model.h5", NULL };
  g_autofree char *st = marian_copy_model (edited, "edited-safetensors", skip);
  g_assert_cmpint (compare_expected (st, "positions-edited", "edited positions st"), >=, 6);
  /* no tables in the file: the formula, which gives "small"'s outputs */
  g_assert_cmpint (compare_expected (absent, "small", "positions absent"), >=, 6);
  /* and the edited tables really change the embeddings */
  gsize n1, n2;
  g_autofree float *a = first_hidden (small, &n1);
  g_autofree float *b = first_hidden (edited, &n2);
  double diff = 0;
  for (gsize i = 0; i < n1; i++)
    diff = MAX (diff, fabs (a[i] - b[i]));
  g_assert_cmpfloat (diff, >, 0.05);
}

static void
test_forward_shipped (void)
{
  const char *dir = marian_fixture_path ("models", "shipped");
  if (dir == NULL)
    return;
  g_assert_cmpint (compare_expected (dir, "shipped", "attnscope-mini-en-de"), ==, 6);

  /* the same pairs from their texts: source tokens, decoder start + target tokens */
  JsonObject *entry = json_node_get_object (marian_fixture ("expected", "shipped"));
  JsonArray *texts = json_object_get_array_member (entry, "texts");
  JsonArray *pairs = json_object_get_array_member (entry, "pairs");
  GError *error = NULL;
  g_autoptr (AsModel) model = as_model_load (dir, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < json_array_get_length (texts); i++)
    {
      JsonArray *text = json_array_get_array_element (texts, i);
      JsonObject *pair = json_array_get_object_element (pairs, i);
      g_autoptr (GArray) src = marian_json_ids (json_object_get_array_member (pair, "source_ids"));
      g_autoptr (GArray) tgt = marian_json_ids (json_object_get_array_member (pair, "target_ids"));
      g_autoptr (AsTrace) t
          = as_forward_translation_text (model, json_array_get_string_element (text, 0),
                                         json_array_get_string_element (text, 1), NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpmem (t->source->ids, t->source->n_tokens * 4, src->data, src->len * 4);
      g_assert_cmpmem (t->ids, t->n_tokens * 4, tgt->data, tgt->len * 4);
    }
}

/* --- generation ----------------------------------------------------------------------------- */

/* Translates every case of the generate file CASES with model MODEL_NAME. */
static int
compare_generate (const char *model_name, const char *cases_name)
{
  const char *dir = marian_fixture_path ("models", model_name);
  const char *path = marian_fixture_path ("generate", cases_name);
  if (dir == NULL || path == NULL)
    return 0;
  GError *error = NULL;
  g_autoptr (AsModel) model = as_model_load (dir, &error);
  g_assert_no_error (error);
  g_autoptr (JsonParser) parser = json_parser_new ();
  json_parser_load_from_file (parser, path, &error);
  g_assert_no_error (error);
  JsonArray *cases = json_node_get_array (json_parser_get_root (parser));
  int n_eos = 0;
  for (guint i = 0; i < json_array_get_length (cases); i++)
    {
      JsonObject *c = json_array_get_object_element (cases, i);
      g_autoptr (GArray) src = marian_json_ids (json_object_get_array_member (c, "source_ids"));
      g_autoptr (GArray) want = marian_json_ids (json_object_get_array_member (c, "ids"));
      AsTranslateOptions options = {
        .num_beams = (int) json_object_get_int_member (c, "beams"),
        .max_length = (int) json_object_get_int_member (c, "max_length"),
      };
      g_autoptr (AsTranslation) got
          = as_translate (model, (int32_t *) src->data, (int) src->len, &options, &error);
      g_assert_no_error (error);
      g_test_message ("%s case %u: %d beams, max_length %d: %u ids", model_name, i,
                      options.num_beams, options.max_length, want->len);
      g_assert_cmpint (got->num_beams, ==, options.num_beams);
      g_assert_cmpmem (got->ids->data, got->ids->len * 4, want->data, want->len * 4);
      n_eos += (int) want->len < options.max_length; /* </s> chosen, not forced */
      JsonNode *score = json_object_get_member (c, "score");
      if (JSON_NODE_HOLDS_NULL (score))
        g_assert_true (isnan (got->score));
      else
        g_assert_cmpfloat_with_epsilon (got->score, json_node_get_double (score), 1e-4);
      JsonNode *text = json_object_get_member (c, "text");
      if (!JSON_NODE_HOLDS_NULL (text))
        g_assert_cmpstr (got->text, ==, json_node_get_string (text));
    }
  g_test_message ("%s: %u translations equal, %d ended before max_length", cases_name,
                  json_array_get_length (cases), n_eos);
  return (int) json_array_get_length (cases);
}

static void
test_generate_small (void)
{
  g_assert_cmpint (compare_generate ("small", "small"), ==, 40);
}

static void
test_generate_old_names (void)
{
  g_assert_cmpint (compare_generate ("old-names", "old-names"), ==, 12);
}

static void
test_generate_shipped (void)
{
  g_assert_cmpint (compare_generate ("shipped", "shipped"), ==, 18);
  g_assert_cmpint (compare_generate ("shipped", "shipped-heldout"), ==, 16);
}

/* The encoder's and decoder's traces name </s> as their [SEP] and <pad> as their [PAD]: the head
 * statistics' sep share of an encoder head is the mean attention of every row (no [CLS] row to
 * leave out; </s>'s own row included) to the final </s>; cls is NaN. */
static void
test_special_ids (void)
{
  const char *dir = marian_fixture_path ("models", "shipped");
  if (dir == NULL)
    return;
  GError *error = NULL;
  g_autoptr (AsModel) model = as_model_load (dir, &error);
  g_assert_no_error (error);
  g_autoptr (AsTrace) t = as_forward_translation_text (model, "The group went home.",
                                                       "Die Gruppe ging nach Hause.", NULL, &error);
  g_assert_no_error (error);
  const AsGenerationConfig *g = as_model_get_generation_config (model);
  for (AsTrace *side = t; side != NULL; side = side->source)
    {
      g_assert_cmpint (side->special_ids[AS_SPECIAL_SEP], ==, g->eos_token_id);
      g_assert_cmpint (side->special_ids[AS_SPECIAL_PAD], ==, g->pad_token_id);
      g_assert_cmpint (side->special_ids[AS_SPECIAL_CLS], ==, -1);
    }
  AsTrace *enc = t->source;
  int S = enc->n_tokens;
  g_assert_cmpint (enc->ids[S - 1], ==, g->eos_token_id);
  AsHeadStats *stats = as_head_stats_compute (enc);
  for (int l = 0; l < enc->n_layer; l++)
    for (int h = 0; h < enc->n_head; h++)
      {
        const float *P = as_trace_attn_matrices (enc, l, h);
        double sum = 0;
        for (int i = 0; i < S; i++)
          sum += P[(gsize) i * S + S - 1];
        g_assert_cmpfloat_with_epsilon (as_head_stats_get (stats, l, h, AS_HEAD_STAT_SEP), sum / S,
                                        1e-6);
        g_assert_true (isnan (as_head_stats_get (stats, l, h, AS_HEAD_STAT_CLS)));
      }
  as_head_stats_free (stats);
}

/* The shipped model's generation settings, as generation_config.json says. */
static void
test_generation_config (void)
{
  const char *dir = marian_fixture_path ("models", "shipped");
  if (dir == NULL)
    return;
  GError *error = NULL;
  g_autoptr (AsModel) model = as_model_load (dir, &error);
  g_assert_no_error (error);
  const AsGenerationConfig *g = as_model_get_generation_config (model);
  g_assert_nonnull (g);
  g_assert_cmpint (g->num_beams, ==, 4);
  g_assert_cmpint (g->max_length, ==, 128);
  g_assert_cmpint (g->decoder_start_token_id, ==, 3576);
  g_assert_cmpint (g->eos_token_id, ==, 0);
  g_assert_cmpint (g->forced_eos_token_id, ==, 0);
  g_assert_cmpuint (g->bad_words->len, ==, 1);
  g_assert_cmpint (g_array_index ((GArray *) g->bad_words->pdata[0], int32_t, 0), ==, 3576);
  g_assert_true (g->renormalize_logits);
  g_assert_false (g->early_stopping);
  g_assert_cmpfloat (g->length_penalty, ==, 1.0);
  g_assert_true (g_str_has_suffix (g->source, "generation_config.json"));
}

/* The step decoder (KV cache, beams reordered between steps) gives the logits of a full pass
 * over each sequence's prefix. */
static void
test_step_decoder (void)
{
  const char *dir = marian_fixture_path ("models", "small");
  if (dir == NULL)
    return;
  GError *error = NULL;
  g_autoptr (AsModel) model = as_model_load (dir, &error);
  g_assert_no_error (error);
  const AsConfig *c = as_model_get_config (model);
  int V = c->vocab_size, start = c->decoder_start_token_id;
  const int32_t src[] = { 7, 30, 8, 44, 0 };
  g_autoptr (AsStepDecoder) d = c->ops->step_decoder_new (model, src, 5, 2, 6, FALSE, &error);
  g_assert_no_error (error);
  /* two sequences, swapped and duplicated between steps */
  int32_t seqs[2][6] = { { start }, { start } };
  const int32_t steps[5][2] = { { start, start }, { 11, 12 }, { 13, 14 }, { 15, 16 }, { 17, 18 } };
  const int parents[5][2] = { { 0, 1 }, { 0, 1 }, { 1, 0 }, { 1, 1 }, { 0, 1 } };
  int32_t copy[2][6];
  g_autofree float *logits = g_new (float, 2 * V);
  for (int s = 0; s < 5; s++)
    {
      memcpy (copy, seqs, sizeof seqs);
      for (int b = 0; b < 2; b++)
        {
          memcpy (seqs[b], copy[parents[s][b]], sizeof seqs[b]);
          seqs[b][s] = steps[s][b];
        }
      g_assert_true (
          as_step_decoder_step (d, s == 0 ? NULL : parents[s], steps[s], logits, &error));
      g_assert_no_error (error);
      for (int b = 0; b < 2; b++)
        {
          g_autoptr (AsTrace) full
              = as_forward_translation (model, src, 5, seqs[b], s + 1, NULL, &error);
          g_assert_no_error (error);
          g_autofree char *what = g_strdup_printf ("step %d sequence %d logits", s, b);
          marian_check_vectors (what, logits + (gsize) b * V, full->logits, V);
        }
    }
  g_assert_cmpint (d->n_steps, ==, 5);
  g_assert_false (as_step_decoder_step (d, NULL, steps[0], logits, &error)
                  && as_step_decoder_step (d, NULL, steps[0], logits, &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_INPUT);
  g_clear_error (&error);
}

/* --- bad input ------------------------------------------------------------------------------ */

/* Loads DIR expecting CODE and every NEEDLE in the message. */
static void
assert_load_error (const char *dir, int code, const char *const *needles)
{
  GError *error = NULL;
  g_autoptr (AsModel) model = as_model_load (dir, &error);
  g_assert_null (model);
  g_assert_error (error, AS_ERROR, code);
  for (; *needles != NULL; needles++)
    if (strstr (error->message, *needles) == NULL)
      g_error ("message \"%s\" lacks \"%s\"", error->message, *needles);
  g_error_free (error);
}

/* Rewrites DIR/NAME with CONTENTS. */
static void
write_file (const char *dir, const char *name, const char *contents)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_assert_true (g_file_set_contents (path, contents, -1, NULL));
}

/* DIR/config.json with KEY's value replaced by VALUE (JSON text). */
static void
set_config (const char *dir, const char *key, const char *value)
{
  g_autofree char *path = g_build_filename (dir, "config.json", NULL);
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_assert_true (json_parser_load_from_file (parser, path, NULL));
  JsonObject *obj = json_node_get_object (json_parser_get_root (parser));
  json_object_set_member (obj, key, json_from_string (value, NULL));
  g_autoptr (JsonGenerator) gen = json_generator_new ();
  json_generator_set_root (gen, json_parser_get_root (parser));
  g_assert_true (json_generator_to_file (gen, path, NULL));
}

static void
test_bad_files (void)
{
  const char *small = marian_fixture_path ("models", "small");
  if (small == NULL)
    return;
  const char *no_target[] = { "target.spm", NULL };
  g_autofree char *d1 = marian_copy_model (small, "no-target-spm", no_target);
  assert_load_error (d1, AS_ERROR_NOT_FOUND, (const char *[]){ d1, "target.spm", NULL });

  g_autofree char *d2 = marian_copy_model (small, "no-unk", NULL);
  write_file (d2, "vocab.json", "{\"</s>\": 0, \"\\u2581a\": 1, \"<pad>\": 2}");
  g_autofree char *d2_vocab = g_build_filename (d2, "vocab.json", NULL);
  assert_load_error (d2, AS_ERROR_FORMAT, (const char *[]){ d2_vocab, "<unk>", NULL });

  g_autofree char *d3 = marian_copy_model (small, "bad-spm", NULL);
  write_file (d3, "source.spm", "this is not a SentencePiece model");
  assert_load_error (d3, AS_ERROR_FORMAT, (const char *[]){ "source.spm", NULL });

  g_autofree char *d4 = marian_copy_model (small, "more-layers", NULL);
  set_config (d4, "decoder_layers", "4");
  assert_load_error (d4, AS_ERROR_NOT_FOUND, (const char *[]){ "decoder/layers.3/", NULL });

  g_autofree char *d5 = marian_copy_model (small, "wider-ffn", NULL);
  set_config (d5, "encoder_ffn_dim", "65");
  assert_load_error (d5, AS_ERROR_SHAPE, (const char *[]){ "encoder/layers.0/fc1", "65", NULL });

  g_autofree char *d6 = marian_copy_model (small, "heads", NULL);
  set_config (d6, "encoder_attention_heads", "5");
  assert_load_error (d6, AS_ERROR_CONFIG,
                     (const char *[]){ "config.json", "encoder_attention_heads", NULL });

  g_autofree char *d7 = marian_copy_model (small, "separate", NULL);
  set_config (d7, "share_encoder_decoder_embeddings", "false");
  assert_load_error (d7, AS_ERROR_CONFIG,
                     (const char *[]){ "share_encoder_decoder_embeddings", NULL });

  g_autofree char *d8 = marian_copy_model (small, "sampling", NULL);
  write_file (d8, "generation_config.json", "{\"do_sample\": true, \"num_beams\": 4}");
  assert_load_error (d8, AS_ERROR_CONFIG,
                     (const char *[]){ "generation_config.json", "do_sample", NULL });

  g_autofree char *d9 = marian_copy_model (small, "beams0", NULL);
  write_file (d9, "generation_config.json", "{\"num_beams\": 0}");
  assert_load_error (d9, AS_ERROR_CONFIG, (const char *[]){ "num_beams", NULL });

  g_autofree char *d10 = marian_copy_model (small, "activation", NULL);
  set_config (d10, "activation_function", "\"mish\"");
  assert_load_error (d10, AS_ERROR_CONFIG, (const char *[]){ "activation_function", NULL });
}

static void
test_bad_input (void)
{
  const char *small = marian_fixture_path ("models", "small");
  if (small == NULL)
    return;
  GError *error = NULL;
  g_autoptr (AsModel) model = as_model_load (small, &error);
  g_assert_no_error (error);
  const AsConfig *c = as_model_get_config (model);
  g_assert_true (c->encoder_decoder);
  g_assert_cmpint (c->n_positions, ==, 64);

  /* a decoder input longer than the positions (start token + 64 target tokens) */
  g_autofree int32_t *ids = g_new0 (int32_t, 70);
  const int32_t src[] = { 5, 0 };
  g_assert_null (as_forward_translation (model, src, 2, ids, 65, NULL, &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_INPUT);
  g_assert_nonnull (strstr (error->message, "65"));
  g_assert_nonnull (strstr (error->message, "64"));
  g_clear_error (&error);
  GString *long_text = g_string_new (NULL);
  for (int i = 0; i < 80; i++)
    g_string_append (long_text, "Haus ");
  g_assert_null (as_forward_translation_text (model, "a", long_text->str, NULL, &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_INPUT);
  g_assert_nonnull (strstr (error->message, "decoder input"));
  g_clear_error (&error);
  g_assert_null (as_forward_translation (model, ids, 65, src, 2, NULL, &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_INPUT);
  g_assert_nonnull (strstr (error->message, "source"));
  g_clear_error (&error);
  g_string_free (long_text, TRUE);

  /* max_length beyond the decoder's positions (64 positions hold max_length 65) */
  AsTranslateOptions too_long = { .max_length = 66 };
  g_assert_null (as_translate (model, src, 2, &too_long, &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_INPUT);
  g_assert_nonnull (strstr (error->message, "max_length 66"));
  g_clear_error (&error);
  AsTranslateOptions fits = { .num_beams = 2, .max_length = 65 };
  g_autoptr (AsTranslation) ok = as_translate (model, src, 2, &fits, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (ok->ids->len, <=, 65);

  /* empty sources */
  g_assert_null (as_translate_text (model, "", NULL, &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_INPUT);
  g_clear_error (&error);
  g_assert_null (as_translate (model, src, 0, NULL, &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_INPUT);
  g_clear_error (&error);
  g_assert_null (as_forward_translation_text (model, "", "Haus", NULL, &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_INPUT);
  g_assert_nonnull (strstr (error->message, "source text is empty"));
  g_clear_error (&error);

  /* out-of-vocabulary ids; the one-text entry points */
  const int32_t bad[] = { 5, c->vocab_size };
  g_assert_null (as_translate (model, bad, 2, NULL, &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_INPUT);
  g_clear_error (&error);
  g_assert_null (as_forward (model, src, 2, NULL, &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_INPUT);
  g_assert_nonnull (strstr (error->message, "encoder–decoder"));
  g_clear_error (&error);
  g_assert_null (as_forward_text (model, "Hello", FALSE, NULL, &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_INPUT);
  g_clear_error (&error);

  /* a decoder-only model has no pair pass and no translation */
  g_autofree char *gpt2 = test_source_path ("tests/fixtures/tiny-gpt2");
  g_autoptr (AsModel) decoder_only = as_model_load (gpt2, &error);
  g_assert_no_error (error);
  g_assert_null (as_forward_translation (decoder_only, src, 2, src, 2, NULL, &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_INPUT);
  g_clear_error (&error);
  g_assert_null (as_translate_text (decoder_only, "Hello", NULL, &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_INPUT);
  g_clear_error (&error);
  g_assert_null (as_model_get_generation_config (decoder_only));
}

static void
test_cancel (void)
{
  const char *small = marian_fixture_path ("models", "small");
  if (small == NULL)
    return;
  GError *error = NULL;
  g_autoptr (AsModel) model = as_model_load (small, &error);
  g_assert_no_error (error);
  g_autoptr (GCancellable) cancel = g_cancellable_new ();
  g_cancellable_cancel (cancel);
  const int32_t src[] = { 5, 7, 0 };
  AsTranslateOptions options = { .cancellable = cancel };
  g_assert_null (as_translate (model, src, 3, &options, &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_CANCELLED);
  g_clear_error (&error);
  AsForwardOptions fo = { .cancellable = cancel };
  g_assert_null (as_forward_translation (model, src, 3, src, 3, &fo, &error));
  g_assert_error (error, AS_ERROR, AS_ERROR_CANCELLED);
  g_clear_error (&error);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  H5Eset_auto2 (H5E_DEFAULT, NULL, NULL);
  g_test_add_func ("/core/marian/forward/h5", test_forward_h5);
  g_test_add_func ("/core/marian/forward/safetensors", test_forward_safetensors);
  g_test_add_func ("/core/marian/forward/old-names-no-bias", test_forward_old_names);
  g_test_add_func ("/core/marian/forward/positions", test_forward_positions);
  g_test_add_func ("/core/marian/forward/shipped", test_forward_shipped);
  g_test_add_func ("/core/marian/forward/special-ids", test_special_ids);
  g_test_add_func ("/core/marian/generate/config", test_generation_config);
  g_test_add_func ("/core/marian/generate/step-decoder", test_step_decoder);
  g_test_add_func ("/core/marian/generate/small", test_generate_small);
  g_test_add_func ("/core/marian/generate/old-names", test_generate_old_names);
  g_test_add_func ("/core/marian/generate/shipped", test_generate_shipped);
  g_test_add_func ("/core/marian/bad/files", test_bad_files);
  g_test_add_func ("/core/marian/bad/input", test_bad_input);
  g_test_add_func ("/core/marian/bad/cancel", test_cancel);
  int status = g_test_run ();
  test_tmpdir_cleanup ();
  return status;
}
