import { describe, it, expect, beforeEach, afterEach } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { LocalEngine, type LocalParseResult } from '../../src/agent/local-engine.js';
import type { ToolCall } from '../../src/agent/tool-inputs.js';
import type { LowdbStore } from '../../src/store/index.js';
import { fakeAccounts, fakeHandlers, silentLogger, tempStore } from './fakes.js';
import { PendingActionsStore } from '../../src/pending-actions/pending-actions.js';

/**
 * Issue 20: a call the engine holds (it did not read every word) becomes a pending action
 * even through the API, where a complete reading acts at once; only its confirm runs it.
 */
const ALICE = 'acct_alice0000000000000000';
const TRANSFER: ToolCall = { name: 'send_transfer', input: { recipient: '@amina', amount: '5000', currency: 'KES' } };
// The messages carry the call's arguments, so grounding (every argument in the person's words)
// passes both; only the engine's hold tells them apart.
const CLEAR = 'send 5000 KES to @amina';
const LEFTOVER = 'send 5000 KES to @amina zorblat';
const script: Record<string, LocalParseResult> = {
  [CLEAR]: { kind: 'tool', call: TRANSFER },
  [LEFTOVER]: { kind: 'tool', call: TRANSFER, hold: ['zorblat'] },
};
const parse = (text: string): LocalParseResult => script[text] ?? { kind: 'none', reply: 'no script' };

describe('Agent: held calls (engine hold option)', () => {
  let store: LowdbStore;
  let fake: ReturnType<typeof fakeHandlers>;
  let agent: Agent;

  beforeEach(async () => {
    store = await tempStore();
    fake = fakeHandlers();
    agent = new Agent({ engine: new LocalEngine({ parse }), handlers: fake.handlers, actions: new PendingActionsStore(store), logger: silentLogger(), accounts: fakeAccounts });
  });
  afterEach(async () => {
    await store.close();
  });

  it('through the API a complete reading acts at once, a held one waits with the pending shape of a preview', async () => {
    const acted = await agent.runTurn({ accountId: ALICE, message: CLEAR, channel: 'api' });
    expect(acted.pending).toBeUndefined();
    expect(fake.calls.length).toBe(1);

    const held = await agent.runTurn({ accountId: ALICE, message: LEFTOVER, channel: 'api' });
    const preview = await agent.runTurn({ accountId: ALICE, message: CLEAR, channel: 'api', preview: true });
    expect(fake.calls.length).toBe(1);
    expect(held.pending).toMatchObject({ status: 'pending', tool: 'send_transfer' });
    expect(held.result).toMatchObject({ status: 'awaiting_confirmation', tool: 'send_transfer', input: TRANSFER.input });
    expect(Object.keys(held).sort()).toEqual(Object.keys(preview).sort());
    expect(held.reply).toContain('"zorblat"');

    const done = await agent.confirm(ALICE, held.pending!.id);
    expect(done.ok).toBe(true);
    expect(fake.calls.length).toBe(2);
  });
});
