// browser.mjs plays arena2d's page in headless Debian chromium through
// the playwright-core that PLAYWRIGHT_CORE names (the file: URL of its
// index.mjs): it waits for the WebAssembly client to connect and predict,
// holds D (run right) until its player has moved a metre, waits for the
// snapshots to check that run's predictions, saves a screenshot, and
// prints one JSON line: the client's state (arena2d.state()) before and after the run,
// the page's console errors (problems) and its other console lines.
//
//	PLAYWRIGHT_CORE=file:///.../index.mjs node browser.mjs URL SHOT
const [url, shot] = process.argv.slice(2);
if (!process.env.PLAYWRIGHT_CORE || !url || !shot) {
  console.error('usage: PLAYWRIGHT_CORE=URL node browser.mjs PAGE-URL SCREENSHOT');
  process.exit(2);
}
const { chromium } = await import(process.env.PLAYWRIGHT_CORE);
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--no-first-run', '--enable-unsafe-swiftshader'],
});
const problems = [];
const log = [];
const out = { before: null, after: null, problems, log };
let state = async () => null;
try {
  const page = await browser.newPage({ viewport: { width: 800, height: 800 } });
  page.on('pageerror', (e) => problems.push('page error: ' + e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push('console: ' + m.text());
    else log.push(m.text());
  });
  await page.goto(url);
  state = () => page.evaluate(() => {
    if (window.arena2d && window.arena2d.error) throw new Error('arena2d: ' + window.arena2d.error);
    const s = window.arena2d && window.arena2d.state();
    return s ? JSON.parse(s) : null;
  });
  // Connected, a second of snapshots, and predictions checked by them.
  await page.waitForFunction(() => {
    const s = window.arena2d && window.arena2d.state();
    if (!s) return false;
    const st = JSON.parse(s);
    return st.phase === 'connected' && st.snapshots >= 64 && st.predictions >= 32 && st.crate;
  }, null, { timeout: 60000, polling: 100 });
  out.before = await state();
  // Run right (hold D) until the predicted player has moved a metre,
  // then stand while the snapshots check the predictions of the run.
  await page.focus('canvas');
  await page.keyboard.down('d');
  await page.waitForFunction((x0) => JSON.parse(window.arena2d.state()).pos[0] >= x0 + 1,
    out.before.pos[0], { timeout: 30000, polling: 50 });
  await page.keyboard.up('d');
  const ran = await state();
  await page.waitForFunction((n) => JSON.parse(window.arena2d.state()).predictions >= n + 32,
    ran.predictions, { timeout: 30000, polling: 50 });
  out.after = await state();
  await page.screenshot({ path: shot });
} catch (e) {
  problems.push(e.message);
  try {
    out.last = await state(); // how far it got
  } catch (e2) {
    problems.push(e2.message);
  }
} finally {
  await browser.close();
}
console.log(JSON.stringify(out));
