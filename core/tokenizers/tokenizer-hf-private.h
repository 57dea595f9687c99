/* tokenizer-hf-private.h — the tokenizer kind of a Hugging Face fast tokenizer: the pipeline of
 * hf-tokenizer-private.h behind AsTokenizer (tokenizer-hf.c). Its loaders are tokenizer-json.c
 * (tokenizer.json) and vocab-txt.c (a BERT vocab.txt, which gets the pipeline BertTokenizer
 * implies). */
#pragma once

#include "hf-tokenizer-private.h"
#include "tokenizer-private.h"

G_BEGIN_DECLS

/* A tokenizer of this kind running HF (taken) whose vocabulary came from SOURCE; the caller fills
 * the vocabulary (as_tokenizer_init_vocabulary). The pipeline is AsTokenizer.data. */
AsTokenizer *as_tokenizer_hf_new (const char *source, AsHfTokenizer *hf);

G_END_DECLS
