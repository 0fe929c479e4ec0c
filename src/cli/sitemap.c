/* sitemap.c: the streaming sitemap reader (sitemap.h) over libxml2's
 * xmlTextReader. The reader walks the document node by node; this file
 * keeps a small state machine of where it is (root, entry, <loc>) and
 * collects one <loc>'s text at a time. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libxml/xmlreader.h>

#include "sitemap.h"
#include "urlpath.h"

#if LIBXML_VERSION >= 21200
typedef const xmlError *sm_error_ptr;
#else
typedef xmlErrorPtr sm_error_ptr;
#endif

/* Bytes of white space a <loc> may carry around its text beyond the limit
 * before it is refused without being read further. */
#define LOC_SLACK 4096
/* sitemaps.org: an index lists at most 50,000 sitemaps. */
#define MAX_CHILDREN 50000

enum kind { K_NONE, K_URLSET, K_INDEX };

/* A child sitemap named by an index. */
struct child {
	char *file;
	long line;
};

/* The state of one sitemap_read call. */
struct sm {
	const struct sitemap_opts *o;
	sitemap_loc_fn *fn;
	void *ctx;
	long urls;              /* entries counted so far, over all files */
	char *err;
	size_t errlen;
	char xmlerr[512];       /* libxml2's first error of the current file */
	long xmlline;
	/* with an error at the end of the document (XML_ERR_DOCUMENT_END,
	 * libxml2's "Extra content at the end of the document", said both
	 * of content after the root element and of a root never closed):
	 * which of the two, and the elements concerned */
	int xmlend;             /* 0 no such error, 1 after the root, 2 open */
	char xmlroot[64];       /* the root element's name, or "" */
	char xmlinner[64];      /* the innermost element left open, or "" */
	int xmlopen;            /* elements left open */
	/* the file being read */
	const char *file;
	enum kind kind;
	int in_entry, in_loc, locs;
	long entry_line, loc_line;
	char *buf;              /* the <loc> text being collected */
	size_t len, cap;
	/* an index's children */
	struct child *kids;
	size_t nkids, capkids;
};

/* Fill the caller's message: "FILE:LINE: what" (line 0: no line). */
static int fail(struct sm *m, long line, const char *fmt, ...)
{
	char what[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	if (line > 0)
		snprintf(m->err, m->errlen, "%s:%ld: %s", m->file, line, what);
	else
		snprintf(m->err, m->errlen, "%s: %s", m->file, what);
	return -1;
}

/* An error at the end of the document: libxml2's reader says "Extra
 * content at the end of the document" both of content after the root
 * element and of a file that ends inside it, and may say it before it
 * has given the root element to the reader (a small file is parsed in one
 * chunk). Its parser knows which: the elements still open (none once the
 * root has ended), and the root in the document built so far. */
static void end_error(struct sm *m, xmlParserCtxtPtr ctxt)
{
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif
	xmlNodePtr root = ctxt->myDoc ? xmlDocGetRootElement(ctxt->myDoc) : NULL;
	int open = ctxt->nameNr;
	const xmlChar *inner = open > 0 ? ctxt->name : NULL;
	const xmlChar *outer = open > 0 && ctxt->nameTab ? ctxt->nameTab[0] : NULL;
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
	if (!outer && root)
		outer = root->name;
	if (!outer)
		return; /* no root element met: not an XML document */
	m->xmlend = open > 0 ? 2 : 1;
	m->xmlopen = open;
	snprintf(m->xmlroot, sizeof m->xmlroot, "%s", (const char *)outer);
	snprintf(m->xmlinner, sizeof m->xmlinner, "%s",
		 inner ? (const char *)inner : "");
}

/* libxml2's errors: keep the first of the file (with its line). */
static void on_error(void *arg, sm_error_ptr e)
{
	struct sm *m = arg;
	if (m->xmlerr[0] || !e)
		return;
	snprintf(m->xmlerr, sizeof m->xmlerr, "%s",
		 e->message ? e->message : "XML error");
	size_t l = strlen(m->xmlerr);
	while (l && (m->xmlerr[l - 1] == '\n' || m->xmlerr[l - 1] == ' '))
		m->xmlerr[--l] = '\0';
	m->xmlline = e->line;
	if (e->code == XML_ERR_DOCUMENT_END && e->domain == XML_FROM_PARSER &&
	    e->ctxt)
		end_error(m, e->ctxt);
}

/* libxml2's generic (unstructured) messages: never printed. */
static void quiet(void *ctx, const char *msg, ...)
{
}

/* Is (ns, local) the sitemaps.org element `name`? No namespace counts. */
static int is_el(const xmlChar *ns, const xmlChar *local, const char *name)
{
	return (!ns || strcmp((const char *)ns, SITEMAP_NS) == 0) &&
	       strcmp((const char *)local, name) == 0;
}

/* Append n bytes of <loc> text; the length past the limit is still
 * counted so that the message can say how long it was. */
static int loc_text(struct sm *m, const char *s, size_t n)
{
	if (m->len + n > m->o->max_loc + LOC_SLACK)
		return fail(m, m->loc_line, "<loc> is longer than the store's "
			    "limit of %zu bytes", m->o->max_loc);
	if (m->len + n + 1 > m->cap) {
		size_t cap = m->cap ? m->cap : 256;
		while (cap < m->len + n + 1)
			cap *= 2;
		char *b = realloc(m->buf, cap);
		if (!b)
			return fail(m, m->loc_line, "out of memory");
		m->buf = b;
		m->cap = cap;
	}
	memcpy(m->buf + m->len, s, n);
	m->len += n;
	m->buf[m->len] = '\0';
	return 0;
}

/* A complete <loc>: trim it, check the limits, deliver or keep it. */
static int loc_done(struct sm *m)
{
	char *s = m->buf ? m->buf : "";
	size_t n = m->len;
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' ||
		     s[n - 1] == '\r'))
		s[--n] = '\0';
	while (n && (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r'))
		s++, n--;
	if (n == 0)
		return fail(m, m->loc_line, "<loc> is empty");
	if (n > m->o->max_loc)
		return fail(m, m->loc_line, "<loc> is %zu bytes, longer than the "
			    "store's limit of %zu bytes", n, m->o->max_loc);
	if (m->kind == K_INDEX) {
		if (m->nkids == MAX_CHILDREN)
			return fail(m, m->loc_line, "the index lists more than "
				    "%d sitemaps (the sitemaps.org limit)",
				    MAX_CHILDREN);
		if (m->nkids == m->capkids) {
			size_t cap = m->capkids ? m->capkids * 2 : 16;
			struct child *k = realloc(m->kids, cap * sizeof *k);
			if (!k)
				return fail(m, m->loc_line, "out of memory");
			m->kids = k;
			m->capkids = cap;
		}
		char *f = strdup(s);
		if (!f)
			return fail(m, m->loc_line, "out of memory");
		m->kids[m->nkids++] = (struct child){f, m->loc_line};
		return 0;
	}
	if (++m->urls > m->o->max_urls)
		return fail(m, m->loc_line, "more than %ld URLs: split the "
			    "sitemap (the limit keeps one enqueue bounded)",
			    m->o->max_urls);
	int rc = m->fn(m->ctx, s, n, m->file, m->loc_line);
	return rc;
}

/* The line of the reader's current node. The parser's own line runs
 * ahead of the node (it parses in chunks); the node keeps the line it was
 * parsed on (all of it with XML_PARSE_BIG_LINES). */
static long node_line(xmlTextReaderPtr r)
{
	xmlNodePtr n = xmlTextReaderCurrentNode(r);
	long line = n ? xmlGetLineNo(n) : -1;
	return line > 0 ? line : xmlTextReaderGetParserLineNumber(r);
}

/* An element starts (depth d). */
static int element(struct sm *m, xmlTextReaderPtr r, int d, int child)
{
	const xmlChar *local = xmlTextReaderConstLocalName(r);
	const xmlChar *ns = xmlTextReaderConstNamespaceUri(r);
	long line = node_line(r);
	int empty = xmlTextReaderIsEmptyElement(r);
	if (d == 0) {
		if (is_el(ns, local, "urlset")) {
			m->kind = K_URLSET;
		} else if (is_el(ns, local, "sitemapindex")) {
			if (child)
				return fail(m, line, "a sitemap index lists "
					    "another index: only one level is "
					    "allowed");
			m->kind = K_INDEX;
		} else {
			return fail(m, line, "the root element is <%s>%s%s, not a "
				    "sitemaps.org <urlset> or <sitemapindex>",
				    local, ns ? " in namespace " : "",
				    ns ? (const char *)ns : "");
		}
		return 0;
	}
	if (d == 1 && is_el(ns, local, m->kind == K_URLSET ? "url" : "sitemap")) {
		m->in_entry = 1;
		m->locs = 0;
		m->entry_line = line;
		if (empty)
			return fail(m, line, "<%s> without <loc>", local);
		return 0;
	}
	if (d == 2 && m->in_entry && is_el(ns, local, "loc")) {
		if (m->locs++)
			return fail(m, line, "a second <loc> in one <%s>",
				    m->kind == K_URLSET ? "url" : "sitemap");
		m->loc_line = line;
		m->len = 0;
		if (empty)
			return fail(m, line, "<loc> is empty");
		m->in_loc = 1;
		return 0;
	}
	if (m->in_loc)
		return fail(m, line, "<loc> holds an element <%s>", local);
	return 0;
}

/* The element at depth d ends. */
static int element_end(struct sm *m, int d)
{
	if (d == 2 && m->in_loc) {
		m->in_loc = 0;
		return loc_done(m);
	}
	if (d == 1 && m->in_entry) {
		m->in_entry = 0;
		if (m->locs == 0)
			return fail(m, m->entry_line, "<%s> without <loc>",
				    m->kind == K_URLSET ? "url" : "sitemap");
	}
	return 0;
}

/* A regular file's first bytes: refuse an empty file, a gzip file and
 * one that cannot be UTF-8 XML (a NUL byte, or no '<' first after an
 * optional byte order mark and white space) before libxml2 guesses. */
static int looks_wrong(struct sm *m, int fd, off_t size)
{
	unsigned char head[512];
	ssize_t n = pread(fd, head, sizeof head, 0);
	if (size == 0 || n == 0)
		return fail(m, 0, "the file is empty: not a sitemap");
	if (n < 0)
		return fail(m, 0, "cannot read: %s", strerror(errno));
	if (n >= 2 && head[0] == 0x1f && head[1] == 0x8b)
		return fail(m, 0, "the file is gzip-compressed: gunzip it first");
	ssize_t i = 0;
	if (n >= 3 && head[0] == 0xef && head[1] == 0xbb && head[2] == 0xbf)
		i = 3;
	while (i < n && (head[i] == ' ' || head[i] == '\t' || head[i] == '\r' ||
			 head[i] == '\n'))
		i++;
	if ((i < n && head[i] != '<') || memchr(head, 0, (size_t)n))
		return fail(m, 0, "not an XML document (binary data?): a "
			    "sitemap is UTF-8 XML starting with '<'");
	return 0;
}

/* Open path ("-" = stdin) for reading; -1 with the message on failure.
 * A file an index names (child) must be a regular file: the index is
 * someone else's text, and a FIFO it named would hold the enqueue (and
 * its transaction) for as long as nobody writes to it, a device would be
 * read as it is. The file named on the command line may also be a pipe
 * (`--sitemap <(zcat sitemap.xml.gz)`), as standard input may. The open
 * itself does not wait (O_NONBLOCK: a FIFO without a writer would block
 * it); the reads do, once the file is known to be one to read. */
static int open_file(struct sm *m, const char *path, int child)
{
	if (strcmp(path, "-") == 0)
		return dup(STDIN_FILENO);
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return fail(m, 0, "cannot open: %s", strerror(errno));
	struct stat st;
	int flags;
	if (fstat(fd, &st) != 0 || (flags = fcntl(fd, F_GETFL)) < 0) {
		fail(m, 0, "cannot read: %s", strerror(errno));
		close(fd);
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		close(fd);
		return fail(m, 0, "cannot read: it is a directory");
	}
	if (!S_ISREG(st.st_mode) && (child || !S_ISFIFO(st.st_mode))) {
		close(fd);
		return fail(m, 0, "not a regular file (%s): %s",
			    S_ISFIFO(st.st_mode) ? "a FIFO" :
			    S_ISCHR(st.st_mode) ? "a character device" :
			    S_ISBLK(st.st_mode) ? "a block device" :
			    S_ISSOCK(st.st_mode) ? "a socket" : "not a file",
			    child ? "a sitemap index names sitemap files" :
			    "a sitemap is a file, a pipe or - (standard input)");
	}
	if (S_ISREG(st.st_mode) && looks_wrong(m, fd, st.st_size) != 0) {
		close(fd);
		return -1;
	}
	if (S_ISFIFO(st.st_mode)) {
		/* the command line's pipe: opened again to wait for its
		 * writer, as cat would (read at once, a FIFO whose writer
		 * has not opened it yet would read as empty) */
		close(fd);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return fail(m, 0, "cannot open: %s", strerror(errno));
		return fd;
	}
	if (fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
		fail(m, 0, "cannot read: %s", strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* Read one file (a child of an index when child is set). */
static int read_file(struct sm *m, const char *path, const char *shown,
		     int child)
{
	m->file = shown;
	m->kind = K_NONE;
	m->in_entry = m->in_loc = 0;
	m->xmlerr[0] = '\0';
	m->xmlline = 0;
	m->xmlend = 0;
	int fd = open_file(m, path, child);
	if (fd < 0)
		return -1;
	xmlTextReaderPtr r = xmlReaderForFd(fd, shown, NULL,
					    XML_PARSE_NONET | XML_PARSE_NOCDATA |
					    XML_PARSE_BIG_LINES);
	if (!r) {
		close(fd);
		return fail(m, 0, "cannot start the XML reader");
	}
	xmlTextReaderSetStructuredErrorHandler(r, on_error, m);
	int ret, rc = 0;
	while (rc == 0 && (ret = xmlTextReaderRead(r)) == 1) {
		int type = xmlTextReaderNodeType(r);
		int d = xmlTextReaderDepth(r);
		if (type == XML_READER_TYPE_ELEMENT) {
			rc = element(m, r, d, child);
		} else if (type == XML_READER_TYPE_END_ELEMENT) {
			rc = element_end(m, d);
		} else if (m->in_loc && (type == XML_READER_TYPE_TEXT ||
			   type == XML_READER_TYPE_CDATA ||
			   type == XML_READER_TYPE_WHITESPACE ||
			   type == XML_READER_TYPE_SIGNIFICANT_WHITESPACE)) {
			const xmlChar *v = xmlTextReaderConstValue(r);
			if (v)
				rc = loc_text(m, (const char *)v,
					      strlen((const char *)v));
		} else if (m->in_loc &&
			   type == XML_READER_TYPE_ENTITY_REFERENCE) {
			/* not expanded (no XML_PARSE_NOENT): dropping it
			 * would enqueue another URL than the one written */
			rc = fail(m, node_line(r), "<loc> holds the entity "
				  "reference &%s;: a sitemap's entities are "
				  "not expanded", xmlTextReaderConstName(r));
		}
	}
	if (rc == 0 && ret != 0) {
		/* libxml2's words for the end of a document say neither
		 * which end nor what is wrong with it */
		if (m->xmlend == 1)
			rc = fail(m, m->xmlline, "content after the root "
				  "element </%s>: a sitemap is one <urlset> or "
				  "<sitemapindex> element", m->xmlroot);
		else if (m->xmlend == 2 && m->xmlopen > 1)
			rc = fail(m, m->xmlline, "the element <%s> is not "
				  "closed, nor the root element <%s> (the file "
				  "ends at line %ld)", m->xmlinner, m->xmlroot,
				  m->xmlline);
		else if (m->xmlend == 2)
			rc = fail(m, m->xmlline, "the root element <%s> is "
				  "not closed (the file ends at line %ld)",
				  m->xmlroot, m->xmlline);
		/* no root element met: libxml2's words for an empty or
		 * binary input do not say so */
		else if (m->kind == K_NONE &&
		    (strncmp(m->xmlerr, "Document is empty", 17) == 0 ||
		     strncmp(m->xmlerr, "Start tag expected", 18) == 0 ||
		     strncmp(m->xmlerr, "Extra content at the end", 24) == 0))
			rc = fail(m, m->xmlline, "not an XML document (empty, "
				  "or binary data?): a sitemap is UTF-8 XML "
				  "starting with '<'");
		else if (m->xmlerr[0])
			rc = fail(m, m->xmlline, "malformed XML: %s", m->xmlerr);
		else
			rc = fail(m, xmlTextReaderGetParserLineNumber(r),
				  "malformed XML");
	}
	if (rc == 0 && m->kind == K_NONE)
		rc = fail(m, 0, "no root element: not a sitemap");
	xmlFreeTextReader(r);
	close(fd);
	return rc;
}

/* The local file an index's <loc> names, beside the index at ipath; NULL
 * with the message when it names none. The caller frees it. */
static char *child_path(struct sm *m, const char *ipath, const struct child *k)
{
	const char *name = k->file;
	size_t n = strlen(name);
	if (strncmp(name, "http://", 7) == 0 || strncmp(name, "https://", 8) == 0) {
		char why[256];
		char *path = m->o->domain ? malloc(n + 2) : NULL;
		enum urlpath_result r = path ?
			urlpath_of(name, n, m->o->domain, 0, n + 1, path, n + 2,
				   why, sizeof why) : URLPATH_OK;
		free(path);
		if (r == URLPATH_FOREIGN) {
			fail(m, k->line, "%s: a sitemap index lists the sitemaps "
			     "of its own host", why);
			return NULL;
		}
		/* past the scheme's "//" (name may be "http://" and no more) */
		const char *p = strchr(name + (name[4] == 's' ? 8 : 7), '/');
		if (!p) {
			fail(m, k->line, "<loc> %s names no file", k->file);
			return NULL;
		}
		n = strcspn(p, "?#");
		const char *slash = p;
		for (const char *q = p; q < p + n; q++)
			if (*q == '/')
				slash = q;
		name = slash + 1;
		n = (size_t)(p + n - name);
	} else if (strstr(name, "://") || name[0] == '/') {
		fail(m, k->line, "<loc> %s: an index names local files by a "
		     "relative name or an http(s) URL (no network)", k->file);
		return NULL;
	}
	if (n == 0 || (n == 2 && strncmp(name, "..", 2) == 0) ||
	    strstr(name, "../") == name || strstr(name, "/../")) {
		fail(m, k->line, "<loc> %s names no file beside the index",
		     k->file);
		return NULL;
	}
	const char *slash = strcmp(ipath, "-") == 0 ? NULL : strrchr(ipath, '/');
	size_t dl = slash ? (size_t)(slash - ipath) + 1 : 0;
	char *out = malloc(dl + n + 1);
	if (!out) {
		fail(m, k->line, "out of memory");
		return NULL;
	}
	memcpy(out, ipath, dl);
	memcpy(out + dl, name, n);
	out[dl + n] = '\0';
	return out;
}

int sitemap_read(const char *path, const struct sitemap_opts *o,
		 sitemap_loc_fn *fn, void *ctx, char *err, size_t errlen)
{
	struct sm m = {.o = o, .fn = fn, .ctx = ctx, .err = err,
		       .errlen = errlen};
	xmlInitParser();
	xmlSetGenericErrorFunc(NULL, quiet);
	int rc = read_file(&m, path, strcmp(path, "-") == 0 ? "stdin" : path, 0);
	if (rc == 0 && m.kind == K_INDEX) {
		struct child *kids = m.kids;
		size_t n = m.nkids;
		m.kids = NULL;
		m.nkids = m.capkids = 0;
		for (size_t i = 0; rc == 0 && i < n; i++) {
			m.file = path;
			char *p = child_path(&m, path, &kids[i]);
			rc = p ? read_file(&m, p, p, 1) : -1;
			free(p);
		}
		for (size_t i = 0; i < n; i++)
			free(kids[i].file);
		free(kids);
	}
	for (size_t i = 0; i < m.nkids; i++)
		free(m.kids[i].file);
	free(m.kids);
	free(m.buf);
	return rc;
}

void sitemap_done(void)
{
	xmlCleanupParser();
}
