/* spm-processor.cc — spm-processor-private.h on top of libsentencepiece (C++). Every call into
 * the library is wrapped so that no exception crosses into C: failures become GErrors. */
#include "spm-processor-private.h"

#include <new>
#include <sentencepiece_processor.h>
#include <string>
#include <vector>

#include "as-error.h"
#include "file-read-private.h"
#include "spm-charsmap-private.h"

/* Far above any real SentencePiece model (opus-mt's are under 1 MB). */
#define SPM_MAX_BYTES (64u << 20)

struct _AsSpmProcessor
{
  sentencepiece::SentencePieceProcessor processor;
  std::string path;
  std::vector<std::string> pieces; /* [size] IdToPiece, kept so get_piece can lend them */
  gsize file_bytes;
};

AsSpmProcessor *
as_spm_processor_load (const char *path, GError **error)
{
  char *bytes = NULL;
  gsize length = 0;
  if (!as_file_read_all (path, SPM_MAX_BYTES, &bytes, &length, error))
    return NULL;
  if (!as_spm_check_charsmaps (path, (const guint8 *) bytes, length, error))
    {
      g_free (bytes);
      return NULL;
    }
  AsSpmProcessor *spm = NULL;
  try
    {
      spm = new AsSpmProcessor ();
      spm->path = path;
      spm->file_bytes = length;
      auto status = spm->processor.LoadFromSerializedProto (std::string (bytes, length));
      g_free (bytes);
      bytes = NULL;
      if (!status.ok ())
        {
          g_set_error (error, AS_ERROR, AS_ERROR_FORMAT, "%s is not a SentencePiece model (%s)",
                       path, status.ToString ().c_str ());
          delete spm;
          return NULL;
        }
      int n = spm->processor.GetPieceSize ();
      spm->pieces.reserve (n);
      for (int i = 0; i < n; i++)
        spm->pieces.push_back (spm->processor.IdToPiece (i));
      return spm;
    }
  catch (const std::exception &e)
    {
      g_free (bytes);
      delete spm;
      g_set_error (error, AS_ERROR, AS_ERROR_FORMAT, "%s: SentencePiece failed to load it (%s)",
                   path, e.what ());
      return NULL;
    }
}

guint64
as_spm_processor_bytes (const AsSpmProcessor *spm)
{
  guint64 bytes = sizeof *spm + 4 * (guint64) spm->file_bytes;
  for (const auto &piece : spm->pieces)
    bytes += sizeof piece + piece.capacity () + 1;
  return bytes;
}

void
as_spm_processor_free (AsSpmProcessor *spm)
{
  delete spm;
}

gboolean
as_spm_processor_encode (const AsSpmProcessor *spm, const char *text, gsize length,
                         GPtrArray *pieces, GError **error)
{
  try
    {
      std::vector<std::string> out;
      auto status = spm->processor.Encode (std::string (text, length), &out);
      if (!status.ok ())
        {
          g_set_error (error, AS_ERROR, AS_ERROR_INPUT, "%s could not encode the text (%s)",
                       spm->path.c_str (), status.ToString ().c_str ());
          return FALSE;
        }
      for (const auto &piece : out)
        g_ptr_array_add (pieces, g_strndup (piece.data (), piece.size ()));
      return TRUE;
    }
  catch (const std::exception &e)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_MEMORY, "%s: encoding failed (%s)", spm->path.c_str (),
                   e.what ());
      return FALSE;
    }
}

char *
as_spm_processor_decode (const AsSpmProcessor *spm, const char *const *pieces, gsize n,
                         GError **error)
{
  try
    {
      std::vector<std::string> in (pieces, pieces + n);
      std::string text;
      auto status = spm->processor.Decode (in, &text);
      if (!status.ok ())
        {
          g_set_error (error, AS_ERROR, AS_ERROR_INPUT, "%s could not decode the pieces (%s)",
                       spm->path.c_str (), status.ToString ().c_str ());
          return NULL;
        }
      return g_strndup (text.data (), text.size ());
    }
  catch (const std::exception &e)
    {
      g_set_error (error, AS_ERROR, AS_ERROR_MEMORY, "%s: decoding failed (%s)", spm->path.c_str (),
                   e.what ());
      return NULL;
    }
}

int
as_spm_processor_get_size (const AsSpmProcessor *spm)
{
  return (int) spm->pieces.size ();
}

const char *
as_spm_processor_get_piece (const AsSpmProcessor *spm, int i)
{
  g_return_val_if_fail (i >= 0 && (gsize) i < spm->pieces.size (), NULL);
  return spm->pieces[i].c_str ();
}

gboolean
as_spm_processor_is_special (const AsSpmProcessor *spm, int i)
{
  return spm->processor.IsControl (i) || spm->processor.IsUnknown (i);
}
