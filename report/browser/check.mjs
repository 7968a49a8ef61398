// check.mjs opens a lagkit report.html in headless Chromium, offline, and
// checks that it renders: no console error, page error or failed or
// network request, every figure.plot holds a drawn <svg> (or a loaded
// <img>) of non-zero size, and nothing is hidden behind a horizontal
// scrollbar or runs off the page, on a wide screen and as printed on A4
// paper. It then saves a full-page screenshot.
//
// Usage: node check.mjs REPORT.html SCREENSHOT.png
import { chromium } from 'playwright-core';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [reportPath, screenshotPath] = process.argv.slice(2);
if (!reportPath || !screenshotPath) {
  console.error('usage: node check.mjs REPORT.html SCREENSHOT.png');
  process.exit(2);
}

const problems = [];
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
});
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(`console error: ${msg.text()}`);
  });
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('requestfailed', (req) => problems.push(`request failed: ${req.url()}: ${req.failure()?.errorText}`));
  page.on('request', (req) => {
    // The report must be readable offline: only the file itself and
    // inline data may be loaded.
    const url = req.url();
    if (!url.startsWith('file:') && !url.startsWith('data:')) problems.push(`network request: ${url}`);
  });

  await page.goto(pathToFileURL(resolve(reportPath)).href, { waitUntil: 'load' });

  const figures = await page.$$eval('figure.plot', (figs) => figs.map((fig) => {
    const svg = fig.querySelector('svg');
    const img = fig.querySelector('img');
    const box = (svg ?? img)?.getBoundingClientRect();
    return {
      id: fig.id,
      kind: svg ? 'svg' : img ? 'img' : 'none',
      width: box?.width ?? 0,
      height: box?.height ?? 0,
      drawn: svg ? svg.querySelectorAll('path, text').length > 0 : Boolean(img?.complete && img.naturalWidth > 0),
    };
  }));
  for (const f of figures) {
    if (f.kind === 'none') problems.push(`figure #${f.id}: no <svg> or <img>`);
    else if (f.width === 0 || f.height === 0) problems.push(`figure #${f.id}: ${f.kind} is ${f.width}x${f.height}`);
    else if (!f.drawn) problems.push(`figure #${f.id}: ${f.kind} has nothing drawn`);
  }

  // Nothing may need sideways scrolling: not the page, not an element
  // that clips or scrolls its content, not an element reaching past the
  // window's right edge. Checked at the screen's width and at A4's
  // printable width (about 718 CSS px) with print styles.
  const overflow = () => page.evaluate(() => {
    const out = [];
    const root = document.documentElement;
    const vw = root.clientWidth;
    if (root.scrollWidth > vw + 1) out.push(`the page is ${root.scrollWidth}px wide in a ${vw}px window`);
    for (const el of document.querySelectorAll('body *')) {
      if (el.closest('svg')) continue; // plots scale to their figure
      const name = el.tagName.toLowerCase() + (el.id ? `#${el.id}` : '');
      const cs = getComputedStyle(el);
      if (['auto', 'scroll', 'hidden'].includes(cs.overflowX) && el.scrollWidth > el.clientWidth + 1) {
        out.push(`${name} hides ${el.scrollWidth - el.clientWidth}px of its content`);
      }
      const box = el.getBoundingClientRect();
      if (box.width > 0 && box.right > vw + 1) out.push(`${name} reaches ${Math.round(box.right)}px, past the ${vw}px window`);
    }
    return out.slice(0, 10);
  });
  for (const p of await overflow()) problems.push(`screen: ${p}`);
  await page.setViewportSize({ width: 718, height: 1000 });
  await page.emulateMedia({ media: 'print' });
  for (const p of await overflow()) problems.push(`print: ${p}`);
  await page.emulateMedia({ media: 'screen' });
  await page.setViewportSize({ width: 1280, height: 900 });

  await page.screenshot({ path: screenshotPath, fullPage: true });
  if (problems.length > 0) {
    console.error(problems.join('\n'));
    process.exitCode = 1;
  } else {
    console.log(`ok: ${figures.length} plots rendered; screenshot ${screenshotPath}`);
  }
} finally {
  await browser.close();
}
