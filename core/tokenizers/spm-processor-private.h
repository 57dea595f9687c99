/* spm-processor-private.h — a SentencePiece model (the .spm files of Marian models) through
 * Debian's libsentencepiece, the reference implementation, behind a C interface.
 *
 * Why the library and not our own reader of the .spm protobuf: encoding must equal Python's
 * sentencepiece module piece for piece, and a model carries its own normalisation rule (a
 * precompiled character map, nmt_nfkc by default), unigram or BPE segmentation, user-defined and
 * byte-fallback pieces; the library is what transformers itself calls, so using it makes the
 * pieces identical by construction. The file is read through base/file-read-private.h (regular
 * files only, a size limit), its character maps are checked (spm-charsmap-private.h: the
 * library reads them without bounds checks) and it is handed to the library as bytes. The C++ side
 * (spm-processor.cc) catches every exception. A processor is immutable after loading and encodes
 * from several threads at once (the library's Encode is const). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _AsSpmProcessor AsSpmProcessor;

/* Loads the SentencePiece model file PATH. Fails naming PATH when it is missing
 * (AS_ERROR_NOT_FOUND), too large, or not a SentencePiece model (AS_ERROR_FORMAT). */
AsSpmProcessor *as_spm_processor_load (const char *path, GError **error);
void as_spm_processor_free (AsSpmProcessor *spm);

/* The bytes SPM holds: the library's model (an estimate: four times the file, for its pieces,
 * their index and the character map) and the pieces kept here. */
guint64 as_spm_processor_bytes (const AsSpmProcessor *spm);

/* Appends the pieces of TEXT (LENGTH bytes of valid UTF-8) to PIECES (owned strings), as
 * Python's encode(text, out_type=str) gives them: an unknown character keeps its surface form. */
gboolean as_spm_processor_encode (const AsSpmProcessor *spm, const char *text, gsize length,
                                  GPtrArray *pieces, GError **error);

/* The text of PIECES [N] as the model's decoder joins them (Python's decode_pieces). */
char *as_spm_processor_decode (const AsSpmProcessor *spm, const char *const *pieces, gsize n,
                               GError **error);

/* The model's pieces: their number, and piece I (borrowed; valid while SPM lives). */
int as_spm_processor_get_size (const AsSpmProcessor *spm);
const char *as_spm_processor_get_piece (const AsSpmProcessor *spm, int i);
/* Whether piece I is a control piece (<s>, </s>) or the unknown piece. */
gboolean as_spm_processor_is_special (const AsSpmProcessor *spm, int i);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AsSpmProcessor, as_spm_processor_free)

G_END_DECLS
