import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountsService } from '../../src/accounts/accounts.js';
import { FxService, loadFxTable } from '../../src/fx/rates.js';
import { QuotesService } from '../../src/quotes/quotes.js';
import { HttpRateSource, RatesUnavailable } from '../../src/quotes/rate-source.js';
import { LowdbStore } from '../../src/store/index.js';
import { TransfersService } from '../../src/transfers/transfers.js';
import { WalletDirectory } from '../../src/wallet/directory.js';
import { FakeChain } from '../helpers/fake-chain.js';

/**
 * The live-provider adapter (docs/quotes.md "Live rates") against a loopback fake provider:
 * its rates price the quote, a quote keeps its figures when the provider moves, and a provider
 * that fails refuses the quote instead of pricing it at a stale rate.
 */
describe('HttpRateSource with a loopback fake provider', () => {
  let server: http.Server;
  let url: string;
  let answer: { status: number; body: unknown } = { status: 200, body: {} };
  let hits = 0;

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      hits++;
      expect(req.headers['x-api-key']).toBe('k1');
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer.body));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/rates`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const world = async (source: HttpRateSource) => {
    const store = LowdbStore.inMemory();
    const chain = new FakeChain();
    const fx = new FxService(loadFxTable());
    const accounts = new AccountsService(store, {});
    const wallets = new WalletDirectory(chain, store);
    const transfers = new TransfersService(store, chain, fx, accounts, wallets, { logger: pino({ level: 'silent' }), confirmTimeoutMs: 20 });
    const quotes = new QuotesService(store, source, accounts, wallets, transfers, { ttlMs: 60_000 });
    const made = await accounts.create({ name: 'Wanjiru', email: 'w@example.com', localCurrency: 'KES' });
    const to = await accounts.create({ name: 'Amina', email: 'a@example.com', localCurrency: 'NGN' });
    if (!made.ok || !to.ok) throw new Error('accounts');
    chain.fund(wallets.addressOf(made.account), 100_000_000n);
    return { quotes, sender: made.account, recipient: to.account, chain, wallets };
  };

  it('prices quotes at the provider rate, keeps the table for currencies it omits, and caches', async () => {
    answer = { status: 200, body: { base: 'USD', as_of: '2026-11-28T06:00:00Z', rates: { KES: '100', NGN: '2000', USDC: '5' } } };
    hits = 0;
    let t = 0;
    const source = new HttpRateSource({ url, base: new FxService(loadFxTable()), headers: { 'x-api-key': 'k1' }, cacheMs: 1_000, now: () => t });
    const snap = await source.snapshot();
    expect(snap.currency('NGN')!.rate).toBe('2000');
    expect(snap.currency('USDC')!.rate).toBe('1'); // The peg is never taken from a provider.
    expect(snap.currency('GHS')!.rate).toBe(loadFxTable().currencies.GHS!.rate);
    await source.snapshot();
    expect(hits).toBe(1);

    const w = await world(source);
    const q = await w.quotes.create(w.sender.id, { amount: '1000', currency: 'KES', recipient: 'a@example.com' });
    expect(q.ok).toBe(true);
    if (!q.ok) return;
    // 1000 KES at 100/USD = 10 USDC; at 2000 NGN/USD = 20,000 NGN.
    expect(q.quote).toMatchObject({ stablecoinAmount: '10000000', recipientAmount: '20000', rate: '20', rateSource: 'http', ratesAsOf: '2026-11-28T06:00:00Z' });

    // The provider moves; after the cache period the next snapshot has it, the quote does not change.
    answer = { status: 200, body: { base: 'USD', as_of: '2026-11-28T06:01:00Z', rates: { KES: '100', NGN: '3000' } } };
    t = 2_000;
    expect((await source.snapshot()).currency('NGN')!.rate).toBe('3000');
    const sent = await w.quotes.execute(w.sender.id, q.quote.id, { recipient: 'a@example.com', amount: '1000', currency: 'KES' });
    expect(sent.ok, JSON.stringify(sent)).toBe(true);
    if (!sent.ok) return;
    expect(sent.transfer).toMatchObject({ status: 'settled', recipientAmount: '20000', stablecoinAmount: '10000000', quoteId: q.quote.id });
    expect(w.chain.balance(w.wallets.addressOf(w.recipient))).toBe(10_000_000n);
  });

  it('a failing or malformed provider refuses the quote (rates_unavailable), never a stale price', async () => {
    let t = 0;
    const source = new HttpRateSource({ url, base: new FxService(loadFxTable()), headers: { 'x-api-key': 'k1' }, cacheMs: 0, now: () => ++t });
    answer = { status: 500, body: { error: 'down' } };
    await expect(source.snapshot()).rejects.toBeInstanceOf(RatesUnavailable);
    answer = { status: 200, body: { base: 'EUR', rates: {} } };
    await expect(source.snapshot()).rejects.toBeInstanceOf(RatesUnavailable);
    const w = await world(source);
    const q = await w.quotes.create(w.sender.id, { amount: '1000', currency: 'KES', to_currency: 'NGN' });
    expect(q).toMatchObject({ ok: false, reason: 'rates_unavailable' });
    const dead = new HttpRateSource({ url: 'http://127.0.0.1:1/rates', base: new FxService(loadFxTable()) });
    await expect(dead.snapshot()).rejects.toBeInstanceOf(RatesUnavailable);
  });

  it('execute refuses a quote asked for a different amount or recipient, and one already used', async () => {
    answer = { status: 200, body: { base: 'USD', as_of: 'now', rates: {} } };
    const source = new HttpRateSource({ url, base: new FxService(loadFxTable()), headers: { 'x-api-key': 'k1' } });
    const w = await world(source);
    const q = await w.quotes.create(w.sender.id, { amount: '1000', currency: 'KES', recipient: 'a@example.com' });
    if (!q.ok) throw new Error(q.message);
    expect(await w.quotes.execute(w.sender.id, q.quote.id, { recipient: 'a@example.com', amount: '2000', currency: 'KES' })).toMatchObject({ ok: false, reason: 'quote_mismatch' });
    expect(await w.quotes.execute('acct_someoneelse', q.quote.id, { recipient: 'a@example.com', amount: '1000', currency: 'KES' })).toMatchObject({ ok: false, reason: 'quote_not_found' });
    expect(w.chain.sent).toHaveLength(0);
    const [a, b] = await Promise.all([
      w.quotes.execute(w.sender.id, q.quote.id, { recipient: 'a@example.com', amount: '1000.00', currency: 'KES' }),
      w.quotes.execute(w.sender.id, q.quote.id, { recipient: 'a@example.com', amount: '1000', currency: 'KES' }),
    ]);
    expect([a.ok, b.ok].sort()).toEqual([false, true]);
    expect([a, b].find((r) => !r.ok)).toMatchObject({ reason: 'quote_used' });
  });
});
