/* settings.c: defaults and whole-set validation of every tunable. */
#include "crawltop/settings.h"
#include "crawltop/tier.h"

void ct_settings_default(struct ct_settings *s)
{
	s->classes = CT_CLASS_BOUNDS_DEFAULT;
	s->hierarchy = CT_HIERARCHY_PARAMS_DEFAULT;
	s->default_priority = CT_PRIORITY_DEFAULT;
	ct_frontier_params_default(&s->frontier);
	ct_discovery_params_default(&s->discovery);
	s->freshness = CT_FRESHNESS_PARAMS_DEFAULT;
}

ct_status ct_settings_check(const struct ct_settings *s, struct ct_error *err)
{
	ct_status st;
	if ((st = ct_class_bounds_check(&s->classes, err)) != CT_OK)
		return st;
	if ((st = ct_hierarchy_params_check(&s->hierarchy, err)) != CT_OK)
		return st;
	if (!ct_priority_valid(s->default_priority))
		return ct_error_set(err, CT_ERANGE,
			"tier.default_priority = %d: must be 1..10",
			s->default_priority);
	if ((st = ct_frontier_params_check(&s->frontier, err)) != CT_OK)
		return st;
	if ((st = ct_discovery_weights_check(s->discovery.weights, NULL, err)) != CT_OK)
		return st;
	if ((st = ct_backoff_params_check(&s->discovery.backoff, err)) != CT_OK)
		return st;
	return ct_freshness_params_check(&s->freshness, err);
}
