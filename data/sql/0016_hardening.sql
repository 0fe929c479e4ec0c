-- 0016_hardening.sql: what a role may do to other roles' work, bounded.
--
--   rank_lock        locks only unfinished tasks of discovery jobs (the
--                    tasks rank_apply may write), so an operator holding a
--                    ranking batch open cannot stall a job of another mode
--   counter shards   owned through row locks on crawltop.counter_slots, a
--                    table no crawltop role may lock, instead of advisory
--                    locks that any role able to connect could take (all
--                    32 of them held made every claim wait)
--   settings_put     serialised by a table lock only the owner may take
--                    (was an advisory lock anyone could hold); a version's
--                    size and its maps' sizes are checked before anything
--                    that grows with them
--   map entry names  frontier.types, .bonuses and .aliases (names and
--                    targets): 1..31 of A-Z a-z 0-9 _ -, the characters of
--                    a task's type and discovery method
--   path_ok, url_ok  white space and control characters are one explicit
--                    list, the C check's (src/store/urlpath.c), whatever
--                    the database's locale says [:space:] is
--   lease expiries   counted apart from failed attempts (tasks.expiries),
--                    with their own limit, the setting store.max_expiries

-- ---- rank_lock: discovery jobs only ---------------------------------------

-- 0013's rank_lock, with the tasks it locks narrowed to those of jobs in
-- discovery mode (rank_apply writes no others). A job in another mode is
-- skipped as if it were not named.
CREATE OR REPLACE FUNCTION crawltop.rank_lock(p_jobs bigint[], p_after bigint,
		p_upto bigint, p_n integer)
	RETURNS TABLE (task_id bigint, backoff_step smallint, score_inputs jsonb,
		prev_class smallint, ranked boolean, due boolean,
		prev_result text, prev_ns_asn text)
	LANGUAGE plpgsql SECURITY DEFINER
	SET search_path = pg_catalog, pg_temp
	SET extra_float_digits = 3 AS $$
BEGIN
	IF p_n IS NULL OR p_n NOT BETWEEN 1 AND 100000 THEN
		RAISE EXCEPTION 'ranking batch of % tasks is outside 1..100000',
			coalesce(p_n::text, 'NULL') USING ERRCODE = '22003';
	END IF;
	RETURN QUERY
	SELECT t.id, t.backoff_step, t.score_inputs::jsonb, t.priority_class,
	       t.ranked_at IS NOT NULL,
	       t.next_check_at IS NULL OR t.next_check_at <= now(),
	       t.discovery_score::text || ' ' ||
	       (t.signals->>'unseen_likelihood') || ' ' ||
	       (t.signals->>'host_novelty') || ' ' ||
	       (t.signals->>'content_readiness') || ' ' ||
	       (t.signals->>'link_yield') || ' ' ||
	       (t.signals->>'source_reliability') || ' ' ||
	       (t.signals->>'freshness') || ' ' ||
	       (t.signals->>'quality_safety') || ' ' ||
	       (t.signals->>'topic_boost'),
	       t.signals->>'ns_asn_changes'
	FROM crawltop.tasks t
	WHERE t.job_id = ANY (ARRAY(SELECT j.id FROM crawltop.jobs j
				    WHERE j.id = ANY (p_jobs)
				      AND j.prioritization_mode = 'discovery'))
	  AND t.id > p_after AND t.id <= p_upto
	  AND t.status IN ('pending', 'running')
	ORDER BY t.id LIMIT p_n
	FOR NO KEY UPDATE OF t;
END $$;

-- ---- counter shards: row locks nobody else may take -----------------------

-- One row per shard: 0 is compaction's, 1..32 the writers'. A transaction
-- owns a shard while it holds the row's lock (FOR UPDATE). Locking a row
-- needs UPDATE rights on the table, which no crawltop role has: only the
-- store's own functions (running as the owner) and superusers lock them.
-- Locking a row writes its xmax (a small WAL record); fillfactor 10 and a
-- pad keep every row on a page of its own, so that concurrent writers
-- never take turns on one page's content lock.
CREATE TABLE crawltop.counter_slots (
	shard smallint PRIMARY KEY CHECK (shard BETWEEN 0 AND 32),
	pad   text NOT NULL
) WITH (fillfactor = 10);
INSERT INTO crawltop.counter_slots (shard, pad)
SELECT s, repeat('-', 1000) FROM generate_series(0, 32) s;
REVOKE ALL ON crawltop.counter_slots FROM PUBLIC;

-- The shard this transaction writes its counter changes to, taken on the
-- first call and kept until commit or rollback (the row lock of its slot,
-- remembered in the transaction-local setting crawltop.counter_shard).
-- Tries the backend's home shard (pid mod 32), then the first free one
-- after it, without waiting; only when all 32 are held by other
-- transactions does it wait for the home shard. Any session can set
-- crawltop.counter_shard, so the remembered shard is trusted only once
-- its row is locked here (locking a row the transaction already holds
-- succeeds at once and writes nothing; one that another transaction holds
-- is skipped, and a shard is then taken as if nothing were remembered).
CREATE OR REPLACE FUNCTION crawltop.counter_shard() RETURNS smallint
	LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	v text := current_setting('crawltop.counter_shard', true);
	n integer := crawltop.counter_shards();
	home integer := pg_backend_pid() % n;
	s smallint;
BEGIN
	IF v ~ '^[0-9]{1,2}$' AND v::integer BETWEEN 1 AND n THEN
		SELECT c.shard INTO s FROM crawltop.counter_slots c
		WHERE c.shard = v::smallint FOR UPDATE SKIP LOCKED;
		IF FOUND THEN
			RETURN s;
		END IF;
	END IF;
	SELECT c.shard INTO s FROM crawltop.counter_slots c
	WHERE c.shard = 1 + home FOR UPDATE SKIP LOCKED;
	IF NOT FOUND THEN
		SELECT c.shard INTO s FROM crawltop.counter_slots c
		WHERE c.shard BETWEEN 1 AND n
		ORDER BY (c.shard - 1 - home + n) % n
		LIMIT 1 FOR UPDATE SKIP LOCKED;
	END IF;
	IF NOT FOUND THEN
		SELECT c.shard INTO s FROM crawltop.counter_slots c
		WHERE c.shard = 1 + home FOR UPDATE;
	END IF;
	PERFORM set_config('crawltop.counter_shard', s::text, true);
	RETURN s;
END $$;

-- 0007's compact_counts, with the shards' row locks: slot 0 keeps two
-- compactions apart, a writer's slot is folded only when nobody holds it.
-- One compaction per transaction: a transaction that holds slot 0 already
-- (its row's xmax is this transaction) folds nothing more, so that no
-- transaction holds more than half of the writers' shards (three calls in
-- one open transaction took all 32, and every writer waited).
CREATE OR REPLACE FUNCTION crawltop.compact_counts() RETURNS integer
	LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	v_cut timestamptz := date_trunc('second', clock_timestamp())
		- make_interval(secs => crawltop.rate_retention_seconds());
	folded integer := 0;
	s integer;
BEGIN
	IF EXISTS (SELECT 1 FROM crawltop.counter_slots c WHERE c.shard = 0
		   AND c.xmax::text = (pg_current_xact_id()::text::bigint
					% 4294967296)::text) THEN
		RETURN 0;
	END IF;
	PERFORM 1 FROM crawltop.counter_slots c WHERE c.shard = 0
	FOR UPDATE SKIP LOCKED;
	IF NOT FOUND THEN
		RETURN 0;
	END IF;
	FOR s IN SELECT c.shard FROM crawltop.task_counts c WHERE c.shard > 0
		 UNION
		 SELECT r.shard FROM crawltop.rate_ticks r WHERE r.second < v_cut
		 ORDER BY 1 LOOP
		EXIT WHEN folded >= crawltop.counter_shards() / 2;
		PERFORM 1 FROM crawltop.counter_slots c WHERE c.shard = s
		FOR UPDATE SKIP LOCKED;
		CONTINUE WHEN NOT FOUND;
		WITH moved AS (
			DELETE FROM crawltop.task_counts c WHERE c.shard = s
			RETURNING c.job_id, c.dim, c.key, c.n
		)
		INSERT INTO crawltop.task_counts AS c (job_id, dim, key, shard, n)
		SELECT m.job_id, m.dim, m.key, 0, sum(m.n) FROM moved m
		GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
		ON CONFLICT (job_id, dim, key, shard) DO UPDATE SET n = c.n + excluded.n;
		DELETE FROM crawltop.rate_ticks r WHERE r.shard = s AND r.second < v_cut;
		folded := folded + 1;
	END LOOP;
	DELETE FROM crawltop.task_counts c WHERE c.shard = 0 AND c.n = 0;
	RETURN folded;
END $$;

-- ---- settings: sizes first, a lock of the owner's -------------------------

-- Why settings document p breaks a size rule, or NULL: at most 65,536
-- bytes as JSON text (the defaults are about 2,500), and at most 32
-- entries in each open map, its defaults included. Cheap (no leaf is
-- looked at), so settings_put and the trigger run it before the checks
-- whose work grows with the document: a 200,000-entry map was diffed and
-- checked entry by entry for 43 s before it was refused for its size.
CREATE FUNCTION crawltop.settings_size_fault(p jsonb) RETURNS text
	LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	d jsonb := crawltop.settings_defaults();
	bytes integer := octet_length(p::text);
	k record;
BEGIN
	IF bytes > 65536 THEN
		RETURN 'a settings version of ' || bytes
			|| ' bytes (as JSON text) is not allowed: at most 65536';
	END IF;
	FOR k IN SELECT r.path FROM crawltop.setting_rules r
		 WHERE r.kind LIKE 'map%' ORDER BY r.path LOOP
		IF (SELECT count(*) FROM (
			SELECT jsonb_object_keys(coalesce(d #> string_to_array(k.path, '.'), '{}'))
			UNION
			SELECT jsonb_object_keys(CASE WHEN jsonb_typeof(p #> string_to_array(k.path, '.')) = 'object'
				THEN p #> string_to_array(k.path, '.') ELSE '{}' END)) e (n)
		    WHERE NOT EXISTS (SELECT 1 FROM crawltop.setting_rules s
				      WHERE s.path = k.path || '.' || e.n)) > 32 THEN
			RETURN 'setting ' || k.path || ' is not allowed: more than 32 entries';
		END IF;
	END LOOP;
	RETURN NULL;
END $$;

-- 0011's settings_put: the size check first; one writer at a time through
-- a lock of the settings table that conflicts with itself, which only the
-- owner (this function runs as the owner) may take: the roles have SELECT
-- there, whose ACCESS SHARE lock conflicts with nothing settings_put takes.
CREATE OR REPLACE FUNCTION crawltop.settings_put(p_value jsonb, p_base_version integer,
		p_action text DEFAULT 'settings.update', p_note text DEFAULT NULL,
		OUT version integer, OUT changed integer)
	LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	v_cur crawltop.settings;
	v_before jsonb;
	v_after jsonb;
	v_why text;
BEGIN
	IF p_action IS NULL OR p_action NOT IN ('settings.update', 'settings.undo') THEN
		RAISE EXCEPTION 'settings action % is unknown: settings.update or settings.undo',
			crawltop.shown(p_action) USING ERRCODE = '22023';
	END IF;
	IF p_value IS NULL OR jsonb_typeof(p_value) <> 'object' THEN
		RAISE EXCEPTION 'settings must be a JSON object, not %',
			coalesce(jsonb_typeof(p_value), 'NULL') USING ERRCODE = '22023';
	END IF;
	v_why := crawltop.settings_size_fault(p_value);
	IF v_why IS NOT NULL THEN
		RAISE EXCEPTION '%', v_why USING ERRCODE = '22003';
	END IF;
	-- the current version is read after the lock: a snapshot taken
	-- before it (REPEATABLE READ, SERIALIZABLE) would miss a version
	-- written meanwhile and write over its change
	IF current_setting('transaction_isolation') <> 'read committed' THEN
		RAISE EXCEPTION 'settings are written in READ COMMITTED only, not %: a snapshot taken before the lock would write over a version written meanwhile',
			upper(current_setting('transaction_isolation'))
			USING ERRCODE = '0A000';
	END IF;
	LOCK TABLE crawltop.settings IN SHARE ROW EXCLUSIVE MODE;
	SELECT * INTO v_cur FROM crawltop.settings s ORDER BY s.version DESC LIMIT 1;
	IF v_cur.version IS DISTINCT FROM p_base_version THEN
		RAISE EXCEPTION 'settings version % is current, not % (written by % at %): reload and edit again',
			coalesce(v_cur.version::text, 'none'),
			coalesce(p_base_version::text, 'NULL'), v_cur.created_by,
			to_char(v_cur.created_at, 'YYYY-MM-DD HH24:MI:SS')
			USING ERRCODE = '55000';
	END IF;
	SELECT count(*),
	       coalesce(jsonb_object_agg(d.path, coalesce(o.value, 'null'::jsonb)), '{}'),
	       coalesce(jsonb_object_agg(d.path, coalesce(n.value, 'null'::jsonb)), '{}')
	INTO changed, v_before, v_after
	FROM crawltop.jsonb_leaves(v_cur.value) o
	FULL JOIN crawltop.jsonb_leaves(p_value) n ON n.path = o.path
	CROSS JOIN LATERAL coalesce(o.path, n.path) AS d (path)
	WHERE o.value IS DISTINCT FROM n.value;
	IF changed = 0 THEN
		RAISE EXCEPTION 'nothing to change: the settings equal version %',
			v_cur.version USING ERRCODE = '22023';
	END IF;
	INSERT INTO crawltop.settings (value, note)
	VALUES (p_value, coalesce(p_note, p_action))
	RETURNING crawltop.settings.version INTO version;
	INSERT INTO crawltop.audit_log (action, before, after, rows_affected)
	VALUES (p_action, v_before || jsonb_build_object('version', v_cur.version),
		v_after || jsonb_build_object('version', version), changed);
END $$;

-- The store's own key for lease expiries (below).
INSERT INTO crawltop.setting_rules (path, kind, lo, lo_out, hi, hi_out, rule)
VALUES ('store.max_expiries', 'integer', 0, false, 1000, false,
	'an integer, 0..1000 (leases of one task that may run out before it fails; 10 when not set)');

-- 0014's check of a settings version: the size rules first (above), then
-- every leaf, with map entry names (and alias targets) held to the
-- characters of a task's type and discovery method; the rules between
-- keys as before.
CREATE OR REPLACE FUNCTION crawltop.settings_check_row() RETURNS trigger
	LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	l record;
	r crawltop.setting_rules;
	found_rule boolean;
	name text;
	why text;
	e jsonb;
	k record;
	sum numeric := 0;
	parts text := '';
	name_rule constant text := '^[A-Za-z0-9_-]{1,31}$';
	name_chars constant text := '1 to 31 of A-Z, a-z, 0-9, _ and -';
BEGIN
	IF jsonb_typeof(NEW.value) IS DISTINCT FROM 'object' THEN
		RAISE EXCEPTION 'the settings must be a JSON object, not %',
			coalesce(jsonb_typeof(NEW.value), 'NULL') USING ERRCODE = '22023';
	END IF;
	why := crawltop.settings_size_fault(NEW.value);
	IF why IS NOT NULL THEN
		RAISE EXCEPTION '%', why USING ERRCODE = '22003';
	END IF;
	-- every value: a key's, a map entry's, or nothing the settings know
	FOR l IN SELECT * FROM crawltop.jsonb_leaves(NEW.value) ORDER BY 1 LOOP
		name := NULL;
		-- an empty group: its keys keep their defaults
		CONTINUE WHEN l.value = '{}' AND EXISTS (SELECT 1 FROM
			crawltop.setting_rules s WHERE left(s.path, length(l.path) + 1) = l.path || '.');
		SELECT * INTO r FROM crawltop.setting_rules s WHERE s.path = l.path;
		found_rule := FOUND;
		IF NOT found_rule THEN
			SELECT * INTO r FROM crawltop.setting_rules s
			WHERE s.kind LIKE 'map%' AND left(l.path, length(s.path) + 1) = s.path || '.';
			found_rule := FOUND;
			name := substr(l.path, length(r.path) + 2);
		END IF;
		IF NOT found_rule OR strpos(name, '.') > 0 THEN
			RAISE EXCEPTION 'setting % is not a key of the settings (crawltop settings get lists them)',
				crawltop.setting_shown(l.path) USING ERRCODE = '22023';
		END IF;
		why := NULL;
		IF name IS NULL AND r.kind LIKE 'map%' THEN
			IF jsonb_typeof(l.value) <> 'object' THEN
				why := 'must be an object of entries: ' || r.rule;
			END IF;
		ELSIF name IS NOT NULL AND name !~ name_rule THEN
			why := 'an entry''s name is ' || name_chars;
		ELSIF name IS NOT NULL AND EXISTS (
			SELECT 1 FROM crawltop.setting_rules s
			WHERE left(s.path, length(r.path) + 1) = r.path || '.'
			  AND s.path <> l.path
			  AND strpos(substr(s.path, length(r.path) + 2), '.') = 0
			  AND crawltop.edit_distance(name, substr(s.path, length(r.path) + 2)) <= 2) THEN
			why := 'a new entry within 2 edits of a fixed key of ' || r.path || ' is taken for a typo';
		ELSIF r.kind IN ('number', 'integer', 'map_number') THEN
			why := crawltop.setting_number_fault(r, l.value);
		ELSIF r.kind = 'boolean' AND jsonb_typeof(l.value) <> 'boolean' THEN
			why := 'must be true or false';
		ELSIF r.kind = 'map_string' AND (jsonb_typeof(l.value) <> 'string'
			OR (l.value->>0) !~ name_rule) THEN
			why := 'must be a name of ' || name_chars || ': ' || r.rule;
		ELSIF r.kind = 'tokens' THEN
			IF jsonb_typeof(l.value) <> 'array' THEN
				why := 'must be an array of strings ["a", "b"]';
			ELSIF jsonb_array_length(l.value) > 64 THEN
				why := jsonb_array_length(l.value) || ' tokens, at most 64 allowed';
			ELSIF EXISTS (SELECT 1 FROM jsonb_array_elements(l.value) t
				      WHERE jsonb_typeof(t) <> 'string'
				         OR (t->>0) !~ '^[a-z0-9]{1,31}$') THEN
				why := 'every token is a word of 1 to 31 of a-z and 0-9';
			END IF;
		END IF;
		IF why IS NOT NULL THEN
			RAISE EXCEPTION 'setting % = % is not allowed: %', crawltop.setting_shown(l.path),
				left(l.value::text, 80), why USING ERRCODE = '22003';
		END IF;
	END LOOP;
	-- the rules between keys (src/config/config_check.c)
	IF crawltop.setting_or_default(NEW.value, 'classes.p0')::numeric
	   <= crawltop.setting_or_default(NEW.value, 'classes.p1')::numeric
	   OR crawltop.setting_or_default(NEW.value, 'classes.p1')::numeric
	   <= crawltop.setting_or_default(NEW.value, 'classes.p2')::numeric THEN
		RAISE EXCEPTION 'settings classes.p0 = %, p1 = %, p2 = % are not allowed: the bounds must fall, p0 > p1 > p2',
			crawltop.setting_or_default(NEW.value, 'classes.p0'),
			crawltop.setting_or_default(NEW.value, 'classes.p1'),
			crawltop.setting_or_default(NEW.value, 'classes.p2') USING ERRCODE = '22003';
	END IF;
	IF crawltop.setting_or_default(NEW.value, 'hierarchy.root')::numeric
	   < crawltop.setting_or_default(NEW.value, 'hierarchy.sitemap')::numeric
	   OR crawltop.setting_or_default(NEW.value, 'hierarchy.sitemap')::numeric
	   < crawltop.setting_or_default(NEW.value, 'hierarchy.floor')::numeric THEN
		RAISE EXCEPTION 'settings hierarchy.root = %, sitemap = %, floor = % are not allowed: root >= sitemap >= floor',
			crawltop.setting_or_default(NEW.value, 'hierarchy.root'),
			crawltop.setting_or_default(NEW.value, 'hierarchy.sitemap'),
			crawltop.setting_or_default(NEW.value, 'hierarchy.floor') USING ERRCODE = '22003';
	END IF;
	FOR k IN SELECT * FROM (VALUES
		('frontier.cost.slow_ms', 'frontier.cost.fast_ms', 'a cost cannot be both fast and slow'),
		('discovery.backoff.max_hours', 'discovery.backoff.start_hours', 'the longest wait cannot be shorter than the first'),
		('store.retry_max_seconds', 'store.retry_base_seconds', 'the longest wait must be at least the first')
	) AS o (upper, lower, why) LOOP
		IF crawltop.setting_or_default(NEW.value, k.upper)::numeric
		   < crawltop.setting_or_default(NEW.value, k.lower)::numeric THEN
			RAISE EXCEPTION 'settings % = %, % = % are not allowed: %, % >= %',
				k.lower, crawltop.setting_or_default(NEW.value, k.lower),
				substr(k.upper, length(k.upper) - strpos(reverse(k.upper), '.') + 2),
				crawltop.setting_or_default(NEW.value, k.upper), k.why,
				substr(k.upper, length(k.upper) - strpos(reverse(k.upper), '.') + 2),
				substr(k.lower, length(k.lower) - strpos(reverse(k.lower), '.') + 2)
				USING ERRCODE = '22003';
		END IF;
	END LOOP;
	-- every alias leads to a method with a bonus
	FOR k IN SELECT a.key, a.value->>0 AS target
		 FROM jsonb_each(CASE WHEN jsonb_typeof(NEW.value #> '{frontier,aliases}') = 'object'
			THEN NEW.value #> '{frontier,aliases}' ELSE '{}' END) a
		 WHERE NOT (crawltop.settings_defaults() #> '{frontier,bonuses}') ? (a.value->>0)
		   AND NOT coalesce(NEW.value #> '{frontier,bonuses}' ? (a.value->>0), false) LOOP
		RAISE EXCEPTION 'setting frontier.aliases.% = % is not allowed: no method % in frontier.bonuses',
			crawltop.setting_shown(k.key), crawltop.shown(k.target), crawltop.shown(k.target)
			USING ERRCODE = '22003';
	END LOOP;
	-- total prioritisation drops every item that is not a country item
	IF crawltop.setting_or_default(NEW.value, 'frontier.total_prioritisation.enabled') = 'true'
	   AND jsonb_array_length(crawltop.setting_or_default(NEW.value,
		'frontier.total_prioritisation.country_tokens')) = 0 THEN
		RAISE EXCEPTION 'settings frontier.total_prioritisation.enabled = true with country_tokens = [] are not allowed: total prioritisation needs at least one country token'
			USING ERRCODE = '22003';
	END IF;
	-- the discovery weights sum to 1 (SPEC.md: within 1e-6; the engine
	-- allows a few ulps more, ct_discovery_weights_check)
	FOR k IN SELECT w FROM unnest(ARRAY['unseen_likelihood', 'host_novelty',
		'content_readiness', 'link_yield', 'source_reliability',
		'freshness', 'quality_safety', 'topic_boost']) AS w LOOP
		e := crawltop.setting_or_default(NEW.value, 'discovery.weights.' || k.w);
		sum := sum + e::numeric;
		parts := parts || CASE WHEN parts = '' THEN '' ELSE ', ' END
			 || k.w || '=' || e::text;
	END LOOP;
	IF abs(sum - 1) > 0.000001000001 THEN
		RAISE EXCEPTION 'settings discovery.weights are not allowed: they sum to %, not 1 (tolerance 1e-6): %',
			sum, parts USING ERRCODE = '22003';
	END IF;
	RETURN NEW;
END $$;

-- A database whose current settings name a map entry that the rule above
-- refuses (0014 took any name of 1..31 bytes) could no longer be read by
-- any program, `crawltop settings set` included. Such entries are taken
-- out of a new version, which names them in its note and in an audit row
-- (the version before keeps them; settings history shows both), and so
-- are the aliases that led to a bonus taken out.
DO $$
DECLARE
	cur crawltop.settings;
	fr jsonb;
	rule constant text := '^[A-Za-z0-9_-]{1,31}$';
	gone text[] := '{}';
	k text;
	m text;
	v jsonb;
	v_new integer;
BEGIN
	SELECT * INTO cur FROM crawltop.settings s ORDER BY s.version DESC LIMIT 1;
	fr := cur.value->'frontier';
	IF jsonb_typeof(fr) IS DISTINCT FROM 'object' THEN
		RETURN;
	END IF;
	FOREACH m IN ARRAY ARRAY['types', 'bonuses', 'aliases'] LOOP
		CONTINUE WHEN jsonb_typeof(fr->m) IS DISTINCT FROM 'object';
		FOR k, v IN SELECT e.key, e.value FROM jsonb_each(fr->m) e ORDER BY 1 LOOP
			IF k !~ rule OR (m = 'aliases' AND ((v->>0) IS NULL
			   OR (v->>0) !~ rule OR NOT (
				(crawltop.settings_defaults() #> '{frontier,bonuses}') ? (v->>0)
				OR (jsonb_typeof(fr->'bonuses') = 'object'
				    AND (fr->'bonuses') ? (v->>0)
				    AND (v->>0) ~ rule)))) THEN
				fr := jsonb_set(fr, ARRAY[m], (fr->m) - k);
				gone := gone || ('frontier.' || m || '.' || to_json(k)::text);
			END IF;
		END LOOP;
	END LOOP;
	IF cardinality(gone) = 0 THEN
		RETURN;
	END IF;
	INSERT INTO crawltop.settings (value, note)
	VALUES (jsonb_set(cur.value, '{frontier}', fr),
		'migration 0016: map entries whose names are not 1 to 31 of A-Z, a-z, 0-9, _ and - taken out: '
		|| array_to_string(gone, ', '))
	RETURNING crawltop.settings.version INTO v_new;
	INSERT INTO crawltop.audit_log (action, before, after, rows_affected)
	VALUES ('settings.update', jsonb_build_object('version', cur.version,
			'taken_out', to_jsonb(gone)),
		jsonb_build_object('version', v_new), cardinality(gone));
END $$;

REVOKE ALL ON FUNCTION crawltop.settings_size_fault(jsonb) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crawltop.settings_size_fault(jsonb)
	TO crawltop_viewer, crawltop_operator, crawltop_worker;

-- ---- path_ok, url_ok: one list of white space and control characters ------

-- 0001's checks, with [:space:][:cntrl:] (whose meaning beyond ASCII is
-- the database locale's: under the C locale NBSP U+00A0, U+2007 and
-- U+202F passed) replaced by the C check's own list
-- (urlpath_space_or_control): U+0001..U+0020, U+007F..U+00A0, U+1680,
-- U+2000..U+200A, U+2028, U+2029, U+202F, U+205F, U+3000.
-- tests/store/test_pathrule.c holds the two to one verdict for every code
-- point. Inlined into whoever writes the column, so every operator is
-- pg_catalog's by name (0001).
CREATE OR REPLACE FUNCTION crawltop.path_ok(p text) RETURNS boolean
	LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
	SELECT p IS NOT NULL
	   AND pg_catalog.octet_length(p) OPERATOR(pg_catalog.<=) crawltop.max_url_bytes()
	   AND p OPERATOR(pg_catalog.~) '^/[^\u0001-\u0020\u007F-\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000#\u00AD\u034F\u0600-\u0605\u061C\u06DD\u070F\u0890-\u0891\u08E2\u115F-\u1160\u17B4-\u17B5\u180B-\u180F\u200B-\u200F\u202A-\u202E\u2060-\u206F\u3164\uFE00-\uFE0F\uFEFF\uFFA0\uFFF0-\uFFFB\U000110BD\U000110CD\U00013430-\U0001343F\U0001BCA0-\U0001BCA3\U0001D173-\U0001D17A\U000E0000-\U000E0FFF]*$'
	   AND p OPERATOR(pg_catalog.!~) '^[^?]*/\.\.?(/|\?|$)'
$$;

CREATE OR REPLACE FUNCTION crawltop.url_ok(u text) RETURNS boolean
	LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
	SELECT u IS NOT NULL
	   AND pg_catalog.octet_length(u) OPERATOR(pg_catalog.<=) crawltop.max_url_bytes()
	   AND u OPERATOR(pg_catalog.~) '^https?://[^\u0001-\u0020\u007F-\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000/?#\u00AD\u034F\u0600-\u0605\u061C\u06DD\u070F\u0890-\u0891\u08E2\u115F-\u1160\u17B4-\u17B5\u180B-\u180F\u200B-\u200F\u202A-\u202E\u2060-\u206F\u3164\uFE00-\uFE0F\uFEFF\uFFA0\uFFF0-\uFFFB\U000110BD\U000110CD\U00013430-\U0001343F\U0001BCA0-\U0001BCA3\U0001D173-\U0001D17A\U000E0000-\U000E0FFF]+(/[^\u0001-\u0020\u007F-\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000\u00AD\u034F\u0600-\u0605\u061C\u06DD\u070F\u0890-\u0891\u08E2\u115F-\u1160\u17B4-\u17B5\u180B-\u180F\u200B-\u200F\u202A-\u202E\u2060-\u206F\u3164\uFE00-\uFE0F\uFEFF\uFFA0\uFFF0-\uFFFB\U000110BD\U000110CD\U00013430-\U0001343F\U0001BCA0-\U0001BCA3\U0001D173-\U0001D17A\U000E0000-\U000E0FFF]*)?$'
$$;

-- ---- lease expiries: counted apart from failed attempts -------------------

-- How many times a lease of the task ran out with its worker gone (the
-- reaper's count). A worker that dies, a connection cut, a server restart:
-- none of them is the task's fault, so they no longer use up the job's
-- max_retries, which count the attempts a worker reported failed. They
-- have a limit of their own all the same (store.max_expiries, default
-- 10): a page that kills every worker that fetches it must end.
ALTER TABLE crawltop.tasks ADD COLUMN expiries smallint NOT NULL DEFAULT 0;

-- 0005's reaper. An expired lease WITH an owner (a worker that vanished)
-- adds one to expiries and leaves retry_count alone; the task fails once
-- expiries would pass store.max_expiries (10 when the settings leave it
-- out). One WITHOUT owner is a retry whose backoff is over, as before. A
-- cancelled job's task becomes skipped. job_priority is recomputed from
-- the job (+ 100 while paused); a task back in pending has pending_since
-- now and, in hierarchy mode, at least its page's score
-- (base_on_return). Returns the number of tasks changed.
CREATE OR REPLACE FUNCTION crawltop.reap_expired(p_limit integer DEFAULT 100)
	RETURNS integer LANGUAGE plpgsql SECURITY DEFINER
	SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	n integer;
	v_ids bigint[];
	c jsonb;
	v_max integer;
BEGIN
	IF p_limit IS NULL OR p_limit < 0 THEN
		RAISE EXCEPTION 'reap limit % is negative', coalesce(p_limit::text, 'NULL')
			USING ERRCODE = '22003';
	END IF;
	-- every claim calls this: when nothing expired (the common case), one
	-- probe of tasks_lease, and no UPDATE (whose statement trigger would
	-- fire for no row)
	IF NOT EXISTS (SELECT 1 FROM crawltop.tasks t
		       WHERE t.status = 'running' AND t.lease_expires_at < now()) THEN
		RETURN 0;
	END IF;
	SELECT array_agg(e.id) INTO v_ids FROM (
		SELECT t.id FROM crawltop.tasks t
		WHERE t.status = 'running' AND t.lease_expires_at < now()
		ORDER BY t.lease_expires_at
		LIMIT p_limit
		FOR UPDATE SKIP LOCKED) e;
	IF v_ids IS NULL THEN
		RETURN 0;
	END IF;
	-- their jobs' state and priority, held until commit (0005)
	PERFORM 1 FROM crawltop.jobs j
	WHERE j.id IN (SELECT t.job_id FROM crawltop.tasks t WHERE t.id = ANY (v_ids))
	ORDER BY j.id FOR KEY SHARE;
	c := crawltop.setting('{classes}');
	v_max := coalesce((crawltop.setting('{store,max_expiries}'))::integer, 10);
	WITH next AS (
		SELECT t.id,
		       CASE WHEN j.status = 'cancelled' THEN 'skipped'
			    WHEN t.lease_owner IS NULL THEN 'pending'
			    WHEN t.expiries >= v_max THEN 'failed'
			    ELSE 'pending' END AS status,
		       j.priority + CASE WHEN j.status = 'paused' THEN 100 ELSE 0 END
			   AS job_priority,
		       crawltop.base_on_return(j.prioritization_mode, t.base_score,
			   p.priority_score) AS base
		FROM crawltop.tasks t
		JOIN crawltop.jobs j ON j.id = t.job_id
		JOIN crawltop.pages p ON p.id = t.page_id
		WHERE t.id = ANY (v_ids)
	)
	UPDATE crawltop.tasks t
	SET status = x.status,
	    job_priority = x.job_priority,
	    base_score = CASE WHEN x.status = 'pending' THEN x.base
		ELSE t.base_score END,
	    score = CASE WHEN x.status = 'pending' AND x.base > t.base_score
		THEN least(100, greatest(0, x.base + t.adjustment))
		ELSE t.score END,
	    class = CASE WHEN x.status = 'pending' AND x.base > t.base_score
		THEN crawltop.class_of(least(100, greatest(0,
		    x.base + t.adjustment)), (c->>'p0')::double precision,
		    (c->>'p1')::double precision, (c->>'p2')::double precision)
		ELSE t.class END,
	    expiries = t.expiries + CASE WHEN t.lease_owner IS NOT NULL
		THEN 1 ELSE 0 END,
	    last_error = CASE
		WHEN t.lease_owner IS NOT NULL AND x.status = 'failed'
		THEN 'lease of ' || t.lease_owner || ' expired (' ||
		     (t.expiries + 1) || ' expiries, store.max_expiries = ' ||
		     v_max || ')'
		WHEN t.lease_owner IS NOT NULL
		THEN 'lease of ' || t.lease_owner || ' expired'
		ELSE t.last_error END,
	    completed_at = CASE WHEN x.status <> 'pending' THEN now() END,
	    pending_since = CASE WHEN x.status = 'pending' THEN now()
		ELSE t.pending_since END,
	    lease_owner = NULL,
	    lease_expires_at = NULL
	FROM next x
	WHERE t.id = x.id;
	GET DIAGNOSTICS n = ROW_COUNT;
	RETURN n;
END $$;
