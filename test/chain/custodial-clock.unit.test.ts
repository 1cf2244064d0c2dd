import { afterEach, describe, expect, it, vi } from 'vitest';
import { recoverTypedDataAddress, type Address } from 'viem';
import { buildTransferTypedData } from '../../src/chain/authorization.js';
import { CUSTODIAL_CLOCK_MAX_AGE_MS, custodialValidity, signCustodialAuthorization, type CustodialContext } from '../../src/chain/custodial.js';
import { LatestBlockCache, type NodeClient } from '../../src/chain/node-reads.js';
import { CustodialKeyring } from '../../src/chain/wallet-secrets.js';

/**
 * Issue 23, tenth round: a custodial signature dates itself from a block read within
 * CUSTODIAL_CLOCK_MAX_AGE_MS instead of a node round trip per signature (the latest-block cache
 * lasts one 20 ms poll on anvil, so every turn's two signatures waited for an
 * `eth_getBlockByNumber`). Counted at a fake node; time moved with fake timers, never waited.
 */
const MNEMONIC = 'test test test test test test test test test test test junk';
const domain = { name: 'USD Coin', version: '2', chainId: 31337, verifyingContract: '0x00000000000000000000000000000000000000c0' as Address };
const to = '0x00000000000000000000000000000000000000d1' as Address;

function world(blockTimestamp: bigint) {
  const reads = { n: 0 };
  const block = { timestamp: blockTimestamp, number: 10n };
  const client = {
    getBlock: async () => {
      reads.n++;
      return { number: block.number, timestamp: block.timestamp };
    },
  } as unknown as NodeClient;
  const ctx: CustodialContext = { custodial: new CustodialKeyring(MNEMONIC), eip712Domain: domain, latest: new LatestBlockCache(client, 20) };
  return { reads, block, ctx };
}

const sign = (ctx: CustodialContext, nonce: string) =>
  signCustodialAuthorization(ctx, { fromIndex: 3, to, value: 5n, nonce: `0x${nonce.padStart(64, '0')}` });

afterEach(() => {
  vi.useRealTimers();
});

describe('custodial signatures and the chain clock', () => {
  it('a turn a poll later signs both authorizations without reading the chain again', async () => {
    vi.useFakeTimers({ now: new Date('2026-11-29T10:00:00Z'), toFake: ['Date'] });
    const wall = BigInt(Date.parse('2026-11-29T10:00:00Z') / 1000);
    const w = world(wall - 30n);
    expect((await sign(w.ctx, '1')).ok).toBe(true);
    expect(w.reads.n).toBe(1);
    // The next turn, 100 ms later: past the 20 ms poll, within the clock's age.
    vi.setSystemTime(Date.now() + 100);
    const [principal, fee] = await Promise.all([sign(w.ctx, '2'), sign(w.ctx, '3')]);
    expect(w.reads.n).toBe(1);
    if (!principal.ok || !fee.ok) throw new Error('not signed');
    // Still a good signature by the custodial key, over the window dated from the block read.
    const signer = await recoverTypedDataAddress({ ...buildTransferTypedData(domain, principal.auth).typedData, signature: principal.signature });
    expect(signer).toBe(principal.auth.from);
    expect(principal.auth.validAfter).toBe(wall - 30n - 60n);
    // Past the clock's age: read again.
    vi.setSystemTime(Date.now() + CUSTODIAL_CLOCK_MAX_AGE_MS);
    expect((await sign(w.ctx, '4')).ok).toBe(true);
    expect(w.reads.n).toBe(2);
  });

  it('an older block still dates the window safely: validAfter from the block, validBefore from chain time now', async () => {
    vi.useFakeTimers({ now: new Date('2026-11-29T10:00:00Z'), toFake: ['Date'] });
    const wall = BigInt(Date.parse('2026-11-29T10:00:00Z') / 1000);
    // A chain running 2 h ahead of the wall clock (anvil's time moved forward).
    const w = world(wall + 7200n);
    expect((await sign(w.ctx, '1')).ok).toBe(true);
    w.block.timestamp = wall + 7200n + 4n; // the chain moved on meanwhile, unread
    vi.setSystemTime(Date.now() + 4_000);
    const r = await sign(w.ctx, '2');
    if (!r.ok) throw new Error('not signed');
    expect(w.reads.n).toBe(1);
    // Never later than any block to come (the block read is older than them all).
    expect(r.auth.validAfter).toBe(wall + 7200n - 60n);
    // The full hour from chain time now (the block's time plus its age), not from the wall clock.
    expect(r.auth.validBefore).toBe(wall + 7200n + 4n + 3600n);
  });

  it('custodialValidity: the block age moves validBefore, never validAfter', () => {
    expect(custodialValidity(1_000_000n, 900_000n, 5n)).toEqual({ validAfter: 999_940n, validBefore: 1_003_605n });
    expect(custodialValidity(1_000_000n, 2_000_000n, 5n)).toEqual({ validAfter: 999_940n, validBefore: 2_003_600n });
    expect(custodialValidity(1_000_000n, 900_000n)).toEqual({ validAfter: 999_940n, validBefore: 1_003_600n });
  });
});
