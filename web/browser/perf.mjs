// perf.mjs measures lagkit's page in headless Chromium: it loads the page,
// waits until it is connected and draws the other players, warms up for
// five seconds, then reads window.lagkit.perf() every second for ten and
// prints one JSON line with the means per frame (client core step, state
// with interpolation, draw), the median and 95th percentile of the
// frames' times on the page's thread (p50Ms, p95Ms: performance.now()
// around each frame and the core's work between frames), the players
// and the most tracers a frame drew, the
// scoreboard's rows as last read, and the machine's load (the 1-minute load average before and after, and the
// cores). The Go test (TestFrameTimeInBrowser) and
// benchmark (BenchmarkFrameTimeInBrowser) run it beside a 64-player
// match.
//
// With LAGKIT_CPUPROFILE=FILE it also writes a CPU profile of the page's
// thread over the ten seconds (Chrome's .cpuprofile, for DevTools'
// Performance panel or profile.mjs), to FILE with the query's worker=0
// marked in its name (FILE-worker0 for ?worker=0).
//
// Usage: PLAYWRIGHT_CORE=URL node perf.mjs BASE_URL [QUERY]
import fs from 'node:fs';
import os from 'node:os';
import { args, launch, run, sleep } from './launch.mjs';

const [base, query = ''] = args('perf.mjs', 'BASE_URL [QUERY]', 1);
const problems = [];
const browser = await launch();
await run(browser, problems, async () => {
  const page = await browser.newPage({ viewport: { width: 960, height: 540 } });
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  await page.goto(`${base}/?name=perf${query}`, { waitUntil: 'load' });
  let st = null;
  for (let i = 0; i < 600; i++) {
    st = await page.evaluate(() => window.lagkit?.state());
    if (st?.phase === 'connected' && st.net.snapshots > 20) break;
    await sleep(100);
  }
  if (st?.phase !== 'connected') throw new Error(`not connected after 60 s: ${st?.phase}`);
  // Playing: the menu closed, with the researcher's lens on (the net
  // graph is by default; the impacts too).
  await page.evaluate(() => { window.lagkit.menu(false); window.lagkit.lens({ netgraph: true, impacts: true }); });
  await sleep(5000);
  const profile = process.env.LAGKIT_CPUPROFILE;
  let cdp = null;
  if (profile) {
    cdp = await page.context().newCDPSession(page);
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 250 });
    await cdp.send('Profiler.start');
  }
  await page.evaluate(() => window.lagkit.perf());
  const loadBefore = os.loadavg()[0];
  const samples = [];
  let players = 0, tracers = 0, rows = 0;
  for (let i = 0; i < 10; i++) {
    await sleep(1000);
    const s = await page.evaluate(() => window.lagkit.perf());
    samples.push(s);
    tracers = Math.max(tracers, s.tracers);
    const st = await page.evaluate(() => window.lagkit.state());
    players = Math.max(players, st.players.length);
    rows = st.score.rows.length;
  }
  if (cdp) {
    const { profile: p } = await cdp.send('Profiler.stop');
    fs.writeFileSync(query.includes('worker=0') ? profile.replace(/(\.cpuprofile)?$/, '-worker0$1') : profile, JSON.stringify(p));
  }
  const frames = samples.reduce((a, s) => a + s.frames, 0);
  const mean = (k) => samples.reduce((a, s) => a + s[k] * s.frames, 0) / Math.max(1, frames);
  const times = samples.flatMap((s) => s.samples).sort((a, b) => a - b);
  const pct = (p) => (times.length ? times[Math.min(times.length - 1, Math.floor(p * times.length))] : 0);
  console.log(JSON.stringify({
    frames, fps: frames / 10, players, tracers, rows,
    stepMs: mean('stepMs'), stateMs: mean('stateMs'), drawMs: mean('drawMs'), renderMs: mean('renderMs'), infoMs: mean('infoMs'),
    pumpMs: mean('pumpMs'), frameMs: mean('frameMs'), p50Ms: pct(0.5), p95Ms: pct(0.95),
    loadBefore, loadAfter: os.loadavg()[0], cores: os.cpus().length,
  }));
});
