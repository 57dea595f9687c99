/* hf-postprocessor-private.h — tokenizer.json's "post_processor": the special tokens around one
 * sequence or a pair, and the type ids (src/processors/).
 *
 * TemplateProcessing, BertProcessing ([CLS] A [SEP] B [SEP]; types 0…, 1…), RobertaProcessing
 * (<s> A </s></s> B </s>; every type 0), ByteLevel (adds nothing), Sequence. Without special
 * tokens the template still sets the type ids; without a post-processor the pair's type ids are
 * 0 and 1. */
#pragma once

#include <glib.h>
#include <stdint.h>

#include "hf-json-private.h"

G_BEGIN_DECLS

typedef struct _AsHfPostProcessor AsHfPostProcessor;

AsHfPostProcessor *as_hf_postprocessor_read (const AsHfJson *json, GError **error);

/* TemplateProcessing "[CLS] $A [SEP]" / "[CLS] $A [SEP] $B:1 [SEP]:1" (vocab.txt folders). */
AsHfPostProcessor *as_hf_postprocessor_new_bert (int32_t cls_id, int32_t sep_id);

/* transformers' update_post_processor (Llama, Gemma, GPT-NeoX fast tokenizers): "BOS $A EOS" /
 * "BOS $A EOS BOS:1 $B:1 EOS:1", where an id < 0 leaves that token out. */
AsHfPostProcessor *as_hf_postprocessor_new_template (int32_t bos_id, int32_t eos_id);

void as_hf_postprocessor_free (AsHfPostProcessor *processor);

/* The first id PROCESSOR would add for which KNOWN returns FALSE, or -1: tokenizer.json gives
 * these ids as numbers, and HF does not check that they name a token. */
int32_t as_hf_postprocessor_find_unknown_id (const AsHfPostProcessor *processor,
                                             gboolean (*known) (int32_t id, gpointer data),
                                             gpointer data);

/* Combines A (and PAIR when not NULL; GArrays of int32_t ids) into IDS, TYPE_IDS and
 * SPECIAL_MASK (guint8: 1 for the tokens the processor added). PROCESSOR may be NULL. */
void as_hf_postprocessor_apply (const AsHfPostProcessor *processor, const GArray *a,
                                const GArray *pair, gboolean add_special, GArray *ids,
                                GArray *type_ids, GArray *special_mask);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AsHfPostProcessor, as_hf_postprocessor_free)

G_END_DECLS
