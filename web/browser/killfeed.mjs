// killfeed.mjs watches the kill feed of a player's page in headless
// Chromium (TestKillFeedInBrowser): it joins as "viewer", keeps every
// line the feed shows (the feed drops lines after a few seconds) until
// the lines the JSON array in the file WANT names have all shown (the
// test writes the file once its referee made those kills; the run waits
// up to two minutes for the file and one more for the lines), and
// prints one JSON line:
// {"step": "done", "lines": [...], "rows": the scoreboard's rows (id,
// name, team), "id": the page's own seat}. Any console or page error
// fails the run.
//
// Usage: PLAYWRIGHT_CORE=URL node killfeed.mjs BASE_URL WANT
import { existsSync, readFileSync } from 'node:fs';
import { args, launch, run, sleep } from './launch.mjs';

const [base, wantFile] = args('killfeed.mjs', 'BASE_URL WANT', 2);
const problems = [];
const browser = await launch();

await run(browser, problems, async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  page.on('console', (msg) => { if (msg.type() === 'error' && !/404|Not Found/i.test(msg.text())) problems.push(`console error: ${msg.text()}`); });
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  await page.goto(`${base}/?name=viewer`, { waitUntil: 'load' });
  // Every line the feed shows, once each, in order: a line is a new
  // element of the feed, whose elements the HUD rebuilds with the text.
  await page.evaluate(() => {
    const seen = [];
    let last = new Map();
    window.feedSeen = seen;
    const feed = document.getElementById('feed');
    new MutationObserver(() => {
      const now = new Map();
      for (const el of feed.children) now.set(el.textContent, (now.get(el.textContent) ?? 0) + 1);
      for (const [text, n] of now) {
        for (let i = last.get(text) ?? 0; i < n; i++) seen.push(text);
      }
      last = now;
    }).observe(feed, { childList: true, subtree: true, characterData: true });
  });
  let st = null;
  for (let i = 0; i < 600 && st?.phase !== 'connected'; i++) {
    await sleep(100);
    st = await page.evaluate(() => window.lagkit?.state());
  }
  if (st?.phase !== 'connected') throw new Error('not connected after 60 s');
  for (let i = 0; i < 1200 && !existsSync(wantFile); i++) await sleep(100);
  const want = existsSync(wantFile) ? JSON.parse(readFileSync(wantFile, 'utf8')) : [];
  const seenAll = () => page.evaluate((w) => w.every((l) => window.feedSeen.includes(l)), want);
  for (let i = 0; i < 600 && !(await seenAll()); i++) await sleep(100);
  st = await page.evaluate(() => window.lagkit?.state());
  const lines = await page.evaluate(() => window.feedSeen.filter((l) => l.includes('✕') || l.includes('died')));
  const rows = st.score.rows.map((r) => ({ id: r.id, name: r.name, team: r.team }));
  console.log(JSON.stringify({ step: 'done', lines, rows, id: st.id }));
});
