/**
 * Issue 22 point 4: one file per agent tool, one registry, and everything generated from it.
 * A tool added to a temporary registry shows up in all four consumers: the catalogue, the
 * Claude engine's prompt and tool definitions, the MCP tool list (through a real MCP server and
 * client) and the docs table; the local engine, given that registry, routes a message to it
 * through the tool's own local intent; and docs/agent.md's table is the real registry's.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { checkInput, defineTool, type ToolOutcome, type ToolRun } from '../../src/agent/tools/contract.js';
import { TOOLS, type AnyTool } from '../../src/agent/tools/registry.js';
import { toolCatalogue, toolsTable } from '../../src/agent/tool-catalogue.js';
import { REFUSE_TOOL, SYSTEM_PROMPT, systemPrompt, toolDefinitions } from '../../src/agent/claude-engine.js';
import { createToolHandlers } from '../../src/agent/handlers.js';
import { MONEY_MOVING_TOOLS, READ_ONLY_TOOLS, ToolInputs } from '../../src/agent/tool-inputs.js';
import { TOOL_ACTIONS, genericDescription } from '../../src/agent/tool-calls.js';
import { agentToolDefs } from '../../src/mcp/tools.js';
import { LocalEngine } from '../../src/agent/local-engine.js';
import { createParser, parseMessage } from '../../src/agent/local/index.js';
import { hasLemma } from '../../src/agent/local/analysis.js';
import type { ToolRunner } from '../../src/agent/engine.js';
import { silentLogger } from './fakes.js';
import { createMcpServer } from '../../src/mcp/server.js';

/** A tool that exists only in this test: one definition, as a new tool file would hold it. */
const TipJarInput = z.object({ amount: z.string().describe('Amount to tip, a plain decimal string.'), jar: z.string().describe('The tip jar, e.g. "@kofi".') });
const tipJar = defineTool({
  name: 'tip_jar',
  input: TipJarInput,
  action: 'transfer',
  description: 'Drop a tip into a tip jar from the user’s own wallet.',
  movesMoney: true,
  readOnly: false,
  prompt: { line: 'tip a creator’s jar from the user’s own wallet.' },
  describe: (i, local) => `Tip ${i.amount} ${local} into ${i.jar}.`,
  // How the local engine finds it: its own cue word, gated on it, and its builder.
  local: {
    scored: {
      rank: 5,
      cues: [['tipjar', 6]],
      gate: (a) => hasLemma(a, 'tipjar'),
      build: (a) => {
        const amount = a.money.find((m) => !m.negative)?.amount;
        const jar = a.tokens.find((t) => t.kind === 'mention')?.text;
        return amount && jar ? { call: { name: 'tip_jar', input: { amount, jar } } } : { reply: 'Which jar, and how much?' };
      },
    },
  },
  // The handler's type is written out: it reads `tipJar` itself (checkInput), as every tool file's does.
  handler: (): ToolRun<z.infer<typeof TipJarInput>> => async (input): Promise<ToolOutcome> => {
    const checked = checkInput(tipJar, input);
    return checked.ok ? { ok: true, action: 'transfer', result: { jar: checked.input.jar }, summary: `Tipped ${checked.input.jar}.` } : checked;
  },
});
const withTip: readonly AnyTool[] = [...TOOLS, tipJar];

async function mcpToolNames(registry: readonly AnyTool[]) {
  const server = createMcpServer({ listTools: async () => agentToolDefs(registry), callTool: async () => ({ content: [] }) });
  const client = new Client({ name: 'registry-test', version: '0' });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(a), client.connect(b)]);
  try {
    return (await client.listTools()).tools;
  } finally {
    await client.close();
  }
}

describe('the tool registry (src/agent/tools/registry.ts)', () => {
  it('a tool added to a registry appears in the catalogue, the Claude prompt and tool definitions, the MCP tool list and the docs table', async () => {
    expect(toolCatalogue(TOOLS).map((t) => t.name)).not.toContain('tip_jar');
    const entry = toolCatalogue(withTip).find((t) => t.name === 'tip_jar');
    expect(entry).toMatchObject({ action: 'transfer', movesMoney: true, readOnly: false });
    expect(Object.keys(entry!.inputSchema.properties as object)).toEqual(['amount', 'jar']);

    // Claude: the overview line, the money-moving rule, and the tool definition.
    const prompt = systemPrompt(withTip);
    expect(prompt).toContain('- tip_jar: tip a creator’s jar');
    expect(prompt).toContain('Never call send_transfer, pay_bill, stake_market, resolve_market, cancel_market, refund_payment, capture_payment, void_payment or tip_jar for a question');
    expect(SYSTEM_PROMPT).not.toContain('tip_jar');
    const defs = toolDefinitions(withTip);
    expect(defs.map((d) => d.name)).toEqual([...TOOLS.map((t) => t.name), 'tip_jar', REFUSE_TOOL]);
    expect(defs.find((d) => d.name === 'tip_jar')?.input_schema).toMatchObject({ type: 'object', additionalProperties: false, required: ['amount', 'jar'] });

    // MCP: through a real server and client, with the money-moving flag as annotations.
    const listed = await mcpToolNames(withTip);
    const tip = listed.find((t) => t.name === 'tip_jar');
    expect(tip?.annotations).toMatchObject({ destructiveHint: true, readOnlyHint: false });
    expect(tip?.description).toContain('Moves money only after the account holder confirms it');
    expect((await mcpToolNames(TOOLS)).map((t) => t.name)).not.toContain('tip_jar');

    // Docs.
    expect(toolsTable(withTip)).toMatch(/^\| `tip_jar` \| `transfer` \| moves money .*\| `amount`, `jar` \| Drop a tip/m);
  });

  it('the local engine given a registry with the tool routes a message to it through the tool’s own local intent', async () => {
    const ctx = { now: new Date('2026-03-11T10:00:00Z'), localCurrency: 'KES' };
    const message = 'tipjar 50 @kofi';
    expect(createParser(withTip)(message, ctx)).toEqual({ kind: 'tool', call: { name: 'tip_jar', input: { amount: '50', jar: '@kofi' } } });
    // The agent's own registry has no such tool: the same words are something else.
    expect(parseMessage(message, ctx)).not.toMatchObject({ call: { name: 'tip_jar' } });

    const calls: Array<{ name: string; input: unknown }> = [];
    const runTool: ToolRunner = async (name, input) => {
      calls.push({ name, input });
      return { kind: 'pending', description: 'held' };
    };
    const turn = { accountId: 'acct_1', channel: 'chat' as const, message, localCurrency: 'KES', now: ctx.now, logger: silentLogger() };
    await new LocalEngine({ tools: withTip }).run(turn, runTool);
    expect(calls).toEqual([{ name: 'tip_jar', input: { amount: '50', jar: '@kofi' } }]);
    calls.length = 0;
    await new LocalEngine().run(turn, runTool);
    expect(calls.map((c) => c.name)).not.toContain('tip_jar');
  });

  it('docs/agent.md carries the registry’s tool table (npx tsx scripts/docs-tools.ts rewrites it)', () => {
    expect(readFileSync(new URL('../../docs/agent.md', import.meta.url), 'utf8')).toContain(toolsTable());
  });

  it('every map the agent reads is the registry’s: names, inputs, flags, actions, executors, describe sentences', () => {
    const names = TOOLS.map((t) => t.name);
    expect(new Set(names).size).toBe(names.length);
    expect(Object.keys(ToolInputs)).toEqual(names);
    expect([...MONEY_MOVING_TOOLS]).toEqual(TOOLS.filter((t) => t.movesMoney).map((t) => t.name));
    expect([...READ_ONLY_TOOLS]).toEqual(TOOLS.filter((t) => t.readOnly).map((t) => t.name));
    for (const t of TOOLS) {
      expect(t.movesMoney && t.readOnly).toBe(false);
      expect(TOOL_ACTIONS[t.name]).toBe(t.action);
    }
    expect(Object.keys(createToolHandlers({} as never))).toEqual(names);
    expect(genericDescription({ name: 'send_transfer', input: { recipient: '@amina', amount: '5000' } }, 'KES')).toBe('Send 5000 KES to @amina.');
    // The tool's own describe, with the same default for the local currency.
    expect(genericDescription({ name: 'stake_market', input: { market: 'mkt_1', outcome: 'Yes', amount: '10' } })).toBe('Stake 10 your local currency on "Yes" in the market "mkt_1".');
  });
});
