// shutdown.mjs plays lagkit's page while its server shuts down
// gracefully (TestShutdownInBrowser): it loads the page, waits until it
// plays and says {"step": "connected"}, waits for the line "shut" (the
// test ended the match with a reason), then reads the status line every
// 50 ms for six seconds and says {"step": "done", "statuses": [...],
// "hidden": N}, each text that showed, in order, and how many of them
// another element covered.
//
// Usage: PLAYWRIGHT_CORE=URL node shutdown.mjs BASE_URL QUERY
import { createInterface } from 'node:readline';

import { args, launch, run, sleep } from './launch.mjs';

const [base, query] = args('shutdown.mjs', 'BASE_URL QUERY', 2);
const lines = createInterface({ input: process.stdin });
const nextLine = () => new Promise((resolve) => lines.once('line', resolve));
const problems = [];
const browser = await launch();

await run(browser, problems, async () => {
  const page = await browser.newPage({ viewport: { width: 640, height: 360 } });
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  await page.goto(`${base}/${query}`, { waitUntil: 'load' });
  let st = null;
  for (let i = 0; i < 600 && !(st?.connected && st.net.snapshots > 20); i++) {
    st = await page.evaluate(() => window.lagkit?.state());
    await sleep(100);
  }
  if (!st?.connected) throw new Error('not playing after 60 s');
  console.log(JSON.stringify({ step: 'connected' }));
  if ((await nextLine()) !== 'shut') throw new Error('the test did not end the match');
  const statuses = [];
  const t0 = Date.now();
  // hidden counts the texts another element covered where the status
  // shows (the menu is open: a headless page has no pointer lock).
  let hidden = 0;
  while (Date.now() - t0 < 6000) {
    const [s, covered] = await page.evaluate(() => {
      const el = document.getElementById('status');
      const r = el.getBoundingClientRect();
      // The HUD lets the pointer through, which elementFromPoint follows.
      el.style.pointerEvents = 'auto';
      const at = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      el.style.pointerEvents = '';
      return [el.textContent, el.textContent !== '' && !el.contains(at)];
    });
    if (statuses[statuses.length - 1] !== s) {
      statuses.push(s);
      if (covered) hidden++;
    }
    await sleep(50);
  }
  console.log(JSON.stringify({ step: 'done', statuses, hidden }));
});
lines.close();
