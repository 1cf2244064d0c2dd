/**
 * The escrow refund's steps after funding (src/refunds/escrow.ts) over fakes: a permanent refusal
 * gives the funding back before the refund is failed, a passing refusal stays pending with its
 * funding, and a second pass after the return was sent only reads it (sent once).
 */
import { describe, expect, it } from 'vitest';
import type { Address, Hex } from 'viem';
import { LowdbStore } from '../../src/store/index.js';
import { Refunds, type Refund } from '../../src/refunds/model.js';
import { executeEscrowRefund, type EscrowRefundPort } from '../../src/refunds/escrow.js';

const WALLET = '0x00000000000000000000000000000000000000aa' as Address;
const FUNDED = ('0x' + 'f1'.repeat(32)) as Hex;

async function setup(refusal: { permanent: boolean }) {
  const store = LowdbStore.inMemory();
  const at = new Date().toISOString();
  const row: Refund = {
    id: 're_0123456789abcdef', accountId: 'acct_1', paymentId: 'pay_1', status: 'pending', amount: '0.25', amountMinor: '25', currency: 'USD',
    stablecoinAmount: '250000', rate: '1', fromIndex: 1, from: WALLET, to: '0x00000000000000000000000000000000000000bb', createdAt: at, updatedAt: at,
    escrow: { hash: '0x' + '11'.repeat(32), fundedTx: FUNDED },
  };
  await store.write(Refunds, (t) => t.insert(row));
  const returns: { to: Address; amount: bigint; prevTx?: string }[] = [];
  const escrow: EscrowRefundPort = {
    operator: '0x00000000000000000000000000000000000000cc',
    terms: async () => undefined,
    refund: async () => ({ status: 'refused', reason: 'invalid_auth_capture_evm_refund_deadline_expired', message: 'the refund deadline has passed', ...refusal }),
    returnFunding: async (to, amount, prevTx, save) => {
      returns.push({ to, amount, ...(prevTx ? { prevTx } : {}) });
      if (prevTx) return { status: 'succeeded', txHash: prevTx as Hex };
      await save('0x' + 'be'.repeat(32));
      return { status: 'pending', txHash: ('0x' + 'be'.repeat(32)) as Hex, message: 'not mined yet' };
    },
  };
  // The chain is never asked: the funding is already in (fundedTx).
  const d = { store, chain: {} as never, escrow };
  return { store, d, returns, get: async () => (await store.table(Refunds).get(row.id))! };
}

describe('escrow refunds after the funding moved', () => {
  it('a permanent refusal returns the funding (sent once), then the refund fails saying so', async () => {
    const s = await setup({ permanent: true });
    const first = await executeEscrowRefund(s.d, await s.get());
    expect(first.status).toBe('pending');
    expect((await s.get()).escrow).toMatchObject({ returning: expect.stringContaining('refund_deadline_expired'), returnTx: '0x' + 'be'.repeat(32) });
    const second = await executeEscrowRefund(s.d, await s.get());
    expect(second).toMatchObject({ status: 'failed', message: expect.stringContaining(`went back to ${WALLET}`) });
    // One return sent; the second pass only read it.
    expect(s.returns).toEqual([{ to: WALLET, amount: 250_000n }, { to: WALLET, amount: 250_000n, prevTx: '0x' + 'be'.repeat(32) }]);
  });

  it('a refusal that may pass later stays pending, the funding kept at the operator', async () => {
    const s = await setup({ permanent: false });
    const out = await executeEscrowRefund(s.d, await s.get());
    expect(out.status).toBe('pending');
    expect(s.returns).toEqual([]);
    expect((await s.get()).escrow?.returning).toBeUndefined();
  });
});

describe('escrow refunds through one operator from several instances', () => {
  it('one escrow refund at a time per operator across instances sharing the store (the collector allowance is one number)', async () => {
    const store = LowdbStore.inMemory();
    const at = new Date().toISOString();
    const rows: Refund[] = ['re_000000000000000a', 're_000000000000000b', 're_000000000000000c'].map((id, i) => ({
      id, accountId: 'acct_1', paymentId: `pay_${i}`, status: 'pending', amount: '0.25', amountMinor: '25', currency: 'USD',
      stablecoinAmount: '250000', rate: '1', fromIndex: 1, from: WALLET, to: '0x00000000000000000000000000000000000000bb', createdAt: at, updatedAt: at,
      escrow: { hash: '0x' + String(i + 1).repeat(64), fundedTx: FUNDED },
    }));
    await store.write(Refunds, async (t) => {
      for (const r of rows) await t.insert(r);
    });
    let inFlight = 0;
    let most = 0;
    // Each instance has its own escrow port (its own in-process queue): only the store is shared.
    const instance = (): EscrowRefundPort => ({
      operator: '0x00000000000000000000000000000000000000cc',
      terms: async () => undefined,
      refund: async () => {
        most = Math.max(most, ++inFlight);
        await new Promise((r) => setTimeout(r, 60));
        inFlight--;
        return { status: 'succeeded', txHash: ('0x' + 'ab'.repeat(32)) as Hex };
      },
      returnFunding: async () => ({ status: 'succeeded' }),
    });
    const outs = await Promise.all(rows.map((r) => executeEscrowRefund({ store, chain: {} as never, escrow: instance() }, r)));
    expect(outs.map((o) => o.status)).toEqual(['settled', 'settled', 'settled']);
    expect(most).toBe(1);
  });
});
