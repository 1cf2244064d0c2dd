import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseUnits } from 'viem';
import { LowdbStore } from '../../src/store/index.js';
import { tempDir } from '../helpers/service.js';
import { DEFAULT_LIMITS, limitsFor, releaseSpend, reserveSpend, SpendUsageTable, utcDay } from '../../src/limits/limits.js';

const usdc = (s: string) => parseUnits(s, 6);
const fmt = (v: bigint) => `${v} base units`;

describe('spending limits', () => {
  let store: LowdbStore;
  beforeAll(async () => {
    store = await LowdbStore.open(await tempDir('sp-limits-'));
  });
  afterAll(() => store.close());

  it('defaults to 2,000 USDC per payment and 10,000 USDC a day; account.limits overrides', () => {
    expect(DEFAULT_LIMITS).toEqual({ perTransfer: usdc('2000'), daily: usdc('10000') });
    expect(limitsFor({})).toEqual(DEFAULT_LIMITS);
    expect(limitsFor({ limits: { perTransfer: '5000000', daily: '7000000' } })).toEqual({ perTransfer: 5_000_000n, daily: 7_000_000n });
    // A malformed override never loosens anything: the default applies.
    expect(limitsFor({ limits: { perTransfer: '1e9', daily: '-1' } })).toEqual(DEFAULT_LIMITS);
  });

  it('refuses over the per-payment limit without reserving', async () => {
    const account = { id: 'acct_per' };
    const r = await store.transaction((tx) => reserveSpend(tx, account, usdc('2000.000001'), fmt));
    expect(r.ok).toBe(false);
    expect(!r.ok && r.reason).toBe('over_limit');
    expect(await store.table(SpendUsageTable).count({ accountId: 'acct_per' })).toBe(0);
    const exact = await store.transaction((tx) => reserveSpend(tx, account, usdc('2000'), fmt));
    expect(exact.ok).toBe(true);
  });

  it('reserves the day total atomically and releases on failure', async () => {
    const account = { id: 'acct_day', limits: { perTransfer: usdc('60').toString(), daily: usdc('100').toString() } };
    const now = new Date('2026-11-22T10:00:00Z');
    const a = await store.transaction((tx) => reserveSpend(tx, account, usdc('60'), fmt, now));
    expect(a.ok).toBe(true);
    const b = await store.transaction((tx) => reserveSpend(tx, account, usdc('40.000001'), fmt, now));
    expect(!b.ok && b.reason).toBe('over_limit');
    expect(!b.ok && b.message).toContain('daily limit');
    const c = await store.transaction((tx) => reserveSpend(tx, account, usdc('40'), fmt, now));
    expect(c.ok).toBe(true);
    expect((await store.table(SpendUsageTable).get(`acct_day:${utcDay(now)}`))?.used).toBe(usdc('100').toString());

    // The 40 failed on-chain: it is given back, and 40 more fits again.
    if (c.ok) await store.transaction((tx) => releaseSpend(tx, 'acct_day', c.reservation));
    const d = await store.transaction((tx) => reserveSpend(tx, account, usdc('40'), fmt, now));
    expect(d.ok).toBe(true);

    // A new UTC day starts from zero.
    const tomorrow = new Date('2026-11-23T00:00:01Z');
    const e = await store.transaction((tx) => reserveSpend(tx, account, usdc('60'), fmt, tomorrow));
    expect(e.ok).toBe(true);
  });

  it('concurrent reservations never exceed the daily limit', async () => {
    const account = { id: 'acct_race', limits: { perTransfer: usdc('10').toString(), daily: usdc('55').toString() } };
    const results = await Promise.all(
      Array.from({ length: 10 }, () => store.transaction((tx) => reserveSpend(tx, account, usdc('10'), fmt))),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(5);
    expect((await store.table(SpendUsageTable).findOne({ accountId: 'acct_race' }))?.used).toBe(usdc('50').toString());
  });
});
