/**
 * docs/x402.md "Worked example: every step", by hand: the curl lines are read from the doc and run
 * with the real curl against a running service (real HTTP, anvil with the escrow), as a reader
 * pastes them with API, J and KEY set. The agent's authorize is the unmodified
 * AuthCaptureEvmScheme client (step 3); its signed header replayed with the doc's curl line
 * answers the same. Each step's answer is checked against what the doc says it answers.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createMerchant, startTestService, type Merchant, type TestService } from '../helpers/service.js';
import { authCaptureFetch } from './helpers.js';

const run = promisify(execFile);
const DOC = readFileSync(path.resolve(import.meta.dirname, '../../docs/x402.md'), 'utf8');
let svc: TestService;
let merchant: Merchant;

beforeAll(async () => {
  svc = await startTestService({ RECONCILE_INTERVAL: '1h', AUTH_CAPTURE_HOLD: '1h' });
  merchant = await createMerchant(svc.api, 'Curl Rental');
});
afterAll(async () => {
  await svc?.stop({ removeData: true });
});

/** The section's steps 1 to 4, from its heading to step 5. */
function section(): string {
  const start = DOC.indexOf('### Worked example: every step');
  expect(start).toBeGreaterThan(0);
  const end = DOC.indexOf('5. **Expiry**', start);
  expect(end).toBeGreaterThan(start);
  return DOC.slice(start, end);
}

/** The curl commands of the section's `sh` blocks, continuation lines joined, comments dropped. */
function shellCurls(text: string): string[] {
  const blocks = [...text.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
  return blocks.flatMap((b) =>
    b
      .replace(/\\\n\s*/g, ' ')
      .split('\n')
      .map((l) => l.replace(/\s+#.*$/, '').trim())
      .filter((l) => l.startsWith('curl ')),
  );
}

/** An inline `curl …` of the section that starts with `prefix`. */
function inlineCurl(text: string, prefix: string): string {
  const found = [...text.matchAll(/`(curl [^`]+)`/g)].map((m) => m[1]!).find((c) => c.startsWith(prefix));
  expect(found, prefix).toBeDefined();
  return found!;
}

async function sh(cmd: string, env: Record<string, string>): Promise<string> {
  const { stdout } = await run('bash', ['-c', cmd], { env: { PATH: process.env.PATH ?? '', ...env } });
  return stdout;
}

describe("docs/x402.md's worked example with curl", () => {
  it('create -> 402 -> authorize (client; its header replayed with curl) -> capture 0.75 -> refund 0.25 and 0.50 -> void 1.25 -> events', { timeout: 120_000 }, async () => {
    const text = section();
    const curls = shellCurls(text);
    expect(curls).toHaveLength(6);
    const env: Record<string, string> = { API: svc.api, J: 'content-type: application/json', KEY: merchant.key };

    // 1. Create.
    const made = JSON.parse(await sh(curls[0]!, env));
    expect(made).toMatchObject({ status: 'pending', capture_method: 'manual' });
    expect(made.id).toMatch(/^pay_/);
    env.ID = made.id;

    // 2. What the agent is asked for.
    const asked = await sh(inlineCurl(text, 'curl -si $API/checkout/$ID/x402'), env);
    expect(asked).toMatch(/^HTTP\/1\.1 402/);
    const header = /^payment-required: (\S+)/im.exec(asked)![1]!;
    const required = JSON.parse(Buffer.from(header, 'base64').toString());
    expect(required.accepts).toHaveLength(1);
    expect(required.accepts[0]).toMatchObject({ scheme: 'auth-capture' });
    expect(required.accepts[0].extra).toMatchObject({ captureAuthorizer: expect.any(String) });
    expect(Object.keys(required.extensions ?? {})).toContain('payment-identifier');

    // 3. Authorize with the client packages; the same signed header again, with the doc's curl line.
    const chain = svc.deps.chain;
    const agent = privateKeyToAccount(generatePrivateKey());
    expect((await chain.faucet(agent.address, 3_000_000n, { nativeAmount: 0n })).ok).toBe(true);
    const sent: Headers[] = [];
    const paid = await authCaptureFetch(agent, chain, sent)(`${svc.api}/checkout/${made.id}/x402`);
    expect(paid.status, await paid.clone().text()).toBe(200);
    env.HEADER = sent.map((h) => h.get('payment-signature')).find((v) => v)!;
    expect(env.HEADER).toBeTruthy();
    const replay = JSON.parse(await sh(inlineCurl(text, 'curl -s -H "PAYMENT-SIGNATURE: $HEADER"'), env));
    expect(replay).toMatchObject({ ok: true, status: 'authorized', tx_hash: expect.stringMatching(/^0x/) });
    expect(await chain.balanceOf(agent.address)).toBe(1_000_000n);
    const view = JSON.parse(await sh(inlineCurl(text, 'curl -s $API/checkout/$ID'), env));
    expect(view.payment ?? view).toMatchObject({ status: 'authorized', amountCapturable: '2', captureBefore: expect.any(String) });

    // 4. Capture part, refund captured money, void the rest, read the events.
    const captured = JSON.parse(await sh(curls[1]!, env));
    expect(captured).toMatchObject({ status: 'captured', amount_captured: '0.75', amount_capturable: '1.25' });
    const r1 = JSON.parse(await sh(curls[2]!, env));
    expect(r1).toMatchObject({ status: 'succeeded', amount: 0.25 });
    const r2 = JSON.parse(await sh(curls[3]!, env));
    expect(r2).toMatchObject({ status: 'succeeded', amount: 0.5 });
    const voided = JSON.parse(await sh(curls[4]!, env));
    expect(voided).toMatchObject({ status: 'refunded', amount_voided: '1.25', amount_capturable: '0' });
    const events = JSON.parse(await sh(curls[5]!, env));
    const said = /# (payment\.authorized[^\n]*)/.exec(text)![1]!.split(', ').map((s) => s.trim());
    expect(events.data.map((e: { type: string }) => e.type).reverse()).toEqual(said);
    // Everything held came back to the agent: 0.25 + 0.50 refunded, 1.25 voided.
    expect(await chain.balanceOf(agent.address)).toBe(3_000_000n);
  });
});
