import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { keccak256, toHex, type Hex } from 'viem';
import { LowdbStore } from '../../src/store/index.js';
import { Transfers } from '../../src/transfers/transfers.js';
import { Payments } from '../../src/payments/payments.js';
import { auditSettledOnChain } from '../../src/settlement/onchain-audit.js';
import { FakeChain } from '../helpers/fake-chain.js';

// Unit layer: the start-up audit over the in-memory store and the fake chain port.
describe('auditSettledOnChain', () => {
  it('names each recent record reported settled whose transaction the chain does not have', async () => {
    const store = LowdbStore.inMemory();
    const chain = new FakeChain();
    const mined = keccak256(toHex('mined')) as Hex;
    chain.receipts.set(mined, 'success');
    const lost = keccak256(toHex('lost')) as Hex;
    const now = new Date().toISOString();
    const old = new Date(Date.now() - 2 * 3_600_000).toISOString();
    await store.write(Transfers, async (t) => {
      await t.insert({ id: 'tr_ok', status: 'settled', txHash: mined, updatedAt: now } as never);
      await t.insert({ id: 'tr_lost', status: 'settled', txHash: lost, updatedAt: now } as never);
      await t.insert({ id: 'tr_old', status: 'settled', txHash: lost, updatedAt: old } as never);
      await t.insert({ id: 'tr_open', status: 'submitted', txHash: lost, updatedAt: now } as never);
    });
    await store.write(Payments, async (t) => {
      await t.insert({ id: 'pay_lost', status: 'settled', txHash: lost, settledAt: now, createdAt: now } as never);
    });
    const res = await auditSettledOnChain({ store, chain, logger: pino({ level: 'silent' }) });
    expect(res.checked).toBe(3);
    expect(res.missing.map((m) => m.id).sort()).toEqual(['pay_lost', 'tr_lost']);
  });
});
