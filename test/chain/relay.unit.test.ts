import { describe, expect, it } from 'vitest';
import type { Address } from 'viem';
import { relayOnce } from '../../src/chain/relay.js';
import { moveOnce } from '../../src/wallet/custodial-move.js';
import { FakeChain } from '../helpers/fake-chain.js';

// Unit layer: the one relay outcome over the in-memory chain port (milliseconds, no anvil).
const shop = '0x0000000000000000000000000000000000005409' as Address;

async function signed(chain: FakeChain, id: string, value = 5_000n) {
  const from = chain.custodialAddress(1);
  chain.fund(from, 10_000n);
  const s = await chain.signCustodialAuthorization({ fromIndex: 1, to: shop, value, nonce: chain.nonceFor('unit', id) });
  return { from, ...s };
}

describe('relayOnce: settled | pending | failed', () => {
  it('settled: the money moved, with the transaction that moved it', async () => {
    const chain = new FakeChain();
    const { auth, signature } = await signed(chain, 'a');
    const out = await relayOnce(chain, auth, signature);
    expect(out).toEqual({ status: 'settled', txHash: chain.sent[0] });
    expect(chain.balance(shop)).toBe(5_000n);
  });

  it('an answer lost after sending is pending with its hash; relaying again settles with that same transaction', async () => {
    const chain = new FakeChain();
    const { auth, signature } = await signed(chain, 'b');
    chain.script.push('lose-answer');
    const seen: string[] = [];
    const first = await relayOnce(chain, auth, signature, { onSent: (h) => void seen.push(h) });
    expect(first).toMatchObject({ status: 'pending', txHash: chain.sent[0], mayHaveSent: true });
    expect(seen).toEqual([chain.sent[0]]);
    expect(await relayOnce(chain, auth, signature)).toEqual({ status: 'settled', txHash: chain.sent[0] });
    expect(chain.sent).toHaveLength(1);
    expect(chain.balance(shop)).toBe(5_000n);
  });

  it('a receipt later than the grace: the hash is recorded while the receipt is still awaited, and the answer waits for the record', async () => {
    const chain = new FakeChain();
    const { auth, signature } = await signed(chain, 'overlap');
    const events: string[] = [];
    const wait = chain.waitForReceipt.bind(chain);
    // The receipt is held until the record has started: later than any grace, made certain.
    let recordStarted!: () => void;
    const started = new Promise<void>((r) => (recordStarted = r));
    chain.waitForReceipt = async (hash) => {
      events.push('receipt wait started');
      await started;
      return wait(hash);
    };
    const out = await relayOnce(chain, auth, signature, {
      recordGraceMs: 20,
      onSent: async (h) => {
        events.push(`record ${h} started`);
        recordStarted();
        // A durable write takes a while: the receipt wait is still running meanwhile.
        await new Promise((r) => setTimeout(r, 5));
        events.push('record done');
      },
    });
    events.push(`answered ${out.status}`);
    expect(events).toEqual(['receipt wait started', `record ${chain.sent[0]} started`, 'record done', 'answered settled']);
  });

  it('a receipt within the grace that says the money moved: no separate hash record; the settled outcome carries the hash (and onTxHash is told it at once)', async () => {
    const chain = new FakeChain();
    const { auth, signature } = await signed(chain, 'grace');
    const recorded: string[] = [];
    const told: string[] = [];
    const out = await relayOnce(chain, auth, signature, { onSent: (h) => void recorded.push(h), onTxHash: (h) => void told.push(h) });
    expect(out).toEqual({ status: 'settled', txHash: chain.sent[0] });
    expect(recorded).toEqual([]);
    expect(told).toEqual([chain.sent[0]]);
  });

  it('within the grace but nothing moved (a revert, no receipt in time): the hash is recorded before the outcome is answered', async () => {
    for (const mode of ['revert', 'no-receipt'] as const) {
      const chain = new FakeChain();
      const { auth, signature } = await signed(chain, mode);
      chain.script.push(mode);
      const events: string[] = [];
      const out = await relayOnce(chain, auth, signature, { onSent: (h) => void events.push(`record ${h}`) });
      events.push(`answered ${out.status}`);
      expect(events).toEqual([`record ${chain.sent[0]}`, mode === 'revert' ? 'answered failed' : 'answered pending']);
    }
  });

  it('a batch member: skipped record only when the receipt carries its own log; a member refused inside the batch records the batch hash first', async () => {
    const chain = new FakeChain();
    chain.groupSends = true;
    const a = chain.custodialAddress(6);
    chain.fund(a, 100n);
    const blocker = await chain.signCustodialAuthorization({ fromIndex: 7, to: shop, value: 0n, nonce: chain.nonceFor('unit', 'blocker') });
    const good = await chain.signCustodialAuthorization({ fromIndex: 6, to: shop, value: 100n, nonce: chain.nonceFor('unit', 'good') });
    const spent = await chain.signCustodialAuthorization({ fromIndex: 6, to: shop, value: 100n, nonce: chain.nonceFor('unit', 'spent') });
    const records: string[][] = [[], [], []];
    // The first leaves alone at once; the two that arrive while it is in flight share one batch.
    const outs = await Promise.all([blocker, good, spent].map((s, i) => relayOnce(chain, s.auth, s.signature, { onSent: (h) => void records[i]!.push(h) })));
    expect(outs.map((o) => o.status)).toEqual(['settled', 'settled', 'failed']);
    const batch = [...chain.usedIn.keys()][0]!;
    expect(outs[1]).toEqual({ status: 'settled', txHash: batch });
    expect(records).toEqual([[], [], [batch]]);
  });

  it('no receipt in time: pending with the hash', async () => {
    const chain = new FakeChain();
    const { auth, signature } = await signed(chain, 'c');
    chain.script.push('no-receipt');
    expect(await relayOnce(chain, auth, signature)).toMatchObject({ status: 'pending', txHash: chain.sent[0] });
  });

  it('refused by the node and unused on chain: failed (rejected), nothing moved', async () => {
    const chain = new FakeChain();
    const { auth, signature } = await signed(chain, 'd');
    chain.script.push('refuse');
    expect(await relayOnce(chain, auth, signature)).toMatchObject({ status: 'failed', reason: 'rejected', cause: 'submit_failed' });
    expect(chain.balance(shop)).toBe(0n);
  });

  it('chain unreachable: pending, and this call sent nothing', async () => {
    const chain = new FakeChain();
    const { auth, signature } = await signed(chain, 'e');
    chain.script.push('down', 'down');
    expect(await relayOnce(chain, auth, signature)).toMatchObject({ status: 'pending', mayHaveSent: false });
  });

  it('reverted and the authorization unused: failed (reverted) with the transaction', async () => {
    const chain = new FakeChain();
    const { auth, signature } = await signed(chain, 'f');
    chain.script.push('revert');
    expect(await relayOnce(chain, auth, signature)).toMatchObject({ status: 'failed', reason: 'reverted', txHash: chain.sent[0] });
  });

  it('the payer cannot pay: failed with the chain-independent reason', async () => {
    const chain = new FakeChain();
    const { auth, signature } = await signed(chain, 'g', 50_000n);
    expect(await relayOnce(chain, auth, signature)).toMatchObject({ status: 'failed', reason: 'insufficient_balance' });
  });
});

describe('moveOnce over the chain port', () => {
  it('moves money once per business operation, however often it is asked', async () => {
    const chain = new FakeChain();
    chain.fund(chain.custodialAddress(3), 9_000n);
    const req = { fromIndex: 3, to: shop, value: 4_000n, kind: 'transfer', id: 'tr_1' };
    const first = await moveOnce(chain, req);
    const again = await moveOnce(chain, req);
    expect(first).toMatchObject({ status: 'settled' });
    expect(again).toEqual(first);
    expect(chain.balance(shop)).toBe(4_000n);
    expect(chain.sent).toHaveLength(1);
  });

  it('names too little money, and a refusal, as failures', async () => {
    const chain = new FakeChain();
    expect(await moveOnce(chain, { fromIndex: 4, to: shop, value: 1n, kind: 'bill', id: 'b1' })).toMatchObject({
      status: 'failed',
      reason: 'insufficient_balance',
    });
    chain.fund(chain.custodialAddress(4), 10n);
    chain.script.push('refuse');
    expect(await moveOnce(chain, { fromIndex: 4, to: shop, value: 1n, kind: 'bill', id: 'b2' })).toMatchObject({
      status: 'failed',
      reason: 'rejected',
    });
  });
});
