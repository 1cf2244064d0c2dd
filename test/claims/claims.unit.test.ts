import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { Address } from 'viem';
import { AccountsService } from '../../src/accounts/accounts.js';
import { FxService, loadFxTable } from '../../src/fx/rates.js';
import { LowdbStore, type Store } from '../../src/store/index.js';
import { ClaimsService, type ClaimStep } from '../../src/claims/claims.js';
import { Claims } from '../../src/claims/claim-record.js';
import { WalletDirectory } from '../../src/wallet/directory.js';
import { FEE_WALLET_INDEX } from '../../src/wallet/reserved.js';
import { FakeChain } from '../helpers/fake-chain.js';

/**
 * Claim links over the in-memory store and the fake chain port: the whole life of a claim,
 * the refusals, and a crash at every step (the service stops right there; a new service over
 * the same store and chain recovers) with the money neither lost nor moved twice.
 */
class Crash extends Error {}

async function world(opts: { crashAt?: ClaimStep; now?: () => Date } = {}) {
  const store = LowdbStore.inMemory();
  const chain = new FakeChain();
  const fx = new FxService(loadFxTable());
  const accounts = new AccountsService(store, {});
  const wallets = new WalletDirectory(chain, store);
  const make = (store: Store, crashAt?: ClaimStep) =>
    new ClaimsService(store, chain, fx, accounts, wallets, {
      logger: pino({ level: 'silent' }),
      confirmTimeoutMs: 20,
      ...(opts.now ? { now: opts.now } : {}),
      ...(crashAt ? { crashAt: (s: ClaimStep) => { if (s === crashAt) throw new Crash(s); } } : {}),
    });
  const acct = async (name: string, email: string, extra: Record<string, string> = {}) => {
    const r = await accounts.create({ name, email, localCurrency: 'USD', ...extra });
    if (!r.ok) throw new Error(r.message);
    return r.account;
  };
  const sender = await acct('Wanjiru', 'w@example.com');
  const from = wallets.addressOf(sender);
  chain.fund(from, 100_000_000n);
  const fee = wallets.address(FEE_WALLET_INDEX);
  /** Every base unit the sender started with is in exactly one place. */
  const total = async (others: Address[] = []) => {
    let sum = chain.balance(from) + chain.balance(fee);
    for (const c of await store.table(Claims).findMany({})) sum += chain.balance(c.escrowAddress as Address);
    for (const o of others) sum += chain.balance(o);
    return sum;
  };
  return { store, chain, accounts, wallets, sender, from, fee, acct, total, claims: make(store, opts.crashAt), fresh: () => make(store) };
}

describe('ClaimsService over the fake chain', () => {
  it('send to an email with no account -> escrow; the owner of that email signs up and claims; a second claim is refused', async () => {
    const w = await world();
    const made = await w.claims.create(w.sender.id, { contact: 'Zawadi@Example.com', amount: '25', currency: 'USD' });
    expect(made.ok, JSON.stringify(made)).toBe(true);
    if (!made.ok) return;
    expect(made.token).toMatch(/^[0-9A-Za-z]{32}$/);
    expect(JSON.stringify(await w.store.table(Claims).get(made.claim.id))).not.toContain(made.token);
    const c = made.claim;
    expect(c).toMatchObject({ status: 'open', contact: 'zawadi@example.com', amount: '25000000' });
    const total = BigInt(c.total);
    expect(w.chain.balance(c.escrowAddress as Address)).toBe(total);
    expect(w.chain.balance(w.from)).toBe(100_000_000n - total);

    const mallory = await w.acct('Mallory', 'mallory@example.com');
    expect(await w.claims.claim(made.token, mallory.id)).toMatchObject({ ok: false, reason: 'wrong_claimant' });
    expect(await w.claims.claim(made.token, w.sender.id)).toMatchObject({ ok: false, reason: 'own_claim' });
    expect(await w.claims.claim('x'.repeat(32), mallory.id)).toMatchObject({ ok: false, reason: 'claim_not_found' });

    const zawadi = await w.acct('Zawadi', 'zawadi@example.com');
    const got = await w.claims.claim(made.token, zawadi.id);
    expect(got).toMatchObject({ ok: true, claim: { status: 'claimed', claimantAccountId: zawadi.id, feeSettled: true } });
    expect(w.chain.balance(w.wallets.addressOf(zawadi))).toBe(25_000_000n);
    expect(w.chain.balance(w.fee)).toBe(BigInt(c.fee));
    expect(w.chain.balance(c.escrowAddress as Address)).toBe(0n);
    expect(await w.claims.claim(made.token, zawadi.id)).toMatchObject({ ok: false, reason: 'already_claimed' });
    expect(await w.claims.cancel(w.sender.id, c.id)).toMatchObject({ ok: false, reason: 'claim_not_open' });
    const events = (await w.claims.get(c.id))!.events.map((e) => e.type);
    expect(events).toEqual(['transfer.claim_created', 'transfer.claimed']);
    expect((await w.claims.history(zawadi.id)).map((x) => x.id)).toEqual([c.id]);
    expect((await w.claims.history(w.sender.id)).map((x) => x.id)).toEqual([c.id]);
  });

  it('a phone claim needs the account with that phone; the sender cancels and gets the amount back, our fee kept (h17claimfee)', async () => {
    const w = await world();
    const made = await w.claims.create(w.sender.id, { contact: '+254 712 345 678', amount: '10', currency: 'USD' });
    if (!made.ok) throw new Error(made.message);
    expect(made.claim).toMatchObject({ contactKind: 'phone', contact: '+254712345678' });
    const other = await w.acct('Other', 'o@example.com', { phone: '+254700000000' });
    expect(await w.claims.claim(made.token, other.id)).toMatchObject({ ok: false, reason: 'wrong_claimant' });
    const stranger = await w.acct('Stranger', 's@example.com');
    expect(await w.claims.cancel(stranger.id, made.claim.id)).toMatchObject({ ok: false, reason: 'claim_not_found' });
    const back = await w.claims.cancel(w.sender.id, made.claim.id);
    expect(back).toMatchObject({ ok: true, claim: { status: 'canceled', feeKept: true, feeSettled: true } });
    expect(w.chain.balance(w.from)).toBe(100_000_000n - BigInt(made.claim.fee));
    expect(w.chain.balance(w.fee)).toBe(BigInt(made.claim.fee));
    expect(w.chain.balance(made.claim.escrowAddress as Address)).toBe(0n);
    const owner = await w.acct('Owner', 'p@example.com', { phone: '+254712345678' });
    expect(await w.claims.claim(made.token, owner.id)).toMatchObject({ ok: false, reason: 'claim_not_open' });
    expect((await w.claims.get(made.claim.id))!.events.map((e) => e.type)).toEqual(['transfer.claim_created', 'transfer.claim_canceled']);
  });

  it('an unclaimed claim returns to the sender once its time has passed (the sweep)', async () => {
    let t = Date.parse('2026-11-28T00:00:00Z');
    const w = await world({ now: () => new Date(t) });
    const made = await w.claims.create(w.sender.id, { contact: 'late@example.com', amount: '5', currency: 'USD' });
    if (!made.ok) throw new Error(made.message);
    expect(await w.claims.sweep()).toBe(0);
    t += 7 * 86_400_000;
    const late = await w.acct('Late', 'late@example.com');
    expect(await w.claims.claim(made.token, late.id)).toMatchObject({ ok: false, reason: 'claim_expired' });
    expect(await w.claims.sweep()).toBe(1);
    expect(await w.claims.get(made.claim.id)).toMatchObject({ status: 'expired', feeSettled: true });
    expect(w.chain.balance(w.from)).toBe(100_000_000n - BigInt(made.claim.fee));
    expect(w.chain.balance(w.fee)).toBe(BigInt(made.claim.fee));
    expect((await w.claims.get(made.claim.id))!.events.map((e) => e.type)).toEqual(['transfer.claim_created', 'transfer.claim_expired']);
  });

  it("the page's language: the sender's chosen one, else by their country, else English", async () => {
    const w = await world();
    const kenyan = await w.acct('K', 'k@example.com', { country: 'KE' });
    const chose = await w.acct('P', 'p@example.com', { country: 'KE', language: 'pt' });
    const plain = await w.acct('E', 'e@example.com');
    // Every corridor language: a Nigerian sender's page is in Pidgin, a chosen Taglish one in Taglish.
    const naija = await w.acct('N', 'n@example.com', { country: 'NG' });
    const pinoy = await w.acct('T', 't@example.com', { country: 'KE', language: 'tl' });
    for (const a of [kenyan, chose, plain, naija, pinoy]) w.chain.fund(w.wallets.addressOf(a), 10_000_000n);
    const lang = async (id: string) => {
      const r = await w.claims.create(id, { contact: `to-${id}@example.com`, amount: '1', currency: 'USD' });
      if (!r.ok) throw new Error(r.message);
      return r.claim.language;
    };
    expect([await lang(kenyan.id), await lang(chose.id), await lang(plain.id), await lang(naija.id), await lang(pinoy.id)]).toEqual(['sw', 'pt', 'en', 'pcm', 'tl']);
  });

  it('refuses what the wallet cannot cover and moves nothing', async () => {
    const w = await world();
    const r = await w.claims.create(w.sender.id, { contact: 'x@example.com', amount: '500', currency: 'USD' });
    expect(r).toMatchObject({ ok: false, reason: 'insufficient_balance' });
    expect(w.chain.sent).toHaveLength(0);
  });

  for (const step of ['funding-recorded', 'funded'] as const) {
    it(`a crash at ${step}: recovery funds the claim exactly once`, async () => {
      const w = await world({ crashAt: step });
      await expect(w.claims.create(w.sender.id, { contact: 'c@example.com', amount: '20', currency: 'USD' })).rejects.toBeInstanceOf(Crash);
      const before = await w.total();
      const again = w.fresh();
      await again.sweep();
      await again.sweep();
      const [c] = await w.store.table(Claims).findMany({});
      expect(c!.status).toBe('open');
      expect(w.chain.balance(c!.escrowAddress as Address)).toBe(BigInt(c!.total));
      expect(await w.total()).toBe(before);
      expect(w.chain.balance(w.from)).toBe(100_000_000n - BigInt(c!.total));
    });
  }

  for (const step of ['claiming-recorded', 'paid'] as const) {
    it(`a crash at ${step}: recovery pays the claimant exactly once`, async () => {
      const w = await world({ crashAt: step });
      const made = await w.claims.create(w.sender.id, { contact: 'c@example.com', amount: '20', currency: 'USD' });
      if (!made.ok) throw new Error(made.message);
      const z = await w.acct('C', 'c@example.com');
      const to = w.wallets.addressOf(z);
      await expect(w.claims.claim(made.token, z.id)).rejects.toBeInstanceOf(Crash);
      const again = w.fresh();
      await again.sweep();
      await again.sweep();
      expect(await w.claims.get(made.claim.id)).toMatchObject({ status: 'claimed', feeSettled: true });
      expect(w.chain.balance(to)).toBe(20_000_000n);
      expect(await w.total([to])).toBe(100_000_000n);
      expect(await again.claim(made.token, z.id)).toMatchObject({ ok: false, reason: 'already_claimed' });
    });
  }

  for (const step of ['returning-recorded', 'returned', 'fee-collected'] as const) {
    it(`a crash at ${step}: recovery returns the amount and keeps the fee, each exactly once`, async () => {
      const w = await world({ crashAt: step });
      const made = await w.claims.create(w.sender.id, { contact: 'c@example.com', amount: '20', currency: 'USD' });
      if (!made.ok) throw new Error(made.message);
      await expect(w.claims.cancel(w.sender.id, made.claim.id)).rejects.toBeInstanceOf(Crash);
      const again = w.fresh();
      await again.sweep();
      await again.sweep();
      expect(await w.claims.get(made.claim.id)).toMatchObject({ status: 'canceled', feeSettled: true });
      expect(w.chain.balance(w.from)).toBe(100_000_000n - BigInt(made.claim.fee));
      expect(w.chain.balance(w.fee)).toBe(BigInt(made.claim.fee));
      expect(await w.total()).toBe(100_000_000n);
    });
  }
});
