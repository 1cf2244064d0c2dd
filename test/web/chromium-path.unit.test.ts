/**
 * Issue 27, the README as written: browser tests honour CHROMIUM_PATH and fall back to Debian's
 * /usr/bin/chromium; no test names another path.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CHROMIUM_PATH, chromiumPath } from './browser.js';

const TEST_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

describe('CHROMIUM_PATH', () => {
  // A pure function, not a module imported again under a stubbed environment: the fast project
  // shares modules between files (no isolation), and screenshots.unit imports browser.js first in
  // some orders, so a re-import returned the cached value (a clean-clone run failed on it).
  it('is where the browser helper launches Chromium from, with /usr/bin/chromium as the default', () => {
    expect(chromiumPath({ CHROMIUM_PATH: '/opt/chrome/chrome' })).toBe('/opt/chrome/chrome');
    expect(chromiumPath({ CHROMIUM_PATH: '' })).toBe('/usr/bin/chromium');
    expect(chromiumPath({})).toBe('/usr/bin/chromium');
    expect(CHROMIUM_PATH).toBe(chromiumPath(process.env));
    expect(readFileSync(path.join(TEST_ROOT, 'web', 'browser.ts'), 'utf8')).toMatch(/executablePath: CHROMIUM_PATH/);
  });

  it('is the only way a test finds Chromium: no test file hard-codes an executable', () => {
    const files = readdirSync(TEST_ROOT, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts') && ![path.join('web', 'browser.ts'), path.join('web', 'chromium-path.unit.test.ts')].includes(f));
    const offenders = files.filter((f) => /executablePath\s*:|['"`]\/usr\/bin\/chrom/.test(readFileSync(path.join(TEST_ROOT, f), 'utf8')));
    expect(offenders).toEqual([]);
  });

  it('the README says how to get Chromium and how to point the tests at it', () => {
    const readme = readFileSync(path.join(TEST_ROOT, '..', 'README.md'), 'utf8');
    expect(readme).toContain('apt-get install chromium');
    expect(readme).toMatch(/CHROMIUM_PATH=\S+ npm run test:browser/);
  });
});
