import { describe, expect, it } from 'vitest';
import type { Address } from 'viem';
import { relayOnce } from '../../src/chain/relay.js';
import { SendGroups } from '../../src/chain/send-groups.js';
import { FakeChain } from '../helpers/fake-chain.js';

// Unit layer: settlements group-committed into one batch-relay transaction (issue 23, point 2),
// over the in-memory chain port. Each gets its own truthful outcome from the receipt.
const shop = '0x0000000000000000000000000000000000005409' as Address;

async function sign(chain: FakeChain, fromIndex: number, value: bigint, id: string) {
  const s = await chain.signCustodialAuthorization({ fromIndex, to: shop, value, nonce: chain.nonceFor('unit', id) });
  if (!s.ok) throw new Error('could not sign');
  return s;
}

describe('relayOnce through grouped sends', () => {
  it('mixed good and bad authorizations in one batch: each its own outcome, the bad ones never fail the good', async () => {
    const chain = new FakeChain();
    chain.groupSends = true;
    const [w, x, y, z] = [5, 2, 3, 4].map((i) => chain.custodialAddress(i)) as [Address, Address, Address, Address];
    chain.fund(w, 1_000n);
    chain.fund(x, 10_000n); // enough for one of its two authorizations only
    chain.fund(y, 5_000n);
    chain.fund(z, 7_000n);
    const first = await sign(chain, 5, 1_000n, 'w');
    const x1 = await sign(chain, 2, 10_000n, 'x1');
    const x2 = await sign(chain, 2, 10_000n, 'x2');
    const y1 = await sign(chain, 3, 5_000n, 'y1');
    const z1 = await sign(chain, 4, 7_000n, 'z1');
    // z1 was already used by an earlier transaction (a send before a crash).
    chain.groupSends = false;
    const earlier = await relayOnce(chain, z1.auth, z1.signature);
    expect(earlier.status).toBe('settled');
    chain.groupSends = true;
    const sentBefore = chain.sent.length;

    // The first leaves alone at once; the four that arrive while it is in flight go together.
    const [ow, ox1, ox2, oy1, oz1] = await Promise.all([first, x1, x2, y1, z1].map((s) => relayOnce(chain, s.auth, s.signature)));
    const batch = chain.sent[sentBefore + 1]!;
    expect([...chain.usedIn.keys()]).toEqual([batch]);
    expect(ow).toEqual({ status: 'settled', txHash: chain.sent[sentBefore] });
    expect(ox1).toEqual({ status: 'settled', txHash: batch });
    expect(oy1).toEqual({ status: 'settled', txHash: batch });
    // Spent by x1 in the same batch: skipped there, then alone it names the reason; nothing moved.
    expect(ox2).toMatchObject({ status: 'failed', reason: 'insufficient_balance' });
    // Carried by the batch but used before: settled by the transaction that did move it.
    expect(oz1).toEqual({ status: 'settled', txHash: earlier.status === 'settled' ? earlier.txHash : undefined });
    expect(chain.usedIn.get(batch)).toHaveLength(2);
    expect(chain.balance(shop)).toBe(1_000n + 10_000n + 5_000n + 7_000n);
    expect(chain.balance(x)).toBe(0n);
    expect(chain.balance(y)).toBe(0n);
    // Two transactions for five settles (the failed retry sent nothing: its check refused it).
    expect(chain.sent.length - sentBefore).toBe(2);
  });

  it('a batch transaction that succeeded without an authorization never answers it settled', async () => {
    const chain = new FakeChain();
    chain.groupSends = true;
    const a = chain.custodialAddress(6);
    chain.fund(a, 100n);
    const blocker = await sign(chain, 7, 0n, 'blocker');
    const good = await sign(chain, 6, 100n, 'good');
    const spent = await sign(chain, 6, 100n, 'spent');
    const outs = await Promise.all([blocker, good, spent].map((s) => relayOnce(chain, s.auth, s.signature)));
    expect(outs.map((o) => o.status)).toEqual(['settled', 'settled', 'failed']);
    expect(chain.balance(shop)).toBe(100n);
  });
});

describe('a transfer and its fee as one batched member (issue 23, seventh round)', () => {
  it('is settled only when the receipt has both authorizations\' logs; with the principal\'s alone it is sent again, pair and all', async () => {
    const fees = '0x000000000000000000000000000000000000540a' as Address;
    /** A batch-relay receipt naming the principal but not its fee: the pair is not known to have moved there. */
    class HalfLogged extends FakeChain {
      override submitTransfers(items: Parameters<FakeChain['submitTransfers']>[0], opts?: Parameters<FakeChain['submitTransfers']>[1]) {
        if (items.length < 2 || opts?.alone) return super.submitTransfers(items, opts);
        const txHash = `0x${'ab'.repeat(32)}` as const;
        this.sent.push(txHash);
        this.usedIn.set(txHash, [`${items[0]!.auth.from.toLowerCase()}:${items[0]!.auth.nonce.toLowerCase()}`]);
        this.receipts.set(txHash, 'success'); // the relay's transaction itself did not revert
        return Promise.resolve({ ok: true as const, txHash, batched: true as const });
      }
    }
    const chain = new HalfLogged();
    chain.fund(chain.custodialAddress(8), 1_000n);
    const principal = await sign(chain, 8, 900n, 'pair');
    const fee = await chain.signCustodialAuthorization({ fromIndex: 8, to: fees, value: 100n, nonce: chain.nonceFor('unit-fee', 'pair') });
    if (!fee.ok) throw new Error('could not sign');
    const out = await relayOnce(chain, principal.auth, principal.signature, { batchWith: [{ auth: fee.auth, signature: fee.signature }] });
    // Settled by the pair's own transaction sent alone, not by the batch that named one half.
    expect(out.status).toBe('settled');
    expect(chain.sent).toHaveLength(2);
    expect(out).toEqual({ status: 'settled', txHash: chain.sent[1] });
    expect(chain.balance(shop)).toBe(900n);
    expect(chain.balance(fees)).toBe(100n);
  });
});

describe('SendGroups', () => {
  it('sends at once when idle, then everything that arrived while in flight as one group', async () => {
    const groups: number[][] = [];
    let release: () => void = () => {};
    const g = new SendGroups<number>(async (group) => {
      groups.push([...group]);
      if (groups.length === 1) await new Promise<void>((r) => (release = r));
      return { ok: true, txHash: `0x${String(groups.length).padStart(64, '0')}` };
    }, 3);
    const all = [1, 2, 3, 4, 5].map((n) => g.submit(n));
    await new Promise((r) => setImmediate(r));
    expect(groups).toEqual([[1]]);
    release();
    const results = await Promise.all(all);
    expect(groups).toEqual([[1], [2, 3, 4], [5]]);
    expect(results.map((r) => (r.ok ? Number(r.txHash) : 0))).toEqual([1, 2, 2, 2, 3]);
  });
});
