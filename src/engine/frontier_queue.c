/* frontier_queue.c: seed 002's QueueManager (two heaps, dedup set, burst
 * alternation, host deferral), with SPEC.md's rules.
 *
 * Layout (issue 23: an item costs about 64 bytes beyond its URL, and
 * the hot loops touch small arrays):
 *
 *   records  one fixed 32-byte record an item (struct fq_rec), in chunks
 *            of 4,096 that never move, found by a 32-bit index; freed
 *            records go on a free list. Type and discovery method are
 *            interned as one pair (a 16-bit id); the host, class and
 *            the pulled item's strings are derived when the item is
 *            pulled.
 *   strings  one arena for all items (struct fq_arena), in blocks of
 *            1 MiB that never move: an item's bytes are its URL and a
 *            NUL, then its normalised key and a NUL when that differs
 *            (most URLs are their own key), then, for a depth past
 *            65,534, the depth (4 bytes); the record holds their 32-bit
 *            position. A pulled item's place is taken by one of the
 *            next items that fits (the last 8 are kept), and a block
 *            left with no item is freed; when the arena would grow with
 *            more than a fifth of its blocks' bytes not an item's, the
 *            live items' bytes are first copied to new blocks in record
 *            order (about four bytes copied for each byte given back;
 *            a queue that only drains never copies). No malloc block an
 *            item, so no malloc header and rounding an item.
 *   heaps    4-ary min-heaps (d-ary heaps: Johnson 1975) of 12-byte
 *            entries, the score as an order-preserving 64-bit key and the
 *            record's index, in two arrays that grow by an eighth (realloc
 *            of a large block remaps it): a comparison reads the record only when two
 *            scores tie (then discovery time, then insertion sequence:
 *            the store's claim order, ct_task_key_cmp, with the sequence
 *            as the id). Deferred items are parked in the slots just past
 *            the heap while a pull scans.
 *   runs     a large heap of a frontier queue without a host callback is
 *            sorted into a run when pulled ("sorted runs" below): pulls
 *            then read it in order, a few items ahead.
 *   set      open addressing with linear probing and backward-shift
 *            deletion (Knuth, TAOCP vol. 3, 6.4 Algorithm R): 8-byte
 *            slots of a 32-bit hash of the key and index + 1, load at
 *            most 4/5, any size (the slot by multiply-shift: Lemire's
 *            fast range), so growth is by half.
 *
 * Importance mode keeps links, cash and heap position in arrays beside
 * the records' chunks, and a queue with a host callback keeps each
 * item's last resume time likewise: a frontier queue pays for neither.
 *
 * All growth happens before the queue is changed, so CT_ENOMEM leaves it
 * as it was (names a refused enqueue interned are removed again). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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

#define CHUNK_BITS 12
#define CHUNK ((uint32_t)1 << CHUNK_BITS)
#define NO_INDEX UINT32_MAX
/* at most this many items (indexes and set slots are 32-bit) */
#define MAX_ITEMS (UINT32_MAX / 2)
#define MAX_NAMES UINT16_MAX
#define MAX_PAIRS UINT16_MAX
#define MAX_SOURCES 8
/* a depth at least this is kept in the arena, after the strings */
#define DEPTH_IN_ARENA UINT16_MAX
/* the arena: blocks of 1 MiB, 32-bit positions (block << 20 | offset) */
#define BLOCK_BITS 20
#define BLOCK ((size_t)1 << BLOCK_BITS)
#define MAX_BLOCKS ((size_t)1 << (32 - BLOCK_BITS))
/* a free record's position (no item's: the last block's last byte) */
#define FREE_OFF UINT32_MAX
#define RECENT 8

/* An item's record. seqbits: the insertion sequence << 8, then the
 * queue type (bit 0), "key differs from URL" (bit 1), total
 * prioritisation class (bits 2-3), priority source id (bits 4-6), "depth
 * in the arena" (bit 7). A free record has off FREE_OFF and the next
 * free index in seqbits. */
struct fq_rec {
	uint32_t off;       /* its bytes in the arena: url \0 [key \0] [depth] */
	uint16_t pair;      /* interned (type, method); 0 = neither */
	uint16_t depth;     /* DEPTH_IN_ARENA: see the arena */
	double priority;
	int64_t discovered_ms;
	uint64_t seqbits;
};
_Static_assert(sizeof(struct fq_rec) == 32, "a record is 32 bytes");

/* The items' strings (see the top of the file). */
struct fq_arena {
	char **blocks;          /* NULL: not made, or freed */
	uint32_t *live_in;      /* live bytes in each block */
	size_t n_blocks, cap;   /* high mark, room */
	size_t n_made;          /* blocks allocated now */
	size_t top;             /* the next position */
	size_t live;            /* bytes of queued items */
	size_t useless_at;      /* blocks after a compaction that freed none */
	/* the places of the last items pulled, the latest last: a new
	 * item that fits takes one (its bytes are then in cache) */
	struct { uint32_t pos, size; } recent[RECENT];
	int n_recent;
};

struct fq_imp {             /* importance mode */
	double inlinks, cash;
	uint32_t pos;       /* index in its heap */
};

struct fq_chunk {
	struct fq_rec rec[CHUNK];
	struct fq_imp *imp;     /* importance mode, else NULL */
	int64_t *deferred;      /* with a host callback: last resume time */
};

struct fq_ent {
	uint64_t k;             /* order key of the score: lower pops first */
	uint32_t idx;
};

/* Entry i is (k[i], ix[i]): a comparison reads k alone unless scores
 * tie, so the keys have their own array. A heap may also hold a sorted
 * run (see run_make): entries rk/rix[rhead, rn) in pop order, every one
 * of them queued; the heap's items are both. */
struct fq_heap {
	uint64_t *k;
	uint32_t *ix;
	size_t n, cap;
	uint64_t *rk;
	uint32_t *rix;
	size_t rhead, rn, rcap;
	size_t merge_at;        /* a merge waits for this many heap entries */
	/* the key hashes of run entries a few pulls ahead, by position (a
	 * position of SIZE_MAX: none) */
	struct { size_t pos; uint32_t tag; } ahead[4];
};

struct fq_slot {
	uint32_t tag;           /* hash of the key */
	uint32_t idx1;          /* record index + 1; 0 = empty */
};

struct fq_set {
	struct fq_slot *slots;
	size_t cap, count;
};

/* Interned values, ids 1..n (16-bit), found by their 64-bit hashes
 * through open addressing at load <= 1/2. The values themselves are the
 * owner's, in an array it grows with the index (cap). */
struct fq_index {
	uint64_t *hash;         /* hash[id - 1] */
	size_t n, cap;
	uint16_t *slot;         /* ids; 0 = empty; power-of-two size */
	size_t slots;
};

/* Interned strings: names[id - 1]. */
struct fq_names {
	struct fq_index ix;
	char **names;
	size_t vcap;            /* names' room */
	/* the ids last found for a few callers' pointers (a crawler passes
	 * the same literals again and again), each checked against the
	 * name it stands for before it is used */
	struct { const char *ptr; uint16_t id; } memo[8];
};

/* Interned (type, method) pairs of name ids: pairs[id - 1]. */
struct fq_pairs {
	struct fq_index ix;
	uint32_t *pairs;        /* type id << 16 | method id */
	size_t vcap;            /* pairs' room */
};

struct ct_fq {
	struct ct_frontier_params p;
	struct ct_class_bounds bounds;
	struct ct_fq_callbacks cb;
	struct fq_heap heap[2]; /* indexed by ct_queue_type */
	struct fq_set set;
	struct fq_chunk **chunks;
	size_t n_chunks, chunks_cap;
	uint32_t used;          /* records ever handed out (high mark) */
	uint32_t free_head;     /* free list, NO_INDEX when empty */
	struct fq_names names;  /* types and methods */
	struct fq_pairs pairs;
	struct fq_arena arena;
	const char *sources[MAX_SOURCES]; /* static priority sources */
	int n_sources;
	uint64_t next_seq;
	size_t enqueued_total;
	size_t discovered;      /* importance mode: the pages discovered, as
				 * the store counts them (the items accepted
				 * before a batch and the batch's new ones) */
	ct_fq_mode mode;        /* how new items are scored */
	ct_queue_type turn;     /* heap that has the turn */
	int turn_pulls;         /* pulls in this turn while the other waited */
	bool in_callback;       /* one of cb's functions runs: no changes */
	uint64_t rng;           /* the runs' pivots (xorshift; not 0) */
};

static inline struct fq_chunk *chunk_of(const struct ct_fq *q, uint32_t i)
{
	return q->chunks[i >> CHUNK_BITS];
}

static inline struct fq_rec *rec_at(const struct ct_fq *q, uint32_t i)
{
	return &chunk_of(q, i)->rec[i & (CHUNK - 1)];
}

static inline struct fq_imp *imp_at(const struct ct_fq *q, uint32_t i)
{
	return &chunk_of(q, i)->imp[i & (CHUNK - 1)];
}

static inline uint64_t seq_of(const struct fq_rec *r)
{
	return r->seqbits >> 8;
}

static inline ct_queue_type queue_of(const struct fq_rec *r)
{
	return (ct_queue_type)(r->seqbits & 1);
}

static inline bool key_differs(const struct fq_rec *r)
{
	return (r->seqbits >> 1) & 1;
}

static inline bool depth_in_arena(const struct fq_rec *r)
{
	return (r->seqbits >> 7) & 1;
}

static inline const char *url_of_rec(const struct ct_fq *q,
				     const struct fq_rec *r)
{
	return q->arena.blocks[r->off >> BLOCK_BITS] + (r->off & (BLOCK - 1));
}

static inline const char *key_of_rec(const struct ct_fq *q,
				     const struct fq_rec *r)
{
	const char *u = url_of_rec(q, r);
	return key_differs(r) ? u + strlen(u) + 1 : u;
}

/* The bytes of record r in the arena. */
static size_t rec_bytes(const struct ct_fq *q, const struct fq_rec *r)
{
	const char *u = url_of_rec(q, r);
	size_t n = strlen(u) + 1;
	if (key_differs(r))
		n += strlen(u + n) + 1;
	return n + (depth_in_arena(r) ? sizeof(int32_t) : 0);
}

static int depth_of_rec(const struct ct_fq *q, const struct fq_rec *r)
{
	if (!depth_in_arena(r))
		return r->depth;
	int32_t d;
	memcpy(&d, url_of_rec(q, r) + rec_bytes(q, r) - sizeof(d), sizeof(d));
	return d;
}

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

/* The ASCII bytes RFC 3986 forbids in a registered host name: controls,
 * space, DEL and []<>"{}|\^` (a table: this runs for every URL). */
static bool host_byte_bad(unsigned char c)
{
	static const uint32_t bad[4] = {
		0xffffffffu,                         /* 0x00-0x1f */
		(1u << 0) | (1u << ('"' - 32)) | (1u << ('<' - 32)) |
			(1u << ('>' - 32)),          /* 0x20-0x3f */
		(1u << ('[' - 64)) | (1u << ('\\' - 64)) | (1u << (']' - 64)) |
			(1u << ('^' - 64)),          /* 0x40-0x5f */
		(1u << ('`' - 96)) | (1u << ('{' - 96)) | (1u << ('|' - 96)) |
			(1u << ('}' - 96)) | (1u << (0x7f - 96)), /* 0x60-0x7f */
	};
	return c < 0x80 && (bad[c >> 5] >> (c & 31)) & 1;
}

/* True when a registered host name holds no character that RFC 3986
 * forbids there. Bytes >= 0x80 must be well-formed UTF-8 (an
 * international name): the host is handed to the callbacks as text. */
static bool host_chars_ok(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (host_byte_bad(c))
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

/* The default port of a scheme (any case), or -1. */
static long default_port(const char *url, size_t scheme_len)
{
	static const struct {
		const char *scheme;
		long port;
	} tab[] = { { "http", 80 }, { "https", 443 }, { "ws", 80 },
		    { "wss", 443 }, { "ftp", 21 } };

	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (strlen(tab[i].scheme) == scheme_len &&
		    strncasecmp(tab[i].scheme, url, scheme_len) == 0)
			return tab[i].port;
	return -1;
}

/* A bounded writer: counts every byte, stores those that fit. */
struct sink {
	char *buf;
	size_t cap, len;
};

/* Appends n bytes of p, lower-cased when low (counted even when they do
 * not fit). */
static void put(struct sink *s, const char *p, size_t n, bool low)
{
	size_t room = s->len + 1 < s->cap ? s->cap - 1 - s->len : 0;
	size_t k = n < room ? n : room;

	if (k > 0) {
		char *d = s->buf + s->len;
		if (low)
			for (size_t i = 0; i < k; i++)
				d[i] = lower(p[i]);
		else
			memcpy(d, p, k);
	}
	s->len += n;
}

/* Writes the normalised form of a parsed url into s (not terminated). */
static void url_write_key(const char *url, const struct url_parts *u,
			  struct sink *s)
{
	put(s, url, u->scheme_len, true);
	put(s, "://", 3, false);
	put(s, url + u->user_start, u->user_len, false);
	put(s, url + u->host_start, u->host_len, true);
	if (u->port >= 0 && u->port != default_port(url, u->scheme_len)) {
		char d[8];
		int n = 0;
		long v = u->port;
		do {
			d[sizeof(d) - 1 - n++] = (char)('0' + v % 10);
			v /= 10;
		} while (v > 0);
		put(s, ":", 1, false);
		put(s, d + sizeof(d) - n, (size_t)n, false);
	}
	if (u->rest_len == 0 || url[u->rest_start] == '?')
		put(s, "/", 1, false);
	put(s, url + u->rest_start, u->rest_len, false);
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

/* A parsed URL's key in small (n bytes) or, when longer, in a new block
 * (*key; free it when it is not small). *len is its length. false when
 * allocation fails. */
static bool key_write(const char *url, const struct url_parts *u, char *small,
		      size_t n, char **key, size_t *len)
{
	struct sink s = { small, n, 0 };

	url_write_key(url, u, &s);
	*key = small;
	*len = s.len;
	if (s.len < n) {
		small[s.len] = '\0';
		return true;
	}
	*key = malloc(s.len + 1);
	if (!*key)
		return false;
	s = (struct sink){ *key, *len + 1, 0 };
	url_write_key(url, u, &s);
	(*key)[*len] = '\0';
	return true;
}

/* The host of a key (scheme://[userinfo@]host[:port]/...): start and
 * length, lower-case already. */
static void key_host(const char *key, size_t *start, size_t *len)
{
	const char *a = strstr(key, "://") + 3;
	const char *end = a + strcspn(a, "/");
	const char *h = a;

	for (const char *p = a; p < end; p++)
		if (*p == '@')
			h = p + 1;
	const char *stop = *h == '[' ?
		(const char *)memchr(h, ']', (size_t)(end - h)) + 1 :
		h + strcspn(h, ":/");
	if (stop > end)
		stop = end;
	*start = (size_t)(h - key);
	*len = (size_t)(stop - h);
}

/* ---- hash set of queued keys ---------------------------------------- */

/* A 64-bit hash of n bytes, eight at a time (a multiply-xorshift
 * mixer, finished with splitmix64's). */
static uint64_t hash_bytes(const char *s, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ n;
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t w;
		memcpy(&w, s + i, 8);
		h = (h ^ w) * 0xbf58476d1ce4e5b9ULL;
		h ^= h >> 29;
	}
	if (i < n) {
		uint64_t w = 0;
		memcpy(&w, s + i, n - i);
		h = (h ^ w) * 0xbf58476d1ce4e5b9ULL;
		h ^= h >> 29;
	}
	h ^= h >> 30;
	h *= 0xbf58476d1ce4e5b9ULL;
	h ^= h >> 27;
	h *= 0x94d049bb133111ebULL;
	h ^= h >> 31;
	return h;
}

static inline uint32_t tag_of(const char *key, size_t len)
{
	return (uint32_t)(hash_bytes(key, len) >> 32);
}

/* The home slot of a tag among cap slots (multiply-shift). */
static inline size_t home_of(uint32_t tag, size_t cap)
{
	return (size_t)(((uint64_t)tag * cap) >> 32);
}

/* The slot holding key, or SIZE_MAX when it is not in the set. */
static size_t set_find(const struct ct_fq *q, uint32_t tag, const char *key)
{
	const struct fq_set *set = &q->set;

	if (set->cap == 0)
		return SIZE_MAX;
	for (size_t i = home_of(tag, set->cap);;) {
		const struct fq_slot *sl = &set->slots[i];
		if (!sl->idx1)
			return SIZE_MAX;
		if (sl->tag == tag &&
		    strcmp(key_of_rec(q, rec_at(q, sl->idx1 - 1)), key) == 0)
			return i;
		if (++i == set->cap)
			i = 0;
	}
}

/* The slot holding record idx (which is in the set). */
static size_t set_find_index(const struct fq_set *set, uint32_t tag,
			     uint32_t idx)
{
	for (size_t i = home_of(tag, set->cap);;) {
		if (set->slots[i].idx1 == idx + 1)
			return i;
		if (++i == set->cap)
			i = 0;
	}
}

/* Inserts an entry known to be absent; capacity must be reserved. */
static void set_insert(struct fq_set *set, uint32_t tag, uint32_t idx1)
{
	size_t i = home_of(tag, set->cap);

	while (set->slots[i].idx1)
		if (++i == set->cap)
			i = 0;
	set->slots[i].tag = tag;
	set->slots[i].idx1 = idx1;
	set->count++;
}

/* Makes room for one more key at load <= 4/5. On CT_ENOMEM the set is as
 * it was. */
static ct_status set_reserve(struct fq_set *set)
{
	size_t cap = set->cap ? set->cap : 16;
	struct fq_set grown;

	while ((set->count + 1) * 5 > cap * 4)
		cap += cap / 2;
	if (cap == set->cap)
		return CT_OK;
	if (cap > SIZE_MAX / sizeof(struct fq_slot) || cap > UINT32_MAX)
		return CT_ENOMEM;
	grown.slots = calloc(cap, sizeof(*grown.slots));
	if (!grown.slots)
		return CT_ENOMEM;
	grown.cap = cap;
	grown.count = 0;
	for (size_t i = 0; i < set->cap; i++)
		if (set->slots[i].idx1)
			set_insert(&grown, set->slots[i].tag,
				   set->slots[i].idx1);
	free(set->slots);
	*set = grown;
	return CT_OK;
}

/* Removes the slot i, shifting back the entries that probed past it. */
static void set_remove_at(struct fq_set *set, size_t i)
{
	size_t j = i;

	for (;;) {
		if (++j == set->cap)
			j = 0;
		if (!set->slots[j].idx1)
			break;
		size_t home = home_of(set->slots[j].tag, set->cap);
		/* entry j may stay when its home lies cyclically in (i, j] */
		bool stays = i <= j ? (i < home && home <= j)
				    : (i < home || home <= j);
		if (stays)
			continue;
		set->slots[i] = set->slots[j];
		i = j;
	}
	set->slots[i] = (struct fq_slot){0, 0};
	set->count--;
}

/* ---- interned names ---------------------------------------------------- */

/* The id whose value same() says is the one sought (by hash h), or 0;
 * *at is its slot, or the empty slot where it would go. */
static uint16_t index_find(const struct fq_index *x, uint64_t h,
			   bool (*same)(const void *ctx, uint16_t id),
			   const void *ctx, size_t *at)
{
	size_t mask = x->slots - 1, i;

	*at = 0;
	if (!x->slots)
		return 0;
	for (i = (size_t)h & mask; x->slot[i]; i = (i + 1) & mask)
		if (x->hash[x->slot[i] - 1] == h && same(ctx, x->slot[i])) {
			*at = i;
			return x->slot[i];
		}
	*at = i;
	return 0;
}

/* Makes room for one more id (the owner's values array then grows to
 * x->cap: values_fit). CT_ERANGE at limit ids, CT_ENOMEM when
 * allocation fails (nothing changed but the room). */
static ct_status index_reserve(struct fq_index *x, size_t limit)
{
	if (x->n >= limit)
		return CT_ERANGE;
	if (x->n == x->cap) {
		size_t cap = x->cap ? x->cap * 2 : 8;
		uint64_t *v = realloc(x->hash, cap * sizeof(*v));
		if (!v)
			return CT_ENOMEM;
		x->hash = v;
		x->cap = cap;
	}
	if ((x->n + 1) * 2 > x->slots) {
		size_t slots = x->slots ? x->slots * 2 : 16;
		uint16_t *ix = calloc(slots, sizeof(*ix));
		if (!ix)
			return CT_ENOMEM;
		for (size_t k = 0; k < x->n; k++) {
			size_t j = (size_t)x->hash[k] & (slots - 1);
			while (ix[j])
				j = (j + 1) & (slots - 1);
			ix[j] = (uint16_t)(k + 1);
		}
		free(x->slot);
		x->slot = ix;
		x->slots = slots;
	}
	return CT_OK;
}

/* Gives hash h the next id (room reserved; not there). */
static uint16_t index_add(struct fq_index *x, uint64_t h)
{
	size_t mask = x->slots - 1, i;

	for (i = (size_t)h & mask; x->slot[i]; i = (i + 1) & mask)
		;
	x->hash[x->n++] = h;
	x->slot[i] = (uint16_t)x->n;
	return (uint16_t)x->n;
}

/* Removes the ids after the first `before` (a refused enqueue's), the
 * latest first: with linear probing no entry has probed past the latest
 * one, so emptying its slot hides nothing. */
static void index_rollback(struct fq_index *x, size_t before)
{
	while (x->n > before) {
		uint16_t id = (uint16_t)x->n;
		size_t mask = x->slots - 1, i = (size_t)x->hash[id - 1] & mask;
		while (x->slot[i] != id)
			i = (i + 1) & mask;
		x->slot[i] = 0;
		x->n--;
	}
}

static void index_free(struct fq_index *x)
{
	free(x->hash);
	free(x->slot);
}

/* values (elements of size; room for *vcap) grown to x's cap when it
 * must: the array to use, or NULL when allocation fails (values stays
 * valid). */
static void *values_fit(const struct fq_index *x, void *values, size_t *vcap,
			size_t size)
{
	if (*vcap >= x->cap)
		return values;
	void *v = realloc(values, x->cap * size);
	if (v)
		*vcap = x->cap;
	return v;
}

struct name_probe {
	const struct fq_names *t;
	const char *name;
};

static bool same_name(const void *ctx, uint16_t id)
{
	const struct name_probe *p = ctx;
	return strcmp(p->t->names[id - 1], p->name) == 0;
}

/* The id of name into *id (NULL or "" is 0), added when new: CT_ENOMEM
 * when allocation fails, CT_ERANGE when the table holds MAX_NAMES. */
static ct_status name_id(struct fq_names *t, const char *name, uint16_t *id)
{
	*id = 0;
	if (!name || !name[0])
		return CT_OK;
	/* a pointer seen before, its name the same (a rolled back or
	 * rewritten one is not) */
	size_t m = ((uintptr_t)name >> 3) & 7;
	uint16_t was = t->memo[m].ptr == name ? t->memo[m].id : 0;
	if (was && was <= t->ix.n && strcmp(t->names[was - 1], name) == 0) {
		*id = was;
		return CT_OK;
	}
	size_t len = strlen(name), at;
	uint64_t h = hash_bytes(name, len);
	struct name_probe probe = {t, name};
	if ((*id = index_find(&t->ix, h, same_name, &probe, &at))) {
		t->memo[m].ptr = name;
		t->memo[m].id = *id;
		return CT_OK;
	}
	ct_status st = index_reserve(&t->ix, MAX_NAMES);
	if (st != CT_OK)
		return st;
	char *copy = malloc(len + 1);
	char **names = copy ? values_fit(&t->ix, t->names, &t->vcap,
					 sizeof(*t->names)) : NULL;
	if (!names) {
		free(copy);
		return CT_ENOMEM;
	}
	t->names = names;
	memcpy(copy, name, len + 1);
	*id = index_add(&t->ix, h);
	t->names[*id - 1] = copy;
	t->memo[m].ptr = name;
	t->memo[m].id = *id;
	return CT_OK;
}

static void names_rollback(struct fq_names *t, size_t before)
{
	for (size_t k = before; k < t->ix.n; k++)
		free(t->names[k]);
	index_rollback(&t->ix, before);
}

static const char *name_of(const struct fq_names *t, uint16_t id)
{
	return id ? t->names[id - 1] : NULL;
}

struct pair_probe {
	const struct fq_pairs *t;
	uint32_t v;
};

static bool same_pair(const void *ctx, uint16_t id)
{
	const struct pair_probe *p = ctx;
	return p->t->pairs[id - 1] == p->v;
}

/* The id of the pair (type id, method id) into *id (0 for neither),
 * added when new: CT_ENOMEM when allocation fails, CT_ERANGE when the
 * table holds MAX_PAIRS. */
static ct_status pair_id(struct fq_pairs *t, uint16_t type, uint16_t method,
			 uint16_t *id)
{
	uint32_t v = (uint32_t)type << 16 | method;
	uint64_t h = (uint64_t)v * 0x9e3779b97f4a7c15ULL;
	size_t at;

	*id = 0;
	if (v == 0)
		return CT_OK;
	h ^= h >> 32;
	struct pair_probe probe = {t, v};
	if ((*id = index_find(&t->ix, h, same_pair, &probe, &at)))
		return CT_OK;
	ct_status st = index_reserve(&t->ix, MAX_PAIRS);
	if (st != CT_OK)
		return st;
	uint32_t *pairs = values_fit(&t->ix, t->pairs, &t->vcap,
				     sizeof(*t->pairs));
	if (!pairs)
		return CT_ENOMEM;
	t->pairs = pairs;
	*id = index_add(&t->ix, h);
	t->pairs[*id - 1] = v;
	return CT_OK;
}

/* The type and method names of record r (NULL for none). */
static void names_of_rec(const struct ct_fq *q, const struct fq_rec *r,
			 const char **type, const char **method)
{
	uint32_t v = r->pair ? q->pairs.pairs[r->pair - 1] : 0;
	*type = name_of(&q->names, (uint16_t)(v >> 16));
	*method = name_of(&q->names, (uint16_t)(v & 0xffff));
}

/* The id of a static priority source (its pointer), added when new. */
static int source_id(struct ct_fq *q, const char *s)
{
	for (int i = 0; i < q->n_sources; i++)
		if (q->sources[i] == s)
			return i;
	if (q->n_sources == MAX_SOURCES)
		return -1;
	q->sources[q->n_sources] = s;
	return q->n_sources++;
}

/* ---- heaps ----------------------------------------------------------- */

/* The order key of a score: lower pops first, so higher scores get lower
 * keys (-0 is 0). Exact: the score comes back from it. */
static uint64_t order_key(double score)
{
	uint64_t b;

	if (score == 0)
		score = 0;
	memcpy(&b, &score, sizeof(b));
	b = (b >> 63) ? ~b : (b | (1ULL << 63));
	return ~b;
}

static double score_of_key(uint64_t k)
{
	uint64_t b = ~k;
	double s;

	b = (b >> 63) ? (b & ~(1ULL << 63)) : ~b;
	memcpy(&s, &b, sizeof(s));
	return s;
}

/* True when a pops before b: the store's claim order (score higher
 * first, then discovery time, then sequence). */
static inline bool before(const struct ct_fq *q, uint64_t ak, uint32_t ai,
			  uint64_t bk, uint32_t bi)
{
	if (ak != bk)
		return ak < bk;
	const struct fq_rec *x = rec_at(q, ai), *y = rec_at(q, bi);
	if (x->discovered_ms != y->discovered_ms)
		return x->discovered_ms < y->discovered_ms;
	return seq_of(x) < seq_of(y);
}

static inline struct fq_ent ent_at(const struct fq_heap *h, size_t i)
{
	return (struct fq_ent){ h->k[i], h->ix[i] };
}

/* Puts e at i; track (importance mode) keeps its record's position. */
static inline void place(struct ct_fq *q, struct fq_heap *h, size_t i,
			 struct fq_ent e, bool track)
{
	h->k[i] = e.k;
	h->ix[i] = e.idx;
	if (track)
		imp_at(q, e.idx)->pos = (uint32_t)i;
}

/* Moves entry i up until its parent pops before it. */
static void sift_up(struct ct_fq *q, struct fq_heap *h, size_t i, bool track)
{
	struct fq_ent e = ent_at(h, i);

	while (i > 0) {
		size_t parent = (i - 1) / 4;
		if (!before(q, e.k, e.idx, h->k[parent], h->ix[parent]))
			break;
		place(q, h, i, ent_at(h, parent), track);
		i = parent;
	}
	place(q, h, i, e, track);
}

/* Moves entry i down until its children pop after it. */
static void sift_down(struct ct_fq *q, struct fq_heap *h, size_t i, bool track)
{
	struct fq_ent e = ent_at(h, i);

	for (;;) {
		size_t c = 4 * i + 1, best, end;
		if (c >= h->n)
			break;
		end = c + 4 < h->n ? c + 4 : h->n;
		/* the grandchildren's keys (16, two cache lines) while these
		 * are compared: the next level's read is then in cache */
		if (4 * c + 1 < h->n) {
			__builtin_prefetch(&h->k[4 * c + 1]);
			__builtin_prefetch(&h->k[4 * c + 9]);
		}
		best = c;
		for (size_t k = c + 1; k < end; k++)
			if (before(q, h->k[k], h->ix[k], h->k[best], h->ix[best]))
				best = k;
		if (!before(q, h->k[best], h->ix[best], e.k, e.idx))
			break;
		place(q, h, i, ent_at(h, best), track);
		i = best;
	}
	place(q, h, i, e, track);
}

/* Removes the root and returns it; the freed slot n (n after the
 * removal) is free for the caller to use. */
static struct fq_ent heap_pop(struct ct_fq *q, struct fq_heap *h, bool track)
{
	struct fq_ent top = ent_at(h, 0);

	h->n--;
	if (h->n > 0) {
		place(q, h, 0, ent_at(h, h->n), false);
		sift_down(q, h, 0, track);
	}
	return top;
}

/* The items of a heap: its heap array's and its run's. */
static inline size_t heap_len(const struct fq_heap *h)
{
	return h->n + (h->rn - h->rhead);
}

/* ---- sorted runs ------------------------------------------------------
 *
 * A pull from a large heap reads, for each item, its heap path, its
 * record, its string and its set slot: four cache misses a pull when the
 * queue is large, one after the other. When a frontier queue without a
 * host callback (no deferral: its pulls always take the first item) is
 * pulled with at least RUN_MIN entries in its heap and its run empty,
 * the heap array is sorted once, in place, into the run (quicksort on the
 * pop order: about as many comparisons as the pulls' sifts would make,
 * but over memory read in order), and the heap starts again empty in the
 * run's old arrays; with a run left, the sorted heap and the run are
 * merged into new arrays once the heap holds a quarter of what the run
 * does (run_due), and a run gives back the room its pulls leave
 * (run_trim).
 * A pull then takes the run's head or the heap's root,
 * whichever pops first, and the run tells which items come next, so their
 * records and strings are fetched a few pulls ahead. New items go to the
 * heap as before, so the order is exactly the heap's. Importance mode
 * raises items in place (their heap position) and a host callback parks
 * deferred items in the heap array: neither uses runs. */
#define RUN_MIN 4096
#define RUN_AHEAD_REC 8     /* pulls ahead a record is fetched */
#define RUN_AHEAD_STR 4     /* and its strings */
#define RUN_AHEAD_TAG 2     /* and its key's hash and set slot */

static bool run_ok(const struct ct_fq *q)
{
	return q->mode == CT_FQ_FRONTIER && !q->cb.host_resume_ms;
}

static inline void ent_swap(struct fq_heap *h, size_t a, size_t b)
{
	uint64_t k = h->k[a];
	uint32_t i = h->ix[a];
	h->k[a] = h->k[b];
	h->ix[a] = h->ix[b];
	h->k[b] = k;
	h->ix[b] = i;
}

static inline bool ent_before(const struct ct_fq *q, const struct fq_heap *h,
			      size_t a, size_t b)
{
	return before(q, h->k[a], h->ix[a], h->k[b], h->ix[b]);
}

/* Quicksort of [lo, hi) in pop order, each pivot the median of three
 * entries picked at random (*rng, xorshift), so that no order of the
 * input makes it quadratic; insertion sort under 16 entries. The order
 * is total (the sequence breaks every tie): no two entries compare
 * equal. */
static void sort_run(const struct ct_fq *q, struct fq_heap *h, size_t lo,
		     size_t hi, uint64_t *rng)
{
	while (hi - lo > 16) {
		size_t mid = lo + (hi - lo) / 2, last = hi - 1;
		size_t pick[3] = {lo, mid, last};
		for (int p = 0; p < 3; p++) {
			*rng ^= *rng << 13;
			*rng ^= *rng >> 7;
			*rng ^= *rng << 17;
			ent_swap(h, pick[p], lo + (size_t)(*rng % (hi - lo)));
		}
		if (ent_before(q, h, mid, lo))
			ent_swap(h, mid, lo);
		if (ent_before(q, h, last, lo))
			ent_swap(h, last, lo);
		if (ent_before(q, h, last, mid))
			ent_swap(h, last, mid);
		/* lo <= mid <= last: the pivot waits at last - 1, and lo and
		 * last stop the two scans */
		ent_swap(h, mid, last - 1);
		size_t piv = last - 1, i = lo, j = last - 1;
		for (;;) {
			while (ent_before(q, h, ++i, piv))
				;
			while (ent_before(q, h, piv, --j))
				;
			if (i >= j)
				break;
			ent_swap(h, i, j);
		}
		ent_swap(h, i, piv);
		/* the smaller side by recursion, the larger by the loop */
		if (i - lo < hi - i - 1) {
			sort_run(q, h, lo, i, rng);
			lo = i + 1;
		} else {
			sort_run(q, h, i + 1, hi, rng);
			hi = i;
		}
	}
	for (size_t i = lo + 1; i < hi; i++)
		for (size_t j = i; j > lo && ent_before(q, h, j, j - 1); j--)
			ent_swap(h, j, j - 1);
}

/* Sorts [0, n) of the heap's arrays in pop order: a least-significant-
 * digit radix sort of the keys, a byte a pass (a pass whose byte all keys
 * share is skipped: the high bytes of scores on one scale mostly are),
 * through a scratch copy; then each run of equal keys by sort_run (ties
 * read the records). false, the arrays untouched, when the scratch
 * cannot be had: sort_run then sorts them all. Measured beside sort_run
 * alone: doc/PERFORMANCE.md, "Frontier queue". */
static bool radix_run(const struct ct_fq *q, struct fq_heap *h, size_t n,
		      uint64_t *rng)
{
	if (n < 2)
		return true;
	uint64_t *k2 = malloc(n * sizeof(*k2));
	uint32_t *i2 = malloc(n * sizeof(*i2));
	size_t (*count)[256] = calloc(8, sizeof(*count));
	if (!k2 || !i2 || !count) {
		free(k2);
		free(i2);
		free(count);
		return false;
	}
	for (size_t j = 0; j < n; j++) {
		uint64_t x = h->k[j];
		for (int b = 0; b < 8; b++)
			count[b][(x >> (8 * b)) & 255]++;
	}
	uint64_t *ks = h->k, *kd = k2, any = h->k[0];
	uint32_t *is = h->ix, *id = i2;
	for (int b = 0; b < 8; b++) {
		if (count[b][(any >> (8 * b)) & 255] == n)
			continue; /* every key has any's byte b */
		size_t at[256], sum = 0;
		for (int d = 0; d < 256; d++) {
			at[d] = sum;
			sum += count[b][d];
		}
		for (size_t j = 0; j < n; j++) {
			uint64_t x = ks[j];
			size_t to = at[(x >> (8 * b)) & 255]++;
			kd[to] = x;
			id[to] = is[j];
		}
		uint64_t *kt = ks;
		uint32_t *it = is;
		ks = kd;
		is = id;
		kd = kt;
		id = it;
	}
	if (ks != h->k) {
		memcpy(h->k, ks, n * sizeof(*ks));
		memcpy(h->ix, is, n * sizeof(*is));
	}
	free(k2);
	free(i2);
	free(count);
	for (size_t a = 0; a < n;) {
		size_t e = a + 1;
		while (e < n && h->k[e] == h->k[a])
			e++;
		if (e - a > 1)
			sort_run(q, h, a, e, rng);
		a = e;
	}
	return true;
}

/* Sorts the heap array into the run, and empties the heap. With the run
 * empty (it never holds arrays then), the sorted array becomes the run
 * and the heap grows new ones; else the two are merged into new arrays
 * of their joint size, the old ones freed. When those cannot be had, the
 * merge waits until the heap has doubled (the sorted heap array is still
 * a heap: each entry pops before its children). */
static void run_make(struct ct_fq *q, struct fq_heap *h)
{
	if (!radix_run(q, h, h->n, &q->rng))
		sort_run(q, h, 0, h->n, &q->rng);
	for (int a = 0; a < 4; a++)
		h->ahead[a].pos = SIZE_MAX;
	if (h->rhead == h->rn) {
		free(h->rk);            /* NULL: run_trim freed them */
		free(h->rix);
		h->rk = h->k;
		h->rix = h->ix;
		h->rcap = h->cap;
		h->rhead = 0;
		h->rn = h->n;
	} else {
		size_t left = h->rn - h->rhead, m = left + h->n;
		uint64_t *k = malloc(m * sizeof(*k));
		uint32_t *ix = malloc(m * sizeof(*ix));
		if (!k || !ix) {
			free(k);
			free(ix);
			h->merge_at = 2 * h->n;
			return;
		}
		size_t w = 0, a = h->rhead, b = 0;
		while (w < m) {
			if (b == h->n || (a < h->rn &&
			    before(q, h->rk[a], h->rix[a], h->k[b], h->ix[b]))) {
				k[w] = h->rk[a];
				ix[w++] = h->rix[a++];
			} else {
				k[w] = h->k[b];
				ix[w++] = h->ix[b++];
			}
		}
		free(h->rk);
		free(h->rix);
		free(h->k);
		free(h->ix);
		h->rk = k;
		h->rix = ix;
		h->rcap = m;
		h->rhead = 0;
		h->rn = m;
	}
	h->k = NULL;
	h->ix = NULL;
	h->cap = 0;
	h->n = 0;
	h->merge_at = 0;
}

/* Whether a pull should sort the heap into the run first: the heap holds
 * RUN_MIN entries, and the run is empty (that takes no memory) or the
 * heap holds a quarter of what the run holds (each merge copies the
 * run's entries once) and has doubled since a merge found no memory. */
static bool run_due(const struct fq_heap *h)
{
	size_t left = h->rn - h->rhead;
	return h->n >= RUN_MIN &&
	       (left == 0 || (h->n >= left / 4 && h->n >= h->merge_at));
}

/* After a pull from the run: a drained run frees its arrays; one whose
 * pulls have left a quarter of its room behind, and at least RUN_MIN
 * places, moves its entries to the front and gives the rest back
 * (realloc; kept when that fails), so its arrays hold at most a third
 * more than its entries, or RUN_MIN places more (48 KiB) for a small
 * run (each pull moves three entries on the whole). */
static void run_trim(struct fq_heap *h)
{
	size_t left = h->rn - h->rhead;

	if (left == 0) {
		free(h->rk);
		free(h->rix);
		h->rk = NULL;
		h->rix = NULL;
		h->rhead = h->rn = h->rcap = 0;
		h->merge_at = 0;
		return;
	}
	if (h->rhead < RUN_MIN || h->rhead < h->rcap / 4)
		return;
	memmove(h->rk, h->rk + h->rhead, left * sizeof(*h->rk));
	memmove(h->rix, h->rix + h->rhead, left * sizeof(*h->rix));
	h->rhead = 0;
	h->rn = left;
	for (int a = 0; a < 4; a++)
		h->ahead[a].pos = SIZE_MAX;
	uint64_t *k = realloc(h->rk, left * sizeof(*k));
	if (k)
		h->rk = k;
	uint32_t *ix = realloc(h->rix, left * sizeof(*ix));
	if (ix)
		h->rix = ix;
	if (k && ix)
		h->rcap = left;
}

/* Makes room for one more entry (growth by an eighth). On CT_ENOMEM the
 * heap is as it was. */
static ct_status heap_reserve(struct fq_heap *h)
{
	if (h->n < h->cap)
		return CT_OK;
	size_t cap = h->cap + h->cap / 8 + 64;
	if (cap > SIZE_MAX / sizeof(*h->k))
		return CT_ENOMEM;
	uint64_t *k = realloc(h->k, cap * sizeof(*k));
	if (!k)
		return CT_ENOMEM;
	h->k = k;
	uint32_t *ix = realloc(h->ix, cap * sizeof(*ix));
	if (!ix)
		return CT_ENOMEM; /* k is larger: harmless */
	h->ix = ix;
	h->cap = cap;
	return CT_OK;
}

/* ---- records --------------------------------------------------------- */

/* Makes sure a free record exists, with its importance and deferral
 * arrays when the queue needs them. On CT_ENOMEM nothing changed. */
static ct_status rec_reserve(struct ct_fq *q)
{
	uint32_t i = q->free_head;

	if (i == NO_INDEX) {
		if (q->used >= MAX_ITEMS)
			return CT_ENOMEM;
		i = q->used;
		if ((i >> CHUNK_BITS) == q->n_chunks) {
			if (q->n_chunks == q->chunks_cap) {
				size_t cap = q->chunks_cap ? q->chunks_cap * 2 : 4;
				struct fq_chunk **v = realloc(q->chunks,
							      cap * sizeof(*v));
				if (!v)
					return CT_ENOMEM;
				q->chunks = v;
				q->chunks_cap = cap;
			}
			struct fq_chunk *c = malloc(sizeof(*c));
			if (!c)
				return CT_ENOMEM;
			c->imp = NULL;
			c->deferred = NULL;
			q->chunks[q->n_chunks++] = c;
		}
	}
	struct fq_chunk *c = chunk_of(q, i);
	if (q->mode == CT_FQ_IMPORTANCE && !c->imp &&
	    !(c->imp = malloc(CHUNK * sizeof(*c->imp))))
		return CT_ENOMEM;
	if (q->cb.host_resume_ms && !c->deferred &&
	    !(c->deferred = malloc(CHUNK * sizeof(*c->deferred))))
		return CT_ENOMEM;
	return CT_OK;
}

/* Takes the reserved record. */
static uint32_t rec_take(struct ct_fq *q)
{
	uint32_t i = q->free_head;

	if (i != NO_INDEX)
		q->free_head = (uint32_t)rec_at(q, i)->seqbits;
	else
		i = q->used++;
	return i;
}

/* ---- the string arena ---------------------------------------------- */

/* The block position p lies in. */
static inline char *arena_at(const struct fq_arena *a, size_t p)
{
	return a->blocks[p >> BLOCK_BITS] + (p & (BLOCK - 1));
}

/* The latest pulled item's place that n bytes fit, or -1. */
static int recent_fit(const struct fq_arena *a, size_t n)
{
	for (int k = a->n_recent - 1; k >= 0; k--)
		if (a->recent[k].size >= n)
			return k;
	return -1;
}

/* Whether made block b holds nothing: no live byte, no pulled item's
 * place. */
static bool block_idle(const struct fq_arena *a, size_t b)
{
	if (a->live_in[b])
		return false;
	for (int k = 0; k < a->n_recent; k++)
		if (a->recent[k].pos >> BLOCK_BITS == b)
			return false;
	return true;
}

/* The place of n bytes (at most a block) at the top: the rest of the
 * block at top when it is made and they fit, else the start of the
 * first block not made (one freed when it emptied, or the next past the
 * last): positions stay below the most blocks the arena ever held at
 * once, so the 32-bit positions run out only with 4 GiB of blocks. A top
 * at a block's start, where an item filled the block before exactly, is
 * the top's only when that block holds nothing: a freed lower block made
 * again leaves the top below blocks in use. */
static uint64_t arena_top_for(const struct fq_arena *a, size_t n)
{
	size_t b = a->top >> BLOCK_BITS;

	if (b < a->n_blocks && a->blocks[b] &&
	    ((a->top & (BLOCK - 1)) || block_idle(a, b)) &&
	    n <= BLOCK - (a->top & (BLOCK - 1)))
		return a->top;
	for (b = 0; b < a->n_blocks && a->blocks[b]; b++)
		;
	return (uint64_t)b << BLOCK_BITS;
}

/* True when n more bytes need a block that is not made. */
static bool arena_grows(const struct fq_arena *a, size_t n)
{
	if (recent_fit(a, n) >= 0)
		return false;
	uint64_t b = arena_top_for(a, n) >> BLOCK_BITS;
	return b >= a->n_blocks || !a->blocks[b];
}

/* Where n bytes (at most a block) go in a: the place of a pulled item
 * they fit, else arena_top_for, its block made when it is not: *pos.
 * CT_ERANGE past 4 GiB of positions, CT_ENOMEM when allocation fails;
 * the arena's contents as they were then (a block made stays for
 * later). */
static ct_status arena_place(struct fq_arena *a, size_t n, size_t *pos)
{
	int k = recent_fit(a, n);
	if (k >= 0) {
		*pos = a->recent[k].pos;
		return CT_OK;
	}
	uint64_t p = arena_top_for(a, n);
	uint64_t b = p >> BLOCK_BITS;
	/* FREE_OFF, the last position, is never an item's */
	if (b >= MAX_BLOCKS || p + n > FREE_OFF)
		return CT_ERANGE;
	if (b >= a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 16;
		char **v = realloc(a->blocks, cap * sizeof(*v));
		if (!v)
			return CT_ENOMEM;
		memset(v + a->cap, 0, (cap - a->cap) * sizeof(*v));
		a->blocks = v;
		uint32_t *w = realloc(a->live_in, cap * sizeof(*w));
		if (!w)
			return CT_ENOMEM; /* blocks is larger: harmless */
		memset(w + a->cap, 0, (cap - a->cap) * sizeof(*w));
		a->live_in = w;
		a->cap = cap;
	}
	if (!a->blocks[b]) {
		if (!(a->blocks[b] = malloc(BLOCK)))
			return CT_ENOMEM;
		a->n_made++;
		a->live_in[b] = 0;
		if (a->n_blocks <= b)
			a->n_blocks = b + 1;
	}
	*pos = (size_t)p;
	return CT_OK;
}

/* Takes the n bytes placed at pos (a pulled item's place, the rest of it
 * unused, or the top) and returns them. */
static char *arena_take(struct fq_arena *a, size_t pos, size_t n)
{
	int k = a->n_recent - 1;

	while (k >= 0 && a->recent[k].pos != pos)
		k--;
	if (k >= 0) {
		memmove(a->recent + k, a->recent + k + 1,
			(size_t)(a->n_recent - k - 1) * sizeof(a->recent[0]));
		a->n_recent--;
	} else {
		a->top = pos + n;
	}
	a->live += n;
	a->live_in[pos >> BLOCK_BITS] += (uint32_t)n;
	return arena_at(a, pos);
}

/* Gives back the n bytes at pos (a pulled item's): a block left with no
 * live bytes is freed, but the one at the top. */
static void arena_give(struct fq_arena *a, size_t pos, size_t n)
{
	size_t b = pos >> BLOCK_BITS;

	a->live -= n;
	a->live_in[b] -= (uint32_t)n;
	if (a->live_in[b] == 0 && b != a->top >> BLOCK_BITS) {
		free(a->blocks[b]);
		a->blocks[b] = NULL;
		a->n_made--;
		int m = 0; /* its places go */
		for (int k = 0; k < a->n_recent; k++)
			if (a->recent[k].pos >> BLOCK_BITS != b)
				a->recent[m++] = a->recent[k];
		a->n_recent = m;
		return;
	}
	if (a->n_recent == RECENT)
		memmove(a->recent, a->recent + 1,
			(RECENT - 1) * sizeof(a->recent[0]));
	else
		a->n_recent++;
	a->recent[a->n_recent - 1].pos = (uint32_t)pos;
	a->recent[a->n_recent - 1].size = (uint32_t)n;
}

static void arena_free(struct fq_arena *a)
{
	for (size_t i = 0; i < a->n_blocks; i++)
		free(a->blocks[i]);
	free(a->blocks);
	free(a->live_in);
	*a = (struct fq_arena){0};
}

/* Copies the live items' bytes to new blocks, in record order (the
 * records are read in their chunks' order); when an allocation fails
 * every record gets its old position back and the arena stays as it
 * is. */
static void arena_compact(struct ct_fq *q)
{
	struct fq_arena fresh = {0};
	uint32_t *old = malloc((size_t)q->used * sizeof(*old));

	if (!old)
		return;
	for (uint32_t i = 0; i < q->used; i++) {
		struct fq_rec *r = rec_at(q, i);
		old[i] = r->off;
		if (r->off == FREE_OFF)
			continue;
		size_t n = rec_bytes(q, r), pos;
		if (arena_place(&fresh, n, &pos) != CT_OK) {
			for (uint32_t j = 0; j < i; j++)
				rec_at(q, j)->off = old[j];
			arena_free(&fresh);
			free(old);
			return;
		}
		memcpy(arena_take(&fresh, pos, n), url_of_rec(q, r), n);
		r->off = (uint32_t)pos;
	}
	free(old);
	/* items too large to pack well (a block's end a fifth of it) do not
	 * shrink: the next compaction waits until the arena grew by a
	 * quarter, so each byte is copied a bounded number of times */
	if (fresh.n_made >= q->arena.n_made)
		fresh.useless_at = fresh.n_made;
	arena_free(&q->arena);
	q->arena = fresh;
}

/* Before n bytes of a new item: when they need a new block while more
 * than a fifth of the blocks' bytes are not an item's, the live items'
 * bytes are compacted first (about four bytes copied for each byte
 * given back). */
static void arena_room(struct ct_fq *q, size_t n)
{
	struct fq_arena *a = &q->arena;

	if (a->n_made > 1 && arena_grows(a, n) &&
	    (a->n_made * BLOCK - a->live) * 5 > a->n_made * BLOCK &&
	    a->n_made * 4 >= a->useless_at * 5)
		arena_compact(q);
}

/* Frees record i, whose n bytes (rec_bytes) go back to the arena. */
static void rec_free(struct ct_fq *q, uint32_t i, size_t n)
{
	struct fq_rec *r = rec_at(q, i);
	struct fq_arena *a = &q->arena;

	arena_give(a, r->off, n);
	r->off = FREE_OFF;
	r->seqbits = q->free_head;
	q->free_head = i;
	if (ct_fq_size(q) == 0) {
		/* nothing live: start again in the first block */
		for (size_t b = 1; b < a->n_blocks; b++) {
			free(a->blocks[b]);
			a->blocks[b] = NULL;
		}
		a->n_blocks = a->n_blocks && a->blocks[0] ? 1 : 0;
		a->n_made = a->n_blocks;
		a->top = a->live = 0;
		if (a->n_blocks)
			a->live_in[0] = 0;
		a->n_recent = 0;
	}
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
	q->free_head = NO_INDEX;
	q->rng = (0x9E3779B97F4A7C15ull ^ (uint64_t)(uintptr_t)q) | 1;
	*out = q;
	return CT_OK;
}

/* Frees every queued item, the heaps, the set and the queue. */
void ct_fq_destroy(struct ct_fq *q)
{
	if (!q)
		return;
	for (int t = 0; t < 2; t++) {
		free(q->heap[t].k);
		free(q->heap[t].ix);
		free(q->heap[t].rk);
		free(q->heap[t].rix);
	}
	arena_free(&q->arena);
	free(q->pairs.pairs);
	index_free(&q->pairs.ix);
	for (size_t c = 0; c < q->n_chunks; c++) {
		free(q->chunks[c]->imp);
		free(q->chunks[c]->deferred);
		free(q->chunks[c]);
	}
	free(q->chunks);
	for (size_t i = 0; i < q->names.ix.n; i++)
		free(q->names.names[i]);
	free(q->names.names);
	index_free(&q->names.ix);
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
	return q ? heap_len(&q->heap[0]) + heap_len(&q->heap[1]) : 0;
}

/* Items in one heap. */
size_t ct_fq_size_of(const struct ct_fq *q, ct_queue_type t)
{
	if (!q || (unsigned)t > CT_QUEUE_ACQUISITION)
		return 0;
	return heap_len(&q->heap[t]);
}

/* A URL's key for a lookup: parsed, written (into small or a new block),
 * hashed. */
struct lookup {
	char small[512];
	char *key;
	size_t len;
	uint64_t hash;
	uint32_t tag;           /* the set's: the hash's high half */
};

/* false for an invalid URL or when allocation fails. */
static bool lookup_of(const char *url, const struct url_parts *given,
		      struct lookup *l)
{
	struct url_parts u;

	if (!given) {
		if (!url || !url_parse(url, &u))
			return false;
		given = &u;
	}
	if (!key_write(url, given, l->small, sizeof(l->small), &l->key,
		       &l->len))
		return false;
	l->hash = hash_bytes(l->key, l->len);
	l->tag = (uint32_t)(l->hash >> 32);
	return true;
}

static void lookup_done(struct lookup *l)
{
	if (l->key != l->small)
		free(l->key);
}

/* The record index of a queued key, or NO_INDEX. */
static uint32_t queued_index(const struct ct_fq *q, const struct lookup *l)
{
	size_t at = set_find(q, l->tag, l->key);
	return at == SIZE_MAX ? NO_INDEX : q->set.slots[at].idx1 - 1;
}

bool ct_fq_contains(const struct ct_fq *q, const char *url)
{
	struct lookup l;

	if (!q || !url || !lookup_of(url, NULL, &l))
		return false;
	bool in = queued_index(q, &l) != NO_INDEX;
	lookup_done(&l);
	return in;
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

/* The importance score of links and cash, the queue having discovered
 * `discovered` items; seed: the homepage or the method "seed". Inputs
 * were checked by the caller. */
static double importance_of(double inlinks, double cash, double discovered,
			    bool seed)
{
	struct ct_importance_input in = {inlinks, cash, discovered, seed};
	struct ct_importance_result r;
	return ct_importance_score(&in, &r, NULL) == CT_OK ? r.score : 0;
}

/* Importance mode: queued record i gains links and cash; its score rises
 * (never falls) and it moves up its heap. */
static void raise_item(struct ct_fq *q, uint32_t i, double links, double cash)
{
	struct fq_imp *m = imp_at(q, i);
	struct fq_heap *h = &q->heap[queue_of(rec_at(q, i))];

	m->inlinks += links;
	m->cash += cash;
	double v = importance_of(m->inlinks, m->cash, (double)q->discovered,
				 false);
	if (!(v > score_of_key(h->k[m->pos])))
		return;
	h->k[m->pos] = order_key(v);
	sift_up(q, h, m->pos, true);
}

/* What an enqueue's last step interned: the names and pairs held
 * before it. */
struct undo {
	size_t names, pairs;
};

/* A refusal after scoring: the names and pairs interned for it go again,
 * the lookup is done, and, with a reason, the decision is told (without
 * one: out of memory, no decision). */
static void refused_late(struct ct_fq *q, const struct undo *u,
			 const char *url, struct ct_fq_enqueue_result *res,
			 struct lookup *l, const char *why)
{
	index_rollback(&q->pairs.ix, u->pairs);
	names_rollback(&q->names, u->names);
	lookup_done(l);
	if (res)
		res->scored = false;
	if (why)
		decide(q, url, res, false, why, NULL);
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
	struct lookup l;
	const char *why = NULL;
	ct_status st;
	bool imp = q->mode == CT_FQ_IMPORTANCE, have_key = false;

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
		if (!lookup_of(in->url, &u, &l))
			return ct_error_set(err, CT_ENOMEM, "out of memory enqueueing %s", in->url);
		have_key = true;
		uint32_t old = queued_index(q, &l);
		if (old != NO_INDEX) {
			lookup_done(&l);
			raise_item(q, old, links, cash);
			if (res)
				res->raised = true;
			decide(q, in->url, res, false, R_DUPLICATE, NULL);
			return CT_OK;
		}
	}
	/* 2. size, both heaps together */
	if (ct_fq_size(q) >= q->p.max_queue || ct_fq_size(q) >= MAX_ITEMS) {
		why = R_QUEUE_FULL;
		goto refuse;
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
		why = R_MAX_DEPTH;
		goto refuse;
	}
	/* 4. eligibility */
	if (q->cb.eligible) {
		q->in_callback = true;
		ok = q->cb.eligible(q->cb.ctx, in->url, &why);
		q->in_callback = false;
	}
	if (!ok) {
		why = why ? why : R_INELIGIBLE;
		goto refuse;
	}
	/* 5. duplicate */
	if (!have_key) {
		if (!lookup_of(in->url, &u, &l))
			return ct_error_set(err, CT_ENOMEM, "out of memory enqueueing %s", in->url);
		have_key = true;
	}
	if (queued_index(q, &l) != NO_INDEX) {
		why = R_DUPLICATE;
		goto refuse;
	}
	/* 6. priority: bad input and non-finite results are refused */
	st = ct_frontier_score(&q->p, &q->bounds, in, r, err);
	if (st != CT_OK) {
		lookup_done(&l);
		decide(q, in->url, res, false,
		       isfinite(r->priority) ? R_INVALID_INPUT : R_NON_FINITE,
		       NULL);
		return st;
	}
	if (res)
		res->scored = true;
	if (r->dropped) {
		lookup_done(&l);
		decide(q, in->url, res, false, R_DEPRIORITISED, r);
		return CT_OK;
	}
	/* 7. memory first, then the change */
	struct fq_heap *h = &q->heap[r->queue];
	size_t ul = strlen(in->url);
	bool differs = l.len != ul || memcmp(l.key, in->url, ul) != 0;
	uint16_t type, method = 0, pair = 0;
	struct undo u7 = { q->names.ix.n, q->pairs.ix.n };
	ct_status named = name_id(&q->names, in->type, &type);
	if (named == CT_OK)
		named = name_id(&q->names, in->discovery_method, &method);
	if (named == CT_ERANGE) {
		refused_late(q, &u7, in->url, res, &l, R_INVALID_INPUT);
		return ct_error_set(err, CT_ERANGE, "enqueue %s: the queue knows "
				    "%d distinct types and discovery methods, "
				    "its most (a name stays for the queue's life)",
				    in->url, MAX_NAMES);
	}
	if (named == CT_OK)
		named = pair_id(&q->pairs, type, method, &pair);
	if (named == CT_ERANGE) {
		refused_late(q, &u7, in->url, res, &l, R_INVALID_INPUT);
		return ct_error_set(err, CT_ERANGE, "enqueue %s: the queue knows "
				    "%d distinct pairs of type and discovery "
				    "method, its most (a pair stays for the "
				    "queue's life)", in->url, MAX_PAIRS);
	}
	bool big = in->depth >= DEPTH_IN_ARENA;
	size_t bytes = ul + 1 + (differs ? l.len + 1 : 0) +
		       (big ? sizeof(int32_t) : 0);
	if (named == CT_OK && bytes > BLOCK) {
		refused_late(q, &u7, in->url, res, &l, R_INVALID_INPUT);
		return ct_error_set(err, CT_ERANGE, "enqueue: a URL of %zu bytes "
				    "(with its key, %zu): the queue keeps at most "
				    "%zu bytes an item", ul, bytes, BLOCK);
	}
	int src = source_id(q, r->priority_source);
	size_t pos = 0;
	if (named == CT_OK)
		arena_room(q, bytes);
	ct_status room = named == CT_OK ? arena_place(&q->arena, bytes, &pos)
					: named;
	if (room == CT_ERANGE) {
		refused_late(q, &u7, in->url, res, &l, R_QUEUE_FULL);
		return CT_OK;
	}
	if (room != CT_OK || src < 0 || heap_reserve(h) != CT_OK ||
	    set_reserve(&q->set) != CT_OK || rec_reserve(q) != CT_OK) {
		refused_late(q, &u7, in->url, res, &l, NULL);
		return ct_error_set(err, CT_ENOMEM, "out of memory enqueueing %s", in->url);
	}
	char *str = arena_take(&q->arena, pos, bytes);
	memcpy(str, in->url, ul + 1);
	if (differs)
		memcpy(str + ul + 1, l.key, l.len + 1);
	if (big) {
		int32_t d = in->depth;
		memcpy(str + bytes - sizeof(d), &d, sizeof(d));
	}
	uint32_t i = rec_take(q);
	struct fq_rec *rec = rec_at(q, i);
	uint64_t seq = q->next_seq++;
	*rec = (struct fq_rec){
		.off = (uint32_t)pos, .pair = pair,
		.depth = big ? DEPTH_IN_ARENA : (uint16_t)in->depth,
		.priority = r->priority,
		.discovered_ms = discovered_ms,
		.seqbits = seq << 8 | (uint64_t)big << 7 |
			   (uint64_t)src << 4 |
			   (uint64_t)(r->tp & 3) << 2 | (uint64_t)differs << 1 |
			   (uint64_t)(r->queue & 1),
	};
	if (q->cb.host_resume_ms)
		chunk_of(q, i)->deferred[i & (CHUNK - 1)] = 0;
	if (imp) {
		/* the homepage and a seed come first, as in the store */
		bool seed = (u.rest_len == 0 || (u.rest_len == 1 &&
			     in->url[u.rest_start] == '/')) ||
			    (in->discovery_method &&
			     strcmp(in->discovery_method, "seed") == 0);
		struct fq_imp *m = imp_at(q, i);
		m->inlinks = links;
		m->cash = cash;
		r->score = importance_of(links, cash, (double)q->discovered,
					 seed);
		r->cls = ct_class_of(r->score, &q->bounds);
	}
	place(q, h, h->n, (struct fq_ent){ order_key(r->score), i }, false);
	h->n++;
	sift_up(q, h, h->n - 1, imp);
	set_insert(&q->set, l.tag, i + 1);
	lookup_done(&l);
	q->enqueued_total++;
	decide(q, in->url, res, true, NULL, r);
	return CT_OK;
refuse:
	if (have_key)
		lookup_done(&l);
	decide(q, in->url, res, false, why, NULL);
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
		struct lookup l;
		if (!in[i].url || !lookup_of(in[i].url, NULL, &l))
			continue;
		if (queued_index(q, &l) == NO_INDEX) {
			if (h)
				h[m++] = l.hash;
			else
				fresh++;
		}
		lookup_done(&l);
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

/* Copies len bytes of s and a NUL to *cur; returns the copy. */
static char *stash(char **cur, const char *s, size_t len)
{
	char *d = *cur;

	memcpy(d, s, len);
	d[len] = '\0';
	*cur = d + len + 1;
	return d;
}

/* Fills it with record i of heap t in one new block (url, key when it
 * differs, host, type, method). false when allocation fails. */
static bool item_make(const struct ct_fq *q, uint32_t i, uint64_t k,
		      struct ct_fq_item *it)
{
	const struct fq_rec *r = rec_at(q, i);
	const char *type, *method;
	names_of_rec(q, r, &type, &method);
	const char *url = url_of_rec(q, r);
	const char *key = key_of_rec(q, r);
	size_t ul = strlen(url), kl = key_differs(r) ? strlen(key) : 0;
	size_t hs, hl, tl = type ? strlen(type) : 0, ml = method ? strlen(method) : 0;
	key_host(key, &hs, &hl);
	char *b = malloc(ul + 1 + (kl ? kl + 1 : 0) + hl + 1 +
			 (type ? tl + 1 : 0) + (method ? ml + 1 : 0));
	if (!b)
		return false;
	char *cur = b;
	it->url = stash(&cur, url, ul);
	it->key = kl ? stash(&cur, key, kl) : it->url;
	it->host = stash(&cur, key + hs, hl);
	it->type = type ? stash(&cur, type, tl) : NULL;
	it->discovery_method = method ? stash(&cur, method, ml) : NULL;
	it->depth = depth_of_rec(q, r);
	it->priority = r->priority;
	it->score = score_of_key(k);
	it->cls = ct_class_of(it->score, &q->bounds);
	it->priority_source = q->sources[(r->seqbits >> 4) & 7];
	it->queue = queue_of(r);
	it->tp = (ct_tp_class)((r->seqbits >> 2) & 3);
	it->discovered_ms = r->discovered_ms;
	it->inlinks = q->mode == CT_FQ_IMPORTANCE ? imp_at(q, i)->inlinks : 0;
	it->cash = q->mode == CT_FQ_IMPORTANCE ? imp_at(q, i)->cash : 0;
	it->seq = seq_of(r);
	it->deferred_until_ms = q->cb.host_resume_ms ?
		chunk_of(q, i)->deferred[i & (CHUNK - 1)] : 0;
	it->force_cache = false;
	it->block_ = b;
	return true;
}

/* The lower-case host of record i, in buf (n bytes) or, when longer, in
 * a new block (free it when it is not buf); NULL when that allocation
 * fails. */
static char *host_into(const struct ct_fq *q, uint32_t i, char *buf, size_t n)
{
	const char *key = key_of_rec(q, rec_at(q, i));
	size_t hs, hl;

	key_host(key, &hs, &hl);
	if (hl >= n && !(buf = malloc(hl + 1)))
		return NULL;
	memcpy(buf, key + hs, hl);
	buf[hl] = '\0';
	return buf;
}

/* Takes the run's head (it pops before the heap's root) and makes its
 * item, as scan_heap does; fetches the records and strings of the next
 * items of the run meanwhile. */
static ct_status run_take(struct ct_fq *q, struct fq_heap *h,
			  struct ct_fq_pull_result *res, uint32_t *got,
			  uint32_t *tag)
{
	size_t at = h->rhead;
	uint32_t i = h->rix[at];

	if (!item_make(q, i, h->rk[at], &res->item))
		return CT_ENOMEM;
	if (h->ahead[at & 3].pos == at) {
		*tag = h->ahead[at & 3].tag;
	} else {
		*tag = tag_of(res->item.key, strlen(res->item.key));
		__builtin_prefetch(&q->set.slots[home_of(*tag, q->set.cap)]);
	}
	h->rhead = at + 1;
	if (at + RUN_AHEAD_REC < h->rn)
		__builtin_prefetch(rec_at(q, h->rix[at + RUN_AHEAD_REC]));
	if (at + RUN_AHEAD_STR < h->rn)
		__builtin_prefetch(url_of_rec(q, rec_at(q, h->rix[at +
							  RUN_AHEAD_STR])));
	size_t next = at + RUN_AHEAD_TAG;
	if (next < h->rn && h->ahead[next & 3].pos != next) {
		const char *key = key_of_rec(q, rec_at(q, h->rix[next]));
		uint32_t t = tag_of(key, strlen(key));
		h->ahead[next & 3].pos = next;
		h->ahead[next & 3].tag = t;
		__builtin_prefetch(&q->set.slots[home_of(t, q->set.cap)]);
	}
	run_trim(h);
	*got = i;
	return CT_OK;
}

/* Scans at most max_scan items of one heap for one whose host is not
 * deferred at now, and makes its item. Deferred items are parked past
 * the heap's end and put back before returning. Returns the status:
 * CT_OK with *got its record's index and *tag its key's hash when an
 * item was taken out (*got NO_INDEX when none was), CT_ENOMEM when its
 * block could not be made (the heap as it was); updates *wake with the
 * earliest resume time seen. */
static ct_status scan_heap(struct ct_fq *q, struct fq_heap *h, int64_t now,
			   struct ct_fq_pull_result *res, uint32_t *got,
			   uint32_t *tag)
{
	size_t parked = 0;
	int scanned = 0;
	bool track = q->mode == CT_FQ_IMPORTANCE;
	ct_status st = CT_OK;

	*got = NO_INDEX;
	if (run_ok(q)) {
		if (run_due(h))
			run_make(q, h);
		if (h->rhead < h->rn &&
		    (h->n == 0 || before(q, h->rk[h->rhead], h->rix[h->rhead],
					 h->k[0], h->ix[0])))
			return run_take(q, h, res, got, tag);
	}
	while (scanned < q->p.max_scan && h->n > 0) {
		uint32_t i = h->ix[0];
		scanned++;
		if (q->cb.host_resume_ms) {
			char small[256];
			char *host = host_into(q, i, small, sizeof(small));
			if (!host) {
				st = CT_ENOMEM;
				break;
			}
			q->in_callback = true;
			int64_t t = q->cb.host_resume_ms(q->cb.ctx, host);
			q->in_callback = false;
			if (host != small)
				free(host);
			if (t > now) {
				const struct fq_rec *r = rec_at(q, i);
				chunk_of(q, i)->deferred[i & (CHUNK - 1)] = t;
				struct ct_fq_event ev = {
					.kind = CT_FQ_EV_DEFERRED,
					.url = url_of_rec(q, r),
					.priority = r->priority,
					.score = score_of_key(h->k[0]),
					.until_ms = t,
				};
				emit(q, &ev);
				if (!res->has_wake || t < res->wake_ms) {
					res->wake_ms = t;
					res->has_wake = true;
				}
				struct fq_ent e = heap_pop(q, h, track);
				place(q, h, h->n, e, false); /* parked: [n, n + parked) */
				parked++;
				continue;
			}
		}
		if (!item_make(q, i, h->k[0], &res->item)) {
			st = CT_ENOMEM;
			break;
		}
		/* its set slot, fetched while the heap's sift runs */
		*tag = tag_of(res->item.key, strlen(res->item.key));
		__builtin_prefetch(&q->set.slots[home_of(*tag, q->set.cap)]);
		heap_pop(q, h, track);
		/* the hole is at a[n]; parked items sit at [n + 1, n + 1 + parked) */
		if (parked > 0)
			place(q, h, h->n, ent_at(h, h->n + parked), false);
		*got = i;
		break;
	}
	for (size_t k = 0; k < parked; k++) {
		h->n++;
		sift_up(q, h, h->n - 1, track);
	}
	return st;
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
	if (q->turn_pulls >= q->p.burst && heap_len(&q->heap[!q->turn]) > 0) {
		q->turn = (ct_queue_type)!q->turn;
		q->turn_pulls = 0;
	}
	order[0] = q->turn;
	order[1] = (ct_queue_type)!q->turn;
	for (int k = 0; k < 2; k++) {
		ct_queue_type t = order[k];
		uint32_t i, tag = 0;

		if (heap_len(&q->heap[t]) == 0)
			continue;
		ct_status st = scan_heap(q, &q->heap[t], now_ms, res, &i, &tag);
		if (st != CT_OK) {
			res->has_wake = false;
			res->wake_ms = 0;
			return st;
		}
		if (i == NO_INDEX)
			continue;
		struct ct_fq_item *it = &res->item;
		set_remove_at(&q->set, set_find_index(&q->set, tag, i));
		/* its bytes: the item's block begins with the same URL and
		 * key (item_make), the host next */
		rec_free(q, i, (size_t)(it->host - it->url) +
			 (depth_in_arena(rec_at(q, i)) ? sizeof(int32_t) : 0));
		if (t != q->turn) {
			q->turn = t;
			q->turn_pulls = 0;
		}
		if (heap_len(&q->heap[!t]) > 0)
			q->turn_pulls++;
		else
			q->turn_pulls = 0;
		/* seed's forceCache: a rate-limited host's page the cache has */
		if (q->cb.host_rate_limited && q->cb.cache_has) {
			q->in_callback = true;
			it->force_cache =
				q->cb.host_rate_limited(q->cb.ctx, it->host) &&
				q->cb.cache_has(q->cb.ctx, it->url);
			q->in_callback = false;
		}
		struct ct_fq_event ev = {
			.kind = CT_FQ_EV_PULLED, .url = it->url,
			.priority = it->priority, .score = it->score,
			.force_cache = it->force_cache,
		};
		emit(q, &ev);
		/* the next pull's record is likely this heap's new root:
		 * fetch it while the caller works */
		if (q->heap[t].n > 0)
			__builtin_prefetch(rec_at(q, q->heap[t].ix[0]));
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

/* A queued item's heatmap cell: method and type labels. */
struct cell_key {
	const char *method, *type;
};

/* qsort order of cells: method label, then type label. */
static int cell_cmp(const void *a, const void *b)
{
	const struct cell_key *x = a, *y = b;
	int c = strcmp(x->method, y->method);

	return c ? c : strcmp(x->type, y->type);
}

/* Counts queued items per (method, type) and per depth bucket. */
ct_status ct_fq_heatmap(const struct ct_fq *q, struct ct_fq_heatmap *out)
{
	struct cell_key *v;
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
		for (size_t e = 0; e < heap_len(&q->heap[t]); e++) {
			const struct fq_heap *h = &q->heap[t];
			uint32_t i = e < h->n ? h->ix[e] : h->rix[h->rhead + e - h->n];
			const struct fq_rec *r = rec_at(q, i);
			int d = depth_of_rec(q, r);
			const char *type, *method;
			names_of_rec(q, r, &type, &method);
			out->depth[d < 0 ? CT_FQ_DEPTH_UNKNOWN :
				   d >= 3 ? CT_FQ_DEPTH_3_PLUS : d]++;
			v[k++] = (struct cell_key){ label(method), label(type) };
		}
	qsort(v, n, sizeof(*v), cell_cmp);
	for (size_t i = 0; i < n; i++) {
		if (i == 0 || cell_cmp(&v[i - 1], &v[i]) != 0) {
			cells++;
			bytes += strlen(v[i].method) + 1 + strlen(v[i].type) + 1;
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
			c->method = stash(&cur, v[i].method, strlen(v[i].method));
			c->type = stash(&cur, v[i].type, strlen(v[i].type));
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
