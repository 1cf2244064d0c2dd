/**
 * An AI agent pays a StablePay payment session over x402 with the standard client packages
 * (@x402/fetch + @x402/evm). Against `npm start` (the embedded chain):
 *
 *   STABLEPAY_KEY=sk_live_... npx tsx examples/x402-agent.ts
 *
 * It assumes the service at http://localhost:3000; on any other port or host set STABLEPAY_URL
 * (e.g. STABLEPAY_URL=http://localhost:4000).
 *
 * It creates a payment with your key, funds a throwaway agent wallet from the dev faucet, and pays
 * the payment's `x402_url`: 402, sign, 200. Set AGENT_PRIVATE_KEY to pay from your own wallet.
 */
import { privateKeyToAccount, generatePrivateKey } from 'viem/accounts';
import { wrapFetchWithPayment, x402Client, decodePaymentResponseHeader } from '@x402/fetch';
import { ExactEvmScheme } from '@x402/evm/exact/client';

const base = process.env.STABLEPAY_URL ?? 'http://localhost:3000';
const key = process.env.STABLEPAY_KEY;
if (!key) throw new Error('set STABLEPAY_KEY to a secret key (sk_live_...)');
const json = { 'content-type': 'application/json' };

// 1. What to pay: TARGET (any x402 URL), else a new payment session of yours.
const target = process.env.TARGET;
const created = target
  ? undefined
  : await fetch(`${base}/api/v1/payments`, {
      method: 'POST',
      headers: { ...json, authorization: `Bearer ${key}` },
      body: JSON.stringify({ amount: 3, currency: 'USD', redirect_url: 'https://example.com/thanks', description: 'API credits' }),
    });
const payment = created ? ((await created.json()) as { id: string; x402_url: string }) : { id: '-', x402_url: target! };
console.log('paying', payment.x402_url);

// 2. The agent's wallet (a throwaway one funded by the dev faucet; no gas money needed).
const agent = privateKeyToAccount((process.env.AGENT_PRIVATE_KEY as `0x${string}`) ?? generatePrivateKey());
if (!process.env.AGENT_PRIVATE_KEY) {
  await fetch(`${base}/api/dev/faucet`, { method: 'POST', headers: json, body: JSON.stringify({ address: agent.address, amount: '10' }) });
}

// 3. The agent pays. Our stablecoin is not a default asset of the client: opt in to it, with a cap.
const required = JSON.parse(Buffer.from((await fetch(payment.x402_url)).headers.get('payment-required')!, 'base64').toString());
const { network, asset } = required.accepts[0];
const client = x402Client.fromConfig({
  schemes: [{ network, client: new ExactEvmScheme(agent) }],
  spendControls: { allowedAssets: [{ network, asset, maxAmountPerPayment: '5000000' }] }, // at most 5 USDC
});
const res = await wrapFetchWithPayment(fetch, client)(payment.x402_url);
console.log(res.status, await res.json());
console.log('settlement', decodePaymentResponseHeader(res.headers.get('payment-response')!));
