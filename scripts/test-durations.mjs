#!/usr/bin/env node
/**
 * Writes test/helpers/durations.json, the per-file durations the test sequencer orders files by
 * (test/helpers/sequencer.ts, docs/testing.md), from vitest's own results cache of the last run
 * (node_modules/.vite/vitest/<hash>/results.json: `<project>:<file>` -> duration in ms, the time
 * the file's suites and hooks ran, without its imports). Run it after a whole `npm test` (and
 * `npm run test:browser`) on an otherwise quiet machine: `node scripts/test-durations.mjs`
 * (or `node scripts/test-durations.mjs path/to/results.json…`).
 * Files under MIN_SECONDS are left out (they keep vitest's own order, after the measured ones).
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OUT = path.join(ROOT, 'test', 'helpers', 'durations.json');
const MIN_SECONDS = 2;

// Arguments: results.json files to read instead (another checkout's cache, say).
const cacheRoot = path.join(ROOT, 'node_modules', '.vite', 'vitest');
const caches = process.argv.length > 2
  ? process.argv.slice(2)
  : existsSync(cacheRoot) ? readdirSync(cacheRoot).map((d) => path.join(cacheRoot, d, 'results.json')).filter((f) => existsSync(f)) : [];
if (!caches.length) {
  console.error(`no vitest results cache under ${cacheRoot}: run the suite first`);
  process.exit(1);
}
const previous = existsSync(OUT) ? (JSON.parse(readFileSync(OUT, 'utf8')).seconds ?? {}) : {};
const seconds = { ...previous };
for (const file of caches) {
  const { results } = JSON.parse(readFileSync(file, 'utf8'));
  for (const [key, { duration }] of results) {
    const s = Math.round(duration / 100) / 10;
    if (s >= MIN_SECONDS) seconds[key] = s;
    else delete seconds[key];
  }
}
const sorted = Object.fromEntries(Object.entries(seconds).sort((a, b) => b[1] - a[1]));
writeFileSync(
  OUT,
  `${JSON.stringify({ note: 'Per-file durations in seconds (project:file), for test/helpers/sequencer.ts; written by scripts/test-durations.mjs', seconds: sorted }, null, 2)}\n`,
);
console.log(`${Object.keys(sorted).length} files written to ${path.relative(ROOT, OUT)}`);
