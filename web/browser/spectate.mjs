// spectate.mjs watches a match of bots as a spectator's page does
// (/?spectate=1) in headless Chromium (TestSpectateInBrowser): after the
// countdown of a delayed view (kept as countdown) it picks the span of
// shots listed with the panel's buttons and T, waits until more than 12
// shots are listed, pauses with P (the list and players stop while the
// page goes on polling), steps with the arrow keys and the panel's
// buttons, clicks a hit in the list and saves a screenshot paused on it,
// with names (browser-spectate.png in OUT_DIR), clicks a miss, goes live
// again, follows a player (F), frees the camera (Space) and flies it
// (W). It prints one JSON line, {"step": "done", ...}, with what the
// page said on the way. Any console or page error fails the run.
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
  const until = async (what, ok, tries = 600) => {
    let st = null;
    for (let i = 0; i < tries; i++) {
      st = await state();
      if (st && ok(st)) return st;
      await sleep(100);
    }
    throw new Error(`${what}: not after ${tries / 10} s: ${JSON.stringify(st)?.slice(0, 2000)}`);
  };
  // countdown is the first status saying when a delayed view starts.
  let countdown = '';
  await until('shots', (st) => {
    if (!countdown && st.starts_in_s > 0) countdown = st.status;
    return st.received.shots >= 3 && st.players === 4;
  });
  const hidden = await page.evaluate(() => ['menu', 'crosshair', 'netbox', 'ammo'].every((id) => getComputedStyle(document.getElementById(id)).display === 'none'));

  // The span: a button, then T (30 s is the last, T goes round to 2).
  const spans = [];
  await page.click('#spectator [data-span="30"]');
  spans.push((await state()).span_s);
  await page.keyboard.press('KeyT');
  spans.push((await state()).span_s);
  await page.click('#spectator [data-span="30"]');
  spans.push((await state()).span_s);

  // More shots than the 12 the page once kept, every one of the span,
  // and a hit among them to click below (bots on a loaded machine may
  // miss for a while).
  let st = await until('13 shots listed, a hit among them', (st) => st.shots.length >= 13 && st.shots.some((s) => s.victim >= 0), 1200);
  const live = { time_s: st.time_s, span_s: st.span_s, shots: st.shots, before: st.before, after: st.after, kept: st.kept, cap: st.cap };

  // Paused, the list stands while the page polls on.
  await page.keyboard.press('KeyP');
  st = await state();
  const paused = { at: st.paused, shots: st.shots.map((s) => s.seq), shot: st.shot?.seq, received: st.received.shots, polls: st.received.polls };
  await sleep(2000);
  st = await state();
  const later = { at: st.paused, shots: st.shots.map((s) => s.seq), shot: st.shot?.seq, received: st.received.shots, polls: st.received.polls };

  // Stepping: back with the key, on with the panel's button, back two.
  const steps = [];
  await page.keyboard.press('ArrowLeft');
  steps.push((await state()).shot.seq);
  await page.click('#spectator [data-act="next"]');
  steps.push((await state()).shot.seq);
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('Comma');
  steps.push((await state()).shot.seq);

  // A hit, clicked in the list, drawn with names; the screenshot.
  const pick = async (want) => {
    const s = (await state()).shots.filter(want).pop();
    if (!s) return null;
    await page.click(`#shotlist [data-seq="${s.seq}"]`);
    await sleep(500);
    const st = await state();
    const dom = await page.evaluate(() => ({
      panel: document.getElementById('spectator').innerText,
      row: document.querySelector('#shotlist .on')?.textContent ?? '',
      swatches: [...document.querySelectorAll('#spectator .swatch')].map((el) => el.dataset.colour),
    }));
    return { seq: s.seq, listed: s, shot: st.shot, drawn: st.drawn, tags: st.tags, camera: st.camera, ...dom };
  };
  const hit = await pick((s) => s.victim >= 0);
  const shot = join(outDir, 'browser-spectate.png');
  await page.screenshot({ path: shot });
  const miss = await pick((s) => s.victim < 0 && s.near >= 0);

  // Live again: the newest shot of the span.
  await page.keyboard.press('KeyP');
  await sleep(1000);
  st = await state();
  const resumed = { paused: st.paused, shot: st.shot?.seq, newest: st.shots[st.shots.length - 1]?.seq };

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
  st = await state();
  const after = [...st.camera.pos];

  console.log(JSON.stringify({
    step: 'done', received: st.received, players: st.players, map: st.map, legend: st.legend,
    hidden, countdown, spans, live, paused, later, steps, hit, miss, resumed,
    followed, freed, before, after, links, screenshot: shot, grid: st.grid, bounds: st.bounds,
  }));
});
