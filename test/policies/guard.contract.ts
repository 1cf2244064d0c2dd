/**
 * Spend policies through the agent core (fake tool handlers, the real FX table), run on lowdb
 * (guard.unit.test.ts) and on PostgreSQL (guard.pg.test.ts): caps, reserve-then-commit,
 * 50 concurrent turns, the threshold, the lists and the breaker.
 */
import { describe, it, expect, beforeEach, afterEach } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { LocalEngine, type LocalParseResult } from '../../src/agent/local-engine.js';
import type { ToolCall } from '../../src/agent/tool-inputs.js';
import type { ToolOutcome } from '../../src/agent/tool-calls.js';
import { FxService, loadFxTable } from '../../src/fx/rates.js';
import { PendingActionsStore } from '../../src/pending-actions/pending-actions.js';
import { SpendGuard } from '../../src/policies/guard.js';
import { Policies, SpendReservations } from '../../src/policies/tables.js';
import type { SpendPolicy } from '../../src/policies/policy-schemas.js';
import type { Store } from '../../src/store/index.js';
import { fakeAccounts, fakeHandlers, silentLogger } from '../agent/fakes.js';

const ALICE = 'acct_alice0000000000000000';
const KEY = 'key_policytest000000000001';
/** An `sk_test_` key of the same account (issue 24: caps count each mode apart). */
const TEST_KEY = 'key_policytest00000000test';

/** "send N USD to @who" -> send_transfer. */
const parse = (text: string): LocalParseResult => {
  const m = /^send (\d+(?:\.\d+)?) (\w+) to (\S+)$/.exec(text);
  if (m) return { kind: 'tool', call: { name: 'send_transfer', input: { amount: m[1]!, currency: m[2]!, recipient: m[3]! } } as ToolCall };
  const link = /^link (\d+)$/.exec(text);
  if (link) return { kind: 'tool', call: { name: 'create_payment_link', input: { amount: link[1]! } } as ToolCall };
  return { kind: 'none', reply: 'no' };
};

/**
 * `inAction`: send_transfer writes the reservation in its own transactions (SpendSlot, as the real
 * handler does: in the one that holds the money, its end with the outcome); otherwise the guard
 * writes it in one of its own before the call and marks it after.
 */
export function guardContract(name: string, open: () => Promise<{ store: Store; second?: () => Promise<Store>; close(): Promise<void> }>, inAction = false): void {
  describe(`spend policies in the agent core (${name}${inAction ? ', reserved in the action\'s transaction' : ''})`, () => {
    let store: Store;
    let close: () => Promise<void>;
    let second: (() => Promise<Store>) | undefined;
    let clock: Date;
    const fx = new FxService(loadFxTable());

    const build = (s: Store, opts: { outcome?: (input: any) => ToolOutcome; delayMs?: number } = {}) => {
      const fake = fakeHandlers({
        outcomes: opts.outcome ? { send_transfer: opts.outcome } : {},
        ...(opts.delayMs ? { gate: new Promise<void>((r) => setTimeout(r, opts.delayMs)) } : {}),
        ...(inAction ? { spendInAction: s } : {}),
      });
      const guard = new SpendGuard({ store: s, now: () => clock, livemodeOfKey: async (id) => id !== TEST_KEY });
      const agent = new Agent({
        engine: new LocalEngine({ parse }),
        handlers: fake.handlers,
        actions: new PendingActionsStore(s),
        logger: silentLogger(),
        accounts: fakeAccounts,
        now: () => clock,
        policies: { guard, fx },
      });
      return { agent, fake, guard };
    };
    const setPolicy = (id: string, policy: SpendPolicy, scope: 'account' | 'key' = 'account') =>
      store.write(Policies, (t) => t.insert({ id, accountId: ALICE, scope, ...(scope === 'key' ? { keyId: id } : {}), policy, updatedAt: clock.toISOString() }));
    /** An API turn through KEY, or (null) one with no key. */
    const api = (agent: Agent, message: string, keyId: string | null = KEY) =>
      agent.runTurn({ accountId: ALICE, message, channel: 'api', ...(keyId ? { keyId } : {}) });

    beforeEach(async () => {
      const opened = await open();
      store = opened.store;
      close = opened.close;
      second = opened.second;
      clock = new Date('2030-01-01T12:00:00.000Z');
    });
    afterEach(async () => {
      await close();
    });

    it('per-transaction cap in USD and per currency: refused with the rule named, nothing runs', async () => {
      await setPolicy(ALICE, { usd: { per_transaction: '50' }, currencies: { KES: { per_transaction: '1000' } } });
      const { agent, fake } = build(store);
      const usd = await api(agent, 'send 60 USD to @amina');
      expect(usd).toMatchObject({ ok: false, reason: 'policy_per_transaction' });
      expect(usd.reply).toContain('60.00 USD is over the limit of 50.00 USD per transaction in your spend policy');
      const kes = await api(agent, 'send 1500 KES to @amina');
      expect(kes).toMatchObject({ ok: false, reason: 'policy_per_transaction' });
      expect(kes.reply).toContain('1500.00 KES');
      expect(fake.calls).toHaveLength(0);
      expect((await api(agent, 'send 40 USD to @amina')).ok).toBe(true);
      expect(fake.calls).toHaveLength(1);
    });

    it('rolling daily cap: committed spends count, a failed one is released, the window rolls', async () => {
      await setPolicy(ALICE, { usd: { daily: '100' } });
      let fail = false;
      const { agent } = build(store, { outcome: (i) => (fail ? { ok: false, action: 'transfer', reason: 'insufficient_balance', message: 'no' } : { ok: true, action: 'transfer', result: i, summary: 'sent' }) });
      expect((await api(agent, 'send 60 USD to @a1234')).ok).toBe(true);
      fail = true;
      expect((await api(agent, 'send 30 USD to @a1234')).reason).toBe('insufficient_balance');
      fail = false;
      // The failed 30 was released: 60 + 40 fits, then nothing more today.
      expect((await api(agent, 'send 40 USD to @a1234')).ok).toBe(true);
      const over = await api(agent, 'send 1 USD to @a1234');
      expect(over).toMatchObject({ ok: false, reason: 'policy_daily' });
      expect(over.reply).toContain('daily cap of 100.00 USD');
      const rows = await store.table(SpendReservations).findMany({ accountId: ALICE });
      expect(rows.map((r) => r.status).sort()).toEqual(['committed', 'committed', 'released']);
      clock = new Date(clock.getTime() + 24 * 3600_000 + 1000);
      expect((await api(agent, 'send 90 USD to @a1234')).ok).toBe(true);
    });

    it('weekly and monthly USD caps and a rolling cap per currency, each over its own window', async () => {
      await setPolicy(ALICE, { usd: { weekly: '100', monthly: '150' }, currencies: { KES: { daily: '2000' } } });
      const { agent } = build(store);
      const day = 24 * 3600_000;
      // Per currency: KES counts only KES asked (1500 + 600 > 2000), USD spending does not use it.
      expect((await api(agent, 'send 1500 KES to @a1234')).ok).toBe(true);
      const kes = await api(agent, 'send 600 KES to @a1234');
      expect(kes).toMatchObject({ ok: false, reason: 'policy_daily' });
      expect(kes.reply).toContain('2000.00 KES');
      expect((await api(agent, 'send 80 USD to @a1234')).ok).toBe(true);
      // The week: 1500 KES (~11.6 USD) + 80 USD leaves under 10 USD.
      const week = await api(agent, 'send 10 USD to @a1234');
      expect(week.reason).toBe('policy_weekly');
      expect(week.reply).toContain('weekly cap of 100.00 USD');
      clock = new Date(clock.getTime() + day + 1000);
      expect((await api(agent, 'send 600 KES to @a1234')).ok).toBe(true); // the KES day rolled
      clock = new Date(clock.getTime() + 7 * day);
      // A new week, but the month still counts everything: about 96 USD of 150 spent.
      expect((await api(agent, 'send 50 USD to @a1234')).ok).toBe(true);
      const month = await api(agent, 'send 10 USD to @a1234');
      expect(month.reason).toBe('policy_monthly');
      expect(month.reply).toContain('monthly cap of 150.00 USD');
      clock = new Date(clock.getTime() + 30 * day);
      expect((await api(agent, 'send 90 USD to @a1234')).ok).toBe(true);
    });

    it('the breaker counts failed payments too, not only refusals', async () => {
      await setPolicy(ALICE, { breaker: { max_failures: 2, window_seconds: 60, cooldown_seconds: 30 } });
      const { agent, fake } = build(store, { outcome: () => ({ ok: false, action: 'transfer', reason: 'insufficient_balance', message: 'no' }) });
      for (let i = 0; i < 2; i++) expect((await api(agent, 'send 1 USD to @a1234')).reason).toBe('insufficient_balance');
      const paused = await api(agent, 'send 1 USD to @a1234');
      expect(paused).toMatchObject({ ok: false, reason: 'policy_breaker', retryAfterSeconds: 30 });
      expect(fake.calls).toHaveLength(2);
    });

    it('caps count test and live spending apart: a test key never uses up the live cap, nor the reverse', async () => {
      await setPolicy(ALICE, { usd: { daily: '100' } });
      const { agent, fake } = build(store);
      // Test mode spends its whole 100 (concurrently too), then is over its cap.
      const test = await Promise.all(Array.from({ length: 12 }, () => api(agent, 'send 10 USD to @a1234', TEST_KEY)));
      expect(test.filter((r) => r.ok)).toHaveLength(10);
      expect(test.filter((r) => !r.ok).every((r) => r.reason === 'policy_daily')).toBe(true);
      // Live still has all of its own 100: through a live key and the person's own door.
      expect((await api(agent, 'send 60 USD to @a1234')).ok).toBe(true);
      expect((await api(agent, 'send 40 USD to @a1234', null)).ok).toBe(true);
      expect((await api(agent, 'send 1 USD to @a1234')).reason).toBe('policy_daily');
      // And live spending did not free or use anything of the test cap.
      expect((await api(agent, 'send 1 USD to @a1234', TEST_KEY)).reason).toBe('policy_daily');
      expect(fake.calls).toHaveLength(12);
      const rows = (await store.table(SpendReservations).findMany({ accountId: ALICE })).filter((r) => r.status === 'committed');
      const sum = (live: boolean) => rows.filter((r) => r.livemode === live).reduce((s, r) => s + BigInt(r.usd), 0n);
      expect([sum(false), sum(true)]).toEqual([100_000_000n, 100_000_000n]);
    });

    it('an outcome not known (the handler throws) stays reserved', async () => {
      await setPolicy(ALICE, { usd: { daily: '100' } });
      const { agent } = build(store, { outcome: () => { throw new Error('chain gone'); } });
      await expect(api(agent, 'send 70 USD to @a1234')).rejects.toThrow('chain gone');
      const { agent: ok } = build(store);
      expect((await api(ok, 'send 40 USD to @a1234')).reason).toBe('policy_daily');
      expect((await api(ok, 'send 30 USD to @a1234')).ok).toBe(true);
    });

    it('50 concurrent turns never together exceed a cap (account and key)', async () => {
      await setPolicy(ALICE, { usd: { daily: '100' } });
      await setPolicy(KEY, { usd: { daily: '70' } }, 'key');
      const { agent, fake } = build(store, { delayMs: 20 });
      const stores = second ? [store, await second()] : [store];
      const agents = stores.map((s, i) => (i === 0 ? agent : build(s, { delayMs: 20 }).agent));
      const results = await Promise.all(Array.from({ length: 50 }, (_, i) => api(agents[i % agents.length]!, 'send 10 USD to @a1234')));
      const done = results.filter((r) => r.ok);
      // The key's 70 binds first.
      expect(done).toHaveLength(7);
      expect(results.filter((r) => !r.ok).every((r) => r.reason === 'policy_daily')).toBe(true);
      // Without the key (the person's chat): up to the account's 100.
      const more = await Promise.all(Array.from({ length: 10 }, () => api(agents[0]!, 'send 10 USD to @a1234', null)));
      expect(more.filter((r) => r.ok)).toHaveLength(3);
      const counted = (await store.table(SpendReservations).findMany({ accountId: ALICE })).filter((r) => r.status !== 'released');
      expect(counted.reduce((s, r) => s + BigInt(r.usd), 0n)).toBe(100_000_000n);
      // Only the admitted ones ran: 7 through the key, 3 more without it.
      if (stores.length === 1) expect(fake.calls.length).toBe(10);
      for (const s of stores.slice(1)) await s.close();
    });

    it('allowlist and blocklist; allowed actions', async () => {
      await setPolicy(ALICE, { allow_recipients: ['@amina', '+254711000111'], block_recipients: ['@amina'] });
      const { agent } = build(store);
      expect((await api(agent, 'send 1 USD to @amina')).reason).toBe('policy_recipient');
      expect((await api(agent, 'send 1 USD to @bobby')).reason).toBe('policy_recipient');
      expect((await api(agent, 'send 1 USD to +254711000111')).ok).toBe(true);
      await setPolicy(KEY, { allowed_actions: ['transfer'] }, 'key');
      const link = await api(agent, 'link 50');
      expect(link).toMatchObject({ ok: false, reason: 'policy_action' });
      expect(link.reply).toContain("this API key's spend policy does not allow creating payment links");
    });

    it('over the approval threshold an API turn is held for the person; the key cannot confirm it', async () => {
      await setPolicy(ALICE, { approval_threshold_usd: '25' });
      const { agent, fake } = build(store);
      expect((await api(agent, 'send 20 USD to @a1234')).ok).toBe(true);
      const held = await api(agent, 'send 30 USD to @a1234');
      expect(held).toMatchObject({ ok: true, reason: 'approval_required', pending: { status: 'pending' } });
      expect(held.reply).toContain('over the approval threshold of 25.00 USD');
      expect(fake.calls).toHaveLength(1);
      const byKey = await agent.confirm(ALICE, held.pending!.id, { channel: 'api' });
      expect(byKey).toMatchObject({ ok: false, reason: 'approval_required' });
      expect(fake.calls).toHaveLength(1);
      const byPerson = await agent.confirm(ALICE, held.pending!.id);
      expect(byPerson.ok).toBe(true);
      expect(fake.calls).toHaveLength(2);
    });

    it('the breaker pauses a key after N refusals, with Retry-After; the person is not paused', async () => {
      await setPolicy(ALICE, { usd: { per_transaction: '5' }, breaker: { max_failures: 3, window_seconds: 60, cooldown_seconds: 120 } });
      const { agent } = build(store);
      for (let i = 0; i < 3; i++) expect((await api(agent, 'send 9 USD to @a1234')).reason).toBe('policy_per_transaction');
      const paused = await api(agent, 'send 1 USD to @a1234');
      expect(paused).toMatchObject({ ok: false, reason: 'policy_breaker', retryAfterSeconds: 120 });
      expect(paused.reply).toContain('too many refused or failed payments');
      expect((await api(agent, 'send 1 USD to @a1234', null)).ok).toBe(true);
      clock = new Date(clock.getTime() + 121_000);
      expect((await api(agent, 'send 1 USD to @a1234')).ok).toBe(true);
    });
  });
}
