/**
 * Your own API, paid per call by AI agents over x402, with StablePay as the facilitator: it
 * verifies and settles the agents' signed payments on-chain and pays the gas. Against `npm start`:
 *
 *   STABLEPAY_KEY=sk_live_... PAY_TO=0xYourAddress npx tsx examples/x402-merchant.ts   # PORT=... to move it off 4021
 *   # then: STABLEPAY_KEY=... TARGET=http://localhost:4021/weather npx tsx examples/x402-agent.ts
 *
 * GET /weather costs 0.01 USDC. The gas each settle cost is listed at GET /api/x402/usage.
 */
import express from 'express';
import { paymentMiddleware, x402ResourceServer } from '@x402/express';
import { HTTPFacilitatorClient } from '@x402/core/server';
import { ExactEvmScheme } from '@x402/evm/exact/server';

const base = process.env.STABLEPAY_URL ?? 'http://localhost:3000';
const key = process.env.STABLEPAY_KEY;
const payTo = process.env.PAY_TO;
if (!key || !payTo) throw new Error('set STABLEPAY_KEY (sk_live_...) and PAY_TO (0x address that receives the money)');

const auth = { Authorization: `Bearer ${key}` };
// What the facilitator settles: network eip155:<chainId>, the stablecoin and its EIP-712 domain.
const supported = await (await fetch(`${base}/api/x402/supported`, { headers: auth })).json();
const { network, extra } = supported.kinds[0];

const facilitator = new HTTPFacilitatorClient({
  url: `${base}/api/x402`,
  createAuthHeaders: async () => ({ verify: auth, settle: auth, supported: auth }),
});
const app = express();
app.use(
  paymentMiddleware(
    {
      'GET /weather': {
        accepts: {
          scheme: 'exact',
          network,
          payTo,
          price: { amount: '10000', asset: extra.asset, extra: { name: extra.name, version: extra.version } },
          maxTimeoutSeconds: 120,
        },
        description: 'Weather report',
      },
    },
    new x402ResourceServer(facilitator).register(network, new ExactEvmScheme()),
  ),
);
app.get('/weather', (_req, res) => {
  res.json({ forecast: 'sunny' });
});
// PORT=0 takes any free port; the line below names the one bound.
const server = app.listen(Number(process.env.PORT ?? 4021), () => {
  const { port } = server.address() as import('node:net').AddressInfo;
  console.log(`paid API on http://localhost:${port}/weather`);
});
