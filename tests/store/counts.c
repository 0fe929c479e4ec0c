/* counts.c: see counts.h. The truth is written out here, dimension by
 * dimension, independently of crawltop.task_cells, so that a mistake there
 * cannot hide on both sides. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "counts.h"
#include "pgtest.h"

/* Every cell of every job, counted from tasks. A running task without a
 * lease owner waits for its retry backoff: it counts as retrying. */
#define TRUTH \
	"truth AS (" \
	" SELECT job_id, 'status' AS dim, CASE WHEN status = 'running' AND" \
	" lease_owner IS NULL THEN 'retrying' ELSE status END AS key," \
	" count(*) AS n FROM crawltop.tasks GROUP BY 1, 3" \
	" UNION ALL SELECT job_id, 'class', 'P' || class, count(*)" \
	" FROM crawltop.tasks WHERE status = 'pending' GROUP BY 1, 3" \
	" UNION ALL SELECT job_id, 'depth', CASE WHEN depth IS NULL THEN" \
	" 'unknown' WHEN depth > 2 THEN '3+' ELSE depth::text END, count(*)" \
	" FROM crawltop.tasks WHERE status = 'pending' GROUP BY 1, 3" \
	" UNION ALL SELECT job_id, 'heat', coalesce(discovery_method, 'none')" \
	" || '|' || coalesce(type, 'none'), count(*)" \
	" FROM crawltop.tasks WHERE status = 'pending' GROUP BY 1, 3" \
	" UNION ALL SELECT job_id, 'priority', (CASE WHEN job_priority > 100" \
	" THEN job_priority - 100 ELSE job_priority END)::text, count(*)" \
	" FROM crawltop.tasks WHERE status = 'pending' GROUP BY 1, 3" \
	" UNION ALL SELECT job_id, 'score', CASE WHEN score >= 80 THEN" \
	" '80-100' WHEN score >= 60 THEN '60-80' WHEN score >= 40 THEN" \
	" '40-60' WHEN score >= 20 THEN '20-40' ELSE '0-20' END, count(*)" \
	" FROM crawltop.tasks WHERE status = 'pending' GROUP BY 1, 3" \
	" UNION ALL SELECT job_id, 'rank', CASE WHEN ranked_at IS NULL THEN" \
	" 'unranked' ELSE 'P' || priority_class END, count(*)" \
	" FROM crawltop.tasks WHERE status = 'pending' GROUP BY 1, 3)"

/* Mismatches between the raw counter rows and the truth. */
static const char raw_sql[] =
	"WITH " TRUTH ", counted AS ("
	" SELECT job_id, dim, key, sum(n) AS n FROM crawltop.task_counts_now"
	" GROUP BY 1, 2, 3 HAVING sum(n) <> 0)"
	" SELECT count(*) || coalesce(': ' || string_agg(format("
	"'job %s %s=%s: counters %s, tasks %s', job_id, dim, key,"
	" coalesce(c.n, 0), coalesce(t.n, 0)), '; ' ORDER BY job_id, dim, key),"
	" '') FROM counted c FULL JOIN truth t USING (job_id, dim, key)"
	" WHERE c.n IS DISTINCT FROM t.n";

/* Mismatches between dashboard_cells (each job, and all jobs) and the
 * truth, and rows the function should have returned but did not. */
static const char api_sql[] =
	"WITH " TRUTH ", jobs AS (SELECT id FROM crawltop.jobs UNION ALL"
	" SELECT NULL), api AS ("
	" SELECT j.id AS job_id, d.dim, d.key, d.n FROM jobs j,"
	" LATERAL crawltop.dashboard_cells(j.id) d),"
	/* the rank cells of discovery jobs only */
	" shown AS (SELECT * FROM truth WHERE dim <> 'rank' OR job_id IN"
	" (SELECT id FROM crawltop.jobs WHERE prioritization_mode = 'discovery')),"
	" want AS (SELECT job_id, dim, key, n FROM shown UNION ALL"
	" SELECT NULL, dim, key, sum(n) FROM shown GROUP BY 2, 3),"
	" bad AS ("
	" SELECT a.job_id, a.dim, a.key, a.n AS api, coalesce(w.n, 0) AS want"
	" FROM api a LEFT JOIN want w ON w.job_id IS NOT DISTINCT FROM a.job_id"
	" AND w.dim = a.dim AND w.key = a.key WHERE a.n <> coalesce(w.n, 0)"
	" UNION ALL"
	" SELECT w.job_id, w.dim, w.key, NULL, w.n FROM want w WHERE w.n <> 0"
	" AND NOT EXISTS (SELECT 1 FROM api a WHERE a.job_id IS NOT DISTINCT"
	" FROM w.job_id AND a.dim = w.dim AND a.key = w.key))"
	" SELECT count(*) || coalesce(': ' || string_agg(format("
	"'job %s %s=%s: dashboard_cells %s, tasks %s', coalesce(job_id::text,"
	" 'all'), dim, key, coalesce(api::text, 'missing'), want), '; '), '')"
	" FROM bad";

/* Mismatches between dashboard_jobs's status columns and the truth. */
static const char jobs_sql[] =
	"WITH t AS (SELECT j.id,"
	" count(t.id) FILTER (WHERE t.status = 'pending') AS pending,"
	" count(t.id) FILTER (WHERE t.status = 'running'"
	" AND t.lease_owner IS NOT NULL) AS running,"
	" count(t.id) FILTER (WHERE t.status = 'running'"
	" AND t.lease_owner IS NULL) AS retrying,"
	" count(t.id) FILTER (WHERE t.status = 'completed') AS completed,"
	" count(t.id) FILTER (WHERE t.status = 'failed') AS failed,"
	" count(t.id) FILTER (WHERE t.status = 'skipped') AS skipped"
	" FROM crawltop.jobs j LEFT JOIN crawltop.tasks t ON t.job_id = j.id"
	" GROUP BY j.id)"
	" SELECT count(*) || coalesce(': ' || string_agg(format("
	"'job %s: dashboard_jobs %s/%s/%s/%s/%s/%s, tasks %s/%s/%s/%s/%s/%s',"
	" t.id, d.pending, d.running, d.retrying, d.completed, d.failed,"
	" d.skipped, t.pending, t.running, t.retrying, t.completed, t.failed,"
	" t.skipped), '; '), '')"
	" FROM t FULL JOIN crawltop.dashboard_jobs() d ON d.job_id = t.id"
	" WHERE (d.pending, d.running, d.retrying, d.completed, d.failed,"
	" d.skipped) IS DISTINCT FROM (t.pending, t.running, t.retrying,"
	" t.completed, t.failed, t.skipped)";

/* Fail with the mismatches sql reports ("0" when none). */
static void check(struct ct_store *s, const char *sql, const char *what,
		  const char *when)
{
	char *t = pgt_text(s, sql, 0, NULL);
	if (strcmp(t, "0") != 0) {
		char msg[1500];
		snprintf(msg, sizeof msg, "%s: %s, %s mismatches", when, what, t);
		free(t);
		fail_msg("%s", msg);
	}
	free(t);
}

void pgt_assert_counts_exact(struct ct_store *s, const char *when)
{
	check(s, raw_sql, "task_counts", when);
	check(s, api_sql, "dashboard_cells", when);
	check(s, jobs_sql, "dashboard_jobs", when);
}
