// lost.mjs keeps a participant's join page open in headless Chromium
// while its match's game server is lost (TestServerLostInBrowser): it
// opens BASE/?PROLIFIC_PID=ID, agrees to the consent, waits until the
// page offers the match's link, prints {"step": "matched", "join": URL},
// and waits for a line on stdin (the test killed the game server). It
// then waits until the page says the game server was lost and prints
// {"step": "told", "state", "reason", "join", "code"}: a requeued page
// offers a new match's link, a finished one its completion code.
//
// Usage: PLAYWRIGHT_CORE=URL node lost.mjs BASE ID
import { createInterface } from 'node:readline';

import { args, launch, run, sleep } from '../../../web/browser/launch.mjs';

const [base, id] = args('lost.mjs', 'BASE ID', 2);
const problems = [];
const browser = await launch();
const say = (o) => console.log(JSON.stringify(o));
const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();

async function until(page, what, seconds, f) {
  const end = Date.now() + seconds * 1000;
  for (;;) {
    if (await page.locator('#agree').count()) await page.click('#agree');
    const v = await page.evaluate(f).catch(() => null);
    if (v) return v;
    if (Date.now() > end) throw new Error(`${what}: not within ${seconds} s`);
    await sleep(100);
  }
}

await run(browser, problems, async () => {
  const page = await browser.newPage({ viewport: { width: 900, height: 600 } });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  await page.goto(`${base}/?PROLIFIC_PID=${id}&STUDY_ID=S1&SESSION_ID=X1`);
  const join = await until(page, 'the match link', 60, () => document.getElementById('join')?.href);
  say({ step: 'matched', join });
  await lines.next();
  const told = await until(page, 'told the game server was lost', 60, () => {
    const r = document.getElementById('reason')?.textContent;
    if (!r || !r.includes('game server was lost')) return null;
    const j = document.getElementById('join')?.href ?? '';
    const code = document.getElementById('code')?.textContent ?? '';
    // A requeued page shows its new match's link, a finished one its code.
    return (j && j !== join) || code ? { state: window.lobby.state, reason: r, join: j, code } : null;
  });
  say({ step: 'told', ...told });
});
process.exit(process.exitCode ?? 0);
