/* hierarchy.h: seed 000's page hierarchy score, 0..1 (x 100 on the scale).
 *
 * Path "/" scores root (1.0); a sitemap page sitemap (0.5); a page linked
 * from a known page max(decay x source score, floor) (0.8, 0.1); a link
 * whose source page is unknown, and any other source, the floor. A score
 * never decreases: the result is max(current, new). */
#ifndef CRAWLTOP_HIERARCHY_H
#define CRAWLTOP_HIERARCHY_H

#include <stdbool.h>

#include "export.h"
#include "reasons.h"
#include "status.h"

CT_BEGIN_DECLS

typedef enum ct_source_type {
	CT_SRC_SITEMAP,
	CT_SRC_LINK,
	CT_SRC_MANUAL,   /* entered by an operator or a seed list */
	CT_SRC_OTHER,
	CT_SRC_COUNT
} ct_source_type;

CT_API const char *ct_source_type_name(ct_source_type t);
CT_API bool ct_source_type_parse(const char *s, ct_source_type *out);

struct ct_hierarchy_params {
	double root;    /* score of path "/" (1.0) */
	double sitemap; /* score of a sitemap page (0.5) */
	double decay;   /* factor from source to linked page (0.8) */
	double floor;   /* minimum score (0.1) */
};
#define CT_HIERARCHY_PARAMS_DEFAULT \
	((struct ct_hierarchy_params){1.0, 0.5, 0.8, 0.1})

/* 0 < floor <= sitemap <= root <= 1, 0 < decay < 1, all finite. */
CT_API ct_status ct_hierarchy_params_check(const struct ct_hierarchy_params *p,
					   struct ct_error *err);

struct ct_hierarchy_input {
	const char *path;        /* page path; "/" is the homepage */
	ct_source_type source;
	double source_score;     /* source page score 0..1; NaN = unknown page */
	const char *source_path; /* optional, for the reason text; borrowed */
	double current;          /* current score 0..1 (0 for a new page) */
};

struct ct_hierarchy_result {
	double score; /* 0..1 */
	struct ct_reasons reasons;
};

/* CT_ERANGE for a current or source score outside 0..1 (NaN source means
 * unknown and is fine), CT_EINVAL for a path that does not start with '/'
 * (NULL, empty, "a"). p must have
 * passed ct_hierarchy_params_check(): it is not re-checked here (hot
 * path). A score off 0..1, which only unchecked parameters give (a decay
 * of 2 makes a link from a 0.9 page 1.8), is refused with CT_EINVAL and a
 * message saying the parameters were not checked. */
CT_API ct_status ct_hierarchy_score(const struct ct_hierarchy_params *p,
				    const struct ct_hierarchy_input *in,
				    struct ct_hierarchy_result *out,
				    struct ct_error *err);

CT_END_DECLS

#endif
