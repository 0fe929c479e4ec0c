-- 0006_ranking.sql: seed 003's ranking data on tasks, and run_manifest.
--
-- Seed 003 ranks discovered URLs: a DiscoveryScore 0..100, a priority
-- class P0..P3 (SPEC.md's bounds), the sub-scores and signals it used, and,
-- for P2 and P3, a backoff schedule of rechecks. `crawltop rank` writes
-- these columns; `crawltop stats` reads them and run_manifest.
--
-- Backward compatibility (seed 003, SPEC.md): a task not ranked yet has
-- priority_class 2 (P2) but counts as "unranked" in statistics. The mark
-- is ranked_at: NULL until the task is ranked, and discovery_score is NULL
-- exactly when ranked_at is (a score 0 would be P3, not P2).
--
-- tasks.score and tasks.class stay the claim order's score and class
-- (SPEC.md: a discovery job's task score is its discovery score as is);
-- these columns are the ranking's own record of it, with its signals.

ALTER TABLE crawltop.tasks
	-- the DiscoveryScore, 0..100, rounded to 6 decimals by the engine
	ADD COLUMN discovery_score double precision
		CHECK (discovery_score >= 0 AND discovery_score <= 100),
	-- 0 = P0 .. 3 = P3; 2 until ranked (the seed's default)
	ADD COLUMN priority_class smallint NOT NULL DEFAULT 2
		CHECK (priority_class BETWEEN 0 AND 3),
	-- when it was last ranked; NULL = unranked
	ADD COLUMN ranked_at timestamptz,
	-- sub-scores (0..1) and the booleans the score used, as an object
	ADD COLUMN signals jsonb
		CHECK (signals IS NULL OR jsonb_typeof(signals) = 'object'),
	-- P2/P3: when to recheck (seed 003's backoff); NULL = no recheck due
	ADD COLUMN next_check_at timestamptz,
	-- rechecks that found no change since classification (step 0 first)
	ADD COLUMN backoff_step smallint NOT NULL DEFAULT 0
		CHECK (backoff_step BETWEEN 0 AND 100),
	ADD CONSTRAINT tasks_ranked_has_score CHECK (
		(ranked_at IS NULL) = (discovery_score IS NULL));

-- Seed 003's two indexes, on tasks. They are partial (ranked tasks, due
-- rechecks) so that the tasks of the other modes, which never carry
-- ranking data, cost claims and completions no index entries here.
-- The seed's (priority_class, picked_at): picked_at is our created_at.
CREATE INDEX tasks_priority_class ON crawltop.tasks (priority_class, created_at)
	WHERE ranked_at IS NOT NULL;
CREATE INDEX tasks_next_check ON crawltop.tasks (next_check_at)
	WHERE next_check_at IS NOT NULL;

-- One row per ranking run (seed 003's run manifest): how many tasks the run
-- put in each class, their average score and the score distribution, and
-- the settings it ran with. job_id NULL = a run over all jobs.
CREATE TABLE crawltop.run_manifest (
	id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	run_at           timestamptz NOT NULL DEFAULT now(),
	job_id           bigint REFERENCES crawltop.jobs (id) ON DELETE SET NULL,
	p0_count         bigint NOT NULL DEFAULT 0 CHECK (p0_count >= 0),
	p1_count         bigint NOT NULL DEFAULT 0 CHECK (p1_count >= 0),
	p2_count         bigint NOT NULL DEFAULT 0 CHECK (p2_count >= 0),
	p3_count         bigint NOT NULL DEFAULT 0 CHECK (p3_count >= 0),
	-- tasks of the job(s) still unranked when the run ended
	unranked_count   bigint NOT NULL DEFAULT 0 CHECK (unranked_count >= 0),
	-- average discovery score of the tasks ranked; 0 when none
	avg_score        double precision NOT NULL DEFAULT 0
		CHECK (avg_score >= 0 AND avg_score <= 100),
	-- score distribution (seed 003): [0,20) [20,40) [40,60) [60,80) [80,100]
	score_0_20       bigint NOT NULL DEFAULT 0 CHECK (score_0_20 >= 0),
	score_20_40      bigint NOT NULL DEFAULT 0 CHECK (score_20_40 >= 0),
	score_40_60      bigint NOT NULL DEFAULT 0 CHECK (score_40_60 >= 0),
	score_60_80      bigint NOT NULL DEFAULT 0 CHECK (score_60_80 >= 0),
	score_80_100     bigint NOT NULL DEFAULT 0 CHECK (score_80_100 >= 0),
	-- the settings version the run used (weights, class bounds)
	settings_version integer REFERENCES crawltop.settings (version),
	started_at       timestamptz,
	created_by       text NOT NULL DEFAULT current_user,
	note             text,
	CONSTRAINT run_manifest_histogram_adds_up CHECK (
		score_0_20 + score_20_40 + score_40_60 + score_60_80 + score_80_100
		= p0_count + p1_count + p2_count + p3_count)
);
CREATE INDEX run_manifest_job ON crawltop.run_manifest (job_id, run_at);

-- The score bucket of seed 003's distribution: '0-20', '20-40', '40-60',
-- '60-80', '80-100' (100 itself goes in 80-100). Also used by the live
-- counters (0007_counters.sql).
CREATE FUNCTION crawltop.score_bucket(p_score double precision) RETURNS text
	LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
	SELECT CASE WHEN p_score < 20 THEN '0-20' WHEN p_score < 40 THEN '20-40'
		    WHEN p_score < 60 THEN '40-60' WHEN p_score < 80 THEN '60-80'
		    ELSE '80-100' END
$$;

-- Record a ranking run of job p_job_id (NULL: all jobs): the tasks ranked
-- at or after p_since (the run's start) are counted by priority_class and
-- score bucket, with their average discovery_score; unranked_count counts
-- the tasks a run could rank (pending or running, of jobs in discovery
-- mode: the other modes' tasks are never ranked, and are not "unranked"
-- URLs) that are still unranked. p_settings_version is the
-- settings version the run ranked with, as its caller says (NULL: its
-- settings were not one stored version as it stands: a file, environment
-- overrides, bounds from the command line; p_note says what they were);
-- a version that does not exist is refused (P0002). Returns the new row's
-- id. O(tasks of the job): a ranking run reads them all anyway.
CREATE FUNCTION crawltop.record_run_manifest(p_job_id bigint,
		p_since timestamptz, p_note text DEFAULT NULL,
		p_settings_version integer DEFAULT NULL)
	RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
	v_id bigint;
BEGIN
	IF p_since IS NULL THEN
		RAISE EXCEPTION 'run start is NULL: pass the time the ranking run began'
			USING ERRCODE = '22004';
	END IF;
	IF p_job_id IS NOT NULL AND NOT EXISTS (
			SELECT 1 FROM crawltop.jobs WHERE id = p_job_id) THEN
		RAISE EXCEPTION 'job % does not exist', p_job_id USING ERRCODE = 'P0002';
	END IF;
	IF p_settings_version IS NOT NULL AND NOT EXISTS (
			SELECT 1 FROM crawltop.settings WHERE version = p_settings_version) THEN
		RAISE EXCEPTION 'settings version % does not exist', p_settings_version
			USING ERRCODE = 'P0002';
	END IF;
	INSERT INTO crawltop.run_manifest (job_id, p0_count, p1_count, p2_count,
		p3_count, unranked_count, avg_score, score_0_20, score_20_40,
		score_40_60, score_60_80, score_80_100, settings_version,
		started_at, note)
	SELECT p_job_id,
	       count(*) FILTER (WHERE r AND t.priority_class = 0),
	       count(*) FILTER (WHERE r AND t.priority_class = 1),
	       count(*) FILTER (WHERE r AND t.priority_class = 2),
	       count(*) FILTER (WHERE r AND t.priority_class = 3),
	       count(*) FILTER (WHERE t.ranked_at IS NULL
				  AND t.status IN ('pending', 'running')),
	       coalesce(avg(t.discovery_score) FILTER (WHERE r), 0),
	       count(*) FILTER (WHERE r AND crawltop.score_bucket(t.discovery_score) = '0-20'),
	       count(*) FILTER (WHERE r AND crawltop.score_bucket(t.discovery_score) = '20-40'),
	       count(*) FILTER (WHERE r AND crawltop.score_bucket(t.discovery_score) = '40-60'),
	       count(*) FILTER (WHERE r AND crawltop.score_bucket(t.discovery_score) = '60-80'),
	       count(*) FILTER (WHERE r AND crawltop.score_bucket(t.discovery_score) = '80-100'),
	       p_settings_version, p_since, p_note
	FROM crawltop.tasks t,
	     LATERAL (SELECT t.ranked_at >= p_since AS r) x
	WHERE t.job_id IN (SELECT j.id FROM crawltop.jobs j
			   WHERE j.prioritization_mode = 'discovery'
			     AND (p_job_id IS NULL OR j.id = p_job_id))
	RETURNING id INTO v_id;
	RETURN v_id;
END $$;

-- A rescore batch's first step, in rescore_fetch and rescore_apply: lock
-- job p_job_id FOR SHARE (its mode cannot change under the batch), P0002
-- when there is none, 55000 when its mode is no longer p_mode.
CREATE FUNCTION crawltop.rescore_lock_job(p_job_id bigint, p_mode text)
	RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	v_mode text;
BEGIN
	SELECT j.prioritization_mode INTO v_mode FROM crawltop.jobs j
	WHERE j.id = p_job_id FOR SHARE;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'job % does not exist', coalesce(p_job_id::text, 'NULL')
			USING ERRCODE = 'P0002';
	END IF;
	IF v_mode IS DISTINCT FROM p_mode THEN
		RAISE EXCEPTION 'job % is now in % mode, not %: this rescore stops (the mode change runs its own)',
			p_job_id, v_mode, crawltop.shown(p_mode) USING ERRCODE = '55000';
	END IF;
END $$;

-- One batch: lock job p_job_id (FOR SHARE; 55000 when its mode is no
-- longer p_mode) and its next p_n (1..100000) unfinished tasks with a
-- page id above p_after_page, and return them in task id order with every
-- engine input: the task's columns (its score, class, base score and
-- operator adjustment, 0001), its page (path, hierarchy score, domain) and
-- its score inputs unpacked (NULL where absent). Run it inside the batch's
-- transaction, before rescore_apply: the locks it takes keep each task's
-- adjustment as fetched until the batch commits.
CREATE FUNCTION crawltop.rescore_fetch(p_job_id bigint, p_mode text,
		p_after_page bigint, p_n integer)
	RETURNS TABLE (task_id bigint, page_id bigint, score double precision,
		class smallint, base_score double precision,
		adjustment double precision, domain text, path text,
		page_score double precision,
		type text, depth integer, discovery_method text,
		-- ranked by a ranking run (ranked_at set): a discovery task
		-- that is not keeps the P2 bound (SPEC.md)
		ranked boolean,
		-- frontier
		bias double precision, cluster_occurrences bigint,
		classification text, knowledge_reuse double precision,
		estimated_cost_ms double precision, gap_confidence double precision,
		gap_lift double precision,
		-- discovery sub-scores (all or none)
		has_subscores boolean,
		unseen_likelihood double precision, host_novelty double precision,
		content_readiness double precision, link_yield double precision,
		source_reliability double precision, freshness double precision,
		quality_safety double precision, topic_boost double precision,
		-- discovery raw signals
		has_signals boolean,
		ct_age_hours double precision, ns_changes integer,
		asn_changes integer, whois_age_days double precision,
		backlinks bigint, first_seen_host boolean, rare_tld boolean,
		subdomain_depth integer, parking_score double precision,
		document_path boolean, document_extension boolean,
		vendor_fingerprint boolean, source text, age_hours double precision,
		malware boolean, adult boolean, for_sale boolean,
		suspicious_tld boolean, topic_match double precision,
		-- freshness
		visits bigint, last_visited bigint, last_changed bigint,
		topic_relevance double precision, hub_depth integer, is_hub boolean)
	LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
	v_ids bigint[];
BEGIN
	IF p_n IS NULL OR p_n NOT BETWEEN 1 AND 100000 THEN
		RAISE EXCEPTION 'rescore batch size % is outside 1..100000',
			coalesce(p_n::text, 'NULL') USING ERRCODE = '22003';
	END IF;
	PERFORM crawltop.rescore_lock_job(p_job_id, p_mode);
	-- The batch: one range scan of UNIQUE (job_id, page_id), first, so
	-- that what follows reads these rows only (by primary key).
	SELECT coalesce(array_agg(b.id), '{}') INTO v_ids FROM (
		SELECT b.id FROM crawltop.tasks b
		WHERE b.job_id = p_job_id AND b.page_id > coalesce(p_after_page, 0)
		  AND b.status IN ('pending', 'running')
		ORDER BY b.page_id
		LIMIT p_n) b;
	RETURN QUERY
	SELECT t.id, t.page_id, t.score, t.class, t.base_score, t.adjustment,
	       d.name, p.path::text,
	       p.priority_score, t.type, t.depth, t.discovery_method,
	       t.ranked_at IS NOT NULL, x.*
	FROM crawltop.tasks t
	JOIN crawltop.pages p ON p.id = t.page_id
	JOIN crawltop.domains d ON d.id = p.domain_id
	CROSS JOIN LATERAL crawltop.score_input_columns(t.score_inputs) x
	WHERE t.id = ANY (v_ids)
	  AND t.status IN ('pending', 'running')
	ORDER BY t.id
	FOR NO KEY UPDATE OF t;
END $$;

-- Write one batch's new scores and classes (arrays of equal length; scores
-- finite in 0..100, classes 0..3) to those tasks of job p_job_id that are
-- still unfinished, skipping unchanged rows, and write one audit row
-- (tasks.rescore: `after` is p_note, a JSON object of at most 4 KB, with
-- the mode and the batch's size over it). The job must still be in
-- mode p_mode (rescore_fetch locked it). p_scores are the scores the mode
-- gives (written to base_score); each task's score is derived from it
-- with the adjustment the task keeps, least(100, greatest(0, base_score +
-- adjustment)) (0001), and p_classes are the classes of those derived
-- scores (the caller has the adjustments from rescore_fetch, and the
-- batch's locks keep them). Returns the tasks changed.
CREATE FUNCTION crawltop.rescore_apply(p_job_id bigint, p_mode text,
		p_ids bigint[], p_scores double precision[], p_classes smallint[],
		p_note jsonb DEFAULT '{}')
	RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
	v_i bigint;
	v_disc boolean;
	v_p0 double precision;
	v_p1 double precision;
	v_p2 double precision;
	n bigint;
BEGIN
	PERFORM crawltop.rescore_lock_job(p_job_id, p_mode);
	IF p_ids IS NULL OR p_scores IS NULL OR p_classes IS NULL
	   OR cardinality(p_ids) <> cardinality(p_scores)
	   OR cardinality(p_ids) <> cardinality(p_classes) THEN
		RAISE EXCEPTION '% ids, % scores and % classes: pass one score and one class per id',
			coalesce(cardinality(p_ids), 0), coalesce(cardinality(p_scores), 0),
			coalesce(cardinality(p_classes), 0) USING ERRCODE = '22023';
	END IF;
	PERFORM crawltop.check_scores(p_scores);
	SELECT u.i INTO v_i FROM unnest(p_classes) WITH ORDINALITY AS u(c, i)
	WHERE u.c IS NULL OR u.c NOT BETWEEN 0 AND 3 ORDER BY u.i LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION 'classes[%] = %: a class is 0..3 (P0..P3)',
			v_i, coalesce(p_classes[v_i]::text, 'NULL') USING ERRCODE = '22003';
	END IF;
	-- the note says why (cause, settings version): a small object
	IF p_note IS NOT NULL AND (jsonb_typeof(p_note) <> 'object'
	   OR octet_length(p_note::text) > 4096) THEN
		RAISE EXCEPTION 'a rescore note must be a JSON object of at most 4096 bytes, not % of % bytes',
			jsonb_typeof(p_note), octet_length(p_note::text)
			USING ERRCODE = '22023';
	END IF;
	-- t.id = ANY (p_ids) finds the batch's rows through the primary key;
	-- with the join alone a custom plan merge-joined from the first task
	-- id, so a batch read every id before its own (a late batch of
	-- 10,000 over 300,000 tasks: 379-624 ms, 321-332 ms with the probe)
	-- a ranked discovery task's ranking record follows its new score
	-- (discovery_score, and priority_class under the store's bounds),
	-- so that statistics and the next run's comparison see the score it
	-- is claimed by (an unranked one comes at the P2 bound: rescore_fetch)
	v_disc := p_mode = 'discovery';
	IF v_disc THEN
		v_p0 := crawltop.setting('{classes,p0}')::double precision;
		v_p1 := crawltop.setting('{classes,p1}')::double precision;
		v_p2 := crawltop.setting('{classes,p2}')::double precision;
	END IF;
	UPDATE crawltop.tasks t
	SET base_score = u.s,
	    score = least(100, greatest(0, u.s + t.adjustment)), class = u.c,
	    discovery_score = CASE WHEN v_disc AND t.ranked_at IS NOT NULL
		THEN u.s ELSE t.discovery_score END,
	    priority_class = CASE WHEN v_disc AND t.ranked_at IS NOT NULL
		THEN crawltop.class_of(u.s, v_p0, v_p1, v_p2) ELSE t.priority_class END
	FROM unnest(p_ids, p_scores, p_classes) AS u(id, s, c)
	WHERE t.id = ANY (p_ids) AND t.id = u.id AND t.job_id = p_job_id
	  AND t.status IN ('pending', 'running')
	  AND (t.base_score <> u.s OR t.class <> u.c
	       OR (v_disc AND t.ranked_at IS NOT NULL AND t.discovery_score <> u.s));
	GET DIAGNOSTICS n = ROW_COUNT;
	INSERT INTO crawltop.audit_log (action, job_id, before, after, rows_affected)
	VALUES ('tasks.rescore', p_job_id, jsonb_build_object('mode', p_mode),
		coalesce(p_note, '{}') || jsonb_build_object('mode', p_mode,
			'tasks', cardinality(p_ids)), n);
	RETURN n;
END $$;
