import { describe, expect, it } from 'vitest';
import pino from 'pino';
import { LowdbStore } from '../../src/store/index.js';
import { AuthCaptures, type AuthCaptureRecord } from '../../src/x402/auth-capture/records.js';
import { ManualCaptureSessions, type ManualCaptureOptions } from '../../src/x402/auth-capture/manual-capture-sessions.js';

/** The expiry sweep over a fake escrow: what it reads and closes, however many rows come first. */
function sweepOver(collected: Set<string>, payments: { get: (id: string) => Promise<unknown> } = { get: async () => undefined }, receipts: Record<string, string> = {}) {
  const store = LowdbStore.inMemory();
  const ac = {
    port: {
      paymentState: async (id: string) => ({ collected: collected.has(id), capturable: 0n, refundable: 0n }),
      waitForReceipt: async (h: string) => ({ status: receipts[h] ?? 'timeout' }),
    },
    // This sweep serves the live chain: test-mode rows are the other chain's.
    serves: (rec: Pick<AuthCaptureRecord, 'livemode'>) => rec.livemode !== false,
  };
  const opts = {
    ac,
    store,
    payments,
    record: async () => undefined,
    logger: pino({ level: 'silent' }),
    holdMs: 60_000,
    refundWindowMs: 60_000,
  } as unknown as ManualCaptureOptions;
  return { store, sessions: new ManualCaptureSessions(opts) };
}

const NOW = Date.parse('2026-11-28T12:00:00Z');
const at = (minutes: number) => new Date(NOW + minutes * 60_000).toISOString();
const row = (id: string, state: AuthCaptureRecord['state'], deadline: string, livemode?: boolean): AuthCaptureRecord => ({
  id,
  accountId: 'acct_1',
  payer: '0x0000000000000000000000000000000000000001',
  paymentInfo: {},
  state,
  captureDeadline: deadline,
  createdAt: at(-60),
  updatedAt: at(-60),
  ...(livemode === undefined ? {} : { livemode }),
});

describe('auth-capture expiry sweep', () => {
  it('reaches a due hold behind more than a page of holds it cannot close (the other chain\'s)', async () => {
    const { store, sessions } = sweepOver(new Set());
    await store.write(AuthCaptures, async (t) => {
      for (let i = 0; i < 150; i++) await t.insert(row(`other_${String(i).padStart(3, '0')}`, 'open', at(-30), false));
      await t.insert(row('mine', 'open', at(-1)));
    });
    await sessions.sweep(NOW);
    expect((await store.table(AuthCaptures).get('mine'))?.state).toBe('closed');
    // The other chain's holds are left for its own sweep.
    expect((await store.table(AuthCaptures).get('other_000'))?.state).toBe('open');
  });

  it('recovers an interrupted authorize behind more than a page of authorizes that never landed', async () => {
    const { store, sessions } = sweepOver(new Set(['landed']));
    await store.write(AuthCaptures, async (t) => {
      for (let i = 0; i < 150; i++) await t.insert(row(`stuck_${String(i).padStart(3, '0')}`, 'authorizing', at(5)));
      await t.insert(row('landed', 'authorizing', at(10)));
    });
    await sessions.sweep(NOW);
    expect((await store.table(AuthCaptures).get('landed'))?.state).toBe('open');
    // Not landed and still before the deadline: may still land, so it is kept.
    expect((await store.table(AuthCaptures).get('stuck_000'))?.state).toBe('authorizing');
  });

  it('closes an authorize that never landed once its deadline has passed (the escrow refuses it then)', async () => {
    const { store, sessions } = sweepOver(new Set());
    await store.write(AuthCaptures, (t) => t.insert(row('never', 'authorizing', at(-1))));
    await sessions.sweep(NOW);
    expect((await store.table(AuthCaptures).get('never'))?.state).toBe('closed');
  });

  it('an authorize found on the escrow is recorded `open` only after its payment was told (a stop in between is retried)', async () => {
    const stopped = new Error('the process stopped');
    const { store, sessions } = sweepOver(new Set(['landed']), { get: async () => { throw stopped; } });
    await store.write(AuthCaptures, (t) => t.insert({ ...row('landed', 'authorizing', at(10)), paymentId: 'pay_1' }));
    await expect(sessions.sweep(NOW)).rejects.toBe(stopped);
    expect((await store.table(AuthCaptures).get('landed'))?.state).toBe('authorizing');
  });

  it('a capture sent before a crash: kept while its receipt is not in, forgotten when it reverted (nothing applied)', async () => {
    const { store, sessions } = sweepOver(new Set(['a', 'b']), { get: async () => undefined }, { '0xreverted': 'reverted' });
    await store.write(AuthCaptures, async (t) => {
      await t.insert({ ...row('a', 'open', at(10)), paymentId: 'pay_a', inFlight: { step: 'capture', amount: '5', txHash: '0xpending' } });
      // A full capture marks its record closed just before the payment is told.
      await t.insert({ ...row('b', 'closed', at(10)), paymentId: 'pay_b', inFlight: { step: 'capture', amount: '5', txHash: '0xreverted' } });
    });
    expect(await sessions.sweep(NOW)).toBe(0);
    expect((await store.table(AuthCaptures).get('a'))?.inFlight).toMatchObject({ txHash: '0xpending' });
    expect((await store.table(AuthCaptures).get('b'))?.inFlight).toBeUndefined();
  });
});
