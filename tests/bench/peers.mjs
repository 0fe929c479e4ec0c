// peers.mjs: the peers' side of ./dev bench peers (bench_peers.sh runs it
// with the Node.js that the benchmark installs from npm; never part of the
// tests). One process per measurement; it prints one line:
//   "<tasks> <seconds> <handed out> <handed out twice>"
// where handed out counts the job ids the handlers (or fetches) received
// and handed out twice those received more than once.
//
//   node peers.mjs graphile-enqueue DSN N          addJobs, 1,000 a call
//   node peers.mjs graphile-work DSN N CONC MODE   MODE one: the default
//       (one transaction to take a job, one to complete it); batch: a
//       local queue of 500 and batched completions
//   node peers.mjs pgboss-enqueue DSN N            insert, 1,000 a call
//   node peers.mjs pgboss-work DSN N CONC BATCH    CONC loops of
//       fetch({batchSize: BATCH}) + complete(ids)
//
// Priorities: job i gets priority (i * 7919) % 10 (graphile: lower is
// sooner; pg-boss: higher is sooner), the same spread crawltop's side
// gets, so that every system orders a mixed queue.
import { createRequire } from "node:module";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";

const require = createRequire(process.env.PEER_DIR + "/package.json");
// pg-boss is an ES module: imported from its file
const pgBoss = async () =>
	(await import(pathToFileURL(require.resolve("pg-boss")).href)).PgBoss;
const [mode, dsn, nArg, concArg, extra] = process.argv.slice(2);
const N = Number(nArg);
const CONC = Number(concArg || 1);
const QUEUE = "bench";

const prio = (i) => (i * 7919) % 10;
const chunks = function* (n, size) {
	for (let i = 0; i < n; i += size) yield [i, Math.min(n, i + size)];
};

// ids seen by the handlers: count and duplicates
const seen = new Set();
let handed = 0, twice = 0;
const took = (id) => {
	handed++;
	if (seen.has(id)) twice++;
	else seen.add(id);
};
const report = (tasks, secs) =>
	console.log(`${tasks} ${secs.toFixed(3)} ${handed} ${twice}`);

async function graphileEnqueue() {
	const { makeWorkerUtils } = require("graphile-worker");
	const utils = await makeWorkerUtils({ connectionString: dsn });
	await utils.migrate();
	const t0 = performance.now();
	for (const [a, b] of chunks(N, 1000)) {
		const jobs = [];
		for (let i = a; i < b; i++)
			jobs.push({ identifier: "t", payload: { i }, priority: prio(i) });
		await utils.addJobs(jobs);
	}
	report(N, (performance.now() - t0) / 1000);
	await utils.release();
}

async function graphileWork() {
	const { run, Logger } = require("graphile-worker");
	const batch = extra === "batch";
	let done = 0, finish;
	const allDone = new Promise((r) => (finish = r));
	const preset = {
		worker: {
			connectionString: dsn,
			concurrentJobs: CONC,
			maxPoolSize: CONC + 2,
			pollInterval: 100,
			...(batch ? { localQueue: { size: 500 }, completeJobBatchDelay: 0 } : {}),
		},
	};
	const t0 = performance.now();
	const runner = await run({
		preset,
		noHandleSignals: true,
		crontab: "",
		logger: new Logger(() => () => {}), // stdout is the result line
		taskList: {
			t: async (_payload, helpers) => {
				took(helpers.job.id);
				if (++done === N) finish();
			},
		},
	});
	await allDone;
	const secs = (performance.now() - t0) / 1000;
	await runner.stop();
	report(done, secs);
}

async function pgbossEnqueue() {
	const PgBoss = await pgBoss();
	const boss = new PgBoss({ connectionString: dsn, supervise: false, schedule: false });
	boss.on("error", (e) => console.error(e));
	await boss.start();
	await boss.createQueue(QUEUE);
	const t0 = performance.now();
	for (const [a, b] of chunks(N, 1000)) {
		const jobs = [];
		for (let i = a; i < b; i++) jobs.push({ data: { i }, priority: 9 - prio(i) });
		await boss.insert(QUEUE, jobs);
	}
	report(N, (performance.now() - t0) / 1000);
	await boss.stop({ graceful: false });
}

async function pgbossWork() {
	const PgBoss = await pgBoss();
	const BATCH = Number(extra || 1);
	const boss = new PgBoss({ connectionString: dsn, max: CONC + 2, supervise: false, schedule: false });
	boss.on("error", (e) => console.error(e));
	await boss.start();
	let done = 0;
	const t0 = performance.now();
	const loop = async () => {
		for (;;) {
			const jobs = await boss.fetch(QUEUE, { batchSize: BATCH });
			if (!jobs.length) {
				if (done >= N) return;
				await new Promise((r) => setTimeout(r, 20));
				continue;
			}
			for (const j of jobs) took(j.id);
			await boss.complete(QUEUE, jobs.map((j) => j.id));
			done += jobs.length;
		}
	};
	await Promise.all(Array.from({ length: CONC }, loop));
	report(done, (performance.now() - t0) / 1000);
	await boss.stop({ graceful: false });
}

const modes = {
	"graphile-enqueue": graphileEnqueue,
	"graphile-work": graphileWork,
	"pgboss-enqueue": pgbossEnqueue,
	"pgboss-work": pgbossWork,
};
if (!modes[mode]) {
	console.error(`peers.mjs: unknown mode '${mode}'`);
	process.exit(2);
}
modes[mode]().catch((e) => {
	console.error(`peers.mjs ${mode}: ${e.stack || e}`);
	process.exit(1);
});
