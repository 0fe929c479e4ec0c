-- 0001_schema.sql: the crawltop task store, base tables.
--
-- Applied by `crawltop migrate` inside one transaction, after the migrator
-- has created the schema `crawltop` and `crawltop.schema_version`.
-- Names follow the seeds: domains, pages (seed 000), jobs (seeds 000, 001),
-- tasks (all seeds). Scores use SPEC.md's one scale: 0..100, higher is more
-- urgent; job priority 1..10, 1 first.

-- The longest path or URL the store accepts, in bytes. A 10 KB URL is an
-- input error, not something to store.
CREATE FUNCTION crawltop.max_url_bytes() RETURNS integer
	LANGUAGE sql IMMUTABLE PARALLEL SAFE AS 'SELECT 2048';

-- A page path: starts with '/', at most max_url_bytes() bytes, no white
-- space, no control characters, no invisible characters (Unicode's
-- Default_Ignorable_Code_Point and format characters: a zero-width space
-- or a right-to-left override shown in a path makes it read as another;
-- crawltop enqueue keeps them escaped, as %E2%80%AE; the C side is
-- ct_char_invisible, src/engine/text.c, and test_pathrule holds the two
-- together), no fragment ('#'), and no '.' or '..'
-- segment before the query (RFC 3986 resolves them: "/a/../b" is "/b",
-- and one page has one path; crawltop enqueue resolves them first).
-- The check runs inlined into whoever writes the column (the domain below),
-- with that writer's search_path, so every function and operator in it is
-- pg_catalog's by name: a superuser writing pages with public searched
-- before pg_catalog ran a public.octet_length(text) that anyone could make
-- there (0015 pins the PL/pgSQL functions; these two must stay inlinable).
CREATE FUNCTION crawltop.path_ok(p text) RETURNS boolean
	LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
	SELECT p IS NOT NULL
	   AND pg_catalog.octet_length(p) OPERATOR(pg_catalog.<=) crawltop.max_url_bytes()
	   AND p OPERATOR(pg_catalog.~) '^/[^[:space:][:cntrl:]#\u00AD\u034F\u0600-\u0605\u061C\u06DD\u070F\u0890-\u0891\u08E2\u115F-\u1160\u17B4-\u17B5\u180B-\u180F\u200B-\u200F\u202A-\u202E\u2060-\u206F\u3164\uFE00-\uFE0F\uFEFF\uFFA0\uFFF0-\uFFFB\U000110BD\U000110CD\U00013430-\U0001343F\U0001BCA0-\U0001BCA3\U0001D173-\U0001D17A\U000E0000-\U000E0FFF]*$'
	   AND p OPERATOR(pg_catalog.!~) '^[^?]*/\.\.?(/|\?|$)'
$$;

-- An absolute http(s) URL: scheme, host, optional path; same limits and
-- characters, and the same pg_catalog names.
CREATE FUNCTION crawltop.url_ok(u text) RETURNS boolean
	LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
	SELECT u IS NOT NULL
	   AND pg_catalog.octet_length(u) OPERATOR(pg_catalog.<=) crawltop.max_url_bytes()
	   AND u OPERATOR(pg_catalog.~) '^https?://[^[:space:][:cntrl:]/?#\u00AD\u034F\u0600-\u0605\u061C\u06DD\u070F\u0890-\u0891\u08E2\u115F-\u1160\u17B4-\u17B5\u180B-\u180F\u200B-\u200F\u202A-\u202E\u2060-\u206F\u3164\uFE00-\uFE0F\uFEFF\uFFA0\uFFF0-\uFFFB\U000110BD\U000110CD\U00013430-\U0001343F\U0001BCA0-\U0001BCA3\U0001D173-\U0001D17A\U000E0000-\U000E0FFF]+(/[^[:space:][:cntrl:]\u00AD\u034F\u0600-\u0605\u061C\u06DD\u070F\u0890-\u0891\u08E2\u115F-\u1160\u17B4-\u17B5\u180B-\u180F\u200B-\u200F\u202A-\u202E\u2060-\u206F\u3164\uFE00-\uFE0F\uFEFF\uFFA0\uFFF0-\uFFFB\U000110BD\U000110CD\U00013430-\U0001343F\U0001BCA0-\U0001BCA3\U0001D173-\U0001D17A\U000E0000-\U000E0FFF]*)?$'
$$;

-- The two checks above as domains, for the columns that hold paths and URLs
-- (pages.path, tasks.source_url). A domain is checked where a value is
-- assigned, with an expression each session prepares once; a table's CHECK
-- is prepared again by every statement that writes the table, and these
-- two inline a SQL function and run max_url_bytes() to do it. As CHECKs
-- they were 12-17 % of the server's CPU in a one-task claim+complete loop,
-- whose UPDATEs never assign either column (doc/PERFORMANCE.md). NULL
-- passes here (tasks.source_url may be NULL; pages.path is NOT NULL).
-- A PL/pgSQL function that returns one of them in a text column casts it
-- (RETURN QUERY wants the declared type exactly).
-- page_path compares bytes (COLLATE "C"), whatever the database's
-- collation: a path is a byte string, not words, and UNIQUE (domain_id,
-- path) then compares with memcmp instead of the locale's strcoll at
-- every step of every insert and probe (doc/PERFORMANCE.md), and a path
-- prefix is an index range. (UTF-8's byte order is code point order, as
-- C.UTF-8 sorts.)
CREATE DOMAIN crawltop.page_path AS text COLLATE "C"
	CONSTRAINT page_path_valid CHECK (VALUE IS NULL OR crawltop.path_ok(VALUE));
CREATE DOMAIN crawltop.url AS text
	CONSTRAINT url_valid CHECK (VALUE IS NULL OR crawltop.url_ok(VALUE));

-- Live tunables, versioned: a change inserts a new row; the highest version
-- is current. `value` mirrors struct ct_settings (settings.h) plus the
-- store's own keys under "store".
CREATE TABLE crawltop.settings (
	version    integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	value      jsonb NOT NULL CHECK (jsonb_typeof(value) = 'object'),
	created_at timestamptz NOT NULL DEFAULT now(),
	created_by text NOT NULL DEFAULT current_user,
	note       text
);

INSERT INTO crawltop.settings (value, note) VALUES (
	'{"classes":   {"p0": 80, "p1": 60, "p2": 40},
	  "hierarchy": {"root": 1.0, "sitemap": 0.5, "decay": 0.8, "floor": 0.1},
	  "default_priority": 5,
	  "store": {"lease_seconds": 30, "max_retries": 3,
	            "retry_base_seconds": 10, "retry_max_seconds": 600}}',
	'defaults (0001_schema.sql)');

-- Append-only record of every operator change (who, what, before, after).
CREATE TABLE crawltop.audit_log (
	id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	at               timestamptz NOT NULL DEFAULT now(),
	db_role          text NOT NULL DEFAULT current_user,
	application_name text NOT NULL
		DEFAULT coalesce(current_setting('application_name', true), ''),
	action           text NOT NULL,
	job_id           bigint,
	before           jsonb,
	after            jsonb,
	rows_affected    bigint NOT NULL DEFAULT 0
);

-- A site. `name` is a host name (lower case letters, digits, '-', '.',
-- optionally ":port"); nothing else can reach SQL or a URL through it.
CREATE TABLE crawltop.domains (
	id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	name       text NOT NULL UNIQUE,
	created_at timestamptz NOT NULL DEFAULT now(),
	CONSTRAINT domains_name_valid CHECK (
		name ~ '^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*(:[0-9]{1,5})?$'
		AND length(name) <= 253)
);

-- A page of a site. priority_score is seed 000's hierarchy score, 0..1
-- (double precision per SPEC.md); it never decreases. NaN fails the CHECK
-- (PostgreSQL orders NaN above every number).
CREATE TABLE crawltop.pages (
	id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	domain_id      bigint NOT NULL, -- a domain (checked per statement, below)
	path           crawltop.page_path NOT NULL,
	priority_score double precision NOT NULL DEFAULT 0
		CHECK (priority_score >= 0 AND priority_score <= 1),
	created_at     timestamptz NOT NULL DEFAULT now(),
	UNIQUE (domain_id, path)
);

-- A crawl of one domain. priority 1..10 (seed 001, 1 first); the mode says
-- how its tasks are scored (SPEC.md); total_pages counts its tasks.
CREATE TABLE crawltop.jobs (
	id                  bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	name                text NOT NULL UNIQUE,
	domain_id           bigint NOT NULL REFERENCES crawltop.domains (id),
	priority            smallint NOT NULL DEFAULT 5
		CHECK (priority BETWEEN 1 AND 10),
	prioritization_mode text NOT NULL DEFAULT 'hierarchy'
		CHECK (prioritization_mode IN ('fifo', 'hierarchy', 'frontier',
			'discovery', 'freshness', 'importance')),
	total_pages         integer NOT NULL DEFAULT 0 CHECK (total_pages >= 0),
	status              text NOT NULL DEFAULT 'pending'
		CHECK (status IN ('pending', 'running', 'paused', 'completed',
			'cancelled')),
	max_retries         smallint NOT NULL DEFAULT 3
		CHECK (max_retries BETWEEN 0 AND 100),
	created_at          timestamptz NOT NULL DEFAULT now(),
	updated_at          timestamptz NOT NULL DEFAULT now(),
	CONSTRAINT jobs_name_valid CHECK (name ~ '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$')
);

-- One page to fetch for one job.
--
-- job_priority is jobs.priority copied in (kept in sync by the functions
-- that change a job) so that one index can hand out tasks of ALL jobs in
-- SPEC.md's order with a range scan and no Sort. A paused job's pending
-- tasks carry priority + 100, outside the 1..10 range every claim scans.
--
-- Lease: a running task belongs to lease_owner until lease_expires_at. A
-- lease without owner is a retry waiting for its backoff; either way, an
-- expired lease returns the task to pending (crawltop.claim does that).
CREATE TABLE crawltop.tasks (
	id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	job_id           bigint NOT NULL, -- a job (checked per statement, below)
	page_id          bigint NOT NULL, -- a page (checked per statement, below)
	status           text NOT NULL DEFAULT 'pending'
		CHECK (status IN ('pending', 'running', 'completed', 'failed',
			'skipped')),
	job_priority     smallint NOT NULL
		CHECK (job_priority BETWEEN 1 AND 10
		       OR job_priority BETWEEN 101 AND 110),
	-- the claim order's score: the score the job's mode gives the task
	-- (base_score) plus the points operators added (adjustment, boost
	-- positive, demote negative), clamped to 0..100; tasks_score_derived
	-- below holds score = least(100, greatest(0, base_score + adjustment))
	-- for every row, so a rescore, which rewrites base_score, keeps what
	-- an operator did (NaN fails the range checks: PostgreSQL orders NaN
	-- above every number)
	score            double precision NOT NULL DEFAULT 0,
	base_score       double precision NOT NULL DEFAULT 0
		CHECK (base_score >= 0 AND base_score <= 100),
	adjustment       double precision NOT NULL DEFAULT 0
		CHECK (adjustment >= -100 AND adjustment <= 100),
	class            smallint NOT NULL DEFAULT 3 CHECK (class BETWEEN 0 AND 3),
	source_type      text NOT NULL DEFAULT 'other'
		CHECK (source_type IN ('sitemap', 'link', 'manual', 'other')),
	source_url       crawltop.url,
	source_page_id   bigint, -- a page or NULL (checked per statement, below)
	depth            integer CHECK (depth >= 0),
	type             text CHECK (type ~ '^[A-Za-z0-9_-]{1,32}$'),
	discovery_method text CHECK (discovery_method ~ '^[A-Za-z0-9_-]{1,32}$'),
	retry_count      smallint NOT NULL DEFAULT 0 CHECK (retry_count >= 0),
	last_error       text,
	-- discovery time: clock_timestamp(), so tasks of one batch keep their
	-- order in the array (ties are then broken by id)
	created_at       timestamptz NOT NULL DEFAULT clock_timestamp(),
	started_at       timestamptz,
	completed_at     timestamptz,
	lease_owner      text,
	lease_expires_at timestamptz,
	UNIQUE (job_id, page_id),
	-- (which also keeps score in 0..100)
	CONSTRAINT tasks_score_derived CHECK (
		score = least(100, greatest(0, base_score + adjustment))),
	CONSTRAINT tasks_lease_only_running CHECK (
		status = 'running' OR (lease_owner IS NULL AND lease_expires_at IS NULL)),
	CONSTRAINT tasks_running_has_lease CHECK (
		status <> 'running' OR lease_expires_at IS NOT NULL)
);

-- Claims from all jobs: SPEC.md's order exactly, pending tasks only.
CREATE INDEX tasks_claim_all ON crawltop.tasks
	(job_priority, score DESC, created_at, id) WHERE status = 'pending';
-- Claims from one job.
CREATE INDEX tasks_claim_job ON crawltop.tasks
	(job_id, score DESC, created_at, id) WHERE status = 'pending';
-- Expired leases (and retries whose backoff is over), oldest first.
CREATE INDEX tasks_lease ON crawltop.tasks (lease_expires_at)
	WHERE status = 'running';

-- ---- references to jobs, pages and domains -------------------------------
--
-- tasks.job_id names a job, tasks.page_id and tasks.source_page_id name
-- pages, pages.domain_id names a domain. They are checked once per
-- statement instead of by foreign keys, which cost one query and one row
-- lock per row: 30 % of an enqueue of 50,000 new pages for the page and
-- domain keys (3.25-3.40 s with them, 2.21-2.56 s without), 10 % more for
-- the job's (see doc/PERFORMANCE.md). What makes a per-statement check as
-- strong: a page or a domain is never deleted and never changes its id
-- (nor a page its domain), so a row that a statement found stays. A job
-- may be deleted, with its tasks: the check locks each job of the
-- statement FOR KEY SHARE, as a foreign key locks it, so that no DELETE of
-- it can commit before the new tasks do; and the DELETE, which deletes the
-- job's tasks after it has the job's row, then sees them (READ COMMITTED:
-- in a transaction whose snapshot is older, it would not, and is refused).

-- Refuses the change that fired it: pages and domains stay as they are.
CREATE FUNCTION crawltop.refs_keep() RETURNS trigger
	LANGUAGE plpgsql AS $$
BEGIN
	RAISE EXCEPTION '% on crawltop.% refused: pages and domains are never deleted and keep their ids, because tasks refer to them',
		TG_OP, TG_TABLE_NAME USING ERRCODE = '23503';
END $$;
CREATE TRIGGER domains_keep BEFORE DELETE OR TRUNCATE ON crawltop.domains
	FOR EACH STATEMENT EXECUTE FUNCTION crawltop.refs_keep();
CREATE TRIGGER domains_keep_id BEFORE UPDATE OF id ON crawltop.domains
	FOR EACH ROW WHEN (OLD.id <> NEW.id)
	EXECUTE FUNCTION crawltop.refs_keep();
CREATE TRIGGER pages_keep BEFORE DELETE OR TRUNCATE ON crawltop.pages
	FOR EACH STATEMENT EXECUTE FUNCTION crawltop.refs_keep();
CREATE TRIGGER pages_keep_id BEFORE UPDATE OF id, domain_id ON crawltop.pages
	FOR EACH ROW WHEN (OLD.id <> NEW.id OR OLD.domain_id <> NEW.domain_id)
	EXECUTE FUNCTION crawltop.refs_keep();

-- New pages name existing domains (23503 otherwise, like a foreign key).
CREATE FUNCTION crawltop.pages_refs_check() RETURNS trigger
	LANGUAGE plpgsql AS $$
DECLARE
	v bigint;
BEGIN
	-- one primary-key probe per domain, as tasks_refs_check below (a
	-- statement's pages mostly share one domain: a probe per row was 6 %
	-- of an enqueue of 50,000 new pages)
	SELECT n.domain_id INTO v FROM (SELECT DISTINCT domain_id FROM new_rows) n
	LEFT JOIN LATERAL (SELECT true AS found FROM crawltop.domains d
			   WHERE d.id = n.domain_id LIMIT 1) dr ON true
	WHERE dr.found IS NULL
	LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION 'insert on crawltop.pages refused: domain % does not exist', v
			USING ERRCODE = '23503';
	END IF;
	RETURN NULL;
END $$;
CREATE TRIGGER pages_refs AFTER INSERT ON crawltop.pages
	REFERENCING NEW TABLE AS new_rows
	FOR EACH STATEMENT EXECUTE FUNCTION crawltop.pages_refs_check();

-- New tasks name existing pages (23503 otherwise), and so does a task whose
-- page or source page is changed (a row trigger: no code of crawltop does
-- that, and claims, which change other columns, never fire it).
CREATE FUNCTION crawltop.tasks_refs_check() RETURNS trigger
	LANGUAGE plpgsql AS $$
DECLARE
	v bigint;
	v_job bigint;
BEGIN
	-- the jobs first, each locked as a foreign key locks it (one probe
	-- per job of the statement: the tasks of a batch share one), in job
	-- id order, the order release and the reaper lock them in (in hash
	-- order, an INSERT of two jobs' tasks deadlocked with a DELETE of both)
	IF TG_LEVEL = 'ROW' THEN
		v_job := NEW.job_id;
		PERFORM FROM crawltop.jobs j WHERE j.id = v_job FOR KEY SHARE;
		IF NOT FOUND THEN
			v := v_job;
		END IF;
	ELSE
		FOR v_job IN SELECT DISTINCT n.job_id FROM new_rows n ORDER BY 1 LOOP
			PERFORM FROM crawltop.jobs j WHERE j.id = v_job FOR KEY SHARE;
			IF NOT FOUND THEN
				v := v_job;
				EXIT;
			END IF;
		END LOOP;
	END IF;
	IF v IS NOT NULL THEN
		RAISE EXCEPTION '% on crawltop.tasks refused: job % does not exist', TG_OP, v
			USING ERRCODE = '23503';
	END IF;
	IF TG_LEVEL = 'ROW' THEN
		IF NOT EXISTS (SELECT 1 FROM crawltop.pages p WHERE p.id = NEW.page_id) THEN
			v := NEW.page_id;
		ELSIF NEW.source_page_id IS NOT NULL AND NOT EXISTS (
				SELECT 1 FROM crawltop.pages p WHERE p.id = NEW.source_page_id) THEN
			v := NEW.source_page_id;
		END IF;
	ELSE
		-- one primary-key probe per row (a LATERAL with LIMIT is never
		-- turned into a join): NOT EXISTS became a hash anti-join that
		-- read every page at every statement, 78 % of an enqueue of 50
		-- paths into 100,000 tasks
		SELECT x.id INTO v FROM (
			SELECT n.page_id AS id FROM new_rows n
			UNION ALL
			SELECT n.source_page_id FROM new_rows n
			WHERE n.source_page_id IS NOT NULL) x
		LEFT JOIN LATERAL (SELECT true AS found FROM crawltop.pages p
				   WHERE p.id = x.id LIMIT 1) pr ON true
		WHERE pr.found IS NULL
		LIMIT 1;
	END IF;
	IF v IS NOT NULL THEN
		RAISE EXCEPTION '% on crawltop.tasks refused: page % does not exist', TG_OP, v
			USING ERRCODE = '23503';
	END IF;
	RETURN NULL;
END $$;
CREATE TRIGGER tasks_refs AFTER INSERT ON crawltop.tasks
	REFERENCING NEW TABLE AS new_rows
	FOR EACH STATEMENT EXECUTE FUNCTION crawltop.tasks_refs_check();
CREATE TRIGGER tasks_refs_update AFTER UPDATE OF job_id, page_id,
	source_page_id ON crawltop.tasks FOR EACH ROW
	WHEN (OLD.job_id IS DISTINCT FROM NEW.job_id
	      OR OLD.page_id IS DISTINCT FROM NEW.page_id
	      OR OLD.source_page_id IS DISTINCT FROM NEW.source_page_id)
	EXECUTE FUNCTION crawltop.tasks_refs_check();

-- A deleted job's tasks are deleted with it (what ON DELETE CASCADE did),
-- as the owner of the tables, like a foreign key's action. Only in READ
-- COMMITTED (which READ UNCOMMITTED is in PostgreSQL), where these
-- statements see the tasks that transactions which held the job FOR KEY
-- SHARE committed while the DELETE waited for them. One statement per
-- job, in id order, each planned for its job (EXECUTE): one plan for all
-- deleted jobs followed the average job's size, and scanned every task to
-- delete the 2 of a small job.
CREATE FUNCTION crawltop.jobs_delete_tasks() RETURNS trigger
	LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	v_job bigint;
BEGIN
	FOR v_job IN SELECT o.id FROM old_rows o ORDER BY 1 LOOP
		IF current_setting('transaction_isolation') NOT IN
				('read committed', 'read uncommitted') THEN
			RAISE EXCEPTION 'DELETE on crawltop.jobs refused in a % transaction: delete jobs in READ COMMITTED, so that the tasks other transactions add to them meanwhile are deleted too',
				upper(current_setting('transaction_isolation'))
				USING ERRCODE = '0A000';
		END IF;
		EXECUTE 'DELETE FROM crawltop.tasks WHERE job_id = $1' USING v_job;
	END LOOP;
	RETURN NULL;
END $$;
CREATE TRIGGER jobs_delete_tasks AFTER DELETE ON crawltop.jobs
	REFERENCING OLD TABLE AS old_rows
	FOR EACH STATEMENT EXECUTE FUNCTION crawltop.jobs_delete_tasks();
-- TRUNCATE of jobs (which run_manifest's foreign key allows only with
-- CASCADE) empties tasks too, with the caller's rights (TRUNCATE on
-- tasks, as CASCADE asked for). Task ids continue (a trigger does not see
-- RESTART IDENTITY).
CREATE FUNCTION crawltop.jobs_truncate_tasks() RETURNS trigger
	LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
	AS $$
BEGIN
	TRUNCATE crawltop.tasks;
	RETURN NULL;
END $$;
CREATE TRIGGER jobs_truncate_tasks AFTER TRUNCATE ON crawltop.jobs
	FOR EACH STATEMENT EXECUTE FUNCTION crawltop.jobs_truncate_tasks();
-- A job keeps its id (UPDATE ... SET id = DEFAULT would take a new one).
CREATE FUNCTION crawltop.jobs_keep_id() RETURNS trigger
	LANGUAGE plpgsql AS $$
BEGIN
	RAISE EXCEPTION 'UPDATE of crawltop.jobs.id refused: a job keeps its id, because its tasks refer to it'
		USING ERRCODE = '23503';
END $$;
CREATE TRIGGER jobs_keep_id BEFORE UPDATE OF id ON crawltop.jobs
	FOR EACH ROW WHEN (OLD.id <> NEW.id)
	EXECUTE FUNCTION crawltop.jobs_keep_id();
