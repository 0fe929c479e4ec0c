/* crawltop.h: the whole public API of libcrawltop. */
#ifndef CRAWLTOP_CRAWLTOP_H
#define CRAWLTOP_CRAWLTOP_H

#include "discovery.h"
#include "export.h"
#include "freshness.h"
#include "frontier.h"
#include "frontier_queue.h"
#include "hierarchy.h"
#include "number.h"
#include "reasons.h"
#include "scale.h"
#include "settings.h"
#include "status.h"
#include "tier.h"
#include "timestamp.h"

#endif
