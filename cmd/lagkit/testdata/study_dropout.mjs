// study_dropout.mjs plays a participant who leaves a live study's match
// in headless Chromium (TestStudyDropoutInBrowser): two participants'
// pages (/?code=CODE) join the round's match; once both play, the
// second page is closed, as a tab is. The script prints {"step":
// "left"} and waits for a line on stdin (the test's word that the game
// server gave the seat to a bot); it then opens the second code's page
// again and prints what it says, {"step": "back", "title", "text"},
// with whether the first page still plays. Any page error fails the
// run.
//
// Usage: PLAYWRIGHT_CORE=URL node study_dropout.mjs BASE_URL STAYS LEAVES
import { createInterface } from 'node:readline';

import { args, launch, run, sleep } from '../../../web/browser/launch.mjs';

const [base, stays, leaves] = args('study_dropout.mjs', 'BASE_URL STAYS LEAVES', 3);
const problems = [];
const browser = await launch();
const say = (o) => console.log(JSON.stringify(o));
const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();

async function open(name) {
  const page = await browser.newPage({ viewport: { width: 480, height: 270 } });
  page.on('pageerror', (err) => problems.push(`${name}: page error: ${err.message}`));
  await page.goto(`${base}/?code=${encodeURIComponent(name)}`, { waitUntil: 'load' });
  return page;
}

// until polls f on page every 100 ms until it returns a truthy value,
// for at most seconds.
async function until(page, what, seconds, f) {
  const end = Date.now() + seconds * 1000;
  for (;;) {
    const v = await page.evaluate(f).catch(() => null);
    if (v) return v;
    if (Date.now() > end) throw new Error(`${what}: not within ${seconds} s`);
    await sleep(100);
  }
}

const playing = () => {
  const s = window.lagkit?.study?.();
  return s?.status?.phase === 'playing' && s.match !== '' && window.lagkit.state?.()?.id >= 0;
};

await run(browser, problems, async () => {
  const a = await open(stays);
  let b = await open(leaves);
  await until(a, `${stays} plays`, 30, playing);
  await until(b, `${leaves} plays`, 30, playing);
  await sleep(500);
  await b.close();
  say({ step: 'left' });
  await lines.next();
  b = await open(leaves);
  const back = await until(b, `${leaves} told a bot took the seat`, 20, () => {
    const title = document.getElementById('study-title').textContent;
    return title.includes('bot') ? { title, text: document.getElementById('study-text').textContent } : null;
  });
  say({ step: 'back', ...back, othersPlay: await a.evaluate(playing) });
});
process.exit(process.exitCode ?? 0);
