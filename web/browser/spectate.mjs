// spectate.mjs watches a match of bots as a spectator's page does
// (/?spectate=1) in headless Chromium (TestSpectateInBrowser): it waits
// until the page has drawn shots with every player's rewound hitboxes,
// (after the countdown of a delayed view, kept as countdown), follows a
// player (F) and frees the camera again (Space), flies the free
// camera (W), saves a screenshot with the hitboxes drawn
// (browser-spectate.png in OUT_DIR) and prints one JSON line with what
// the page said, {"step": "done", ...}. Any console or page error fails
// the run.
//
// Usage: PLAYWRIGHT_CORE=URL node spectate.mjs BASE_URL OUT_DIR
import { join } from 'node:path';

import { args, launch, run, sleep } from './launch.mjs';

const [base, outDir] = args('spectate.mjs', 'BASE_URL OUT_DIR', 2);
const problems = [];
const browser = await launch();

await run(browser, problems, async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  page.on('console', (msg) => { if (msg.type() === 'error') problems.push(`console error: ${msg.text()}`); });
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  let links = 0;
  page.on('websocket', () => links++);
  await page.goto(`${base}/?spectate=1`, { waitUntil: 'load' });
  const state = () => page.evaluate(() => window.lagkit?.state?.());
  let st = null;
  // countdown is the first status saying when a delayed view starts.
  let countdown = '';
  for (let i = 0; i < 600; i++) {
    st = await state();
    if (!countdown && st?.starts_in_s > 0) countdown = st.status;
    if (st?.received?.shots >= 3 && st.drawn.wireframes > 0 && st.players === 4) break;
    await sleep(100);
  }
  if (!(st?.received?.shots >= 3)) throw new Error(`no shots drawn after 60 s: ${JSON.stringify(st)}`);
  const drawnShots = st.shots;
  const hidden = await page.evaluate(() => ['menu', 'crosshair', 'netbox', 'ammo'].every((id) => getComputedStyle(document.getElementById(id)).display === 'none'));
  const panel = await page.evaluate(() => document.getElementById('spectator').innerText);

  // The screenshot from the camera's start above the map, with shots
  // drawn.
  for (let i = 0; i < 200; i++) {
    st = await state();
    if (st.drawn.shots >= 2 && st.drawn.wireframes >= 8) break;
    await sleep(50);
  }
  const shot = join(outDir, 'browser-spectate.png');
  await page.screenshot({ path: shot });
  const drawnAtShot = st.drawn;

  await page.keyboard.press('KeyF');
  await sleep(300);
  const followed = (await state()).follow;
  await page.keyboard.press('Space');
  await sleep(300);
  const freed = (await state()).follow;
  const before = [...(await state()).camera.pos];
  await page.keyboard.down('KeyW');
  await sleep(600);
  await page.keyboard.up('KeyW');
  const after = [...(await state()).camera.pos];

  console.log(JSON.stringify({
    step: 'done', received: st.received, drawn: st.drawn, shots: drawnShots, players: st.players, map: st.map,
    hidden, panel, countdown, followed, freed, before, after, links, screenshot: shot, drawnAtShot, grid: st.grid, bounds: st.bounds,
  }));
});
