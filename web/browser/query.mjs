// query.mjs loads lagkit's page with each query given and reports what
// a person sees (TestQueryInBrowser): one line per query, {"query",
// "fatal": the error box's text or null, "onTop": whether the box is
// what shows at its centre, "menu": whether the menu ("Click to play")
// shows, "spectating", "connected", "transport", "interpMs"}. A page
// that starts is watched until it connects or spectates (20 s at most),
// one that does not for two seconds. A page that plays holds Tab and
// says how many square pixels of the scoreboard the net graph covers
// ("overlap", -1 when no scoreboard showed) and its column heads
// ("boardHead"), and saves a screenshot to
// $BOARD_SHOT when set.
//
// Usage: PLAYWRIGHT_CORE=URL node query.mjs BASE_URL QUERY...
import { args, launch, run, sleep } from './launch.mjs';

const [base, ...queries] = args('query.mjs', 'BASE_URL QUERY...', 2);
const problems = [];
const browser = await launch();

await run(browser, problems, async () => {
  for (const query of queries) {
    const page = await browser.newPage({ viewport: { width: 640, height: 360 } });
    page.on('pageerror', (err) => problems.push(`${query}: page error: ${err.message}`));
    await page.goto(`${base}/${query}`, { waitUntil: 'load' });
    let r = null;
    const t0 = Date.now();
    while (Date.now() - t0 < 20000) {
      r = await page.evaluate(() => {
        const f = document.getElementById('fatal');
        const shown = f && !f.hidden;
        let onTop = false;
        if (shown) {
          const b = f.getBoundingClientRect();
          onTop = f.contains(document.elementFromPoint(b.x + b.width / 2, b.y + b.height / 2));
        }
        const m = document.getElementById('menu');
        const st = window.lagkit?.state?.();
        return {
          fatal: shown ? f.innerText : null, onTop, menu: !!m && !m.hidden && getComputedStyle(m).display !== 'none',
          spectating: document.body.classList.contains('spectating'), connected: !!st?.connected,
          transport: st?.transport ?? '', interpMs: st?.net?.interpMs ?? null,
        };
      });
      if (r.connected || (r.spectating && Date.now() - t0 > 3000) || (!r.spectating && r.fatal !== null && Date.now() - t0 > 2000)) break;
      await sleep(200);
    }
    if (r.connected) {
      // At 640×360, holding Tab: the scoreboard and the net graph must
      // not overlap.
      await page.evaluate(() => window.lagkit.menu(false));
      await page.keyboard.down('Tab');
      await sleep(400);
      r.overlap = await page.evaluate(() => {
        const shown = (el) => el && getComputedStyle(el).display !== 'none' && getComputedStyle(el).visibility !== 'hidden';
        const board = document.getElementById('board'), net = document.getElementById('netbox');
        if (!shown(board)) return -1;
        if (!shown(net)) return 0;
        const a = board.getBoundingClientRect(), b = net.getBoundingClientRect();
        return Math.max(0, Math.min(a.right, b.right) - Math.max(a.left, b.left)) * Math.max(0, Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top));
      });
      r.boardHead = await page.evaluate(() => [...document.querySelectorAll('#board th')].map((th) => th.textContent));
      if (process.env.BOARD_SHOT) await page.screenshot({ path: process.env.BOARD_SHOT });
      await page.keyboard.up('Tab');
    }
    console.log(JSON.stringify({ query, ...r }));
    await page.close();
  }
});
