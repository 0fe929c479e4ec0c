-- 0033_importance.sql: the importance mode scores pages by the links found
-- to them (issue 23).
--
-- Until now a task of an importance job scored what its crawler gave (0
-- when none): the mode crawled first in, first out. Now the store scores
-- it as the engine does (include/crawltop/importance.h):
--
--     value = inlinks + cash x discovered
--     score = 100 x value / (value + 10), 100 for a seed page
--
--   inlinks     links to the page from fetched pages (each call of
--               crawltop.enqueue with a source page, or a source type
--               'link', counts one link to each distinct path it gives)
--   cash        OPIC's (Abiteboul, Preda, Cobena 2003): a call with a
--               source page passes the cash the source task holds (what
--               it received and has not passed on yet) to its paths in
--               equal shares: cash / the page's links, which a crawler
--               that sends a page's links in several calls (one per page
--               type, say) gives as p_page_links, and which are the
--               call's distinct paths otherwise; a source never passes
--               on more than it received (a page fetched again passes
--               only what came since); a call
--               whose source page is not known (the homepage, a sitemap,
--               a URL list, a link from a page the store does not have)
--               gives each of its paths one page's mean share,
--               1 / the pages discovered after the call (the first page
--               of a crawl gets one unit; a sitemap page a value of 1,
--               as much as one link, however the sitemap is cut into
--               calls)
--   discovered  the job's tasks after the call (jobs.total_pages plus
--               the call's new pages)
--   seed        the path '/' or the discovery method 'seed'
--
-- A task's links and cash live in crawltop.task_links, a narrow table
-- (task id, two numbers, its primary key only): a link to a page already
-- fetched, or still running, writes that row alone. A link to a pending
-- task raises its score through enqueue's only-increase rule (0002: the
-- task's base score, its adjustment kept), as any mode's raise does. The
-- value only grows, so a raise never lowers a score. Links are counted in
-- importance jobs only: a job switched to importance from another mode
-- starts counting then (its tasks score from what came since).
--
-- Scores a crawler passes to an importance job are not used, as for fifo
-- and hierarchy: the store computes them.

CREATE TABLE crawltop.task_links (
	task_id bigint PRIMARY KEY,
	inlinks integer NOT NULL DEFAULT 0,
	cash double precision NOT NULL DEFAULT 0,   -- received, all told
	passed double precision NOT NULL DEFAULT 0  -- of it, passed on
) WITH (fillfactor = 80);
REVOKE ALL ON crawltop.task_links FROM PUBLIC;
GRANT SELECT ON crawltop.task_links TO crawltop_viewer, crawltop_worker;

-- a task deleted (its job deleted) or all tasks truncated take their rows
-- (as the owner, as tasks_queue_truncate does: whoever may truncate tasks
-- may take their links)
CREATE FUNCTION crawltop.task_links_gone() RETURNS trigger
	LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
	IF TG_OP = 'TRUNCATE' THEN
		TRUNCATE crawltop.task_links;
	ELSE
		DELETE FROM crawltop.task_links l USING old_rows o
		WHERE l.task_id = o.id;
	END IF;
	RETURN NULL;
END $$;
REVOKE ALL ON FUNCTION crawltop.task_links_gone() FROM PUBLIC;
CREATE TRIGGER tasks_links_delete AFTER DELETE ON crawltop.tasks
	REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT
	EXECUTE FUNCTION crawltop.task_links_gone();
CREATE TRIGGER tasks_links_truncate AFTER TRUNCATE ON crawltop.tasks
	FOR EACH STATEMENT EXECUTE FUNCTION crawltop.task_links_gone();

-- The engine's ct_importance_score, the same double operations in the
-- same order. No SET clause: the planner inlines it (arithmetic on double
-- precision only), once a path of an enqueue call.
CREATE FUNCTION crawltop.importance_score(p_inlinks double precision,
		p_cash double precision, p_discovered double precision,
		p_seed boolean)
	RETURNS double precision LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
	SELECT CASE WHEN p_seed THEN 100::double precision
		    ELSE 100::double precision * (p_inlinks + p_cash * p_discovered)
			 / ((p_inlinks + p_cash * p_discovered) + 10::double precision)
		    END
$$;

-- The page of job p_job_id's domain that source URL p_url names, as
-- enqueue finds a link's source page from its URL (0002): the URL's path
-- on the job's domain when the URL's host (and port) is the domain; NULL
-- otherwise.
CREATE FUNCTION crawltop.source_page_of(p_job_id bigint, p_url text)
	RETURNS bigint LANGUAGE sql STABLE
	SET search_path = pg_catalog, pg_temp AS $$
	SELECT p.id FROM crawltop.jobs j
	JOIN crawltop.domains d ON d.id = j.domain_id
	JOIN crawltop.pages p ON p.domain_id = d.id
	 AND p.path = crawltop.url_page_path(p_url)
	WHERE j.id = p_job_id
	  AND regexp_replace(lower(d.name), CASE WHEN lower(p_url)
		LIKE 'https:%' THEN ':443$' ELSE ':80$' END, '')
	      = crawltop.url_authority(p_url)
$$;

-- The importance inputs of tasks p_tasks of job p_job_id, one row per
-- task id (0 links and 0 cash for a task no link reached), with the
-- job's discovered pages and whether the task is a seed: a rescore's
-- (src/store/rescore.c) and explain's.
CREATE FUNCTION crawltop.importance_inputs(p_job_id bigint, p_tasks bigint[])
	RETURNS TABLE (task_id bigint, inlinks integer, cash double precision,
		discovered bigint, seed boolean)
	LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
	SELECT t.id, coalesce(l.inlinks, 0), coalesce(l.cash, 0),
	       j.total_pages,
	       p.path = '/' OR coalesce(t.discovery_method = 'seed', false)
	FROM crawltop.tasks t
	JOIN crawltop.jobs j ON j.id = t.job_id
	JOIN crawltop.pages p ON p.id = t.page_id
	LEFT JOIN crawltop.task_links l ON l.task_id = t.id
	WHERE t.id = ANY (p_tasks) AND t.job_id = p_job_id
	ORDER BY t.id
$$;

-- crawltop.enqueue for crawlers, 0017's arguments and result and one more
-- argument at the end, p_page_links (above; NULL by default, so every
-- call written for 0017 works as it did): 0017's function (every mode's
-- scores, every check enqueue_batch's) is kept under the name
-- enqueue_modes; for an importance job this one computes the scores
-- first and counts the links after.
ALTER FUNCTION crawltop.enqueue(bigint, text[], text, bigint, integer, text,
	text, text, double precision[]) RENAME TO enqueue_modes;
REVOKE EXECUTE ON FUNCTION crawltop.enqueue_modes(bigint, text[], text,
	bigint, integer, text, text, text, double precision[])
	FROM crawltop_worker;

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
		p_page_links integer DEFAULT NULL,
		OUT inserted integer, OUT raised integer)
	LANGUAGE plpgsql SECURITY DEFINER
	SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	v_mode text;
	v_total bigint;
	v_domain bigint;
	v_scores double precision[] := p_scores;
	v_src bigint;              -- the source page
	v_src_task bigint;         -- its task in this job
	v_in integer := 0;         -- the link each path gets (0 or 1)
	v_share double precision;  -- the cash each path gets (NULL: the
	                           -- mean share, 1 / discovered)
	v_disc bigint;             -- pages discovered after the call
	v_n bigint;                -- distinct paths
	v_before bigint;           -- the highest task id before the call
	v_had bigint[];            -- the tasks the call's paths had
BEGIN
	IF p_page_links < 1 THEN
		RAISE EXCEPTION 'page links % must be at least 1 (or NULL: the paths of this call)',
			p_page_links USING ERRCODE = '22023';
	END IF;
	-- the job's row first, as enqueue_modes and enqueue_batch lock it:
	-- its mode cannot change before the scores are written
	SELECT j.prioritization_mode, j.total_pages, j.domain_id
	INTO v_mode, v_total, v_domain FROM crawltop.jobs j
	WHERE j.id = p_job_id FOR NO KEY UPDATE;
	-- what one link of this call gives (bad arguments give nothing
	-- here: enqueue_batch refuses them)
	IF v_mode = 'importance' AND coalesce(array_ndims(p_paths), 1) = 1
	   AND cardinality(p_paths) <= 100000 THEN
		v_scores := NULL;
		SELECT count(DISTINCT u.p) INTO v_n FROM unnest(p_paths) AS u(p);
	END IF;
	IF v_n > 0 THEN
		v_src := p_source_page_id;
		IF v_src IS NULL AND p_source_type = 'link'
		   AND crawltop.url_ok(p_source_url) THEN
			v_src := crawltop.source_page_of(p_job_id, p_source_url);
		END IF;
		-- a link from a page the store does not know counts as a
		-- link, with the mean share (v_share NULL) as cash
		v_in := CASE WHEN p_source_type = 'link' THEN 1 ELSE 0 END;
		IF v_src IS NOT NULL THEN
			v_in := 1;
			-- its cash over its links, and no more than it has left
			SELECT l.task_id, greatest(0, least(
				l.cash / coalesce(p_page_links, v_n),
				(l.cash - l.passed) / v_n))
			INTO v_src_task, v_share
			FROM crawltop.tasks t
			JOIN crawltop.task_links l ON l.task_id = t.id
			WHERE t.job_id = p_job_id AND t.page_id = v_src;
			v_share := coalesce(v_share, 0);
		END IF;
		-- each path's score with this call's link and share, the
		-- discovered pages counting this call's new ones
		WITH u AS (
			SELECT u.p FROM unnest(p_paths) AS u(p) GROUP BY u.p
		), k AS (
			SELECT u.p, tt.id AS task_id,
			       coalesce(l.inlinks, 0) AS inlinks,
			       coalesce(l.cash, 0) AS cash
			FROM u
			LEFT JOIN LATERAL (SELECT t.id FROM crawltop.pages pg
				JOIN crawltop.tasks t ON t.page_id = pg.id
				 AND t.job_id = p_job_id
				WHERE pg.domain_id = v_domain AND pg.path = u.p
				LIMIT 1) tt ON true
			LEFT JOIN crawltop.task_links l ON l.task_id = tt.id
		), d AS (
			SELECT greatest(1, v_total
				+ count(*) FILTER (WHERE k.task_id IS NULL)) AS discovered
			FROM k
		)
		SELECT array_agg(crawltop.importance_score(
			(k.inlinks + v_in)::double precision,
			k.cash + coalesce(v_share, 1::double precision / d.discovered),
			d.discovered::double precision,
			x.p = '/' OR coalesce(p_discovery_method = 'seed', false))
			ORDER BY x.i),
		       max(d.discovered),
		       array_agg(DISTINCT k.task_id) FILTER (WHERE k.task_id IS NOT NULL)
		INTO v_scores, v_disc, v_had
		FROM unnest(p_paths) WITH ORDINALITY AS x(p, i)
		LEFT JOIN k ON k.p = x.p
		CROSS JOIN d;
		v_share := coalesce(v_share, 1::double precision / v_disc);
		-- the tasks this call inserts are the job's above it (the job's
		-- row, held, keeps every other enqueue of the job out)
		SELECT coalesce(max(t.id), 0) INTO v_before FROM crawltop.tasks t;
	END IF;
	SELECT e.inserted, e.raised INTO inserted, raised
	FROM crawltop.enqueue_modes(p_job_id, p_paths, p_source_type,
		p_source_page_id, p_depth, p_type, p_discovery_method,
		p_source_url, v_scores) e;
	-- the source has passed on what it held
	IF v_src_task IS NOT NULL THEN
		UPDATE crawltop.task_links SET passed = passed + v_share * v_n
		WHERE task_id = v_src_task;
	END IF;
	-- the links and the cash, on the tasks of every path of the call
	-- (new, pending, running or finished), in task id order: the tasks
	-- the paths had (found above) and the job's tasks above v_before, a
	-- range of the primary key (finding each by its path again cost as
	-- much as the rest of the call)
	IF v_in > 0 OR v_share > 0 THEN
		INSERT INTO crawltop.task_links AS l (task_id, inlinks, cash)
		SELECT x.id, v_in, v_share
		FROM ((SELECT t.id FROM crawltop.tasks t
		       WHERE t.id > v_before AND t.job_id = p_job_id
		       ORDER BY t.id LIMIT inserted)
		      UNION ALL
		      SELECT h.id FROM unnest(v_had) AS h(id)) x
		ORDER BY x.id
		ON CONFLICT (task_id) DO UPDATE
		SET inlinks = l.inlinks + excluded.inlinks,
		    cash = l.cash + excluded.cash;
	END IF;
END $$;
REVOKE ALL ON FUNCTION crawltop.enqueue(bigint, text[], text, bigint, integer,
	text, text, text, double precision[], integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crawltop.enqueue(bigint, text[], text, bigint,
	integer, text, text, text, double precision[], integer) TO crawltop_worker;

DO $$
DECLARE
	f regprocedure;
BEGIN
	FOREACH f IN ARRAY ARRAY[
		'crawltop.importance_score(double precision, double precision, double precision, boolean)',
		'crawltop.source_page_of(bigint, text)',
		'crawltop.importance_inputs(bigint, bigint[])'
	]::regprocedure[] LOOP
		EXECUTE format('REVOKE ALL ON FUNCTION %s FROM PUBLIC', f);
		EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO crawltop_viewer, '
			'crawltop_operator, crawltop_worker', f);
	END LOOP;
END $$;
