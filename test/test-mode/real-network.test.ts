/**
 * Issue 24, section 2, "where test mode settles": on a deployment with a real network
 * (CHAIN_RPC_URL, played by an anvil with the token deployed by someone else), test mode settles
 * on its own chain: the network TEST_CHAIN_* names (a second anvil here), or without it an
 * embedded anvil the service starts for test mode. Every money path takes the record's mode's
 * chain: a test key's checkout payment, its refund, a hand transfer into its deposit address, the
 * x402 door of its session, direct facilitator calls with a test key, and a test key's agent
 * transfer move test money on the test chain only; a live key's stay on the live chain.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getAddress, type Address, type Hex, type PrivateKeyAccount } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { x402Client, wrapFetchWithPayment } from '@x402/fetch';
import { ExactEvmScheme as ExactEvmClientScheme } from '@x402/evm/exact/client';
import { startTokenChain } from '../chain/helpers.js';
import { call, createMerchant, startTestService, type Merchant, type TestService } from '../helpers/service.js';
import { authorize, settle, usdc, type Ctx } from '../settlement/helpers.js';
import { authCaptureFetch, signedRequest } from '../x402/helpers.js';
import { stablecoinAbi } from '../../src/chain/artifacts/stablecoin.js';
import type { ChainService } from '../../src/chain/chain.js';
import { Transfers } from '../../src/transfers/transfers.js';
import { SettlementAttempts } from '../../src/settlement/attempts.js';
import { Deposits } from '../../src/settlement/deposit-records.js';
import { DEPOSIT_MODE_BACKFILL, StoreBackfills } from '../../src/core/livemode-backfill.js';
import { Refunds } from '../../src/refunds/model.js';
import { SpendReservations } from '../../src/policies/tables.js';

type TokenChain = Awaited<ReturnType<typeof startTokenChain>>;

/** The chain's view of a transaction: mined successfully there, or unknown. */
async function minedOn(t: TokenChain, hash: string): Promise<boolean> {
  const r = await t.publicClient.getTransactionReceipt({ hash: hash as Hex }).catch(() => undefined);
  return r?.status === 'success';
}

/** A payment made with `key` through the API. */
async function pay(svc: TestService, key: string, amount = 4) {
  const res = await call(`${svc.api}/v1/payments`, { key, body: { amount, currency: 'USD', redirect_url: 'https://shop.example/thanks' } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; livemode: boolean; x402_url: string; pay_to: string; stablecoin_amount_base_units: string };
}

async function testKeyOf(svc: TestService, m: Merchant): Promise<string> {
  const made = await call(`${svc.api}/keys`, { cookie: m.cookie, body: { label: 'sandbox', mode: 'test' } });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  expect(made.body.key.secret).toMatch(/^sk_test_/);
  return made.body.key.secret;
}

describe('test mode on TEST_CHAIN_* beside a real network', () => {
  let live: TokenChain;
  let test: TokenChain;
  let svc: TestService;
  let m: Merchant;
  let testKey: string;
  let wallet: Address;

  beforeAll(async () => {
    [live, test] = await Promise.all([startTokenChain(), startTokenChain({ chainId: 84532 })]);
    svc = await startTestService({
      CHAIN_RPC_URL: live.anvil.rpcUrl,
      CHAIN_ID: String(live.anvil.chainId),
      TOKEN_ADDRESS: live.token,
      RELAYER_PRIVATE_KEY: await live.fundedKey(),
      TEST_CHAIN_RPC_URL: test.anvil.rpcUrl,
      TEST_CHAIN_ID: '84532',
      TEST_TOKEN_ADDRESS: test.token,
      TEST_RELAYER_PRIVATE_KEY: await test.fundedKey(),
      RECONCILE_INTERVAL: '1h',
      DEPOSIT_WATCH_INTERVAL: '1h',
      AGENT_RATE_LIMIT: '1000/min',
      MONEY_RECONCILE_IDLE: '0',
    });
    m = await createMerchant(svc.api, 'Two Chains Shop');
    testKey = await testKeyOf(svc, m);
    wallet = svc.deps.chain.custodialAddress((await svc.deps.accounts.get(m.accountId))!.walletIndex);
  });
  afterAll(async () => {
    await svc?.stop({ removeData: true });
    await Promise.all([live?.anvil.stop(), test?.anvil.stop()]);
  });

  it('boots both chains: the live one is the configured network, test mode is on TEST_CHAIN_*', async () => {
    expect(svc.deps.chain.chainId).toBe(live.anvil.chainId);
    expect(svc.deps.testChain!.chainId).toBe(84532);
    expect(svc.deps.testChain!.tokenAddress).toBe(test.token);
    const ping = await call(`${svc.api}/v1/ping`, { key: testKey });
    expect(ping.body).toMatchObject({ ok: true, live: false });
    expect((await call(`${svc.url}/readyz`)).status).toBe(200);
  });

  it("a test key's payment settles on the test chain, a live key's on the live chain; each refund on its own", async () => {
    const ctx: Ctx = { svc, merchant: m };
    const payer = privateKeyToAccount(generatePrivateKey());
    await Promise.all([live.mint(payer.address, usdc('20')), test.mint(payer.address, usdc('20'))]);

    const tp = await pay(svc, testKey);
    expect(tp.livemode).toBe(false);
    const signedTest = await authorize(ctx, tp.id, payer);
    expect(signedTest.typedData.domain).toMatchObject({ chainId: 84532, verifyingContract: test.token });
    const st = await settle(ctx, tp.id, signedTest);
    expect(st.status, JSON.stringify(st.body)).toBe(200);
    expect(st.body.payment).toMatchObject({ chainId: 84532, tokenAddress: test.token });
    expect(await minedOn(test, st.body.txHash)).toBe(true);
    expect(await minedOn(live, st.body.txHash)).toBe(false);
    expect(await test.balanceOf(payer.address)).toBe(usdc('16'));
    expect(await live.balanceOf(payer.address)).toBe(usdc('20'));

    const lp = await pay(svc, m.key);
    const sl = await settle(ctx, lp.id, await authorize(ctx, lp.id, payer));
    expect(sl.status, JSON.stringify(sl.body)).toBe(200);
    expect(await minedOn(live, sl.body.txHash)).toBe(true);
    expect(await minedOn(test, sl.body.txHash)).toBe(false);
    expect(await live.balanceOf(payer.address)).toBe(usdc('16'));

    // Refunds: from the merchant's wallet on each payment's own chain back to the payer.
    const rt = await call(`${svc.api}/v1/payments/${tp.id}/refunds`, { key: testKey, body: { amount: 1 } });
    expect(rt.status, JSON.stringify(rt.body)).toBe(201);
    expect(rt.body).toMatchObject({ status: 'succeeded', livemode: false });
    expect(await minedOn(test, rt.body.tx_hash)).toBe(true);
    expect(await test.balanceOf(payer.address)).toBe(usdc('17'));
    const rl = await call(`${svc.api}/v1/payments/${lp.id}/refunds`, { key: m.key, body: { amount: 1 } });
    expect(rl.status, JSON.stringify(rl.body)).toBe(201);
    expect(await minedOn(live, rl.body.tx_hash)).toBe(true);
    expect(await live.balanceOf(payer.address)).toBe(usdc('17'));
    expect(await test.balanceOf(wallet)).toBe(usdc('3'));
    expect(await live.balanceOf(wallet)).toBe(usdc('3'));
  });

  it("a test key's agent refund is paid on the test chain and reserves against the spend cap in its own transaction", async () => {
    const ctx: Ctx = { svc, merchant: m };
    const payer = privateKeyToAccount(generatePrivateKey());
    await test.mint(payer.address, usdc('10'));
    const tp = await pay(svc, testKey, 3);
    const st = await settle(ctx, tp.id, await authorize(ctx, tp.id, payer));
    expect(st.status, JSON.stringify(st.body)).toBe(200);
    const held = await call(`${svc.api}/agent/settle`, { method: 'POST', key: testKey, body: { message: `refund 1 of ${tp.id}`, confirm: false } });
    expect(held.status, JSON.stringify(held.body)).toBe(200);
    const run = await call(`${svc.api}/agent/settle`, { method: 'POST', key: testKey, body: { confirm_action: held.body.pending.id } });
    expect(run.status, JSON.stringify(run.body)).toBe(200);
    const [refund] = await svc.deps.store.table(Refunds).findMany({ paymentId: tp.id });
    expect(refund).toMatchObject({ status: 'succeeded', livemode: false });
    expect(await minedOn(test, refund!.txHash!)).toBe(true);
    expect(await test.balanceOf(payer.address)).toBe(usdc('8'));
    // The reservation is written with the refund on test mode's own money set (src/core/build.ts), and committed by its outcome.
    expect(refund!.spendReservationId).toMatch(/^spr_/);
    expect((await svc.deps.store.table(SpendReservations).get(refund!.spendReservationId!))?.status).toBe('committed');
  });

  it("tokens sent by hand to a test-mode payment's deposit address settle it on the test chain; the live chain is not watched for it", async () => {
    const tp = await pay(svc, testKey, 2);
    const view = await call(`${svc.api}/checkout/${tp.id}`);
    expect(view.status).toBe(200);
    expect(view.body.payment).toMatchObject({ chainId: 84532, tokenAddress: test.token });
    const deposit = getAddress(view.body.payment.depositAddress);
    expect(view.body.payment.paymentUri).toContain(`${test.token}@84532`);
    // A wallet sends live money to the same address on the live chain: never credited to the test session.
    const sender = await live.fundedAccount();
    await live.mint(sender.address, usdc('5'));
    await transfer(live, sender, deposit, usdc('2'));
    const walletLiveBefore = await live.balanceOf(wallet);
    await svc.deps.settlement.deposits.pass();
    expect((await svc.deps.payments.get(tp.id))!.status).toBe('pending');

    const payer = privateKeyToAccount(await test.fundedKey());
    await test.mint(payer.address, usdc('5'));
    await transfer(test, payer, deposit, usdc('2'));
    const before = await test.balanceOf(wallet);
    await svc.deps.settlement.deposits.pass();
    const settled = (await svc.deps.payments.get(tp.id))!;
    expect(settled.status).toBe('settled');
    expect(await minedOn(test, settled.txHash!)).toBe(true);
    expect(await test.balanceOf(wallet)).toBe(before + usdc('2'));
    expect(await live.balanceOf(wallet)).toBe(walletLiveBefore);
    expect(await live.balanceOf(deposit)).toBe(usdc('2'));
  });

  it("the x402 door of a test-mode session asks for, and settles on, the test network", async () => {
    const tp = await pay(svc, testKey, 1.5);
    const local = svc.url + new URL(tp.x402_url).pathname;
    const unpaid = await fetch(local);
    expect(unpaid.status).toBe(402);
    const required = JSON.parse(Buffer.from(unpaid.headers.get('payment-required')!, 'base64').toString());
    expect(required.accepts[0]).toMatchObject({ network: 'eip155:84532', asset: test.token, payTo: tp.pay_to });

    const agent = privateKeyToAccount(generatePrivateKey());
    await test.mint(agent.address, usdc('5'));
    const paid = await payingFetch(agent, svc.deps.testChain!)(local);
    expect(paid.status, await paid.clone().text()).toBe(200);
    const body = (await paid.json()) as { status: string; tx_hash: string };
    expect(body.status).toBe('settled');
    expect(await minedOn(test, body.tx_hash)).toBe(true);
    expect(await minedOn(live, body.tx_hash)).toBe(false);
    expect(await test.balanceOf(agent.address)).toBe(usdc('3.5'));
  });

  it('direct facilitator calls: a test key settles on the test network only, a live key on the live network only', async () => {
    const payer = privateKeyToAccount(generatePrivateKey());
    await Promise.all([live.mint(payer.address, usdc('5')), test.mint(payer.address, usdc('5'))]);
    const payTo = privateKeyToAccount(generatePrivateKey()).address;
    const onTest = await signedRequest({ deps: { chain: svc.deps.testChain! } } as TestService, payer, { payTo, amount: '1000000' });
    const supported = await call(`${svc.api}/x402/supported`, { key: testKey });
    expect(supported.body.kinds[0]).toMatchObject({ network: 'eip155:84532' });

    // A live key cannot settle a test-network payment, nor a test key a live-network one.
    const crossed = await call(`${svc.api}/x402/settle`, { key: m.key, body: { x402Version: 2, ...onTest } });
    expect(crossed.body.success, JSON.stringify(crossed.body)).toBe(false);
    const onLive = await signedRequest(svc, payer, { payTo, amount: '1000000' });
    const crossed2 = await call(`${svc.api}/x402/settle`, { key: testKey, body: { x402Version: 2, ...onLive } });
    expect(crossed2.body.success, JSON.stringify(crossed2.body)).toBe(false);
    expect(await live.balanceOf(payTo)).toBe(0n);

    const done = await call(`${svc.api}/x402/settle`, { key: testKey, body: { x402Version: 2, ...onTest } });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body).toMatchObject({ success: true, network: 'eip155:84532' });
    expect(await minedOn(test, done.body.transaction)).toBe(true);
    expect(await test.balanceOf(payTo)).toBe(usdc('1'));
    expect(await live.balanceOf(payTo)).toBe(0n);
  });

  it("a test key's agent transfer moves test money on the test chain only; /me shows each mode's balance", async () => {
    const to = privateKeyToAccount(generatePrivateKey()).address;
    await test.mint(wallet, usdc('10'));
    const [liveBefore, testBefore] = await Promise.all([live.balanceOf(wallet), test.balanceOf(wallet)]);
    // One wallet address, a balance per mode: the test key sees the test chain's, the live key the live chain's.
    const me = await call(`${svc.api}/me`, { key: testKey });
    expect(me.body.account.wallet).toMatchObject({ address: wallet, balance_base_units: String(testBefore) });
    const meLive = await call(`${svc.api}/me`, { key: m.key });
    expect(meLive.body.account.wallet).toMatchObject({ address: wallet, balance_base_units: String(liveBefore) });
    expect(testBefore).not.toBe(liveBefore);

    const sent = await call(`${svc.api}/agent/settle`, { key: testKey, body: { message: `send 2 USD to ${to}` } });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    expect(await test.balanceOf(to)).toBe(usdc('2'));
    expect(await live.balanceOf(to)).toBe(0n);
    expect(await live.balanceOf(wallet)).toBe(liveBefore);
    expect(await test.balanceOf(wallet)).toBeLessThan(testBefore);
    const row = (await svc.deps.transfers.history(m.accountId)).find((t) => t.toAddress.toLowerCase() === to.toLowerCase());
    expect(row).toMatchObject({ status: 'settled', livemode: false });
    expect(await minedOn(test, row!.txHash!)).toBe(true);

    // The same move with a live key settles on the live network.
    await live.mint(wallet, usdc('10'));
    const liveSent = await call(`${svc.api}/agent/settle`, { key: m.key, body: { message: `send 2 USD to ${to}` } });
    expect(liveSent.status, JSON.stringify(liveSent.body)).toBe(200);
    expect(await live.balanceOf(to)).toBe(usdc('2'));
    expect(await test.balanceOf(to)).toBe(usdc('2'));

    // The money sweep: a test transfer left `submitted` (a crash before its receipt) is finished
    // from the test chain; the live chain's services never take it (they would sign it afresh there).
    await svc.deps.store.write(Transfers, (t) => t.update(row!.id, { status: 'submitted' }));
    // ...before its attempt was recorded, so nothing but the chain can say it moved.
    for (const a of await svc.deps.store.table(SettlementAttempts).findMany({ subject: row!.id })) await svc.deps.store.write(SettlementAttempts, (t) => t.remove(a.id));
    const walletLive = await live.balanceOf(wallet);
    expect(await svc.deps.scheduler.runNow('reconcile:money')).toBe(true);
    expect(await svc.deps.transfers.get(row!.id)).toMatchObject({ status: 'settled', txHash: row!.txHash, livemode: false });
    expect(await live.balanceOf(wallet)).toBe(walletLive);
    expect(await live.balanceOf(to)).toBe(usdc('2'));
    expect(await test.balanceOf(to)).toBe(usdc('2'));
  });
});

describe('test mode on an embedded anvil beside a real network (no TEST_CHAIN_*)', () => {
  let live: TokenChain;
  let env: Record<string, string>;
  let svc: TestService;
  let m: Merchant;

  beforeAll(async () => {
    live = await startTokenChain();
    env = {
      CHAIN_RPC_URL: live.anvil.rpcUrl,
      CHAIN_ID: String(live.anvil.chainId),
      TOKEN_ADDRESS: live.token,
      RELAYER_PRIVATE_KEY: await live.fundedKey(),
      RECONCILE_INTERVAL: '1h',
      DEPOSIT_WATCH_INTERVAL: '1h',
    };
    svc = await startTestService(env);
    m = await createMerchant(svc.api, 'Embedded Sandbox Shop');
  });
  afterAll(async () => {
    await svc?.stop({ removeData: true });
    await live?.anvil.stop();
  });

  it("a test key's payment settles on the embedded test anvil (funded by the faucet), never on the live network", async () => {
    const tc = svc.deps.testChain!;
    expect(tc.embedded).toBe(true);
    expect(tc.chainId).not.toBe(live.anvil.chainId);
    const testKey = await testKeyOf(svc, m);
    const payer = privateKeyToAccount(generatePrivateKey());
    // The dev faucet mints test money on test mode's chain only.
    const funded = await call(`${svc.api}/dev/faucet`, { body: { address: payer.address, amount: '10' } });
    expect(funded.status, JSON.stringify(funded.body)).toBe(200);
    expect(await tc.balanceOf(payer.address)).toBe(usdc('10'));
    expect(await live.balanceOf(payer.address)).toBe(0n);

    const ctx: Ctx = { svc, merchant: m };
    const tp = await pay(svc, testKey);
    const st = await settle(ctx, tp.id, await authorize(ctx, tp.id, payer));
    expect(st.status, JSON.stringify(st.body)).toBe(200);
    expect(st.body.payment.chainId).toBe(tc.chainId);
    expect((await tc.waitForReceipt(st.body.txHash, 5_000)).status).toBe('success');
    expect(await minedOn(live, st.body.txHash)).toBe(false);
    const rt = await call(`${svc.api}/v1/payments/${tp.id}/refunds`, { key: testKey, body: {} });
    expect(rt.status, JSON.stringify(rt.body)).toBe(201);
    expect(await tc.balanceOf(payer.address)).toBe(usdc('10'));

    // The facilitator of each key's mode: the embedded test chain has the auth-capture escrow, the live network here has none.
    const kinds = async (key: string) => ((await call(`${svc.api}/x402/supported`, { key })).body.kinds as { scheme: string; network: string }[]).map((k) => `${k.scheme}@${k.network}`);
    expect(await kinds(testKey)).toEqual([`exact@eip155:${tc.chainId}`, `auth-capture@eip155:${tc.chainId}`]);
    expect(await kinds(m.key)).toEqual([`exact@eip155:${live.anvil.chainId}`]);
    // A test-mode manual-capture session asks for an auth-capture authorization on the test chain.
    const manual = await call(`${svc.api}/v1/payments`, { key: testKey, body: { amount: 3, currency: 'USD', redirect_url: 'https://shop.example/x', capture_method: 'manual' } });
    expect(manual.status, JSON.stringify(manual.body)).toBe(201);
    const asked = await fetch(svc.url + new URL(manual.body.x402_url).pathname);
    expect(asked.status).toBe(402);
    const terms = JSON.parse(Buffer.from(asked.headers.get('payment-required')!, 'base64').toString());
    expect(terms.accepts[0]).toMatchObject({ scheme: 'auth-capture', network: `eip155:${tc.chainId}` });
  });

  it("a test-mode hold is authorized on the test chain's escrow and voided there by the expiry sweep", async () => {
    const tc = svc.deps.testChain!;
    const testKey = await testKeyOf(svc, m);
    const payer = privateKeyToAccount(generatePrivateKey());
    expect((await tc.faucet(payer.address, usdc('5'), { nativeAmount: 0n })).ok).toBe(true);
    const made = await call(`${svc.api}/v1/payments`, { key: testKey, body: { amount: 3, currency: 'USD', redirect_url: 'https://shop.example/x', capture_method: 'manual' } });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const paid = await authCaptureFetch(payer, tc)(svc.url + new URL(made.body.x402_url).pathname);
    expect(paid.status, await paid.clone().text()).toBe(200);
    expect(await tc.balanceOf(payer.address)).toBe(usdc('2'));
    const held = await call(`${svc.api}/v1/payments/${made.body.id}`, { key: testKey });
    expect(held.body).toMatchObject({ status: 'authorized', amount_capturable: '3' });
    // A test key captures its own test payment (a live key does not see it).
    expect((await call(`${svc.api}/v1/payments/${made.body.id}/void`, { key: m.key, body: {} })).status).toBe(404);
    const captured = await call(`${svc.api}/v1/payments/${made.body.id}/capture`, { key: testKey, body: { amount: 1 } });
    expect(captured.status, JSON.stringify(captured.body)).toBe(200);
    expect(captured.body).toMatchObject({ status: 'captured', amount_captured: '1', amount_capturable: '2' });

    // The expiry sweep, run as if past the capture deadline: the test chain's escrow voids what it still holds.
    await svc.deps.manualCapture!.sweep(Date.now() + 30 * 86_400_000);
    const after = await call(`${svc.api}/v1/payments/${made.body.id}`, { key: testKey });
    expect(after.body).toMatchObject({ status: 'captured', amount_voided: '2', amount_capturable: '0' });
    expect(await tc.balanceOf(payer.address)).toBe(usdc('4'));
  });

  it('direct facilitator calls with a test key settle on the embedded test anvil only; a live-network payload is refused and the reverse', async () => {
    const tc = svc.deps.testChain!;
    const testKey = await testKeyOf(svc, m);
    const payer = privateKeyToAccount(generatePrivateKey());
    expect((await tc.faucet(payer.address, usdc('5'), { nativeAmount: 0n })).ok).toBe(true);
    await live.mint(payer.address, usdc('5'));
    const payTo = privateKeyToAccount(generatePrivateKey()).address;
    const onTest = await signedRequest({ deps: { chain: tc } } as TestService, payer, { payTo, amount: '1000000' });
    const onLive = await signedRequest(svc, payer, { payTo, amount: '1000000' });
    // A test key never settles the live network's payload, a live key never the test anvil's.
    const crossed = await call(`${svc.api}/x402/settle`, { key: testKey, body: { x402Version: 2, ...onLive } });
    expect(crossed.body.success, JSON.stringify(crossed.body)).toBe(false);
    const crossed2 = await call(`${svc.api}/x402/settle`, { key: m.key, body: { x402Version: 2, ...onTest } });
    expect(crossed2.body.success, JSON.stringify(crossed2.body)).toBe(false);
    expect(await live.balanceOf(payTo)).toBe(0n);
    expect(await tc.balanceOf(payTo)).toBe(0n);

    const verified = await call(`${svc.api}/x402/verify`, { key: testKey, body: { x402Version: 2, ...onTest } });
    expect(verified.body, JSON.stringify(verified.body)).toMatchObject({ isValid: true });
    const done = await call(`${svc.api}/x402/settle`, { key: testKey, body: { x402Version: 2, ...onTest } });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body).toMatchObject({ success: true, network: `eip155:${tc.chainId}` });
    expect((await tc.waitForReceipt(done.body.transaction, 5_000)).status).toBe('success');
    expect(await minedOn(live, done.body.transaction)).toBe(false);
    expect(await tc.balanceOf(payTo)).toBe(usdc('1'));
    expect(await live.balanceOf(payTo)).toBe(0n);
    expect(await live.balanceOf(payer.address)).toBe(usdc('5'));
  });

  it("a hand transfer into an old test-mode payment's deposit address (its record made before deposits carried their mode) settles it on the test anvil; live money sent there is not credited", async () => {
    const testKey = await testKeyOf(svc, m);
    const tp = await pay(svc, testKey, 2);
    const view = await call(`${svc.api}/checkout/${tp.id}`);
    const deposit = getAddress(view.body.payment.depositAddress);
    expect(view.body.payment.chainId).toBe(svc.deps.testChain!.chainId);
    // The store as the code before test mode's own chain left it: the record has no livemode
    // and the backfill never ran. The service starts again on it (same data, same database).
    const { livemode: _drop, ...old } = (await svc.deps.store.table(Deposits).get(tp.id))!;
    await svc.deps.store.write(Deposits, (t) => t.remove(tp.id));
    await svc.deps.store.write(Deposits, (t) => t.insert(old));
    await svc.deps.store.write(StoreBackfills, (t) => t.remove(DEPOSIT_MODE_BACKFILL));
    await svc.stop();
    svc = await startTestService(env, { dataDir: svc.dataDir });
    const tc = svc.deps.testChain!;
    // The pass the start runs ends before the money is sent (a pass called during one joins it).
    await svc.deps.settlement.deposits.pass();

    const sender = await live.fundedAccount();
    await live.mint(sender.address, usdc('5'));
    await transfer(live, sender, deposit, usdc('2'));
    await svc.deps.settlement.deposits.pass();
    expect((await svc.deps.payments.get(tp.id))!.status).toBe('pending');
    expect((await svc.deps.store.table(Deposits).get(tp.id))!.transfers).toEqual([]);
    expect(await live.balanceOf(deposit)).toBe(usdc('2'));

    expect((await tc.faucet(deposit, usdc('2'), { nativeAmount: 0n })).ok).toBe(true);
    await svc.deps.settlement.deposits.pass();
    const settled = (await svc.deps.payments.get(tp.id))!;
    expect(settled.status).toBe('settled');
    expect((await tc.waitForReceipt(settled.txHash! as Hex, 5_000)).status).toBe('success');
    expect(await minedOn(live, settled.txHash!)).toBe(false);
    expect(await live.balanceOf(deposit)).toBe(usdc('2'));
    expect((await svc.deps.store.table(Deposits).get(tp.id))!.transfers).toHaveLength(1);
  });
});

/** A plain ERC-20 transfer, as any phone wallet sends one. */
async function transfer(t: TokenChain, from: PrivateKeyAccount, to: Address, value: bigint): Promise<void> {
  const hash = await t.walletFor(from).writeContract({ address: t.token, abi: stablecoinAbi, functionName: 'transfer', args: [to, value] });
  await t.publicClient.waitForTransactionReceipt({ hash });
}

/** @x402/fetch paying on `chain` (the test network here). */
function payingFetch(signer: PrivateKeyAccount, chain: ChainService): typeof fetch {
  const network = `eip155:${chain.chainId}` as const;
  const client = x402Client.fromConfig({
    schemes: [{ network, client: new ExactEvmClientScheme(signer) }],
    spendControls: { allowedAssets: [{ network, asset: chain.tokenAddress, maxAmountPerPayment: '100000000' }] },
  });
  return wrapFetchWithPayment(fetch, client);
}
