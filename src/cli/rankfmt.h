/* rankfmt.h: seed 003's ranking statistics as text and JSON, shared by
 * `crawltop rank` (its summary) and `crawltop stats --ranking`. */
#ifndef CRAWLTOP_RANKFMT_H
#define CRAWLTOP_RANKFMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <yajl/yajl_gen.h>

#include "crawltop/scale.h"
#include "rank_ops.h"

/* The label of class c under bounds b, as the seed writes it: "P0 (≥80)",
 * "P1 (60-79)", "P2 (40-59)", "P3 (<40)" (an upper end that is not a
 * whole number is shown as "<x"). */
void rankfmt_label(char *buf, size_t len, ct_class c,
		   const struct ct_class_bounds *b);

/* The note `crawltop rank` records in the run manifest: the bounds and
 * weights it ran with, and where they came from ("crawltop.settings v3",
 * "the configuration", with the overrides). */
void rankfmt_note(char *buf, size_t len, const struct ct_settings *s,
		  const char *from);

/* The bounds recorded in a manifest note written by rankfmt_note; false
 * (b untouched) when the note holds none. */
bool rankfmt_note_bounds(const char *note, struct ct_class_bounds *b);

/* The seed's "Run Statistics:" block (class counts with their labels and
 * the average score); with detailed also "Detailed Ranking Statistics:"
 * (priority and score distributions). */
void rankfmt_text(FILE *f, const struct ct_run_manifest *m,
		  const struct ct_class_bounds *b, bool detailed);

/* The same as members of the open JSON object g: "run", "bounds",
 * "classes", "average_score", "priority_distribution",
 * "score_distribution", "unranked". */
void rankfmt_json(yajl_gen g, const struct ct_run_manifest *m,
		  const struct ct_class_bounds *b);

#endif
