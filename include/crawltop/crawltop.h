/* crawltop.h: the whole public API of libcrawltop.
 *
 * Rules for every header:
 * - Pointer arguments must not be NULL unless the header says NULL is
 *   fine (a struct ct_error *err always may be).
 * - No function keeps state between calls outside the objects it is
 *   given: any function may run on several threads at once, each with its
 *   own objects. One object (a ct_fq queue, a result) is one thread's at a
 *   time.
 * - Numbers are read and written with a '.', whatever the locale
 *   (number.h). No function does I/O or reads the clock or the
 *   environment: times come in as arguments. */
#ifndef CRAWLTOP_CRAWLTOP_H
#define CRAWLTOP_CRAWLTOP_H

#include "discovery.h"
#include "export.h"
#include "freshness.h"
#include "frontier.h"
#include "frontier_queue.h"
#include "hierarchy.h"
#include "importance.h"
#include "number.h"
#include "reasons.h"
#include "scale.h"
#include "settings.h"
#include "status.h"
#include "text.h"
#include "tier.h"
#include "timestamp.h"

#endif
