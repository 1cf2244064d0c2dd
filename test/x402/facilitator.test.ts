/**
 * The x402 v2 facilitator proven with the real packages: @x402/express protects a merchant's
 * route with HTTPFacilitatorClient pointed at /api/x402, @x402/fetch + @x402/evm pay it from a
 * funded key on the embedded chain. Then the negative cases straight at the facilitator.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWalletClient, http as viemHttp, parseEther, parseGwei, type Address, type Hex } from 'viem';
import { stablecoinAbi } from '../../src/chain/artifacts/stablecoin.js';
import { decodePaymentResponseHeader } from '@x402/fetch';
import { call, createMerchant, startTestService, type Merchant, type TestService } from '../helpers/service.js';
import { newPayer, payingFetch, signedRequest, startResourceServer, until, type ResourceServer } from './helpers.js';

const PRICE = '10000'; // 0.01 USDC

let svc: TestService;
let merchant: Merchant;
let other: Merchant;
let shop: ResourceServer;
let payTo: Address;

beforeAll(async () => {
  svc = await startTestService({ RECONCILE_INTERVAL: '1h' });
  merchant = await createMerchant(svc.api, 'Weather Co');
  other = await createMerchant(svc.api, 'Other Co');
  payTo = newPayer().address;
  shop = await startResourceServer(svc, merchant.key, payTo, PRICE);
});

afterAll(async () => {
  await shop?.close();
  await svc?.stop({ removeData: true });
});

async function funded(amount: bigint) {
  const payer = newPayer();
  const r = await svc.deps.chain.faucet(payer.address, amount, { nativeAmount: 0n });
  expect(r.ok).toBe(true);
  return payer;
}

const facilitator = (path: string, body: unknown, key = merchant.key) => call(`${svc.api}/x402/${path}`, { key, body });

describe('x402 facilitator with @x402/express, @x402/fetch and @x402/evm', () => {
  it('answers 402, then 200 once paid; the payment response is our mined transaction and our relayer paid the gas', async () => {
    const chain = svc.deps.chain;
    const unpaid = await fetch(`${shop.url}/weather`);
    expect(unpaid.status).toBe(402);
    expect(unpaid.headers.get('payment-required')).toBeTruthy();

    const payer = await funded(50_000n);
    const before = { payer: await chain.balanceOf(payer.address), payTo: await chain.balanceOf(payTo), relayerEth: await chain.nativeBalance(chain.relayerAddress) };
    const { fetch: pay, sent } = payingFetch(payer, svc);
    const res = await pay(`${shop.url}/weather`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ forecast: 'sunny' });
    expect(sent.some((h) => h.get('payment-signature'))).toBe(true);

    const settled = decodePaymentResponseHeader(res.headers.get('payment-response')!);
    expect(settled.success).toBe(true);
    expect(settled.network).toBe(`eip155:${chain.chainId}`);
    expect(settled.payer?.toLowerCase()).toBe(payer.address.toLowerCase());
    const receipt = await chain.publicClient.getTransactionReceipt({ hash: settled.transaction as Hex });
    expect(receipt.status).toBe('success');
    expect(receipt.from.toLowerCase()).toBe(chain.relayerAddress.toLowerCase());

    expect(await chain.balanceOf(payer.address)).toBe(before.payer - 10_000n);
    expect(await chain.balanceOf(payTo)).toBe(before.payTo + 10_000n);
    expect(await chain.nativeBalance(payer.address)).toBe(0n); // the payer had no gas money at all
    expect(await chain.nativeBalance(chain.relayerAddress)).toBeLessThan(before.relayerEth);

    // The gas is booked to the merchant whose key settled, and only to them.
    const usage = await call(`${svc.api}/x402/usage`, { key: merchant.key });
    expect(usage.status).toBe(200);
    expect(usage.body.settlements).toBe(1);
    expect(usage.body.gas_used).toBe(receipt.gasUsed.toString());
    expect(usage.body.gas_cost_wei).toBe((receipt.gasUsed * receipt.effectiveGasPrice).toString());
    expect(usage.body.recent[0].transaction).toBe(settled.transaction);
    const otherUsage = await call(`${svc.api}/x402/usage`, { key: other.key });
    expect(otherUsage.body.settlements).toBe(0);
    // ... and shown to them, signed in, on the Developers screen.
    const screen = await (await fetch(`${svc.url}/app/developers`, { headers: { cookie: merchant.cookie } })).text();
    expect(screen).toContain(`data-settlements="1" data-gas-used="${receipt.gasUsed}" data-gas-cost-wei="${receipt.gasUsed * receipt.effectiveGasPrice}"`);
    expect(screen).toContain(settled.transaction);
    const otherScreen = await (await fetch(`${svc.url}/app/developers`, { headers: { cookie: other.cookie } })).text();
    expect(otherScreen).toContain('data-settlements="0"');
    expect(otherScreen).not.toContain(settled.transaction);

    // Replaying the same signed payment to the merchant gets no second response, and moves nothing.
    const signatureHeader = sent.map((h) => h.get('payment-signature')).find(Boolean)!;
    const replay = await fetch(`${shop.url}/weather`, { headers: { 'PAYMENT-SIGNATURE': signatureHeader } });
    expect(replay.status).toBe(402);
    const replayed = JSON.parse(Buffer.from(signatureHeader, 'base64').toString());
    const v = await facilitator('verify', { x402Version: 2, paymentPayload: replayed, paymentRequirements: replayed.accepted });
    expect(v.body).toMatchObject({ isValid: false, invalidReason: 'invalid_exact_evm_nonce_already_used' });
    const s = await facilitator('settle', { x402Version: 2, paymentPayload: replayed, paymentRequirements: replayed.accepted });
    expect(s.body).toMatchObject({ success: false, errorReason: 'invalid_exact_evm_nonce_already_used', transaction: settled.transaction });
    expect(await chain.balanceOf(payer.address)).toBe(before.payer - 10_000n);
  });

  it('lists the exact scheme on our network with our relayer as signer', async () => {
    const res = await call(`${svc.api}/x402/supported`, { key: merchant.key });
    expect(res.status).toBe(200);
    // exact, then auth-capture (issue 25; its own test: test/x402/auth-capture.test.ts).
    expect(res.body.kinds).toEqual([
      expect.objectContaining({ x402Version: 2, scheme: 'exact', network: `eip155:${svc.deps.chain.chainId}` }),
      expect.objectContaining({ x402Version: 2, scheme: 'auth-capture', network: `eip155:${svc.deps.chain.chainId}` }),
    ]);
    expect(res.body.signers['eip155:*']).toEqual([svc.deps.chain.relayerAddress]);
    expect(res.body.extensions).toEqual(['payment-identifier']);
  });

  it('needs a merchant key', async () => {
    for (const path of ['supported', 'usage']) {
      const res = await call(`${svc.api}/x402/${path}`);
      expect(res.status).toBe(401);
      expect(res.body.error.type).toBe('authentication_error');
    }
    expect((await call(`${svc.api}/x402/settle`, { body: {} })).status).toBe(401);
    expect((await call(`${svc.api}/x402/verify`, { key: 'sk_live_nope', body: {} })).status).toBe(401);
  });

  it('verifies a good authorization without moving money', async () => {
    const payer = await funded(20_000n);
    const req = await signedRequest(svc, payer, { payTo, amount: PRICE });
    const res = await facilitator('verify', { x402Version: 2, ...req });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ isValid: true, payer: payer.address });
    expect(await svc.deps.chain.balanceOf(payer.address)).toBe(20_000n);
  });

  it.each([
    ['an expired validBefore', { validBefore: BigInt(Math.floor(Date.now() / 1000) - 10) }, 'invalid_exact_evm_payload_authorization_valid_before'],
    ['a validAfter in the future', { validAfter: BigInt(Math.floor(Date.now() / 1000) + 3600) }, 'invalid_exact_evm_payload_authorization_valid_after'],
    ['a wrong amount', { value: 9_999n }, 'invalid_exact_evm_payload_authorization_value'],
    ['a wrong network', { network: 'eip155:1' }, 'invalid_network'],
  ] as const)('refuses %s: verify says why, settle sends nothing', async (_name, o, reason) => {
    const payer = await funded(20_000n);
    const req = await signedRequest(svc, payer, { payTo, amount: PRICE, ...o });
    const v = await facilitator('verify', { x402Version: 2, ...req });
    expect(v.status).toBe(200);
    expect(v.body).toMatchObject({ isValid: false, invalidReason: reason, payer: payer.address });
    const s = await facilitator('settle', { x402Version: 2, ...req });
    expect(s.status).toBe(200);
    expect(s.body).toMatchObject({ success: false, errorReason: reason, transaction: '' });
    expect(await svc.deps.chain.balanceOf(payer.address)).toBe(20_000n);
  });

  it('refuses a signature by someone else and a wrong recipient', async () => {
    const payer = await funded(20_000n);
    const req = await signedRequest(svc, payer, { payTo, amount: PRICE });
    const forged = structuredClone(req) as any;
    forged.paymentPayload.payload.authorization.from = (await funded(20_000n)).address;
    expect((await facilitator('verify', { x402Version: 2, ...forged })).body.invalidReason).toBe('invalid_exact_evm_payload_signature');
    const elsewhere = structuredClone(req) as any;
    elsewhere.paymentRequirements.payTo = newPayer().address;
    expect((await facilitator('verify', { x402Version: 2, ...elsewhere })).body.invalidReason).toBe('invalid_exact_evm_payload_recipient_mismatch');
  });

  it('refuses what only the simulation catches (a transfer the token refuses: payTo the zero address); settle sends nothing', async () => {
    const payer = await funded(20_000n);
    const zero = '0x0000000000000000000000000000000000000000' as Address;
    const req = await signedRequest(svc, payer, { payTo: zero, amount: PRICE });
    const v = await facilitator('verify', { x402Version: 2, ...req });
    expect(v.body).toMatchObject({ isValid: false, invalidReason: 'invalid_exact_evm_transaction_simulation_failed', payer: payer.address });
    const s = await facilitator('settle', { x402Version: 2, ...req });
    expect(s.body).toMatchObject({ success: false, errorReason: 'invalid_exact_evm_transaction_simulation_failed', transaction: '' });
    const nonce = (req.paymentPayload as any).payload.authorization.nonce as Hex;
    expect(await svc.deps.chain.authorizationState(payer.address, nonce)).toBe(false);
    expect(await svc.deps.chain.balanceOf(payer.address)).toBe(20_000n);
  });

  it('refuses an unfunded payer', async () => {
    const payer = newPayer();
    const req = await signedRequest(svc, payer, { payTo, amount: PRICE });
    expect((await facilitator('verify', { x402Version: 2, ...req })).body).toMatchObject({ isValid: false, invalidReason: 'insufficient_funds' });
    const s = await facilitator('settle', { x402Version: 2, ...req });
    expect(s.body).toMatchObject({ success: false, errorReason: 'insufficient_funds', transaction: '' });
  });

  it('a transfer that reverts because the payer spent its balance: insufficient_funds (as the hosted checkout answers), nothing booked; funded, the same payload settles', async () => {
    const chain = svc.deps.chain;
    const rpc = (method: string, params: unknown[] = []) => chain.publicClient.request({ method: method as never, params: params as never });
    // The payer has gas money so it can move its tokens itself, racing our relayed transfer.
    const payer = newPayer();
    expect((await chain.faucet(payer.address, 10_000n, { nativeAmount: parseEther('1') })).ok).toBe(true);
    const req = await signedRequest(svc, payer, { payTo, amount: PRICE });
    const nonce = (req.paymentPayload as any).payload.authorization.nonce as Hex;
    const payToBefore = await chain.balanceOf(payTo);
    const usageBefore = (await call(`${svc.api}/x402/usage`, { key: merchant.key })).body.settlements;
    const sentBefore = await chain.publicClient.getTransactionCount({ address: chain.relayerAddress, blockTag: 'pending' });
    await rpc('evm_setAutomine', [false]);
    let first: Awaited<ReturnType<typeof facilitator>>;
    try {
      const settling = facilitator('settle', { x402Version: 2, ...req });
      await until(async () => ((await chain.publicClient.getTransactionCount({ address: chain.relayerAddress, blockTag: 'pending' })) > sentBefore ? true : undefined), 'the relayed transaction');
      // In the same block, ahead of ours (a higher tip), the payer spends the balance elsewhere.
      const elsewhere = newPayer().address;
      const wallet = createWalletClient({ account: payer, chain: chain.publicClient.chain, transport: viemHttp(chain.rpcUrl) });
      await wallet.writeContract({ address: chain.tokenAddress, abi: stablecoinAbi, functionName: 'transfer', args: [elsewhere, 10_000n], gas: 100_000n, maxPriorityFeePerGas: parseGwei('500'), maxFeePerGas: parseGwei('1000') });
      await rpc('evm_mine');
      first = await settling;
    } finally {
      await rpc('evm_setAutomine', [true]);
    }
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ success: false, errorReason: 'insufficient_funds', payer: payer.address, transaction: '', network: `eip155:${chain.chainId}` });
    expect(first.body.errorMessage).toMatch(/spent/);
    // Our transaction did revert (gas spent), the authorization is unused, nothing moved or was booked.
    const relayed = (await chain.publicClient.getBlock({ blockTag: 'latest', includeTransactions: true })).transactions.find((t) => t.from.toLowerCase() === chain.relayerAddress.toLowerCase())!;
    expect((await chain.publicClient.getTransactionReceipt({ hash: relayed.hash })).status).toBe('reverted');
    expect(await chain.authorizationState(payer.address, nonce)).toBe(false);
    expect(await chain.balanceOf(payTo)).toBe(payToBefore);
    expect((await call(`${svc.api}/x402/usage`, { key: merchant.key })).body.settlements).toBe(usageBefore);

    // Funded again, the same payload settles once.
    expect((await chain.faucet(payer.address, 10_000n, { nativeAmount: 0n })).ok).toBe(true);
    const again = await facilitator('settle', { x402Version: 2, ...req });
    expect(again.body, JSON.stringify(again.body)).toMatchObject({ success: true, payer: payer.address });
    expect((await chain.publicClient.getTransactionReceipt({ hash: again.body.transaction as Hex })).status).toBe('success');
    expect(await chain.balanceOf(payTo)).toBe(payToBefore + 10_000n);
    expect((await call(`${svc.api}/x402/usage`, { key: merchant.key })).body.settlements).toBe(usageBefore + 1);
  });

  it('answers a malformed request 400 in the x402 shape', async () => {
    const v = await facilitator('verify', { x402Version: 2, paymentPayload: { x402Version: 2 } });
    expect(v.status).toBe(400);
    expect(v.body).toMatchObject({ isValid: false, invalidReason: 'invalid_payload' });
    const payer = newPayer();
    const req = (await signedRequest(svc, payer, { payTo, amount: PRICE })) as any;
    req.paymentPayload.payload.signature = 'nope';
    const s = await facilitator('settle', { x402Version: 2, ...req });
    expect(s.status).toBe(200);
    expect(s.body).toMatchObject({ success: false, errorReason: 'invalid_payload', transaction: '' });
  });

  it('settles one authorization sent 50 times at once exactly once: one transfer, one hash for every caller', async () => {
    const chain = svc.deps.chain;
    const payer = await funded(100_000n);
    const req = await signedRequest(svc, payer, { payTo, amount: PRICE });
    const payToBefore = await chain.balanceOf(payTo);
    const results = await Promise.all(Array.from({ length: 50 }, () => facilitator('settle', { x402Version: 2, ...req })));
    for (const r of results) expect(r.status).toBe(200);
    const hashes = new Set(results.map((r) => r.body.transaction));
    expect(hashes.size).toBe(1);
    const hash = [...hashes][0] as Hex;
    expect(hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(results.filter((r) => r.body.success).length).toBeGreaterThanOrEqual(1);
    for (const r of results.filter((x) => !x.body.success)) expect(r.body.errorReason).toBe('invalid_exact_evm_nonce_already_used');
    expect(await chain.balanceOf(payer.address)).toBe(90_000n);
    expect(await chain.balanceOf(payTo)).toBe(payToBefore + 10_000n);
    expect((await chain.publicClient.getTransactionReceipt({ hash })).status).toBe('success');
  });
});
