/* urlscore.c: scores from a path alone (urlscore.h). */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "crawltop/freshness.h"
#include "crawltop/frontier.h"
#include "dbcmd.h"
#include "cli.h"
#include "urlscore.h"

int urlscore_init(struct urlscore *u, const char *cmd, struct ct_store *s,
		  const char *mode, const char *domain)
{
	memset(u, 0, sizeof *u);
	snprintf(u->mode, sizeof u->mode, "%s", mode);
	snprintf(u->domain, sizeof u->domain, "%s", domain);
	u->needed = strcmp(mode, "frontier") == 0 ||
		    strcmp(mode, "discovery") == 0 ||
		    strcmp(mode, "freshness") == 0;
	if (!u->needed)
		return 0;
	u->now_ms = cli_now_ms();
	return db_settings(cmd, s, &u->st, NULL, NULL, 0);
}

const char *urlscore_method(ct_source_type src)
{
	return src == CT_SRC_SITEMAP ? "sitemap" : src == CT_SRC_LINK ? "link"
								   : NULL;
}

int urlscore_of(const struct urlscore *u, const char *path, ct_source_type src,
		int depth, const char *type, const char *method, double *out,
		char *why, size_t n)
{
	struct ct_error err;
	ct_status st = CT_OK;
	if (strcmp(u->mode, "frontier") == 0) {
		char url[2400];
		snprintf(url, sizeof url, "https://%s%s", u->domain, path);
		struct ct_frontier_input in = CT_FRONTIER_INPUT_INIT;
		struct ct_frontier_result r;
		in.url = url;
		in.depth = depth >= 0 ? depth : 0;
		in.type = type;
		in.discovery_method = method ? method : urlscore_method(src);
		st = ct_frontier_score(&u->st.frontier, &u->st.classes, &in, &r,
				       &err);
		*out = st == CT_OK ? r.score : 0;
	} else if (strcmp(u->mode, "freshness") == 0) {
		struct ct_freshness_input in = CT_FRESHNESS_INPUT_INIT;
		struct ct_freshness_result r;
		st = ct_freshness_score(&u->st.freshness, &u->st.classes, &in,
					u->now_ms, &r, &err);
		*out = st == CT_OK ? r.score : 0;
	} else if (strcmp(u->mode, "discovery") == 0) {
		*out = u->st.classes.p2;
	} else {
		*out = 0;
	}
	if (st != CT_OK) {
		snprintf(why, n, "%s", err.msg);
		return -1;
	}
	return 0;
}
