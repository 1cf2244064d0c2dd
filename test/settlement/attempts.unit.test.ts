import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { Address, Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { AccountsService } from '../../src/accounts/accounts.js';
import { TransferAuthorization } from '../../src/chain/authorization.js';
import type { SubmitResult } from '../../src/chain/chain.js';
import { FxService, loadFxTable } from '../../src/fx/rates.js';
import { Payments, PaymentsService } from '../../src/payments/payments.js';
import { CreatePaymentInput } from '../../src/payments/payment-schemas.js';
import { decideAttempt, type AttemptFacts } from '../../src/settlement/attempt-decision.js';
import { SettlementAttempts, type AttemptOwner } from '../../src/settlement/attempts.js';
import { SettlementService } from '../../src/settlement/settlement.js';
import { LowdbStore } from '../../src/store/index.js';
import { FakeChain } from '../helpers/fake-chain.js';

// Issue 21 on the unit layer: the decision table (when is an attempt over, what is the payer
// told) and two "instances" (two SettlementServices with their own owners) on one store and
// one fake chain. The real processes, PostgreSQL and anvil are in settle.instances.pg.test.ts.

const base: AttemptFacts = { self: false, busy: false, windowClosed: false, authUsed: false, canResume: true };

describe('decideAttempt: when a settle attempt is over and what it means', () => {
  const cases: Array<[string, Partial<AttemptFacts>, string]> = [
    ['the authorization was used by a transfer: settle, whoever asks', { authUsed: true, usedBy: '0xabc', busy: true }, 'settle'],
    ['used, no transfer found, owner gone: canceled on-chain', { authUsed: true }, 'canceled'],
    ['used, no transfer found yet, owner still on it: wait (the log may lag)', { authUsed: true, busy: true }, 'wait'],
    ['used, no transfer, the runner itself asks: canceled', { authUsed: true, busy: true, self: true }, 'canceled'],
    ['our own transaction reverted, authorization unused: nothing charged', { txReceipt: 'reverted' }, 'reverted'],
    ['window closed, unused: it can never be used now', { windowClosed: true, busy: true }, 'expired'],
    ['owner live or before its deadline: never judged lost', { busy: true }, 'wait'],
    ['owner live, its transaction pending in the pool: wait', { busy: true, txReceipt: 'timeout', txKnown: true }, 'wait'],
    ['the runner after an ambiguous send: wait, never "nothing charged"', { self: true }, 'wait'],
    ['owner gone past its deadline, its transaction still in the pool: wait', { txReceipt: 'timeout', txKnown: true }, 'wait'],
    ['owner gone past its deadline, nothing on its way: send the stored authorization again', { txReceipt: 'timeout', txKnown: false }, 'resume'],
    ['owner gone, nothing sent at all: resume', {}, 'resume'],
    ['no ledger row (older payment), owner gone, nothing on its way: reopen', { canResume: false }, 'reopen'],
  ];
  for (const [name, facts, want] of cases) {
    it(name, () => expect(decideAttempt({ ...base, ...facts }).do).toBe(want));
  }
  it('says "nothing was charged" only in the provable cases', () => {
    // Every combination: a money-moved fact never ends in a "nothing charged" decision.
    const bools = [false, true];
    for (const self of bools)
      for (const busy of bools)
        for (const windowClosed of bools)
          for (const txKnown of bools)
            for (const receipt of [undefined, 'success', 'timeout'] as const) {
              const d = decideAttempt({ self, busy, windowClosed, authUsed: true, usedBy: '0x1', txKnown, canResume: true, ...(receipt ? { txReceipt: receipt } : {}) });
              expect(d.do).toBe('settle');
              const open = decideAttempt({ self, busy, windowClosed: false, authUsed: false, txKnown, canResume: true, ...(receipt ? { txReceipt: receipt } : {}) });
              expect(['wait', 'resume']).toContain(open.do);
            }
  });
});

/** A fake chain whose sends can be held (an instance frozen or killed mid-settle). */
class GatedChain extends FakeChain {
  gate: Promise<void> | undefined;
  submits = 0;
  override async submitTransferWithAuthorization(auth: TransferAuthorization): Promise<SubmitResult> {
    this.submits++;
    if (this.gate) await this.gate;
    return super.submitTransferWithAuthorization(auth);
  }
}

function owner(id: string, live: Set<string>): AttemptOwner {
  return { id, isLive: async (o) => o !== undefined && live.has(o) };
}

async function cluster(opts: { confirmTimeoutMs?: number; chainDelayMs?: number } = {}) {
  const store = LowdbStore.inMemory();
  const chain = new GatedChain();
  const fx = new FxService(loadFxTable());
  const accounts = new AccountsService(store, {});
  const payments = new PaymentsService(store, fx, 'http://localhost:3000');
  const live = new Set(['a', 'b']);
  const make = (id: string) =>
    new SettlementService({
      store,
      payments,
      accounts,
      chain,
      logger: pino({ level: 'silent' }),
      confirmTimeoutMs: opts.confirmTimeoutMs ?? 300,
      reconcileWaitMs: 10,
      chainDelayMs: opts.chainDelayMs ?? 0,
      owner: owner(id, live),
      relayer: `0xrelayer-${id}`,
    });
  const created = await accounts.create({ name: 'Acme', email: 'acme@example.com' });
  if (!created.ok) throw new Error(created.message);
  const shopWallet = chain.custodialAddress(created.account.walletIndex);
  const p = await payments.create(created.account.id, CreatePaymentInput.parse({ amount: 10, currency: 'USD', redirect_url: 'https://shop.example/done' }));
  if (!p.ok) throw new Error(p.message);
  const a = make('a');
  const customer = privateKeyToAccount(generatePrivateKey());
  chain.fund(customer.address, 100_000_000n);
  const issued = await a.authorizationFor(p.payment.id, customer.address);
  if (!issued.ok) throw new Error(issued.message);
  const authorization = TransferAuthorization.parse(issued.typedData.message);
  const signature = (await customer.signTypedData(chain.transferWithAuthorizationTypedData(authorization).typedData)) as Hex;
  return { store, chain, payments, live, a, b: make('b'), shopWallet, id: p.payment.id, input: { authorization, signature }, customer: customer.address as Address };
}

describe('one settle attempt across instances (fake chain, shared store)', () => {
  it('the same signed settle on two instances at once: one transfer, both callers the same final answer', async () => {
    const c = await cluster();
    let open!: () => void;
    c.chain.gate = new Promise<void>((r) => (open = r));
    const first = c.a.settle(c.id, c.input);
    // B arrives while A's transaction is on its way: it joins A's attempt instead of judging it lost.
    await new Promise((r) => setTimeout(r, 20));
    const second = c.b.settle(c.id, c.input);
    await new Promise((r) => setTimeout(r, 50));
    open();
    const [ra, rb] = await Promise.all([first, second]);
    expect(ra).toMatchObject({ ok: true, payment: { status: 'settled' } });
    expect(rb).toMatchObject({ ok: true, payment: { status: 'settled' }, txHash: ra.ok ? ra.txHash : 'x' });
    expect(c.chain.sent).toHaveLength(1);
    expect(c.chain.balance(c.shopWallet)).toBe(10_000_000n);
  });

  it('a reconcile pass on another instance never judges a live owner\'s attempt lost', async () => {
    const c = await cluster({ chainDelayMs: 60_000 });
    let open!: () => void;
    c.chain.gate = new Promise<void>((r) => (open = r));
    const first = c.a.settle(c.id, c.input);
    await new Promise((r) => setTimeout(r, 20));
    const pass = await c.b.reconcile();
    expect(pass).toMatchObject({ checked: 1, processing: 1, pending: 0 });
    expect((await c.payments.get(c.id))?.status).toBe('processing');
    open();
    expect(await first).toMatchObject({ ok: true, payment: { status: 'settled' } });
  });

  it('an owner killed mid-settle: past its deadline another instance sends the stored authorization; money moves once', async () => {
    const c = await cluster({ confirmTimeoutMs: 50 });
    c.chain.gate = new Promise<void>(() => undefined); // A never gets its send out
    void c.a.settle(c.id, c.input);
    await new Promise((r) => setTimeout(r, 20));
    const attempt = (await c.store.table(SettlementAttempts).findMany({ subject: c.id }))[0];
    expect(attempt).toMatchObject({ instanceId: 'a', relayer: '0xrelayer-a', state: 'open', payer: c.customer });
    // The payer retries on B while A still lives: B waits, then answers "processing", never "nothing charged".
    const early = await c.b.settle(c.id, c.input);
    expect(early).toMatchObject({ ok: true, payment: { status: 'processing' } });
    c.live.delete('a'); // A's lease lapsed
    c.chain.gate = undefined;
    await new Promise((r) => setTimeout(r, 60)); // past the deadline
    const pass = await c.b.reconcile();
    expect(pass.settled).toBe(1);
    expect(await c.payments.get(c.id)).toMatchObject({ status: 'settled', txHash: c.chain.sent[0] });
    expect(await c.store.table(SettlementAttempts).get(attempt!.id)).toMatchObject({ instanceId: 'b', generation: 2, state: 'done', answer: { ok: true } });
    // The payer asking again gets the settled answer.
    expect(await c.b.settle(c.id, c.input)).toMatchObject({ ok: true, payment: { status: 'settled' } });
    expect(c.chain.balance(c.shopWallet)).toBe(10_000_000n);
  });

  it('a refusal after which nothing was sent: both callers told submit_failed, the payment payable again', async () => {
    const c = await cluster();
    let open!: () => void;
    c.chain.gate = new Promise<void>((r) => (open = r));
    c.chain.script.push('refuse');
    const first = c.a.settle(c.id, c.input);
    await new Promise((r) => setTimeout(r, 20));
    const second = c.b.settle(c.id, c.input);
    await new Promise((r) => setTimeout(r, 50));
    open();
    const [ra, rb] = await Promise.all([first, second]);
    expect(ra).toMatchObject({ ok: false, reason: 'submit_failed' });
    expect(rb).toMatchObject({ ok: false, reason: 'submit_failed' });
    expect((await c.payments.get(c.id))?.status).toBe('pending');
    expect(await c.b.settle(c.id, c.input)).toMatchObject({ ok: true, payment: { status: 'settled' } });
  });

  it('the reopen branch answers the state that won when its own compare-and-set fails (never submit_failed for a settled payment)', async () => {
    const c = await cluster({ confirmTimeoutMs: 10 });
    // A payment processing from before the ledger (no attempt row), untouched for long: its tx is gone.
    await c.store.write(Payments, (t) => t.update(c.id, { status: 'processing', payer: c.customer, updatedAt: new Date(0).toISOString() }));
    const transition = c.payments.transition.bind(c.payments);
    let raced = false;
    c.payments.transition = async (id, from, to, patch) => {
      if (!raced && from === 'processing' && to === 'pending') {
        raced = true; // another instance settles it first
        await transition(id, 'processing', 'settled', { txHash: '0xfeed', settledAt: new Date().toISOString() });
      }
      return transition(id, from, to, patch);
    };
    const r = await c.b.settle(c.id, c.input);
    expect(raced).toBe(true);
    expect(r).toMatchObject({ ok: true, payment: { status: 'settled' }, txHash: '0xfeed' });
  });
});
