// study_live.mjs plays a live study of `lagkit study run` in headless
// Chromium (TestStudyLiveInBrowser): the admin page (/admin#token=TOKEN)
// starts the study, and one page per participant code (/?code=CODE)
// plays each round: it presses Ready when the round asks for it, runs at
// the other participant firing through window.lagkit.input, and
// presses the report key (B) each time it is hit; after each round it
// answers the questionnaire with its buttons and a free text. When the
// study is over, the pages must say so. Each step prints a JSON line:
// {"step": "started"}, {"step": "round", ...} per round, {"step": "done",
// ...}. Any console or page error fails the run; the Go test judges the
// rest against the study's database.
//
// Usage: PLAYWRIGHT_CORE=URL node study_live.mjs BASE_URL CODE,CODE ADMIN_TOKEN OUT_DIR
import { join } from 'node:path';

import { args, launch, run, sleep } from '../../../web/browser/launch.mjs';

const [base, codeList, adminToken, outDir] = args('study_live.mjs', 'BASE_URL CODE,CODE ADMIN_TOKEN OUT_DIR', 4);
const codes = codeList.split(',');
const problems = [];
const browser = await launch();
const say = (o) => console.log(JSON.stringify(o));
// over is set once the last questionnaire is answered: the server goes
// soon after the study ends, and the pages' polls may then fail.
let over = false;

async function open(name, path, viewport) {
  const page = await browser.newPage({ viewport });
  page.on('console', (msg) => {
    if (msg.type() === 'error' && !(over && /net::ERR_|Failed to fetch/.test(msg.text()))) problems.push(`${name}: console error: ${msg.text()} (${msg.location()?.url})`);
    if (['info', 'warning'].includes(msg.type())) console.error(`${name}: ${msg.text()}`);
  });
  page.on('pageerror', (err) => problems.push(`${name}: page error: ${err.message}`));
  await page.goto(base + path, { waitUntil: 'load' });
  return page;
}

// ev evaluates f on page, failing after 20 s: a page that stops
// answering fails the run with what it was asked.
async function ev(page, what, f, arg) {
  let timer;
  const late = new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`${what}: the page did not answer within 20 s`)), 20000); });
  try {
    return await Promise.race([page.evaluate(f, arg), late]);
  } finally {
    clearTimeout(timer);
  }
}

// until polls f on page every 100 ms until it returns a truthy value,
// for at most seconds, and returns it.
async function until(page, what, seconds, f, arg) {
  const end = Date.now() + seconds * 1000;
  for (;;) {
    const v = await ev(page, what, f, arg);
    if (v) return v;
    if (Date.now() > end) throw new Error(`${what}: not within ${seconds} s`);
    await sleep(100);
  }
}

// ids holds each page's player id in the round being played, by code.
const ids = {};

// playRound plays round r on page: Ready when asked, then, while the
// round is played, run at the other participant (else the nearest
// player) firing, and press B after each hit taken, until the
// questionnaire comes.
async function playRound(page, code, other, r, i) {
  let readyPressed = false, ticks = 0, hurt = 0, keyPresses = 0, lastHealth = 100, match = '', phases = new Set(), blind = null;
  const end = Date.now() + 75000;
  for (;;) {
    const { s, g } = await ev(page, `${code}: round ${r + 1}`, () => ({ s: window.lagkit.study(), g: window.lagkit.state?.() }));
    if (s.overlay === 'questions' && s.round === r) break;
    if (Date.now() > end) throw new Error(`${code}: round ${r + 1}: no questionnaire within 75 s (overlay ${s.overlay}, phase ${s.status?.phase}, error ${s.error})`);
    if (s.status?.round === r) phases.add(s.status.phase);
    if (s.overlay === 'ready' && !readyPressed) {
      await page.click('#ready', { timeout: 10000 });
      readyPressed = true;
      continue;
    }
    const playing = s.status?.round === r && s.status.phase === 'playing' && s.overlay === '' &&
      g?.phase === 'connected' && s.match !== '' && s.match === s.status.match;
    if (playing) {
      match = s.match;
      ids[code] = g.id;
      const others = g.players.filter((p) => p.id !== g.id && !p.dead);
      if (!g.self.dead && others.length > 0) {
        // The other participant while it lives, else the nearest player.
        const d = (p) => Math.hypot(p.pos[0] - g.eye[0], p.pos[1] - g.eye[1]);
        const p = others.find((q) => q.id === ids[other]) ?? others.reduce((a, b) => (d(a) <= d(b) ? a : b));
        const yaw = Math.atan2(p.pos[1] - g.eye[1], p.pos[0] - g.eye[0]);
        const pitch = Math.atan2(p.pos[2] + 1.1 - g.eye[2], d(p));
        await ev(page, `${code}: aim`, ([yaw, pitch]) => window.lagkit.input({ yaw, pitch, fire: true, forward: 1 }), [yaw, pitch]);
        ticks++;
        if (!blind) blind = await blindness(page, code, i, r);
      } else {
        await page.evaluate(() => window.lagkit.input({ fire: false, forward: 0 }));
      }
      // Each hit taken is reported as behind cover, the killing one too.
      const health = g.self.dead ? 0 : g.self.health;
      if (health < lastHealth) {
        hurt++;
        await page.keyboard.press('KeyB');
        keyPresses++;
      }
      lastHealth = health;
    }
    await sleep(100);
  }
  await page.evaluate(() => window.lagkit.input({ fire: false, forward: 0 }));
  const g = await page.evaluate(() => window.lagkit.state());
  return { code, match, readyPressed, phases: [...phases], aimedTicks: ticks, hurt, keyPresses, reports: g.reports, blind };
}

// blindness looks at the page mid-round as it comes, then presses the
// net graph's key (N), as a curious participant would, and looks again:
// it returns whether the net graph was on either time and any words in
// the visible page that name the condition (the policy, a technique,
// the injected latency, the display mode); the first page's first look is
// kept as study-blind.png.
let blindShot = false;
async function blindness(page, code, i, r) {
  const look = () => ev(page, `${code}: blindness`, () => ({
    graphShown: getComputedStyle(document.getElementById('netbox')).display !== 'none',
    text: document.body.innerText,
  }));
  // As the page comes, then after N (which toggles the net graph).
  const before = await look();
  if (i === 0 && !blindShot) {
    blindShot = true;
    await page.screenshot({ path: join(outDir, 'study-blind.png') });
  }
  await page.keyboard.press('KeyN');
  await sleep(700);
  const after = await look();
  const text = (before.text + '\n' + after.text).toLowerCase();
  const leaks = ['policy', 'injected', 'tlc', 'interpolate', 'rtt', ' ms'].filter((w) => text.includes(w));
  return { graphShown: before.graphShown || after.graphShown, leaks };
}

// answer fills the questionnaire of round r with the page's buttons and
// submits it: values that differ by participant and round.
async function answer(page, code, i, r) {
  const questions = await page.evaluate(() => window.lagkit.study().questions);
  const pick = { yesno: String((i + r) % 2), likert: String(2 + i + r), fairness: String(r === 0 ? -1 - i : 2 + i) };
  for (const q of questions) {
    if (q.kind === 'text') await page.fill(`#q-${q.id} textarea`, `round ${r + 1} from ${code}`);
    else await page.click(`#q-${q.id} button[data-value="${pick[q.kind]}"]`);
  }
  const chosen = await page.evaluate(() => window.lagkit.study().chosen);
  if (i === 0 && r === 0) await page.screenshot({ path: join(outDir, 'study-questionnaire.png') });
  await page.click('#study-submit');
  await until(page, `${code}: answered round ${r + 1}`, 15, (r) => window.lagkit.study().answered.includes(r), r);
  return { code, questions: questions.length, chosen };
}

await run(browser, problems, async () => {
  const admin = await open('admin', `/admin#token=${encodeURIComponent(adminToken)}`, { width: 1100, height: 700 });
  const pages = [];
  for (const c of codes) pages.push(await open(c, `/?code=${encodeURIComponent(c)}`, { width: 480, height: 270 }));
  const rounds = await until(admin, 'the admin state', 30, () => {
    const st = window.lagkit?.admin?.().state;
    return st?.phase === 'waiting' ? st.rounds : 0;
  });
  for (const [i, p] of pages.entries()) {
    await until(p, `${codes[i]}: waiting for the start`, 30, () => window.lagkit?.study?.().status?.phase === 'waiting');
  }
  await admin.click('#start');
  say({ step: 'started', rounds });

  for (let r = 0; r < rounds; r++) {
    const played = await Promise.all(pages.map((p, i) => playRound(p, codes[i], codes[1 - i], r, i)));
    const technique = await admin.evaluate(() => window.lagkit.admin().state.technique);
    if (r === rounds - 1) over = true;
    const answered = await Promise.all(pages.map((p, i) => answer(p, codes[i], i, r)));
    say({ step: 'round', round: r, technique, played, answered });
  }
  const ended = await Promise.all(pages.map((p, i) => until(p, `${codes[i]}: told the study is over`, 15, () => {
    const t = document.getElementById('study-title').textContent;
    return window.lagkit.study().status?.phase === 'ended' && t.includes('over') ? t : null;
  })));
  await admin.screenshot({ path: join(outDir, 'study-admin.png') });
  say({ step: 'done', ended });
});
