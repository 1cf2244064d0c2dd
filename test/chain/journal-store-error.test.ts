/**
 * A store error while the relay journal is written (h10relay's pool timeout under a burst) is not
 * a refusal: the entry may be in the journal (a commit cut off) and its replay may broadcast it,
 * so the move is `pending` (reconciled from the chain later), never `failed` ("nothing moved").
 * Real anvil; the journal is the store's, with one write failing as the PostgreSQL pool does.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseUnits, type Address } from 'viem';
import { createChain } from '../../src/chain/boot.js';
import type { ChainService } from '../../src/chain/chain.js';
import { storeRelayJournal, type RelayJournal } from '../../src/chain/relay-journal.js';
import { LowdbStore } from '../../src/store/index.js';
import { moveOnce } from '../../src/wallet/custodial-move.js';
import { tempDir } from './helpers.js';

describe('relay journal write fails with a store error', () => {
  let chain: ChainService;
  let cleanup: () => Promise<void>;
  let failNext = false;

  beforeAll(async () => {
    const t = await tempDir('chain-journal-err-');
    cleanup = t.cleanup;
    const inner = storeRelayJournal(await LowdbStore.open(t.dir));
    const journal: RelayJournal = {
      ...inner,
      async record(entry, also) {
        if (failNext) {
          failNext = false;
          throw new Error('timeout exceeded when trying to connect');
        }
        return inner.record(entry, also);
      },
    };
    chain = await createChain({ dataDir: t.dir, journal });
  });
  afterAll(async () => {
    await chain?.close();
    await cleanup?.();
  });

  it('answers pending, not failed; the same move settles once the store answers again', async () => {
    const from = chain.custodialAddress(3);
    const to = '0x00000000000000000000000000000000000e7707' as Address;
    expect((await chain.faucet(from, parseUnits('5', 6))).ok).toBe(true);
    const req = { fromIndex: 3, to, value: 1_000_000n, kind: 'transfer', id: 'tr_journal_err' };

    failNext = true;
    const first = await moveOnce(chain, req);
    expect(first).toMatchObject({ status: 'pending' });
    expect(first.status === 'pending' && first.message).toContain('timeout exceeded when trying to connect');
    expect(await chain.balanceOf(to)).toBe(0n);

    // The reconcile path calls the same move again (same nonce): it settles, once.
    const again = await moveOnce(chain, req);
    expect(again).toMatchObject({ status: 'settled' });
    expect(await chain.balanceOf(to)).toBe(1_000_000n);
  });
});
