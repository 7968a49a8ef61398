// launch.mjs is what lagkit's browser scripts share: args(script, usage,
// n) reads their command line, launch() starts headless Debian chromium
// through the playwright-core that PLAYWRIGHT_CORE names (the file: URL
// of its index.mjs, the copy report/browser/install.sh installs), and
// sleep waits.

// sleep resolves after ms milliseconds.
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// args returns the script's first n arguments, or exits with its usage
// when PLAYWRIGHT_CORE or an argument is missing.
export function args(script, usage, n) {
  const a = process.argv.slice(2);
  if (!process.env.PLAYWRIGHT_CORE) {
    console.error(`${script}: set PLAYWRIGHT_CORE to the file: URL of playwright-core/index.mjs`);
    process.exit(2);
  }
  if (a.length < n || a.slice(0, n).some((x) => !x)) {
    console.error(`usage: PLAYWRIGHT_CORE=URL node ${script} ${usage}`);
    process.exit(2);
  }
  return a;
}

// launch starts the browser.
export async function launch() {
  const { chromium } = await import(process.env.PLAYWRIGHT_CORE);
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--no-first-run', '--enable-unsafe-swiftshader',
      // The page's sounds play without a click first.
      '--autoplay-policy=no-user-gesture-required',
      // The page comes over HTTPS with a self-signed certificate; its
      // WebTransport session is pinned by the certificate's hash instead.
      '--ignore-certificate-errors'],
  });
}

// run runs body with the browser and closes it; a body that throws, or
// problems gathered on the way (console and page errors), fail the
// script.
export async function run(browser, problems, body) {
  try {
    await body();
  } catch (e) {
    problems.push(e.message);
  } finally {
    await browser.close();
  }
  if (problems.length > 0) {
    console.error(problems.join('\n'));
    process.exitCode = 1;
  }
}
