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

  it('records the hash while the receipt is awaited, and answers only once the record is done', async () => {
    const chain = new FakeChain();
    const { auth, signature } = await signed(chain, 'overlap');
    const events: string[] = [];
    const wait = chain.waitForReceipt.bind(chain);
    chain.waitForReceipt = async (hash) => {
      events.push('receipt wait started');
      return wait(hash);
    };
    const out = await relayOnce(chain, auth, signature, {
      onSent: async (h) => {
        events.push(`record ${h} started`);
        // A durable write takes a while: the receipt wait is already running meanwhile.
        await new Promise((r) => setTimeout(r, 5));
        events.push('record done');
      },
    });
    events.push(`answered ${out.status}`);
    expect(events).toEqual([`record ${chain.sent[0]} started`, 'receipt wait started', 'record done', 'answered settled']);
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
