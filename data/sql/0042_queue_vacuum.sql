-- 0042_queue_vacuum.sql: the queue is vacuumed after a few thousand
-- claims, not after a fifth of its rows.
--
-- A claim takes the first live entry of queue_claim_all (or
-- queue_claim_job) and deletes its queue row. The index entry of a
-- deleted row stays in the index until VACUUM removes it: a later scan
-- marks it dead and steps over it, but every claim still starts at the
-- left end of the index and reads every leaf page of such entries before
-- the first live one. Measured at 16 claimers (pg_stat_statements, 80,000
-- pending tasks, no vacuum during the run): the claiming statement read
-- 106 buffers a call in the first 4 s and 634 in the last, while the rate
-- fell from 3,114 to 2,111 calls a second. Autovacuum's default trigger
-- is 50 dead rows plus a fifth of the table's rows: 80,000 claims between
-- two vacuums of a queue of 400,000 tasks, 200,000 at 1,000,000. Here
-- the queue is vacuumed once 2,000 of its rows are dead, whatever its
-- size, without the cost-based delay (its rows are narrow and its vacuum
-- short): 400,000 pending tasks, 16 claimers for 50 s, autovacuum_naptime
-- 1 s, two alternating rounds: 124-127 buffers a claim against 413-463,
-- 2,238 and 2,169 claims a second against 1,672 and 2,031. How often
-- autovacuum looks is the server's autovacuum_naptime (1 minute by
-- default); a crawl that claims thousands of tasks a second wants a few
-- seconds (doc/architecture.md, "Vacuum").
ALTER TABLE crawltop.queue SET (
	autovacuum_vacuum_scale_factor = 0,
	autovacuum_vacuum_threshold = 2000,
	autovacuum_vacuum_cost_delay = 0);
