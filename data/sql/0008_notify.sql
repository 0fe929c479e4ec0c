-- 0008_notify.sql: change notifications (issue 3 point 7).
--
-- A console or worker that LISTENs learns of new settings and job changes
-- without polling (seed 002's config watchers, across processes):
--
--   channel crawltop_settings   a settings row was inserted; payload: its
--                               version, e.g. '7' (the highest is current;
--                               a version is never changed: 0009)
--   channel crawltop_jobs       a job was created, changed or deleted
--                               (or every job, by TRUNCATE: payload
--                               {"op": "truncate"}); payload: JSON, e.g.
--                               {"op": "update", "job_id": 42,
--                                "changed": ["priority"]}
--                               (jsonb's key order)
--                               op is insert, update or delete; changed
--                               lists the columns whose value changed
--                               (sorted; every column for insert and
--                               delete)
--
-- total_pages and updated_at alone do not notify: every enqueue batch moves
-- them, and they are statistics (crawltop.dashboard_jobs), not changes a
-- watcher must act on. PostgreSQL delivers a notification when (and only
-- if) the transaction commits, once per distinct payload per transaction.
-- LISTEN does not work on a hot standby: consoles there poll.

-- Settings: one notification per inserted version.
CREATE FUNCTION crawltop.notify_settings() RETURNS trigger
	LANGUAGE plpgsql AS $$
BEGIN
	PERFORM pg_notify('crawltop_settings', NEW.version::text);
	RETURN NULL;
END $$;

CREATE TRIGGER settings_notify AFTER INSERT ON crawltop.settings
	FOR EACH ROW EXECUTE FUNCTION crawltop.notify_settings();

-- Jobs: one notification per changed job row, naming what changed.
CREATE FUNCTION crawltop.notify_jobs() RETURNS trigger
	LANGUAGE plpgsql AS $$
DECLARE
	v_id bigint;
	v_changed text[];
BEGIN
	IF TG_OP = 'TRUNCATE' THEN -- every job at once (a statement trigger)
		PERFORM pg_notify('crawltop_jobs', '{"op": "truncate"}');
		RETURN NULL;
	END IF;
	IF TG_OP = 'UPDATE' THEN
		v_id := NEW.id;
		SELECT array_agg(n.key ORDER BY n.key) INTO v_changed
		FROM jsonb_each(to_jsonb(NEW)) n
		WHERE n.value IS DISTINCT FROM to_jsonb(OLD) -> n.key
		  AND n.key NOT IN ('total_pages', 'updated_at');
		IF v_changed IS NULL THEN
			RETURN NULL;
		END IF;
	ELSE
		v_id := CASE WHEN TG_OP = 'INSERT' THEN NEW.id ELSE OLD.id END;
		SELECT array_agg(n.key ORDER BY n.key) INTO v_changed
		FROM jsonb_object_keys(to_jsonb(CASE WHEN TG_OP = 'INSERT'
			THEN NEW ELSE OLD END)) n (key);
	END IF;
	PERFORM pg_notify('crawltop_jobs', jsonb_build_object('job_id', v_id,
		'op', lower(TG_OP), 'changed', to_jsonb(v_changed))::text);
	RETURN NULL;
END $$;

-- The WHEN clause keeps enqueue's total_pages updates from even calling
-- the function.
CREATE TRIGGER jobs_notify_update AFTER UPDATE ON crawltop.jobs
	FOR EACH ROW
	WHEN ((to_jsonb(OLD) - 'total_pages' - 'updated_at')
	      IS DISTINCT FROM (to_jsonb(NEW) - 'total_pages' - 'updated_at'))
	EXECUTE FUNCTION crawltop.notify_jobs();
CREATE TRIGGER jobs_notify_insert_delete AFTER INSERT OR DELETE ON crawltop.jobs
	FOR EACH ROW EXECUTE FUNCTION crawltop.notify_jobs();
-- a row trigger does not fire on TRUNCATE
CREATE TRIGGER jobs_notify_truncate AFTER TRUNCATE ON crawltop.jobs
	FOR EACH STATEMENT EXECUTE FUNCTION crawltop.notify_jobs();
