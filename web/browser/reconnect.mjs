// reconnect.mjs checks that lagkit's page sees a dead server and comes
// back by itself (TestReconnectInBrowser): for each query it loads the
// page, waits until it plays, says {"step": "connected", ...} and waits
// for the line "killed" (the test has killed the server); it then times
// how long state().connected stays true and what the page says
// ({"step": "lost", ...}), waits for the line "restarted" (a new server
// on the same address) and times how long until the page plays again,
// in which seat and team ({"step": "back", ...}). Before the kill and
// after coming back it fires into the air for a second, and the "back"
// line has its rewind view's shots before the restart and its state
// after the new ones. Between queries it
// says {"step": "next"} and waits for "fresh": a new server, without the
// last page's session.
//
// Usage: PLAYWRIGHT_CORE=URL node reconnect.mjs BASE_URL QUERY...
import { createInterface } from 'node:readline';

import { args, launch, run, sleep } from './launch.mjs';

const [base, ...queries] = args('reconnect.mjs', 'BASE_URL QUERY...', 2);
// REWIND_SHOT names where to save the first page's rewind view after it
// came back.
const shots = process.env.REWIND_SHOT;
const lines = createInterface({ input: process.stdin });
const nextLine = () => new Promise((resolve) => lines.once('line', resolve));
const problems = [];
const browser = await launch();

const state = (page) => page.evaluate(() => window.lagkit?.state());

// fire holds the trigger pointing up for a second, waits until the
// shots are judged misses (half a second past the round trip) and
// returns the rewind view's state.
async function fire(page) {
  await page.evaluate(() => window.lagkit.input({ pitch: 1.2, fire: true }));
  await sleep(1000);
  await page.evaluate(() => window.lagkit.input({ fire: false }));
  await page.evaluate(() => window.lagkit.rewindView(true));
  await sleep(1500);
  return (await state(page)).rewindView;
}
const playing = (st) => st?.connected && st.phase === 'connected' && st.net.snapshots > 20 && !st.lost;

await run(browser, problems, async () => {
  for (const query of queries) {
    const page = await browser.newPage({ viewport: { width: 640, height: 360 } });
    page.on('console', (msg) => {
      if (msg.type() === 'debug' || msg.type() === 'info') console.error(`${query}: ${msg.text()}`);
    });
    page.on('pageerror', (err) => problems.push(`${query}: page error: ${err.message}`));
    await page.goto(`${base}/${query}`, { waitUntil: 'load' });
    let st = null;
    for (let i = 0; i < 600 && !playing(st); i++) {
      st = await state(page);
      await sleep(100);
    }
    if (!playing(st)) throw new Error(`${query}: not playing after 60 s`);
    // Shots into the air before the server dies: the rewind view keeps
    // them as misses, with the old server's ticks.
    // A shot's number is its command's, counted from the connection: the
    // old connection fires later in its life than the new one will.
    await sleep(4000);
    const old = await fire(page);
    console.log(JSON.stringify({ step: 'connected', query, id: st.id, team: st.team, name: st.name, transport: st.transport, tick: st.tick }));
    if ((await nextLine()) !== 'killed') throw new Error('the test did not kill the server');
    const killed = Date.now();
    let lostMs = -1, status = '', net = '';
    while (Date.now() - killed < 8000) {
      st = await state(page);
      if (st && !st.connected) {
        lostMs = Date.now() - killed;
        await sleep(300);
        status = await page.evaluate(() => document.getElementById('status').textContent);
        net = await page.evaluate(() => document.getElementById('net').textContent);
        break;
      }
      await sleep(50);
    }
    console.log(JSON.stringify({ step: 'lost', query, lostMs, status, net }));
    if ((await nextLine()) !== 'restarted') throw new Error('the test did not restart the server');
    const restarted = Date.now();
    let backMs = -1;
    while (Date.now() - restarted < 20000) {
      st = await state(page);
      if (playing(st)) {
        backMs = Date.now() - restarted;
        break;
      }
      await sleep(100);
    }
    // Shots on the new server, whose ticks start again: the rewind view
    // shows them as the newest, after the old ones.
    const rewind = playing(st) ? await fire(page) : null;
    if (shots && query === queries[0]) await page.screenshot({ path: shots });
    console.log(JSON.stringify({
      step: 'back', query, backMs, id: st?.id, team: st?.team, name: st?.name, transport: st?.transport,
      oldShots: old.shots, rewind,
      attempts: st?.attempts, rejoined: st?.rejoined, status: await page.evaluate(() => document.getElementById('status').textContent),
    }));
    await page.close();
    if (query !== queries[queries.length - 1]) {
      // The next page meets a fresh server, not this page's old session.
      console.log(JSON.stringify({ step: 'next' }));
      if ((await nextLine()) !== 'fresh') throw new Error('the test did not start a fresh server');
    }
  }
});
lines.close();
