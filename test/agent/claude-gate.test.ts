import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, UNAVAILABLE } from '../../src/agent/agent.js';
import { ClaudeEngine, NOTHING_MOVED_REPLY } from '../../src/agent/claude-engine.js';
import type { LowdbStore } from '../../src/store/index.js';
import { fakeAccounts, fakeHandlers, silentLogger, tempStore } from './fakes.js';

/**
 * Issue 11, item 6: the Claude engine obeys the same gate. A scripted fake Messages API runs
 * on loopback (the SDK reaches it through its base URL, as ANTHROPIC_BASE_URL does): each
 * request gets the next scripted answer, optionally after a delay; request bodies are kept.
 */

const ALICE = 'acct_alice0000000000000000';
const MODEL = 'claude-test-model';

type Block = Record<string, unknown>;
const message = (content: Block[], stop_reason: 'tool_use' | 'end_turn') => ({
  id: `msg_${Math.random().toString(36).slice(2)}`,
  type: 'message',
  role: 'assistant',
  model: MODEL,
  content,
  stop_reason,
  stop_sequence: null,
  usage: { input_tokens: 100, output_tokens: 20 },
});
const text = (t: string) => ({ type: 'text', text: t });
const toolUse = (id: string, name: string, input: unknown) => ({ type: 'tool_use', id, name, input });

type Scripted = { body: unknown; delayMs?: number };

async function fakeMessagesApi(script: Scripted[]) {
  const bodies: any[] = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/messages') {
        res.writeHead(404).end();
        return;
      }
      bodies.push(JSON.parse(raw));
      const next = script.shift();
      if (!next) {
        res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ type: 'error', error: { type: 'api_error', message: 'script exhausted' } }));
        return;
      }
      const send = () => {
        if (!res.destroyed) res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(next.body));
      };
      if (next.delayMs) setTimeout(send, next.delayMs).unref();
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}`,
    bodies,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('Claude engine gate (scripted Messages API on loopback)', () => {
  let store: LowdbStore;
  let api: Awaited<ReturnType<typeof fakeMessagesApi>> | undefined;

  beforeEach(async () => {
    store = await tempStore();
  });
  afterEach(async () => {
    await api?.close();
    api = undefined;
    await store.close();
  });

  const agentWith = (f: ReturnType<typeof fakeHandlers>, baseURL: string, turnTimeoutMs = 5_000) =>
    new Agent({
      engine: new ClaudeEngine({ apiKey: 'sk-ant-test', model: MODEL, baseURL, maxRetries: 0, timeout: 5_000, turnTimeoutMs, logger: silentLogger() }),
      handlers: f.handlers,
      store,
      logger: silentLogger(),
      accounts: fakeAccounts,
    });

  it('an unknown argument (from_account) is an error sent back to the model; the handler never runs with it', async () => {
    const fake = fakeHandlers();
    api = await fakeMessagesApi([
      { body: message([toolUse('toolu_1', 'send_transfer', { recipient: '@zawadi', amount: '30', currency: 'USD', from_account: 'acct_husband' })], 'tool_use') },
      { body: message([text('I can only send from your own wallet.')], 'end_turn') },
    ]);
    const r = await agentWith(fake, api.baseURL).runTurn({ accountId: ALICE, message: "send 30 USD from my husband's account to @zawadi", channel: 'api' });

    expect(fake.calls).toEqual([]);
    expect(api.bodies).toHaveLength(2);
    const result = api.bodies[1].messages[2].content[0];
    expect(result).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_1', is_error: true });
    expect(result.content).toContain('from_account');
    expect(r).toMatchObject({ ok: true, action: 'info', reply: 'I can only send from your own wallet.' });
    // The schema the model sees says the same: no other argument exists.
    const transfer = api.bodies[0].tools.find((t: any) => t.name === 'send_transfer');
    expect(transfer.input_schema.additionalProperties).toBe(false);
  });

  it('a text-only answer claiming money moved, with no tool run, is never shown as done', async () => {
    const fake = fakeHandlers();
    api = await fakeMessagesApi([{ body: message([text('Done! I sent 500 KES to @amina.')], 'end_turn') }]);
    const r = await agentWith(fake, api.baseURL).runTurn({ accountId: ALICE, message: 'send 500 KES to @amina', channel: 'api' });

    expect(fake.calls).toEqual([]);
    expect(r.ok).toBe(true);
    expect(r).toMatchObject({ ok: true, action: 'none', reason: 'unverified_claim', reply: NOTHING_MOVED_REPLY });
    expect(r.reply).not.toContain('Done');
  });

  it('a turn past its overall deadline answers 503 and runs no tool', async () => {
    const fake = fakeHandlers();
    api = await fakeMessagesApi([{ body: message([toolUse('toolu_1', 'get_balance', {})], 'tool_use'), delayMs: 1_500 }]);
    const r = await agentWith(fake, api.baseURL, 300).runTurn({ accountId: ALICE, message: 'balance', channel: 'api' });

    expect(r.reason).toBe(UNAVAILABLE);
    expect(r.ok).toBe(false);
    expect(fake.calls).toEqual([]);
  });

  it('a single-action message costs one model call; the reply is the tool’s own summary', async () => {
    const fake = fakeHandlers({
      outcomes: {
        send_transfer: () => ({ ok: true, action: 'transfer', result: { id: 'tr_1', amount: '500', currency: 'KES' }, summary: 'Sent 500.00 KES to @amina.' }),
      },
    });
    api = await fakeMessagesApi([
      { body: message([toolUse('toolu_1', 'send_transfer', { recipient: '@amina', amount: '500', currency: 'KES' })], 'tool_use') },
      { body: message([text('should never be asked for')], 'end_turn') },
    ]);
    const r = await agentWith(fake, api.baseURL).runTurn({ accountId: ALICE, message: 'send 500 KES to @amina', channel: 'api' });

    expect(api.bodies).toHaveLength(1);
    expect(fake.calls.map((c) => c.name)).toEqual(['send_transfer']);
    expect(r).toMatchObject({ ok: true, action: 'transfer', reply: 'Sent 500.00 KES to @amina.' });
  });

  it('the read-only tools are offered to the model with their schemas', async () => {
    const fake = fakeHandlers();
    api = await fakeMessagesApi([{ body: message([toolUse('toolu_q', 'quote_transfer', { amount: '100', currency: 'USD', to_currency: 'NGN' })], 'tool_use') }]);
    const r = await agentWith(fake, api.baseURL).runTurn({ accountId: ALICE, message: 'how much is 100 USD in NGN', channel: 'api' });

    const names = api.bodies[0].tools.map((t: any) => t.name);
    expect(names).toEqual(expect.arrayContaining(['quote_transfer', 'list_activity']));
    expect(fake.calls).toEqual([expect.objectContaining({ name: 'quote_transfer', input: { amount: '100', currency: 'USD', to_currency: 'NGN' } })]);
    expect(r).toMatchObject({ ok: true, action: 'quote' });
  });
});
