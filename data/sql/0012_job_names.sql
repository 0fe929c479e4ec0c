-- 0012_job_names.sql: a job name is never a number.
--
-- Commands and the console take a job by name or by id. A job named "7"
-- would hide job 7 from them (a name wins over the id it spells, in
-- cli_ops.c), so names of digits only are refused from now on, whoever
-- writes the row: create_job, or a direct INSERT or UPDATE. A database
-- that already has such a name keeps it.
CREATE FUNCTION crawltop.jobs_name_not_number() RETURNS trigger
	LANGUAGE plpgsql AS $$
BEGIN
	IF NEW.name ~ '^[0-9]+$' THEN
		RAISE EXCEPTION 'job name % is not allowed: a name of digits only would read as a job id',
			crawltop.shown(NEW.name) USING ERRCODE = '22023';
	END IF;
	RETURN NEW;
END $$;
REVOKE ALL ON FUNCTION crawltop.jobs_name_not_number() FROM PUBLIC;

CREATE TRIGGER jobs_name_not_number BEFORE INSERT OR UPDATE OF name
	ON crawltop.jobs
	FOR EACH ROW EXECUTE FUNCTION crawltop.jobs_name_not_number();
