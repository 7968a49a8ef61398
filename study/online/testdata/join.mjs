// join.mjs plays a participant through an online study's join page in
// headless Chromium (TestJoinPageInBrowser): it opens BASE/?PROLIFIC_PID=ID,
// agrees to the consent (with a double click), waits through the prescreen and the lobby,
// opens the match's link, and waits until the page has gone to the
// completion URL. With SHOTS set it keeps a screenshot of each step
// there; JOIN_QUERY adds to the link's query (transport=ws). It prints
// one JSON line: {"steps": [...], "texts": {STEP: TEXT}, "agreed": N, "final": URL,
// "text": TEXT, "probes": [...]}, texts being the page's text as each
// step began, agreed how many times the page asked for the consent and
// probes what the prescreen's probe of each game server host found.
//
// Usage: PLAYWRIGHT_CORE=URL node join.mjs BASE ID [SHOTS]
const [base, id, shots] = process.argv.slice(2);
const { chromium } = await import(process.env.PLAYWRIGHT_CORE);
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu',
  // The game server hosts' probes present self-signed certificates,
  // pinned by hash for WebTransport, as lagkit's other browser tests.
  '--ignore-certificate-errors'] });
const steps = [], texts = {};
let probes = null;
const problems = [];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
try {
  const page = await browser.newPage({ viewport: { width: 900, height: 600 } });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  const shot = async (name) => { if (shots) await page.screenshot({ path: `${shots}/${name}.png` }); };
  await page.goto(`${base}/?PROLIFIC_PID=${id}&STUDY_ID=S1&SESSION_ID=X1${process.env.JOIN_QUERY ? '&' + process.env.JOIN_QUERY : ''}`);
  let last = '', agreed = 0;
  for (let i = 0; i < 1200; i++) {
    if (page.url().includes('/done')) break;
    const st = await page.evaluate(() => window.lobby?.state).catch(() => '');
    probes = (await page.evaluate(() => window.lobbyProbes).catch(() => null)) ?? probes;
    if (st && st !== last) {
      steps.push(st);
      last = st;
      texts[st] = (await page.textContent('body').catch(() => '')).trim().slice(0, 300);
      await shot(`join-${st}`);
    }
    // Agreed with a double click, as people often do: the page must
    // run one prescreen, not two. A consent asked again (after the
    // lobby started again) is agreed to again.
    if (st === 'arrived' && await page.locator('#agree:enabled').count()) { await page.dblclick('#agree'); agreed++; }
    if (st === 'refused' || st === 'error' || st === 'dropped') break;
    await sleep(100);
  }
  console.log(JSON.stringify({ steps, texts, agreed, final: page.url(), text: (await page.textContent('body').catch(() => '')).trim().slice(0, 300), probes }));
} catch (e) {
  problems.push(e.message);
} finally {
  await browser.close();
}
if (problems.length) { console.error(problems.join('\n')); process.exitCode = 1; }
