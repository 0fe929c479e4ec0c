// frontier_baseline.mjs: the JavaScript baseline of ./dev bench frontier.
// The three workloads of bench_frontier.c, written as a JavaScript crawler
// writes its queue (seed 002's QueueManager): a binary min-heap of item
// objects ordered by priority then insertion, and a Set of queued URLs.
// The enqueue runs the seed's checks: the URL (new URL(), which lower-cases
// the host and drops a default port; the fragment dropped), the size, the
// depth, the duplicate, the priority (type weight + depth - the method's
// bonus after its alias).
//
//   node --expose-gc frontier_baseline.mjs N M Q U
//
// Prints the same lines as bench_frontier.

class Heap {
  constructor() { this.a = []; }
  get size() { return this.a.length; }
  less(x, y) { return x.priority < y.priority || (x.priority === y.priority && x.seq < y.seq); }
  push(it) {
    const a = this.a;
    a.push(it);
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.less(a[i], a[p])) break;
      [a[i], a[p]] = [a[p], a[i]];
      i = p;
    }
  }
  pop() {
    const a = this.a;
    if (a.length === 0) return undefined;
    const top = a[0];
    const last = a.pop();
    if (a.length > 0) {
      a[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1, r = l + 1;
        let m = i;
        if (l < a.length && this.less(a[l], a[m])) m = l;
        if (r < a.length && this.less(a[r], a[m])) m = r;
        if (m === i) break;
        [a[i], a[m]] = [a[m], a[i]];
        i = m;
      }
    }
    return top;
  }
}

let rng = 88172645463325252n;
const MASK = (1n << 64n) - 1n;
function nextRand() {
  rng ^= (rng << 13n) & MASK;
  rng ^= rng >> 7n;
  rng ^= (rng << 17n) & MASK;
  return rng;
}
const randBias = () => Number(nextRand() % 2000001n) - 1000000;
const pad = (n, w) => String(n).padStart(w, '0');
const urlOf = (i) => `https://h${pad(i % 1000, 3)}.example.org/section/${pad(i, 7)}/page.html`;

const TYPES = { article: 0, 'hub-seed': 4, history: 6, nav: 10, refresh: 25 };
const BONUSES = { 'adaptive-seed': 20, 'gap-prediction': 15, sitemap: 10, 'hub-validated': 8, link: 0 };
const ALIASES = { 'intelligent-seed': 'adaptive-seed', 'adaptive-seed': 'adaptive-seed',
  'hub-seed': 'adaptive-seed', sitemap: 'sitemap', 'validated-hub': 'hub-validated',
  'link-discovery': 'link' };

class Queue {
  constructor() { this.heap = new Heap(); this.queued = new Set(); this.seq = 0; this.maxQueue = 1e8; this.maxDepth = 10; }
  pushRaw(url, priority) {
    this.heap.push({ url, priority, seq: this.seq++ });
    this.queued.add(url);
  }
  pop() {
    const it = this.heap.pop();
    if (it) this.queued.delete(it.url);
    return it;
  }
  enqueue(url, type, depth, method) {
    let key;
    try {
      const u = new URL(url);
      u.hash = '';
      key = u.href;
    } catch { return false; }
    if (this.heap.size >= this.maxQueue) return false;
    if (depth > this.maxDepth) return false;
    if (this.queued.has(key)) return false;
    const tw = TYPES[type] ?? 12;
    const canon = ALIASES[method] ?? method;
    const bonus = BONUSES[canon] ?? 0;
    const priority = tw + depth - (bonus > 0 ? bonus : 0);
    this.heap.push({ url, key, type, depth, method, priority, seq: this.seq++ });
    this.queued.add(key);
    return true;
  }
}

const [n, m, qn, un] = process.argv.slice(2).map(Number);
const most = Math.max(n, qn + m);
const urls = new Array(most);
for (let i = 0; i < most; i++) urls[i] = urlOf(i);

// the random draws before the clock, in bench_frontier.c's order:
// push-pop's n priorities, the mixed workload's qn, then a coin a step
// and a priority a push (BigInt arithmetic is slow: timed, it would be a
// fifth of push-pop's time and a third of mixed's)
const bias = new Float64Array(n + qn + m);
const coin = new Uint8Array(m);
for (let i = 0; i < n + qn; i++) bias[i] = randBias();
for (let k = 0, b = n + qn; k < m; k++) {
  coin[k] = Number(nextRand() & 1n);
  if (!coin[k]) bias[b++] = randBias();
}

let q = new Queue();
let t0 = performance.now();
for (let i = 0; i < n; i++) q.pushRaw(urls[i], bias[i]);
let popped = 0;
while (q.pop()) popped++;
console.log(`push-pop ${n} ${(performance.now() - t0).toFixed(1)}`);
if (popped !== n) process.exit(1);

q = new Queue();
let next = 0;
for (; next < qn; next++) q.pushRaw(urls[next], bias[n + next]);
let draw = n + qn;
t0 = performance.now();
for (let k = 0; k < m; k++) {
  if (coin[k]) q.pop();
  else { q.pushRaw(urls[next], bias[draw++]); next++; }
}
console.log(`mixed ${m} ${(performance.now() - t0).toFixed(1)}`);
urls.length = 0;

const types = ['article', 'nav', 'hub-seed', 'page'];
const methods = ['link', 'sitemap', 'link-discovery'];
const input = new Array(un);
let fresh = 0, urlBytes = 0;
for (let i = 0; i < un; i++) {
  if (i % 5 === 4 && fresh > 0) {
    const j = Number(nextRand() % BigInt(fresh));
    switch (Number(nextRand() % 3n)) {
      case 0: input[i] = `https://H${pad(j % 1000, 3)}.Example.org/section/${pad(j, 7)}/page.html`; break;
      case 1: input[i] = `${urlOf(j)}#top`; break;
      default: input[i] = `https://h${pad(j % 1000, 3)}.example.org:443/section/${pad(j, 7)}/page.html`;
    }
  } else {
    input[i] = urlOf(fresh++);
    urlBytes += input[i].length + 1;
  }
}
q = null; // the mixed workload's queue, collected before the measure
if (global.gc) global.gc();
const m0 = process.memoryUsage().heapUsed;
q = new Queue();
let took = 0;
t0 = performance.now();
for (let i = 0; i < un; i++)
  if (q.enqueue(input[i], types[i % 4], i % 6, methods[i % 3])) took++;
const ms = performance.now() - t0;
if (global.gc) global.gc();
const m1 = process.memoryUsage().heapUsed;
console.log(`enqueue ${un} ${ms.toFixed(1)}`);
const url = fresh ? urlBytes / fresh : 0;
// the queue and the input stay alive through m1 (else the collector may
// take them: nothing reads them after it). The URLs were made before m0
// and the items keep them: the growth is what an item costs beyond its URL
const kept = q.heap.size === took && input.length === un;
console.log(`bytes-per-item ${((m1 - m0) / took).toFixed(1)} ${url.toFixed(1)} ${took}`);
if (!kept) process.exit(1);
process.exit(took === fresh ? 0 : 1);
