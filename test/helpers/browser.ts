// A real browser for the viewer tests: a Chromium found by findChromium()
// (CHROMIUM_PATH, Debian's, or the one inside the @sparticuz/chromium
// devDependency) driven by playwright-core. Never downloads a browser; when
// none is found the test fails with a clear message. Every page records console errors, uncaught errors
// and CSP violations, so a test can assert there were none.
import { chromium, type Browser, type Page } from 'playwright-core';
import { findChromium, launchOptions } from './chromium.js';

/** The flags the viewer tests run Chromium with. */
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

interface Teardown {
  teardown(fn: () => unknown): void;
}

/**
 * Launch headless Chromium with a fresh profile; closed in `t.teardown`.
 * Throws (failing the test) when no Chromium can be found.
 */
export async function launchBrowser(t: Teardown): Promise<Browser> {
  const found = await findChromium();
  const browser = await chromium.launch(launchOptions(found, CHROMIUM_ARGS));
  t.teardown(() => browser.close());
  return browser;
}

/**
 * Console messages caused by a known problem on the server side, not by the
 * page: Chromium rejects the IPv6 literal in the CSP's connect-src
 * (`ws://[::1]:<port>` is not valid CSP source syntax) and ignores that one
 * source. The page never uses it ('self' covers its own socket). Reported to
 * the server's owner; listed here by its exact text so nothing else slips by.
 */
export const KNOWN_SERVER_NOISE: RegExp[] = [];

/** Problems minus {@link KNOWN_SERVER_NOISE}; the known ones are reported through `comment`. */
export function realProblems(problems: readonly string[], comment: (text: string) => void): string[] {
  const real: string[] = [];
  for (const problem of problems) {
    if (KNOWN_SERVER_NOISE.some((pattern) => pattern.test(problem))) comment(`known server issue, not the page: ${problem}`);
    else real.push(problem);
  }
  return real;
}

/** A page with what went wrong in it recorded. */
export interface WatchedPage {
  page: Page;
  /** Console messages of type error, uncaught exceptions, and CSP violations. */
  problems: string[];
}

/** Open a page in a fresh context (its own storage), recording problems. */
export async function openPage(browser: Browser, url: string, viewport = { width: 1400, height: 900 }): Promise<WatchedPage> {
  const context = await browser.newContext({ viewport, bypassCSP: false, colorScheme: 'light' });
  const page = await context.newPage();
  return watch(page, url);
}

/** Start recording problems on a page and go to `url`. */
export async function watch(page: Page, url: string): Promise<WatchedPage> {
  const problems: string[] = [];
  page.on('console', (message) => {
    // With the URL it came from: Chromium names a resource that failed to load only there.
    const from = message.location().url;
    if (message.type() === 'error' || /Content Security Policy/i.test(message.text())) problems.push(`console: ${message.text()}${from ? ` [${from}]` : ''}`);
  });
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  await page.exposeFunction('__reportCspViolation', (text: string) => problems.push(`csp: ${text}`));
  // In-page code is passed as text: the test project has no DOM types.
  await page.addInitScript(`document.addEventListener('securitypolicyviolation', (event) => {
    window.__reportCspViolation(event.violatedDirective + ' blocked ' + event.blockedURI);
  });`);
  await page.goto(url);
  return { page, problems };
}
