-- 0018_console_reaps.sql: expired leases go back when no worker claims.
--
-- Only a claim ran the reaper (reap_expired, 0005 and 0016), so a job
-- whose crawlers were gone kept its tasks running on leases that had run
-- out, and every view showed the job running. The console of an operator
-- now calls reap_expired before each refresh (src/tui/fetch.c); it does
-- what the next claim would do, and nothing when no lease has expired.
GRANT EXECUTE ON FUNCTION crawltop.reap_expired(integer) TO crawltop_operator;
