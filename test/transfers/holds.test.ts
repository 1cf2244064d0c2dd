import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseUnits, type Address } from 'viem';
import type { ChainService } from '../../src/chain/chain.js';
import { LowdbStore } from '../../src/store/index.js';
import { SpendUsageTable } from '../../src/limits/limits.js';
import { dropHold, holdKey, settleHold, withWalletFunds, WalletHoldsTable, type WalletFunds } from '../../src/wallet/holds.js';
import { tempDir } from '../helpers/service.js';

const usdc = (s: string) => parseUnits(s, 6);
const fmt = (v: bigint) => `${v} base units`;

/** A chain whose balance the test sets. */
function fakeChain(start: bigint, chainId?: number) {
  const state: { balance: bigint; down: boolean; afterRead?: (() => Promise<void>) | undefined } = { balance: start, down: false };
  const chain = {
    chainId,
    // `afterRead` runs between the read and its answer: what happens while it travels back.
    balanceOf: async () => {
      if (state.down) throw new Error('rpc down');
      const read = state.balance;
      await state.afterRead?.();
      return read;
    },
  } as unknown as ChainService;
  return { chain, state };
}

let n = 0;
const wallet = () => `0x${(++n).toString(16).padStart(40, '0')}` as Address;

describe('wallet holds', () => {
  let store: LowdbStore;
  beforeAll(async () => {
    store = await LowdbStore.open(await tempDir('sp-holds-'));
  });
  afterAll(() => store.close());

  const reserve = (funds: WalletFunds, key: string, amount: bigint, accountId = 'acct_h') =>
    funds.reserve({ key, amount, limit: { account: { id: accountId }, amount, now: new Date() }, fmt });

  it('counts moves in flight: concurrent reservations never exceed the balance', async () => {
    const addr = wallet();
    const { chain } = fakeChain(usdc('100'));
    const results = await Promise.all(
      [1, 2, 3, 4, 5].map((i) => withWalletFunds(store, chain, addr, (_tx, funds) => reserve(funds, holdKey('transfer', `t${i}`), usdc('30')))),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(3);
    const refused = results.filter((r) => !r.ok);
    expect(refused.map((r) => !r.ok && r.reason)).toEqual(['insufficient_balance', 'insufficient_balance']);
    expect(!refused[0]!.ok && refused[0]!.message).toContain('10000000 base units available');
    const row = await store.table(WalletHoldsTable).get(addr.toLowerCase());
    expect(Object.values(row!.holds).map(BigInt).reduce((a, b) => a + b)).toBe(usdc('90'));
  });

  it('a balance read taken before a settlement cannot combine with its released hold to overspend', async () => {
    const addr = wallet();
    const { chain, state } = fakeChain(usdc('100'));
    expect((await withWalletFunds(store, chain, addr, (_tx, funds) => reserve(funds, 'transfer:a', usdc('60')))).ok).toBe(true);

    // B reads 100 (A not mined yet); then A is mined and its outcome recorded, releasing its
    // hold, before B's transaction runs. 100 - 0 held would let B's 60 through: an overspend.
    state.afterRead = async () => {
      state.afterRead = undefined;
      state.balance = usdc('40');
      await store.transaction((tx) => settleHold(tx, addr, 'transfer:a', usdc('60')));
    };
    const snapshots: bigint[] = [];
    const res = await withWalletFunds(store, chain, addr, (_tx, funds) => {
      snapshots.push(funds.snapshot.balance);
      return reserve(funds, 'transfer:b', usdc('60'));
    });
    expect(!res.ok && res.reason).toBe('insufficient_balance');
    // The stale read was recognised and replaced by a fresh one, which still refuses.
    expect(snapshots).toEqual([usdc('100'), usdc('40')]);
    const row = await store.table(WalletHoldsTable).get(addr.toLowerCase());
    expect(row!.holds).toEqual({});
    expect(row!.moved).toBe(usdc('60').toString());
  });

  it('retries with a fresh read when a settlement since the read is all that made it look short', async () => {
    const addr = wallet();
    const { chain, state } = fakeChain(usdc('100'));
    expect((await withWalletFunds(store, chain, addr, (_tx, funds) => reserve(funds, 'transfer:a', usdc('60')))).ok).toBe(true);
    // A is mined before B reads (40) and recorded just after: the first check counts A twice
    // (40 - 60 moved since the read), so B reads again and fits.
    state.balance = usdc('40');
    state.afterRead = async () => {
      state.afterRead = undefined;
      await store.transaction((tx) => settleHold(tx, addr, 'transfer:a', usdc('60')));
    };
    const snapshots: bigint[] = [];
    const b = await withWalletFunds(store, chain, addr, (_tx, funds) => {
      snapshots.push(funds.snapshot.balance);
      return reserve(funds, 'transfer:b', usdc('30'));
    });
    expect(b.ok).toBe(true);
    expect(snapshots).toHaveLength(2);
    const c = await withWalletFunds(store, chain, addr, (_tx, funds) => reserve(funds, 'transfer:c', usdc('30')));
    expect(!c.ok && c.reason).toBe('insufficient_balance');
  });

  it('partial settlement keeps the rest held; a drop frees it without counting it as moved', async () => {
    const addr = wallet();
    const { chain } = fakeChain(usdc('50'));
    expect((await withWalletFunds(store, chain, addr, (_tx, funds) => reserve(funds, 'transfer:p', usdc('20.1')))).ok).toBe(true);
    await store.transaction((tx) => settleHold(tx, addr, 'transfer:p', usdc('20')));
    let row = await store.table(WalletHoldsTable).get(addr.toLowerCase());
    expect(row!.holds).toEqual({ 'transfer:p': usdc('0.1').toString() });
    expect(row!.moved).toBe(usdc('20').toString());
    await store.transaction((tx) => dropHold(tx, addr, 'transfer:p'));
    // Releasing again (or a hold that never existed) changes nothing.
    await store.transaction((tx) => dropHold(tx, addr, 'transfer:p'));
    await store.transaction((tx) => settleHold(tx, addr, 'bill:unknown', usdc('5')));
    row = await store.table(WalletHoldsTable).get(addr.toLowerCase());
    expect(row!.holds).toEqual({});
    expect(row!.moved).toBe(usdc('20').toString());
  });

  it('a hold counts against the chain its money leaves on: a wallet with a balance on two chains (live and test mode) spends each', async () => {
    const addr = wallet();
    const live = fakeChain(usdc('100'), 8453).chain;
    const test = fakeChain(usdc('100'), 31337).chain;
    expect((await withWalletFunds(store, live, addr, (_tx, funds) => reserve(funds, 'transfer:live', usdc('80')))).ok).toBe(true);
    // The other chain's balance is untouched by it...
    expect((await withWalletFunds(store, test, addr, (_tx, funds) => reserve(funds, 'transfer:test', usdc('80')))).ok).toBe(true);
    // ...while each chain still refuses what its own holds leave no room for.
    const overLive = await withWalletFunds(store, live, addr, (_tx, funds) => reserve(funds, 'transfer:live2', usdc('30')));
    expect(!overLive.ok && overLive.reason).toBe('insufficient_balance');
    const overTest = await withWalletFunds(store, test, addr, (_tx, funds) => reserve(funds, 'transfer:test2', usdc('30')));
    expect(!overTest.ok && overTest.reason).toBe('insufficient_balance');
    // Money that left on one chain is not counted again on the other.
    await store.transaction((tx) => settleHold(tx, addr, 'transfer:live', usdc('80')));
    expect((await withWalletFunds(store, test, addr, (_tx, funds) => reserve(funds, 'transfer:test3', usdc('20')))).ok).toBe(true);
    const row = await store.table(WalletHoldsTable).get(addr.toLowerCase());
    expect(row!.moved).toBe(usdc('80').toString());
    expect(row!.holds).toEqual({ 'transfer:test': usdc('80').toString(), 'transfer:test3': usdc('20').toString() });
  });

  it('a hold written before holds were per chain still counts against every chain until it is released', async () => {
    const addr = wallet();
    const at = new Date().toISOString();
    await store.transaction((tx) => tx.table(WalletHoldsTable).insert({ id: addr.toLowerCase(), holds: { 'bill:old': usdc('90').toString() }, moved: '0', version: 1, updatedAt: at }));
    for (const chainId of [8453, 31337]) {
      const r = await withWalletFunds(store, fakeChain(usdc('100'), chainId).chain, addr, (_tx, funds) => reserve(funds, `transfer:c${chainId}`, usdc('20')));
      expect(!r.ok && r.reason).toBe('insufficient_balance');
    }
    await store.transaction((tx) => dropHold(tx, addr, 'bill:old'));
    expect((await withWalletFunds(store, fakeChain(usdc('100'), 31337).chain, addr, (_tx, funds) => reserve(funds, 'transfer:after', usdc('20')))).ok).toBe(true);
  });

  it('writes nothing when the limit refuses, and reports the chain being down', async () => {
    const addr = wallet();
    const { chain, state } = fakeChain(usdc('50'));
    const limited = await withWalletFunds(store, chain, addr, (_tx, funds) =>
      funds.reserve({ key: 'stake:x', amount: usdc('10'), limit: { account: { id: 'acct_lim', limits: { perTransfer: usdc('10').toString(), daily: usdc('5').toString() } }, amount: usdc('10'), now: new Date() }, fmt }),
    );
    expect(!limited.ok && limited.reason).toBe('over_limit');
    expect(await store.table(WalletHoldsTable).get(addr.toLowerCase())).toBeUndefined();
    expect(await store.table(SpendUsageTable).count({ accountId: 'acct_lim' })).toBe(0);
    state.down = true;
    const down = await withWalletFunds(store, chain, addr, (_tx, funds) => reserve(funds, 'stake:y', usdc('1')));
    expect(!down.ok && down.reason).toBe('chain_unavailable');
  });
});
