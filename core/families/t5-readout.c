/* t5-readout.c — the T5 decoder's self-attention pieces for the query–key view and the attention
 * norms (readout-private.h): each layer's output projection O [D][H·d_kv] (no bias), no scaling
 * of the scores (the relative position bias is added to q·k instead: the view reads it from the
 * trace's recipe). Direct logit attribution does not read these pieces: a T5 decoder is replayed
 * (t5-replay.c), and the tied output's D^-½ rescale is not a plain unembedding matrix. */
#include "t5-private.h"

void
as_t5_decoder_readout (const AsConfig *config, gconstpointer weights, AsReadout *out)
{
  const AsT5Stack *d = &((const AsT5Weights *) weights)->decoder;
  /* only the layers' pieces and the scores' scale are filled (AsReadout.post_norm): an analysis
   * that would sum the blocks' writes through the final norm and the head is refused */
  out->post_norm = TRUE;
  out->layers = g_new0 (AsReadoutLayer, d->n_layer);
  for (int l = 0; l < d->n_layer; l++)
    out->layers[l] = (AsReadoutLayer){ .o = { d->layers[l].self_attn.o, AS_DTYPE_F32 } };
  out->attn_scale = 1.0f;
}
