#!/usr/bin/env node
/**
 * Writes test/helpers/durations.json, the per-file durations the test sequencer orders files by
 * (test/helpers/sequencer.ts, docs/testing.md), from vitest's own results cache of the last run
 * (node_modules/.vite/vitest/<hash>/results.json: `<project>:<file>` -> duration in ms, the time
 * the file's suites and hooks ran, without its imports). Run it after a whole `npm test` (and
 * `npm run test:browser`) on an otherwise quiet machine: `node scripts/test-durations.mjs`
 * (or `node scripts/test-durations.mjs path/to/results.json…`).
 * Files under MIN_SECONDS are left out (they keep vitest's own order, after the measured ones).
 *
 * `node scripts/test-durations.mjs --print .tmp/unit-results.json [N]` prints instead the N
 * slowest files of a JSON report (`--reporter=json --outputFile=…`): each file's first test's
 * start to its last test's end (without its imports and beforeAll), and when it started.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OUT = path.join(ROOT, 'test', 'helpers', 'durations.json');
const MIN_SECONDS = 2;

if (process.argv[2] === '--print') {
  const report = JSON.parse(readFileSync(process.argv[3], 'utf8'));
  const files = report.testResults.map((f) => ({ name: path.relative(process.cwd(), f.name), start: f.startTime, s: (f.endTime - f.startTime) / 1000 }));
  const t0 = Math.min(...files.map((f) => f.start));
  const sum = files.reduce((a, f) => a + f.s, 0);
  console.log(`${files.length} files, ${report.numTotalTests} tests (${report.numFailedTests} failed), ${sum.toFixed(0)} s summed over files`);
  for (const f of files.sort((a, b) => b.s - a.s).slice(0, Number(process.argv[4] ?? 30))) {
    console.log(`${f.s.toFixed(1).padStart(7)} s  started at ${((f.start - t0) / 1000).toFixed(0).padStart(5)} s  ${f.name}`);
  }
  process.exit(0);
}

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
