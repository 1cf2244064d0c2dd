/**
 * Issue 27, the README as written: browser tests honour CHROMIUM_PATH and fall back to Debian's
 * /usr/bin/chromium; no test names another path.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';

const TEST_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

describe('CHROMIUM_PATH', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.resetModules();
  });

  it('is where the browser helper launches Chromium from, with /usr/bin/chromium as the default', async () => {
    vi.stubEnv('CHROMIUM_PATH', '/opt/chrome/chrome');
    expect((await import('./browser.js')).CHROMIUM_PATH).toBe('/opt/chrome/chrome');
    vi.resetModules();
    vi.stubEnv('CHROMIUM_PATH', '');
    expect((await import('./browser.js')).CHROMIUM_PATH).toBe('/usr/bin/chromium');
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
