/* tune.c: retuning from the console (app.h, tws_* and tui_work_*).
 *
 * The weights panel's model: the settings the store holds (a struct
 * ct_config read from the current crawltop.settings version, so every
 * value knows its source), the draft the user edits on top of them, the
 * rows the panel shows (from the config key table: one row per key, the
 * open maps' entries under their group), and the checks, which are the
 * config layer's own (ct_key_range_ok, ct_config_validate): a value the
 * configuration file would refuse is refused here with the same rule.
 *
 * And the jobs of the worker thread (work.h) that the console starts: the
 * preview of the draft, the apply and the undo (a new settings version,
 * then the rescore of every unfinished job), and a job's mode change. The
 * loop polls the worker's pipe; tui_work_poll turns its end into messages.
 * No curses here. */
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "config_keys.h"
#include "crawltop/number.h"
#include "settings_json.h"
#include "text.h"

const char *const tui_modes[TUI_N_MODES] = {
	"fifo", "hierarchy", "frontier", "discovery", "freshness", "importance",
};

/* The source of a value typed into the panel: "weights panel:ROW". */
#define EDIT_SOURCE "weights panel"

void tui_free(struct tui *t)
{
	if (!t)
		return;
	tw_free(t->work, 0.5); /* a stuck job must not hold the exit */
	if (t->keylog)
		fclose(t->keylog);
	free(t->sets.json);
	free(t->sets.prev_json);
	free(t->queued_json);
	tm_free(&t->model);
	free(t);
}

/* ---- values and rows -------------------------------------------------- */

/* The shortest decimal that reads back as d (as settings_json.c writes). */
static char *fmt_num(char *buf, size_t len, double d)
{
	if (d == floor(d) && fabs(d) < 1e15) {
		snprintf(buf, len, "%.0f", d);
		return buf;
	}
	for (int p = 1; p <= 17; p++) {
		snprintf(buf, len, "%.*g", p, d);
		if (strtod(buf, NULL) == d)
			break;
	}
	return buf;
}

/* The entry of a name in a table of n, or NULL. */
static const struct ct_named_value *named(const struct ct_named_value *v,
					  size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i].name, name) == 0)
			return &v[i];
	return NULL;
}

static const struct ct_alias *alias_of(const struct ct_frontier_params *p,
				       const char *from)
{
	for (size_t i = 0; i < p->n_aliases; i++)
		if (strcmp(p->aliases[i].from, from) == 0)
			return &p->aliases[i];
	return NULL;
}

/* The map entry of a row in p, or NULL. */
static const struct ct_named_value *entry_of(const struct ct_frontier_params *p,
					     const struct tui_wrow *row)
{
	if (row->kind == WR_TYPE)
		return named(p->types, p->n_types, row->name);
	if (row->kind == WR_BONUS)
		return named(p->bonuses, p->n_bonuses, row->name);
	return NULL;
}

const char *tws_value(const struct ct_config *c, const struct tui_wrow *row,
		      char *buf, size_t len)
{
	buf[0] = '\0';
	if (row->kind == WR_KEY) {
		const struct ct_key *k = &ct_keys[row->key];
		switch (k->type) {
		case CT_KEY_BOOL:
			snprintf(buf, len, "%s", ct_key_get(k, &c->settings) ?
				 "true" : "false");
			break;
		case CT_KEY_TOKENS: {
			size_t *count, at = 0;
			char (*tok)[CT_NAME_LEN] = ct_key_tokens(k,
				(struct ct_settings *)&c->settings, &count);
			for (size_t i = 0; i < *count && at + 1 < len; i++) {
				int n = snprintf(buf + at, len - at, "%s%s",
						 i ? ", " : "", tok[i]);
				at += n > 0 ? (size_t)n : 0;
			}
			break;
		}
		case CT_KEY_DOUBLE:
			fmt_num(buf, len, ct_key_get(k, &c->settings));
			break;
		case CT_KEY_INT:
		case CT_KEY_LONG:
		case CT_KEY_SIZE:
			snprintf(buf, len, "%.0f", ct_key_get(k, &c->settings));
			break;
		}
	} else if (row->kind == WR_TYPE || row->kind == WR_BONUS) {
		const struct ct_named_value *e = entry_of(&c->settings.frontier,
							  row);
		if (e)
			fmt_num(buf, len, e->value);
	} else if (row->kind == WR_ALIAS) {
		const struct ct_alias *a = alias_of(&c->settings.frontier,
						    row->name);
		if (a)
			snprintf(buf, len, "%s", a->to);
	}
	return buf;
}

const char *tws_path(const struct tui_wrow *row, char *buf, size_t len)
{
	switch (row->kind) {
	case WR_KEY: snprintf(buf, len, "%s", ct_keys[row->key].path); break;
	case WR_TYPE: snprintf(buf, len, "frontier.types.%s", row->name); break;
	case WR_BONUS: snprintf(buf, len, "frontier.bonuses.%s", row->name); break;
	case WR_ALIAS: snprintf(buf, len, "frontier.aliases.%s", row->name); break;
	default: snprintf(buf, len, "%s", row->name); break;
	}
	return buf;
}

/* The open map of a map row. */
static const struct ct_map *map_of(const struct tui_wrow *row)
{
	return ct_map_find(row->kind == WR_TYPE ? "frontier.types" :
			   row->kind == WR_BONUS ? "frontier.bonuses" :
			   "frontier.aliases");
}

const char *tws_help(const struct tui_wrow *row, char *buf, size_t len)
{
	const struct ct_map *m;
	buf[0] = '\0';
	if (row->kind == WR_KEY)
		snprintf(buf, len, "%s", ct_keys[row->key].help);
	else if (row->kind != WR_HEAD && (m = map_of(row)) != NULL)
		snprintf(buf, len, "%s", m->help);
	return buf;
}

/* Whether row's values in a and b differ. */
static int differs(const struct ct_config *a, const struct ct_config *b,
		   const struct tui_wrow *row)
{
	if (row->kind == WR_KEY) {
		const struct ct_key *k = &ct_keys[row->key];
		if (k->type != CT_KEY_TOKENS)
			return ct_key_get(k, &a->settings) !=
			       ct_key_get(k, &b->settings);
		size_t *na, *nb;
		char (*ta)[CT_NAME_LEN] = ct_key_tokens(k,
			(struct ct_settings *)&a->settings, &na);
		char (*tb)[CT_NAME_LEN] = ct_key_tokens(k,
			(struct ct_settings *)&b->settings, &nb);
		if (*na != *nb)
			return 1;
		for (size_t i = 0; i < *na; i++)
			if (strcmp(ta[i], tb[i]) != 0)
				return 1;
		return 0;
	}
	char va[64], vb[64];
	tws_value(a, row, va, sizeof va);
	tws_value(b, row, vb, sizeof vb);
	return strcmp(va, vb) != 0;
}

int tws_edited(const struct tui *t, const struct tui_wrow *row)
{
	return row->kind != WR_HEAD && differs(&t->w.draft, &t->sets.cur, row);
}

/* Index of "weights panel" in c->files, added when missing. */
static unsigned edit_file(struct ct_config *c)
{
	for (size_t i = 0; i < c->n_files; i++)
		if (strcmp(c->files[i], EDIT_SOURCE) == 0)
			return (unsigned)i;
	if (c->n_files == CT_CONFIG_MAX_FILES)
		return 0;
	snprintf(c->files[c->n_files], CT_CONFIG_PATH_LEN, "%s", EDIT_SOURCE);
	return (unsigned)c->n_files++;
}

/* Copy row's value from src into dst; its source becomes src_rec. */
static void copy_row(struct ct_config *dst, const struct ct_config *src,
		     const struct tui_wrow *row,
		     const struct ct_config_source *src_rec)
{
	struct ct_frontier_params *fp = &dst->settings.frontier;
	const struct ct_frontier_params *sp = &src->settings.frontier;
	if (row->kind == WR_KEY) {
		const struct ct_key *k = &ct_keys[row->key];
		if (k->type == CT_KEY_TOKENS) {
			size_t *nd, *ns;
			char (*td)[CT_NAME_LEN] = ct_key_tokens(k, &dst->settings, &nd);
			char (*ts)[CT_NAME_LEN] = ct_key_tokens(k,
				(struct ct_settings *)&src->settings, &ns);
			memcpy(td, ts, CT_FRONTIER_MAX_TOKENS * CT_NAME_LEN);
			*nd = *ns;
		} else if (k->type == CT_KEY_BOOL) {
			ct_key_put_bool(k, &dst->settings,
					ct_key_get(k, &src->settings) != 0);
		} else {
			double d = ct_key_get(k, &src->settings);
			ct_key_put_number(k, &dst->settings, d, (long long)d);
		}
		dst->key_src[row->key] = *src_rec;
	} else if (row->kind == WR_TYPE || row->kind == WR_BONUS) {
		const struct ct_named_value *e = entry_of(sp, row);
		if (e && row->kind == WR_TYPE)
			ct_frontier_set_type(fp, row->name, e->value);
		else if (e)
			ct_frontier_set_bonus(fp, row->name, e->value);
	} else if (row->kind == WR_ALIAS) {
		const struct ct_alias *a = alias_of(sp, row->name);
		if (a && ct_frontier_set_alias(fp, row->name, a->to) == CT_OK)
			for (size_t i = 0; i < fp->n_aliases; i++)
				if (strcmp(fp->aliases[i].from, row->name) == 0)
					dst->alias_src[i] = *src_rec;
	}
}

/* The group of a dotted path: all but its last part. */
static void group_of(const char *path, char *buf, size_t len)
{
	const char *dot = strrchr(path, '.');
	size_t n = dot ? (size_t)(dot - path) : 0;
	if (n >= len)
		n = len - 1;
	memcpy(buf, path, n);
	buf[n] = '\0';
}

/* path is group grp or inside it. */
static int in_group(const char *path, const char *grp)
{
	size_t n = strlen(grp);
	return n && strncmp(path, grp, n) == 0 && (!path[n] || path[n] == '.');
}

static void add_row(struct tui_weights *w, int kind, int key, const char *name)
{
	if (w->n_rows == TUI_WROWS)
		return;
	struct tui_wrow *r = &w->rows[w->n_rows++];
	r->kind = (unsigned char)kind;
	r->key = (short)key;
	snprintf(r->name, sizeof r->name, "%s", name ? name : "");
}

/* The entries of map m of the draft, as rows. */
static void add_entries(struct tui_weights *w, const struct ct_map *m)
{
	const struct ct_frontier_params *p = &w->draft.settings.frontier;
	if (m->kind == CT_MAP_TYPES)
		for (size_t i = 0; i < p->n_types; i++)
			add_row(w, WR_TYPE, -1, p->types[i].name);
	else if (m->kind == CT_MAP_BONUSES)
		for (size_t i = 0; i < p->n_bonuses; i++)
			add_row(w, WR_BONUS, -1, p->bonuses[i].name);
	else
		for (size_t i = 0; i < p->n_aliases; i++)
			add_row(w, WR_ALIAS, -1, p->aliases[i].from);
}

/* Maps due when the rows leave group cur for group next: a map whose
 * path is cur (its entries follow cur's keys), and maps of a parent
 * group that next leaves (each under its own heading). */
static void flush_maps(struct tui_weights *w, const char *cur,
		       const char *next, int *done)
{
	for (size_t i = 0; i < ct_n_maps; i++) {
		const struct ct_map *m = &ct_maps[i];
		char parent[64];
		if (done[i])
			continue;
		group_of(m->path, parent, sizeof parent);
		if (strcmp(m->path, cur) == 0) {
			add_entries(w, m);
			done[i] = 1;
		} else if (in_group(cur, parent) && !in_group(next, parent)) {
			add_row(w, WR_HEAD, -1, m->path);
			add_entries(w, m);
			done[i] = 1;
		}
	}
}

/* Rebuild the rows from the key table and the draft's maps; the
 * selection stays on the same path. */
static void build_rows(struct tui *t)
{
	struct tui_weights *w = &t->w;
	char keep[96] = "", cur[64] = "", g[64];
	int done[8] = {0};
	if (w->sel >= 0 && w->sel < w->n_rows)
		tws_path(&w->rows[w->sel], keep, sizeof keep);
	w->n_rows = 0;
	for (size_t i = 0; i < ct_n_keys; i++) {
		group_of(ct_keys[i].path, g, sizeof g);
		if (strcmp(g, cur) != 0) {
			flush_maps(w, cur, g, done);
			add_row(w, WR_HEAD, -1, g);
			snprintf(cur, sizeof cur, "%s", g);
		}
		add_row(w, WR_KEY, (int)i, NULL);
	}
	flush_maps(w, cur, "", done);
	w->sel = 1;
	for (int i = 0; keep[0] && i < w->n_rows; i++) {
		char p[96];
		if (strcmp(tws_path(&w->rows[i], p, sizeof p), keep) == 0)
			w->sel = i;
	}
	if (w->sel >= w->n_rows)
		w->sel = w->n_rows - 1;
}

/* The draft changed: count the edits, check the whole, ask for a
 * preview. */
static void after_change(struct tui *t)
{
	struct tui_weights *w = &t->w;
	w->n_edits = 0;
	for (int i = 0; i < w->n_rows; i++)
		w->n_edits += tws_edited(t, &w->rows[i]);
	w->problem[0] = '\0';
	if (w->n_edits && tws_check(t, w->problem, sizeof w->problem) == 0)
		w->problem[0] = '\0';
	if (!w->n_edits || w->problem[0]) {
		w->pstate = WP_NONE;
		w->want_preview = 0;
		if (tw_running(t->work) == TW_PREVIEW)
			tw_cancel(t->work);
		return;
	}
	tws_preview(t);
}

/* ---- the stored settings ---------------------------------------------- */

void tws_loaded(struct tui *t, const struct ct_arows *r)
{
	struct tui_settings *s = &t->sets;
	struct tui_weights *w = &t->w;
	struct ct_error err;
	if (r->st != CT_OK) {
		tx_copy(s->error, sizeof s->error, r->err);
		return;
	}
	if (r->nrows < 1 || r->ncols < 5) {
		snprintf(s->error, sizeof s->error, "crawltop.settings is empty");
		return;
	}
	int v = atoi(ct_arows_str(r, 0, 0, "0"));
	int pv = r->nrows > 1 ? atoi(ct_arows_str(r, 1, 0, "0")) : 0;
	if (v == s->version && pv == s->prev_version)
		return;
	char *json = strdup(ct_arows_str(r, 0, 1, "{}"));
	char *pjson = pv ? strdup(ct_arows_str(r, 1, 1, "{}")) : NULL;
	struct ct_config *nc = malloc(sizeof *nc);
	struct ct_config *old_draft = malloc(sizeof *old_draft);
	struct ct_config *old_cur = malloc(sizeof *old_cur);
	if (!json || (pv && !pjson) || !nc || !old_draft || !old_cur) {
		snprintf(s->error, sizeof s->error, "settings: out of memory");
		free(json);
		free(pjson);
		free(nc);
		free(old_draft);
		free(old_cur);
		return;
	}
	int first = s->version == 0, changed = v != s->version;
	*old_draft = w->draft;
	*old_cur = s->cur;
	ct_config_init(nc);
	s->error[0] = '\0';
	if (ct_settings_json_read(json, v, nc, &err) != CT_OK ||
	    ct_config_validate(nc, &err) != CT_OK)
		tx_copy(s->error, sizeof s->error, err.msg);
	free(s->json);
	free(s->prev_json);
	s->json = json;
	s->prev_json = pjson;
	s->version = v;
	s->prev_version = pv;
	tx_copy(s->by, sizeof s->by, ct_arows_str(r, 0, 2, ""));
	tx_copy(s->at, sizeof s->at, ct_arows_str(r, 0, 3, ""));
	tx_copy(s->note, sizeof s->note, ct_arows_str(r, 0, 4, ""));
	tx_copy(s->prev_by, sizeof s->prev_by, ct_arows_str(r, 1, 2, ""));
	tx_copy(s->prev_at, sizeof s->prev_at, ct_arows_str(r, 1, 3, ""));
	s->cur = *nc;

	/* the draft: the new version, with the user's edits on top */
	w->draft = *nc;
	struct ct_config_source es = {.origin = CT_FROM_FILE,
		.file = edit_file(&w->draft)};
	int kept = 0;
	for (int i = 0; !first && i < w->n_rows; i++) {
		const struct tui_wrow *row = &w->rows[i];
		if (row->kind == WR_HEAD || !differs(old_draft, old_cur, row))
			continue;
		es.line = (unsigned)i + 1;
		copy_row(&w->draft, old_draft, row, &es);
		kept++;
	}
	build_rows(t);
	if (changed && !first)
		tui_msg(t, 0, "settings v%d (%s, %s) is now current%s", v, s->by,
			s->note, kept ? "; your edits are kept on top of it" : "");
	w->draft_seq++;
	after_change(t);
	free(nc);
	free(old_draft);
	free(old_cur);
}

/* ---- edits --------------------------------------------------------------- */

/* Why edits cannot be made now, or NULL. */
static const char *cannot_edit(const struct tui *t, char *buf, size_t len)
{
	if (!t->sets.version)
		return "the settings are not loaded yet";
	if (t->sets.error[0]) {
		snprintf(buf, len, "settings v%d cannot be read: %.300s",
			 t->sets.version, t->sets.error);
		return buf;
	}
	return NULL;
}

/* Trimmed copy of text. */
static void trim(char *dst, size_t len, const char *text)
{
	while (isspace((unsigned char)*text))
		text++;
	snprintf(dst, len, "%s", text);
	size_t n = strlen(dst);
	while (n && isspace((unsigned char)dst[n - 1]))
		dst[--n] = '\0';
}

/* A number in [min, max]; whole numbers only when whole. */
static int parse_number(const char *path, const char *v, int whole, double min,
			double max, unsigned flags, double *d, char *why,
			size_t len)
{
	char rule[96];
	if (!*v) {
		snprintf(why, len, "%s: a value is needed", path);
		return -1;
	}
	ct_status st = ct_number_read(v, !whole, d);
	if (st == CT_EINVAL) {
		snprintf(why, len, "%s = %s: must be %s", path, v, whole ?
			 "a whole number (no decimal point)" : "a number");
		return -1;
	}
	if (st == CT_ERANGE) {
		snprintf(why, len, "%s = %s: a double cannot hold it (it would "
			 "read as %g)", path, v, *d);
		return -1;
	}
	if (whole)
		*d = (double)strtoll(v, NULL, 10);
	if (!ct_key_range_ok(min, max, flags, *d)) {
		snprintf(why, len, "%s = %s: %s", path, v,
			 ct_key_range_str(min, max, flags, rule, sizeof rule));
		return -1;
	}
	return 0;
}

/* A token list "a, b c": the config file's rules (a-z and 0-9). */
static int parse_tokens(const char *path, const char *v,
			char (*tok)[CT_NAME_LEN], size_t *count, char *why,
			size_t len)
{
	size_t n = 0;
	char buf[1024];
	snprintf(buf, sizeof buf, "%s", v);
	for (char *save = NULL, *p = strtok_r(buf, ", \t", &save); p;
	     p = strtok_r(NULL, ", \t", &save)) {
		if (n == CT_FRONTIER_MAX_TOKENS) {
			snprintf(why, len, "%s: at most %d tokens", path,
				 CT_FRONTIER_MAX_TOKENS);
			return -1;
		}
		if (strlen(p) >= CT_NAME_LEN) {
			snprintf(why, len, "%s: token '%s' is longer than %d "
				 "characters", path, p, CT_NAME_LEN - 1);
			return -1;
		}
		for (const char *c = p; *c; c++)
			if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9'))) {
				snprintf(why, len, "%s: token '%s' must hold only "
					 "a-z and 0-9", path, p);
				return -1;
			}
		memset(tok[n], 0, CT_NAME_LEN);
		memcpy(tok[n], p, strlen(p));
		n++;
	}
	*count = n;
	return 0;
}

/* Store text as row's value in c (source src): single-key rules. */
static int put_value(struct ct_config *c, const struct tui_wrow *row,
		     const char *text, const struct ct_config_source *src,
		     char *why, size_t len)
{
	char path[96], v[1024];
	double d;
	tws_path(row, path, sizeof path);
	trim(v, sizeof v, text);
	if (row->kind == WR_KEY) {
		const struct ct_key *k = &ct_keys[row->key];
		switch (k->type) {
		case CT_KEY_BOOL: {
			int b = !strcmp(v, "true") || !strcmp(v, "yes") ||
				!strcmp(v, "on") || !strcmp(v, "1");
			if (!b && strcmp(v, "false") && strcmp(v, "no") &&
			    strcmp(v, "off") && strcmp(v, "0")) {
				snprintf(why, len, "%s = %s: must be true or false",
					 path, v);
				return -1;
			}
			ct_key_put_bool(k, &c->settings, b);
			break;
		}
		case CT_KEY_TOKENS: {
			size_t *count, n;
			char tmp[CT_FRONTIER_MAX_TOKENS][CT_NAME_LEN];
			if (parse_tokens(path, v, tmp, &n, why, len) != 0)
				return -1;
			char (*tok)[CT_NAME_LEN] = ct_key_tokens(k, &c->settings,
								 &count);
			memcpy(tok, tmp, sizeof tmp);
			*count = n;
			break;
		}
		default:
			if (parse_number(path, v, k->type != CT_KEY_DOUBLE, k->min,
					 k->max, k->flags, &d, why, len) != 0)
				return -1;
			ct_key_put_number(k, &c->settings, d, (long long)d);
			break;
		}
		c->key_src[row->key] = *src;
		return 0;
	}
	struct ct_frontier_params *fp = &c->settings.frontier;
	const struct ct_map *m = map_of(row);
	if (row->kind == WR_ALIAS) {
		if (!*v || strlen(v) >= CT_NAME_LEN) {
			snprintf(why, len, "%s = \"%s\": must name a method, 1 to "
				 "%d characters", path, v, CT_NAME_LEN - 1);
			return -1;
		}
		ct_frontier_set_alias(fp, row->name, v);
		for (size_t i = 0; i < fp->n_aliases; i++)
			if (strcmp(fp->aliases[i].from, row->name) == 0)
				c->alias_src[i] = *src;
		return 0;
	}
	if (parse_number(path, v, 0, m->min, m->max, m->flags, &d, why, len) != 0)
		return -1;
	if (row->kind == WR_TYPE)
		ct_frontier_set_type(fp, row->name, d);
	else
		ct_frontier_set_bonus(fp, row->name, d);
	return 0;
}

/* ct_config_validate on a copy of c whose discovery weights are scaled to
 * sum to 1: every rule but the sum. */
static int check_but_sum(const struct ct_config *c, char *why, size_t len)
{
	struct ct_config *n = malloc(sizeof *n);
	struct ct_error err;
	if (!n) {
		snprintf(why, len, "out of memory");
		return -1;
	}
	*n = *c;
	double sum = 0;
	for (int i = 0; i < CT_SUB_COUNT; i++)
		sum += n->settings.discovery.weights[i];
	if (sum > 0 && isfinite(sum))
		for (int i = 0; i < CT_SUB_COUNT; i++)
			n->settings.discovery.weights[i] /= sum;
	int rc = ct_config_validate(n, &err) == CT_OK ? 0 : -1;
	if (rc)
		snprintf(why, len, "%s", err.msg);
	free(n);
	return rc;
}

int tws_check(const struct tui *t, char *why, size_t len)
{
	struct ct_error err;
	if (ct_config_validate(&t->w.draft, &err) == CT_OK)
		return 0;
	snprintf(why, len, "%s", err.msg);
	return -1;
}

int tws_edit(struct tui *t, int row, const char *text, char *why, size_t len)
{
	struct tui_weights *w = &t->w;
	const char *no = cannot_edit(t, why, len);
	if (no) {
		if (no != why)
			snprintf(why, len, "%s", no);
		return -1;
	}
	if (row < 0 || row >= w->n_rows || w->rows[row].kind == WR_HEAD) {
		snprintf(why, len, "a heading has no value: choose a row below it");
		return -1;
	}
	struct ct_config *tmp = malloc(sizeof *tmp);
	if (!tmp) {
		snprintf(why, len, "out of memory");
		return -1;
	}
	*tmp = w->draft;
	struct ct_config_source src = {.origin = CT_FROM_FILE,
		.file = edit_file(tmp), .line = (unsigned)row + 1};
	int rc = put_value(tmp, &w->rows[row], text, &src, why, len);
	if (rc == 0)
		rc = check_but_sum(tmp, why, len);
	if (rc == 0) {
		w->draft = *tmp;
		w->draft_seq++;
		after_change(t);
	}
	free(tmp);
	return rc;
}

void tws_revert(struct tui *t, int row)
{
	struct tui_weights *w = &t->w;
	if (row < 0 || row >= w->n_rows || w->rows[row].kind == WR_HEAD)
		return;
	const struct tui_wrow *r = &w->rows[row];
	struct ct_config_source src = r->kind == WR_KEY ?
		t->sets.cur.key_src[r->key] : (struct ct_config_source){0};
	if (r->kind == WR_KEY && src.origin == CT_FROM_FILE) {
		/* the same file name at the draft's index */
		const char *f = t->sets.cur.files[src.file];
		for (size_t i = 0; i < w->draft.n_files; i++)
			if (strcmp(w->draft.files[i], f) == 0)
				src.file = (unsigned)i;
	}
	copy_row(&w->draft, &t->sets.cur, r, &src);
	w->draft_seq++;
	after_change(t);
}

void tws_revert_all(struct tui *t)
{
	t->w.draft = t->sets.cur;
	edit_file(&t->w.draft);
	t->w.draft_seq++;
	build_rows(t);
	after_change(t);
}

int tws_default(struct tui *t, int row, char *why, size_t len)
{
	struct ct_config *d = malloc(sizeof *d);
	char v[1024];
	if (!d) {
		snprintf(why, len, "out of memory");
		return -1;
	}
	ct_config_init(d);
	if (row < 0 || row >= t->w.n_rows || t->w.rows[row].kind == WR_HEAD) {
		free(d);
		snprintf(why, len, "a heading has no value: choose a row below it");
		return -1;
	}
	tws_value(d, &t->w.rows[row], v, sizeof v);
	free(d);
	if (!v[0] && t->w.rows[row].kind != WR_KEY) {
		char p[96];
		snprintf(why, len, "%s has no built-in default",
			 tws_path(&t->w.rows[row], p, sizeof p));
		return -1;
	}
	return tws_edit(t, row, v, why, len);
}

int tws_normalise(struct tui *t, char *why, size_t len)
{
	struct tui_weights *w = &t->w;
	const char *no = cannot_edit(t, why, len);
	if (no) {
		if (no != why)
			snprintf(why, len, "%s", no);
		return -1;
	}
	double *wt = w->draft.settings.discovery.weights;
	const double *st = t->sets.cur.settings.discovery.weights;
	double fixed = 0, free_sum = 0, total = 0;
	int frozen[CT_SUB_COUNT], biggest = -1;
	for (int i = 0; i < CT_SUB_COUNT; i++) {
		frozen[i] = wt[i] != st[i];
		total += wt[i];
		if (frozen[i]) {
			fixed += wt[i];
		} else {
			free_sum += wt[i];
			if (biggest < 0 || wt[i] > wt[biggest])
				biggest = i;
		}
	}
	if (fabs(total - 1) <= CT_WEIGHT_SUM_TOLERANCE) {
		snprintf(why, len, "the discovery weights sum to 1 already");
		return -1;
	}
	/* keep the edited weights; scale the others into what is left, or
	 * scale all eight when that cannot work */
	if (free_sum <= 0 || fixed > 1) {
		if (total <= 0) {
			snprintf(why, len, "the discovery weights sum to 0: set "
				 "one above 0 first");
			return -1;
		}
		for (int i = 0; i < CT_SUB_COUNT; i++)
			frozen[i] = 0;
		free_sum = total;
		fixed = 0;
		biggest = 0;
		for (int i = 1; i < CT_SUB_COUNT; i++)
			if (wt[i] > wt[biggest])
				biggest = i;
	}
	double k = (1 - fixed) / free_sum, sum = 0;
	for (int i = 0; i < CT_SUB_COUNT; i++) {
		if (!frozen[i])
			wt[i] = round(wt[i] * k * 1e9) / 1e9;
		sum += wt[i];
	}
	wt[biggest] = round((wt[biggest] + 1 - sum) * 1e12) / 1e12;
	struct ct_config_source src = {.origin = CT_FROM_FILE,
		.file = edit_file(&w->draft)};
	for (int r = 0; r < w->n_rows; r++) {
		const struct tui_wrow *row = &w->rows[r];
		if (row->kind == WR_KEY &&
		    strncmp(ct_keys[row->key].path, "discovery.weights.", 18) == 0 &&
		    differs(&w->draft, &t->sets.cur, row)) {
			src.line = (unsigned)r + 1;
			w->draft.key_src[row->key] = src;
		}
	}
	w->draft_seq++;
	after_change(t);
	return 0;
}

/* ---- the worker's jobs ----------------------------------------------------- */

const struct tm_job *tws_target(const struct tui *t)
{
	const struct tm_job *j = t->focus ? tm_job_by_id(&t->model, t->focus)
					  : NULL;
	return j ? j : tui_selected(t);
}

int tui_work_start(struct tui *t, const struct tw_req *r)
{
	struct ct_error err;
	enum tw_kind running = tw_running(t->work);
	if (!t->work) {
		tui_msg(t, 1, "no worker thread in this mode");
		return -1;
	}
	if (running == TW_NONE) {
		if (tw_start(t->work, r, &err) != 0) {
			tui_msg(t, 1, "%s", err.msg);
			return -1;
		}
		return 0;
	}
	if (running == TW_PREVIEW && r->kind != TW_PREVIEW) {
		/* a change goes first: the preview runs again after it */
		char *json = r->json ? strdup(r->json) : NULL;
		if (r->json && !json) {
			tui_msg(t, 1, "out of memory");
			return -1;
		}
		free(t->queued_json);
		t->queued_json = json;
		t->queued = *r;
		t->queued.json = json;
		t->has_queued = 1;
		tw_cancel(t->work);
		return 0;
	}
	tui_msg(t, 1, "%s is running (x stops it)", running == TW_PREVIEW ?
		"a preview" : "a rescore");
	return -1;
}

void tws_preview(struct tui *t)
{
	struct tui_weights *w = &t->w;
	if (!w->n_edits || w->problem[0] || !t->work)
		return; /* nothing to preview, or no worker (batch mode) */
	const struct tm_job *j = tws_target(t);
	if (!j) {
		w->pstate = WP_FAILED;
		snprintf(w->pmsg, sizeof w->pmsg, "no job to preview on: select "
			 "or focus one in the jobs panel");
		return;
	}
	enum tw_kind running = tw_running(t->work);
	w->pjob = j->id;
	tx_copy(w->pjob_name, sizeof w->pjob_name, j->name);
	w->pseq = w->draft_seq;
	w->pstate = WP_RUNNING;
	if (running != TW_NONE || t->has_queued) {
		/* after the one running (a stale preview is stopped) */
		w->want_preview = 1;
		if (running == TW_PREVIEW)
			tw_cancel(t->work);
		return;
	}
	struct tw_req *r = calloc(1, sizeof *r);
	if (!r) {
		w->pstate = WP_FAILED;
		snprintf(w->pmsg, sizeof w->pmsg, "out of memory");
		return;
	}
	r->kind = TW_PREVIEW;
	r->tag = w->pseq;
	r->job = j->id;
	tx_copy(r->job_name, sizeof r->job_name, j->name);
	r->settings = w->draft.settings;
	w->want_preview = 0;
	if (tui_work_start(t, r) != 0) {
		w->pstate = WP_FAILED;
		snprintf(w->pmsg, sizeof w->pmsg, "%s", t->message);
	}
	free(r);
}

/* The unfinished jobs to rescore after a settings change, the target job
 * first. */
static void rescore_jobs(const struct tui *t, struct tw_req *r)
{
	const struct tm_job *first = tws_target(t);
	r->n_jobs = 0;
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < t->model.n_jobs && r->n_jobs < TW_MAX_JOBS; i++) {
			const struct tm_job *j = &t->model.jobs[i];
			if ((pass == 0) != (j == first) ||
			    !strcmp(j->status, "completed") ||
			    !strcmp(j->status, "cancelled") ||
			    tm_job_unfinished(j) == 0)
				continue;
			r->jobs[r->n_jobs] = j->id;
			tx_copy(r->job_names[r->n_jobs], sizeof r->job_names[0],
				j->name);
			r->n_jobs++;
		}
}

int tws_confirm_text(const struct tui *t, int undo, char *buf, size_t len)
{
	struct tw_req r;
	char why[600];
	const char *no = cannot_edit(t, why, sizeof why);
	/* an unreadable current version is what undo is for: undo needs only
	 * the version before it to read (checked below) */
	if (no && !(undo && t->sets.version && t->sets.prev_json)) {
		snprintf(buf, len, "%s", no);
		return -1;
	}
	rescore_jobs(t, &r);
	long long tasks = 0;
	for (int i = 0; i < r.n_jobs; i++) {
		const struct tm_job *j = tm_job_by_id(&t->model, r.jobs[i]);
		tasks += j ? tm_job_unfinished(j) : 0;
	}
	if (undo) {
		if (!t->sets.prev_version) {
			snprintf(buf, len, "there is no version before v%d to "
				 "restore", t->sets.version);
			return -1;
		}
		struct ct_settings prev;
		struct ct_error err;
		if (ct_settings_from_json(t->sets.prev_json, t->sets.prev_version,
					  &prev, &err) != CT_OK) {
			snprintf(buf, len, "cannot undo: v%d cannot be read "
				 "either: %.300s", t->sets.prev_version, err.msg);
			return -1;
		}
		snprintf(buf, len, "Undo settings v%d (%.40s, %s): write v%d's "
			 "values as a new version and rescore %d job%s (%lld "
			 "tasks)? [y/N]", t->sets.version, t->sets.by, t->sets.at,
			 t->sets.prev_version, r.n_jobs, r.n_jobs == 1 ? "" : "s",
			 tasks);
		return 0;
	}
	if (!t->w.n_edits) {
		snprintf(buf, len, "nothing to apply: edit a value first (Enter)");
		return -1;
	}
	if (t->w.problem[0]) {
		snprintf(buf, len, "cannot apply: %s", t->w.problem);
		return -1;
	}
	snprintf(buf, len, "Apply %d change%s as a new version after v%d and "
		 "rescore %d job%s (%lld tasks)? [y/N]", t->w.n_edits,
		 t->w.n_edits == 1 ? "" : "s", t->sets.version, r.n_jobs,
		 r.n_jobs == 1 ? "" : "s", tasks);
	return 0;
}

int tws_apply(struct tui *t, int undo)
{
	struct ct_error err;
	char why[600];
	if (tws_confirm_text(t, undo, why, sizeof why) != 0) {
		tui_msg(t, 1, "%s", why);
		return TUI_REDRAW;
	}
	struct tw_req *r = calloc(1, sizeof *r);
	if (!r) {
		tui_msg(t, 1, "out of memory");
		return TUI_REDRAW;
	}
	char *json = NULL;
	r->kind = TW_APPLY;
	r->base_version = t->sets.version;
	rescore_jobs(t, r);
	if (undo) {
		if (ct_settings_from_json(t->sets.prev_json, t->sets.prev_version,
					  &r->settings, &err) != CT_OK) {
			tui_msg(t, 1, "cannot undo: %s", err.msg);
			free(r);
			return TUI_REDRAW;
		}
		json = strdup(t->sets.prev_json);
		snprintf(r->action, sizeof r->action, "settings.undo");
		snprintf(r->note, sizeof r->note, "undo v%d: the values of v%d "
			 "(console)", t->sets.version, t->sets.prev_version);
	} else {
		r->settings = t->w.draft.settings;
		json = ct_settings_to_json(&r->settings, t->sets.json, &err);
		if (!json)
			tui_msg(t, 1, "cannot apply: %s", err.msg);
		snprintf(r->action, sizeof r->action, "settings.update");
		snprintf(r->note, sizeof r->note, "%d change%s (console)",
			 t->w.n_edits, t->w.n_edits == 1 ? "" : "s");
	}
	if (json) {
		r->json = json;
		if (tui_work_start(t, r) == 0)
			tui_msg(t, 0, "%s: writing a new version after v%d, then "
				"rescoring %d job%s (x stops the rescore)",
				undo ? "undo" : "apply", t->sets.version,
				r->n_jobs, r->n_jobs == 1 ? "" : "s");
	}
	free(json);
	free(r);
	return TUI_REDRAW;
}

int tui_set_mode(struct tui *t, int64_t job, const char *mode)
{
	const struct tm_job *j = tm_job_by_id(&t->model, job);
	char why[600];
	const char *no = cannot_edit(t, why, sizeof why);
	if (!j) {
		tui_msg(t, 1, "the job is gone");
		return TUI_REDRAW;
	}
	if (no) {
		tui_msg(t, 1, "cannot rescore job %s: %s", j->name, no);
		return TUI_REDRAW;
	}
	struct tw_req *r = calloc(1, sizeof *r);
	if (!r) {
		tui_msg(t, 1, "out of memory");
		return TUI_REDRAW;
	}
	r->kind = TW_MODE;
	r->job = job;
	tx_copy(r->job_name, sizeof r->job_name, j->name);
	snprintf(r->mode, sizeof r->mode, "%s", mode);
	r->settings = t->sets.cur.settings;
	r->base_version = t->sets.version;
	if (tui_work_start(t, r) == 0)
		tui_msg(t, 0, "job %s: mode %s -> %s, rescoring %lld unfinished "
			"tasks with settings v%d (x stops)", j->name, j->mode,
			mode, tm_job_unfinished(j), t->sets.version);
	free(r);
	return TUI_REDRAW;
}

int tui_work_cancel(struct tui *t)
{
	enum tw_kind k = tw_running(t->work);
	if (k == TW_NONE) {
		tui_msg(t, 0, "nothing is running");
		return TUI_REDRAW;
	}
	tw_cancel(t->work);
	t->wprog.cancelling = true; /* shown at once */
	t->has_queued = 0;
	t->w.want_preview = 0;
	if (k == TW_PREVIEW) {
		t->w.pstate = WP_NONE;
		tui_msg(t, 0, "preview stopped (v: run it again)");
	} else {
		tui_msg(t, 0, "stopping the rescore (the batch running is "
			"rolled back; batches done stay)");
	}
	return TUI_REDRAW;
}

/* A preview ended: keep it when it is of the current draft. */
static void preview_done(struct tui *t, const struct tw_result *res)
{
	struct tui_weights *w = &t->w;
	if (res->tag != w->pseq || res->job != w->pjob || res->cancelled ||
	    w->pseq != w->draft_seq || w->pstate != WP_RUNNING)
		return; /* stale or stopped: a newer one follows, or none */
	if (res->st != CT_OK) {
		w->pstate = WP_FAILED;
		tx_copy(w->pmsg, sizeof w->pmsg, res->msg);
		return;
	}
	w->preview = res->preview;
	w->pstate = WP_DONE;
	snprintf(w->pmsg, sizeof w->pmsg, "%.1f s", res->secs);
}

int tui_work_poll(struct tui *t)
{
	struct tw_result *res = malloc(sizeof *res);
	if (!res)
		return 0;
	int flags = TUI_REDRAW;
	if (!tw_poll(t->work, &t->wprog, res)) {
		free(res);
		return flags;
	}
	if (res->kind == TW_PREVIEW) {
		preview_done(t, res);
	} else {
		char d[16];
		tui_msg(t, res->st != CT_OK, "%s (%s)", res->msg,
			tx_dur(d, sizeof d, res->secs));
		flags |= TUI_REFRESH;
		if (res->kind == TW_APPLY)
			tf_load_settings(t);
		if (t->w.n_edits && !t->w.problem[0])
			t->w.want_preview = 1; /* the tasks moved under it */
	}
	free(res);
	if (t->has_queued) {
		struct ct_error err;
		t->has_queued = 0;
		if (tw_start(t->work, &t->queued, &err) != 0)
			tui_msg(t, 1, "%s", err.msg);
		free(t->queued_json);
		t->queued_json = NULL;
		if (t->w.n_edits && !t->w.problem[0])
			t->w.want_preview = 1;
	} else if (t->w.want_preview) {
		t->w.want_preview = 0;
		tws_preview(t);
	}
	return flags;
}
