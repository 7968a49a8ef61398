// play.mjs plays lagkit's page in headless Chromium against a live
// server: for each transport (the client core in its Web Worker), and
// with the core on the page's thread (?worker=0),
// it loads the page, waits until the client
// core is connected and snapshots flow, runs forward and crouches through
// window.lagkit.input, and prints one JSON line of what
// window.lagkit.state() showed. The first run turns to face the nearest
// other player and saves a screenshot. Any console error or page error
// fails the run; the Go test (TestPlayInBrowser) judges the numbers.
//
// Usage: PLAYWRIGHT_CORE=URL node play.mjs BASE_URL SCREENSHOT.png
//
// PLAYWRIGHT_CORE is the file: URL of playwright-core's index.mjs: the
// copy report/browser/install.sh installs for the report's check.
import { args, launch, run, sleep } from './launch.mjs';

const [base, screenshotPath] = args('play.mjs', 'BASE_URL SCREENSHOT.png', 2);
const problems = [];
const browser = await launch();

async function play(query, shoot) {
  let labels = null;
  const page = await browser.newPage({ viewport: { width: 960, height: 540 } });
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(`${query || 'default'}: console error: ${msg.text()}`);
    if (msg.type() === 'debug' || msg.type() === 'info') console.error(`${query || 'default'}: ${msg.text()}`);
  });
  page.on('pageerror', (err) => problems.push(`${query || 'default'}: page error: ${err.message}`));
  await page.goto(base + '/' + query, { waitUntil: 'load' });
  const state = () => page.evaluate(() => window.lagkit?.state());
  let st = null;
  for (let i = 0; i < 1200; i++) {
    st = await state();
    if (st?.phase === 'connected' && st.net.snapshots > 20 && !st.self.dead) break;
    await sleep(100);
  }
  if (st?.phase !== 'connected') {
    const status = await page.evaluate(() => document.getElementById('status')?.textContent);
    throw new Error(`${query || 'default'}: not connected after 120 s: phase ${st?.phase} (${status})`);
  }
  const start = st.self.pos;
  const yaw = st.self.yaw;
  // Diagonally, so that cover in front of the spawn only slides the
  // player along it.
  await page.evaluate((y) => window.lagkit.input({ forward: 1, side: 1, yaw: y }), yaw);
  await sleep(1500);
  st = await state();
  const moved = Math.hypot(st.self.pos[0] - start[0], st.self.pos[1] - start[1]);
  await page.evaluate(() => window.lagkit.input({ forward: 0, side: 0, crouch: true }));
  await sleep(400);
  const crouched = (await state()).self.crouched;
  await page.evaluate(() => window.lagkit.input({ crouch: false }));
  await sleep(300);
  st = await state();
  if (shoot) {
    // Face the nearest other player, so the picture shows one: a team
    // mate when there is one, whose label shows wherever it stands (an
    // enemy's shows only in sight, and the nearest may be behind a wall).
    const alive = st.players.filter((p) => !p.dead);
    const mates = alive.filter((p) => p.team === st.self.team);
    const others = mates.length > 0 ? mates : alive;
    if (others.length > 0) {
      const d = (p) => Math.hypot(p.pos[0] - st.eye[0], p.pos[1] - st.eye[1]);
      const p = others.reduce((a, b) => (d(a) <= d(b) ? a : b));
      const y = Math.atan2(p.pos[1] - st.eye[1], p.pos[0] - st.eye[0]);
      const pitch = Math.atan2(p.pos[2] + 1 - st.eye[2], d(p));
      await page.evaluate(([y, pitch]) => window.lagkit.input({ yaw: y, pitch }), [y, pitch]);
    }
    // The label shows once the page has drawn the turned view with the
    // player in it: wait for it (a loaded machine draws a frame in
    // hundreds of ms), at most 5 s.
    const shown = () => page.evaluate(() => [...document.querySelectorAll('#labels .label')].filter((l) => l.style.display !== 'none').map((l) => l.textContent));
    await sleep(500);
    for (let i = 0; i < 45 && (labels = await shown()).length === 0; i++) await sleep(100);
    await page.screenshot({ path: screenshotPath });
    st = await state();
  }
  const net = st.net;
  // Holding Tab shows the scoreboard, one row per player.
  await page.keyboard.down('Tab');
  await page.waitForTimeout(150);
  const boardRows = await page.evaluate(() => document.querySelectorAll('#board tr.team0, #board tr.team1').length);
  await page.keyboard.up('Tab');
  // pixels counts the pixels of a canvas that match, to tell it has drawn.
  const pixels = (id, test) => page.evaluate(([id, test]) => {
    const c = document.getElementById(id);
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    const match = new Function('r', 'g', 'b', `return ${test}`);
    let n = 0;
    for (let i = 0; i < d.length; i += 4) if (match(d[i], d[i + 1], d[i + 2])) n++;
    return n;
  }, [id, test]);
  // The RTT sparkline's green line, and the minimap's boxes and players.
  const sparkPixels = await pixels('rtt', 'g > r + 40');
  const minimapPixels = await pixels('minimap', 'r + g + b > 200');
  console.log(JSON.stringify({
    query, transport: st.transport, phase: st.phase, id: st.id, moved, crouched,
    snapshots: net.snapshots, snapshotRate: net.snapshotRate, tickRate: net.tickRate,
    corrections: net.corrections, malformed: net.malformed, rttMs: net.rttMs,
    loss: net.loss, jitterMs: net.jitterMs, bufferMs: net.bufferMs, bytesIn: net.bytesIn, bytesOut: net.bytesOut,
    rttSamples: net.rttSamples.length, labels, sparkPixels, minimapPixels, boardRows,
    players: st.players.length, frames: st.frames, health: st.self.health, weapon: st.weapon, commands: net.commands,
    // The automation fields of window.lagkit.state(), as read now.
    api: Object.fromEntries(['connected', 'transport', 'tick', 'rtt_ms', 'pos', 'yaw', 'pitch', 'health', 'team', 'alive',
      'kills', 'deaths', 'prediction_error_m', 'self'].map((k) => [k, st[k]])),
  }));
  await page.close();
}

await run(browser, problems, async () => {
  await play('', true);
  await play('?transport=ws', false);
  await play('?worker=0', false);
});
