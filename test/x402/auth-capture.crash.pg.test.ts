/**
 * kill -9 between authorize and capture (issue 25): a real service process (`src/main.ts`, on
 * PostgreSQL, a shared anvil with the vendored escrow at its canonical address) SIGKILLs itself
 * right after the agent's authorization is sent, or right after it is mined, before the payment
 * records it (FAULT_AUTH_CAPTURE_STEP). A new process on the same database and relayer key
 * resolves the interrupted authorize from the escrow's state at start (`sweep:auth-capture`):
 * the payment is `authorized` with the whole amount held. The agent sending the same payment
 * again is charged nothing more; the merchant's capture then works once; each event exactly once.
 * Likewise a capture mined while the process dies (FAULT_AUTH_CAPTURE_STEP=capture-mined) is applied to
 * its payment by the next process's sweep from the capture's receipt, once.
 */
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createWalletClient, http, type Address } from 'viem';
import { foundry } from 'viem/chains';
import { AuthCaptureEvmScheme } from '@x402/evm/auth-capture/client';
import { x402Client, wrapFetchWithPayment } from '@x402/fetch';
import { stablecoinAbi } from '../../src/chain/artifacts/stablecoin.js';
import { ensureAuthCaptureEscrow } from '../../src/chain/auth-capture-escrow.js';
import { cluster, devAccount, startSharedChain, until, type Cluster, type SharedChain } from '../helpers/cluster.js';
import { createDatabase, type TestDatabase } from '../helpers/pg.js';
import { call, createMerchant } from '../helpers/service.js';
import { newPayer } from './helpers.js';

/** The relayer key every instance here uses: the operator the authorizations name. */
const RELAYER = 1;

interface Deployment {
  chain: SharedChain;
  nodes: Cluster;
  client: pg.Client;
}
const teardowns: Array<() => Promise<void>> = [];
afterAll(async () => {
  await Promise.all(teardowns.map((t) => t()));
});

/**
 * A deployment of its own for each scenario (a database, an anvil with the escrow, a cluster on
 * one relayer key), so the three scenarios run at once (docs/testing.md): each is a chain of
 * process starts and waits, and none sees another's payments, sweeps or nonces.
 */
async function deployment(): Promise<Deployment> {
  const db: TestDatabase = await createDatabase();
  let chain: SharedChain | undefined;
  let nodes: Cluster | undefined;
  let client: pg.Client | undefined;
  teardowns.push(async () => {
    await client?.end().catch(() => undefined);
    await nodes?.stopAll();
    await chain?.stop();
    await db.drop();
  });
  chain = await startSharedChain();
  const deployer = createWalletClient({ account: devAccount(0), chain: { ...foundry, rpcUrls: { default: { http: [chain.rpcUrl] } } }, transport: http(chain.rpcUrl) });
  await ensureAuthCaptureEscrow(chain.publicClient as never, deployer as never);
  nodes = cluster({ databaseUrl: db.url, chain, env: { AUTH_CAPTURE_HOLD: '5m', AUTH_CAPTURE_SWEEP_INTERVAL: '1s', RECONCILE_INTERVAL: '1h' } });
  client = new pg.Client({ connectionString: db.url });
  await client.connect();
  return { chain, nodes, client };
}

describe.concurrent('auth-capture: the service SIGKILLed between authorize and capture', () => {
  // Whether the authorize was only sent or already mined when the process died: one scenario each.
  it.for(['authorize-sent', 'authorize-mined'] as const)('loses nothing and charges nothing twice when the authorize was %s', { timeout: 240_000 }, async (step) => {
    const { chain, nodes, client } = await deployment();
    const bal = (a: Address) => chain.publicClient.readContract({ address: chain.tokenAddress, abi: stablecoinAbi, functionName: 'balanceOf', args: [a] }) as Promise<bigint>;
    const events = async (id: string) =>
      (await client.query<{ doc: { type: string } }>("SELECT doc FROM webhook_events WHERE doc->>'paymentId' = $1", [id])).rows.map((r) => r.doc.type).sort();
    const record = async (id: string) =>
      (await client.query<{ doc: { state: string; paymentId?: string } }>("SELECT doc FROM auth_captures WHERE doc->>'paymentId' = $1", [id])).rows[0]?.doc;

    const victim = await nodes.start(`victim-${step}`, RELAYER, { FAULT_AUTH_CAPTURE_STEP: step });
    const merchant = await createMerchant(victim.api, 'Crash Held Goods');
    const created = await call(`${victim.api}/v1/payments`, {
      key: merchant.key,
      body: { amount: 2, currency: 'USD', redirect_url: 'https://shop.example/done', capture_method: 'manual' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const pay = created.body as { id: string; x402_url: string; pay_to: Address };
    const path = new URL(pay.x402_url).pathname;
    const origin = new URL(victim.api).origin;

    const payer = newPayer();
    await chain.mint(payer.address, 5_000_000n);
    const merchantBefore = await bal(pay.pay_to);
    // The unmodified client pays; the request carrying the payment is kept to be sent again.
    let paidRequest: Request | undefined;
    const keeping: typeof fetch = async (input, init) => {
      const req = new Request(input, init);
      if (req.headers.has('payment-signature') || req.headers.has('x-payment')) paidRequest = req.clone();
      return fetch(req, { signal: AbortSignal.timeout(20_000) });
    };
    const network = "eip155:31337" as const;
    const x402 = x402Client.fromConfig({ schemes: [{ network, client: new AuthCaptureEvmScheme(payer as never) }],
      spendControls: { allowedAssets: [{ network, asset: chain.tokenAddress, maxAmountPerPayment: '100000000' }] },
    });
    const agent = wrapFetchWithPayment(keeping, x402);
    // The connection dies with the process.
    const outcome = await agent(origin + path).then(async (r) => `answered ${r.status} ${await r.text()}`, () => undefined);
    expect(outcome).toBeUndefined();
    expect(victim.child.signalCode ?? (await victim.exited, victim.child.signalCode)).toBe('SIGKILL');
    expect(paidRequest).toBeDefined();

    // What the crash left: the authorization recorded as in flight, the payment not yet told;
    // unless, under load, the victim's own sweep (every second) saw the hold on the escrow
    // while its relay still waited for the receipt and recorded it before the kill: then the
    // payment is already `authorized`, which the rest of the test checks just the same.
    const left = (await record(pay.id))?.state;
    expect(['authorizing', 'open']).toContain(left);
    const before = await call(`${origin}/api/v1/payments/${pay.id}`, { key: merchant.key }).catch(() => undefined);
    expect(before).toBeUndefined(); // (nobody answers on the dead port)
    const row = (await client.query<{ doc: { status: string } }>("SELECT doc FROM payments WHERE doc->>'id' = $1", [pay.id])).rows[0]!.doc;
    expect(left === 'open' ? ['authorized'] : ['pending', 'authorized']).toContain(row.status);

    // A new process on the same database and key: its sweep reads the escrow and finishes the step.
    const healthy = await nodes.start(`healthy-${step}`, RELAYER);
    const authorized = await until(async () => {
      const p = (await call(`${healthy.api}/v1/payments/${pay.id}`, { key: merchant.key })).body;
      return p.status === 'authorized' ? p : undefined;
    }, 'the interrupted authorize resolved', 30_000);
    expect(authorized.amount_capturable).toBe('2');
    expect(await bal(payer.address)).toBe(3_000_000n);
    expect(await bal(pay.pay_to)).toBe(merchantBefore); // held in the escrow, not the merchant's
    expect((await record(pay.id))?.state).toBe('open');

    // The agent sends the very same payment again (its answer was lost): nothing more is taken.
    const again = await fetch(new URL(path, new URL(healthy.api).origin), { headers: paidRequest!.headers });
    expect(again.status, await again.clone().text()).toBeLessThan(500);
    expect(await bal(payer.address)).toBe(3_000_000n);

    // The merchant captures: once.
    const cap = await call(`${healthy.api}/v1/payments/${pay.id}/capture`, { key: merchant.key, body: {} });
    expect(cap.status, JSON.stringify(cap.body)).toBe(200);
    expect(cap.body.status).toBe('captured');
    expect(cap.body.amount_captured).toBe('2');
    expect(cap.body.amount_capturable).toBe('0');
    expect((await call(`${healthy.api}/v1/payments/${pay.id}/capture`, { key: merchant.key, body: {} })).status).toBe(409);
    expect(await bal(pay.pay_to)).toBe(merchantBefore + 2_000_000n);
    expect(await bal(payer.address)).toBe(3_000_000n);

    // Let the sweep run a few more times: nothing is applied or emitted twice.
    await new Promise((r) => setTimeout(r, 2_500));
    expect(await events(pay.id)).toEqual(['payment.authorized', 'payment.captured']);
    expect((await call(`${healthy.api}/v1/payments/${pay.id}`, { key: merchant.key })).body.status).toBe('captured');
    await healthy.stop();
  });

  it('a capture mined while the service dies is applied to its payment by the next process, once', { timeout: 120_000 }, async () => {
    const { chain, nodes, client } = await deployment();
    const bal = (a: Address) => chain.publicClient.readContract({ address: chain.tokenAddress, abi: stablecoinAbi, functionName: 'balanceOf', args: [a] }) as Promise<bigint>;
    const events = async (id: string) =>
      (await client.query<{ doc: { type: string } }>("SELECT doc FROM webhook_events WHERE doc->>'paymentId' = $1", [id])).rows.map((r) => r.doc.type).sort();
    const victim = await nodes.start('victim-capture', RELAYER, { FAULT_AUTH_CAPTURE_STEP: 'capture-mined' });
    const merchant = await createMerchant(victim.api, 'Crash Capture');
    const created = await call(`${victim.api}/v1/payments`, { key: merchant.key, body: { amount: 2, currency: 'USD', redirect_url: 'https://shop.example/done', capture_method: 'manual' } });
    const pay = created.body as { id: string; x402_url: string; pay_to: Address };
    const payer = newPayer();
    await chain.mint(payer.address, 2_000_000n);
    const network = 'eip155:31337' as const;
    const x402 = x402Client.fromConfig({ schemes: [{ network, client: new AuthCaptureEvmScheme(payer as never) }], spendControls: { allowedAssets: [{ network, asset: chain.tokenAddress, maxAmountPerPayment: '100000000' }] } });
    const paid = await wrapFetchWithPayment(fetch, x402)(new URL(new URL(pay.x402_url).pathname, new URL(victim.api).origin));
    expect(paid.status, await paid.clone().text()).toBe(200);
    const merchantBefore = await bal(pay.pay_to);

    // The merchant captures 1.50; the process dies right after the capture is mined, before the payment hears of it.
    const lost = await call(`${victim.api}/v1/payments/${pay.id}/capture`, { key: merchant.key, body: { amount: 1.5 } }).catch(() => undefined);
    expect(lost).toBeUndefined();
    expect(victim.child.signalCode ?? (await victim.exited, victim.child.signalCode)).toBe('SIGKILL');
    expect(await bal(pay.pay_to)).toBe(merchantBefore + 1_500_000n);
    const row = (await client.query<{ doc: { status: string } }>("SELECT doc FROM payments WHERE doc->>'id' = $1", [pay.id])).rows[0]!.doc;
    expect(row.status).toBe('authorized'); // the chain moved, the record did not

    // The next process's sweep reads the capture's receipt and applies it: captured 1.50, 0.50 still held.
    const healthy = await nodes.start('healthy-capture', RELAYER);
    const captured = await until(async () => {
      const p = (await call(`${healthy.api}/v1/payments/${pay.id}`, { key: merchant.key })).body;
      return p.status === 'captured' ? p : undefined;
    }, 'the interrupted capture applied', 30_000);
    expect(captured).toMatchObject({ amount_captured: '1.5', amount_capturable: '0.5' });
    // What is left can still be voided back to the payer; nothing was taken twice.
    const v = await call(`${healthy.api}/v1/payments/${pay.id}/void`, { key: merchant.key, body: {} });
    expect(v.status, JSON.stringify(v.body)).toBe(200);
    expect(await bal(payer.address)).toBe(500_000n);
    expect(await bal(pay.pay_to)).toBe(merchantBefore + 1_500_000n);
    await new Promise((r) => setTimeout(r, 2_500));
    expect(await events(pay.id)).toEqual(['payment.authorized', 'payment.captured', 'payment.voided']);
    await healthy.stop();
  });
});
