/* fetch.c: the console's session with the database (app.h, tf_*).
 *
 * Owns the asynchronous connection (src/store/aquery.h) and the timers
 * around it: the refresh (interval, floor, backoff when queries take more
 * than half of it), the reconnect (backoff forever), and the changes the
 * user sends. Fills the model; never draws. */
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app.h"
#include "text.h"

enum {
	Q_ROLE = 1, Q_JOBS, Q_CELLS, Q_RATE, Q_NEXT, Q_AUDIT, Q_SETTINGS,
	Q_LEASES = 9, Q_COUNT = 10, Q_QUEUE = 11, Q_CARD = 12, Q_AROW = 13, Q_REAP = 100,
	Q_ACT = 1000, /* + the change's slot, 0..7 */
};

/* Before each refresh of a session that may change jobs: expired leases
 * back to pending (or failed, or skipped), as the next claim would, so
 * that a job whose crawlers are gone is not shown running on a lease that
 * ran out. One probe of the lease index when none has (0005). The reaper
 * waits for the job rows of what it takes back: a job held by a change
 * (or a transaction left open) gives up after 200 ms instead of holding
 * the refresh to its statement timeout; the next refresh tries again. */
static const char SQL_REAP[] =
	"SELECT set_config('lock_timeout', '200ms', true), "
	"crawltop.reap_expired(100)";
/* The queries of one refresh: their columns are what model.c reads. */
static const char SQL_JOBS[] =
	"SELECT d.job_id, name, domain, mode, priority, status, total_pages, "
	"pending, running, retrying, completed, failed, skipped, claims_per_s, "
	"completions_per_s, h.last_claim_s, h.quiet_s, h.live_leases, h.expired_leases, "
	"h.workers, h.next_expiry_s, h.rescore_needed_s, h.rescore_reason "
	"FROM crawltop.dashboard_jobs() d "
	"LEFT JOIN crawltop.job_health($1::integer) h ON h.job_id = d.job_id "
	"ORDER BY d.job_id";
static const char SQL_CELLS[] =
	"SELECT dim, key, n FROM crawltop.dashboard_cells($1::bigint)";
static const char SQL_RATE[] =
	"SELECT extract(epoch FROM second)::bigint, claims, completions, "
	"extract(epoch FROM now())::bigint "
	"FROM crawltop.rate_series($1::bigint, $2::integer)";
/* Rows of next_tasks, find_tasks and task_rows, in their order, with the
 * status and, for a job in importance mode, the task's links in (0033;
 * NULL in the other modes): model.c's next_rows reads these 12 columns. */
#define SQL_TASK_COLS \
	"SELECT n.task_id, n.job_id, n.path, n.score, n.class, " \
	"n.job_priority, extract(epoch FROM now() - n.created_at), n.depth, " \
	"n.type, n.discovery_method, "
#define SQL_LINKS_IN \
	"CASE WHEN j.prioritization_mode = 'importance' THEN " \
	"coalesce(l.inlinks, 0) END"
#define SQL_TASK_LINKS \
	" WITH ORDINALITY n JOIN crawltop.jobs j ON j.id = n.job_id " \
	"LEFT JOIN crawltop.task_links l ON l.task_id = n.task_id " \
	"ORDER BY n.ordinality"
static const char SQL_NEXT[] =
	SQL_TASK_COLS "'pending', " SQL_LINKS_IN " FROM crawltop.next_tasks("
	"$1::bigint, $2::integer)" SQL_TASK_LINKS;
static const char SQL_AUDIT[] =
	"SELECT id, to_char(at, CASE WHEN at > now() - interval '20 hours' "
	"THEN 'HH24:MI:SS' ELSE 'MM-DD HH24:MI' END), db_role, "
	"application_name, action, job_id, coalesce(before::text, ''), "
	"coalesce(after::text, ''), rows_affected FROM crawltop.audit_log "
	"WHERE ($1::bigint IS NULL OR job_id = $1::bigint) "
	"AND ($3::text = '' OR strpos(db_role, $3) > 0) "
	"ORDER BY id DESC LIMIT $2::integer";
/* The audit view's opened row, whole. */
static const char SQL_AROW[] =
	"SELECT id, coalesce(jsonb_pretty(before), ''), "
	"coalesce(jsonb_pretty(after), '') FROM crawltop.audit_log "
	"WHERE id = $1::bigint";
/* The leases view (W), while it is open: the tasks workers hold, the
 * soonest to expire first (0025). */
static const char SQL_LEASES[] =
	"SELECT task_id, job_id, job_name, worker, path, running_s, "
	"expires_s, retry_count FROM crawltop.running_leases($1::bigint, "
	"$2::integer)";
/* The queue view (n), while it is open: the next tasks in claim order
 * (SQL_NEXT, at the view's limit), or the tasks whose path holds the
 * search text, any status (0028). */
static const char SQL_FIND[] =
	SQL_TASK_COLS "n.status, " SQL_LINKS_IN " FROM crawltop.find_tasks("
	"$1::bigint, $3, $2::integer)" SQL_TASK_LINKS;
/* The task view: one task whole, its place counted up to 100,000. */
static const char SQL_CARD[] =
	"SELECT * FROM crawltop.task_card($1::bigint, $2::bigint)";
/* The tasks a search found, again (0031): find_tasks's rows by id. */
static const char SQL_ROWS[] =
	SQL_TASK_COLS "n.status, " SQL_LINKS_IN " FROM crawltop.task_rows("
	"$1::bigint[])" SQL_TASK_LINKS;
/* The two latest settings versions (tune.c: tws_loaded). */
static const char SQL_SETTINGS[] =
	"SELECT version, value::text, created_by, "
	"to_char(created_at, 'YYYY-MM-DD HH24:MI'), coalesce(note, '') "
	"FROM crawltop.settings ORDER BY version DESC LIMIT 2";
/* Whether this session may change anything, and if not, why. */
static const char SQL_ROLE[] =
	"SELECT current_user, CASE "
	"WHEN pg_is_in_recovery() THEN false "
	"WHEN current_setting('transaction_read_only') = 'on' THEN false "
	"WHEN to_regprocedure('crawltop.set_job_priority(bigint,integer)') "
	"IS NULL THEN false "
	"WHEN to_regrole('crawltop_operator') IS NOT NULL "
	"THEN pg_has_role(current_user, 'crawltop_operator', 'USAGE') "
	"ELSE has_function_privilege("
	"'crawltop.set_job_priority(bigint,integer)', 'EXECUTE') "
	"AND has_table_privilege('crawltop.jobs', 'UPDATE') END, CASE "
	"WHEN pg_is_in_recovery() THEN 'the server is a read-only standby' "
	"WHEN current_setting('transaction_read_only') = 'on' "
	"THEN 'the session is read-only (default_transaction_read_only)' "
	"WHEN to_regprocedure('crawltop.set_job_priority(bigint,integer)') "
	"IS NULL THEN 'the schema is not migrated (crawltop migrate)' "
	"WHEN to_regrole('crawltop_operator') IS NOT NULL "
	"THEN 'role ' || current_user || ' is not in crawltop_operator' "
	"ELSE 'role ' || current_user || ' may not update crawltop.jobs' END, "
	"current_setting('server_version')";

static const char *const listen_channels[] = {"crawltop_jobs",
					      "crawltop_settings", NULL};

const char *tf_query_name(int i)
{
	static const char *const names[8] = {
		[Q_JOBS] = "jobs", [Q_CELLS] = "cells", [Q_RATE] = "rate",
		[Q_NEXT] = "next", [Q_AUDIT] = "audit",
	};
	return i >= 0 && i < 8 ? names[i] : NULL;
}

double tui_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void tui_log(struct tui *t, int err, const char *text)
{
	struct tui_logline *last = t->log_n ?
		&t->log[(t->log_next + TUI_LOG_MAX - 1) % TUI_LOG_MAX] : NULL;
	if (last && last->err == err && strcmp(last->text, text) == 0) {
		last->repeat++;
		return;
	}
	struct tui_logline *l = &t->log[t->log_next];
	time_t wall = time(NULL);
	struct tm tmv;
	strftime(l->at, sizeof l->at, "%H:%M:%S", localtime_r(&wall, &tmv));
	l->err = err;
	l->repeat = 1;
	snprintf(l->text, sizeof l->text, "%s", text);
	t->log_next = (t->log_next + 1) % TUI_LOG_MAX;
	if (t->log_n < TUI_LOG_MAX)
		t->log_n++;
	if (t->mode == TUI_LOG && t->log_scroll > 0) {
		/* the lines read stay in place, as far as the log goes */
		int max = t->log_n > t->log_page ? t->log_n - t->log_page : 0;
		if (++t->log_scroll > max)
			t->log_scroll = max;
	}
}

void tui_msg(struct tui *t, int err, const char *fmt, ...)
{
	char text[sizeof t->message];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	double now = tui_now();
	/* an error the operator may not have seen: it came with no key to
	 * answer (a change's result, the worker's, the connection); what
	 * answers a key is read as it is typed */
	if (err && !t->in_key)
		t->log_unseen++;
	tui_log(t, err, text);
	snprintf(t->message, sizeof t->message, "%s", text);
	t->message_err = err;
	t->message_at = now;
	/* a refusal for want of the connection (tui_why_readonly's "not
	 * connected") or a reconnect that failed (tf_step): the reconnect
	 * clears it. Other messages said meanwhile, such as the result of a
	 * rescore on the worker's own connection, stay. */
	t->message_conn = t->ever_connected && !t->connected &&
			  strstr(t->message, "not connected") != NULL;
}

int tf_start(struct tui *t, struct ct_error *err)
{
	struct ct_aconn_opts o = {
		.dsn = t->opts.dsn,
		.app_name = TUI_APP_NAME,
		.statement_timeout_ms = t->opts.statement_timeout_ms,
		.listen = listen_channels,
	};
	if (ct_aconn_new(&o, &t->ac, err) != CT_OK)
		return -1;
	t->reconnect_backoff = 0.5;
	t->eff_interval = t->prefs.interval;
	t->next_refresh = 0;
	if (ct_aconn_connect(t->ac, err) != CT_OK) {
		ct_aconn_free(t->ac);
		t->ac = NULL;
		return -1;
	}
	return 0;
}

void tf_stop(struct tui *t)
{
	ct_aconn_free(t->ac);
	t->ac = NULL;
	t->connected = 0;
}

int tf_pollfd(const struct tui *t, short *events)
{
	*events = 0;
	if (!t->ac)
		return -1;
	int fd = ct_aconn_fd(t->ac);
	unsigned want = ct_aconn_events(t->ac);
	if (want & CT_AC_WANT_READ)
		*events |= POLLIN;
	if (want & CT_AC_WANT_WRITE)
		*events |= POLLOUT;
	return fd;
}

/* Queue one query of the refresh; a failure to queue counts as done. */
static void send_q(struct tui *t, int tag, const char *what, const char *sql,
		   int n, const char *const *params)
{
	struct ct_error err;
	if (ct_aconn_send(t->ac, tag, what, sql, n, params, &err) == CT_OK)
		t->refreshing++;
}

/* The queue view's task ids as an array literal; NULL: out of memory.
 * The caller frees it. */
static char *task_ids(const struct tm_model *m)
{
	int64_t ids[TM_MAX_QUEUE];
	for (int i = 0; i < m->n_queue; i++)
		ids[i] = m->queue[i].task_id;
	return ct_store_id_array(ids, (size_t)m->n_queue);
}

/* The view on screen: a question's, the view it was asked from. */
static enum tui_mode shown_mode(const struct tui *t)
{
	return t->mode == TUI_CONFIRM ? t->back_mode : t->mode;
}

/* Whether the audit view (its list, filter line or opened change) is on
 * screen. */
static int audit_shown(const struct tui *t)
{
	enum tui_mode m = shown_mode(t);
	return m == TUI_AUDIT || m == TUI_AFILTER || m == TUI_AROW;
}

/* The audit query's role filter: the view's, while it is shown. */
static const char *audit_filter(const struct tui *t)
{
	return audit_shown(t) ? t->audit_role : "";
}

/* Start a refresh: every query of the dashboard, for the current focus. */
static void start_refresh(struct tui *t, double now)
{
	char job[24], lim[16], secs[16];
	const char *jobp = NULL;
	if (t->focus) {
		snprintf(job, sizeof job, "%" PRId64, t->focus);
		jobp = job;
	}
	t->refresh_focus = t->focus;
	t->refresh_started = now;
	t->refresh_sum_ms = 0;
	memset(t->q_ms, 0, sizeof t->q_ms);
	t->refresh_failed = 0;
	t->refresh_again = 0;
	t->refreshing = 0;
	if (t->model.can_change && !t->opts.readonly &&
	    !ct_aconn_standby(t->ac)) {
		struct ct_error err;
		/* its result is not the refresh's: not counted, not waited for
		 * (the connection runs it before the queries below) */
		(void)ct_aconn_send(t->ac, Q_REAP, "expired leases", SQL_REAP,
				    0, NULL, &err);
	}
	char stall[24];
	snprintf(stall, sizeof stall, "%.0f", t->prefs.health.stall_s);
	const char *p0[] = {stall};
	send_q(t, Q_JOBS, "dashboard jobs", SQL_JOBS, 1, p0);
	const char *p1[] = {jobp};
	send_q(t, Q_CELLS, "dashboard cells", SQL_CELLS, 1, p1);
	snprintf(secs, sizeof secs, "%d", TM_SERIES_SECONDS);
	const char *p2[] = {jobp, secs};
	send_q(t, Q_RATE, "rate series", SQL_RATE, 2, p2);
	/* as many as "Next up" shows, at most the model's (a tall
	 * terminal shows more rows than that; 20 before the first frame) */
	snprintf(lim, sizeof lim, "%d", t->next_limit <= 0 ? 20 :
		 t->next_limit < TM_MAX_NEXT ? t->next_limit : TM_MAX_NEXT);
	const char *p3[] = {jobp, lim};
	send_q(t, Q_NEXT, "next tasks", SQL_NEXT, 2, p3);
	enum tui_mode shown = shown_mode(t);
	snprintf(lim, sizeof lim, "%d", audit_shown(t) ? TM_MAX_AUDIT : 64);
	tx_copy(t->audit_sent, sizeof t->audit_sent, audit_filter(t));
	const char *p4[] = {jobp, lim, t->audit_sent};
	send_q(t, Q_AUDIT, "audit log", SQL_AUDIT, 3, p4);
	if (shown == TUI_AROW && t->arow_want) {
		/* by id: new changes shift the list under the selection */
		char id[24];
		snprintf(id, sizeof id, "%" PRId64, t->arow_want);
		const char *p8[] = {id};
		send_q(t, Q_AROW, "audit row", SQL_AROW, 1, p8);
	}
	if (t->mode == TUI_LEASES ||
	    (t->mode == TUI_CONFIRM && t->back_mode == TUI_LEASES)) {
		snprintf(lim, sizeof lim, "%d", TM_MAX_LEASES);
		const char *p5[] = {jobp, lim};
		send_q(t, Q_LEASES, "running leases", SQL_LEASES, 2, p5);
	}
	if (shown == TUI_QUEUE || shown == TUI_QSEARCH) {
		snprintf(lim, sizeof lim, "%d", TM_MAX_QUEUE);
		/* the same search, scanned less than a while ago, its answer
		 * loaded (a new search clears the list) */
		int again = strcmp(t->queue_sent, t->queue_search) == 0 &&
			    t->model.queue_age.loaded_at > 0 &&
			    now - t->found_at < TUI_SEARCH_AGAIN_S;
		tx_copy(t->queue_sent, sizeof t->queue_sent, t->queue_search);
		const char *p6[] = {jobp, lim, t->queue_sent};
		if (t->queue_sent[0] && again) {
			/* the tasks found, by id; none found: nothing to ask
			 * until the next scan */
			char *ids = t->model.n_queue > 0 ? task_ids(&t->model)
							 : NULL;
			const char *p9[] = {ids};
			if (ids)
				send_q(t, Q_QUEUE, "found tasks", SQL_ROWS, 1,
				       p9);
			free(ids);
		} else if (t->queue_sent[0]) {
			t->found_at = now;
			send_q(t, Q_QUEUE, "found tasks", SQL_FIND, 3, p6);
		} else
			send_q(t, Q_QUEUE, "queue", SQL_NEXT, 2, p6);
	}
	if (shown == TUI_TASK) {
		char id[24];
		snprintf(id, sizeof id, "%" PRId64, t->card_task);
		/* its place, counted now and then (0031) */
		int count = now - t->card_pos_at >= TUI_PLACE_AGAIN_S;
		if (count)
			t->card_pos_at = now;
		const char *p7[] = {id, count ? "100000" : "0"};
		send_q(t, Q_CARD, "task", SQL_CARD, 2, p7);
	}
	/* a standby sends no notifications: poll the settings instead */
	if (ct_aconn_standby(t->ac))
		tf_load_settings(t);
}

/* A refresh is complete: its cost, the backoff, the next deadline. */
static void end_refresh(struct tui *t, double now)
{
	t->cost_ms = t->refresh_sum_ms;
	memcpy(t->last_q_ms, t->q_ms, sizeof t->q_ms);
	t->refreshes++;
	t->last_failed = t->refresh_failed;
	if (!t->refresh_failed)
		t->last_ok = now;
	double c = t->cost_ms / 1e3;
	double base = t->prefs.interval;
	/* A refresh that failed (a statement timeout, a lock) says nothing
	 * of what a refresh costs: it neither backs off nor comes back. A
	 * slow one backs the interval off until it costs at most half of
	 * it; once they are cheap again (under an eighth), the interval
	 * comes back at once, not one halving per refresh: a lock that held
	 * one refresh up for 15 s kept the data a minute behind. */
	if (t->refresh_failed) {
		/* as it was */
	} else if (c > t->eff_interval / 2) {
		while (c > t->eff_interval / 2 && t->eff_interval < TUI_BACKOFF_MAX)
			t->eff_interval *= 2;
		if (t->eff_interval > TUI_BACKOFF_MAX)
			t->eff_interval = TUI_BACKOFF_MAX;
	} else {
		while (t->eff_interval > base && c < t->eff_interval / 8)
			t->eff_interval /= 2;
		if (t->eff_interval < base)
			t->eff_interval = base;
	}
	t->next_refresh = t->refresh_started + t->eff_interval;
	if (t->refresh_again)
		t->next_refresh = now;
}

/* The result of a change: say what happened, then refresh. */
static void act_result(struct tui *t, const struct ct_arows *r)
{
	int slot = (r->tag - Q_ACT) % 8;
	const char *desc = t->act_desc[slot];
	int64_t job = t->act_job[slot];
	t->act_job[slot] = 0;
	if (r->st != CT_OK && (strncmp(r->sqlstate, "08", 2) == 0 ||
			       strncmp(r->sqlstate, "57P", 3) == 0)) {
		/* sent, then the connection went (08: the link broke; 57P:
		 * the session was terminated or the server shut down): it
		 * may have been made */
		tui_msg(t, 1, "%s not confirmed: the connection was lost before "
			"the answer (the audit log, a, tells whether it was "
			"made): %s", desc, r->err);
		return;
	}
	if (r->st != CT_OK) {
		tui_msg(t, 1, "%s refused: %s", desc, r->err);
		return;
	}
	if (t->act_none[slot][0] && !strcmp(ct_arows_str(r, 0, 0, "0"), "0")) {
		/* the store changed and audited nothing */
		tui_msg(t, 0, "%s: %s", desc, t->act_none[slot]);
		return;
	}
	tui_msg(t, 0, "%s: done (%s task%s changed)", desc,
		ct_arows_str(r, 0, 0, "0"),
		strcmp(ct_arows_str(r, 0, 0, "0"), "1") == 0 ? "" : "s");
	/* every result read after this one comes from a query sent after
	 * the change (one connection, in order): the model may show it */
	if (job) {
		tm_job_changed(&t->model, job, t->act_priority[slot],
			       t->act_status[slot][0] ? t->act_status[slot] : NULL);
		tui_view_jobs(t);
	}
	t->card_pos_at = 0; /* a change may move the task view's task */
	if (t->refreshing)
		t->refresh_again = 1;
	else
		t->next_refresh = 0;
}

/* The words of a boost or demotion: "boost /blog +20". */
static void adjust_words(char *buf, size_t len, const struct tui *t)
{
	snprintf(buf, len, "%s %.100s %+g", t->pending_delta < 0 ? "demote" :
		 "boost", t->pending_match, t->pending_delta);
}

/* The count of a boost or demotion came: ask, or say nothing would
 * change. */
static void count_result(struct tui *t, const struct ct_arows *r)
{
	enum tui_action a = t->counting;
	t->counting = TUI_ACT_NONE;
	const struct tm_job *j = tm_job_by_id(&t->model, t->counting_job);
	char what[160];
	adjust_words(what, sizeof what, t);
	const char *name = j ? j->name : "?";
	int pattern = strchr(t->pending_match, '*') != NULL;
	if (r->st != CT_OK) {
		tui_msg(t, 1, "job %s: %s refused: %s", name, what, r->err);
		return;
	}
	long long n = strtoll(ct_arows_str(r, 0, 0, "0"), NULL, 10);
	if (n == 0) {
		tui_msg(t, 0, "job %s: %s: 0 pending tasks %s %s: nothing "
			"changed", name, what, pattern ? "match" : "under",
			t->pending_match);
		return;
	}
	/* a key pressed meanwhile opened something else: no question over it */
	if (t->mode != TUI_NORMAL) {
		tui_msg(t, 0, "job %s: %s would change %lld pending task%s: "
			"not asked, as another line is open (b or d again)",
			name, what, n, n == 1 ? "" : "s");
		return;
	}
	t->pending = a;
	t->pending_job = t->counting_job;
	snprintf(t->prompt, sizeof t->prompt, "%s %lld pending task%s of %.64s "
		 "%s %.100s by %+g? [y/N]", a == TUI_ACT_DEMOTE ? "Demote" :
		 "Boost", n, n == 1 ? "" : "s", name, pattern ? "matching" :
		 "under", t->pending_match, t->pending_delta);
	t->back_mode = TUI_NORMAL;
	t->mode = TUI_CONFIRM;
}

void tf_count(struct tui *t, enum tui_action a, int64_t job,
	      const char *match, double delta)
{
	const struct tm_job *j = tm_job_by_id(&t->model, job);
	/* before anything is kept: the count out is for what is kept */
	if (t->counting != TUI_ACT_NONE) {
		tui_msg(t, 1, "a boost or demotion is being counted; press "
			"again when it is asked");
		return;
	}
	snprintf(t->pending_match, sizeof t->pending_match, "%s", match);
	t->pending_delta = delta;
	char jb[24], db[32], what[160];
	adjust_words(what, sizeof what, t);
	snprintf(jb, sizeof jb, "%" PRId64, job);
	snprintf(db, sizeof db, "%.17g", delta);
	const char *p[] = {jb, match, db, strchr(match, '*') ? "true" : "false"};
	struct ct_error err;
	if (ct_aconn_send(t->ac, Q_COUNT, "count",
			  "SELECT crawltop.adjustable_count($1::bigint, $2, "
			  "$3::double precision, $4::boolean)", 4, p,
			  &err) != CT_OK) {
		tui_msg(t, 1, "job %s: %s: %s", j ? j->name : "?", what, err.msg);
		return;
	}
	t->counting = a;
	t->counting_job = job;
	tui_msg(t, 0, "job %s: %s: counting the tasks it would change ...",
		j ? j->name : "?", what);
}

/* Where the row of id now is among n rows of stride bytes whose int64_t
 * id is at offset off; -1: gone. */
static int row_of(const void *rows, size_t stride, size_t off, int n,
		  int64_t id)
{
	for (int i = 0; id && i < n; i++) {
		int64_t v;
		memcpy(&v, (const char *)rows + (size_t)i * stride + off,
		       sizeof v);
		if (v == id)
			return i;
	}
	return -1;
}

/* The queue view's rows: an answer to a search or a focus changed since
 * it was sent is dropped (the change asked for a refresh of its own); the
 * selection stays on its task as tasks are claimed ahead of it. */
static void load_queue(struct tui *t, const struct ct_arows *r, double now)
{
	struct tm_model *m = &t->model;
	if (strcmp(t->queue_sent, t->queue_search) != 0 ||
	    t->refresh_focus != t->focus)
		return;
	int64_t was = t->queue_sel >= 0 && t->queue_sel < m->n_queue ?
		      m->queue[t->queue_sel].task_id : 0;
	tm_load_queue(m, r, now);
	int at = row_of(m->queue, sizeof m->queue[0],
			offsetof(struct tm_next, task_id), m->n_queue, was);
	if (at >= 0)
		t->queue_sel = at;
}

/* The audit view's rows, likewise (new changes come in on top). */
static void load_audit(struct tui *t, const struct ct_arows *r, double now)
{
	struct tm_model *m = &t->model;
	if (strcmp(t->audit_sent, audit_filter(t)) != 0 ||
	    t->refresh_focus != t->focus)
		return;
	int64_t was = t->audit_sel >= 0 && t->audit_sel < m->n_audit ?
		      m->audit[t->audit_sel].id : 0;
	tm_load_audit(m, r, now);
	int at = row_of(m->audit, sizeof m->audit[0],
			offsetof(struct tm_audit, id), m->n_audit, was);
	if (at >= 0)
		t->audit_sel = at;
}

/* Put one finished query into the model. */
static void dispatch(struct tui *t, struct ct_arows *r, double now)
{
	if (r->tag >= Q_ACT) {
		act_result(t, r);
		return;
	}
	if (r->tag == Q_COUNT) {
		count_result(t, r);
		return;
	}
	if (r->tag == Q_ROLE) {
		tm_load_role(&t->model, r);
		return;
	}
	if (r->tag == Q_REAP) /* a refusal (an older store) changes nothing */
		return;
	if (r->tag == Q_SETTINGS) {
		tws_loaded(t, r);
		t->settings_loading = 0;
		if (t->settings_again) { /* changed again while this one ran */
			t->settings_again = 0;
			tf_load_settings(t);
		}
		return;
	}
	t->refresh_sum_ms += r->ms;
	if (r->tag >= 0 && r->tag < 8)
		t->q_ms[r->tag] = r->ms;
	if (r->st != CT_OK)
		t->refresh_failed = 1;
	switch (r->tag) {
	case Q_JOBS:
		tm_load_jobs(&t->model, r, now);
		if (t->resolve_job && r->st == CT_OK) {
			const struct tm_job *j = tm_job_find(&t->model,
							     t->opts.job);
			t->resolve_job = 0;
			if (j) {
				t->focus = t->sel_job = j->id;
				t->refresh_again = 1;
			} else {
				t->job_missing = 1;
				tui_msg(t, 1, "-j %s: no such job; showing all "
					"jobs", t->opts.job);
			}
		}
		tui_view_jobs(t);
		break;
	case Q_CELLS: tm_load_cells(&t->model, r, t->refresh_focus, now); break;
	case Q_RATE: tm_load_series(&t->model, r, now); break;
	case Q_NEXT: tm_load_next(&t->model, r, now); break;
	case Q_AUDIT: load_audit(t, r, now); break;
	case Q_LEASES: tm_load_leases(&t->model, r, now); break;
	case Q_QUEUE: load_queue(t, r, now); break;
	case Q_CARD:
		tm_load_card(&t->model, r, now);
		/* pending, its place never counted (a count that failed, a
		 * task back in the queue): count it at the next refresh */
		if (t->model.have_card && t->model.card.ahead_all == -2)
			t->card_pos_at = 0;
		break;
	case Q_AROW: tm_load_arow(&t->model, r, now); break;
	default: break;
	}
	if (t->refreshing > 0 && --t->refreshing == 0)
		end_refresh(t, now);
}

int tf_step(struct tui *t, short revents, double now)
{
	int flags = 0;
	if (!t->ac)
		return 0;
	if (ct_aconn_state(t->ac) == CT_AC_DOWN && now >= t->reconnect_at) {
		struct ct_error err;
		t->reconnect_tries++;
		if (ct_aconn_connect(t->ac, &err) != CT_OK) {
			tui_msg(t, 1, "%s", err.msg);
			t->message_conn = 1;
		}
		flags |= TUI_REDRAW;
	}
	unsigned ready = 0;
	if (revents & (POLLIN | POLLERR | POLLHUP))
		ready |= CT_AC_WANT_READ;
	if (revents & (POLLOUT | POLLERR | POLLHUP))
		ready |= CT_AC_WANT_WRITE;
	unsigned ev = ct_aconn_step(t->ac, ready);
	if (ev & CT_AC_EV_CONNECTED) {
		t->connected = 1;
		t->ever_connected = 1;
		t->down_since = 0;
		t->reconnect_backoff = 0.5;
		t->reconnect_tries = 0;
		t->refreshing = 0;
		/* a new server: the interval backs off again from the chosen one */
		t->eff_interval = t->prefs.interval;
		/* "cannot ...: not connected" is not true any more */
		if (t->message_conn) {
			t->message[0] = '\0';
			t->message_conn = 0;
		}
		struct ct_error err;
		ct_aconn_send(t->ac, Q_ROLE, "session rights", SQL_ROLE, 0,
			      NULL, &err);
		tf_load_settings(t);
		t->next_refresh = now;
		flags |= TUI_REDRAW;
	}
	struct ct_arows *r;
	while ((r = ct_aconn_take(t->ac)) != NULL) {
		dispatch(t, r, now);
		ct_arows_free(r);
		flags |= TUI_REDRAW;
	}
	if (ev & CT_AC_EV_LOST) {
		t->connected = 0;
		t->refreshing = 0;
		t->settings_loading = t->settings_again = 0;
		/* changes still unanswered get no answer now (those that
		 * were, said "not confirmed" above) */
		memset(t->act_job, 0, sizeof t->act_job);
		if (t->counting != TUI_ACT_NONE)
			tui_msg(t, 1, "a boost or demotion was being counted when "
				"the connection was lost: nothing asked, nothing "
				"changed");
		t->counting = TUI_ACT_NONE;
		if (!t->down_since)
			t->down_since = now;
		t->reconnect_at = now + t->reconnect_backoff;
		t->reconnect_backoff *= 2;
		if (t->reconnect_backoff > TUI_RECONNECT_MAX)
			t->reconnect_backoff = TUI_RECONNECT_MAX;
		t->model.can_change = 0;
		snprintf(t->model.cannot_why, sizeof t->model.cannot_why,
			 "not connected");
		flags |= TUI_REDRAW;
	}
	char chan[64];
	int settings_changed = 0;
	while (ct_aconn_notification(t->ac, chan, sizeof chan)) {
		/* a job or the settings changed: refresh soon, coalesced */
		if (!t->paused && t->next_refresh > now + 0.2)
			t->next_refresh = now + 0.2;
		if (strcmp(chan, "crawltop_settings") == 0)
			settings_changed = 1;
	}
	/* one read for any number of notifications (anyone may NOTIFY, a
	 * thousand times a second): while one is out, one more after it */
	if (settings_changed)
		tf_load_settings(t);
	if (t->connected && !t->refreshing && !t->paused &&
	    now >= t->next_refresh) {
		start_refresh(t, now);
		flags |= TUI_REDRAW;
	}
	return flags;
}

double tf_deadline(const struct tui *t, double now)
{
	double d = now + 1.0; /* the clock and STALE age in the header */
	if (t->ac && ct_aconn_state(t->ac) == CT_AC_DOWN && t->reconnect_at < d)
		d = t->reconnect_at;
	if (t->connected && !t->refreshing && !t->paused && t->next_refresh < d)
		d = t->next_refresh;
	return d < now ? now : d;
}

void tf_load_settings(struct tui *t)
{
	struct ct_error err;
	if (!t->work || !t->connected) /* batch mode has no use for them */
		return;
	if (t->settings_loading) {
		t->settings_again = 1;
		return;
	}
	if (ct_aconn_send(t->ac, Q_SETTINGS, "settings", SQL_SETTINGS, 0,
			  NULL, &err) == CT_OK)
		t->settings_loading = 1;
}

void tf_refresh_now(struct tui *t, double now)
{
	if (!t->connected)
		return;
	if (t->refreshing) {
		t->refresh_again = 1;
		return;
	}
	start_refresh(t, now);
}

void tf_set_interval(struct tui *t, double seconds, double now)
{
	t->prefs.interval = seconds;
	t->eff_interval = seconds;
	if (!t->refreshing)
		t->next_refresh = t->refresh_started + seconds;
	(void)now;
}

void tf_act(struct tui *t, enum tui_action a, int64_t job, int arg,
	    const char *prefix, double delta)
{
	const struct tm_job *j = tm_job_by_id(&t->model, job);
	const char *name = j ? j->name : "?";
	/* one change of a job at a time: the next key starts from what the
	 * last one made, which the model shows once it is done */
	for (int i = 0; i < 8; i++)
		if (t->act_job[i] == job) {
			tui_msg(t, 1, "job %s: the last change is still being "
				"made; press again when it is done", name);
			return;
		}
	/* a slot whose change is answered; answers come in order, so a
	 * slow one (a job row locked) holds the rest behind it */
	int slot = -1;
	for (int i = 0; i < 8 && slot < 0; i++)
		if (!t->act_job[i])
			slot = i;
	if (slot < 0) {
		tui_msg(t, 1, "job %s: 8 changes are still being made; press "
			"again when one is done", name);
		return;
	}
	t->act_seq++;
	char *desc = t->act_desc[slot];
	t->act_priority[slot] = 0;
	t->act_status[slot][0] = '\0';
	t->act_none[slot][0] = '\0';
	char jb[24], ab[32];
	snprintf(jb, sizeof jb, "%" PRId64, job);
	struct ct_error err;
	ct_status st = CT_OK;
	switch (a) {
	case TUI_ACT_PRIORITY: {
		snprintf(desc, sizeof t->act_desc[0],
			 "job %s: priority %d %s %d", name, j ? j->priority : 0,
			 "->", arg);
		snprintf(ab, sizeof ab, "%d", arg);
		t->act_priority[slot] = arg;
		const char *p[] = {jb, ab};
		st = ct_aconn_send(t->ac, Q_ACT + slot, "set job priority",
				   "SELECT crawltop.set_job_priority($1::bigint, "
				   "$2::integer)", 2, p, &err);
		break;
	}
	case TUI_ACT_PAUSE:
	case TUI_ACT_RESUME:
	case TUI_ACT_CANCEL: {
		const char *verb = a == TUI_ACT_PAUSE ? "pause" :
				   a == TUI_ACT_RESUME ? "resume" : "cancel";
		snprintf(desc, sizeof t->act_desc[0], "job %s: %s", name, verb);
		/* resume: running or pending, as the next refresh tells */
		snprintf(t->act_status[slot], sizeof t->act_status[0], "%s",
			 a == TUI_ACT_PAUSE ? "paused" :
			 a == TUI_ACT_CANCEL ? "cancelled" : "running");
		const char *p[] = {jb, verb};
		st = ct_aconn_send(t->ac, Q_ACT + slot, verb,
				   "SELECT crawltop.set_job_state($1::bigint, $2)",
				   2, p, &err);
		break;
	}
	case TUI_ACT_BOOST:
	case TUI_ACT_DEMOTE: {
		snprintf(desc, sizeof t->act_desc[0], "job %.40s: %s %.*s %+g",
			 name, delta < 0 ? "demote" : "boost", 100, prefix, delta);
		snprintf(ab, sizeof ab, "%.17g", delta);
		snprintf(t->act_none[slot], sizeof t->act_none[0], "0 pending "
			 "tasks %s %.100s: nothing changed", strchr(prefix, '*') ?
			 "match" : "under", prefix);
		/* a text with '*' is a pattern of the whole path */
		const char *p[] = {jb, prefix, ab,
				   strchr(prefix, '*') ? "true" : "false"};
		st = ct_aconn_send(t->ac, Q_ACT + slot,
				   delta < 0 ? "demote tasks" : "boost tasks",
				   "SELECT crawltop.adjust_scores($1::bigint, $2, "
				   "$3::double precision, $4::boolean)", 4, p, &err);
		break;
	}
	case TUI_ACT_REQUEUE: {
		/* the task's id comes as text (prefix) */
		snprintf(desc, sizeof t->act_desc[0], "job %.40s: requeue task %s",
			 name, prefix);
		const char *p[] = {prefix};
		st = ct_aconn_send(t->ac, Q_ACT + slot, "requeue a task",
				   "SELECT 1 FROM crawltop.requeue_task($1::bigint)",
				   1, p, &err);
		break;
	}
	case TUI_ACT_TASK_ADJ:
	case TUI_ACT_RETRY: {
		/* the task's id comes as text (prefix) */
		const char *p[] = {prefix, ab};
		if (a == TUI_ACT_RETRY) {
			snprintf(desc, sizeof t->act_desc[0], "job %.40s: retry "
				 "task %s", name, prefix);
			st = ct_aconn_send(t->ac, Q_ACT + slot, "retry a task",
					   "SELECT 1 FROM crawltop.retry_task("
					   "$1::bigint)", 1, p, &err);
			break;
		}
		snprintf(desc, sizeof t->act_desc[0], "job %.40s: %s task %s "
			 "by %+g", name, delta < 0 ? "demote" : "boost", prefix,
			 delta);
		snprintf(ab, sizeof ab, "%.17g", delta);
		/* NULL: the adjustment is at its bound, nothing written */
		snprintf(t->act_none[slot], sizeof t->act_none[0], "its "
			 "adjustment is at %s already: nothing changed",
			 delta < 0 ? "-100" : "+100");
		st = ct_aconn_send(t->ac, Q_ACT + slot, delta < 0 ?
				   "demote a task" : "boost a task",
				   "SELECT count(s) FROM crawltop.adjust_task("
				   "$1::bigint, $2::double precision) s", 2, p,
				   &err);
		break;
	}
	default:
		return;
	}
	if (st != CT_OK) {
		tui_msg(t, 1, "%s: %s", desc, err.msg);
	} else {
		t->act_job[slot] = job;
		tui_msg(t, 0, "%s ...", desc);
	}
}

const char *tf_state(const struct tui *t, double now, char *buf, size_t len)
{
	if (!t->connected)
		snprintf(buf, len, "%s", t->ever_connected || t->down_since ?
			 "DISCONNECTED" : "CONNECTING");
	else if (t->paused)
		snprintf(buf, len, "PAUSED");
	else if (!t->last_ok)
		snprintf(buf, len, "LOADING");
	else if (t->last_failed || now - t->last_ok > fmax(2 * t->eff_interval,
							   t->eff_interval + 3))
		snprintf(buf, len, "STALE %.0fs", now - t->last_ok);
	else
		snprintf(buf, len, "LIVE");
	return buf;
}
