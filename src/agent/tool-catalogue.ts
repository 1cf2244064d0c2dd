import { z } from 'zod';
import { TOOLS, type AnyTool } from './tools/registry.js';

/**
 * The tool catalogue: what every consumer of the registry reads (the Claude engine's tool
 * definitions and prompt, the MCP tool list, the docs table). Each generator takes a registry,
 * the real one by default, so a test can hand it one with a tool added.
 */

export interface CatalogueEntry {
  name: string;
  description: string;
  action: string;
  movesMoney: boolean;
  readOnly: boolean;
  /** JSON Schema of the input side (what a caller writes, before transforms such as upper-casing a currency). */
  inputSchema: Record<string, unknown>;
}

/** JSON Schema of a zod input, input side, without `$schema`. */
export function inputJsonSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _drop, ...json } = z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>;
  return json;
}

export function toolCatalogue(tools: readonly AnyTool[] = TOOLS): CatalogueEntry[] {
  return tools.map((t) => ({
    name: t.name,
    description: t.description,
    action: t.action,
    movesMoney: t.movesMoney,
    readOnly: t.readOnly,
    inputSchema: inputJsonSchema(t.input),
  }));
}

/** "a, b or c". */
export function orList(names: readonly string[]): string {
  return names.length < 2 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}`;
}

/**
 * The lines of the Claude engine's overview of the service: a tool's own line, or one line per
 * group naming its tools, at the place of the group's first tool.
 */
export function promptOverview(tools: readonly AnyTool[] = TOOLS): string[] {
  const lines: string[] = [];
  const groups = new Set<string>();
  for (const t of tools) {
    if (t.prompt?.line) lines.push(`- ${t.name}: ${t.prompt.line}`);
    const group = t.prompt?.group;
    if (group && !groups.has(group)) {
      groups.add(group);
      lines.push(`- ${group}: ${tools.filter((o) => o.prompt?.group === group).map((o) => o.name).join(', ')}.`);
    }
  }
  return lines;
}

export const DOCS_TABLE_START = '<!-- tools:start (generated from src/agent/tools/registry.ts; npx tsx scripts/docs-tools.ts) -->';
export const DOCS_TABLE_END = '<!-- tools:end -->';

/** The tool table of docs/agent.md, between its markers. */
export function toolsTable(tools: readonly AnyTool[] = TOOLS): string {
  const cell = (s: string) => s.replace(/\|/g, '\\|');
  const rows = toolCatalogue(tools).map((t) => {
    const args = Object.keys((t.inputSchema.properties as Record<string, unknown> | undefined) ?? {});
    const kind = t.movesMoney ? 'moves money (Confirm on people-facing doors and MCP)' : t.readOnly ? 'read-only' : 'writes, moves no money';
    return `| \`${t.name}\` | \`${t.action}\` | ${kind} | ${args.length ? args.map((a) => `\`${a}\``).join(', ') : '-'} | ${cell(t.description)} |`;
  });
  return [DOCS_TABLE_START, '| tool | action | kind | arguments | description |', '|---|---|---|---|---|', ...rows, DOCS_TABLE_END].join('\n');
}
