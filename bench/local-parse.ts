/**
 * The local parser's time per message over the eval sets, for before/after comparisons of the
 * parser (docs/performance.md, "Local parser with each tool's own intent"):
 *
 *   npx tsx bench/local-parse.ts [root=.] [passes=20]
 *
 * `root` is a checkout whose src/agent/local/index.ts is timed (e.g. a `git worktree` of the base
 * commit); the messages always come from this checkout's test/agent/eval, so both sides parse
 * the same ones. Alternate the two sides in one sitting and compare ratios.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const root = path.resolve(process.argv[2] ?? here);
const passes = Number(process.argv[3] ?? 20);
const { parseMessage } = (await import(pathToFileURL(path.join(root, 'src/agent/local/index.ts')).href)) as {
  parseMessage: (text: string, ctx: { now: Date; localCurrency: string }) => unknown;
};
const messages: string[] = [];
for (const set of ['cases', 'held-out', 'unseen', 'fresh']) {
  const rows = JSON.parse(readFileSync(path.join(here, `test/agent/eval/${set}.json`), 'utf8')) as Array<{ message?: unknown }>;
  for (const row of rows) if (typeof row.message === 'string') messages.push(row.message);
}
const ctx = { now: new Date('2026-03-11T10:00:00Z'), localCurrency: 'NGN' };
for (const m of messages) parseMessage(m, ctx);
const start = performance.now();
for (let p = 0; p < passes; p++) for (const m of messages) parseMessage(m, ctx);
const ms = performance.now() - start;
console.log(JSON.stringify({ root, messages: messages.length, passes, usPerParse: Number(((ms * 1000) / (passes * messages.length)).toFixed(1)) }));
