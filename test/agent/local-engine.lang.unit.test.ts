import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { LocalEngine } from '../../src/agent/local-engine.js';
import type { LowdbStore } from '../../src/store/index.js';
import { fakeAccounts, fakeHandlers, silentLogger, tempStore } from './fakes.js';
import { PendingActionsStore } from '../../src/pending-actions/pending-actions.js';

/** Issue 11, item 3: replies in the message's language, through the agent with the local engine. */
describe('local engine replies in the message language', () => {
  let store: LowdbStore;
  beforeEach(async () => {
    store = await tempStore();
  });
  afterEach(async () => {
    await store.close();
  });

  const agent = (f: ReturnType<typeof fakeHandlers>) =>
    new Agent({ engine: new LocalEngine(), handlers: f.handlers, actions: new PendingActionsStore(store), logger: silentLogger(), accounts: fakeAccounts });

  it('a done action leads with a sentence in the language, then the exact summary', async () => {
    const f = fakeHandlers({ outcomes: { send_transfer: () => ({ ok: true, action: 'transfer', result: { id: 'tr_1' }, summary: 'Sent 500.00 KES to @zawadi.' }) } });
    const r = await agent(f).runTurn({ accountId: 'acct_alice', message: 'tuma 500 kwa @zawadi tafadhali', channel: 'api' });
    expect(r).toMatchObject({ ok: true, action: 'transfer', reply: 'Imefanyika. Sent 500.00 KES to @zawadi.' });
  });

  it('a gate answer is in the language, with its named reason, and nothing runs', async () => {
    const f = fakeHandlers();
    const r = await agent(f).runTurn({ accountId: 'acct_alice', message: "n'envoie pas 2000 FCFA à @moussa", channel: 'api' });
    expect(f.calls).toEqual([]);
    expect(r.ok).toBe(true);
    expect(r).toMatchObject({ ok: true, action: 'none', reason: 'negation', reply: expect.stringContaining("D'accord") });
    const odd = await agent(f).runTurn({ accountId: 'acct_alice', message: 'tuma (500) kwa @musa', channel: 'api' });
    expect(odd.ok).toBe(false);
    expect(odd).toMatchObject({ ok: false, reason: 'invalid_amount', reply: expect.stringContaining('"(500)"') });
    expect(f.calls).toEqual([]);
  });
});
