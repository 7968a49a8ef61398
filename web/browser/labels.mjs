// labels.mjs watches a crowd from a page in headless Chromium
// (TestLabelsInCrowdInBrowser): once connected it prints {"step":
// "joined", "id"}, waits for the test to place the crowd in front of it
// (stdin "crowd"), closes the menu, and reports the labels over the
// players' heads: each label shown, with its text and box on the page,
// and what the page did with overlapping ones (state().labels). It saves
// browser-labels-crowd.png in OUT_DIR and prints {"step": "done", ...}.
// Any console or page error fails the run.
//
// Usage: PLAYWRIGHT_CORE=URL node labels.mjs BASE_URL OUT_DIR
import { createInterface } from 'node:readline';
import { join } from 'node:path';

import { args, launch, run, sleep } from './launch.mjs';

const [base, outDir] = args('labels.mjs', 'BASE_URL OUT_DIR', 2);
const lines = createInterface({ input: process.stdin });
const nextLine = () => new Promise((resolve) => lines.once('line', resolve));
const problems = [];
const browser = await launch();

await run(browser, problems, async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  page.on('console', (msg) => { if (msg.type() === 'error' && !/404|Not Found/i.test(msg.text())) problems.push(`console error: ${msg.text()}`); });
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  await page.goto(`${base}/?name=viewer&sound=0`, { waitUntil: 'load' });
  const state = () => page.evaluate(() => window.lagkit?.state());
  let st = null;
  for (let i = 0; i < 600; i++) {
    st = await state();
    if (st?.phase === 'connected' && st.net.snapshots > 20) break;
    await sleep(100);
  }
  if (st?.phase !== 'connected') throw new Error('not connected after 60 s');
  await page.evaluate(() => window.lagkit.menu(false));
  console.log(JSON.stringify({ step: 'joined', id: st.id }));
  if ((await nextLine()) !== 'crowd') throw new Error('the test did not place the crowd');
  // The placement, its place event and the labels' sight checks.
  await sleep(2000);
  const shot = join(outDir, 'browser-labels-crowd.png');
  await page.screenshot({ path: shot });
  const labels = await page.evaluate(() => [...document.querySelectorAll('#labels .label')]
    .filter((el) => el.style.display !== 'none')
    .map((el) => { const r = el.getBoundingClientRect(); return { text: el.textContent, box: [r.left, r.top, r.right, r.bottom] }; }));
  st = await state();
  console.log(JSON.stringify({ step: 'done', labels, resolved: st.labels, view: st.view, screenshot: shot }));
});
lines.close();
