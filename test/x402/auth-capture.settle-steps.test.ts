/**
 * `/api/x402/settle` lifecycle steps over HTTP (docs/x402.md "The scheme in our facilitator"):
 * a merchant's own resource server authorizes with the real @x402/evm AuthCaptureEvmScheme payload,
 * then posts `payload.type` capture / void / refund, each with its idempotency key
 * (`payment-identifier`, or the payload's hash without one). The same key and payload replay the
 * first answer and move nothing; a used key with another payload is 409 and moves nothing; a
 * refund at `/settle` has no funding agreement and is refused; another account's key cannot step.
 * `/verify` of each step (authorize, capture, void, refund) answers over HTTP and moves nothing. A server
 * with its own receiver authorizer signs its consent (the binding's EIP-712, written out here), and
 * capture-and-void (`voidAuthorizerSignature`) settles both legs in one request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Address, Hex, PrivateKeyAccount } from 'viem';
import { AuthCaptureEvmScheme } from '@x402/evm/auth-capture/client';
import { declarePaymentIdentifierExtension, PAYMENT_IDENTIFIER } from '@x402/extensions/payment-identifier';
import { call, createMerchant, startTestService, type Merchant, type TestService } from '../helpers/service.js';
import { newPayer } from './helpers.js';
import { AUTH_CAPTURE_V1_0, authCaptureEscrowAbi } from '../../src/chain/auth-capture-escrow.js';
import { AuthCaptures } from '../../src/x402/auth-capture/records.js';

let svc: TestService;
let merchant: Merchant;
let shop: Address;

beforeAll(async () => {
  svc = await startTestService({ RECONCILE_INTERVAL: '1h' });
  merchant = await createMerchant(svc.api, 'Own Resource Server');
  shop = newPayer().address;
});

afterAll(async () => {
  await svc?.stop({ removeData: true });
});

type Body = { x402Version: 2; paymentPayload: Record<string, unknown>; paymentRequirements: Record<string, unknown> };

function requirements(amount: string, receiverAuthorizer: Address = svc.deps.chain.relayerAddress) {
  const c = svc.deps.chain;
  const captureDeadline = Math.floor(Date.now() / 1000) + 600;
  return {
    scheme: 'auth-capture', network: `eip155:${c.chainId}`, amount, asset: c.tokenAddress, payTo: shop, maxTimeoutSeconds: 120,
    extra: {
      name: c.eip712Domain.name, version: c.eip712Domain.version, authCaptureEscrow: AUTH_CAPTURE_V1_0.escrow,
      captureAuthorizer: c.relayerAddress, receiverAuthorizer, operatorType: 'delegated', paymentFlow: 'escrow',
      captureMode: 'deferred', captureDeadline, refundDeadline: captureDeadline + 3600, feeRecipient: shop, minFeeBps: 0, maxFeeBps: 0,
      assetTransferMethod: 'eip3009',
    },
  };
}

const settle = (body: Body, key = merchant.key) => call(`${svc.api}/x402/settle`, { key, body });
const verify = (body: Body, key = merchant.key) => call(`${svc.api}/x402/verify`, { key, body });
const withId = (b: Body, id: string): Body => ({
  ...b,
  paymentPayload: { ...b.paymentPayload, extensions: { [PAYMENT_IDENTIFIER]: { ...declarePaymentIdentifierExtension(false), info: { required: false, id } } } },
});
const state = async (hash: Hex) =>
  (await svc.deps.chain.publicClient.readContract({ address: AUTH_CAPTURE_V1_0.escrow, abi: authCaptureEscrowAbi, functionName: 'paymentState', args: [hash] })) as readonly [boolean, bigint, bigint];

/** The client's authorization, settled as `authorize` by this merchant; what a lifecycle payload needs. */
async function authorize(payer: PrivateKeyAccount, amount: string, receiverAuthorizer?: Address) {
  const req = requirements(amount, receiverAuthorizer);
  const made = await new AuthCaptureEvmScheme(payer as never).createPaymentPayload(2, req as never);
  const body: Body = { x402Version: 2, paymentPayload: { x402Version: 2, accepted: req, payload: made.payload }, paymentRequirements: req };
  // /verify first, as a resource server does: valid, the payer named, nothing moved.
  const before = await svc.deps.chain.balanceOf(payer.address);
  expect((await verify(body)).body).toEqual({ isValid: true, payer: payer.address });
  expect(await svc.deps.chain.balanceOf(payer.address)).toBe(before);
  const r = await settle(body);
  expect(r.body, JSON.stringify(r.body)).toMatchObject({ success: true, operation: 'authorize', amount });
  const hash = r.body.paymentInfoHash as Hex;
  const rec = (await svc.deps.facilitator.authCapture!.record(hash))!;
  const step = (payload: Record<string, unknown>): Body => ({
    x402Version: 2,
    paymentPayload: { x402Version: 2, accepted: req, payload: { ...payload, paymentInfo: rec.paymentInfo, saltNonce: rec.saltNonce } },
    paymentRequirements: req,
  });
  const capture = async (amt: bigint): Promise<Body> => {
    const [, capturable, refundable] = await state(hash);
    return step({ type: 'capture', amount: amt.toString(), feeBps: 0, feeReceiver: shop, expectedCapturableAmount: capturable.toString(), expectedRefundableAmount: refundable.toString() });
  };
  return { hash, step, capture, state: () => state(hash) };
}

/**
 * A server's own receiver authorizer signing its consent, with the EIP-712 domain and v1.0 types
 * written out from the binding ("Authorizer signatures"), not from our code.
 */
function consentOf(key: PrivateKeyAccount) {
  const domain = { name: 'x402 Auth Capture Operator', version: '1', chainId: svc.deps.chain.chainId, verifyingContract: svc.deps.chain.relayerAddress };
  return {
    capture: (m: { paymentInfoHash: Hex; amount: bigint; feeBps: number; feeReceiver: Address; expectedCapturableAmount: bigint; expectedRefundableAmount: bigint }) =>
      key.signTypedData({
        domain,
        primaryType: 'Capture',
        types: {
          Capture: [
            { name: 'paymentInfoHash', type: 'bytes32' }, { name: 'amount', type: 'uint256' }, { name: 'feeBps', type: 'uint16' },
            { name: 'feeReceiver', type: 'address' }, { name: 'expectedCapturableAmount', type: 'uint256' }, { name: 'expectedRefundableAmount', type: 'uint256' },
          ],
        },
        message: m,
      }),
    void: (paymentInfoHash: Hex) => key.signTypedData({ domain, primaryType: 'Void', types: { Void: [{ name: 'paymentInfoHash', type: 'bytes32' }] }, message: { paymentInfoHash } }),
  };
}

const rnd = (p: string) => `${p}_${Math.random().toString(36).slice(2)}${Date.now()}`;

describe('/api/x402/settle lifecycle steps, each with its idempotency key', () => {
  it('capture: same key and payload replay, another payload with the key is 409; void likewise; refund is refused', async () => {
    const chain = svc.deps.chain;
    const payer = newPayer();
    expect((await chain.faucet(payer.address, 5_000_000n, { nativeAmount: 0n })).ok).toBe(true);
    const a = await authorize(payer, '2000000');
    const b = await authorize(payer, '1000000');
    expect(await chain.balanceOf(payer.address)).toBe(2_000_000n);

    // Another account's key: the consent is delegated to us only for the account that authorized it.
    const other = await createMerchant(svc.api, 'Someone Else');
    const foreign = await settle(withId(await a.capture(500_000n), rnd('cap')), other.key);
    expect(foreign.body).toMatchObject({ success: false, errorReason: 'invalid_auth_capture_evm_unauthenticated_authorizer_request' });

    // capture 0.50 under key K: replayed with the same transaction, nothing moves twice.
    const K = rnd('cap');
    const cap = withId(await a.capture(500_000n), K);
    // /verify of a lifecycle step: valid for this merchant, refused (the binding's reason) for another; nothing moves.
    expect((await verify(cap)).body).toEqual({ isValid: true, payer: payer.address });
    expect((await verify(cap, other.key)).body).toMatchObject({ isValid: false, invalidReason: 'invalid_auth_capture_evm_unauthenticated_authorizer_request' });
    expect((await verify(withId(await a.capture(2_000_001n), rnd('cap')))).body.isValid).toBe(false); // more than is held
    expect(await chain.balanceOf(shop)).toBe(0n);
    expect(await state(a.hash)).toEqual([true, 2_000_000n, 0n]);
    const first = await settle(cap);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ success: true, operation: 'capture', amount: '500000' });
    expect(await chain.balanceOf(shop)).toBe(500_000n);
    const again = await settle(cap);
    expect(again.body).toMatchObject({ success: true, transaction: first.body.transaction });
    expect(await chain.balanceOf(shop)).toBe(500_000n);
    // K with another payload (another amount, against the books as they are now): 409, nothing sent.
    const conflict = await settle(withId(await a.capture(250_000n), K));
    expect(conflict.status).toBe(409);
    expect(conflict.body).toMatchObject({ success: false, errorReason: 'payment_identifier_conflict' });
    expect(await chain.balanceOf(shop)).toBe(500_000n);

    // Without an identifier the payload's own hash is the key: the same capture again replays.
    const plain = await a.capture(250_000n);
    const p1 = await settle(plain);
    const p2 = await settle(plain);
    expect(p1.body).toMatchObject({ success: true, amount: '250000' });
    expect(p2.body.transaction).toBe(p1.body.transaction);
    expect(await chain.balanceOf(shop)).toBe(750_000n);
    expect(await state(a.hash)).toEqual([true, 1_250_000n, 750_000n]);

    // void under key V: the rest back to the payer; replayed; V on another payment's void is 409.
    const V = rnd('void');
    const voidA = withId(a.step({ type: 'void' }), V);
    expect((await verify(voidA)).body).toEqual({ isValid: true, payer: payer.address });
    expect(await chain.balanceOf(payer.address)).toBe(2_000_000n);
    const v1 = await settle(voidA);
    expect(v1.body).toMatchObject({ success: true, operation: 'void' });
    expect(await chain.balanceOf(payer.address)).toBe(3_250_000n);
    const v2 = await settle(voidA);
    expect(v2.body).toMatchObject({ success: true, transaction: v1.body.transaction });
    const voidB = await settle(withId(b.step({ type: 'void' }), V));
    expect(voidB.status).toBe(409);
    expect(voidB.body.errorReason).toBe('payment_identifier_conflict');
    expect(await state(b.hash)).toEqual([true, 1_000_000n, 0n]);
    expect(await chain.balanceOf(payer.address)).toBe(3_250_000n);

    // refund: no funding agreement at /settle (the refunds API is ours); refused, nothing moves.
    const refund = withId(a.step({ type: 'refund', amount: '250000', expectedCapturableAmount: '0', expectedRefundableAmount: '750000' }), rnd('ref'));
    const verified = await call(`${svc.api}/x402/verify`, { key: merchant.key, body: refund });
    expect(verified.body).toMatchObject({ isValid: false, invalidReason: 'invalid_auth_capture_evm_refund_funding_unavailable' });
    const refused = await settle(refund);
    expect(refused.status).toBe(200);
    expect(refused.body).toMatchObject({ success: false, errorReason: 'invalid_auth_capture_evm_refund_funding_unavailable', transaction: '' });
    expect(await state(a.hash)).toEqual([true, 0n, 750_000n]);
    expect(await chain.balanceOf(payer.address)).toBe(3_250_000n);
  });

  it("a server's own receiver authorizer: its signature is the consent; capture-and-void in one settle; another key's signature refused", async () => {
    const chain = svc.deps.chain;
    const authorizer = newPayer(); // the server's key, not ours
    const payer = newPayer();
    expect((await chain.faucet(payer.address, 2_000_000n, { nativeAmount: 0n })).ok).toBe(true);
    const a = await authorize(payer, '2000000', authorizer.address);
    const shopBefore = await chain.balanceOf(shop);
    const terms = { paymentInfoHash: a.hash, amount: 500_000n, feeBps: 0, feeReceiver: shop, expectedCapturableAmount: 2_000_000n, expectedRefundableAmount: 0n };
    const fields = { type: 'capture', amount: '500000', feeBps: 0, feeReceiver: shop, expectedCapturableAmount: '2000000', expectedRefundableAmount: '0' };

    // No signature: we are not this payment's receiver authorizer, so nothing to delegate.
    const unsigned = await settle(a.step(fields));
    expect(unsigned.body).toMatchObject({ success: false, errorReason: 'invalid_auth_capture_evm_authorizer_signature' });
    // Signed by someone else: refused, nothing moves.
    const forged = await settle(a.step({ ...fields, authorizerSignature: await consentOf(newPayer()).capture(terms) }));
    expect(forged.body).toMatchObject({ success: false, errorReason: 'invalid_auth_capture_evm_authorizer_signature', transaction: '' });
    // A void consent by someone else on the capture: its own reason.
    const badVoid = { ...fields, authorizerSignature: await consentOf(authorizer).capture(terms), voidAuthorizerSignature: await consentOf(newPayer()).void(a.hash) };
    expect((await settle(a.step(badVoid))).body).toMatchObject({ success: false, errorReason: 'invalid_auth_capture_evm_void_authorizer_signature' });
    expect(await a.state()).toEqual([true, 2_000_000n, 0n]);

    // Capture 0.50 and void the rest in one settle, both consents the server's: the payer gets 1.50 back.
    const both = { ...fields, authorizerSignature: await consentOf(authorizer).capture(terms), voidAuthorizerSignature: await consentOf(authorizer).void(a.hash) };
    expect((await verify(a.step(both))).body).toEqual({ isValid: true, payer: payer.address });
    const done = await settle(a.step(both));
    expect(done.body, JSON.stringify(done.body)).toMatchObject({ success: true, operation: 'capture', amount: '500000' });
    expect(await a.state()).toEqual([true, 0n, 500_000n]);
    expect(await chain.balanceOf(shop)).toBe(shopBefore + 500_000n);
    expect(await chain.balanceOf(payer.address)).toBe(1_500_000n);
  });

  it("a hold that pays a checkout session is stepped only through that payment: /settle refuses, nothing moves", async () => {
    const chain = svc.deps.chain;
    const payer = newPayer();
    expect((await chain.faucet(payer.address, 2_000_000n, { nativeAmount: 0n })).ok).toBe(true);
    const a = await authorize(payer, '2000000');
    // The authorization of a manual-capture session (as its x402_url records it: bound to the payment).
    const made = await call(`${svc.api}/v1/payments`, { key: merchant.key, body: { amount: 2, currency: 'USD', redirect_url: 'https://shop.example/x', capture_method: 'manual' } });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    await svc.deps.store.write(AuthCaptures, (t) => t.update(a.hash, { paymentId: made.body.id }));
    const refused = await settle(withId(await a.capture(500_000n), rnd('cap')));
    expect(refused.body).toMatchObject({ success: false, errorReason: 'invalid_auth_capture_evm_unauthenticated_authorizer_request', transaction: '' });
    expect(refused.body.errorMessage).toContain(`/api/v1/payments/${made.body.id}/capture`);
    const voided = await settle(withId(a.step({ type: 'void' }), rnd('void')));
    expect(voided.body).toMatchObject({ success: false, errorReason: 'invalid_auth_capture_evm_unauthenticated_authorizer_request' });
    expect(await state(a.hash)).toEqual([true, 2_000_000n, 0n]);
    expect(await chain.balanceOf(payer.address)).toBe(0n);
  });
});
