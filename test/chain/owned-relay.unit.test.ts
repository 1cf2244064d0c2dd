import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { AccountsService } from '../../src/accounts/accounts.js';
import { FxService, loadFxTable } from '../../src/fx/rates.js';
import { TransfersService } from '../../src/transfers/transfers.js';
import { WalletDirectory } from '../../src/wallet/directory.js';
import { keccak256, toHex, type Address, type Hex } from 'viem';
import type { TransferAuthorization } from '../../src/chain/authorization.js';
import type { ReceiptOutcome, SubmitResult } from '../../src/chain/chain.js';
import { relayOwned, relayAttemptId, type OwnedRelayRequest } from '../../src/chain/owned-relay.js';
import { AttemptLedger, type AttemptOwner } from '../../src/settlement/attempts.js';
import { LowdbStore } from '../../src/store/index.js';
import { moveOnce } from '../../src/wallet/custodial-move.js';
import { FakeChain } from '../helpers/fake-chain.js';

// Issue 21, point 5 on the unit layer: one owner attempt for every relayed move (sweeps,
// refunds, custodial transfers), two "instances" (two ledgers with their own owners) on one
// store and the fake chain. The real PostgreSQL, anvil and processes: moves.instances.pg.test.ts.

/** A fake chain with a mempool: while `hold` is set, a send waits in the pool until `mine()`. */
class PoolChain extends FakeChain {
  hold = false;
  submits = 0;
  private readonly pool = new Map<Hex, TransferAuthorization[]>();
  override async submitTransferWithAuthorization(auth: TransferAuthorization): Promise<SubmitResult> {
    this.submits++;
    if (!this.hold) return super.submitTransferWithAuthorization(auth);
    return this.pooled([auth]);
  }
  /** A batch (a transfer and its fee) pools as one transaction, mined all or none. */
  override async submitTransferWithAuthorizations(items: readonly { auth: TransferAuthorization; signature: Hex }[]): Promise<SubmitResult> {
    this.submits++;
    if (!this.hold) return super.submitTransferWithAuthorizations(items);
    return this.pooled(items.map((i) => i.auth));
  }
  private pooled(auths: TransferAuthorization[]): SubmitResult {
    const txHash = keccak256(toHex(`pooled${this.submits}`));
    this.sent.push(txHash);
    this.pool.set(txHash, auths);
    return { ok: true, txHash };
  }
  /** Waits for the receipt like a node (the base fake answers at once). */
  override async waitForReceipt(txHash: Hex, timeoutMs = 0): Promise<ReceiptOutcome> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const r = await super.waitForReceipt(txHash);
      if (r.status !== 'timeout' || Date.now() >= until) return r;
      await new Promise((res) => setTimeout(res, 20));
    }
  }
  /** Mines every pooled transaction: the first of an authorization moves the money, the others revert. */
  mine(): void {
    for (const [txHash, auths] of this.pool) {
      const k = (a: TransferAuthorization) => `${a.from.toLowerCase()}:${a.nonce.toLowerCase()}`;
      const total = auths.reduce((t, a) => t + a.value, 0n);
      if (auths.some((a) => this.used.has(k(a))) || this.balance(auths[0]!.from) < total) this.receipts.set(txHash, 'reverted');
      else {
        for (const auth of auths) {
          this.balances.set(auth.from.toLowerCase(), this.balance(auth.from) - auth.value);
          this.balances.set(auth.to.toLowerCase(), this.balance(auth.to) + auth.value);
          this.used.set(k(auth), txHash);
        }
        this.receipts.set(txHash, 'success');
      }
    }
    this.pool.clear();
  }
  /** The node forgets its pool (a restart): nothing pooled will be mined. */
  drop(): void {
    for (const txHash of this.pool.keys()) this.sent.splice(this.sent.indexOf(txHash), 1);
    this.pool.clear();
  }
}

function setup(opts: { deadlineMs?: number } = {}) {
  const store = LowdbStore.inMemory();
  const chain = new PoolChain();
  const live = new Set(['a', 'b']);
  const owner = (id: string): AttemptOwner => ({ id, isLive: async (o) => o !== undefined && live.has(o) });
  const ledger = (id: string) => new AttemptLedger(store, owner(id), opts.deadlineMs ?? 60_000, `0xrelayer-${id}`);
  const from = chain.custodialAddress(7);
  chain.fund(from, 50_000_000n);
  const to = '0x00000000000000000000000000000000000000b0' as Address;
  const nonce = chain.nonceFor('refund', 're_1');
  const req = (timeoutMs = 0): OwnedRelayRequest => ({
    kind: 'refund',
    subject: 're_1',
    from,
    nonce,
    timeoutMs,
    sign: () => chain.signCustodialAuthorization({ fromIndex: 7, to, value: 5_000_000n, nonce }),
  });
  return { store, chain, live, a: ledger('a'), b: ledger('b'), req, from, to, id: relayAttemptId('refund', from, nonce) };
}

describe('relayOwned: one owner and one truthful answer per relayed move', () => {
  it('the same move on two instances at once: one send, both callers the same transaction', async () => {
    const s = setup();
    s.chain.hold = true;
    const first = relayOwned(s.chain, s.a, s.req(1_500));
    const second = relayOwned(s.chain, s.b, s.req(1_500));
    setTimeout(() => s.chain.mine(), 300);
    const [x, y] = await Promise.all([first, second]);
    expect(s.chain.submits).toBe(1);
    expect(x).toEqual({ status: 'settled', txHash: s.chain.sent[0] });
    expect(y).toEqual(x);
    expect(s.chain.balance(s.to)).toBe(5_000_000n);
  });

  it('before its deadline another instance (or a reconcile pass) never resends nor fails the move; money that moved is read from the chain', async () => {
    const s = setup({ deadlineMs: 60_000 });
    s.chain.hold = true;
    const owned = await relayOwned(s.chain, s.a, s.req(0));
    expect(owned.status).toBe('pending');
    // Even with too little left in the wallet, which would make a fresh send fail.
    s.chain.balances.set(s.from.toLowerCase(), 5_000_000n);
    s.chain.hold = false;
    const other = await relayOwned(s.chain, s.b, s.req(200));
    expect(other.status).toBe('pending');
    expect(s.chain.submits).toBe(1);
    // Mined while nobody watches it: the next caller, anywhere, settles it from the chain.
    s.chain.mine();
    expect(await relayOwned(s.chain, s.b, s.req(0))).toEqual({ status: 'settled', txHash: s.chain.sent[0] });
    expect(await relayOwned(s.chain, s.a, s.req(0))).toEqual({ status: 'settled', txHash: s.chain.sent[0] });
    expect(s.chain.submits).toBe(1);
    expect(s.chain.balance(s.to)).toBe(5_000_000n);
  });

  it('before its deadline a lost transaction is not resent (it could be in another node\'s pool)', async () => {
    const s = setup({ deadlineMs: 60_000 });
    s.chain.hold = true;
    await relayOwned(s.chain, s.a, s.req(0));
    s.chain.drop();
    s.chain.hold = false;
    expect((await relayOwned(s.chain, s.b, s.req(0))).status).toBe('pending');
    expect(s.chain.submits).toBe(1);
  });

  it('an owner killed with its transaction in the pool: the other waits for it, never sends a second one', async () => {
    const s = setup({ deadlineMs: 0 });
    s.chain.hold = true;
    await relayOwned(s.chain, s.a, s.req(0));
    s.live.delete('a');
    expect((await relayOwned(s.chain, s.b, s.req(0))).status).toBe('pending');
    expect(s.chain.submits).toBe(1);
    s.chain.mine();
    expect(await relayOwned(s.chain, s.b, s.req(0))).toEqual({ status: 'settled', txHash: s.chain.sent[0] });
    expect((await s.b.get(s.id))?.answer).toEqual({ ok: true, txHash: s.chain.sent[0] });
  });

  it('an owner killed and its transaction lost: the other takes over and sends the stored authorization once', async () => {
    const s = setup({ deadlineMs: 0 });
    s.chain.hold = true;
    await relayOwned(s.chain, s.a, s.req(0));
    const stored = (await s.a.get(s.id))!;
    s.live.delete('a');
    s.chain.drop();
    s.chain.hold = false;
    const r = await relayOwned(s.chain, s.b, s.req(0));
    expect(r.status).toBe('settled');
    expect(s.chain.submits).toBe(2);
    const row = (await s.b.get(s.id))!;
    expect(row).toMatchObject({ instanceId: 'b', generation: 2, state: 'done', signature: stored.signature, authorization: stored.authorization });
    expect(s.chain.balance(s.to)).toBe(5_000_000n);
  });

  it('a take-over whose send fails is not "nothing moved" (the first send may land) until the window closes unused', async () => {
    const s = setup({ deadlineMs: 0 });
    s.chain.hold = true;
    await relayOwned(s.chain, s.a, s.req(0));
    s.live.delete('a');
    s.chain.drop();
    s.chain.hold = false;
    s.chain.balances.set(s.from.toLowerCase(), 0n);
    const r = await relayOwned(s.chain, s.b, s.req(0));
    expect(r.status).toBe('pending');
    expect((await s.b.get(s.id))?.state).toBe('open');
    // Past validBefore and unused: now provably nothing moved, and every caller hears it.
    s.chain.advanceSeconds = 2 ** 41;
    s.live.delete('b');
    const end = await relayOwned(s.chain, s.a, s.req(0));
    expect(end).toMatchObject({ status: 'failed', reason: 'expired' });
    expect((await s.a.get(s.id))?.state).toBe('done');
  });

  it('a fresh send refused by the node is provably nothing moved; a retry is a new attempt (same nonce) and moves once', async () => {
    const s = setup();
    s.chain.script.push('refuse');
    const r = await relayOwned(s.chain, s.a, s.req(0));
    expect(r).toMatchObject({ status: 'failed', reason: 'rejected' });
    expect((await s.a.get(s.id))?.state).toBe('done');
    const again = await relayOwned(s.chain, s.b, s.req(0));
    expect(again.status).toBe('settled');
    expect((await s.b.get(s.id))?.generation).toBe(2);
    // A settled attempt answers its transaction to every later caller without sending.
    const before = s.chain.submits;
    expect(await relayOwned(s.chain, s.a, s.req(0))).toEqual(again);
    expect(s.chain.submits).toBe(before);
  });

  it('moveOnce with the ledger: a custodial move on two instances is one owner and one transfer', async () => {
    const s = setup();
    s.chain.hold = true;
    const req = { fromIndex: 7, to: s.to, value: 5_000_000n, kind: 'transfer', id: 'tr_1' };
    const x = moveOnce(s.chain, req, 1_500, s.a);
    const y = moveOnce(s.chain, req, 1_500, s.b);
    setTimeout(() => s.chain.mine(), 300);
    const [ox, oy] = await Promise.all([x, y]);
    expect(s.chain.submits).toBe(1);
    expect(ox.status).toBe('settled');
    expect(oy).toEqual(ox);
  });
});

describe('a custodial transfer on two instances (TransfersService over the ledger)', () => {
  it.each([
    ['its fee in the same transaction', true],
    ['a token without batched moves', false],
  ])('the transfer in flight on one instance (%s): the other\'s reconcile neither resends nor says "nothing was sent"; then it settles from the chain', async (_label, batch) => {
    const store = LowdbStore.inMemory();
    const chain = new PoolChain();
    chain.batchTransfers = batch;
    const fx = new FxService(loadFxTable());
    const accounts = new AccountsService(store, {});
    const wallets = new WalletDirectory(chain, store);
    const live = new Set(['a', 'b']);
    const service = (id: string) =>
      new TransfersService(store, chain, fx, accounts, wallets, {
        logger: pino({ level: 'silent' }),
        confirmTimeoutMs: 20,
        attempts: new AttemptLedger(store, { id, isLive: async (o) => o !== undefined && live.has(o) }, 60_000, `0xrelayer-${id}`),
      });
    const [a, b] = [service('a'), service('b')];
    const make = async (name: string, email: string) => {
      const r = await accounts.create({ name, email, localCurrency: 'USD' });
      if (!r.ok) throw new Error(r.message);
      return r.account;
    };
    const sender = await make('Amina', 'amina@example.com');
    const recipient = await make('Zawadi', 'zawadi@example.com');
    chain.fund(wallets.addressOf(sender), 30_000_000n);
    chain.hold = true;
    const sent = await a.send(sender.id, { recipient: 'zawadi@example.com', amount: '25', currency: 'USD' });
    expect(sent.ok && sent.transfer.status).toBe('submitted');
    if (!sent.ok) return;
    const submits = chain.submits;
    // The wallet is drained meanwhile: a second send would fail with "nothing was sent".
    const fee = batch ? BigInt(sent.transfer.fee) : 0n;
    chain.balances.set(wallets.addressOf(sender).toLowerCase(), 25_000_000n + fee);
    chain.hold = false;
    const other = await b.reconcile(sent.transfer.id);
    expect(other.ok && other.transfer.status).toBe('submitted');
    expect(chain.submits).toBe(submits);
    chain.mine();
    const done = await b.reconcile(sent.transfer.id);
    expect(done.ok && done.transfer).toMatchObject({ status: 'settled', txHash: chain.sent[0] });
    expect(chain.balance(wallets.addressOf(recipient))).toBe(25_000_000n);
    // With the batch, the one transaction also carried the fee: nothing left, nothing sent twice.
    expect(chain.balance(wallets.addressOf(sender))).toBe(0n);
    expect(chain.sent).toHaveLength(1);
  });
});
