import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { parseUnits, type Address } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { stablecoinAbi } from '../../src/chain/artifacts/stablecoin.js';
import { FEE_WALLET_INDEX } from '../../src/wallet/reserved.js';
import type { Claim } from '../../src/claims/claim-record.js';
import { cluster, startSharedChain, until, type Cluster, type Instance, type SharedChain } from '../helpers/cluster.js';
import { createDatabase, type TestDatabase } from '../helpers/pg.js';
import { call, createMerchant } from '../helpers/service.js';

/**
 * kill -9 at each step of a claim (issue 26): a service process (`src/main.ts`, PostgreSQL, a
 * shared anvil) SIGKILLs itself at one step boundary (FAULT_CLAIM_STEP); another instance's
 * sweep finishes the step. After each: the claim reached the state its step leads to, and on
 * the chain the money is where the claim says, counted once (sender + escrows + claimants +
 * fee wallet = what the sender was given).
 */
let db: TestDatabase | undefined;
let chain: SharedChain | undefined;
let nodes: Cluster | undefined;
let client: pg.Client | undefined;
afterAll(async () => {
  await client?.end();
  await nodes?.stopAll();
  await chain?.stop();
  await db?.drop();
});

const attempt = async <T>(fn: () => Promise<T>): Promise<T | undefined> => fn().catch(() => undefined);

describe('a claim killed (SIGKILL) at each step', () => {
  it('neither loses nor duplicates money, whichever step the process dies at', { timeout: 400_000 }, async () => {
    db = await createDatabase();
    chain = await startSharedChain();
    nodes = cluster({ databaseUrl: db.url, chain, env: { AGENT_RATE_LIMIT: '1000/min', RECONCILE_INTERVAL: '1s' } });
    const base = await nodes.start('base', 1);
    const sender = await createMerchant(base.api, 'Crash Sender');
    const me = await call(`${base.api}/me`, { cookie: sender.cookie });
    const senderWallet = (me.body.account?.wallet?.address ?? me.body.wallet?.address) as Address;
    const GIVEN = parseUnits('100', 6);
    await chain.mint(senderWallet, GIVEN);
    client = new pg.Client({ connectionString: db.url });
    await client.connect();
    const claims = async (): Promise<Claim[]> => (await client!.query<{ doc: Claim }>('SELECT doc FROM claims ORDER BY seq')).rows.map((r) => r.doc);
    const bal = (a: string) => chain!.publicClient.readContract({ address: chain!.tokenAddress, abi: stablecoinAbi, functionName: 'balanceOf', args: [a as Address] }) as Promise<bigint>;
    const feeWallet = mnemonicToAccount(nodes.mnemonic, { addressIndex: FEE_WALLET_INDEX }).address;
    const claimantWallets: string[] = [];
    const conserved = async () => {
      let sum = (await bal(senderWallet)) + (await bal(feeWallet));
      for (const c of await claims()) sum += await bal(c.escrowAddress);
      for (const w of claimantWallets) sum += await bal(w);
      expect(sum).toBe(GIVEN);
    };
    const settleOn = (i: Instance, message: string) => call(`${i.api}/agent/settle`, { key: sender.key, body: { message } });
    const openClaim = async (email: string) => {
      const r = await settleOn(base, `send 2 USD to ${email}`);
      expect(r.body.transfer?.status, JSON.stringify(r.body)).toBe('open');
      return { id: r.body.transfer.id as string, token: (r.body.transfer.claim_url as string).split('/claim/')[1]! };
    };
    const finalOf = (id: string, status: string) => until(async () => (await claims()).find((c) => c.id === id && c.status === status), `claim ${id} ${status}`, 60_000);

    let relayer = 2;
    // h17claimfee: 'fee-collected' is the fee leg of a cancel (our fee is kept), killed before it is recorded.
    const steps = ['funding-recorded', 'funded', 'claiming-recorded', 'paid', 'returning-recorded', 'returned', 'fee-collected'] as const;
    for (const [n, step] of steps.entries()) {
      const email = `crash${n}@example.com`;
      // Claims to claim or cancel are made (funded) on the healthy instance first.
      const ready = step.startsWith('funding') || step === 'funded' ? undefined : await openClaim(email);
      const feeBefore = await bal(feeWallet);
      const senderBefore = await bal(senderWallet);
      const victim = await nodes.start(`fault-${n}`, relayer++, { FAULT_CLAIM_STEP: step });
      let id: string;
      if (!ready) {
        expect(await attempt(() => settleOn(victim, `send 3 USD to ${email}`))).toBeUndefined(); // the connection dies with it
        id = (await claims()).at(-1)!.id;
      } else if (step.startsWith('claiming') || step === 'paid') {
        id = ready.id;
        const signup = attempt(() =>
          fetch(`${victim.api.replace(/\/api$/, '')}/claim/${ready.token}/signup`, {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded', origin: victim.api.replace(/\/api$/, '') },
            body: new URLSearchParams({ name: 'Claimant', email, password: 'correct horse battery' }).toString(),
          }),
        );
        expect(await signup).toBeUndefined();
      } else {
        id = ready.id;
        expect(await attempt(() => call(`${victim.api}/claims/${id}/cancel`, { key: sender.key, body: {} }))).toBeUndefined();
      }
      expect(victim.child.signalCode ?? (await victim.exited, victim.child.signalCode)).toBe('SIGKILL');
      // The healthy instance's sweep (every RECONCILE_INTERVAL, and at every start) finishes the step.
      const want = !ready ? 'open' : step === 'claiming-recorded' || step === 'paid' ? 'claimed' : 'canceled';
      const done = await finalOf(id, want);
      if (want === 'claimed') {
        const w = await until(async () => (await client!.query<{ doc: { walletIndex: number } }>("SELECT doc FROM accounts WHERE doc->>'id' = $1", [done.claimantAccountId])).rows[0]?.doc, 'claimant', 10_000);
        const addr = mnemonicToAccount(nodes.mnemonic, { addressIndex: w.walletIndex }).address;
        claimantWallets.push(addr);
        expect(await bal(addr)).toBe(BigInt(done.amount));
      }
      // Claimed, and (h17claimfee) canceled too: the fee leg once, to the fee wallet.
      if (want !== 'open') {
        await until(async () => (await claims()).find((c) => c.id === id && c.feeSettled), 'fee collected', 30_000);
        expect(await bal(feeWallet)).toBe(feeBefore + BigInt(done.fee));
      }
      // A cancel: exactly the amount back to the sender, our fee kept.
      if (want === 'canceled') expect(await bal(senderWallet)).toBe(senderBefore + BigInt(done.amount));
      expect(await bal(done.escrowAddress)).toBe(want === 'open' ? BigInt(done.total) : 0n);
      await conserved();
      // Each step's transfer.* event exactly once, though the step was re-run after the kill
      // (transfer.claimed twice: the sender's and the claimant's copy).
      const events = (await client!.query<{ doc: { type: string } }>("SELECT doc FROM webhook_events WHERE doc->>'paymentId' = $1", [id])).rows.map((r) => r.doc.type).sort();
      expect(events).toEqual(
        want === 'open' ? ['transfer.claim_created'] : want === 'claimed' ? ['transfer.claim_created', 'transfer.claimed', 'transfer.claimed'] : ['transfer.claim_canceled', 'transfer.claim_created'],
      );
    }
  });
});
