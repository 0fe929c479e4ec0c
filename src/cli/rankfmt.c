/* rankfmt.c: seed 003's ranking statistics as text and JSON (rankfmt.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "crawltop/discovery.h"
#include "crawltop/settings.h"
#include "jsonin.h"
#include "rankfmt.h"

static const char *const buckets[5] = {"0-20", "20-40", "40-60", "60-80",
				       "80-100"};

/* "79" for a whole upper bound 80, "<72.5" otherwise. */
static void upper(char *buf, size_t len, double next)
{
	if (next == floor(next))
		snprintf(buf, len, "%g", next - 1);
	else
		snprintf(buf, len, "<%g", next);
}

void rankfmt_label(char *buf, size_t len, ct_class c,
		   const struct ct_class_bounds *b)
{
	char up[32];
	switch (c) {
	case CT_P0:
		snprintf(buf, len, "P0 (\u2265%g)", b->p0);
		return;
	case CT_P1:
		upper(up, sizeof up, b->p0);
		snprintf(buf, len, "P1 (%g-%s)", b->p1, up);
		return;
	case CT_P2:
		upper(up, sizeof up, b->p1);
		snprintf(buf, len, "P2 (%g-%s)", b->p2, up);
		return;
	case CT_P3:
		break;
	}
	snprintf(buf, len, "P3 (<%g)", b->p2);
}

void rankfmt_note(char *buf, size_t len, const struct ct_settings *s,
		  const char *from)
{
	int n = snprintf(buf, len, "crawltop rank: bounds %.17g/%.17g/%.17g "
			 "weights", s->classes.p0, s->classes.p1, s->classes.p2);
	for (int k = 0; k < CT_SUB_COUNT && n > 0 && (size_t)n < len; k++)
		n += snprintf(buf + n, len - (size_t)n, "%s%g", k ? "/" : " ",
			      s->discovery.weights[k]);
	if (n > 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, " from %s", from);
}

bool rankfmt_note_bounds(const char *note, struct ct_class_bounds *b)
{
	const char *p = strstr(note, "bounds ");
	struct ct_class_bounds t;
	if (!p || sscanf(p, "bounds %lf/%lf/%lf", &t.p0, &t.p1, &t.p2) != 3 ||
	    ct_class_bounds_check(&t, NULL) != CT_OK)
		return false;
	*b = t;
	return true;
}

void rankfmt_text(FILE *f, const struct ct_run_manifest *m,
		  const struct ct_class_bounds *b, bool detailed)
{
	char label[64];
	fprintf(f, "Run Statistics:\n");
	for (int c = 0; c < 4; c++) {
		rankfmt_label(label, sizeof label, (ct_class)c, b);
		fprintf(f, "  %s: %lld URLs\n", label, m->count[c]);
	}
	fprintf(f, "  Average Score: %.1f\n", m->avg_score);
	if (!detailed)
		return;
	fprintf(f, "\nDetailed Ranking Statistics:\n  Priority Distribution:\n");
	for (int c = 0; c < 4; c++)
		fprintf(f, "    P%d: %lld\n", c, m->count[c]);
	fprintf(f, "  Score Distribution:\n");
	for (int k = 0; k < 5; k++)
		fprintf(f, "    %s: %lld\n", buckets[k], m->bucket[k]);
}

void rankfmt_json(yajl_gen g, const struct ct_run_manifest *m,
		  const struct ct_class_bounds *b)
{
	char label[64];
	jout_string(g, "run");
	yajl_gen_map_open(g);
	jout_string(g, "id");
	jout_number(g, (double)m->id);
	jout_string(g, "run_at");
	jout_string(g, m->run_at);
	jout_string(g, "job_id");
	if (m->job_id)
		jout_number(g, (double)m->job_id);
	else
		yajl_gen_null(g);
	jout_string(g, "settings_version");
	if (m->settings_version) /* 0: the run's settings were no version */
		jout_number(g, m->settings_version);
	else
		yajl_gen_null(g);
	yajl_gen_map_close(g);
	jout_string(g, "bounds");
	yajl_gen_map_open(g);
	jout_string(g, "p0");
	jout_number(g, b->p0);
	jout_string(g, "p1");
	jout_number(g, b->p1);
	jout_string(g, "p2");
	jout_number(g, b->p2);
	yajl_gen_map_close(g);
	jout_string(g, "classes");
	yajl_gen_array_open(g);
	for (int c = 0; c < 4; c++) {
		yajl_gen_map_open(g);
		jout_string(g, "class");
		jout_string(g, ct_class_name((ct_class)c));
		jout_string(g, "label");
		rankfmt_label(label, sizeof label, (ct_class)c, b);
		jout_string(g, label);
		jout_string(g, "urls");
		jout_number(g, (double)m->count[c]);
		yajl_gen_map_close(g);
	}
	yajl_gen_array_close(g);
	jout_string(g, "average_score");
	jout_number(g, round(m->avg_score * 1e6) / 1e6);
	jout_string(g, "priority_distribution");
	yajl_gen_map_open(g);
	for (int c = 0; c < 4; c++) {
		jout_string(g, ct_class_name((ct_class)c));
		jout_number(g, (double)m->count[c]);
	}
	yajl_gen_map_close(g);
	jout_string(g, "score_distribution");
	yajl_gen_map_open(g);
	for (int k = 0; k < 5; k++) {
		jout_string(g, buckets[k]);
		jout_number(g, (double)m->bucket[k]);
	}
	yajl_gen_map_close(g);
	jout_string(g, "unranked");
	jout_number(g, (double)m->unranked);
}
