// duel.mjs plays two lagkit pages in one match in headless Chromium: a
// "near" page and a "far" one (the Go test, TestDuelInBrowser, injects
// 150 ms of round trip on the far player's link and places the players
// when this script says both are connected). The far page aims where it
// draws the other player (strafing slowly) and fires through
// window.lagkit.input until the target dies; the target presses the report key (B). It saves
// screenshots of the far page with the rewind view on and off and of its
// net graph, and prints JSON lines: {"step": "connected", ...}, then
// {"step": "done", ...} with what the pages showed. Any console or page
// error fails the run; the Go test judges the numbers.
//
// Usage: PLAYWRIGHT_CORE=URL node duel.mjs BASE_URL OUT_DIR [NEAR_QUERY]
// (NEAR_QUERY is added to the target page's query, such as &worker=0)
// (stdin: the line "placed" once the players are placed, and any line
// once the test has read the server's account after "done")
import { createInterface } from 'node:readline';
import { join } from 'node:path';

import { args, launch, run, sleep } from './launch.mjs';

const [base, outDir, nearQuery = ''] = args('duel.mjs', 'BASE_URL OUT_DIR [NEAR_QUERY]', 2);
const lines = createInterface({ input: process.stdin });
const nextLine = () => new Promise((resolve) => lines.once('line', resolve));
const problems = [];
const browser = await launch();

async function open(name, query) {
  const page = await browser.newPage({ viewport: { width: 640, height: 360 } });
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(`${name}: console error: ${msg.text()}`);
    if (msg.type() === 'debug' || msg.type() === 'info') console.error(`${name}: ${msg.text()}`);
  });
  page.on('pageerror', (err) => problems.push(`${name}: page error: ${err.message}`));
  await page.goto(`${base}/?name=${name}${query}`, { waitUntil: 'load' });
  return page;
}

const state = (page) => page.evaluate(() => window.lagkit?.state());

async function connected(page, name) {
  for (let i = 0; i < 600; i++) {
    const st = await state(page);
    if (st?.phase === 'connected' && st.net.snapshots > 20) return st;
    await sleep(100);
  }
  const st = await state(page);
  const status = await page.evaluate(() => document.getElementById('status')?.textContent);
  throw new Error(`${name}: not connected after 60 s: phase ${st?.phase} (${status})`);
}

await run(browser, problems, async () => {
  const near = await open('near', nearQuery);
  const far = await open('far', '&rewind=1&impacts=1');
  const [n0, f0] = [await connected(near, 'near'), await connected(far, 'far')];
  console.log(JSON.stringify({ step: 'connected', near: n0.id, far: f0.id }));
  if ((await nextLine()) !== 'placed') throw new Error('the test did not place the players');

  // Wait until the far page stands where it was placed and draws the
  // target standing where it was placed.
  let target = null;
  let st = null;
  for (let i = 0; i < 300 && !target; i++) {
    st = await state(far);
    const p = st.players.find((q) => q.id === n0.id && !q.dead);
    if (Math.hypot(st.self.pos[0] + 8, st.self.pos[1] + 12) < 0.5 && p && Math.hypot(p.pos[0], p.pos[1] + 12) < 0.5) target = p;
    else await sleep(100);
  }
  if (!target) throw new Error(`far page at ${st?.self.pos} never drew the target at its place`);

  // The target strafes slowly to and fro; the far page aims at its drawn
  // torso and fires until it dies.
  let nearHealthMin = 100, deathCam = false, killer = -1, dead = null;
  let side = 0.35, flipped = 0;
  const t0 = Date.now();
  while (Date.now() - t0 < 10000) {
    if (Date.now() - flipped > 700) {
      side = -side;
      flipped = Date.now();
      await near.evaluate((s) => window.lagkit.input({ side: s }), side);
    }
    st = await state(far);
    const p = st.players.find((q) => q.id === n0.id);
    if (p && !p.dead) {
      const d = [p.pos[0] - st.eye[0], p.pos[1] - st.eye[1], p.pos[2] + 1.1 - st.eye[2]];
      await far.evaluate(([yaw, pitch]) => window.lagkit.input({ yaw, pitch, fire: true }),
        [Math.atan2(d[1], d[0]), Math.atan2(d[2], Math.hypot(d[0], d[1]))]);
    }
    const ns = await state(near);
    if (!ns.self.dead) nearHealthMin = Math.min(nearHealthMin, ns.self.health);
    if (ns.self.dead) {
      nearHealthMin = 0;
      deathCam = ns.deathCam;
      killer = ns.killer;
      if (deathCam) {
        const k = ns.players.find((q) => q.id === ns.killer);
        // Two frames on, the HUD drawn for the death camera.
        await near.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
        const crosshair = await near.evaluate(() => getComputedStyle(document.getElementById('crosshair')).display !== 'none');
        dead = { view: ns.deathView, killerPos: k?.pos ?? null, respawnText: ns.respawnText, ammoShown: ns.ammoShown, respawnIn: ns.respawnIn, crosshair };
        break;
      }
    }
    await sleep(80);
  }
  await far.evaluate(() => window.lagkit.input({ fire: false }));

  // The target reports the last hit as behind cover, then again.
  await near.keyboard.press('KeyB');
  for (let i = 0; i < 30 && (await state(near)).reports < 1; i++) await sleep(100);
  await near.keyboard.press('KeyB');
  await sleep(300);
  const ns = await state(near);
  const reports = ns.reports;
  const reportNotes = ns.notes;
  // The newest hit on the target as its page heard of it (the server
  // shows both ends of a hit).
  const nearLastShot = ns.rewindView.last?.shotTick ?? -1;

  // The far page's rewind view of its last hit, then the same view
  // without it, and the net graph.
  // The history holds its shots, hits and misses: the keys step back
  // (older, [) to its last hit, and through the rest.
  await sleep(300);
  const history = [];
  st = await state(far);
  for (let i = 0; i < st.rewindView.mine; i++) {
    const l = st.rewindView.last;
    history.push({ back: st.rewindView.back, tick: l.shotTick, outcome: l.outcome, victim: l.victim });
    await far.keyboard.press('BracketLeft');
    await sleep(50);
    st = await state(far);
  }
  const hitBack = history.find((h) => h.outcome !== 'miss')?.back ?? 0;
  await far.evaluate(() => window.lagkit.rewindStep(-99));
  await far.evaluate((n) => window.lagkit.rewindStep(n), hitBack);
  await sleep(300);
  st = await state(far);
  // A miss known late may have come in meanwhile: step on to a hit.
  for (let i = 0; i < 16 && st.rewindView.last?.outcome === 'miss'; i++) {
    await far.evaluate(() => window.lagkit.rewindStep(1));
    st = await state(far);
  }
  const rw = st.rewindView;
  const panelText = await far.evaluate(() => document.getElementById('rewind').textContent);
  const rewindShot = join(outDir, 'browser-rewind.png');
  await far.screenshot({ path: rewindShot });
  await far.evaluate(() => window.lagkit.rewindView(false));
  await sleep(300);
  const plainShot = join(outDir, 'browser-view.png');
  await far.screenshot({ path: plainShot });
  const netShot = join(outDir, 'browser-netgraph.png');
  await far.locator('#netbox').screenshot({ path: netShot });

  // The target's rewind view of the hit on it, once it has respawned:
  // drawn in the inset along the shot.
  for (let i = 0; i < 60 && (await state(near)).self.dead; i++) await sleep(100);
  await near.evaluate(() => { window.lagkit.rewindView(true); window.lagkit.rewindList('onMe'); });
  await sleep(400);
  const hitOnYou = (await state(near)).rewindView;
  const hitShot = join(outDir, 'browser-hit-on-you.png');
  await near.screenshot({ path: hitShot });
  await near.evaluate(() => window.lagkit.rewindView(false));

  const hits = st.recentEvents.filter((e) => e.kind === 'hit').length;
  const last = rw.last ?? {};
  console.log(JSON.stringify({
    step: 'done', near: n0.id, far: f0.id, nearHealthMin, farHits: hits,
    rewindOn: rw.on, rewindDrawn: rw.drawn, rewindMine: last.mine ?? false, rewindVictim: last.victim ?? -1,
    rewindMs: last.rewindMs ?? 0, rollbackM: last.rollbackM ?? 0, seenOffM: last.seenOffM ?? -1,
    reports, nearLastShot, deathCam, killer, farRttMs: st.net.rttMs, nearRttMs: (await state(near)).net.rttMs, panelText,
    rewindShot, plainShot, netShot, farCorrections: st.net.corrections,
    dead, reportNotes, hitOnYou, hitShot, history, impacts: st.lens.impactsDrawn, sound: st.sound, nearSound: (await state(near)).sound,
  }));
  // The test reads the server's account while the pages are still in.
  await nextLine();
});
lines.close();
