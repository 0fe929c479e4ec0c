-- 0011_settings_console.sql: the engine settings, versioned and edited
-- live (issue 4 point 2, the console's weights panel).
--
-- crawltop.settings.value (0001) now holds every tunable of struct
-- ct_settings, in the layout of the configuration file
-- (data/crawltop.conf): one nested object per dotted key, the open maps
-- frontier.types, frontier.bonuses and frontier.aliases as objects, the
-- token lists as arrays; tier.default_priority keeps the name 0001 gave
-- it, default_priority, at the top level; the store's own keys stay under
-- "store". src/store/settings_json.c reads and writes this document with
-- the config key table (src/config/config_keys.c), the one list of
-- tunables: a key the document does not name takes its built-in default,
-- the maps merge entry by entry, a token list replaces the whole list.
--
--   settings_put(value, base_version, action, note)
--                     the one way a console writes a new version: one
--                     transaction, refused when base_version is no longer
--                     current (55000: someone else changed the settings)
--                     or when nothing changes (22023), with one audit_log
--                     row naming every changed key (dotted path) before
--                     and after. The insert NOTIFYs crawltop_settings
--                     (0008), so other consoles and workers reload.
--   preview_open(job, n, cursor)
--                     a cursor over up to n of a job's pending tasks with
--                     every engine input, in the columns of rescore_fetch
--                     (0005), so the console scores them with the engine
--                     exactly as a rescore would, without writing anything.
--   jsonb_leaves, jsonb_merge
--                     pure helpers: a document's leaves by dotted path,
--                     and a deep merge (the second argument wins).

-- Every leaf of an object as (dotted path, value): values that are not
-- objects, and empty objects. Arrays are leaves. (PL/pgSQL with a row
-- estimate: an inlined recursive query is estimated at a million rows,
-- which sends settings_put's diff through JIT compilation for a second.)
CREATE FUNCTION crawltop.jsonb_leaves(p_doc jsonb)
	RETURNS TABLE (path text, value jsonb)
	LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE ROWS 100 AS $$
BEGIN
	RETURN QUERY
	WITH RECURSIVE w (path, value) AS (
		SELECT e.key, e.value
		FROM jsonb_each(CASE WHEN jsonb_typeof(p_doc) = 'object'
			THEN p_doc ELSE '{}' END) e
		UNION ALL
		SELECT w.path || '.' || e.key, e.value
		FROM w CROSS JOIN LATERAL jsonb_each(CASE
			WHEN jsonb_typeof(w.value) = 'object' THEN w.value
			ELSE '{}' END) e
	)
	SELECT w.path, w.value FROM w
	WHERE jsonb_typeof(w.value) <> 'object' OR w.value = '{}';
END $$;

-- p_base with p_over laid over it, object by object: a key both have is
-- merged when both values are objects, else p_over's value wins.
CREATE FUNCTION crawltop.jsonb_merge(p_base jsonb, p_over jsonb)
	RETURNS jsonb LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
	SELECT CASE
		WHEN jsonb_typeof(p_base) <> 'object'
		  OR jsonb_typeof(p_over) <> 'object' THEN coalesce(p_over, p_base)
		ELSE (SELECT coalesce(jsonb_object_agg(k, CASE
				WHEN b.value IS NULL THEN o.value
				WHEN o.value IS NULL THEN b.value
				ELSE crawltop.jsonb_merge(b.value, o.value) END), '{}')
		      FROM jsonb_each(p_base) b FULL JOIN jsonb_each(p_over) o
			ON o.key = b.key,
		      LATERAL coalesce(b.key, o.key) k)
	END
$$;

-- A new settings version from a console: see the top of this file.
-- Returns the new version and the number of keys that changed.
CREATE FUNCTION crawltop.settings_put(p_value jsonb, p_base_version integer,
		p_action text DEFAULT 'settings.update', p_note text DEFAULT NULL,
		OUT version integer, OUT changed integer)
	LANGUAGE plpgsql AS $$
DECLARE
	v_cur crawltop.settings;
	v_before jsonb;
	v_after jsonb;
BEGIN
	IF p_action IS NULL OR p_action NOT IN ('settings.update', 'settings.undo') THEN
		RAISE EXCEPTION 'settings action % is unknown: settings.update or settings.undo',
			crawltop.shown(p_action) USING ERRCODE = '22023';
	END IF;
	IF p_value IS NULL OR jsonb_typeof(p_value) <> 'object' THEN
		RAISE EXCEPTION 'settings must be a JSON object, not %',
			coalesce(jsonb_typeof(p_value), 'NULL') USING ERRCODE = '22023';
	END IF;
	-- one writer at a time (operators may not LOCK the table in a mode
	-- that conflicts with itself; the key is this function's own)
	PERFORM pg_advisory_xact_lock(7236150011);
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

-- Open cursor p_cursor over up to p_n (1..100000) of job p_job_id's
-- pending tasks, in the columns of rescore_fetch (same names, same order:
-- the C side checks them), and return how many pending tasks the job has.
-- All of them when the job has at most p_n; else its first 100 in claim
-- order (score, created_at, id) and a random sample of the rest. The
-- cursor streams (no ORDER BY, nothing materialised): read it with FETCH
-- in the same transaction. Reads only: no locks beyond a snapshot.
CREATE FUNCTION crawltop.preview_open(p_job_id bigint, p_n integer,
		p_cursor text)
	RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
	v_total bigint;
	v_top bigint[] := '{}';
	v_frac double precision := 1;
	c refcursor := p_cursor;
BEGIN
	IF p_n IS NULL OR p_n NOT BETWEEN 1 AND 100000 THEN
		RAISE EXCEPTION 'preview sample size % is outside 1..100000',
			coalesce(p_n::text, 'NULL') USING ERRCODE = '22003';
	END IF;
	PERFORM 1 FROM crawltop.jobs j WHERE j.id = p_job_id;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'job % does not exist', coalesce(p_job_id::text, 'NULL')
			USING ERRCODE = 'P0002';
	END IF;
	SELECT count(*) INTO v_total FROM crawltop.tasks b
	WHERE b.job_id = p_job_id AND b.status = 'pending';
	IF v_total > p_n THEN
		SELECT coalesce(array_agg(b.id), '{}') INTO v_top FROM (
			SELECT b.id FROM crawltop.tasks b
			WHERE b.job_id = p_job_id AND b.status = 'pending'
			ORDER BY b.score DESC, b.created_at, b.id
			LIMIT least(100, p_n)) b;
		-- a little under the room left, so that LIMIT rarely cuts
		v_frac := 0.98 * (p_n - cardinality(v_top)) / v_total;
	END IF;
	OPEN c NO SCROLL FOR
		SELECT t.id AS task_id, t.page_id, t.score, t.class,
		       t.base_score, t.adjustment, d.name AS domain, p.path, p.priority_score AS page_score,
		       t.type, t.depth, t.discovery_method,
		       t.ranked_at IS NOT NULL AS ranked, x.*
		-- the sample first (a LIMIT keeps the subquery, and so the
		-- volatile filter, below the joins: only sampled rows go on)
		FROM (SELECT b.* FROM crawltop.tasks b
		      WHERE b.job_id = p_job_id AND b.status = 'pending'
			AND (v_frac >= 1 OR b.id = ANY (v_top) OR random() < v_frac)
		      LIMIT p_n) t
		JOIN crawltop.pages p ON p.id = t.page_id
		JOIN crawltop.domains d ON d.id = p.domain_id
		CROSS JOIN LATERAL crawltop.score_input_columns(t.score_inputs) x;
	RETURN v_total;
END $$;

-- The current version with every engine setting spelled out: the built-in
-- defaults (ct_settings_default(), as settings_json.c writes them; the
-- console test compares the two) under the values already set, which win.
INSERT INTO crawltop.settings (value, note)
SELECT crawltop.jsonb_merge($json$
{
		"classes": {
			"p0": 80,
			"p1": 60,
			"p2": 40
		},
		"hierarchy": {
			"root": 1,
			"sitemap": 0.5,
			"decay": 0.8,
			"floor": 0.1
		},
		"default_priority": 5,
		"frontier": {
			"types": {
				"article": 0,
				"hub-seed": 4,
				"history": 6,
				"nav": 10,
				"refresh": 25,
				"default": 12
			},
			"weights": {
				"base": 1,
				"gap-score": 1,
				"knowledge-reuse": 1
			},
			"features": {
				"gap_driven_prioritization": true,
				"planner_knowledge_reuse": true,
				"problem_clustering": true,
				"cost_aware_priority": false
			},
			"clustering": {
				"problem_threshold": 5,
				"boost_factor_per_cluster": 2.5,
				"boost_cap": 20
			},
			"cost": {
				"fast_ms": 100,
				"slow_ms": 500,
				"factor": 0.1
			},
			"total_prioritisation": {
				"enabled": false,
				"country": -5000,
				"country_related": -3000,
				"other": 5000000,
				"country_tokens": [],
				"related_tokens": []
			},
			"queue": {
				"max_depth": 10,
				"max_queue": 10000,
				"burst": 5,
				"max_scan": 64
			},
			"bonuses": {
				"adaptive-seed": 20,
				"gap-prediction": 15,
				"sitemap": 10,
				"hub-validated": 8,
				"link": 0
			},
			"aliases": {
				"intelligent-seed": "adaptive-seed",
				"adaptive-seed": "adaptive-seed",
				"hub-seed": "adaptive-seed",
				"sitemap": "sitemap",
				"validated-hub": "hub-validated",
				"link-discovery": "link"
			}
		},
		"discovery": {
			"weights": {
				"unseen_likelihood": 0.28,
				"host_novelty": 0.2,
				"content_readiness": 0.16,
				"link_yield": 0.14,
				"source_reliability": 0.1,
				"freshness": 0.06,
				"quality_safety": 0.04,
				"topic_boost": 0.02
			},
			"backoff": {
				"start_hours": 6,
				"max_hours": 48,
				"multiplier": 2
			}
		},
		"freshness": {
			"base": 50,
			"recent": -30,
			"today": -10,
			"stale": 15,
			"never": 15,
			"changed": 20,
			"topic_max": 15,
			"topic_high": 0.8,
			"hub": 10,
			"deep": -5,
			"deep_depth": 3
		}
	}
$json$::jsonb, s.value),
	'every engine setting, defaults where unset (0011_settings_console.sql)'
FROM crawltop.settings s ORDER BY s.version DESC LIMIT 1;

-- Privileges (0009's rules: nothing for PUBLIC, every function decided).
REVOKE ALL ON FUNCTION crawltop.jsonb_leaves(jsonb),
	crawltop.jsonb_merge(jsonb, jsonb),
	crawltop.settings_put(jsonb, integer, text, text),
	crawltop.preview_open(bigint, integer, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crawltop.jsonb_leaves(jsonb),
	crawltop.jsonb_merge(jsonb, jsonb)
	TO crawltop_viewer, crawltop_operator, crawltop_worker;
GRANT EXECUTE ON FUNCTION crawltop.preview_open(bigint, integer, text)
	TO crawltop_viewer;
GRANT EXECUTE ON FUNCTION crawltop.settings_put(jsonb, integer, text, text)
	TO crawltop_operator;
