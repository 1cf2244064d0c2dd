/**
 * Hold, capture, refund, release (docs/x402.md, "Worked example"): an agent authorizes a
 * manual-capture payment with the unmodified x402 client packages (@x402/fetch +
 * @x402/evm's AuthCaptureEvmScheme); the merchant then captures part of the hold, refunds part
 * of what it captured and voids the rest back to the agent, over the REST API. Against
 * `npm start` (the embedded chain, which has the escrow):
 *
 *   STABLEPAY_KEY=sk_live_... npx tsx examples/x402-hold.ts
 *
 * STABLEPAY_URL says where the service is (default http://localhost:3000). Each step prints one
 * line: the step's name and the JSON it got back.
 */
import { privateKeyToAccount, generatePrivateKey } from 'viem/accounts';
import { wrapFetchWithPayment, x402Client, decodePaymentResponseHeader } from '@x402/fetch';
import { AuthCaptureEvmScheme } from '@x402/evm/auth-capture/client';

const base = process.env.STABLEPAY_URL ?? 'http://localhost:3000';
const key = process.env.STABLEPAY_KEY;
if (!key) throw new Error('set STABLEPAY_KEY to a secret key (sk_live_...)');
const api = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${base}/api${path}`, {
    method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
};
const show = (step: string, value: unknown) => console.log(step, JSON.stringify(value));
const state = async (id: string) => {
  const p = (await api('GET', `/v1/payments/${id}`)).body;
  const { status, amount_capturable, amount_captured, amount_voided, amount_refunded, capture_before } = p;
  return { status, amount_capturable, amount_captured, amount_voided, amount_refunded, capture_before };
};

// 1. The merchant: a payment whose money is held until captured.
const created = await api('POST', '/v1/payments', { amount: 2, currency: 'USD', redirect_url: 'https://example.com/thanks', description: 'Bike rental deposit', capture_method: 'manual' });
if (created.status !== 201) throw new Error(`create: ${created.status} ${JSON.stringify(created.body)}`);
const payment = created.body as { id: string; x402_url: string };
show('created', { id: payment.id, x402_url: payment.x402_url });

// 2. What the agent is asked for: one auth-capture requirement (the 402's PAYMENT-REQUIRED header).
const unpaid = await fetch(payment.x402_url);
const required = JSON.parse(Buffer.from(unpaid.headers.get('payment-required')!, 'base64').toString());
const { scheme, network, asset, amount, extra } = required.accepts[0];
show('402', { status: unpaid.status, scheme, network, amount, captureDeadline: extra.captureDeadline, refundDeadline: extra.refundDeadline });

// 3. The agent (a throwaway wallet funded by the dev faucet) authorizes with the unmodified client.
const agent = privateKeyToAccount((process.env.AGENT_PRIVATE_KEY as `0x${string}`) ?? generatePrivateKey());
if (!process.env.AGENT_PRIVATE_KEY) {
  await fetch(`${base}/api/dev/faucet`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ address: agent.address, amount: '5' }) });
}
const client = x402Client.fromConfig({
  schemes: [{ network, client: new AuthCaptureEvmScheme(agent as never) }],
  spendControls: { allowedAssets: [{ network, asset, maxAmountPerPayment: '5000000' }] }, // at most 5 USDC
});
const paid = await wrapFetchWithPayment(fetch, client)(payment.x402_url);
const settle = decodePaymentResponseHeader(paid.headers.get('payment-response')!);
show('authorized', { http: paid.status, agent: agent.address, transaction: settle.transaction, ...(await state(payment.id)) });

// 4. The merchant captures 0.75 of the 2.00 held.
const cap = await api('POST', `/v1/payments/${payment.id}/capture`, { amount: 0.75 });
show('captured', { http: cap.status, ...(await state(payment.id)) });

// 5. Refunds 0.25 of what was captured (through the escrow, back to the agent).
const refund = await api('POST', `/v1/payments/${payment.id}/refunds`, { amount: 0.25, reason: 'returned early' });
show('refunded', { http: refund.status, refund: refund.body.status, amount: refund.body.amount, to: refund.body.to, ...(await state(payment.id)) });

// 6. Voids the rest: the 1.25 still held goes back to the agent.
const v = await api('POST', `/v1/payments/${payment.id}/void`, {});
show('voided', { http: v.status, ...(await state(payment.id)) });

// 7. The events, one per state change.
const events = (await api('GET', `/v1/events?payment=${payment.id}`)).body.data as Array<{ type: string }>;
show('events', events.map((e) => e.type).reverse());
