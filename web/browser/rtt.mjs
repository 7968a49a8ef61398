// rtt.mjs measures the round trip the page's client core sees, for each
// query in turn (TestRoundTripWithoutWorkerInBrowser): it loads the page
// with the query, named rtt0, rtt1, ... in query order, waits until it
// plays, prints {"sampling": NAME}, reads the page's round-trip estimate
// (state().net.rttMs) every 200 ms for SECONDS, prints {"page": {"query",
// "name", "transport", "rttMs": [...], "frames"}} and closes the page.
// One page plays at a time, so that each has the machine as the others
// had it. The Go test reads the server's estimate of the page (by name)
// while the page is sampled.
//
// Usage: PLAYWRIGHT_CORE=URL node rtt.mjs BASE_URL SECONDS QUERY...
import { args, launch, run, sleep } from './launch.mjs';

const [base, secondsArg, ...queries] = args('rtt.mjs', 'BASE_URL SECONDS QUERY...', 3);
const seconds = Number(secondsArg);
const problems = [];
const browser = await launch();

const state = (page) => page.evaluate(() => window.lagkit?.state());
const playing = (st) => st?.connected && st.phase === 'connected' && st.net.snapshots > 100 && !st.lost;

await run(browser, problems, async () => {
  for (const [i, query] of queries.entries()) {
    const name = `rtt${i}`;
    const page = await browser.newPage({ viewport: { width: 640, height: 360 } });
    page.on('pageerror', (err) => problems.push(`${query}: page error: ${err.message}`));
    await page.goto(`${base}/?name=${name}&${query}`, { waitUntil: 'load' });
    let st = null;
    for (let i = 0; i < 600 && !playing(st); i++) {
      st = await state(page);
      await sleep(100);
    }
    if (!playing(st)) throw new Error(`${query}: not playing after 60 s`);
    // Playing, the menu closed; the smoothed round trip settles in a
    // second of play.
    await page.evaluate(() => window.lagkit.menu(false));
    await sleep(1000);
    console.log(JSON.stringify({ sampling: name }));
    const rttMs = [];
    const frames0 = (await state(page)).frames;
    const t0 = Date.now();
    while (Date.now() - t0 < seconds * 1000) {
      rttMs.push((await state(page)).net.rttMs);
      await sleep(200);
    }
    st = await state(page);
    console.log(JSON.stringify({ page: { query, name, transport: st.transport, rttMs, frames: st.frames - frames0 } }));
    await page.close();
  }
});
