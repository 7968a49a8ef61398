// page.mjs plays one participant of a rehearsal (lagkit study rehearse
// --pages) in headless Chromium, as a person would: the join page's
// consent, its prescreen (pointer lock, frame rate, the round trip the
// game server hosts' probes measure), the wait, then the match's link in
// a tab of its own, the shooter page played by scripted keys (it walks
// and turns), each questionnaire answered with its first choice, Ready
// pressed when asked, until the lobby's page shows the completion. With
// SHOTS it keeps a screenshot of the lobby's waiting, refused and
// completed pages there (no completed page when the study sends people
// on to a completion URL). It prints one JSON line: {"state", "reason",
// "rounds", "answered", "requeued", "code", "error"}.
//
// Usage: PLAYWRIGHT_CORE=URL node page.mjs JOIN_URL CHROMIUM [SHOTS]
const [joinURL, chromiumPath, shots] = process.argv.slice(2);
const { chromium } = await import(process.env.PLAYWRIGHT_CORE);
const browser = await chromium.launch({
  executablePath: chromiumPath,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--enable-unsafe-swiftshader',
    '--disable-background-networking', '--disable-component-update', '--no-first-run',
    // Background tabs keep their timers: the lobby's page polls while
    // the match plays in the other tab.
    '--disable-background-timer-throttling', '--disable-renderer-backgrounding',
    // The game servers' certificates are self-signed in a rehearsal;
    // WebTransport pins them by hash.
    '--ignore-certificate-errors'],
});
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const out = { state: '', reason: '', rounds: 0, answered: 0, requeued: 0, code: '', error: '' };
const names = { waiting: 'lobby-waiting', refused: 'lobby-prescreen-refused', completed: 'lobby-complete' };
try {
  const ctx = await browser.newContext({ viewport: { width: 900, height: 600 } });
  const lobby = await ctx.newPage();
  // The lobby's last status as its page fetched it: a completed page
  // may redirect to the platform's completion URL, leaving no page to
  // ask.
  let fetched = null;
  lobby.on('response', async (r) => {
    if (new URL(r.url()).pathname === '/lobby/status') fetched = await r.json().catch(() => fetched);
  });
  // The page leaves for the completion URL as soon as it reads its
  // last status, often before that response's body can be read here:
  // once the page is no longer the lobby's, its status is asked of the
  // lobby directly, under the id the link carries.
  const origin = new URL(joinURL).origin;
  const cfg = await (await fetch(`${origin}/lobby/config`)).json();
  const id = new URL(joinURL).searchParams.get(cfg.id_param) ?? '';
  const asked = async () => {
    const r = await fetch(`${origin}/lobby/status?id=${encodeURIComponent(id)}`).catch(() => null);
    return r?.ok ? r.json().catch(() => null) : null;
  };
  await lobby.goto(joinURL);
  let game = null, joined = '', last = '', seenRound = -1, answeredRound = null, readyRound = -1, locked = false, agreed = false;
  for (let i = 0; ; i++) {
    if (i > 36000) throw new Error('still not done after an hour');
    let st = await lobby.evaluate(() => window.lobby).catch(() => null);
    if (!st?.state && ['completed', 'dropped'].includes(fetched?.state)) st = fetched;
    if (!st?.state && !lobby.url().startsWith(origin + '/')) st = await asked();
    const state = st?.state ?? '';
    if (state !== last) {
      last = state;
      // A completion sent on to the platform's URL shows no page of the
      // lobby's: the screenshot would be of the platform's page, or of
      // the lobby's page as the browser leaves it.
      if (shots && names[state] && !st.redirect && lobby.url().startsWith(origin + '/')) await lobby.screenshot({ path: `${shots}/${names[state]}.png` });
    }
    if (state === 'error') throw new Error(st.error);
    if (['completed', 'refused', 'dropped'].includes(state)) {
      Object.assign(out, { state, reason: st.reason ?? '', code: st.code ?? '' });
      break;
    }
    if (!agreed && await lobby.locator('#agree').count().catch(() => 0)) { await lobby.click('#agree').catch(() => {}); agreed = true; }
    if (!locked && await lobby.locator('#lock').count().catch(() => 0)) { await lobby.click('#lock').catch(() => {}); locked = true; }
    // A match's link, or a new one after the lobby requeued the
    // participant (its game server was lost): the seat's page opens it.
    if (state === 'matched' && st.join && st.join !== joined) {
      if (game) await game.close().catch(() => {});
      if (joined) out.requeued++; // a new match after its game server was lost
      game = await ctx.newPage();
      joined = st.join;
      await game.goto(st.join);
    }
    if (game) {
      const s = await game.evaluate(() => window.lagkit?.study?.()).catch(() => null);
      if (s) {
        if (s.overlay === 'consent') await game.click('#consent-agree');
        if (s.overlay === 'questions' && answeredRound !== `${s.round}:${s.stage}`) {
          for (const q of s.questions) {
            if (q.kind === 'text') await game.fill(`#q-${q.id} textarea`, 'rehearsal');
            else if (q.kind === 'number') await game.fill(`#q-${q.id} input`, String(q.min));
            else await game.click(`#q-${q.id} button >> nth=0`);
          }
          await game.click('#study-submit');
          answeredRound = `${s.round}:${s.stage}`;
          out.answered++;
        }
        if (s.overlay === 'ready' && readyRound !== s.status?.round) {
          await game.click('#ready');
          readyRound = s.status?.round;
        }
        if (s.match && s.status?.round !== seenRound) {
          seenRound = s.status?.round;
          out.rounds++;
        }
        // Scripted keys: walk, and turn a little each second.
        if (s.overlay === '' && i % 10 === 0) {
          await game.evaluate((n) => window.lagkit?.input?.({ forward: 1, side: n % 2 ? 1 : -1, yaw: (n * 0.3) % 6.28 }), i / 10).catch(() => {});
        }
      }
    }
    await sleep(100);
  }
} catch (e) {
  out.error = e.message;
} finally {
  await browser.close();
}
console.log(JSON.stringify(out));
