// study.mjs plays a live study in headless Chromium: a participant's page
// (/?code=CODE) and the admin page (/admin#token=TOKEN), against the
// study the Go test (TestStudyInBrowser) serves. Steps, each a JSON line
// on stdout, the test answering on stdin where it must move the study:
//
//  1. The participant joins by code and plays; the admin page lists the
//     seats and spectates every player of the round's match until a
//     hit's rewind is drawn on its map; screenshot admin.png. Clicking a
//     player on the map looks through its eyes, clicking elsewhere frees
//     the camera.
//  1b. The test cuts the participant's link for 7 s ({"step":
//     "spectated"}, then "restored" on stdin): the page, seeing no
//     snapshot for 5 s, joins again by code and plays on.
//  2. The admin clicks pause, resume, extend (2m) and skip (the
//     participant's page shows PAUSED from the pause to the resume); the skip
//     ends the round, and the participant's page shows the
//     questionnaire, answered with its buttons and a free text;
//     screenshot questionnaire.png. Then "waiting for the next round",
//     and the admin's table shows the seat answered. ({"step":
//     "answered"}; the test puts the study in its ready phase.)
//  3. The participant presses Ready. ({"step": "ready"}; the test starts
//     the next round in a new match.)
//  4. The participant joins the new match by code and plays on; the
//     admin page spectates it.
//  5. The admin ends the study (End, clicked twice: one click only arms
//     it); the participant's page says the study is over. ({"step":
//     "done", ...})
//
// Any console or page error fails the run; the Go test judges the rest.
//
// Usage: PLAYWRIGHT_CORE=URL node study.mjs BASE_URL CODE ADMIN_TOKEN OUT_DIR
import { createInterface } from 'node:readline';
import { join } from 'node:path';

import { args, launch, run, sleep } from './launch.mjs';

const [base, code, adminToken, outDir] = args('study.mjs', 'BASE_URL CODE ADMIN_TOKEN OUT_DIR', 4);
const lines = createInterface({ input: process.stdin });
const nextLine = () => new Promise((resolve) => lines.once('line', resolve));
const problems = [];
const browser = await launch();
const say = (o) => console.log(JSON.stringify(o));

async function open(name, path, viewport) {
  const page = await browser.newPage({ viewport });
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(`${name}: console error: ${msg.text()}`);
    if (['debug', 'info', 'warning'].includes(msg.type())) console.error(`${name}: ${msg.text()}`);
  });
  page.on('pageerror', (err) => problems.push(`${name}: page error: ${err.message}`));
  await page.goto(base + path, { waitUntil: 'load' });
  return page;
}

// until polls f on page every 100 ms until it returns a truthy value,
// for at most seconds, and returns it.
async function until(page, what, seconds, f, arg) {
  let v;
  for (let i = 0; i < seconds * 10; i++) {
    v = await page.evaluate(f, arg);
    if (v) return v;
    await sleep(100);
  }
  throw new Error(`${what}: not within ${seconds} s`);
}

const playing = (match) => (m) => {
  const st = window.lagkit?.state?.();
  const s = window.lagkit?.study?.();
  return st?.phase === 'connected' && st.net.snapshots > 20 && s?.match === m && s.overlay === '' ? { st, s } : null;
};

await run(browser, problems, async () => {
  const player = await open('participant', `/?code=${encodeURIComponent(code)}`, { width: 800, height: 500 });
  const admin = await open('admin', `/admin#token=${encodeURIComponent(adminToken)}`, { width: 1200, height: 760 });

  // 1. Playing, spectated.
  const match1 = await until(admin, 'admin state', 30, () => window.lagkit?.admin?.().state?.match);
  const p1 = await until(player, 'participant playing', 90, playing(match1), match1);
  const tokenInUrl = await admin.evaluate(() => location.href.includes('token'));
  // Every player drawn, the participant among them as the person: on a
  // loaded machine the participant's link may drop for a moment, and a
  // bot stands in (marked a bot) until it is back.
  const spect = await until(admin, 'every player spectated', 30, () => {
    const a = window.lagkit.admin();
    return a.view?.players?.length === 4 && a.drawn.players === 4 && a.view.players.filter((p) => p.bot).length === 3 ? a : null;
  });
  const rows = await admin.evaluate(() => document.querySelectorAll('#seats tbody tr').length);
  // Wait for a hit with its rewind drawn on the map (the bots fight).
  await until(admin, 'a rewind drawn', 60, () => window.lagkit.admin().drawn.rewinds > 0);
  // The map's canvas: team-coloured players and the rewind's yellow.
  const mapPixels = await admin.evaluate(() => {
    const c = document.getElementById('map');
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let red = 0, blue = 0, yellow = 0;
    for (let i = 0; i < d.length; i += 4) {
      const [r, g, b] = [d[i], d[i + 1], d[i + 2]];
      if (r > 220 && g > 180 && b < 110) yellow++;
      else if (r > 220 && g < 140 && b < 130) red++;
      else if (b > 220 && r < 140) blue++;
    }
    return { red, blue, yellow };
  });
  await admin.waitForTimeout(300);
  await admin.screenshot({ path: join(outDir, 'admin.png') });
  // Clicking a living player on the map looks through its eyes; clicking
  // away from every player frees the camera again.
  // The player may move or die between reading its place and the click,
  // the more often the more the machine is loaded: try until one click
  // lands, twenty times at most.
  let target, followed;
  for (let i = 0; i < 20 && (target === undefined || followed !== target.seat); i++) {
    target = await admin.evaluate(() => {
      const a = window.lagkit.admin();
      const c = document.getElementById('map');
      const [min, max] = [a.bounds.min, a.bounds.max];
      const scale = Math.min(c.width / (max[0] - min[0]), c.height / (max[1] - min[1]));
      const p = a.view.players.find((q) => !q.dead);
      return { seat: p.seat, x: (p.pos[0] - min[0]) * scale, y: c.height - (p.pos[1] - min[1]) * scale };
    });
    await admin.click('#map', { position: { x: target.x, y: target.y } });
    followed = await admin.evaluate(() => window.lagkit.admin().follow);
  }
  await admin.click('#map', { position: { x: 2, y: 2 } });
  const freed = await admin.evaluate(() => window.lagkit.admin().follow);
  if (followed !== target.seat || freed !== -1) throw new Error(`clicked seat ${target.seat} on the map: followed ${followed}, then ${freed}`);
  // The round's technique mandates a placebo ping: the page shows it in
  // place of the net graph.
  const shown = await until(player, 'mandated feedback', 20, () => {
    const f = window.lagkit.state().feedback;
    const ping = document.getElementById('ping').textContent;
    const graph = getComputedStyle(document.getElementById('netbox')).display !== 'none';
    return f && ping !== '' ? { feedback: f.feedback, ping, graph } : null;
  });
  say({ step: 'spectated', match: match1, seat: p1.s.seat, transport: p1.st.transport, tokenInUrl, rows,
    players: spect.view.players.length, bots: spect.view.players.filter((p) => p.bot).length, mapPixels,
    feedback: shown.feedback, pingText: shown.ping, graphShown: shown.graph });

  // 1b. The test cuts the participant's link for 7 s: the page notices
  // the silence and joins again by code, and plays on.
  if ((await nextLine()) !== 'restored') throw new Error('the test did not restore the link');
  const back = await until(player, 'the participant back after losing the link', 60, (m) => {
    const st = window.lagkit.state();
    const s = window.lagkit.study();
    return s.joins >= 2 && s.match === m && st?.phase === 'connected' && st.net.snapshots > 20 ? s : null;
  }, match1);
  say({ step: 'rejoined', joins: back.joins });

  // 2. The admin's buttons, then the questionnaire.
  const phase = () => admin.evaluate(() => window.lagkit.admin().state.phase);
  for (const [button, want] of [['pause', 'paused'], ['resume', 'playing'], ['extend', 'playing'], ['skip', 'questions']]) {
    if (button === 'extend') await admin.fill('#extend-by', '2m');
    const before = await admin.evaluate(() => window.lagkit.admin().commands.length);
    await admin.click(`#${button}`);
    await until(admin, `${button} sent`, 10, (n) => window.lagkit.admin().commands.length > n, before);
    const got = await phase();
    if (got !== want) throw new Error(`after ${button}: phase ${got}, want ${want}`);
    // The match's server tells the participant's client core of the
    // pause and the resume, and the page shows PAUSED in between.
    if (button === 'pause' || button === 'resume') {
      await until(player, `the participant's page after ${button}`, 10, (on) => {
        const shown = getComputedStyle(document.getElementById('paused')).display !== 'none';
        return window.lagkit.state().paused === on && shown === on;
      }, button === 'pause');
    }
  }
  // End takes a second click.
  await admin.click('#end');
  const armed = await admin.evaluate(() => document.getElementById('end').textContent);
  const sentBefore = await admin.evaluate(() => window.lagkit.admin().commands.length);
  if (sentBefore !== 4) throw new Error(`one click on end sent a command`);
  // Unconfirmed, it disarms after 5 s.
  await until(admin, 'end disarmed', 10, () => document.getElementById('end').textContent === 'End study');
  const commands = await admin.evaluate(() => window.lagkit.admin().commands);
  const message = await admin.evaluate(() => document.getElementById('message').textContent);
  await until(player, 'the questionnaire', 20, () => window.lagkit.study().overlay === 'questions');
  const questions = await player.evaluate(() => window.lagkit.study().questions);
  const submitBefore = await player.evaluate(() => document.getElementById('study-submit').disabled);
  const pick = { yesno: '1', likert: '4', fairness: '-2' };
  for (const q of questions) {
    if (q.kind === 'text') await player.fill(`#q-${q.id} textarea`, 'the corner shots felt late');
    else await player.click(`#q-${q.id} button[data-value="${pick[q.kind]}"]`);
  }
  const chosen = await player.evaluate(() => window.lagkit.study().chosen);
  await player.screenshot({ path: join(outDir, 'questionnaire.png') });
  await player.click('#study-submit');
  await until(player, 'thanks after answering', 10, () => window.lagkit.study().overlay === 'thanks');
  const thanks = await player.evaluate(() => document.getElementById('study-title').textContent + ' ' + document.getElementById('study-text').textContent);
  const answeredCell = await until(admin, 'answered in the admin table', 10, () => {
    const cells = document.querySelectorAll('#seats tbody tr td:last-child');
    return [...cells].some((c) => c.textContent === 'yes') ? 'yes' : null;
  });
  say({ step: 'answered', commands, armed, message, submitBefore, questions: questions.length, chosen, thanks, answeredCell });
  if ((await nextLine()) !== 'ready') throw new Error('the test did not put the study in its ready phase');

  // 3. Ready.
  await until(player, 'the ready button', 10, () => window.lagkit.study().overlay === 'ready');
  await player.click('#ready');
  await until(player, 'waiting after ready', 10, () => window.lagkit.study().overlay === 'wait');
  say({ step: 'ready' });
  const match2 = await nextLine();

  // 4. The next round, in a new match.
  const p2 = await until(player, 'participant playing the next round', 90, playing(match2), match2);
  const spect2 = await until(admin, 'the next round spectated', 30, (m) => {
    const a = window.lagkit.admin();
    return a.view?.match === m && a.drawn.players > 0 ? a.view : null;
  }, match2);

  // 5. The admin ends the study (two clicks); the participant is told.
  await admin.click('#end');
  await admin.click('#end');
  await until(admin, 'the study ended', 10, () => window.lagkit.admin().state.phase === 'ended');
  const over = await until(player, 'the participant told the study is over', 10, () => {
    const t = document.getElementById('study-title').textContent;
    return window.lagkit.study().overlay === 'wait' && t.includes('over') ? t : null;
  });
  say({ step: 'done', match: p2.s.match, joins: p2.s.joins, seat: p2.s.seat, spectated: spect2.match, players: spect2.players.length, over });
});
// Stop reading stdin, so the script ends however the run went.
lines.close();
