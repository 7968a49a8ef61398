// starve.mjs checks that a page whose threads the machine starves keeps
// its link (TestStarvedPageKeepsItsLinkInBrowser): for each query it
// loads the page, waits until it plays, then pins the client core's Web
// Worker (when the page has one) and then the page's own thread busy for
// PIN_MS each, a busy loop run in that thread, while the server keeps
// sending; after each pin it watches state() for three seconds more. It
// prints one line per query: {"query", "pins": [{"thread", "pinnedMs",
// "lostSeen", "snapshotsBefore", "snapshotsAfter"}], "id", "idAfter",
// "attempts", "rejoined", "status"}.
//
// Usage: PLAYWRIGHT_CORE=URL node starve.mjs BASE_URL PIN_MS QUERY...
import { args, launch, run, sleep } from './launch.mjs';

const [base, pinArg, ...queries] = args('starve.mjs', 'BASE_URL PIN_MS QUERY...', 3);
const pinMs = Number(pinArg);
const problems = [];
const browser = await launch();

const state = (page) => page.evaluate(() => window.lagkit?.state());
const playing = (st) => st?.connected && st.phase === 'connected' && st.net.snapshots > 20 && !st.lost;

// pin busy-loops the thread that target (a page or a worker) runs in
// for ms, and returns how long it did.
const pin = (target, ms) => target.evaluate((ms) => {
  const t0 = performance.now();
  while (performance.now() - t0 < ms) { /* busy */ }
  return performance.now() - t0;
}, ms);

await run(browser, problems, async () => {
  for (const query of queries) {
    const page = await browser.newPage({ viewport: { width: 640, height: 360 } });
    page.on('console', (msg) => {
      if (msg.type() === 'info') console.error(`${query}: ${msg.text()}`);
    });
    page.on('pageerror', (err) => problems.push(`${query}: page error: ${err.message}`));
    await page.goto(`${base}/${query}`, { waitUntil: 'load' });
    let st = null;
    for (let i = 0; i < 600 && !playing(st); i++) {
      st = await state(page);
      await sleep(100);
    }
    if (!playing(st)) throw new Error(`${query}: not playing after 60 s`);
    const id = st.id;
    const pins = [];
    const threads = query.includes('worker=0') ? ['page'] : ['worker', 'page'];
    for (const thread of threads) {
      const before = (await state(page)).net.snapshots;
      let target = page;
      if (thread === 'worker') {
        if (page.workers().length !== 1) throw new Error(`${query}: ${page.workers().length} workers, want the core's`);
        target = page.workers()[0];
      }
      const pinnedMs = await pin(target, pinMs);
      let lostSeen = false;
      const t0 = Date.now();
      while (Date.now() - t0 < 3000) {
        st = await state(page);
        lostSeen = lostSeen || !st || st.lost || !st.connected;
        await sleep(50);
      }
      pins.push({ thread, pinnedMs: Math.round(pinnedMs), lostSeen, snapshotsBefore: before, snapshotsAfter: st?.net.snapshots });
    }
    st = await state(page);
    console.log(JSON.stringify({
      query, pins, id, idAfter: st?.id, attempts: st?.attempts, rejoined: st?.rejoined,
      status: await page.evaluate(() => document.getElementById('status').textContent),
    }));
    await page.close();
  }
});
