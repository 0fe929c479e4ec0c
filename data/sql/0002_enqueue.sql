-- 0002_enqueue.sql: creating jobs and enqueueing discovered pages.
--
-- These are the functions a crawler in any language calls. Every input is
-- checked before anything is written, and a refusal raises an error whose
-- message names the value and the rule, with a SQLSTATE a program can test:
--   P0002  a job or page that does not exist
--   22003  a number out of range (priority 0 or 11, a NaN score)
--   22023  any other invalid value (a malformed path, a bad name)
--   23505  a job name that is taken
--   55000  a job whose state forbids the change (cancelled, completed)
-- A refused call changes nothing (it is one statement, hence atomic).

-- The engine's defaults (ct_settings_default) as a document: what a key a
-- settings version does not name is, for setting() below and for the
-- rules between keys (0014); tests/store/test_settings_rules.c holds it to
-- the engine's.
CREATE FUNCTION crawltop.settings_defaults() RETURNS jsonb
	LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
	SELECT '{
		"classes": {"p0": 80, "p1": 60, "p2": 40},
		"hierarchy": {"root": 1, "sitemap": 0.5, "decay": 0.8, "floor": 0.1},
		"default_priority": 5,
		"frontier": {
			"types": {"article": 0, "hub-seed": 4, "history": 6, "nav": 10, "refresh": 25, "default": 12},
			"weights": {"base": 1, "gap-score": 1, "knowledge-reuse": 1},
			"features": {"gap_driven_prioritization": true, "planner_knowledge_reuse": true, "problem_clustering": true, "cost_aware_priority": false},
			"clustering": {"problem_threshold": 5, "boost_factor_per_cluster": 2.5, "boost_cap": 20},
			"cost": {"fast_ms": 100, "slow_ms": 500, "factor": 0.1},
			"total_prioritisation": {"enabled": false, "country": -5000, "country_related": -3000, "other": 5000000, "country_tokens": [], "related_tokens": []},
			"queue": {"max_depth": 10, "max_queue": 10000, "burst": 5, "max_scan": 64},
			"bonuses": {"adaptive-seed": 20, "gap-prediction": 15, "sitemap": 10, "hub-validated": 8, "link": 0},
			"aliases": {"intelligent-seed": "adaptive-seed", "adaptive-seed": "adaptive-seed", "hub-seed": "adaptive-seed", "sitemap": "sitemap", "validated-hub": "hub-validated", "link-discovery": "link"}
		},
		"discovery": {
			"weights": {"unseen_likelihood": 0.28, "host_novelty": 0.2, "content_readiness": 0.16, "link_yield": 0.14, "source_reliability": 0.1, "freshness": 0.06, "quality_safety": 0.04, "topic_boost": 0.02},
			"backoff": {"start_hours": 6, "max_hours": 48, "multiplier": 2}
		},
		"freshness": {"base": 50, "recent": -30, "today": -10, "stale": 15, "never": 15, "changed": 20, "topic_max": 15, "topic_high": 0.8, "hub": 10, "deep": -5, "deep_depth": 3}
	}'::jsonb
$$;

-- The current value of one setting, e.g. crawltop.setting('{store,lease_seconds}').
-- A key the current version leaves out reads as its default, as it does for
-- the C layer (a version may leave keys out: 0014 checks what it has); a
-- group comes back with its absent keys filled in, one level deep (the
-- store reads flat groups, {hierarchy}, {classes}, {store}, and single
-- keys). Without that, enqueue read an absent hierarchy.decay as NULL (a
-- child page scored the floor) and an absent classes.p0 put a score of 100
-- in P1. The store keys have no defaults here: their readers give their
-- own (coalesce(..., 3)). PL/pgSQL, for its cached plan: settings_defaults()
-- is IMMUTABLE, so the planner folds it into a constant of that plan once
-- per session, where a LANGUAGE sql function was parsed and planned again
-- at every call, the defaults' JSON text with it (one-task claims ran 7 %
-- slower, doc/PERFORMANCE.md).
CREATE FUNCTION crawltop.setting(p_path text[]) RETURNS jsonb
	LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	v jsonb;
	d jsonb := crawltop.settings_defaults() #> p_path;
BEGIN
	SELECT s.value #> p_path INTO v
	FROM crawltop.settings s ORDER BY s.version DESC LIMIT 1;
	RETURN CASE WHEN jsonb_typeof(v) = 'object' AND jsonb_typeof(d) = 'object'
		    THEN d || v ELSE coalesce(v, d) END;
END $$;

-- Class of a score given the P0/P1/P2 lower bounds (SPEC.md: half-open).
CREATE FUNCTION crawltop.class_of(p_score double precision,
		p0 double precision, p1 double precision, p2 double precision)
	RETURNS smallint LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
	SELECT (CASE WHEN p_score >= p0 THEN 0 WHEN p_score >= p1 THEN 1
		     WHEN p_score >= p2 THEN 2 ELSE 3 END)::smallint
$$;

-- A value shortened and quoted for an error message.
CREATE FUNCTION crawltop.shown(p text) RETURNS text
	LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
	SELECT CASE WHEN p IS NULL THEN 'NULL'
		    WHEN length(p) <= 80 THEN quote_literal(p)
		    ELSE quote_literal(left(p, 80)) || '... (' ||
			 octet_length(p) || ' bytes)' END
$$;

-- Refuse a score that is NULL, NaN or outside 0..100 (22003), naming the
-- first such element of p_scores: enqueue's and rescore_apply's check.
CREATE FUNCTION crawltop.check_scores(p_scores double precision[])
	RETURNS void LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
	v_i bigint;
	v_bad double precision;
BEGIN
	SELECT u.i, u.s INTO v_i, v_bad
	FROM unnest(p_scores) WITH ORDINALITY AS u(s, i)
	WHERE u.s IS NULL OR NOT (u.s >= 0 AND u.s <= 100)
	ORDER BY u.i LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION 'scores[%] = %: a score must be a finite number in 0..100',
			v_i, coalesce(v_bad::text, 'NULL') USING ERRCODE = '22003';
	END IF;
END $$;

-- Refuse a priority outside 1..10 (seed 001: never clamped).
CREATE FUNCTION crawltop.check_priority(p_priority integer) RETURNS void
	LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
	IF p_priority IS NULL OR p_priority NOT BETWEEN 1 AND 10 THEN
		RAISE EXCEPTION 'priority % is outside 1..10 (1 is the most urgent, 5 the default)',
			coalesce(p_priority::text, 'NULL') USING ERRCODE = '22003';
	END IF;
END $$;

-- Refuse an unknown prioritisation mode.
CREATE FUNCTION crawltop.check_mode(p_mode text) RETURNS void
	LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
	IF p_mode IS NULL OR p_mode NOT IN ('fifo', 'hierarchy', 'frontier',
			'discovery', 'freshness', 'importance') THEN
		RAISE EXCEPTION 'mode % is unknown: use fifo, hierarchy, frontier, discovery, freshness or importance',
			crawltop.shown(p_mode) USING ERRCODE = '22023';
	END IF;
END $$;

-- Create a job `p_name` over domain `p_domain` (created when new; the name
-- is lower-cased). Returns the job id. Writes an audit_log row.
CREATE FUNCTION crawltop.create_job(p_name text, p_domain text,
		p_priority integer DEFAULT 5, p_mode text DEFAULT 'hierarchy')
	RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
	v_domain text := lower(p_domain);
	v_domain_id bigint;
	v_id bigint;
BEGIN
	IF p_name IS NULL OR p_name !~ '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$' THEN
		RAISE EXCEPTION 'job name % is not allowed: use 1 to 64 of A-Z a-z 0-9 . _ - starting with a letter or digit',
			crawltop.shown(p_name) USING ERRCODE = '22023';
	END IF;
	-- a port is 1..65535 without leading zeros (as URLs are read: a job
	-- over a.example:99999 could take no URL)
	IF v_domain IS NULL OR length(v_domain) > 253 OR v_domain !~
		'^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*(:[1-9][0-9]{0,4})?$'
		OR coalesce(substring(v_domain from ':([0-9]+)$')::integer, 1) > 65535 THEN
		RAISE EXCEPTION 'domain % is not a host name (letters, digits, ''-'' and ''.'', optionally :port, a port 1..65535)',
			crawltop.shown(p_domain) USING ERRCODE = '22023';
	END IF;
	PERFORM crawltop.check_priority(p_priority);
	PERFORM crawltop.check_mode(p_mode);
	SELECT id INTO v_id FROM crawltop.jobs WHERE name = p_name;
	IF FOUND THEN
		RAISE EXCEPTION 'job name % is taken (job %)', crawltop.shown(p_name), v_id
			USING ERRCODE = '23505';
	END IF;

	INSERT INTO crawltop.domains (name) VALUES (v_domain)
		ON CONFLICT (name) DO NOTHING;
	SELECT id INTO STRICT v_domain_id FROM crawltop.domains WHERE name = v_domain;
	INSERT INTO crawltop.jobs (name, domain_id, priority, prioritization_mode,
			max_retries)
		VALUES (p_name, v_domain_id, p_priority, p_mode,
			coalesce((crawltop.setting('{store,max_retries}'))::smallint, 3))
		RETURNING id INTO v_id;
	INSERT INTO crawltop.audit_log (action, job_id, after, rows_affected)
		VALUES ('job.create', v_id, jsonb_build_object('name', p_name,
			'domain', v_domain, 'priority', p_priority, 'mode', p_mode), 1);
	RETURN v_id;
END $$;

-- The authority of an http(s) URL as a job's domain is written: host in
-- lower case, without user information, with its port unless it is the
-- scheme's default ("Example.com:443" of an https URL is example.com).
CREATE FUNCTION crawltop.url_authority(p_url text) RETURNS text
	LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
	SELECT regexp_replace(lower(regexp_replace(
		substring(p_url from '^[A-Za-z][A-Za-z0-9+.-]*://([^/?#]*)'),
		'^[^@]*@', '')),
		CASE WHEN lower(p_url) LIKE 'https:%' THEN ':443$' ELSE ':80$' END, '')
$$;

-- The page path of an http(s) URL: what follows the authority, fragment
-- dropped, "/" when empty ("?q" becomes "/?q").
CREATE FUNCTION crawltop.url_page_path(p_url text) RETURNS text
	LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
	SELECT CASE WHEN r = '' THEN '/' WHEN left(r, 1) = '?' THEN '/' || r
		    ELSE r END
	FROM substring(p_url from '^[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*([^#]*)') AS r
$$;

-- The id of the page at p_path in job p_job_id's domain, or NULL.
CREATE FUNCTION crawltop.page_id(p_job_id bigint, p_path text) RETURNS bigint
	LANGUAGE sql STABLE AS $$
	SELECT p.id FROM crawltop.jobs j
	JOIN crawltop.pages p ON p.domain_id = j.domain_id AND p.path = p_path
	WHERE j.id = p_job_id
$$;

-- Enqueue a batch of paths discovered for job p_job_id, in one statement.
--
--  * Pages of the job's domain are created as needed; a task is created per
--    (job, page) once: a path already queued for the job is a duplicate.
--  * Seed 000's hierarchy score (SPEC.md) is applied to every page of the
--    batch, whatever the job's mode: '/' gets root (1.0); a sitemap source
--    sitemap (0.5); a link from source page p_source_page_id (found by id)
--    max(decay x its score, floor); an unknown source page or any other
--    source the floor (0.1). A page's score only ever increases. Without
--    a page id, a link's source page is found from p_source_url, as seed
--    000's trigger found it, but by one probe of UNIQUE (domain_id, path):
--    the URL's path (query included, fragment dropped) on the job's
--    domain, when the URL's host (and port) is the job's domain.
--  * A task's score (0..100) follows the job's mode: hierarchy = page score
--    x 100; fifo = 0; frontier, discovery, freshness and importance take
--    p_scores (one per path, computed by the engine; required for the first
--    three, 0 when absent for importance). That is a new task's base_score
--    and, with no adjustment yet, its score. A duplicate raises a pending
--    task whose base score would rise: its base_score is set and its
--    score derived with the operator adjustment it keeps (0001), and it
--    takes this discovery's depth, type and method, which gave that
--    score (its source stays the first); none is lowered.
--  * The tasks of one batch share one discovery time (created_at); among
--    them the task id decides, and tasks are inserted in the batch's
--    order, so that equal scores are claimed in the order a page gives
--    its links. Pages are inserted sorted by path, so that two batches
--    over one domain cannot deadlock on them.
--  * jobs.total_pages grows by the number of new tasks. Enqueues into one
--    job are serialised on the job's row. One call takes at most 100,000
--    paths (22023 beyond), a few seconds of work; the row is held until
--    the caller's transaction ends, so a client that sends many calls in
--    one transaction (`crawltop enqueue` does, for all or nothing) holds
--    it that long.
--  * Locks: the job's row, pages in id order, then the tasks whose score
--    rises, in id order. Nothing else waits for a task: the tasks that
--    existed are found by a plain read, and the insert is of tasks that
--    did not (so it has no unique conflict to wait on). A client that
--    completes a task (claimed in an earlier transaction) and enqueues
--    its links in one transaction may do either first; `crawltop
--    simulate` enqueues first. (When the insert
--    ran ON CONFLICT over every page of the batch, its unique check
--    waited for a transaction updating a task of the same page, and
--    completing first could deadlock with another enqueue.)
-- Returns the number of new tasks and of raised pending tasks.
CREATE FUNCTION crawltop.enqueue(
		p_job_id bigint,
		p_paths text[],
		p_source_type text DEFAULT 'link',
		p_source_page_id bigint DEFAULT NULL,
		p_depth integer DEFAULT NULL,
		p_type text DEFAULT NULL,
		p_discovery_method text DEFAULT NULL,
		p_source_url text DEFAULT NULL,
		p_scores double precision[] DEFAULT NULL,
		OUT inserted integer, OUT raised integer)
	LANGUAGE plpgsql AS $$
DECLARE
	j crawltop.jobs;
	h jsonb := crawltop.setting('{hierarchy}');
	c jsonb := crawltop.setting('{classes}');
	v_root double precision := (h->>'root')::double precision;
	v_floor double precision := (h->>'floor')::double precision;
	v_p0 double precision := (c->>'p0')::double precision;
	v_p1 double precision := (c->>'p1')::double precision;
	v_p2 double precision := (c->>'p2')::double precision;
	v_src double precision;   -- source page score; NULL when unknown
	v_src_page bigint := p_source_page_id; -- the source page, when known
	v_new double precision;   -- hierarchy score of a non-root page
	v_now timestamptz := clock_timestamp();
	v_distinct bigint;        -- distinct paths in the batch
	v_created bigint;         -- of them, pages this call created
	v_i bigint;
	v_bad text;
	v_new_ids bigint[];       -- the pages this call created: ids,
	v_new_paths text[];       -- paths
	v_new_scores double precision[]; -- and hierarchy scores
	v_page_ids bigint[];      -- each distinct path's page, in batch order,
	v_scores double precision[]; -- and the score its task gets
	v_ins_ids bigint[];       -- the pages that get a new task, in batch
	v_ins_scores double precision[]; -- order, and the tasks' scores
	v_raise_ids bigint[];     -- pending tasks whose score rises,
	v_raise_scores double precision[]; -- and their new base scores
BEGIN
	inserted := 0;
	raised := 0;
	IF p_job_id IS NULL THEN
		RAISE EXCEPTION 'job id is NULL' USING ERRCODE = '22004';
	END IF;
	SELECT * INTO j FROM crawltop.jobs WHERE id = p_job_id FOR NO KEY UPDATE;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'job % does not exist', p_job_id USING ERRCODE = 'P0002';
	END IF;
	IF j.status IN ('completed', 'cancelled') THEN
		RAISE EXCEPTION 'job % (%) is %: it takes no new tasks', j.id, j.name,
			j.status USING ERRCODE = '55000';
	END IF;
	IF p_paths IS NULL OR array_ndims(p_paths) > 1 THEN
		RAISE EXCEPTION 'paths must be a one-dimensional array of page paths'
			USING ERRCODE = '22023';
	END IF;
	-- a call holds its job's row until it commits: at most 100,000 paths
	-- (5 s on a small machine) keep an operator's change of the job from
	-- waiting longer
	IF cardinality(p_paths) > 100000 THEN
		RAISE EXCEPTION '% paths in one call: at most 100000 (send them in several calls)',
			cardinality(p_paths) USING ERRCODE = '22023';
	END IF;

	SELECT u.i, u.p INTO v_i, v_bad
	FROM unnest(p_paths) WITH ORDINALITY AS u(p, i)
	WHERE NOT crawltop.path_ok(u.p) ORDER BY u.i LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION 'paths[%] = % is not a page path: it must start with ''/'', have no spaces, control characters, ''#'' or ''.'' and ''..'' segments, and be at most % bytes',
			v_i, crawltop.shown(v_bad), crawltop.max_url_bytes()
			USING ERRCODE = '22023';
	END IF;
	IF p_source_type IS NULL OR p_source_type NOT IN ('sitemap', 'link',
			'manual', 'other') THEN
		RAISE EXCEPTION 'source type % is unknown: use sitemap, link, manual or other',
			crawltop.shown(p_source_type) USING ERRCODE = '22023';
	END IF;
	IF p_depth < 0 THEN
		RAISE EXCEPTION 'depth % is negative', p_depth USING ERRCODE = '22023';
	END IF;
	IF p_type !~ '^[A-Za-z0-9_-]{1,32}$' THEN
		RAISE EXCEPTION 'type % is not allowed: 1 to 32 of A-Z a-z 0-9 _ -',
			crawltop.shown(p_type) USING ERRCODE = '22023';
	END IF;
	IF p_discovery_method !~ '^[A-Za-z0-9_-]{1,32}$' THEN
		RAISE EXCEPTION 'discovery method % is not allowed: 1 to 32 of A-Z a-z 0-9 _ -',
			crawltop.shown(p_discovery_method) USING ERRCODE = '22023';
	END IF;
	IF p_source_url IS NOT NULL AND NOT crawltop.url_ok(p_source_url) THEN
		RAISE EXCEPTION 'source URL % is not an http(s) URL of at most % bytes without spaces or control characters',
			crawltop.shown(p_source_url), crawltop.max_url_bytes()
			USING ERRCODE = '22023';
	END IF;

	IF j.prioritization_mode IN ('fifo', 'hierarchy') AND p_scores IS NOT NULL THEN
		RAISE EXCEPTION 'job % is in % mode: the store computes its scores, pass none',
			j.id, j.prioritization_mode USING ERRCODE = '22023';
	END IF;
	IF j.prioritization_mode IN ('frontier', 'discovery', 'freshness')
			AND p_scores IS NULL THEN
		RAISE EXCEPTION 'job % is in % mode: pass one score (0..100) per path',
			j.id, j.prioritization_mode USING ERRCODE = '22023';
	END IF;
	IF p_scores IS NOT NULL THEN
		IF array_ndims(p_scores) > 1 OR
		   coalesce(cardinality(p_scores), 0) <> cardinality(p_paths) THEN
			RAISE EXCEPTION '% scores for % paths: pass one score per path',
				coalesce(cardinality(p_scores), 0), cardinality(p_paths)
				USING ERRCODE = '22023';
		END IF;
		PERFORM crawltop.check_scores(p_scores);
	END IF;
	IF p_source_page_id IS NOT NULL THEN
		SELECT priority_score INTO v_src FROM crawltop.pages
		WHERE id = p_source_page_id;
		IF NOT FOUND THEN
			RAISE EXCEPTION 'source page % does not exist', p_source_page_id
				USING ERRCODE = 'P0002';
		END IF;
	END IF;
	IF v_src_page IS NULL AND p_source_url IS NOT NULL
	   AND p_source_type = 'link' THEN
		SELECT p.id, p.priority_score INTO v_src_page, v_src
		FROM crawltop.domains d
		JOIN crawltop.pages p ON p.domain_id = d.id
		 AND p.path = crawltop.url_page_path(p_source_url)
		WHERE d.id = j.domain_id
		  -- a domain may be written with the scheme's default port
		  AND regexp_replace(lower(d.name), CASE WHEN lower(p_source_url)
			LIKE 'https:%' THEN ':443$' ELSE ':80$' END, '')
		      = crawltop.url_authority(p_source_url);
	END IF;
	IF cardinality(p_paths) = 0 THEN
		RETURN;
	END IF;

	v_new := CASE p_source_type
		WHEN 'sitemap' THEN (h->>'sitemap')::double precision
		WHEN 'link' THEN greatest(coalesce((h->>'decay')::double precision
			* v_src, v_floor), v_floor)
		ELSE v_floor END;

	-- Pages: create the missing ones (in path order: no deadlock between
	-- two batches) with their score already set, then raise the scores of
	-- the pages that existed, locking rows in id order first. (Creating
	-- them at 0 and raising them after wrote every new page twice.) The
	-- new pages' ids and scores are kept for the tasks below.
	WITH u AS (SELECT DISTINCT p FROM unnest(p_paths) p), ins AS (
		INSERT INTO crawltop.pages (domain_id, path, priority_score)
		SELECT j.domain_id, u.p, CASE WHEN u.p = '/' THEN v_root ELSE v_new END
		FROM u ORDER BY u.p COLLATE "C"
		ON CONFLICT (domain_id, path) DO NOTHING
		RETURNING id, path, priority_score)
	SELECT (SELECT count(*) FROM u), count(*), array_agg(ins.id),
	       array_agg(ins.path), array_agg(ins.priority_score)
	INTO v_distinct, v_created, v_new_ids, v_new_paths, v_new_scores
	FROM ins;

	-- When every page of the batch was new, each already has its score:
	-- the two look-ups below (two index probes per path) are skipped.
	IF v_created < v_distinct THEN
		PERFORM 1 FROM crawltop.pages pg
		WHERE pg.domain_id = j.domain_id AND pg.path = ANY (p_paths)
		  AND pg.priority_score < CASE WHEN pg.path = '/' THEN v_root ELSE v_new END
		ORDER BY pg.id FOR NO KEY UPDATE;
		UPDATE crawltop.pages pg
		SET priority_score = CASE WHEN pg.path = '/' THEN v_root ELSE v_new END
		WHERE pg.domain_id = j.domain_id AND pg.path = ANY (p_paths)
		  AND pg.priority_score < CASE WHEN pg.path = '/' THEN v_root ELSE v_new END;
	END IF;

	-- Each distinct path's page and the score its task gets by the job's
	-- mode. When every page was new, the page insert above returned their
	-- ids and scores; otherwise one probe of UNIQUE (domain_id, path) per
	-- path, whatever the statistics say: LIMIT 1 keeps the planner from
	-- turning this into a join whose plan follows the estimate of the
	-- domain's page count (a fresh domain estimated at a few pages once
	-- made a nested loop over every page x every path: 110,000 x 50,000).
	WITH input AS (
		-- paths and scores side by side, whatever their arrays' bounds,
		-- and where each path first comes in the batch
		SELECT u.p AS path, max(u.s) AS given, min(u.i) AS first
		FROM unnest(p_paths, p_scores) WITH ORDINALITY AS u(p, s, i)
		GROUP BY u.p
	), found AS (
		SELECT n.id, n.score AS page_score, i.given, i.first
		FROM unnest(v_new_ids, v_new_paths, v_new_scores) AS n(id, path, score)
		JOIN input i ON i.path = n.path
		WHERE v_created = v_distinct
		UNION ALL
		SELECT pg.id, pg.priority_score, i.given, i.first
		FROM input i
		CROSS JOIN LATERAL (SELECT p.id, p.priority_score FROM crawltop.pages p
			WHERE p.domain_id = j.domain_id AND p.path = i.path LIMIT 1) pg
		WHERE v_created < v_distinct
	)
	SELECT array_agg(f.id ORDER BY f.first),
	       array_agg(CASE j.prioritization_mode
			    WHEN 'hierarchy' THEN f.page_score * 100
			    WHEN 'fifo' THEN 0
			    ELSE coalesce(f.given, 0) END ORDER BY f.first)
	INTO v_page_ids, v_scores
	FROM found f;

	-- The pages that had a task in this job before this call: one probe
	-- of UNIQUE (job_id, page_id) per page, none when every page is new
	-- (a page this call created has no task anywhere: all of them get
	-- one). The probe names no status, so that no partial index of
	-- pending tasks (which a stale estimate once chose, reading every
	-- pending task of the job for each page) can serve it. It locks
	-- nothing and waits for nothing: which of those tasks rise is decided
	-- again under their locks, below, and a task still running here (its
	-- release or lease expiry not committed) is not raised, as if this
	-- call came first (in hierarchy mode it takes its page's score when
	-- it comes back: base_on_return, 0005). Two enqueues of one job never
	-- run at once (both hold the job row) and only enqueue inserts tasks,
	-- so no task of this job appears between this probe and the insert.
	IF v_created = v_distinct THEN
		v_ins_ids := v_page_ids;
		v_ins_scores := v_scores;
	ELSE
		SELECT array_agg(u.page_id ORDER BY u.i) FILTER (WHERE tt.id IS NULL),
		       array_agg(u.s ORDER BY u.i) FILTER (WHERE tt.id IS NULL),
		       array_agg(tt.id ORDER BY tt.id)
			FILTER (WHERE tt.status = 'pending' AND tt.base_score < u.s),
		       array_agg(u.s ORDER BY tt.id)
			FILTER (WHERE tt.status = 'pending' AND tt.base_score < u.s)
		INTO v_ins_ids, v_ins_scores, v_raise_ids, v_raise_scores
		FROM unnest(v_page_ids, v_scores) WITH ORDINALITY AS u(page_id, s, i)
		LEFT JOIN LATERAL (SELECT t.id, t.status, t.base_score
			FROM crawltop.tasks t
			WHERE t.job_id = j.id AND t.page_id = u.page_id LIMIT 1) tt
			ON true;
	END IF;

	-- New tasks: one per (job, page), in the order of the batch: tasks of
	-- one batch share created_at, and claims take equal scores in id
	-- order, so a page's links are crawled in the order the page gives
	-- them (fifo, and hierarchy's ties). A plain INSERT of the pages found
	-- without a task above: no conflict can arise (ON CONFLICT, which
	-- runs a speculative insertion per row, made the insert of 50,000
	-- new tasks 1.3-1.4 times as long). The insert holds no task: tasks
	-- are locked only after it, in task id order.
	INSERT INTO crawltop.tasks (job_id, page_id, job_priority, score,
		base_score, class, source_type, source_url, source_page_id,
		depth, type, discovery_method, created_at)
	SELECT j.id, u.page_id,
	       j.priority + CASE WHEN j.status = 'paused' THEN 100 ELSE 0 END,
	       u.s, u.s, crawltop.class_of(u.s, v_p0, v_p1, v_p2),
	       p_source_type, p_source_url, v_src_page, p_depth, p_type,
	       p_discovery_method, v_now
	FROM unnest(v_ins_ids, v_ins_scores) WITH ORDINALITY AS u(page_id, s, i)
	ORDER BY u.i;
	GET DIAGNOSTICS inserted = ROW_COUNT;

	-- A page that had a task before this call: the task's score rises
	-- when it is pending and the new score is higher (only-increase, with
	-- the operators' adjustment kept, 0001). Only those tasks are locked,
	-- in task id order (the order complete, fail, release and the job
	-- changes take them in): a duplicate that does not rise is not locked
	-- (every duplicate was, and a page linked from every page, whose task
	-- a worker held until its commit, held up every enqueue).
	IF v_raise_ids IS NOT NULL THEN
		PERFORM 1 FROM crawltop.tasks t WHERE t.id = ANY (v_raise_ids)
		ORDER BY t.id FOR UPDATE;
		-- the discovery that gives the higher score gives its depth,
		-- type and method, which that score came from (a page found
		-- again through a shorter path kept its old depth, so its
		-- links were queued one level too deep and a rescore took the
		-- raise back); what this call does not know stays. The source
		-- stays the first: it says how the page came in (a sitemap
		-- page stays one for apply_sitemap_priorities), and a changed
		-- source page would run the reference check of every raised
		-- row.
		UPDATE crawltop.tasks t
		SET base_score = u.s,
		    score = least(100, greatest(0, u.s + t.adjustment)),
		    class = crawltop.class_of(least(100, greatest(0,
			u.s + t.adjustment)), v_p0, v_p1, v_p2),
		    depth = coalesce(p_depth, t.depth),
		    type = coalesce(p_type, t.type),
		    discovery_method = coalesce(p_discovery_method,
			t.discovery_method)
		FROM unnest(v_raise_ids, v_raise_scores) AS u(id, s)
		WHERE t.id = u.id AND t.status = 'pending' AND t.base_score < u.s;
		GET DIAGNOSTICS raised = ROW_COUNT;
	END IF;

	IF inserted > 0 THEN
		UPDATE crawltop.jobs SET total_pages = total_pages + inserted,
			updated_at = now()
		WHERE id = j.id;
	END IF;
END $$;

-- Seed 000's batch update after a sitemap was processed: '/' gets the root
-- score and every page the job enqueued from a sitemap at least the
-- sitemap score; the job's pending tasks' base scores are raised to
-- match (hierarchy mode), keeping their operator adjustments, locked in
-- task id order first (0004). Enqueue already does this as it goes; this
-- repairs a job after a settings change (crawltop job sitemap-priorities).
-- One audit row (tasks.sitemap: the scores used, the pages and tasks
-- raised) when anything was raised. Returns the number of tasks raised.
CREATE FUNCTION crawltop.apply_sitemap_priorities(p_job_id bigint)
	RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
	j crawltop.jobs;
	h jsonb := crawltop.setting('{hierarchy}');
	c jsonb := crawltop.setting('{classes}');
	v_root double precision := (h->>'root')::double precision;
	v_sitemap double precision := (h->>'sitemap')::double precision;
	n integer := 0;
	n_root integer;
	n_pages integer;
BEGIN
	SELECT * INTO j FROM crawltop.jobs WHERE id = p_job_id FOR NO KEY UPDATE;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'job % does not exist', coalesce(p_job_id::text, 'NULL')
			USING ERRCODE = 'P0002';
	END IF;
	UPDATE crawltop.pages SET priority_score = v_root
	WHERE domain_id = j.domain_id AND path = '/' AND priority_score < v_root;
	GET DIAGNOSTICS n_root = ROW_COUNT;
	UPDATE crawltop.pages pg SET priority_score = v_sitemap
	FROM crawltop.tasks t
	WHERE t.job_id = j.id AND t.page_id = pg.id AND t.source_type = 'sitemap'
	  AND pg.priority_score < v_sitemap;
	GET DIAGNOSTICS n_pages = ROW_COUNT;
	IF j.prioritization_mode = 'hierarchy' THEN
		PERFORM 1 FROM crawltop.tasks t
		JOIN crawltop.pages pg ON pg.id = t.page_id
		WHERE t.job_id = j.id AND t.status = 'pending'
		  AND t.base_score < pg.priority_score * 100
		ORDER BY t.id FOR NO KEY UPDATE OF t;
		-- the base score rises; the score follows with the task's
		-- operator adjustment (0001)
		UPDATE crawltop.tasks t
		SET base_score = pg.priority_score * 100,
		    score = least(100, greatest(0, pg.priority_score * 100 + t.adjustment)),
		    class = crawltop.class_of(least(100, greatest(0,
			pg.priority_score * 100 + t.adjustment)),
			(c->>'p0')::double precision, (c->>'p1')::double precision,
			(c->>'p2')::double precision)
		FROM crawltop.pages pg
		WHERE t.job_id = j.id AND t.status = 'pending' AND pg.id = t.page_id
		  AND t.base_score < pg.priority_score * 100;
		GET DIAGNOSTICS n = ROW_COUNT;
	END IF;
	IF n + n_root + n_pages > 0 THEN
		INSERT INTO crawltop.audit_log (action, job_id, after, rows_affected)
		VALUES ('tasks.sitemap', j.id, jsonb_build_object('root', v_root,
			'sitemap', v_sitemap, 'pages_raised', n_root + n_pages), n);
	END IF;
	RETURN n;
END $$;
