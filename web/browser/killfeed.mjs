// killfeed.mjs watches the kill feed of a player's page in headless
// Chromium (TestKillFeedInBrowser): it joins as "viewer", keeps every
// line the feed shows (the feed drops lines after a few seconds) for
// SECONDS after the page connected, and prints one JSON line:
// {"step": "done", "lines": [...], "rows": the scoreboard's rows (id,
// name, team), "id": the page's own seat}. Any console or page error
// fails the run.
//
// Usage: PLAYWRIGHT_CORE=URL node killfeed.mjs BASE_URL SECONDS
import { args, launch, run, sleep } from './launch.mjs';

const [base, seconds] = args('killfeed.mjs', 'BASE_URL SECONDS', 2);
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
  await sleep(Number(seconds) * 1000);
  st = await page.evaluate(() => window.lagkit?.state());
  const lines = await page.evaluate(() => window.feedSeen.filter((l) => l.includes('✕') || l.includes('died')));
  const rows = st.score.rows.map((r) => ({ id: r.id, name: r.name, team: r.team }));
  console.log(JSON.stringify({ step: 'done', lines, rows, id: st.id }));
});
