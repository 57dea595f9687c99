/* bench-gui.h — what the parts of the GUI benchmark share (bench-gui.c runs them): progress
 * notes, the summary rows (JSON on stdout, a table on stderr) and the frame counter of the
 * window's frame clock. */
#pragma once

#include "gui-test-util.h"

G_BEGIN_DECLS

#define BENCH_TIMEOUT_MS 120000
#define BENCH_FRAME_TARGET_MS 16.0

/* Milliseconds since T0 (g_get_monotonic_time). */
double bench_ms_since (gint64 t0);

/* Progress on stderr: WHAT and the seconds since the start. */
void bench_note (const char *what);

/* Prints the summary of MS [N] (sorted in place) as JSON and a table row; TARGET_MS ≤ 0: none.
 * A target is met when the MEDIAN is within it, or with BY_MAX when the MAXIMUM is. */
void bench_summary (const char *name, const char *what, double *ms, int n, double target_ms,
                    gboolean by_max);

/* Prints the table of every summary so far on stderr, and forgets it. */
void bench_print_table (void);

/* Frames painted so far, and the longest frame (before-paint → end of paint) since the last
 * bench_frames_reset_longest (). */
guint64 bench_frames (void);
double bench_longest_frame_ms (void);
void bench_frames_reset_longest (void);

/* UI-thread stalls at T = 1024 (bench-gui-stalls.c): page switches, token clicks, annotation
 * toggles and layer/head steps, each REPEAT times, on TEXT with COMPARE as the second text. */
void bench_stalls (AttnscopeWindow *window, const char *text, const char *compare, int repeat);

G_END_DECLS
