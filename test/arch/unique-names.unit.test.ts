import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Issue 22, point 5: every file under src/ has a name of its own that says what it holds, so a
 * name in a stack trace, a search result or a doc points at one file. `index.ts` (a folder's
 * entry point) is the one name allowed to repeat.
 */
const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');
const MAY_REPEAT = new Set(['index.ts']);

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) sourceFiles(full, out);
    else if (e.isFile() && /\.(ts|mts|cts|tsx)$/.test(e.name) && !e.name.endsWith('.d.ts')) out.push(full);
  }
  return out;
}

function allFiles(dir: string, out: string[] = []): string[] {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) allFiles(full, out);
    else if (e.isFile() && /\.(ts|mts|cts|tsx|js|mjs|css|sql|html)$/.test(e.name)) out.push(full);
  }
  return out;
}

describe('file names under src/', () => {
  it('no two files share a basename (index.ts excepted)', () => {
    const byName = new Map<string, string[]>();
    for (const f of sourceFiles(SRC)) {
      const name = path.basename(f);
      if (MAY_REPEAT.has(name)) continue;
      byName.set(name, [...(byName.get(name) ?? []), path.relative(path.dirname(SRC), f).split(path.sep).join('/')]);
    }
    const repeated = [...byName]
      .filter(([, files]) => files.length > 1)
      .map(([name, files]) => `${name}: ${files.sort().join(', ')}`)
      .sort();
    expect(repeated, `file names used more than once under src/ (rename one so each says what it holds):\n${repeated.join('\n')}`).toEqual([]);
  });

  // Issue 22, point 2: small modules. Generated artifacts (src/chain/artifacts) are exempt. The
  // browser scripts, styles and migrations under src/ count too (checkout.js is a payment door).
  it('no file above 400 lines, except generated artifacts', () => {
    const long = allFiles(SRC)
      .filter((f) => !f.split(path.sep).includes('artifacts'))
      .map((f) => [path.relative(SRC, f), fs.readFileSync(f, 'utf8').split('\n').length - 1] as const)
      .filter(([, lines]) => lines > 400)
      .map(([f, lines]) => `${f}: ${lines}`);
    expect(long).toEqual([]);
  });
});
