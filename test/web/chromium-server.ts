import { CHROMIUM_WS_ENV, launchBrowserServer } from './browser.js';

/**
 * Vitest global setup for the browser project (vitest.config.ts): one Chromium for the whole
 * run, which every file connects to (launchBrowser) instead of starting its own. Each file
 * still gets its own connection and its own contexts (cookies, storage, permissions), and
 * closing that connection closes only what it opened. Saves a Chromium start and exit per
 * file (docs/testing.md).
 */
export default async function setup(): Promise<(() => Promise<void>) | void> {
  // Already set (even empty, to measure the old way): keep it.
  if (process.env[CHROMIUM_WS_ENV] !== undefined) return;
  const server = await launchBrowserServer();
  process.env[CHROMIUM_WS_ENV] = server.wsEndpoint();
  return async () => {
    delete process.env[CHROMIUM_WS_ENV];
    await server.close();
  };
}
