import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { AccountsService } from '../../src/accounts/accounts.js';
import { FxService, loadFxTable } from '../../src/fx/rates.js';
import { LowdbStore, type Store } from '../../src/store/index.js';
import { ClaimsService, type ClaimStep } from '../../src/claims/claims.js';
import { Claims } from '../../src/claims/claim-record.js';
import { WalletDirectory } from '../../src/wallet/directory.js';
import { Outbox, WebhookEvents } from '../../src/webhooks/outbox.js';
import type { WebhookSecretsService } from '../../src/webhooks/secrets.js';
import { TransferEventPayload } from '../../src/webhooks/webhook-schemas.js';
import { FakeChain } from '../helpers/fake-chain.js';

/**
 * Issue 26: each claim step is a `transfer.*` event in the webhook outbox, written in the step's
 * own transaction, so a crash at any step and the recovery's re-runs (two sweeps) record it
 * exactly once. The HTTP + webhook delivery side is test/claims/claim-events.http.test.ts.
 */
class Crash extends Error {}

async function world(crashAt?: ClaimStep) {
  const store = LowdbStore.inMemory();
  const chain = new FakeChain();
  const accounts = new AccountsService(store, {});
  const wallets = new WalletDirectory(chain, store);
  // No endpoint in these tests, so the outbox never needs a signing secret.
  const outbox = new Outbox({ schedule: [0], secrets: {} as WebhookSecretsService });
  const make = (s: Store, crash?: ClaimStep) =>
    new ClaimsService(s, chain, new FxService(loadFxTable()), accounts, wallets, {
      logger: pino({ level: 'silent' }),
      confirmTimeoutMs: 20,
      onEvent: async (tx, type, accountId, data, nowMs) => void (await outbox.recordTransfer(tx, type, accountId, data, nowMs)),
      ...(crash ? { crashAt: (s: ClaimStep) => { if (s === crash) throw new Crash(s); } } : {}),
    });
  const r = await accounts.create({ name: 'Wanjiru', email: 'w@example.com', localCurrency: 'USD' });
  if (!r.ok) throw new Error(r.message);
  chain.fund(wallets.addressOf(r.account), 100_000_000n);
  const events = async () => (await store.table(WebhookEvents).findMany({})).map((e) => ({ ...e, json: JSON.parse(e.body) }));
  const claimant = async () => {
    const c = await accounts.create({ name: 'C', email: 'c@example.com', localCurrency: 'USD' });
    if (!c.ok) throw new Error(c.message);
    return c.account;
  };
  return { store, sender: r.account, claims: make(store, crashAt), fresh: () => make(store), events, claimant };
}

const types = (es: Array<{ type: string; accountId: string }>) => es.map((e) => `${e.type}@${e.accountId}`).sort();

describe('claim steps are webhook events, exactly once', () => {
  it('create, claim: events for the sender (and transfer.claimed for the claimant), bodies of the transfer shape', async () => {
    const w = await world();
    const made = await w.claims.create(w.sender.id, { contact: 'c@example.com', amount: '20', currency: 'USD' });
    if (!made.ok) throw new Error(made.message);
    const z = await w.claimant();
    expect((await w.claims.claim(made.token, z.id)).ok).toBe(true);
    const es = await w.events();
    expect(types(es)).toEqual([`transfer.claim_created@${w.sender.id}`, `transfer.claimed@${w.sender.id}`, `transfer.claimed@${z.id}`].sort());
    for (const e of es) {
      expect(TransferEventPayload.parse(e.json)).toEqual(e.json);
      expect(e.paymentId).toBe(made.claim.id);
    }
    const created = es.find((e) => e.type === 'transfer.claim_created')!.json;
    expect(created.data).toMatchObject({ id: made.claim.id, object: 'transfer', type: 'claim', role: 'sender', status: 'open', amount: '20', currency: 'USDC', recipient: 'c•••@example.com', sender_account: w.sender.id });
    expect(created.data.tx_hash).toBe(made.claim.fundTxHash);
    expect(es.find((e) => e.accountId === z.id)!.json.data).toMatchObject({ role: 'recipient', status: 'claimed' });
  });

  const cases: Array<[ClaimStep, 'claim' | 'cancel' | 'create', string[]]> = [
    ['funding-recorded', 'create', ['transfer.claim_created']],
    ['funded', 'create', ['transfer.claim_created']],
    ['claiming-recorded', 'claim', ['transfer.claim_created', 'transfer.claimed', 'transfer.claimed']],
    ['paid', 'claim', ['transfer.claim_created', 'transfer.claimed', 'transfer.claimed']],
    ['returning-recorded', 'cancel', ['transfer.claim_canceled', 'transfer.claim_created']],
    ['returned', 'cancel', ['transfer.claim_canceled', 'transfer.claim_created']],
  ];
  for (const [step, op, expected] of cases) {
    it(`a crash at ${step} and two recovery sweeps: each event once`, async () => {
      const w = await world(step);
      const run = async () => {
        if (op === 'create') return w.claims.create(w.sender.id, { contact: 'c@example.com', amount: '20', currency: 'USD' });
        const made = await w.fresh().create(w.sender.id, { contact: 'c@example.com', amount: '20', currency: 'USD' });
        if (!made.ok) throw new Error(made.message);
        if (op === 'cancel') return w.claims.cancel(w.sender.id, made.claim.id);
        return w.claims.claim(made.token, (await w.claimant()).id);
      };
      await expect(run()).rejects.toBeInstanceOf(Crash);
      const again = w.fresh();
      await Promise.all([again.sweep(), w.fresh().sweep()]);
      await again.sweep();
      expect((await w.events()).map((e) => e.type).sort()).toEqual(expected);
    });
  }

  it('expiry by the sweep: transfer.claim_expired once', async () => {
    const w = await world();
    const made = await w.claims.create(w.sender.id, { contact: 'c@example.com', amount: '20', currency: 'USD' });
    if (!made.ok) throw new Error(made.message);
    await w.store.write(Claims, (t) => t.update(made.claim.id, { expiresAt: new Date(Date.now() - 1000).toISOString() }));
    await Promise.all([w.claims.sweep(), w.fresh().sweep()]);
    const es = await w.events();
    expect(types(es)).toEqual([`transfer.claim_created@${w.sender.id}`, `transfer.claim_expired@${w.sender.id}`]);
    expect(es.find((e) => e.type === 'transfer.claim_expired')!.json.data).toMatchObject({ status: 'expired', role: 'sender' });
  });
});
