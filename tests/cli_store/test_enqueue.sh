#!/usr/bin/env bash
# test_enqueue.sh CRAWLTOP: `crawltop enqueue` against a throwaway
# cluster: sitemaps (namespaced, extensions, CDATA, entities, an index of
# local files, 60,000 URLs) and URL lists, then bad input: a foreign host,
# malformed XML, a <loc> over the store's limit, too many URLs, binary
# garbage in files and on stdin, C1 controls and Unicode white space,
# missing, empty and compressed files, an unknown job, a read-only role.
# Refusals come after full batches were sent, so "database unchanged" shows
# the whole file is one transaction.
# Last, frontier, freshness and discovery jobs' tasks are scored with the
# store's settings version, not with the configuration file's.
set -u
CT=$1
here=$(dirname "$0")
. "$here/../cli/tap.sh"
. "$here/lib.sh"
db_setup cli_enqueue
export CRAWLTOP_DSN=$DSN
T=$(mktemp -d "${TMPDIR:-/tmp}/ct-enq.XXXXXX")
trap 'rm -rf "$T"' EXIT
"$CT" job create site --domain example.com --mode hierarchy >/dev/null
"$CT" job create big --domain big.example --mode hierarchy >/dev/null
"$CT" job create front --domain example.com --mode frontier >/dev/null
"$CT" job create disc --domain example.com --mode discovery >/dev/null
paths() { # JOB: its task paths and source types, in task order
	q "SELECT string_agg(p.path || '=' || t.source_type, ' ' ORDER BY t.id)
	   FROM crawltop.tasks t JOIN crawltop.pages p ON p.id = t.page_id
	   JOIN crawltop.jobs j ON j.id = t.job_id WHERE j.name = '$1'"
}

# ---- sitemaps ----------------------------------------------------------
cat >"$T/small.xml" <<'EOF'
<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"
        xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
  <url><loc>https://example.com/</loc><lastmod>2024-01-01</lastmod></url>
  <url>
    <loc>
      HTTPS://Example.COM:443/a/b?x=1&amp;y=2#top
    </loc>
    <image:image><image:loc>https://cdn.elsewhere.net/x.png</image:loc></image:image>
  </url>
  <url><loc><![CDATA[http://example.com/c]]></loc><priority>0.5</priority></url>
</urlset>
EOF
run enqueue --job site --sitemap "$T/small.xml"
ok_eq "sitemap: exit 0" "$RC" 0
ok_match "sitemap: says what it did" "$OUT" \
	'^enqueued 3 URLs from .*small\.xml into job site \(1\): 3 new tasks, 0 already queued'
ok_eq "sitemap: paths (query kept, fragment dropped), source sitemap" "$(paths site)" \
	"/=sitemap /a/b?x=1&y=2=sitemap /c=sitemap"
ok_eq "sitemap: hierarchy scores (root 100, sitemap 50)" \
	"$(q "SELECT string_agg(score::text, ' ' ORDER BY id) FROM crawltop.tasks WHERE job_id = 1")" "100 50 50"
run enqueue --job site --sitemap "$T/small.xml"
ok_match "again: nothing new" "$OUT" '0 new tasks, 3 already queued'

mkdir "$T/idx"
urlset 2 example.com 10 >"$T/idx/part-1.xml"
urlset 2 example.com 20 >"$T/idx/part-2.xml"
cat >"$T/idx/index.xml" <<'EOF'
<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <sitemap><loc>part-1.xml</loc></sitemap>
  <sitemap><loc>https://example.com/sitemaps/part-2.xml</loc><lastmod>2024-01-01</lastmod></sitemap>
</sitemapindex>
EOF
run enqueue --job site --sitemap "$T/idx/index.xml"
ok_eq "sitemap index of local files: exit 0" "$RC" 0
ok_match "sitemap index: both children" "$OUT" 'enqueued 4 URLs .* 4 new tasks'
# an index naming a sitemap of another host: refused, nothing enqueued
cat >"$T/idx/foreign.xml" <<'EOF'
<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <sitemap><loc>part-1.xml</loc></sitemap>
  <sitemap><loc>https://cdn.other.org/part-2.xml</loc></sitemap>
</sitemapindex>
EOF
before=$(paths site)
run enqueue --job site --sitemap "$T/idx/foreign.xml"
ok_eq "sitemap index naming another host: exit 1" "$RC" 1
ok_match "... names the file, line and host" "$OUT" \
	'foreign\.xml:4: .*cdn\.other\.org.*a sitemap index lists the sitemaps of its own host'
ok_eq "... nothing enqueued" "$(paths site)" "$before"

run enqueue --job front --sitemap "$T/small.xml"
ok_eq "frontier job: the engine scores the URLs" \
	"$(q "SELECT count(*) FILTER (WHERE score > 0 AND score < 100) FROM crawltop.tasks WHERE job_id = 3")" 3
run enqueue --job disc --sitemap "$T/small.xml"
ok_eq "discovery job: unranked URLs at the P2 bound" \
	"$(q "SELECT string_agg(DISTINCT score::text || '/' || class, ',') FROM crawltop.tasks WHERE job_id = 4")" "40/2"

urlset 60000 big.example >"$T/huge.xml"
start=$(date +%s.%N)
run enqueue --job big --sitemap "$T/huge.xml"
secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
ok_eq "60,000-URL sitemap: exit 0" "$RC" 0
ok_match "60,000-URL sitemap: all new" "$OUT" 'enqueued 60000 URLs .* 60000 new tasks'
ok_eq "60,000-URL sitemap: in the store" "$(q "SELECT total_pages FROM crawltop.jobs WHERE name = 'big'")" 60000
echo "# 60,000-URL sitemap enqueued in $secs s"

# ---- URL lists ---------------------------------------------------------
printf '# a comment\n\n/list/1\nhttps://example.com/list/2\n   /list/3   \r\n  # indented comment\nhttp://example.com:80\n' >"$T/list.txt"
run enqueue --job site --urls "$T/list.txt"
ok_eq "--urls: exit 0" "$RC" 0
ok_match "--urls: four URLs, one already queued ('/')" "$OUT" 'enqueued 4 URLs .* 3 new tasks, 1 already queued'
ok_eq "--urls: source manual" "$(q "SELECT count(*) FROM crawltop.tasks t JOIN crawltop.pages p ON p.id = t.page_id WHERE p.path LIKE '/list/%' AND t.source_type = 'manual'")" 3
printf '/stdin/1\n/stdin/2\n' | "$CT" enqueue --job site --urls - >/dev/null
ok_eq "--urls -: reads stdin" "$(q "SELECT count(*) FROM crawltop.pages WHERE path LIKE '/stdin/%'")" 2
# a byte order mark before the first line (it was refused as part of the URL)
OUT=$(printf '\xef\xbb\xbf/bom/1\n/bom/2\n' | "$CT" enqueue --job site --urls - 2>&1)
ok_match "--urls with a byte order mark: read" "$OUT" '^enqueued 2 URLs from stdin'
ok_eq "--urls with a byte order mark: the first path without it" \
	"$(q "SELECT string_agg(path, ' ' ORDER BY path) FROM crawltop.pages WHERE path LIKE '/bom/%'")" "/bom/1 /bom/2"
# stdin closed: an empty list, not the database socket read as stdin
before=$(state)
OUT=$("$CT" enqueue --job site --urls - 2>&1 <&-)
RC=$?
ok_eq "--urls - with stdin closed: exit 0" "$RC" 0
ok_match "--urls - with stdin closed: nothing to enqueue" "$OUT" '^enqueued 0 URLs from stdin'
ok_unchanged "--urls - with stdin closed" "$before"
# one page, one path: dot segments resolved (RFC 3986), the query untouched
printf '/dots/a/../b\nhttps://example.com/dots/./c/..\n/dots/x/../../../d?q=/../e\n/dots/b\n' |
	"$CT" enqueue --job site --urls - >/dev/null
ok_eq "--urls: dot segments resolved, one page per path" \
	"$(q "SELECT string_agg(path, ' ' ORDER BY path) FROM crawltop.pages WHERE path LIKE '/dots/%' OR path LIKE '/d?%'")" \
	"/d?q=/../e /dots/ /dots/b"
# one page, one path: the spellings of a character are one (RFC 3986
# 6.2.2, RFC 3987): raw UTF-8 and its escapes in either case are the
# character, an unreserved character's escape is the character, an escaped
# '.' segment is a dot segment, other escapes stay in upper case
printf '/pc/caf\303\251\n/pc/caf%%C3%%A9\n/pc/caf%%c3%%a9\n/pc/%%7Euser\n/pc/~user\n/pc/a/%%2e%%2e/b\n/pc/x%%2fy\n/pc/x%%2Fy\n/pc/sp%%20ace\n/pc/nb%%C2%%A0sp\n/pc/bad%%FF\n/pc/nul%%00.html\n' |
	"$CT" enqueue --job site --urls - >/dev/null
ok_eq "--urls: escapes normalised, one page per path" \
	"$(q "SELECT string_agg(path, ' ' ORDER BY path COLLATE \"C\") FROM crawltop.pages WHERE path LIKE '/pc/%'")" \
	"/pc/b /pc/bad%FF /pc/caf$(printf '\303\251') /pc/nb%C2%A0sp /pc/nul%00.html /pc/sp%20ace /pc/x%2Fy /pc/~user"
# invisible characters (a right-to-left override, a zero-width space, a
# byte order mark) stay escaped, and written raw are escaped: one path,
# which no terminal turns around
printf '/iv/a%%E2%%80%%AEb\n/iv/a\342\200\256b\n/iv/z%%e2%%80%%8bw\n/iv/\357\273\277bom\n' |
	"$CT" enqueue --job site --urls - >/dev/null
ok_eq "--urls: invisible characters kept escaped, one page per path" \
	"$(q "SELECT string_agg(path, ' ' ORDER BY path COLLATE \"C\") FROM crawltop.pages WHERE path LIKE '/iv/%'")" \
	"/iv/%EF%BB%BFbom /iv/a%E2%80%AEb /iv/z%E2%80%8Bw"
run enqueue --job site --urls <(printf '/pc/ok\n/pc/50%%\n')
ok_eq "--urls: a '%' that starts no escape: exit 1" "$RC" 1
ok_match "--urls: a '%' that starts no escape: line and byte" "$OUT" \
	":2: '/pc/50%' is refused: the '%' at byte 7 of its path does not start a %XX escape"

# ---- bad input: message, exit status, nothing changed -------------------
# A <urlset> of 1,100 good URLs (FROM on), then LINE as line 1103 of
# the file, then its end.
urlset_then() { # FROM LINE
	urlset 1100 example.com "$1" | sed '$d'
	echo "$2"
	echo '</urlset>'
}
before=$(state)
urlset_then 100 '  <url><loc>https://evil.example.org/x</loc></url>' >"$T/foreign.xml"
run enqueue --job site --sitemap "$T/foreign.xml"
ok_eq "foreign host after a full batch: exit 1" "$RC" 1
ok_match "foreign host: names file, line and host; the whole file is refused" "$OUT" \
	"foreign\.xml:1103: 'https://evil\.example\.org/x' is refused: its host 'evil\.example\.org' is not the job's domain 'example\.com'; nothing was enqueued"
ok_unchanged "foreign host" "$before"

urlset_then 5000 '  <url><loc>https://example.com/x</loc>' >"$T/malformed.xml"
run enqueue --job site --sitemap "$T/malformed.xml"
ok_eq "malformed XML: exit 1" "$RC" 1
ok_match "malformed XML: libxml2's message with the line" "$OUT" \
	'malformed\.xml:1104: malformed XML: Opening and ending tag mismatch: url line 1103 and urlset'
ok_unchanged "malformed XML" "$before"

long=$(head -c 3000 /dev/zero | tr '\0' 'a')
urlset_then 9000 "  <url><loc>https://example.com/$long</loc></url>" >"$T/long.xml"
run enqueue --job site --sitemap "$T/long.xml"
ok_eq "<loc> over the limit: exit 1" "$RC" 1
ok_match "<loc> over the limit: says so" "$OUT" \
	"long\.xml:1103: <loc> is 3020 bytes, longer than the store's limit of 2048 bytes"
ok_unchanged "<loc> over the limit" "$before"
echo "/$long" >"$T/long.txt"
run enqueue --job site --urls "$T/long.txt"
ok_match "--urls line over the limit: says so" "$OUT" "longer than the store's limit of 2048 bytes"

urlset 1001 example.com 20000 >"$T/many.xml"
run enqueue --job site --sitemap "$T/many.xml" --max-urls 1000
ok_eq "more URLs than --max-urls: exit 1" "$RC" 1
ok_match "more URLs than --max-urls: says so" "$OUT" 'many\.xml:1003: more than 1000 URLs'
ok_unchanged "too many URLs" "$before"

head -c 65536 /dev/urandom >"$T/garbage.bin"
run enqueue --job site --sitemap "$T/garbage.bin"
ok_eq "binary file as sitemap: exit 1" "$RC" 1
ok_match "binary file as sitemap: not XML" "$OUT" 'garbage\.bin: not an XML document \(binary data\?\)'
run enqueue --job site --urls "$T/garbage.bin"
ok_eq "binary file as URL list: exit 1" "$RC" 1
ok_match "binary file as URL list: names the line" "$OUT" 'garbage\.bin:[0-9]+: '
OUT=$("$CT" enqueue --job site --sitemap - <"$T/garbage.bin" 2>&1); RC=$?
ok_eq "binary garbage on stdin as sitemap: exit 1" "$RC" 1
ok_match "binary garbage on stdin as sitemap: malformed or not XML" "$OUT" '^crawltop enqueue: stdin:[0-9]+: (malformed XML: |not an XML document)'
OUT=$("$CT" enqueue --job site --urls - <"$T/garbage.bin" 2>&1); RC=$?
ok_eq "binary garbage on stdin as URL list: exit 1" "$RC" 1
ok_match "binary garbage on stdin as URL list: a clear line" "$OUT" \
	'^crawltop enqueue: stdin:[0-9]+: .*(is refused: |holds a NUL byte)'
OUT=$(: | "$CT" enqueue --job site --sitemap - 2>&1); RC=$?
ok_eq "empty stdin as sitemap: exit 1" "$RC" 1
ok_match "empty stdin as sitemap: not an XML document" "$OUT" 'stdin:[0-9]+: not an XML document \(empty, or binary data\?\)'
cat >"$T/entity.xml" <<'EOF'
<?xml version="1.0"?>
<!DOCTYPE urlset [ <!ENTITY xxe SYSTEM "file:///etc/hostname"> ]>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc>https://example.com/ent/&xxe;</loc></url>
</urlset>
EOF
run enqueue --job site --sitemap "$T/entity.xml"
ok_eq "an entity reference in <loc>: exit 1" "$RC" 1
ok_match "an entity reference in <loc>: named, not expanded nor dropped" "$OUT" \
	"entity\.xml:4: <loc> holds the entity reference &xxe;: a sitemap's entities are not expanded"
printf '/ok/1\n/ok/\0bad\n' >"$T/nul.txt"
run enqueue --job site --urls "$T/nul.txt"
ok_match "a NUL byte in a URL list" "$OUT" 'nul\.txt:2: the line holds a NUL byte'
ok_unchanged "binary garbage" "$before"

# characters the store's path_ok refuses ([[:space:][:cntrl:]]) are refused
# while reading, with the file and line: a C1 control (U+0085, NEL), as a
# character reference in a <loc> after 1,100 URLs and as UTF-8 in a URL
# list; and Unicode white space, which a database in a UTF-8 locale refuses
urlset_then 30000 '  <url><loc>https://example.com/c1/x&#x85;y</loc></url>' >"$T/c1.xml"
run enqueue --job site --sitemap "$T/c1.xml"
ok_eq "a C1 control in a <loc> (&#x85;): exit 1" "$RC" 1
ok_match "a C1 control in a <loc> (&#x85;): names file and line, shows it escaped" "$OUT" \
	"c1\.xml:1103: 'https://example\.com/c1/x\\\\xc2\\\\x85y' is refused: it holds white space or a control character \(byte 25\); nothing was enqueued"
printf '/c1/1\nhttps://example.com/c1/x\302\205y\n' >"$T/c1.txt"
run enqueue --job site --urls "$T/c1.txt"
ok_eq "a C1 control in a URL list: exit 1" "$RC" 1
ok_match "a C1 control in a URL list: names file and line" "$OUT" \
	"c1\.txt:2: 'https://example\.com/c1/x\\\\xc2\\\\x85y' is refused: it holds white space or a control character \(byte 25\)"
printf '/c1/1\n/c1/\342\200\250\n/c1/3\n' >"$T/ls.txt"
run enqueue --job site --urls "$T/ls.txt"
ok_match "a Unicode line separator (U+2028) in a URL list: names file and line" "$OUT" \
	"ls\.txt:2: '/c1/.*' is refused: it holds white space or a control character \(byte 5\)"
ok_unchanged "C1 controls and Unicode white space" "$before"

run enqueue --job site --sitemap "$T/missing.xml"
ok_eq "missing file: exit 1" "$RC" 1
ok_match "missing file: says so" "$OUT" 'missing\.xml: cannot open: No such file or directory'
run enqueue --job site --urls "$T"
ok_match "a directory: says so" "$OUT" 'cannot read: it is a directory'
: >"$T/empty.xml"
run enqueue --job site --sitemap "$T/empty.xml"
ok_match "empty file: says so" "$OUT" 'empty\.xml: the file is empty: not a sitemap'
gzip -c "$T/small.xml" >"$T/small.xml.gz"
run enqueue --job site --sitemap "$T/small.xml.gz"
ok_match "gzip file: says so" "$OUT" 'gzip-compressed: gunzip it first'
printf '<rss version="2.0"><channel/></rss>\n' >"$T/rss.xml"
run enqueue --job site --sitemap "$T/rss.xml"
ok_match "not a sitemap: names the root" "$OUT" 'the root element is <rss>, not a sitemaps\.org <urlset> or <sitemapindex>'
printf '<urlset xmlns="http://example.com/other"><url><loc>https://example.com/</loc></url></urlset>' >"$T/ns.xml"
run enqueue --job site --sitemap "$T/ns.xml"
ok_match "another namespace: named" "$OUT" 'in namespace http://example\.com/other'
printf '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><lastmod>2024-01-01</lastmod></url></urlset>' >"$T/noloc.xml"
run enqueue --job site --sitemap "$T/noloc.xml"
ok_match "<url> without <loc>" "$OUT" 'noloc\.xml:1: <url> without <loc>'
printf '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>ftp://example.com/x</loc></url></urlset>' >"$T/ftp.xml"
run enqueue --job site --sitemap "$T/ftp.xml"
ok_match "not an http(s) URL" "$OUT" "'ftp://example\.com/x' is refused: it is not an http:// or https:// URL"
cat >"$T/idx/bad-index.xml" <<'EOF'
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <sitemap><loc>part-1.xml</loc></sitemap>
  <sitemap><loc>part-404.xml</loc></sitemap>
</sitemapindex>
EOF
run enqueue --job site --sitemap "$T/idx/bad-index.xml"
ok_eq "index with a missing child: exit 1" "$RC" 1
ok_match "index with a missing child: names it" "$OUT" 'part-404\.xml: cannot open: No such file'
cp "$T/idx/index.xml" "$T/idx/nested.xml"
sed -i 's#part-1.xml#index.xml#' "$T/idx/nested.xml"
run enqueue --job site --sitemap "$T/idx/nested.xml"
ok_match "index of an index: refused" "$OUT" 'a sitemap index lists another index'
# a file an index names is read only when it is a regular file: a FIFO
# there held the enqueue (and its transaction) for as long as nobody wrote
# to it, a device was read as it is; the file named on the command line
# may be a pipe (<(...), below) but not a device
mkfifo "$T/idx/fifo.xml"
cat >"$T/idx/fifo-index.xml" <<'EOF'
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <sitemap><loc>part-1.xml</loc></sitemap>
  <sitemap><loc>fifo.xml</loc></sitemap>
</sitemapindex>
EOF
OUT=$(timeout 10 "$CT" enqueue --job site --sitemap "$T/idx/fifo-index.xml" 2>&1); RC=$?
ok_eq "index naming a FIFO: exit 1 at once (no wait for a writer)" "$RC" 1
ok_match "index naming a FIFO: not a regular file" "$OUT" \
	'idx/fifo\.xml: not a regular file \(a FIFO\): a sitemap index names sitemap files; nothing was enqueued'
ln -s /dev/zero "$T/idx/zero.xml"
sed 's#fifo\.xml#zero.xml#' "$T/idx/fifo-index.xml" >"$T/idx/zero-index.xml"
OUT=$(timeout 10 "$CT" enqueue --job site --sitemap "$T/idx/zero-index.xml" 2>&1); RC=$?
ok_eq "index naming a device: exit 1" "$RC" 1
ok_match "index naming a device: not a regular file" "$OUT" \
	'idx/zero\.xml: not a regular file \(a character device\)'
OUT=$(timeout 10 "$CT" enqueue --job site --sitemap /dev/zero 2>&1); RC=$?
ok_match "a device on the command line: not a regular file" "$RC $OUT" \
	'^1 crawltop enqueue: /dev/zero: not a regular file \(a character device\): a sitemap is a file, a pipe or -'
# libxml2 says "Extra content at the end of the document" both of content
# after the root element and of a root never closed; each is said as it is,
# in a small file (parsed in one piece) and after full batches
printf '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n<url><loc>https://example.com/x</loc></url>\n</urlset>\n<urlset/>\n' >"$T/after.xml"
run enqueue --job site --sitemap "$T/after.xml"
ok_eq "content after the root element: exit 1" "$RC" 1
ok_match "content after the root element: says so, with its line" "$OUT" \
	'after\.xml:4: content after the root element </urlset>: a sitemap is one <urlset> or <sitemapindex> element; nothing'
{ urlset 1100 example.com 40000; echo 'trailing text'; } >"$T/after-big.xml"
run enqueue --job site --sitemap "$T/after-big.xml"
ok_match "content after the root element of 1,100 URLs" "$OUT" \
	'after-big\.xml:1104: content after the root element </urlset>'
printf '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n<url><loc>https://example.com/x</loc></url>\n' >"$T/open.xml"
run enqueue --job site --sitemap "$T/open.xml"
ok_eq "an unclosed root element: exit 1" "$RC" 1
ok_match "an unclosed root element: says so, with the line the file ends at" "$OUT" \
	'open\.xml:2: the root element <urlset> is not closed \(the file ends at line 2\); nothing'
urlset 1100 example.com 40000 | sed '$d' >"$T/open-big.xml"
run enqueue --job site --sitemap "$T/open-big.xml"
ok_match "an unclosed root element after 1,100 URLs" "$OUT" \
	'open-big\.xml:1102: the root element <urlset> is not closed \(the file ends at line 1102\)'
printf '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n<sitemap><loc>part-1.xml</loc>\n' >"$T/idx/open-index.xml"
run enqueue --job site --sitemap "$T/idx/open-index.xml"
ok_match "an unclosed element in an unclosed root: both named" "$OUT" \
	'open-index\.xml:2: the element <sitemap> is not closed, nor the root element <sitemapindex> \(the file ends at line 2\)'
run enqueue --job nosuch --sitemap "$T/small.xml"
ok_eq "unknown job: exit 1" "$RC" 1
ok_match "unknown job: names it" "$OUT" "job 'nosuch' does not exist"
ok_unchanged "bad files" "$before"

run enqueue --job site
ok_eq "neither --sitemap nor --urls: exit 2" "$RC" 2
run enqueue --job site --sitemap "$T/small.xml" --urls "$T/list.txt"
ok_eq "both --sitemap and --urls: exit 2" "$RC" 2
run enqueue --sitemap "$T/small.xml"
ok_eq "no --job: exit 2" "$RC" 2

psql -qc "CREATE ROLE cli_enq_ro LOGIN IN ROLE crawltop_viewer" >/dev/null
run enqueue --job site --sitemap "$T/small.xml" -d "$CT_TEST_DSN dbname=$DB user=cli_enq_ro"
ok_eq "read-only role: exit 1" "$RC" 1
ok_match "read-only role: permission denied" "$OUT" \
	'enqueue: permission denied for function enqueue: connected as role "cli_enq_ro" \(SQLSTATE 42501\); nothing was enqueued'
ok_unchanged "read-only role" "$before"

psql -qc "CREATE ROLE cli_enq_worker LOGIN IN ROLE crawltop_worker" >/dev/null
run enqueue --job site --urls <(echo /by-worker) -d "$CT_TEST_DSN dbname=$DB user=cli_enq_worker"
ok_eq "a crawltop_worker role may enqueue" "$RC" 0

# ---- scores from the store's settings, not the configuration file -------
# A frontier, freshness or discovery job's new tasks are scored with the
# settings version the store keeps, as a rescore (set-mode, the console)
# scores them; the configuration file changes nothing (lib.sh:
# stored_settings lists the scores under each).
stored_settings "$T"
for m in frontier freshness discovery; do
	"$CT" job create "st-$m" --domain st.example --mode "$m" >/dev/null
	CRAWLTOP_CONFIG=$CONF run enqueue --job "st-$m" --urls <(printf '/u/1\n/u/2\n')
	ok_eq "stored settings, $m job: --urls exit 0" "$RC" 0
done
CRAWLTOP_CONFIG=$CONF run enqueue --job st-frontier --sitemap <(urlset 2 st.example)
ok_eq "stored settings, frontier job: --sitemap exit 0" "$RC" 0
ok_eq "frontier job: scores and classes from the stored version, not the file" \
	"$(scores st-frontier)" \
	"/s-1/p-1.html 64.2857 P1; /s-2/p-2.html 64.2857 P1; /u/1 50.0000 P1; /u/2 50.0000 P1"
ok_eq "freshness job: never visited, scored with the stored version" \
	"$(scores st-freshness)" "/u/1 88.0000 P0; /u/2 88.0000 P0"
ok_eq "discovery job: unranked at the stored P2 bound" \
	"$(scores st-discovery)" "/u/1 35.0000 P2; /u/2 35.0000 P2"
run enqueue --job st-frontier --urls <(echo /u/3) -d "$CT_TEST_DSN dbname=$DB user=cli_enq_worker"
ok_eq "a crawltop_worker role may read the stored settings to score" "$RC" 0
ok_eq "the worker's task scored with the stored version" \
	"$(scores st-frontier | sed 's/.*; //')" "/u/3 50.0000 P1"
for m in frontier freshness discovery; do
	ok_rescore_agrees "st-$m"
done
done_testing
