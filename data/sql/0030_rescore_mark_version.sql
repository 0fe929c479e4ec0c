-- 0030_rescore_mark_version.sql: a settings version and its marks are
-- written together, and only a rescore with that version (or a newer
-- one) clears them.
--
-- 0027 marked the jobs a console apply was about to rescore in a
-- statement of its own after settings_put: a stop (x) or a connection
-- lost in between left the new version written and no job marked. And
-- rescore_finish checked the mode and the time only, so a rescore begun
-- after the mark with older settings (a second console, still on v6,
-- changing a job's mode) cleared a "settings v7" mark.
--   jobs.rescore_needed_version  the settings version the job's tasks
--                                must be rescored with; NULL: any.
-- settings_put_marked writes a version and marks the jobs given in one
-- transaction; rescore_finish takes the version the rescore used. A mode
-- change keeps a job's version mark (its rescore must use that version
-- too); rescore_needed (0027) goes: settings_put_marked does its work.
ALTER TABLE crawltop.jobs ADD COLUMN rescore_needed_version integer;

DROP FUNCTION crawltop.rescore_needed(bigint[], text);
DROP FUNCTION crawltop.rescore_finish(bigint, text, timestamptz);

-- settings_put (0016), then the jobs p_jobs that are not finished are
-- marked "settings vN" until a rescore with version N or newer completes.
CREATE FUNCTION crawltop.settings_put_marked(p_value jsonb,
		p_base_version integer, p_action text, p_note text,
		p_jobs bigint[], OUT version integer, OUT changed integer,
		OUT marked integer)
	LANGUAGE plpgsql SECURITY DEFINER
	SET search_path = pg_catalog, pg_temp AS $$
BEGIN
	SELECT p.version, p.changed INTO version, changed
	FROM crawltop.settings_put(p_value, p_base_version, p_action, p_note) p;
	UPDATE crawltop.jobs SET rescore_needed_at = now(),
		rescore_reason = 'settings v' || version,
		rescore_needed_version = version
	WHERE id = ANY (coalesce(p_jobs, '{}'))
	  AND status NOT IN ('completed', 'cancelled');
	GET DIAGNOSTICS marked = ROW_COUNT;
END $$;

-- A rescore of job p_job_id in mode p_mode with settings version
-- p_version (NULL: not known), begun at p_began, went through every
-- unfinished task: the job's mark is cleared, unless the mode changed
-- meanwhile, a change came after p_began, or the mark asks for a newer
-- settings version. Returns whether it cleared one.
CREATE FUNCTION crawltop.rescore_finish(p_job_id bigint, p_mode text,
		p_began timestamptz, p_version integer)
	RETURNS boolean LANGUAGE plpgsql SECURITY DEFINER
	SET search_path = pg_catalog, pg_temp AS $$
BEGIN
	UPDATE crawltop.jobs SET rescore_needed_at = NULL, rescore_reason = NULL,
		rescore_needed_version = NULL
	WHERE id = p_job_id AND prioritization_mode = p_mode
	  AND rescore_needed_at <= p_began
	  AND (rescore_needed_version IS NULL
	       OR p_version >= rescore_needed_version);
	RETURN FOUND;
END $$;

REVOKE ALL ON FUNCTION crawltop.settings_put_marked(jsonb, integer, text,
	text, bigint[]) FROM PUBLIC;
REVOKE ALL ON FUNCTION crawltop.rescore_finish(bigint, text, timestamptz,
	integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crawltop.settings_put_marked(jsonb, integer, text,
	text, bigint[]), crawltop.rescore_finish(bigint, text, timestamptz,
	integer) TO crawltop_operator;
