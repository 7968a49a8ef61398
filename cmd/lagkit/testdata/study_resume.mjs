// study_resume.mjs plays a live study of `lagkit study run` in headless
// Chromium across a stop and a resume (TestStudyResumeInBrowser): each
// participant's page (/?code=CODE) agrees to the consent text and
// answers the intake (a number typed, a choice clicked); the admin page
// starts the study; the pages play each round firing at the nearest
// player and answer the questionnaire after it (yes/no, a 7-point scale,
// an anchored scale). After the last round the first page answers the
// last questionnaire, the round's questions and the final ones, and the
// script prints {"step": "stop"}, the second page's questionnaire shown
// and unanswered: the test stops the server (SIGINT) and starts it again
// with the same command, then writes "resumed" on the script's stdin.
// The second page is reloaded (its participant comes back) and must be
// asked the whole last questionnaire again, the first page nothing;
// the second answers, and both pages must be told the study is over.
// Each step prints a JSON line; any console or page error outside the
// stop fails the run.
//
// Usage: PLAYWRIGHT_CORE=URL node study_resume.mjs BASE_URL CODE,CODE ADMIN_TOKEN OUT_DIR
import { join } from 'node:path';
import { createInterface } from 'node:readline';

import { args, launch, run, sleep } from '../../../web/browser/launch.mjs';

const [base, codeList, adminToken, outDir] = args('study_resume.mjs', 'BASE_URL CODE,CODE ADMIN_TOKEN OUT_DIR', 4);
const codes = codeList.split(',');
const problems = [];
const browser = await launch();
const say = (o) => console.log(JSON.stringify(o));
// down is set while the server is stopped, over once the study ends:
// the pages' polls may then fail.
let down = false, over = false;
const lines = createInterface({ input: process.stdin });
const stdin = lines[Symbol.asyncIterator]();

async function open(name, path, viewport) {
  const page = await browser.newPage({ viewport });
  page.on('console', (msg) => {
    if (msg.type() === 'error' && !((down || over) && /net::ERR_|Failed to fetch|ERR_CONNECTION|WebSocket|WebTransport/.test(msg.text()))) {
      problems.push(`${name}: console error: ${msg.text()} (${msg.location()?.url})`);
    }
    if (['info', 'warning'].includes(msg.type())) console.error(`${name}: ${msg.text()}`);
  });
  page.on('pageerror', (err) => problems.push(`${name}: page error: ${err.message}`));
  await page.goto(base + path, { waitUntil: 'load' });
  return page;
}

async function ev(page, what, f, arg) {
  let timer;
  const late = new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`${what}: the page did not answer within 20 s`)), 20000); });
  try {
    return await Promise.race([page.evaluate(f, arg), late]);
  } finally {
    clearTimeout(timer);
  }
}

async function until(page, what, seconds, f, arg) {
  const end = Date.now() + seconds * 1000;
  for (;;) {
    const v = await ev(page, what, f, arg);
    if (v) return v;
    if (Date.now() > end) throw new Error(`${what}: not within ${seconds} s (study ${JSON.stringify(await page.evaluate(() => window.lagkit?.study?.()))})`);
    await sleep(100);
  }
}

// consent agrees to the consent text with the page's button.
async function consent(page, code, i) {
  const s = await until(page, `${code}: the consent screen`, 30, () => {
    const s = window.lagkit?.study?.();
    return s?.overlay === 'consent' && s.consent ? s : null;
  });
  if (i === 0) await page.screenshot({ path: join(outDir, 'study-consent.png') });
  await page.click('#consent-agree');
  await until(page, `${code}: consented`, 15, () => window.lagkit.study().consented);
  return s.consent.text;
}

// fill answers the questions shown with the page's inputs and buttons:
// values that differ by participant and round.
async function fill(page, code, i, r) {
  const questions = await page.evaluate(() => window.lagkit.study().questions);
  for (const q of questions) {
    switch (q.kind) {
      case 'text': await page.fill(`#q-${q.id} textarea`, `${q.stage} from ${code}`); break;
      case 'number': await page.fill(`#q-${q.id} input`, String(q.min + 10 + i)); break;
      case 'choice': await page.click(`#q-${q.id} button[data-value="${(i + 1) % q.choices.length}"]`); break;
      case 'yesno': await page.click(`#q-${q.id} button[data-value="${(i + r) % 2}"]`); break;
      default: await page.click(`#q-${q.id} button[data-value="${Math.min(q.max, q.min + 1 + i + r)}"]`);
    }
  }
  return questions;
}

async function submit(page, code, round) {
  await page.click('#study-submit');
  await until(page, `${code}: answered ${round}`, 15, (r) => window.lagkit.study().answered.includes(r), round);
}

// intake answers the intake (round -1).
async function intake(page, code, i) {
  await until(page, `${code}: the intake`, 30, () => {
    const s = window.lagkit.study();
    return s.overlay === 'questions' && s.stage === 'intake';
  });
  const qs = await fill(page, code, i, 0);
  if (i === 0) await page.screenshot({ path: join(outDir, 'study-intake.png') });
  await submit(page, code, -1);
  return qs.map((q) => `${q.id}:${q.kind}`);
}

// playRound plays round r: firing at the nearest living player until
// the questionnaire comes.
async function playRound(page, code, r) {
  let ticks = 0, match = '';
  const end = Date.now() + 75000;
  for (;;) {
    const { s, g } = await ev(page, `${code}: round ${r + 1}`, () => ({ s: window.lagkit.study(), g: window.lagkit.state?.() }));
    if (s.overlay === 'questions' && s.round === r) break;
    if (Date.now() > end) throw new Error(`${code}: round ${r + 1}: no questionnaire within 75 s (overlay ${s.overlay}, phase ${s.status?.phase}, error ${s.error})`);
    const playing = s.status?.round === r && s.status.phase === 'playing' && s.overlay === '' && g?.phase === 'connected' && s.match === s.status.match;
    if (playing) {
      match = s.match;
      const others = g.players.filter((p) => p.id !== g.id && !p.dead);
      if (!g.self.dead && others.length > 0) {
        const d = (p) => Math.hypot(p.pos[0] - g.eye[0], p.pos[1] - g.eye[1]);
        const p = others.reduce((a, b) => (d(a) <= d(b) ? a : b));
        const yaw = Math.atan2(p.pos[1] - g.eye[1], p.pos[0] - g.eye[0]);
        const pitch = Math.atan2(p.pos[2] + 1.1 - g.eye[2], d(p));
        await ev(page, `${code}: aim`, ([yaw, pitch]) => window.lagkit.input({ yaw, pitch, fire: true, forward: 1 }), [yaw, pitch]);
        ticks++;
      }
    }
    await sleep(100);
  }
  await page.evaluate(() => window.lagkit.input({ fire: false, forward: 0 }));
  return { code, match, aimedTicks: ticks };
}

await run(browser, problems, async () => {
  const admin = await open('admin', `/admin#token=${encodeURIComponent(adminToken)}`, { width: 1100, height: 700 });
  const pages = [];
  for (const c of codes) pages.push(await open(c, `/?code=${encodeURIComponent(c)}`, { width: 640, height: 480 }));
  const consented = await Promise.all(pages.map((p, i) => consent(p, codes[i], i)));
  const intakes = await Promise.all(pages.map((p, i) => intake(p, codes[i], i)));
  const client = await pages[0].evaluate(() => window.lagkit.study().refresh_hz);
  say({ step: 'intake', consented, intakes, refreshHz: client });
  const rounds = await until(admin, 'the admin state', 30, () => {
    const st = window.lagkit?.admin?.().state;
    return st?.phase === 'waiting' ? st.rounds : 0;
  });
  for (const [i, p] of pages.entries()) {
    await until(p, `${codes[i]}: waiting for the start`, 30, () => window.lagkit.study().status?.phase === 'waiting' && window.lagkit.study().overlay !== 'questions');
  }
  await admin.click('#start');
  say({ step: 'started', rounds });

  for (let r = 0; r < rounds; r++) {
    const played = await Promise.all(pages.map((p, i) => playRound(p, codes[i], r)));
    const technique = await admin.evaluate(() => window.lagkit.admin().state.technique);
    if (r < rounds - 1) {
      const asked = await Promise.all(pages.map(async (p, i) => {
        const qs = await fill(p, codes[i], i, r);
        await submit(p, codes[i], r);
        return qs.map((q) => `${q.id}:${q.stage}`);
      }));
      say({ step: 'round', round: r, technique, played, asked });
      continue;
    }
    // The last round: the first page answers its questionnaire, the
    // round's and the final questions; the second page leaves it shown.
    const first = await fill(pages[0], codes[0], 0, r);
    await pages[0].screenshot({ path: join(outDir, 'study-final.png') });
    await submit(pages[0], codes[0], r);
    // The status the page last read was read before its answers went:
    // what it says after the resume must come from a later read.
    await pages[0].evaluate(() => { window.statusAtStop = window.lagkit.study().status; });
    const shown = await pages[1].evaluate(() => window.lagkit.study().questions.map((q) => `${q.id}:${q.stage}`));
    await admin.close();
    down = true;
    say({ step: 'stop', round: r, technique, played, answered: first.map((q) => `${q.id}:${q.stage}`), shown });
  }
  // While the server is stopped, the first page (its questionnaire
  // answered) must say the study stopped and ask to wait, not that it
  // is over: watched from the stop until the resumed run is up.
  let stopTitle = '';
  const watching = (async () => {
    for (let end = Date.now() + 20000; Date.now() < end && !stopTitle.includes('stopped'); await sleep(100)) {
      stopTitle = await pages[0].evaluate(() => document.getElementById('study-title').textContent).catch(() => stopTitle);
    }
  })();
  const next = await stdin.next();
  await watching;
  if (next.done || next.value !== 'resumed') throw new Error(`stdin: ${JSON.stringify(next)}, want "resumed"`);
  // The second participant comes back to the page (a reload); the first
  // keeps its page open.
  await pages[1].reload({ waitUntil: 'load' });
  down = false;
  const again = await until(pages[1], `${codes[1]}: the last questionnaire asked again`, 30, () => {
    const s = window.lagkit.study();
    return s.overlay === 'questions' && s.questions.length > 0 ? s.questions.map((q) => `${q.id}:${q.stage}`) : null;
  });
  const firstAfter = await until(pages[0], `${codes[0]}: the resumed study's status`, 30, () => {
    const s = window.lagkit.study();
    return s.status && s.status !== window.statusAtStop && !s.error ? { overlay: s.overlay, pending: s.status.pending, consent: s.status.consent } : null;
  });
  over = true;
  await fill(pages[1], codes[1], 1, rounds - 1);
  await submit(pages[1], codes[1], rounds - 1);
  const ended = await Promise.all(pages.map((p, i) => until(p, `${codes[i]}: told the study is over`, 20, () => {
    const t = document.getElementById('study-title').textContent;
    return window.lagkit.study().status?.phase === 'ended' && t.includes('over') ? t : null;
  })));
  say({ step: 'done', again, firstAfter, ended, stopTitle });
});
lines.close();
