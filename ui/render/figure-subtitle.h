/* figure-subtitle.h — what a figure's subtitle says about its text: one rule for every figure kind,
 * in the window, in every export and on the command line.
 *
 * A subtitle names the model and quotes the text the figure shows: "attnscope-mini · “The man hit
 * the car”". A text longer than AR_QUOTE_WHOLE_MAX characters is shortened in the middle, its
 * first and last words kept, and its token count follows ("distilgpt2 · “It was full of rackets,
 * balls … lens and replacing” · 1,008 tokens"), so the subtitle stays within two lines of a figure
 * one journal column wide (85 mm at 8 pt) whatever the text's length and the figure keeps its room
 * for the data. A text cut to the model's context quotes the part the tokens stand for, with "first
 * N tokens". For a translation the source and the target are quoted ("“src” → “tgt”"), or only the
 * one whose tokens the matrix shows. Whitespace runs (line breaks) are quoted as one space. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* A text of up to this many characters is quoted whole; a longer one keeps about half as many
 * characters of its beginning and a quarter of its end, cut at spaces. A translation quotes
 * two texts, each within AR_QUOTE_PAIR_MAX. */
#define AR_QUOTE_WHOLE_MAX 64
#define AR_QUOTE_PAIR_MAX 24

/* What a figure is about, for its title block: the model's name, the texts (NULL: none) and the
 * tokens the traces hold (0: not given; then no count is said). */
typedef struct
{
  const char *model_name;
  const char *text; /* the main trace's text (a pair as "A ‖ B", pair-text.h) */
  const char *compare_text;
  const char *target_text; /* a translation model's target (TEXT is then the source) */
  int n_tokens;            /* of the main trace; a translation's: the source's */
  int n_compare_tokens;
  int n_target_tokens;
  gboolean truncated; /* the main trace holds only the first n_tokens of the text's tokens, and
                       * TEXT is the part they stand for (ar_shown_text) */
} ArFigureTexts;

/* Which text a figure's matrix shows. */
typedef enum
{
  AR_SUBTITLE_TEXT,   /* the main text; a translation: the source and the target */
  AR_SUBTITLE_SOURCE, /* a translation's source alone (the encoder's tokens) */
  AR_SUBTITLE_TARGET, /* a translation's target alone (the decoder's tokens) */
} ArSubtitleText;

/* TEXT quoted as a subtitle quotes it — whitespace runs as one space, shortened in the middle
 * beyond MAX characters to its first words, " … " and its last words — in typographic quotes;
 * *SHORTENED (may be NULL) says whether it was shortened. Newly allocated. */
char *ar_quote_excerpt (const char *text, int max, gboolean *shortened);

/* N with its thousands separated by commas ("1,008"). Newly allocated. */
char *ar_format_count (int n);

/* "model · “text”", with " · 1,008 tokens" when the quote is shortened and " · first 128 tokens"
 * when TRUNCATED (N_TOKENS > 0); the model's name alone when TEXT is NULL. Newly allocated. */
char *ar_figure_subtitle (const char *model_name, const char *text, int n_tokens,
                          gboolean truncated);

/* The subtitle of a figure of TEXTS whose matrix shows WHICH text: ar_figure_subtitle of the main
 * text, or for a translation (target_text set) "model · “source” → “target”" (" · 12 → 14
 * tokens" when a quote is shortened), or the source or target alone. Newly allocated. */
char *ar_figure_texts_subtitle (const ArFigureTexts *texts, ArSubtitleText which);

/* A comparison panel's title: "A: “text”" (with " · N tokens" when shortened) and SUFFIX after
 * it when not NULL ("B: “text” in A's token order"). Newly allocated. */
char *ar_figure_side_title (const char *side, const char *text, int n_tokens, const char *suffix);

G_END_DECLS
