// seat.mjs joins pages to a match whose every seat a bot holds, in
// headless Chromium (TestSeatFromBotInBrowser): each page takes a bot's
// seat and stays, and the next page comes until one is on team 1 (at
// most 10). Each records on every frame it draws, from its load on, its
// team, the view's yaw, its player's yaw (state().yaw), the placements
// it has heard of and where its player is. It prints one JSON line,
// {"step": "done", "pages": [{"name", "frames": [...]}]}, with each
// page's frames from the first it drew connected on (at most 30). Any
// console or page error fails the run.
//
// Usage: PLAYWRIGHT_CORE=URL node seat.mjs BASE_URL
import { args, launch, run, sleep } from './launch.mjs';

const [base] = args('seat.mjs', 'BASE_URL', 1);
const problems = [];
const browser = await launch();

await run(browser, problems, async () => {
  const pages = [];
  for (let n = 0; n < 10; n++) {
    const name = `late${n}`;
    const page = await browser.newPage({ viewport: { width: 640, height: 360 } });
    page.on('console', (msg) => { if (msg.type() === 'error' && !/404|Not Found/i.test(msg.text())) problems.push(`${name}: console error: ${msg.text()}`); });
    page.on('pageerror', (err) => problems.push(`${name}: page error: ${err.message}`));
    // Every frame from the first drawn connected, read in the next
    // animation frame's callbacks (before the page draws it).
    await page.addInitScript(() => {
      window.seatFrames = [];
      const each = () => {
        const st = window.lagkit?.state?.();
        if (st && st.connected && window.seatFrames.length < 30) {
          window.seatFrames.push({ frame: st.frames, tick: st.tick, team: st.team, id: st.id, viewYaw: st.view?.yaw, yaw: st.yaw, place: st.place, pos: st.self?.pos });
        }
        requestAnimationFrame(each);
      };
      requestAnimationFrame(each);
    });
    await page.goto(`${base}/?name=${name}`, { waitUntil: 'load' });
    let frames = [];
    for (let i = 0; i < 600 && frames.length < 30; i++) {
      await sleep(100);
      frames = await page.evaluate(() => window.seatFrames);
    }
    if (frames.length === 0) throw new Error(`${name}: never drew a connected frame in 60 s`);
    pages.push({ name, frames });
    if (frames[0].team === 1) break;
  }
  console.log(JSON.stringify({ step: 'done', pages }));
});
