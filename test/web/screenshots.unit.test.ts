/**
 * Screenshots are for people (test/artifacts/, no test compares them): every page test takes
 * them through `screenshot()`, which CI turns off (CI=true; SP_TEST_SCREENSHOTS=1 or 0 decides
 * either way). A full-page screenshot costs Chromium 0.4-2 s of CPU on the loaded 2-core
 * machine (docs/testing.md, "Fourteenth round (h14ci)").
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { screenshot, screenshotsWanted } from './browser.js';

const TEST_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

describe('screenshots in the page tests', () => {
  it('are kept by default, not under CI=true, and SP_TEST_SCREENSHOTS decides either way', () => {
    expect(screenshotsWanted({})).toBe(true);
    expect(screenshotsWanted({ CI: 'false' })).toBe(true);
    expect(screenshotsWanted({ CI: 'true' })).toBe(false);
    expect(screenshotsWanted({ CI: 'true', SP_TEST_SCREENSHOTS: '1' })).toBe(true);
    expect(screenshotsWanted({ SP_TEST_SCREENSHOTS: '0' })).toBe(false);
  });

  it('screenshot() takes one only when wanted: the whole page, or an element', async () => {
    const calls: unknown[] = [];
    const page = { goto: () => undefined, screenshot: async (o: unknown) => void calls.push(o) };
    const element = { screenshot: async (o: unknown) => void calls.push(o) };
    const before = process.env.SP_TEST_SCREENSHOTS;
    try {
      process.env.SP_TEST_SCREENSHOTS = '0';
      await screenshot(page as never, 'off');
      expect(calls).toEqual([]);
      process.env.SP_TEST_SCREENSHOTS = '1';
      await screenshot(page as never, 'whole');
      await screenshot(page as never, 'first-screen', { fullPage: false });
      await screenshot(element as never, 'element');
      expect(calls).toEqual([
        { path: expect.stringMatching(/artifacts\/whole\.png$/), fullPage: true },
        { path: expect.stringMatching(/artifacts\/first-screen\.png$/), fullPage: false },
        { path: expect.stringMatching(/artifacts\/element\.png$/) },
      ]);
    } finally {
      if (before === undefined) delete process.env.SP_TEST_SCREENSHOTS;
      else process.env.SP_TEST_SCREENSHOTS = before;
    }
  });

  it('every test takes them through screenshot(): no test file calls .screenshot( itself', () => {
    const files = readdirSync(TEST_ROOT, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts') && ![path.join('web', 'browser.ts'), path.join('web', 'screenshots.unit.test.ts')].includes(f));
    const offenders = files.filter((f) => /\.screenshot\(/.test(readFileSync(path.join(TEST_ROOT, f), 'utf8')));
    expect(offenders).toEqual([]);
  });
});
