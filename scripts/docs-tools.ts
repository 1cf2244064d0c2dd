/**
 * Writes the agent's tool table into docs/agent.md, between its markers, from the tool registry
 * (src/agent/tools/registry.ts). test/agent/tool-registry.unit.test.ts fails when the page and the
 * registry differ, so a new tool's row is one run of:
 *
 *   npx tsx scripts/docs-tools.ts
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DOCS_TABLE_END, DOCS_TABLE_START, toolsTable } from '../src/agent/tool-catalogue.js';

const page = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../docs/agent.md');
const text = readFileSync(page, 'utf8');
const start = text.indexOf(DOCS_TABLE_START);
const end = text.indexOf(DOCS_TABLE_END);
if (start < 0 || end < start) throw new Error(`docs/agent.md has no tool table markers (${DOCS_TABLE_START} ... ${DOCS_TABLE_END})`);
const next = text.slice(0, start) + toolsTable() + text.slice(end + DOCS_TABLE_END.length);
if (next !== text) writeFileSync(page, next);
console.log(next === text ? 'docs/agent.md: tool table up to date' : 'docs/agent.md: tool table rewritten');
