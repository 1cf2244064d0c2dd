import { describe, expect, it } from 'vitest';
import { broadcastFence, type RelayAttempt, type RelayAttempts } from '../../src/chain/owned-relay.js';
import { AttemptLedger } from '../../src/settlement/attempts.js';
import type { Store } from '../../src/store/index.js';

// The owner's broadcast fence reads its attempt only near the deadline (docs/settlement.md, "The
// fence's read, only near the deadline"): well inside the window on a fresh measurement of the
// store's clock, nobody can have taken the attempt over, so the read is skipped (one statement
// fewer per checkout settle and per relayed move on PostgreSQL).

const T0 = Date.parse('2026-11-29T12:00:00Z');
const row: Pick<RelayAttempt, 'id' | 'generation' | 'startedAt' | 'deadlineAt'> = {
  id: 'a1',
  generation: 3,
  startedAt: new Date(T0).toISOString(),
  deadlineAt: new Date(T0 + 60_000).toISOString(),
};
// until = deadline less min(2 s, span / 4) = T0 + 58 s.

function attempts(opts: { local: () => number; measured: () => number | undefined; stored: Partial<RelayAttempt> | undefined; storeNow: () => number }) {
  let reads = 0;
  const port = {
    owner: { id: 'i1' },
    running: new Set<string>(),
    clock: opts.local,
    measuredNow: opts.measured,
    async readClocked() {
      reads++;
      return { row: opts.stored as RelayAttempt | undefined, now: opts.storeNow() };
    },
  } as unknown as RelayAttempts;
  return { port, reads: () => reads };
}

describe('broadcast fence: the read only near the deadline', () => {
  it('well inside the window on a fresh measurement: open without a read, and the last check still closes on time', async () => {
    let local = T0 + 1_000;
    const a = attempts({ local: () => local, measured: () => local + 500, stored: undefined, storeNow: () => local + 500 });
    const fence = broadcastFence(a.port, row);
    expect(await fence.check()).toBe(true);
    expect(a.reads()).toBe(0);
    expect(fence.open()).toBe(true);
    // The store's clock runs 500 ms ahead: the window closes at local T0 + 57.5 s.
    local = T0 + 57_400;
    expect(fence.open()).toBe(true);
    local = T0 + 57_600;
    expect(fence.open()).toBe(false);
  });

  it('no fresh measurement of the store clock: reads, and a take-over found there closes the fence', async () => {
    const a = attempts({ local: () => T0 + 1_000, measured: () => undefined, stored: { state: 'open', generation: 4 }, storeNow: () => T0 + 1_000 });
    const fence = broadcastFence(a.port, row);
    expect(await fence.check()).toBe(false);
    expect(a.reads()).toBe(1);
  });

  it('past the window on the measured time (a stalled owner): reads, and the store decides', async () => {
    const a = attempts({ local: () => T0 + 59_000, measured: () => T0 + 59_000, stored: { state: 'open', generation: 3 }, storeNow: () => T0 + 59_000 });
    const fence = broadcastFence(a.port, row);
    expect(await fence.check()).toBe(false);
    expect(a.reads()).toBe(1);
    expect(fence.open()).toBe(false);
  });
});

describe('AttemptLedger.measuredNow', () => {
  it('gives the store time only from a measurement at most a minute old, never behind the store clock', async () => {
    let local = T0;
    const storeAhead = 2_000;
    const store = { getWithClock: async () => ({ row: undefined, now: local + storeAhead }) } as unknown as Store;
    const ledger = new AttemptLedger(store, { id: 'i1', isLive: async () => true }, 60_000, undefined, () => local);
    expect(ledger.measuredNow()).toBeUndefined();
    await ledger.readClocked('');
    expect(ledger.measuredNow()).toBe(T0 + 2_000);
    local = T0 + 60_000;
    expect(ledger.measuredNow()).toBe(T0 + 62_000);
    local = T0 + 60_001;
    expect(ledger.measuredNow()).toBeUndefined();
  });

  it('a store without a shared clock (one process): its clock is this process\'s', () => {
    const ledger = new AttemptLedger({} as Store, { id: 'i1', isLive: async () => true }, 60_000, undefined, () => T0);
    expect(ledger.measuredNow()).toBe(T0);
  });
});
