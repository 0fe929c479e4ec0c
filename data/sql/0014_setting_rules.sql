-- 0014_setting_rules.sql: every settings version is checked in full as it
-- is written, whoever writes it (`crawltop settings`, the console, or plain
-- SQL through crawltop.settings_put or an INSERT).
--
-- Before, the trigger checked only what SQL itself reads (the store's keys,
-- the hierarchy scores and the class bounds) and left the engine's keys to
-- the C layer. A version written with SQL could then hold discovery weights
-- that do not sum to 1, and every command that reads the settings refused
-- the store until someone undid it. Now the rules of the C configuration
-- layer (src/config/config_keys.c: every key's type and range, the open
-- maps, the token lists; config_check.c: the rules between keys) are
-- restated here, as rows of crawltop.setting_rules and as the checks of
-- crawltop.settings_check_row. tests/store/test_settings_rules.c holds the
-- two together: it compares the rows with the C key table, the defaults
-- with the engine's, and the verdicts of both on a few hundred documents.

-- One row per key of the settings document (dotted path, the store's
-- spelling: default_priority at the top level) and per open map (its
-- entries are path.NAME): what its values must be.
--   kind: number, integer (whole, written without '.' or exponent),
--         boolean, tokens (an array of at most 64 words of a-z and 0-9,
--         1..31 characters), map_number (entries: numbers), map_string
--         (entries: names of 1..31 bytes)
--   lo, hi: the range (NULL: unbounded; numbers are finite doubles
--         anyway); lo_out, hi_out: the end itself is outside
--   rule: the rule, as a refusal says it
CREATE TABLE crawltop.setting_rules (
	path   text PRIMARY KEY,
	kind   text NOT NULL CHECK (kind IN ('number', 'integer', 'boolean',
		'tokens', 'map_number', 'map_string')),
	lo     double precision,
	lo_out boolean NOT NULL,
	hi     double precision,
	hi_out boolean NOT NULL,
	rule   text NOT NULL
);
REVOKE ALL ON crawltop.setting_rules FROM PUBLIC;
GRANT SELECT ON crawltop.setting_rules
	TO crawltop_viewer, crawltop_operator, crawltop_worker;

INSERT INTO crawltop.setting_rules (path, kind, lo, lo_out, hi, hi_out, rule)
VALUES
	-- the store's own keys (read by SQL: claims, retries, the guard)
	('store.lease_seconds', 'number', 0.01, false, 86400, false,
	 'a number of seconds, 0.01..86400'),
	('store.max_retries', 'integer', 0, false, 100, false,
	 'an integer, 0..100'),
	('store.retry_base_seconds', 'number', 0, true, 86400, false,
	 'a number of seconds in (0, 86400]'),
	('store.retry_max_seconds', 'number', 0, true, 2592000, false,
	 'a number of seconds in (0, 2592000] (30 days)'),
	('store.starvation_seconds', 'number', 0, true, 2592000, false,
	 'a number of seconds in (0, 2592000] (30 days)'),
	('store.starvation_every', 'integer', 0, false, 1000, false,
	 'an integer, 2..1000 (one claimed slot in that many goes to starving tasks) or 0 (guard off)'),
	-- the engine's keys and maps (src/config/config_keys.c, its help text
	-- as the rule)
	('classes.p0', 'number', 0, false, 100, false,
	 'P0 lower bound, score 0..100, > p1; higher = fewer P0 tasks'),
	('classes.p1', 'number', 0, false, 100, false,
	 'P1 lower bound, score 0..100, > p2; higher = fewer P1 tasks'),
	('classes.p2', 'number', 0, false, 100, false,
	 'P2 lower bound, score 0..100; below it is P3'),
	('hierarchy.root', 'number', 0, true, 1, false,
	 'score of path /, 0 < x <= 1, >= sitemap'),
	('hierarchy.sitemap', 'number', 0, true, 1, false,
	 'score of a sitemap page, 0 < x <= 1, between floor and root'),
	('hierarchy.decay', 'number', 0, true, 1, true,
	 'linked page = decay x source score, 0 < x < 1; lower = faster fall'),
	('hierarchy.floor', 'number', 0, true, 1, false,
	 'lowest score, 0 < x <= 1, <= sitemap'),
	('default_priority', 'integer', 1, false, 10, false,
	 'job priority when none is given, 1..10; lower = sooner'),
	('frontier.types.default', 'number', 0, false, NULL, false,
	 'weight of a type not listed, >= 0; lower = sooner'),
	('frontier.weights.base', 'number', 0, false, NULL, false,
	 'multiplies typeWeight + depth + bias, >= 0'),
	('frontier.weights.gap-score', 'number', 0, false, NULL, false,
	 'multiplies the gap score, >= 0; higher = gaps sooner'),
	('frontier.weights.knowledge-reuse', 'number', 0, false, NULL, false,
	 'multiplies knowledge reuse (0..1), >= 0; higher = sooner'),
	('frontier.features.gap_driven_prioritization', 'boolean', NULL, false, NULL, false,
	 'true/false: subtract the gap score'),
	('frontier.features.planner_knowledge_reuse', 'boolean', NULL, false, NULL, false,
	 'true/false: subtract knowledge reuse'),
	('frontier.features.problem_clustering', 'boolean', NULL, false, NULL, false,
	 'true/false: subtract the cluster boost'),
	('frontier.features.cost_aware_priority', 'boolean', NULL, false, NULL, false,
	 'true/false: fast actions sooner, slow ones later'),
	('frontier.clustering.problem_threshold', 'integer', 1, false, 2147483647, false,
	 'occurrences before a cluster boosts, whole >= 1'),
	('frontier.clustering.boost_factor_per_cluster', 'number', 0, false, NULL, false,
	 'boost = log2(occurrences) x this, >= 0; higher = sooner'),
	('frontier.clustering.boost_cap', 'number', 0, false, NULL, false,
	 'largest cluster boost, priority units, >= 0'),
	('frontier.cost.fast_ms', 'number', 0, false, NULL, false,
	 'ms; cost below this is fast (sooner), >= 0, <= slow_ms'),
	('frontier.cost.slow_ms', 'number', 0, false, NULL, false,
	 'ms; cost above this is slow (later), >= fast_ms'),
	('frontier.cost.factor', 'number', 0, false, 1, true,
	 'fraction of |priority| moved, 0 <= x < 1'),
	('frontier.total_prioritisation.enabled', 'boolean', NULL, false, NULL, false,
	 'true/false: offset by country class, drop ''other'''),
	('frontier.total_prioritisation.country', 'number', NULL, false, NULL, false,
	 'offset added to country items; lower = sooner'),
	('frontier.total_prioritisation.country_related', 'number', NULL, false, NULL, false,
	 'offset added to country-related items; lower = sooner'),
	('frontier.total_prioritisation.other', 'number', NULL, false, NULL, false,
	 'offset added to other items (dropped)'),
	('frontier.total_prioritisation.country_tokens', 'tokens', NULL, false, NULL, false,
	 'lower-case words marking a country item, at most 64'),
	('frontier.total_prioritisation.related_tokens', 'tokens', NULL, false, NULL, false,
	 'lower-case words marking a country-related item, at most 64'),
	('frontier.queue.max_depth', 'integer', 0, false, 2147483647, false,
	 'deepest link depth enqueued, whole >= 0'),
	('frontier.queue.max_queue', 'integer', 1, false, 2147483647, false,
	 'items in both queues together, >= 1'),
	('frontier.queue.burst', 'integer', 1, false, 2147483647, false,
	 'pulls from one queue while the other waits, >= 1'),
	('frontier.queue.max_scan', 'integer', 1, false, 2147483647, false,
	 'items one pull scans for a ready host, >= 1'),
	('discovery.weights.unseen_likelihood', 'number', 0, false, 1, false,
	 'share of the score, 0..1, the eight sum to 1 (+-1e-6)'),
	('discovery.weights.host_novelty', 'number', 0, false, 1, false,
	 'share of the score, 0..1, the eight sum to 1 (+-1e-6)'),
	('discovery.weights.content_readiness', 'number', 0, false, 1, false,
	 'share of the score, 0..1, the eight sum to 1 (+-1e-6)'),
	('discovery.weights.link_yield', 'number', 0, false, 1, false,
	 'share of the score, 0..1, the eight sum to 1 (+-1e-6)'),
	('discovery.weights.source_reliability', 'number', 0, false, 1, false,
	 'share of the score, 0..1, the eight sum to 1 (+-1e-6)'),
	('discovery.weights.freshness', 'number', 0, false, 1, false,
	 'share of the score, 0..1, the eight sum to 1 (+-1e-6)'),
	('discovery.weights.quality_safety', 'number', 0, false, 1, false,
	 'share of the score, 0..1, the eight sum to 1 (+-1e-6)'),
	('discovery.weights.topic_boost', 'number', 0, false, 1, false,
	 'share of the score, 0..1, the eight sum to 1 (+-1e-6)'),
	('discovery.backoff.start_hours', 'number', 0, true, 87600, false,
	 'hours, first P2 wait, > 0, <= max_hours; lower = sooner'),
	('discovery.backoff.max_hours', 'number', 0, true, 87600, false,
	 'hours, longest P2 wait, >= start_hours, <= 87600 (10 years; P3: twice)'),
	('discovery.backoff.multiplier', 'number', 1, false, 1000, false,
	 'wait x this per unchanged recheck, 1..1000'),
	('freshness.base', 'number', 0, false, 100, false,
	 'starting score, 0..100; higher = sooner'),
	('freshness.recent', 'number', -100, false, 100, false,
	 'added when visited < 1 h ago, -100..100'),
	('freshness.today', 'number', -100, false, 100, false,
	 'added when visited < 24 h ago, -100..100'),
	('freshness.stale', 'number', -100, false, 100, false,
	 'added when not visited for > 7 days, -100..100'),
	('freshness.never', 'number', -100, false, 100, false,
	 'added when never visited, -100..100'),
	('freshness.changed', 'number', -100, false, 100, false,
	 'added when changed < 24 h ago, -100..100'),
	('freshness.topic_max', 'number', 0, false, 100, false,
	 'added: round(relevance x this), 0..100'),
	('freshness.topic_high', 'number', 0, false, 1, false,
	 'relevance above this is ''High topic relevance'', 0..1'),
	('freshness.hub', 'number', -100, false, 100, false,
	 'added for a hub page, -100..100'),
	('freshness.deep', 'number', -100, false, 100, false,
	 'added when hub depth > deep_depth, -100..100'),
	('freshness.deep_depth', 'integer', 0, false, 2147483647, false,
	 'hub depth above this is deep, whole >= 0'),
	('frontier.types', 'map_number', 0, false, NULL, false,
	 'type = weight, >= 0, any type name; lower = sooner'),
	('frontier.bonuses', 'map_number', 0, false, NULL, false,
	 'method = bonus subtracted, >= 0; higher = sooner'),
	('frontier.aliases', 'map_string', NULL, false, NULL, false,
	 'method = "method whose bonus it takes"');


-- Levenshtein distance of two short names (the C layer's edit_distance).
CREATE FUNCTION crawltop.edit_distance(a text, b text) RETURNS integer
	LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
	row integer[];
	prev integer;
	cur integer;
	up integer;
BEGIN
	row := ARRAY(SELECT g FROM generate_series(0, length(b)) g);
	FOR i IN 1 .. length(a) LOOP
		prev := row[1];
		row[1] := i;
		FOR j IN 1 .. length(b) LOOP
			up := row[j + 1];
			cur := least(up + 1, row[j] + 1, prev +
				CASE WHEN substr(a, i, 1) = substr(b, j, 1) THEN 0 ELSE 1 END);
			prev := up;
			row[j + 1] := cur;
		END LOOP;
	END LOOP;
	RETURN row[length(b) + 1];
END $$;

-- A key or name as a message shows it: bare when it is plain, quoted
-- (crawltop.shown) when it holds anything else.
CREATE FUNCTION crawltop.setting_shown(p text) RETURNS text
	LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
	SELECT CASE WHEN p ~ '^[A-Za-z0-9_.-]{1,128}$' THEN p
		    ELSE crawltop.shown(p) END
$$;

-- Why value v (a JSON number) breaks rule r, or NULL when it keeps it.
CREATE FUNCTION crawltop.setting_number_fault(r crawltop.setting_rules,
		v jsonb) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
	n numeric;
BEGIN
	IF jsonb_typeof(v) IS DISTINCT FROM 'number' THEN
		RETURN r.rule;
	END IF;
	n := v::numeric;
	IF abs(n) > 1.7976931348623157e308
	   OR (n <> 0 AND abs(n) < 2.2250738585072014e-308) THEN
		RETURN 'a double cannot hold it';
	END IF;
	IF r.kind = 'integer' AND v::text !~ '^-?[0-9]+$' THEN
		RETURN r.rule;
	END IF;
	IF (r.lo IS NOT NULL AND (n < r.lo::numeric OR (r.lo_out AND n = r.lo::numeric)))
	   OR (r.hi IS NOT NULL AND (n > r.hi::numeric OR (r.hi_out AND n = r.hi::numeric)))
	   OR (r.path = 'store.starvation_every' AND n = 1) THEN
		RETURN r.rule;
	END IF;
	RETURN NULL;
END $$;

-- The value at dotted path p of the document, else of the defaults.
CREATE FUNCTION crawltop.setting_or_default(p_doc jsonb, p text)
	RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
	SELECT coalesce(p_doc #> string_to_array(p, '.'),
			crawltop.settings_defaults() #> string_to_array(p, '.'))
$$;


CREATE FUNCTION crawltop.settings_check_row() RETURNS trigger
	LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	d jsonb := crawltop.settings_defaults();
	l record;
	r crawltop.setting_rules;
	found_rule boolean;
	name text;
	why text;
	e jsonb;
	k record;
	c jsonb := NEW.value->'classes';
	h jsonb := NEW.value->'hierarchy';
	st jsonb := NEW.value->'store';
	sum numeric := 0;
	parts text := '';
BEGIN
	IF jsonb_typeof(NEW.value) IS DISTINCT FROM 'object' THEN
		RAISE EXCEPTION 'the settings must be a JSON object, not %',
			coalesce(jsonb_typeof(NEW.value), 'NULL') USING ERRCODE = '22023';
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
		ELSIF name IS NOT NULL AND (name = '' OR octet_length(name) > 31) THEN
			why := 'an entry''s name is 1 to 31 bytes';
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
			OR octet_length(l.value->>0) NOT BETWEEN 1 AND 31) THEN
			why := 'must be a name of 1 to 31 bytes: ' || r.rule;
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
	-- a map holds at most 32 entries, its defaults included
	FOR k IN SELECT s.path FROM crawltop.setting_rules s WHERE s.kind LIKE 'map%' LOOP
		IF (SELECT count(*) FROM (
			SELECT jsonb_object_keys(coalesce(d #> string_to_array(k.path, '.'), '{}'))
			UNION
			SELECT jsonb_object_keys(CASE WHEN jsonb_typeof(NEW.value #> string_to_array(k.path, '.')) = 'object'
				THEN NEW.value #> string_to_array(k.path, '.') ELSE '{}' END)) e (n)
		    WHERE NOT EXISTS (SELECT 1 FROM crawltop.setting_rules s
				      WHERE s.path = k.path || '.' || e.n)) > 32 THEN
			RAISE EXCEPTION 'setting % is not allowed: more than 32 entries', k.path
				USING ERRCODE = '22003';
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
		 WHERE NOT (d #> '{frontier,bonuses}') ? (a.value->>0)
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
CREATE TRIGGER settings_check BEFORE INSERT OR UPDATE ON crawltop.settings
	FOR EACH ROW EXECUTE FUNCTION crawltop.settings_check_row();

-- The pure helpers, for every crawltop role (a client may ask what the
-- defaults are, or check a value before it writes a version); nothing for
-- PUBLIC. (A trigger function needs no EXECUTE grant where it fires.)
DO $$
DECLARE
	f regprocedure;
BEGIN
	FOREACH f IN ARRAY ARRAY[
		'crawltop.settings_defaults()',
		'crawltop.edit_distance(text, text)',
		'crawltop.setting_number_fault(crawltop.setting_rules, jsonb)',
		'crawltop.setting_or_default(jsonb, text)',
		'crawltop.setting_shown(text)']::regprocedure[] LOOP
		EXECUTE format('REVOKE ALL ON FUNCTION %s FROM PUBLIC', f);
		EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO crawltop_viewer, '
			'crawltop_operator, crawltop_worker', f);
	END LOOP;
END $$;
REVOKE ALL ON FUNCTION crawltop.settings_check_row() FROM PUBLIC;
