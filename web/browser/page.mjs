// page.mjs checks what a new player meets on lagkit's page in headless
// Chromium, against a live server (TestPageInBrowser): two pages (one
// with the client core in its Web Worker, one on the page's thread) on
// opposite teams report the view they spawn with, and again after the
// test teleports them (stdin "placed"), and the names and the server's
// net graph series they show once the test puts them face to face
// (stdin "faced"); the report key with no hit on the
// player is refused; the menu is open before the first click, lists only
// the loadout's weapons and stays clear of the net graph at 1280 px; its
// settings (sensitivity, invert Y, a key binding) survive a reload; the
// menu closes when the page takes the pointer and opens when it loses
// it; on a phone's screen it says a keyboard and a mouse are needed and
// fits; a wrong participant code, with no study running and with one,
// shows one clear message and stops asking. It prints JSON lines:
// {"step": "spawned", ...}, then {"step": "done", ...}.
//
// Usage: PLAYWRIGHT_CORE=URL node page.mjs BASE_URL STUDY_BASE_URL OUT_DIR
import { createInterface } from 'node:readline';
import { join } from 'node:path';

import { args, launch, run, sleep } from './launch.mjs';

const [base, studyBase, outDir] = args('page.mjs', 'BASE_URL STUDY_BASE_URL OUT_DIR', 3);
const lines = createInterface({ input: process.stdin });
const nextLine = () => new Promise((resolve) => lines.once('line', resolve));
const problems = [];
const browser = await launch();

async function open(name, query, viewport = { width: 1280, height: 720 }) {
  const page = await browser.newPage({ viewport });
  page.on('console', (msg) => {
    if (msg.type() === 'error' && !/404|Not Found/i.test(msg.text())) problems.push(`${name}: console error: ${msg.text()}`);
    if (msg.type() === 'debug' || msg.type() === 'info') console.error(`${name}: ${msg.text()}`);
  });
  page.on('pageerror', (err) => problems.push(`${name}: page error: ${err.message}`));
  await page.goto(`${base}/?name=${name}${query}`, { waitUntil: 'load' });
  return page;
}

const state = (page) => page.evaluate(() => window.lagkit?.state());

async function connected(page, name) {
  for (let i = 0; i < 600; i++) {
    const st = await state(page);
    if (st?.phase === 'connected' && st.net.snapshots > 20) return st;
    await sleep(100);
  }
  throw new Error(`${name}: not connected after 60 s`);
}

const view = (st) => ({ id: st.id, team: st.team, pos: st.self.pos, viewYaw: st.view.yaw, viewPitch: st.view.pitch, place: st.place });

// rect is an element's box, or null when it is not shown.
const rect = (page, id) => page.evaluate((id) => {
  const el = document.getElementById(id);
  if (!el || el.offsetParent === null && getComputedStyle(el).position !== 'fixed') return null;
  const r = el.getBoundingClientRect();
  return r.width > 0 && r.height > 0 ? [r.left, r.top, r.right, r.bottom] : null;
}, id);
const overlap = (a, b) => !!a && !!b && a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3];

await run(browser, problems, async () => {
  const red = await open('red', '');
  const blue = await open('blue', '&worker=0');
  const [r0, b0] = [await connected(red, 'red'), await connected(blue, 'blue')];
  await sleep(300);
  const spawned = [view(await state(red)), view(await state(blue))];
  console.log(JSON.stringify({ step: 'spawned', pages: spawned }));
  if ((await nextLine()) !== 'placed') throw new Error('the test did not place the players');
  await sleep(1000);
  const placed = [view(await state(red)), view(await state(blue))];

  // Names and the server's net graph series: the test puts the pages
  // face to face and gives red an emulated link (stdin "faced").
  console.log(JSON.stringify({ step: 'placed', pages: placed }));
  if ((await nextLine()) !== 'faced') throw new Error('the test did not face the players');
  await sleep(2500);
  const names = async (page) => {
    await page.keyboard.down('Tab');
    await sleep(300);
    const out = await page.evaluate(() => {
      const st = window.lagkit.state();
      return {
        rows: st.score.rows.map((r) => ({ id: r.id, name: r.name })),
        labels: [...document.querySelectorAll('#labels .label')].filter((el) => el.style.display !== 'none').map((el) => el.textContent),
        board: document.getElementById('board').innerText,
        server: st.net.server ?? null,
        net: document.getElementById('net').textContent,
        view: { yaw: st.view.yaw, place: st.place },
      };
    });
    await page.keyboard.up('Tab');
    return out;
  };
  const faced = [await names(red), await names(blue)];

  // The report key with no hit on the player, in both core modes.
  await red.keyboard.press('KeyB');
  await blue.keyboard.press('KeyB');
  await sleep(300);
  const noHit = [(await state(red)).notes, (await state(blue)).notes];
  const reportsNoHit = [(await state(red)).reports, (await state(blue)).reports];

  // The menu before the first click, at 1280 px.
  let st = await state(red);
  const menu = {
    open: st.menu.open, help: st.menu.help,
    overlapsNet: overlap(await rect(red, 'menu-box'), await rect(red, 'netbox')),
    helpOverlapsNet: overlap(await rect(red, 'help'), await rect(red, 'netbox')),
  };
  const menuShot = join(outDir, 'browser-menu.png');
  await red.screenshot({ path: menuShot });

  // Settings through the menu's own controls, then a reload.
  await red.evaluate(() => {
    const s = document.getElementById('set-sens');
    s.value = '3.7';
    s.dispatchEvent(new Event('input', { bubbles: true }));
    const f = document.getElementById('set-fov');
    f.value = '80';
    f.dispatchEvent(new Event('input', { bubbles: true }));
  });
  await red.click('#set-invert');
  await red.click('#menu summary');
  await red.click('#set-keys button[data-action="rewind"]');
  await red.keyboard.press('KeyG');
  const before = (await state(red)).menu.settings;
  await red.reload({ waitUntil: 'load' });
  await connected(red, 'red after reload');
  st = await state(red);
  const after = st.menu.settings;
  const fovAfter = st.menu.fov;
  await red.keyboard.press('KeyG');
  await sleep(200);
  const boundKey = (await state(red)).rewindView.on;

  // Pointer lock: clicking the menu's backdrop plays; Esc brings the
  // menu back.
  await red.mouse.click(8, 400);
  await sleep(300);
  const locked = await red.evaluate(() => document.pointerLockElement !== null);
  const openLocked = (await state(red)).menu.open;
  // Esc is the browser's: headless Chromium's synthetic key does not
  // free the pointer, so the page is made to lose it as Esc does.
  await red.keyboard.press('Escape');
  await red.evaluate(() => document.exitPointerLock());
  await sleep(300);
  const unlocked = await red.evaluate(() => document.pointerLockElement === null);
  const openAfterEsc = (await state(red)).menu.open;

  // A phone's screen.
  const phone = await open('phone', '', { width: 390, height: 800 });
  await connected(phone, 'phone');
  const phoneView = await phone.evaluate(() => {
    const need = document.getElementById('menu-need');
    const box = document.getElementById('menu-box').getBoundingClientRect();
    return { need: getComputedStyle(need).display !== 'none' ? need.textContent : '', left: box.left, right: box.right, width: innerWidth };
  });
  await phone.close();

  // Wrong participant codes: no study running here, and a study that
  // has no such code.
  const wrong = async (url) => {
    const page = await browser.newPage({ viewport: { width: 960, height: 540 } });
    let asks = 0;
    page.on('request', (r) => { if (r.url().includes('/lagkit/study/')) asks++; });
    page.on('pageerror', (err) => problems.push(`wrong code: page error: ${err.message}`));
    await page.goto(url, { waitUntil: 'load' });
    await sleep(1500);
    const first = asks;
    await sleep(3000);
    const out = await page.evaluate(() => ({
      title: document.getElementById('study-title').textContent, text: document.getElementById('study-text').textContent,
      status: document.getElementById('status').textContent, shown: !document.getElementById('study').hidden,
    }));
    await page.close();
    return { ...out, asks: first, asksLater: asks - first };
  };
  const noStudy = await wrong(`${base}/?code=NOPE`);
  const badCode = await wrong(`${studyBase}/?code=NOPE`);

  console.log(JSON.stringify({
    step: 'done', spawned, placed, faced, noHit, reportsNoHit, menu, menuShot, before, after, fovAfter, boundKey,
    locked, openLocked, unlocked, openAfterEsc, phone: phoneView, noStudy, badCode,
  }));
});
lines.close();
