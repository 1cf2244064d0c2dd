import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import jsQRModule from 'jsqr';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';

/** Screenshots land here (git-ignored) for people to look at; tests never compare pixels. */
/** The two sizes every page is proven at (issue 15): a desktop window and a phone. */
export const SIZES = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'phone', width: 390, height: 844 },
] as const;

export const ARTIFACTS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../artifacts');

/** CHROMIUM_PATH overrides where Chromium is (README, "Tests"); Debian/Ubuntu's package puts it here. */
export const chromiumPath = (env: NodeJS.ProcessEnv): string => env.CHROMIUM_PATH || '/usr/bin/chromium';
export const CHROMIUM_PATH = chromiumPath(process.env);

const LAUNCH = { executablePath: CHROMIUM_PATH, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] };
/** The browser project's shared Chromium (./chromium-server.ts), when the run has one. */
export const CHROMIUM_WS_ENV = 'SP_TEST_CHROMIUM_WS';

/** A connection to the run's shared Chromium, or a Chromium of its own (a file run outside the browser project). */
export async function launchBrowser(): Promise<Browser> {
  const ws = process.env[CHROMIUM_WS_ENV];
  if (ws) return chromium.connect(ws);
  return chromium.launch(LAUNCH);
}

/** The run's shared Chromium (./chromium-server.ts), launched the same way. */
export function launchBrowserServer() {
  return chromium.launchServer(LAUNCH);
}

/**
 * A fresh context (own cookies and sessionStorage) against the service. Every console
 * error, including CSP violations from a stray inline script, is collected for assertions.
 */
export async function newPage(
  browser: Browser,
  baseURL: string,
  opts: { width?: number; height?: number } = {},
): Promise<{ context: BrowserContext; page: Page; consoleErrors: string[] }> {
  const context = await browser.newContext({
    baseURL,
    viewport: { width: opts.width ?? 1280, height: opts.height ?? 900 },
  });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseURL });
  const page = await context.newPage();
  const consoleErrors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(m.text());
  });
  page.on('pageerror', (e) => consoleErrors.push(String(e)));
  return { context, page, consoleErrors };
}

/** Errors that are not the page's fault: expected 4xx answers the page handles itself. */
export const realErrors = (errors: string[]) => errors.filter((e) => !/Failed to load resource: the server responded with a status of 4\d\d/.test(e));

let seq = 0;
export interface UiUser {
  name: string;
  email: string;
  password: string;
}

/** Signs up through the sign-up page, the way a merchant does; ends on the dashboard. */
export async function signUpThroughUi(page: Page, name = 'Ada’s Haircuts'): Promise<UiUser> {
  const user = { name, email: `ui${Date.now()}${++seq}@example.com`, password: 'correct horse battery' };
  await page.goto('/app/signup');
  await page.getByLabel('Business name').fill(user.name);
  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.waitForURL('**/app');
  await page.getByRole('heading', { level: 1, name: 'Dashboard' }).waitFor();
  return user;
}

/** The document's scroll width: at most the viewport width means no horizontal scrolling. */
export async function scrollWidth(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth);
}

/**
 * Whether the page tests keep screenshots in ARTIFACTS (for people to look at; no test compares
 * them). On by default, off when CI=true: CI keeps no artifacts, and a full-page screenshot costs
 * Chromium 0.4-2 s of CPU on the loaded 2-core machine, about a hundred of them a run
 * (docs/testing.md, "Fourteenth round"). SP_TEST_SCREENSHOTS=1 or 0 decides either way.
 */
export function screenshotsWanted(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.SP_TEST_SCREENSHOTS) return env.SP_TEST_SCREENSHOTS !== '0';
  return env.CI !== 'true';
}

/** `ARTIFACTS/<name>.png` of a page (the whole page unless `fullPage: false`) or of one element; nothing when screenshots are off. */
export async function screenshot(target: Page | Locator, name: string, { fullPage = true } = {}): Promise<void> {
  if (!screenshotsWanted()) return;
  await mkdir(ARTIFACTS, { recursive: true });
  const file = path.join(ARTIFACTS, `${name}.png`);
  if ('goto' in target) await target.screenshot({ path: file, fullPage });
  else await target.screenshot({ path: file });
}

// jsqr is CommonJS with `exports.default`: under NodeNext the default import is the module object.
const jsQR = ((jsQRModule as unknown as { default?: typeof jsQRModule }).default ?? jsQRModule) as unknown as typeof jsQRModule.default;

/** Renders the QR code SVG at `selector` onto a canvas and decodes it, as a phone's scanner would. */
export async function decodeQr(page: Page, selector: string): Promise<string | undefined> {
  const img = await page.evaluate(async (sel) => {
    const svg = document.querySelector(sel)!;
    const size = 400;
    const image = new Image(size, size);
    image.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg.outerHTML.replace('<svg ', `<svg width="${size}" height="${size}" `))}`;
    await image.decode();
    const canvas = document.createElement('canvas');
    canvas.width = size;
    canvas.height = size;
    const g = canvas.getContext('2d')!;
    g.drawImage(image, 0, 0, size, size);
    return { data: Array.from(g.getImageData(0, 0, size, size).data), size };
  }, selector);
  return jsQR(Uint8ClampedArray.from(img.data), img.size, img.size)?.data;
}
