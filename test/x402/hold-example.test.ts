/**
 * docs/x402.md's worked example with the client packages, run as a new user runs it:
 * `examples/x402-hold.ts` in its own process against a running service (real HTTP, real anvil
 * with the escrow), only a key and the URL given. The agent authorizes with the unmodified
 * AuthCaptureEvmScheme client; the merchant captures 0.75 of 2.00, refunds 0.25 of it and voids
 * the rest. Every line it prints is checked, and the agent's wallet on chain at the end.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Address } from 'viem';
import { createMerchant, startTestService, type Merchant, type TestService } from '../helpers/service.js';

const run = promisify(execFile);
let svc: TestService;
let merchant: Merchant;

beforeAll(async () => {
  svc = await startTestService({ RECONCILE_INTERVAL: '1h', AUTH_CAPTURE_HOLD: '1h' });
  merchant = await createMerchant(svc.api, 'Bike Rental');
});
afterAll(async () => {
  await svc?.stop({ removeData: true });
});

describe('examples/x402-hold.ts', () => {
  it('authorize -> capture 0.75 -> refund 0.25 -> void: each step as the docs show, the agent whole but 0.50', { timeout: 120_000 }, async () => {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'examples/x402-hold.ts'], {
      env: { ...process.env, STABLEPAY_URL: svc.url, STABLEPAY_KEY: merchant.key },
      timeout: 100_000,
    });
    const steps = Object.fromEntries(
      stdout.trim().split('\n').map((line) => {
        const at = line.indexOf(' ');
        return [line.slice(0, at), JSON.parse(line.slice(at + 1))];
      }),
    );
    expect(steps['402']).toMatchObject({ status: 402, scheme: 'auth-capture', amount: '2000000' });
    expect(steps.authorized).toMatchObject({ http: 200, status: 'authorized', amount_capturable: '2', amount_captured: '0' });
    expect(steps.captured).toMatchObject({ http: 200, status: 'captured', amount_captured: '0.75', amount_capturable: '1.25' });
    expect(steps.refunded).toMatchObject({ http: 201, refund: 'succeeded', amount: 0.25, to: steps.authorized.agent, amount_refunded: 0.25 });
    expect(steps.voided).toMatchObject({ http: 200, status: 'captured', amount_voided: '1.25', amount_capturable: '0', amount_refunded: 0.25 });
    expect(steps.events).toEqual(['payment.authorized', 'payment.captured', 'refund.succeeded', 'payment.voided']);
    // 5.00 from the faucet, 2.00 held, 0.75 kept by the merchant, 0.25 refunded, 1.25 released.
    expect(await svc.deps.chain.balanceOf(steps.authorized.agent as Address)).toBe(4_500_000n);
  });
});
