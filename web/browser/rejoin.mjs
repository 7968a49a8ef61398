// rejoin.mjs checks that two pages come back to their own seats and
// teams after their server restarts with bots (TestRejoinWithBotsInBrowser),
// whatever order they come back in: it loads alice's page, then bob's
// (each in a browser context of its own), waits until both play and says
// {"step": "connected", "pages": [...]}; on the line "killed" (the test
// killed the server) it takes alice's context off the network, waits
// until both pages see the server gone and says {"step": "lost"}; on
// "restarted" (a new server on the same address, its bots seated
// first) it waits until bob plays again, reads bob's scoreboard, puts
// alice back on the network and waits until she plays again, and says
// {"step": "back", "pages": [...], "rows": [...]}.
//
// Usage: PLAYWRIGHT_CORE=URL node rejoin.mjs BASE_URL QUERY_ALICE QUERY_BOB
import { createInterface } from 'node:readline';

import { args, launch, run, sleep } from './launch.mjs';

const [base, ...queries] = args('rejoin.mjs', 'BASE_URL QUERY_ALICE QUERY_BOB', 3);
const lines = createInterface({ input: process.stdin });
const nextLine = () => new Promise((resolve) => lines.once('line', resolve));
const problems = [];
const browser = await launch();

const state = (page) => page.evaluate(() => window.lagkit?.state());
const playing = (st) => st?.connected && st.phase === 'connected' && st.net.snapshots > 20 && !st.lost;
const seat = (st) => ({ id: st?.id, team: st?.team, name: st?.name, transport: st?.transport });

async function until(page, what, ok, ms) {
  const start = Date.now();
  for (;;) {
    const st = await state(page);
    if (ok(st)) return st;
    if (Date.now() - start > ms) throw new Error(`${what} after ${ms} ms`);
    await sleep(100);
  }
}

await run(browser, problems, async () => {
  const contexts = [], pages = [];
  for (const query of queries.slice(0, 2)) {
    const ctx = await browser.newContext({ viewport: { width: 640, height: 360 } });
    const page = await ctx.newPage();
    page.on('console', (msg) => {
      if (msg.type() === 'debug' || msg.type() === 'info') console.error(`${query}: ${msg.text()}`);
    });
    page.on('pageerror', (err) => problems.push(`${query}: page error: ${err.message}`));
    await page.goto(`${base}/${query}`, { waitUntil: 'load' });
    await until(page, `${query}: not playing`, playing, 60000);
    contexts.push(ctx);
    pages.push(page);
  }
  const [alice, bob] = pages;
  const before = [seat(await state(alice)), seat(await state(bob))];
  console.log(JSON.stringify({ step: 'connected', pages: before }));
  if ((await nextLine()) !== 'killed') throw new Error('the test did not kill the server');
  await contexts[0].setOffline(true);
  for (const p of pages) await until(p, 'the dead server not seen', (st) => st && !st.connected, 8000);
  console.log(JSON.stringify({ step: 'lost' }));
  if ((await nextLine()) !== 'restarted') throw new Error('the test did not restart the server');
  // Bob comes back first, while alice cannot reach the server.
  await until(bob, 'bob not back', playing, 20000);
  await sleep(1500); // a scoreboard
  const rows = (await state(bob)).score.rows.map((r) => ({ id: r.id, team: r.team, name: r.name }));
  await contexts[0].setOffline(false);
  await until(alice, 'alice not back', playing, 20000);
  const after = [seat(await state(alice)), seat(await state(bob))];
  console.log(JSON.stringify({ step: 'back', pages: after, rows }));
  for (const c of contexts) await c.close();
});
lines.close();
