// profile.mjs summarises a CPU profile perf.mjs wrote (LAGKIT_CPUPROFILE):
// the time sampled on the page's thread, by what it was spent in (idle,
// garbage collection, the program: Chrome's own work outside scripts),
// and the functions with the most self time, with their script and
// line. The page's script is minified, but its classes' methods keep
// their names.
//
// Usage: node profile.mjs FILE.cpuprofile [N]
import fs from 'node:fs';

const [file, n = '25'] = process.argv.slice(2);
if (!file) {
  console.error('usage: node profile.mjs FILE.cpuprofile [N]');
  process.exit(2);
}
const p = JSON.parse(fs.readFileSync(file, 'utf8'));
const byID = new Map(p.nodes.map((x) => [x.id, x]));
// Each sample's time is the delta before the next one.
const self = new Map();
let total = 0;
p.samples.forEach((id, i) => {
  const dt = (p.timeDeltas[i + 1] ?? 0) / 1000;
  total += dt;
  self.set(id, (self.get(id) ?? 0) + dt);
});
const byFn = new Map();
for (const [id, ms] of self) {
  const f = byID.get(id).callFrame;
  const url = f.url.replace(/^.*\//, '');
  const key = `${f.functionName || '(anonymous)'} ${url ? `${url}:${f.lineNumber + 1}:${f.columnNumber + 1}` : ''}`.trim();
  byFn.set(key, (byFn.get(key) ?? 0) + ms);
}
const busy = total - (byFn.get('(idle)') ?? 0);
console.log(`${total.toFixed(0)} ms sampled, ${busy.toFixed(0)} ms busy`);
for (const [k, ms] of [...byFn].sort((a, b) => b[1] - a[1]).slice(0, Number(n))) {
  console.log(`${ms.toFixed(1).padStart(9)} ms ${(100 * ms / Math.max(1, busy)).toFixed(1).padStart(5)} %  ${k}`);
}
