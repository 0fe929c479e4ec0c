/* frontier_queue.c: seed 002's QueueManager (two min-heaps, dedup set,
 * burst alternation, host deferral), with SPEC.md's rules.
 *
 * Heaps: the textbook binary min-heap (Williams 1964) over small entries
 * (the store's claim key: score, discovered_ms, seq as the id; and the
 * node), compared with ct_task_key_cmp itself, so that each heap pops in
 * exactly the store's claim order for its items (the turns between the
 * heaps, ct_fq_pull, are the queue's own: across heaps the orders differ;
 * frontier_queue.h). The score, not the raw priority, is the
 * key: in floating point the priority -> score mapping can give two
 * distinct priorities one score, and then the store breaks the tie by
 * discovery time. The sequence number makes equal keys pop first-in
 * first-out, which the seed got from its discoveredAt x 1e-9 term. Deferred items are parked in the array slots just past the
 * heap while a pull scans, so putting them back needs no allocation.
 *
 * Dedup: an open-addressing hash set with linear probing and backward-shift
 * deletion (Knuth, TAOCP vol. 3, 6.4 Algorithm R), keyed by the normalised
 * URL stored in the item itself; the load factor stays at or below 1/2.
 *
 * Every item is one malloc block: the node followed by its strings. All
 * growth happens before the queue is changed, so CT_ENOMEM leaves it as it
 * was. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "crawltop/frontier_queue.h"
#include "crawltop/importance.h"
#include "utf8.h"

#define R_INVALID_URL "invalid-url"
#define R_QUEUE_FULL "queue-full"
#define R_MAX_DEPTH "max-depth"
#define R_INELIGIBLE "ineligible"
#define R_DUPLICATE "duplicate"
#define R_DEPRIORITISED "deprioritised"
#define R_INVALID_INPUT "invalid-input"
#define R_NON_FINITE "non-finite-priority"

struct fq_node {
	char *key;          /* normalised URL, in strs */
	char *host;         /* lower-case host, in strs */
	char *type;         /* NULL or in strs */
	char *method;       /* NULL or in strs */
	uint64_t hash;      /* of key */
	uint64_t seq;
	int64_t discovered_ms;
	int64_t deferred_until_ms;
	double priority, score;
	double inlinks, cash; /* importance mode: links in, OPIC cash */
	size_t pos;         /* importance mode: its index in its heap */
	const char *source; /* static */
	int depth;
	ct_class cls;
	ct_queue_type queue;
	ct_tp_class tp;
	char strs[];        /* url \0 key \0 host \0 [type \0] [method \0] */
};

struct fq_entry {
	struct ct_task_key key; /* job_priority 0 (one job), score, time, seq */
	struct fq_node *node;
};

struct fq_heap {
	struct fq_entry *a;
	size_t n, cap;
};

struct fq_slot {
	uint64_t hash;
	struct fq_node *node; /* NULL = empty */
};

struct fq_set {
	struct fq_slot *slots;
	size_t cap, count; /* cap is 0 or a power of two */
};

struct ct_fq {
	struct ct_frontier_params p;
	struct ct_class_bounds bounds;
	struct ct_fq_callbacks cb;
	struct fq_heap heap[2]; /* indexed by ct_queue_type */
	struct fq_set set;
	uint64_t next_seq;
	size_t enqueued_total;
	size_t discovered;      /* importance mode: the pages discovered, as
				 * the store counts them (the items accepted
				 * before a batch and the batch's new ones) */
	ct_fq_mode mode;        /* how new items are scored */
	ct_queue_type turn;     /* heap that has the turn */
	int turn_pulls;         /* pulls in this turn while the other waited */
	bool in_callback;       /* one of cb's functions runs: no changes */
};

/* ---- URL normalisation ---------------------------------------------- */

struct url_parts {
	size_t scheme_len;               /* url[0..scheme_len) */
	size_t user_start, user_len;     /* userinfo including '@', or 0 */
	size_t host_start, host_len;
	long port;                       /* -1 when none or empty */
	size_t rest_start, rest_len;     /* path and query, no fragment */
};

/* ASCII letter. */
static bool is_alpha(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* ASCII digit. */
static bool is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

/* ASCII lower-casing (locale-independent). */
static char lower(char c)
{
	return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

/* True when a registered host name holds no character that RFC 3986
 * forbids there: brackets, spaces, controls and <>"{}|\^`. Bytes >= 0x80
 * must be well-formed UTF-8 (an international name): the host is handed
 * to the callbacks as text. */
static bool host_chars_ok(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c <= 0x20 || c == 0x7f || strchr("[]<>\"{}|\\^`", c))
			return false;
		if (c >= 0x80) {
			size_t n = ct_utf8_seq((const unsigned char *)s + i);
			if (n == 0 || i + n > len)
				return false;
			i += n - 1;
		}
	}
	return true;
}

/* Splits url into its parts; false when it has no scheme://host, or a
 * port that is not a number up to 65535. */
static bool url_parse(const char *url, struct url_parts *u)
{
	size_t i = 0, auth, auth_end, h, at;

	if (!url || !is_alpha((unsigned char)url[0]))
		return false;
	while (is_alpha((unsigned char)url[i]) || is_digit((unsigned char)url[i]) ||
	       url[i] == '+' || url[i] == '-' || url[i] == '.')
		i++;
	if (strncmp(url + i, "://", 3) != 0)
		return false;
	u->scheme_len = i;
	auth = i + 3;
	auth_end = auth + strcspn(url + auth, "/?#");
	/* userinfo ends at the last '@' of the authority */
	at = auth;
	for (size_t k = auth; k < auth_end; k++)
		if (url[k] == '@')
			at = k + 1;
	u->user_start = auth;
	u->user_len = at - auth;
	h = at;
	u->host_start = h;
	if (url[h] == '[') {
		const char *close = memchr(url + h, ']', auth_end - h);
		if (!close)
			return false;
		u->host_len = (size_t)(close - (url + h)) + 1;
	} else {
		const char *colon = memchr(url + h, ':', auth_end - h);
		u->host_len = colon ? (size_t)(colon - (url + h)) : auth_end - h;
	}
	if (u->host_len == 0)
		return false;
	if (url[h] != '[' && !host_chars_ok(url + h, u->host_len))
		return false;
	u->port = -1;
	i = h + u->host_len;
	if (i < auth_end) {
		if (url[i] != ':')
			return false;
		i++;
		if (i < auth_end) {
			long port = 0;
			for (; i < auth_end; i++) {
				if (!is_digit((unsigned char)url[i]))
					return false;
				port = port * 10 + (url[i] - '0');
				if (port > 65535)
					return false;
			}
			u->port = port;
		}
	}
	u->rest_start = auth_end;
	u->rest_len = strcspn(url + auth_end, "#");
	return true;
}

/* The default port of a lower-case scheme, or -1. */
static long default_port(const char *url, size_t scheme_len)
{
	static const struct {
		const char *scheme;
		long port;
	} tab[] = { { "http", 80 }, { "https", 443 }, { "ws", 80 },
		    { "wss", 443 }, { "ftp", 21 } };
	char s[8];

	if (scheme_len >= sizeof(s))
		return -1;
	for (size_t i = 0; i < scheme_len; i++)
		s[i] = lower(url[i]);
	s[scheme_len] = '\0';
	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (strcmp(tab[i].scheme, s) == 0)
			return tab[i].port;
	return -1;
}

/* A bounded writer: counts every byte, stores those that fit. */
struct sink {
	char *buf;
	size_t cap, len;
};

/* Appends one byte (counted even when it does not fit). */
static void put(struct sink *s, char c)
{
	if (s->len + 1 < s->cap)
		s->buf[s->len] = c;
	s->len++;
}

/* Writes the normalised form of a parsed url into s (not terminated). */
static void url_write_key(const char *url, const struct url_parts *u,
			  struct sink *s)
{
	long dp = default_port(url, u->scheme_len);

	for (size_t i = 0; i < u->scheme_len; i++)
		put(s, lower(url[i]));
	put(s, ':');
	put(s, '/');
	put(s, '/');
	for (size_t i = 0; i < u->user_len; i++)
		put(s, url[u->user_start + i]);
	for (size_t i = 0; i < u->host_len; i++)
		put(s, lower(url[u->host_start + i]));
	if (u->port >= 0 && u->port != dp) {
		char d[8];
		int n = 0;
		long v = u->port;
		do {
			d[n++] = (char)('0' + v % 10);
			v /= 10;
		} while (v > 0);
		put(s, ':');
		while (n > 0)
			put(s, d[--n]);
	}
	if (u->rest_len == 0 || url[u->rest_start] == '?')
		put(s, '/');
	for (size_t i = 0; i < u->rest_len; i++)
		put(s, url[u->rest_start + i]);
}

/* Public form of the dedup key (see frontier_queue.h). */
long ct_fq_normalise_url(const char *url, char *buf, size_t n)
{
	struct url_parts u;
	struct sink s = { buf, buf ? n : 0, 0 };

	if (!url || !url_parse(url, &u))
		return -1;
	url_write_key(url, &u, &s);
	if (s.cap > 0)
		s.buf[s.len < s.cap ? s.len : s.cap - 1] = '\0';
	return (long)s.len;
}

/* ---- hash set of queued keys ---------------------------------------- */

/* FNV-1a, 64 bits. */
static uint64_t hash_key(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ULL;
	}
	return h;
}

/* The slot holding key, or SIZE_MAX when it is not in the set. */
static size_t set_find(const struct fq_set *set, uint64_t h, const char *key)
{
	if (set->cap == 0)
		return SIZE_MAX;
	size_t mask = set->cap - 1;
	for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
		const struct fq_slot *sl = &set->slots[i];
		if (!sl->node)
			return SIZE_MAX;
		if (sl->hash == h && strcmp(sl->node->key, key) == 0)
			return i;
	}
}

/* Inserts a node known to be absent; capacity must be reserved. */
static void set_insert(struct fq_set *set, struct fq_node *node)
{
	size_t mask = set->cap - 1;
	size_t i = (size_t)node->hash & mask;

	while (set->slots[i].node)
		i = (i + 1) & mask;
	set->slots[i].hash = node->hash;
	set->slots[i].node = node;
	set->count++;
}

/* Makes room for one more key at load <= 1/2. On CT_ENOMEM the set is as
 * it was. */
static ct_status set_reserve(struct fq_set *set)
{
	size_t cap = set->cap ? set->cap : 16;
	struct fq_set grown;

	while ((set->count + 1) * 2 > cap) {
		if (cap > SIZE_MAX / 2 / sizeof(struct fq_slot))
			return CT_ENOMEM;
		cap *= 2;
	}
	if (cap == set->cap)
		return CT_OK;
	grown.slots = calloc(cap, sizeof(*grown.slots));
	if (!grown.slots)
		return CT_ENOMEM;
	grown.cap = cap;
	grown.count = 0;
	for (size_t i = 0; i < set->cap; i++)
		if (set->slots[i].node)
			set_insert(&grown, set->slots[i].node);
	free(set->slots);
	*set = grown;
	return CT_OK;
}

/* Removes the slot i, shifting back the entries that probed past it. */
static void set_remove_at(struct fq_set *set, size_t i)
{
	size_t mask = set->cap - 1;
	size_t j = i;

	for (;;) {
		j = (j + 1) & mask;
		if (!set->slots[j].node)
			break;
		size_t home = (size_t)set->slots[j].hash & mask;
		/* entry j may stay when its home lies cyclically in (i, j] */
		bool stays = i <= j ? (i < home && home <= j)
				    : (i < home || home <= j);
		if (stays)
			continue;
		set->slots[i] = set->slots[j];
		i = j;
	}
	set->slots[i].node = NULL;
	set->slots[i].hash = 0;
	set->count--;
}

/* ---- heaps ----------------------------------------------------------- */

/* True when a pops before b: the store's claim order (score higher first,
 * then discovery time, then sequence). */
static inline bool entry_before(const struct fq_entry *a,
				const struct fq_entry *b)
{
	return ct_task_key_cmp(&a->key, &b->key) < 0;
}

/* Moves a[i] up until its parent pops before it. track: keep each moved
 * node's pos (importance mode, where a queued item's score rises in
 * place); frontier mode skips the stores. */
static void sift_up(struct fq_heap *h, size_t i, bool track)
{
	struct fq_entry e = h->a[i];

	while (i > 0) {
		size_t parent = (i - 1) / 2;
		if (!entry_before(&e, &h->a[parent]))
			break;
		h->a[i] = h->a[parent];
		if (track)
			h->a[i].node->pos = i;
		i = parent;
	}
	h->a[i] = e;
	if (track)
		e.node->pos = i;
}

/* Moves a[i] down until both children pop after it. */
static void sift_down(struct fq_heap *h, size_t i, bool track)
{
	struct fq_entry e = h->a[i];

	for (;;) {
		size_t l = 2 * i + 1, best;
		if (l >= h->n)
			break;
		best = l;
		if (l + 1 < h->n && entry_before(&h->a[l + 1], &h->a[l]))
			best = l + 1;
		if (!entry_before(&h->a[best], &e))
			break;
		h->a[i] = h->a[best];
		if (track)
			h->a[i].node->pos = i;
		i = best;
	}
	h->a[i] = e;
	if (track)
		e.node->pos = i;
}

/* Removes the root and returns it; the freed slot a[n] (n after the
 * removal) is free for the caller to use. */
static struct fq_entry heap_pop(struct fq_heap *h, bool track)
{
	struct fq_entry top = h->a[0];

	h->n--;
	if (h->n > 0) {
		h->a[0] = h->a[h->n];
		sift_down(h, 0, track);
	}
	return top;
}

/* Makes room for one more entry. On CT_ENOMEM the heap is as it was. */
static ct_status heap_reserve(struct fq_heap *h)
{
	struct fq_entry *a;
	size_t cap;

	if (h->n < h->cap)
		return CT_OK;
	cap = h->cap ? h->cap * 2 : 16;
	if (cap > SIZE_MAX / sizeof(*a))
		return CT_ENOMEM;
	a = realloc(h->a, cap * sizeof(*a));
	if (!a)
		return CT_ENOMEM;
	h->a = a;
	h->cap = cap;
	return CT_OK;
}

/* ---- the queue ------------------------------------------------------- */

/* Creates an empty queue with copies of p, bounds and cb. */
ct_status ct_fq_create(const struct ct_frontier_params *p,
		       const struct ct_class_bounds *bounds,
		       const struct ct_fq_callbacks *cb, struct ct_fq **out,
		       struct ct_error *err)
{
	struct ct_fq *q;
	ct_status st;

	if (!out)
		return ct_error_set(err, CT_EINVAL, "ct_fq_create: out must not be NULL");
	*out = NULL;
	if ((st = ct_frontier_params_check(p, err)) != CT_OK)
		return st;
	if (bounds && (st = ct_class_bounds_check(bounds, err)) != CT_OK)
		return st;
	q = calloc(1, sizeof(*q));
	if (!q)
		return ct_error_set(err, CT_ENOMEM, "out of memory creating the frontier queue");
	q->p = *p;
	q->bounds = bounds ? *bounds : CT_CLASS_BOUNDS_DEFAULT;
	if (cb)
		q->cb = *cb;
	q->turn = CT_QUEUE_DISCOVERY;
	*out = q;
	return CT_OK;
}

/* Frees every queued item, the heaps, the set and the queue. */
void ct_fq_destroy(struct ct_fq *q)
{
	if (!q)
		return;
	for (int t = 0; t < 2; t++) {
		for (size_t i = 0; i < q->heap[t].n; i++)
			free(q->heap[t].a[i].node);
		free(q->heap[t].a);
	}
	free(q->set.slots);
	free(q);
}

/* What a change made from one of the queue's own callbacks gets. */
#define IN_CALLBACK "%s: called from one of the queue's callbacks, which must not change it"

/* Replaces the parameters after checking them. */
ct_status ct_fq_set_params(struct ct_fq *q, const struct ct_frontier_params *p,
			   struct ct_error *err)
{
	ct_status st;

	if (!q)
		return ct_error_set(err, CT_EINVAL, "ct_fq_set_params: queue is NULL");
	if (q->in_callback)
		return ct_error_set(err, CT_EINVAL, IN_CALLBACK, "ct_fq_set_params");
	if ((st = ct_frontier_params_check(p, err)) != CT_OK)
		return st;
	q->p = *p;
	return CT_OK;
}

/* The queue's own parameters. */
const struct ct_frontier_params *ct_fq_params(const struct ct_fq *q)
{
	return q ? &q->p : NULL;
}

/* Items in both heaps. */
size_t ct_fq_size(const struct ct_fq *q)
{
	return q ? q->heap[0].n + q->heap[1].n : 0;
}

/* Items in one heap. */
size_t ct_fq_size_of(const struct ct_fq *q, ct_queue_type t)
{
	if (!q || (unsigned)t > CT_QUEUE_ACQUISITION)
		return 0;
	return q->heap[t].n;
}

/* True when url's dedup key is held by a queued item. */
/* The dedup key of url into small (n bytes) or, when longer, a new
 * block: *key points at it (free it when it is not small). false for an
 * invalid URL or when allocation fails. */
static bool key_of(const char *url, char *small, size_t n, char **key)
{
	long len = ct_fq_normalise_url(url, small, n);
	*key = small;
	if (len < 0)
		return false;
	if ((size_t)len >= n) {
		*key = malloc((size_t)len + 1);
		if (!*key)
			return false;
		ct_fq_normalise_url(url, *key, (size_t)len + 1);
	}
	return true;
}

/* The queued node of url, or NULL. */
static struct fq_node *queued_node(const struct ct_fq *q, const char *url)
{
	char small[1024];
	char *key;
	struct fq_node *n = NULL;

	if (!key_of(url, small, sizeof(small), &key))
		return NULL;
	size_t at = set_find(&q->set, hash_key(key), key);
	if (at != SIZE_MAX)
		n = q->set.slots[at].node;
	if (key != small)
		free(key);
	return n;
}

bool ct_fq_contains(const struct ct_fq *q, const char *url)
{
	return q && url && queued_node(q, url) != NULL;
}

/* Copies a string into the node's string area and returns it. */
static char *stash(char **cursor, const char *s, size_t len)
{
	char *dst = *cursor;

	memcpy(dst, s, len);
	dst[len] = '\0';
	*cursor = dst + len + 1;
	return dst;
}

/* Allocates a node holding the url, its key and host, type and method
 * (NULL or "" are kept as NULL). NULL when allocation fails. */
static struct fq_node *node_new(const char *url, const struct url_parts *u,
				const char *type, const char *method)
{
	size_t ul = strlen(url);
	size_t tl = (type && type[0]) ? strlen(type) : 0;
	size_t ml = (method && method[0]) ? strlen(method) : 0;
	/* the key is at most the url plus a "/" for an empty path */
	size_t need = sizeof(struct fq_node) + (ul + 1) + (ul + 2) +
		      (u->host_len + 1) + (tl + 1) + (ml + 1);
	struct fq_node *n;
	char *cur;
	struct sink s;

	if (ul > SIZE_MAX / 4 || tl > SIZE_MAX / 4 || ml > SIZE_MAX / 4)
		return NULL;
	n = malloc(need);
	if (!n)
		return NULL;
	cur = n->strs;
	stash(&cur, url, ul);
	n->key = cur;
	s.buf = cur;
	s.cap = ul + 2;
	s.len = 0;
	url_write_key(url, u, &s);
	cur[s.len] = '\0';
	cur += s.len + 1;
	n->host = cur;
	for (size_t i = 0; i < u->host_len; i++)
		cur[i] = lower(url[u->host_start + i]);
	cur[u->host_len] = '\0';
	cur += u->host_len + 1;
	n->type = tl ? stash(&cur, type, tl) : NULL;
	n->method = ml ? stash(&cur, method, ml) : NULL;
	n->hash = hash_key(n->key);
	n->deferred_until_ms = 0;
	return n;
}

/* Tells the event callback, if any (the queue cannot be changed from
 * it). */
static void emit(struct ct_fq *q, const struct ct_fq_event *ev)
{
	if (!q->cb.event)
		return;
	q->in_callback = true;
	q->cb.event(q->cb.ctx, ev);
	q->in_callback = false;
}

/* An enqueue's decision: res (which may be NULL) and the event; r is the
 * score when one was computed. */
static void decide(struct ct_fq *q, const char *url,
		   struct ct_fq_enqueue_result *res, bool enqueued,
		   const char *reason, const struct ct_frontier_result *r)
{
	if (res) {
		res->enqueued = enqueued;
		res->reason = reason;
	}
	struct ct_fq_event ev = {
		.kind = enqueued ? CT_FQ_EV_ENQUEUED : CT_FQ_EV_DROPPED,
		.url = url, .reason = reason,
		.priority = r ? r->priority : 0, .score = r ? r->score : 0,
	};
	emit(q, &ev);
}

/* The importance score of a node with its links and cash, the queue
 * having discovered `discovered` items; seed: the homepage or the method
 * "seed". Inputs were checked by the caller. */
static double importance_of(const struct fq_node *n, double discovered,
			    bool seed)
{
	struct ct_importance_input in = {n->inlinks, n->cash, discovered, seed};
	struct ct_importance_result r;
	return ct_importance_score(&in, &r, NULL) == CT_OK ? r.score : 0;
}

/* Importance mode: queued node n gains links and cash; its score rises
 * (never falls) and it moves up its heap. */
static void raise_node(struct ct_fq *q, struct fq_node *n, double links,
		       double cash)
{
	n->inlinks += links;
	n->cash += cash;
	double v = importance_of(n, (double)q->discovered, false);
	if (!(v > n->score))
		return;
	struct fq_heap *h = &q->heap[n->queue];
	n->score = v;
	n->cls = ct_class_of(v, &q->bounds);
	h->a[n->pos].key.score = v;
	sift_up(h, n->pos, true);
}

/* Enqueue: the seed's checks in the seed's order, then scoring, then
 * reservation of all memory, then the change; links and cash are an
 * importance queue's (0 otherwise). */
static ct_status enqueue(struct ct_fq *q, const struct ct_frontier_input *in,
			 int64_t discovered_ms, double links, double cash,
			 struct ct_fq_enqueue_result *res, struct ct_error *err)
{
	struct ct_frontier_result local;
	struct ct_frontier_result *r = res ? &res->score : &local;
	struct url_parts u;
	struct fq_node *node;
	struct fq_heap *h;
	const char *why = NULL;
	ct_status st;

	bool imp = q->mode == CT_FQ_IMPORTANCE;

	/* 1. URL */
	if (!in->url || !in->url[0] || !url_parse(in->url, &u)) {
		decide(q, in->url ? in->url : "", res, false, R_INVALID_URL,
		       NULL);
		return CT_OK;
	}
	/* importance: a link to a URL queued already raises it, whatever the
	 * checks below would say of a new item (the store counts every
	 * link too) */
	if (imp && (links > 0 || cash > 0)) {
		struct fq_node *old = queued_node(q, in->url);
		if (old) {
			raise_node(q, old, links, cash);
			if (res)
				res->raised = true;
			decide(q, in->url, res, false, R_DUPLICATE, NULL);
			return CT_OK;
		}
	}
	/* 2. size, both heaps together */
	if (ct_fq_size(q) >= q->p.max_queue) {
		decide(q, in->url, res, false, R_QUEUE_FULL, NULL);
		return CT_OK;
	}
	/* 3. depth, unless the bypass says otherwise */
	bool ok = true;
	if (in->depth > q->p.max_depth) {
		q->in_callback = true;
		ok = q->cb.bypass_depth &&
		     q->cb.bypass_depth(q->cb.ctx, in->url, in->depth, in->type);
		q->in_callback = false;
	}
	if (!ok) {
		decide(q, in->url, res, false, R_MAX_DEPTH, NULL);
		return CT_OK;
	}
	/* 4. eligibility */
	if (q->cb.eligible) {
		q->in_callback = true;
		ok = q->cb.eligible(q->cb.ctx, in->url, &why);
		q->in_callback = false;
	}
	if (!ok) {
		decide(q, in->url, res, false, why ? why : R_INELIGIBLE, NULL);
		return CT_OK;
	}
	/* 5. duplicate (the node carries the key) */
	node = node_new(in->url, &u, in->type, in->discovery_method);
	if (!node)
		return ct_error_set(err, CT_ENOMEM, "out of memory enqueueing %s", in->url);
	if (set_find(&q->set, node->hash, node->key) != SIZE_MAX) {
		free(node);
		decide(q, in->url, res, false, R_DUPLICATE, NULL);
		return CT_OK;
	}
	/* 6. priority: bad input and non-finite results are refused */
	st = ct_frontier_score(&q->p, &q->bounds, in, r, err);
	if (st != CT_OK) {
		free(node);
		decide(q, in->url, res, false,
		       isfinite(r->priority) ? R_INVALID_INPUT : R_NON_FINITE,
		       NULL);
		return st;
	}
	if (res)
		res->scored = true;
	if (r->dropped) {
		free(node);
		decide(q, in->url, res, false, R_DEPRIORITISED, r);
		return CT_OK;
	}
	/* 7. memory first, then the change */
	h = &q->heap[r->queue];
	if (heap_reserve(h) != CT_OK || set_reserve(&q->set) != CT_OK) {
		free(node);
		if (res)
			res->scored = false;
		return ct_error_set(err, CT_ENOMEM, "out of memory enqueueing %s", in->url);
	}
	node->seq = q->next_seq++;
	node->discovered_ms = discovered_ms;
	node->priority = r->priority;
	node->inlinks = links;
	node->cash = cash;
	if (imp) {
		/* the homepage and a seed come first, as in the store */
		bool seed = (u.rest_len == 0 || (u.rest_len == 1 &&
			     in->url[u.rest_start] == '/')) ||
			    (in->discovery_method &&
			     strcmp(in->discovery_method, "seed") == 0);
		r->score = importance_of(node, (double)q->discovered, seed);
		r->cls = ct_class_of(r->score, &q->bounds);
	}
	node->score = r->score;
	node->cls = r->cls;
	node->source = r->priority_source;
	node->depth = in->depth;
	node->queue = r->queue;
	node->tp = r->tp;
	h->a[h->n] = (struct fq_entry){
		{ 0, node->score, discovered_ms, (int64_t)node->seq }, node };
	h->n++;
	sift_up(h, h->n - 1, imp);
	set_insert(&q->set, node);
	q->enqueued_total++;
	decide(q, in->url, res, true, NULL, r);
	return CT_OK;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Importance mode: the pages discovered once the n URLs of a batch are
 * in, as the store counts a call: the items accepted so far and the
 * batch's valid URLs not queued now, each once (by the hash of its key;
 * every one, should the hashes not fit in memory). A URL the checks
 * refuse still counts: the crawler found it. */
static void count_discovered(struct ct_fq *q,
			     const struct ct_frontier_input *in, size_t n)
{
	uint64_t few[64];
	uint64_t *h = n <= 64 ? few : malloc(n * sizeof(*h));
	size_t m = 0, fresh = 0;
	for (size_t i = 0; i < n; i++) {
		char small[1024];
		char *key;
		if (!in[i].url || !key_of(in[i].url, small, sizeof(small), &key))
			continue;
		uint64_t k = hash_key(key);
		if (set_find(&q->set, k, key) == SIZE_MAX) {
			if (h)
				h[m++] = k;
			else
				fresh++;
		}
		if (key != small)
			free(key);
	}
	if (h) {
		qsort(h, m, sizeof(*h), u64_cmp);
		for (size_t i = 0; i < m; i++)
			fresh += i == 0 || h[i] != h[i - 1];
		if (h != few)
			free(h);
	}
	q->discovered = q->enqueued_total + fresh;
}

ct_status ct_fq_enqueue(struct ct_fq *q, const struct ct_frontier_input *in,
			int64_t discovered_ms, struct ct_fq_enqueue_result *res,
			struct ct_error *err)
{
	if (res)
		*res = (struct ct_fq_enqueue_result){0};
	if (!q || !in)
		return ct_error_set(err, CT_EINVAL, "ct_fq_enqueue: queue and input must not be NULL");
	if (q->in_callback)
		return ct_error_set(err, CT_EINVAL, IN_CALLBACK, "ct_fq_enqueue");
	if (q->mode == CT_FQ_IMPORTANCE)
		count_discovered(q, in, 1);
	return enqueue(q, in, discovered_ms, 0, 0, res, err);
}

ct_status ct_fq_enqueue_links(struct ct_fq *q,
			      const struct ct_frontier_input *in, size_t n,
			      int64_t discovered_ms, double links, double cash,
			      struct ct_fq_enqueue_result *res,
			      struct ct_error *err)
{
	if (res)
		for (size_t i = 0; i < n; i++)
			res[i] = (struct ct_fq_enqueue_result){0};
	if (!q || (!in && n > 0))
		return ct_error_set(err, CT_EINVAL, "ct_fq_enqueue_links: queue and input must not be NULL");
	if (q->in_callback)
		return ct_error_set(err, CT_EINVAL, IN_CALLBACK, "ct_fq_enqueue_links");
	if (q->mode != CT_FQ_IMPORTANCE)
		return ct_error_set(err, CT_EINVAL, "ct_fq_enqueue_links: the "
				    "queue is in frontier mode (ct_fq_set_mode)");
	if (!(isfinite(links) && links >= 0 && isfinite(cash) &&
	      (cash >= 0 || cash == CT_FQ_CASH_MEAN)))
		return ct_error_set(err, CT_ERANGE, "ct_fq_enqueue_links: links "
				    "%g and cash %g must be finite numbers >= 0",
				    links, cash);
	if (n == 0)
		return CT_OK;
	count_discovered(q, in, n);
	double share = cash == CT_FQ_CASH_MEAN ?
		1.0 / (double)(q->discovered ? q->discovered : 1) :
		ct_importance_share(cash, n);
	ct_status first = CT_OK;
	for (size_t i = 0; i < n; i++) {
		struct ct_error e;
		ct_status st = enqueue(q, &in[i], discovered_ms, links, share,
				       res ? &res[i] : NULL, &e);
		if (st != CT_OK && first == CT_OK) {
			first = st;
			if (err)
				*err = e;
		}
		if (st == CT_ENOMEM)
			break;
	}
	return first;
}

ct_status ct_fq_set_mode(struct ct_fq *q, ct_fq_mode mode, struct ct_error *err)
{
	if (!q)
		return ct_error_set(err, CT_EINVAL, "ct_fq_set_mode: queue is NULL");
	if (q->in_callback)
		return ct_error_set(err, CT_EINVAL, IN_CALLBACK, "ct_fq_set_mode");
	if (mode != CT_FQ_FRONTIER && mode != CT_FQ_IMPORTANCE)
		return ct_error_set(err, CT_EINVAL, "ct_fq_set_mode: mode %d is "
				    "unknown", (int)mode);
	if (mode != q->mode && ct_fq_size(q) > 0)
		return ct_error_set(err, CT_EINVAL, "ct_fq_set_mode: the queue "
				    "holds %zu items scored in the other mode: "
				    "change the mode while it is empty",
				    ct_fq_size(q));
	q->mode = mode;
	return CT_OK;
}

ct_fq_mode ct_fq_get_mode(const struct ct_fq *q)
{
	return q ? q->mode : CT_FQ_FRONTIER;
}

/* Frees a pulled item's block. */
void ct_fq_item_release(struct ct_fq_item *item)
{
	if (!item)
		return;
	free(item->block_);
	item->block_ = NULL;
	item->url = NULL;
	item->key = NULL;
	item->host = NULL;
	item->type = NULL;
	item->discovery_method = NULL;
}

/* Hands a node to the caller as an item (the caller owns the block). */
static void item_from_node(struct ct_fq_item *it, struct fq_node *n)
{
	it->url = n->strs;
	it->key = n->key;
	it->host = n->host;
	it->type = n->type;
	it->discovery_method = n->method;
	it->depth = n->depth;
	it->priority = n->priority;
	it->score = n->score;
	it->cls = n->cls;
	it->priority_source = n->source;
	it->queue = n->queue;
	it->tp = n->tp;
	it->discovered_ms = n->discovered_ms;
	it->inlinks = n->inlinks;
	it->cash = n->cash;
	it->seq = n->seq;
	it->deferred_until_ms = n->deferred_until_ms;
	it->force_cache = false;
	it->block_ = n;
}

/* Scans at most max_scan items of one heap for one whose host is not
 * deferred at now. Deferred items are parked past the heap's end and put
 * back before returning. Returns the node taken out, or NULL; updates
 * *wake with the earliest resume time seen. */
static struct fq_node *scan_heap(struct ct_fq *q, struct fq_heap *h,
				 int64_t now, bool *has_wake, int64_t *wake)
{
	struct fq_node *found = NULL;
	size_t parked = 0;
	int scanned = 0;
	bool track = q->mode == CT_FQ_IMPORTANCE;

	while (scanned < q->p.max_scan && h->n > 0) {
		struct fq_node *n = h->a[0].node;
		scanned++;
		if (q->cb.host_resume_ms) {
			q->in_callback = true;
			int64_t t = q->cb.host_resume_ms(q->cb.ctx, n->host);
			q->in_callback = false;
			if (t > now) {
				n->deferred_until_ms = t;
				struct ct_fq_event ev = {
					.kind = CT_FQ_EV_DEFERRED,
					.url = n->strs, .priority = n->priority,
					.score = n->score, .until_ms = t,
				};
				emit(q, &ev);
				if (!*has_wake || t < *wake) {
					*wake = t;
					*has_wake = true;
				}
				struct fq_entry e = heap_pop(h, track);
				h->a[h->n] = e; /* parked: [n, n + parked) */
				parked++;
				continue;
			}
		}
		found = heap_pop(h, track).node;
		/* the hole is at a[n]; parked items sit at [n + 1, n + 1 + parked) */
		if (parked > 0)
			h->a[h->n] = h->a[h->n + parked];
		break;
	}
	for (size_t i = 0; i < parked; i++) {
		h->n++;
		sift_up(h, h->n - 1, track);
	}
	return found;
}

/* Pulls the next eligible item; see frontier_queue.h for the turn rule. */
ct_status ct_fq_pull(struct ct_fq *q, int64_t now_ms,
		     struct ct_fq_pull_result *res)
{
	ct_queue_type order[2];

	if (!res)
		return CT_EINVAL;
	memset(res, 0, sizeof(*res));
	if (!q || q->in_callback)
		return CT_EINVAL;
	if (q->turn_pulls >= q->p.burst && q->heap[!q->turn].n > 0) {
		q->turn = (ct_queue_type)!q->turn;
		q->turn_pulls = 0;
	}
	order[0] = q->turn;
	order[1] = (ct_queue_type)!q->turn;
	for (int k = 0; k < 2; k++) {
		ct_queue_type t = order[k];
		struct fq_node *n;

		if (q->heap[t].n == 0)
			continue;
		n = scan_heap(q, &q->heap[t], now_ms, &res->has_wake, &res->wake_ms);
		if (!n)
			continue;
		set_remove_at(&q->set, set_find(&q->set, n->hash, n->key));
		if (t != q->turn) {
			q->turn = t;
			q->turn_pulls = 0;
		}
		if (q->heap[!t].n > 0)
			q->turn_pulls++;
		else
			q->turn_pulls = 0;
		item_from_node(&res->item, n);
		/* seed's forceCache: a rate-limited host's page the cache has */
		if (q->cb.host_rate_limited && q->cb.cache_has) {
			q->in_callback = true;
			res->item.force_cache =
				q->cb.host_rate_limited(q->cb.ctx, n->host) &&
				q->cb.cache_has(q->cb.ctx, n->strs);
			q->in_callback = false;
		}
		struct ct_fq_event ev = {
			.kind = CT_FQ_EV_PULLED, .url = n->strs,
			.priority = n->priority, .score = n->score,
			.force_cache = res->item.force_cache,
		};
		emit(q, &ev);
		res->has_item = true;
		res->has_wake = false;
		res->wake_ms = 0;
		return CT_OK;
	}
	return CT_OK;
}

/* ---- heatmap --------------------------------------------------------- */

/* Heatmap label of an optional name. */
static const char *label(const char *s)
{
	return s ? s : "none";
}

/* qsort order of nodes: method label, then type label. */
static int cell_cmp(const void *a, const void *b)
{
	const struct fq_node *x = *(const struct fq_node *const *)a;
	const struct fq_node *y = *(const struct fq_node *const *)b;
	int c = strcmp(label(x->method), label(y->method));

	return c ? c : strcmp(label(x->type), label(y->type));
}

/* Counts queued items per (method, type) and per depth bucket. */
ct_status ct_fq_heatmap(const struct ct_fq *q, struct ct_fq_heatmap *out)
{
	const struct fq_node **v;
	size_t n, k = 0, cells = 0, bytes = 0;
	char *cur;

	if (!out)
		return CT_EINVAL;
	memset(out, 0, sizeof(*out));
	if (!q)
		return CT_EINVAL;
	n = ct_fq_size(q);
	out->queued = n;
	out->enqueued_total = q->enqueued_total;
	if (n == 0)
		return CT_OK;
	v = malloc(n * sizeof(*v));
	if (!v)
		return CT_ENOMEM;
	for (int t = 0; t < 2; t++)
		for (size_t i = 0; i < q->heap[t].n; i++)
			v[k++] = q->heap[t].a[i].node;
	for (size_t i = 0; i < n; i++) {
		int d = v[i]->depth;
		out->depth[d < 0 ? CT_FQ_DEPTH_UNKNOWN :
			   d >= 3 ? CT_FQ_DEPTH_3_PLUS : d]++;
	}
	qsort(v, n, sizeof(*v), cell_cmp);
	for (size_t i = 0; i < n; i++) {
		if (i == 0 || cell_cmp(&v[i - 1], &v[i]) != 0) {
			cells++;
			bytes += strlen(label(v[i]->method)) + 1 +
				 strlen(label(v[i]->type)) + 1;
		}
	}
	out->cells = malloc(cells * sizeof(*out->cells) + bytes);
	if (!out->cells) {
		free(v);
		return CT_ENOMEM;
	}
	cur = (char *)(out->cells + cells);
	for (size_t i = 0; i < n; i++) {
		if (i == 0 || cell_cmp(&v[i - 1], &v[i]) != 0) {
			struct ct_fq_heat_cell *c = &out->cells[out->n_cells++];
			const char *m = label(v[i]->method), *t = label(v[i]->type);
			c->method = stash(&cur, m, strlen(m));
			c->type = stash(&cur, t, strlen(t));
			c->count = 0;
		}
		out->cells[out->n_cells - 1].count++;
	}
	free(v);
	return CT_OK;
}

/* Frees the cells of a heatmap. */
void ct_fq_heatmap_free(struct ct_fq_heatmap *h)
{
	if (!h)
		return;
	free(h->cells);
	h->cells = NULL;
	h->n_cells = 0;
}
