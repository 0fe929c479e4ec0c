/* settings.h: every tunable of every model, in one plain struct.
 *
 * The config layer fills it from a file and the environment, the store
 * keeps versions of it, the console edits it. It owns no pointers: copy it
 * with `=`. */
#ifndef CRAWLTOP_SETTINGS_H
#define CRAWLTOP_SETTINGS_H

#include "discovery.h"
#include "export.h"
#include "freshness.h"
#include "frontier.h"
#include "hierarchy.h"
#include "scale.h"
#include "status.h"

CT_BEGIN_DECLS

struct ct_settings {
	struct ct_class_bounds classes;       /* P0/P1/P2 lower bounds */
	struct ct_hierarchy_params hierarchy; /* seed 000 */
	int default_priority;                 /* seed 001, 1..10 */
	struct ct_frontier_params frontier;   /* seed 002 */
	struct ct_discovery_params discovery; /* seed 003 */
	struct ct_freshness_params freshness; /* seed 004 */
};

CT_API void ct_settings_default(struct ct_settings *s);
/* Checks every part; the first broken rule is reported. */
CT_API ct_status ct_settings_check(const struct ct_settings *s,
				   struct ct_error *err);

CT_END_DECLS

#endif
