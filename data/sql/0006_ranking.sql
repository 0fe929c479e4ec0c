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
