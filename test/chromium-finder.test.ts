// The viewer tests find a Chromium without apt: CHROMIUM_PATH, Debian's, or
// the one carried by the @sparticuz/chromium devDependency. Each path is
// exercised here whichever one this machine would pick, so CI (which installs
// Debian's) still proves the bundled one launches.
import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';
import t from 'tap';
import { CHROMIUM_ARGS } from './helpers/browser.js';
import { bundledChromium, launchOptions, locateChromium } from './helpers/chromium.js';

t.test('the order: CHROMIUM_PATH, then Debian, then the bundled one', async (t) => {
  const here = process.execPath; // any file that exists
  t.same(await locateChromium({ CHROMIUM_PATH: here }, here + '.none'), { executablePath: here, env: {}, source: 'CHROMIUM_PATH' });
  t.same(await locateChromium({}, here), { executablePath: here, env: {}, source: 'debian' });
  await t.rejects(locateChromium({ CHROMIUM_PATH: '/no/such/chromium' }, here), /^CHROMIUM_PATH is \/no\/such\/chromium, which does not exist$/);
  const bundled = await locateChromium({}, '/no/such/debian/chromium');
  t.equal(bundled.source, '@sparticuz/chromium');
  t.ok(existsSync(bundled.executablePath), 'the bundled Chromium is unpacked');
});

t.test('the bundled Chromium launches under playwright-core and renders a page', async (t) => {
  const found = await bundledChromium();
  const browser = await chromium.launch(launchOptions(found, CHROMIUM_ARGS));
  t.teardown(() => browser.close());
  const page = await browser.newPage();
  await page.setContent('<button onclick="this.textContent = \'clicked\'">press</button>');
  await page.click('button');
  t.equal(await page.textContent('button'), 'clicked');
  t.match(browser.version(), /^\d+\.\d+\.\d+\.\d+$/);
});
