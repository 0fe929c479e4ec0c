-- 0015_rank_settings.sql: a run manifest names the settings version the
-- ranking run used, or none.
--
-- record_run_manifest wrote the newest settings version into every
-- manifest, whatever the run had ranked with: `crawltop rank` scored with
-- its configuration file and environment, so a manifest could name a
-- version whose class bounds and weights the run never used. The ranking
-- run now ranks with the store's current settings unless it is given a
-- file, and says which version that was; the manifest records what it is
-- told: the version, or NULL when the run's settings were not one stored
-- version as it stands (a file, the environment overrides, the bounds
-- given on the command line; the note says what they were).

DROP FUNCTION crawltop.record_run_manifest(bigint, timestamptz, text);

-- Record the run that began at p_since over job p_job_id (NULL: all
-- jobs): the counts of the tasks it ranked (ranked_at >= p_since) by
-- class and score range, their average score, the tasks still unranked,
-- p_note, and p_settings_version (NULL: not a stored version; otherwise
-- it must exist). Returns the manifest's id.
CREATE FUNCTION crawltop.record_run_manifest(p_job_id bigint,
		p_since timestamptz, p_note text DEFAULT NULL,
		p_settings_version integer DEFAULT NULL)
	RETURNS bigint LANGUAGE plpgsql SECURITY DEFINER
	SET search_path = pg_catalog, pg_temp AS $$
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
	       count(*) FILTER (WHERE t.ranked_at IS NULL),
	       coalesce(avg(t.discovery_score) FILTER (WHERE r), 0),
	       count(*) FILTER (WHERE r AND crawltop.score_bucket(t.discovery_score) = '0-20'),
	       count(*) FILTER (WHERE r AND crawltop.score_bucket(t.discovery_score) = '20-40'),
	       count(*) FILTER (WHERE r AND crawltop.score_bucket(t.discovery_score) = '40-60'),
	       count(*) FILTER (WHERE r AND crawltop.score_bucket(t.discovery_score) = '60-80'),
	       count(*) FILTER (WHERE r AND crawltop.score_bucket(t.discovery_score) = '80-100'),
	       p_settings_version, p_since, p_note
	FROM crawltop.tasks t,
	     LATERAL (SELECT t.ranked_at >= p_since AS r) x
	WHERE p_job_id IS NULL OR t.job_id = p_job_id
	RETURNING id INTO v_id;
	RETURN v_id;
END $$;
REVOKE ALL ON FUNCTION crawltop.record_run_manifest(bigint, timestamptz, text, integer)
	FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crawltop.record_run_manifest(bigint, timestamptz, text, integer)
	TO crawltop_operator;
