import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createWalletClient, http as viemHttp, parseEther, parseGwei, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { stablecoinAbi } from '../../src/chain/artifacts/stablecoin.js';
import { WebhookEvents } from '../../src/webhooks/outbox.js';
import { SettlementAttempts, attemptId } from '../../src/settlement/attempts.js';
import { call, startTestService } from '../helpers/service.js';
import {
  anvil,
  authorize,
  createPayment,
  customer,
  merchantWallet,
  paymentRecord,
  settle,
  setup,
  stored,
  until,
  usdc,
  type Ctx,
} from './helpers.js';
import { holdChain } from './hash-records.js';

// A receipt wait short enough that a paused chain leaves payments `processing`; the periodic
// reconciler is off (1 h) so each test decides when it runs.
const SHORT = { SETTLEMENT_CONFIRM_TIMEOUT: '300ms', SETTLEMENT_CHAIN_DELAY: '8s', RECONCILE_INTERVAL: '1h' };

/** Settles with mining paused: the answer is 202 and the payment stays `processing`. */
async function settleUnmined(ctx: Ctx, paymentId: string, amount = usdc('12.5')) {
  const payer = await customer(ctx, amount);
  const signed = await authorize(ctx, paymentId, payer);
  await anvil(ctx, 'evm_setAutomine', [false]);
  const res = await settle(ctx, paymentId, signed);
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  expect(res.body).toMatchObject({ ok: true, payment: { status: 'processing' } });
  const txHash = res.body.txHash as Hex;
  expect(txHash).toMatch(/^0x[0-9a-f]{64}$/);
  const p = await stored(ctx, paymentId);
  expect(p).toMatchObject({ status: 'processing', payer: payer.address, txHash });
  return { payer, signed, txHash };
}

describe('reconciler: receipts that arrive late', () => {
  let ctx: Ctx;
  beforeAll(async () => {
    ctx = await setup(SHORT);
  });
  afterEach(async () => {
    await anvil(ctx, 'evm_setAutomine', [true]).catch(() => {});
  });
  afterAll(async () => {
    await ctx?.svc.stop({ removeData: true });
  });

  it('a receipt timeout leaves the payment processing; once mined, reconcile settles it', async () => {
    const { chain, settlement } = ctx.svc.deps;
    const pay = await createPayment(ctx);
    const to = await merchantWallet(ctx);
    const before = await chain.balanceOf(to);
    const other = await customer(ctx, usdc('12.5'));
    const { payer, signed, txHash } = await settleUnmined(ctx, pay.id);

    // Still in the node's pool: nothing to decide yet.
    expect(await settlement!.reconcile()).toMatchObject({ checked: 1, processing: 1 });
    expect((await stored(ctx, pay.id)).status).toBe('processing');
    // Another payer cannot jump in meanwhile.
    const blocked = await call(`${ctx.svc.api}/checkout/${pay.id}/authorization`, { body: { from: other.address } });
    expect(blocked.status).toBe(409);
    expect(blocked.body).toMatchObject({ ok: false, reason: 'processing' });

    await anvil(ctx, 'evm_mine');
    await anvil(ctx, 'evm_setAutomine', [true]);
    expect(await settlement!.reconcile()).toMatchObject({ checked: 1, settled: 1 });
    const record = await paymentRecord(ctx, pay.id);
    expect(record).toMatchObject({ status: 'settled', tx_hash: txHash, payer: payer.address });
    expect(record.settled_at).toBeTruthy();
    expect(await chain.balanceOf(to)).toBe(before + usdc('12.5'));
    expect(await chain.balanceOf(other.address)).toBe(usdc('12.5'));

    // The page re-submitting the same authorization now gets the settled outcome.
    const again = await settle(ctx, pay.id, signed);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ ok: true, txHash, payment: { status: 'settled' } });
  });

  it('our transaction reverted because the payer spent its balance before inclusion: reconcile opens the payment again (no failed), and the funded payer pays with the same authorization', async () => {
    const { chain, settlement } = ctx.svc.deps;
    const pay = await createPayment(ctx, { webhook_url: 'http://127.0.0.1:9/hooks' });
    const to = await merchantWallet(ctx);
    const before = await chain.balanceOf(to);
    const payer = await customer(ctx, usdc('12.5'), parseEther('1'));
    const signed = await authorize(ctx, pay.id, payer);
    await anvil(ctx, 'evm_setAutomine', [false]);
    const res = await settle(ctx, pay.id, signed);
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const txHash = res.body.txHash as Hex;
    // Ahead of ours in the same block (higher tip), the payer moves its balance elsewhere.
    const wallet = createWalletClient({ account: payer, chain: chain.publicClient.chain, transport: viemHttp(chain.rpcUrl) });
    await wallet.writeContract({
      address: chain.tokenAddress,
      abi: stablecoinAbi,
      functionName: 'transfer',
      args: [privateKeyToAccount(generatePrivateKey()).address, usdc('12.5')],
      gas: 100_000n,
      maxPriorityFeePerGas: parseGwei('500'),
      maxFeePerGas: parseGwei('1000'),
    });
    await anvil(ctx, 'evm_mine');
    await anvil(ctx, 'evm_setAutomine', [true]);
    expect((await chain.publicClient.getTransactionReceipt({ hash: txHash })).status).toBe('reverted');

    expect(await settlement!.reconcile()).toMatchObject({ checked: 1, pending: 1, failed: 0 });
    expect(await stored(ctx, pay.id)).toMatchObject({ status: 'pending' });
    expect((await ctx.svc.deps.store.table(WebhookEvents).findMany({ paymentId: pay.id })).map((e) => e.type)).toEqual([]);

    expect((await chain.faucet(payer.address, usdc('12.5'), { nativeAmount: 0n })).ok).toBe(true);
    const again = await settle(ctx, pay.id, signed);
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(await chain.balanceOf(to)).toBe(before + usdc('12.5'));
  });

  it('re-submitting the same authorization while processing waits for the receipt', async () => {
    const pay = await createPayment(ctx);
    const { signed, txHash } = await settleUnmined(ctx, pay.id);
    await anvil(ctx, 'evm_mine');
    await anvil(ctx, 'evm_setAutomine', [true]);
    const again = await settle(ctx, pay.id, signed);
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body).toMatchObject({ ok: true, txHash, payment: { status: 'settled' } });
  });

  it('a transaction the node dropped: processing (never "nothing charged") until its deadline, then the stored authorization is sent again and settles once', async () => {
    const { chain, settlement } = ctx.svc.deps;
    const pay = await createPayment(ctx);
    const to = await merchantWallet(ctx);
    const before = await chain.balanceOf(to);
    const { payer, signed, txHash } = await settleUnmined(ctx, pay.id);
    await anvil(ctx, 'anvil_dropTransaction', [txHash]);
    await anvil(ctx, 'evm_setAutomine', [true]);

    // Before the attempt's deadline (confirm timeout + chain delay) nobody judges it lost (issue 21).
    expect(await settlement!.reconcile()).toMatchObject({ checked: 1, processing: 1, pending: 0 });
    expect((await stored(ctx, pay.id)).status).toBe('processing');
    const again = await settle(ctx, pay.id, signed);
    expect(again.status, JSON.stringify(again.body)).toBe(202);
    expect(again.body).toMatchObject({ ok: true, payment: { status: 'processing' } });

    // Past it, nothing on its way: the payer's signed authorization is sent again, once.
    await until(async () => (await settlement!.reconcile()).settled === 1, 'the reconciler to finish the attempt', 30_000);
    const p = await stored(ctx, pay.id);
    expect(p).toMatchObject({ status: 'settled', payer: payer.address });
    // The resend may carry the dropped one's hash: same relayer nonce, same call data and, when no
    // block was mined in between, the same fee make the same transaction. What matters is below.
    expect((await chain.waitForReceipt(p.txHash as Hex)).status).toBe('success');
    expect(await chain.balanceOf(to)).toBe(before + usdc('12.5'));
    expect(await chain.balanceOf(payer.address)).toBe(0n);
    const paid = await settle(ctx, pay.id, signed);
    expect(paid.status).toBe(200);
    expect(paid.body).toMatchObject({ ok: true, txHash: p.txHash, payment: { status: 'settled' } });
  });
});

describe('reconciler: restart mid-processing', () => {
  let ctx: Ctx;
  beforeAll(async () => {
    ctx = await setup(SHORT);
  });
  afterAll(async () => {
    await ctx?.svc.stop({ removeData: true });
  });

  async function restart() {
    const { dataDir } = ctx.svc;
    await ctx.svc.stop();
    // Start-up runs a reconcile pass on its own.
    ctx = { ...ctx, svc: await startTestService({ NODE_ENV: 'test', ...SHORT }, { dataDir }) };
  }

  it('mined while nobody watched, then a restart: settled on start', async () => {
    const pay = await createPayment(ctx);
    const to = await merchantWallet(ctx);
    const before = await ctx.svc.deps.chain.balanceOf(to);
    const { payer, txHash } = await settleUnmined(ctx, pay.id);
    await anvil(ctx, 'evm_mine');
    await restart();

    await until(async () => (await stored(ctx, pay.id)).status === 'settled', 'the start-up reconcile to settle the payment');
    expect(await paymentRecord(ctx, pay.id)).toMatchObject({ status: 'settled', tx_hash: txHash, payer: payer.address });
    expect(await ctx.svc.deps.chain.balanceOf(to)).toBe(before + usdc('12.5'));
  });

  it('the transaction was lost with the node on restart: the relay journal sends it again, settled once', async () => {
    const pay = await createPayment(ctx);
    const to = await merchantWallet(ctx);
    const before = await ctx.svc.deps.chain.balanceOf(to);
    const { payer, signed, txHash } = await settleUnmined(ctx, pay.id);
    // anvil does not keep its transaction pool across a restart; the journal kept the signed
    // transaction, and start-up re-broadcasts it (docs/chain.md, "Power loss").
    await restart();

    await until(async () => (await stored(ctx, pay.id)).status === 'settled', 'the start-up reconcile to settle the payment');
    expect(await paymentRecord(ctx, pay.id)).toMatchObject({ status: 'settled', tx_hash: txHash, payer: payer.address });
    expect(await ctx.svc.deps.chain.balanceOf(payer.address)).toBe(0n);
    expect(await ctx.svc.deps.chain.balanceOf(to)).toBe(before + usdc('12.5'));

    // The same authorization again answers the outcome; nothing moves twice.
    const again = await settle(ctx, pay.id, signed);
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body).toMatchObject({ ok: true, payment: { status: 'settled' }, txHash });
    expect(await ctx.svc.deps.chain.balanceOf(to)).toBe(before + usdc('12.5'));
  });
});

/** Three settles at once, the first send held until all three reached the chain port: one goes alone, two as one batch. */
async function threeAtOnce(ctx: Ctx, opts: { receipts?: boolean } = {}) {
  const prepared = await Promise.all(
    [3, 4, 5].map(async (usd) => {
      const pay = await createPayment(ctx, { amount: usd });
      const payer = await customer(ctx, usdc(String(usd)));
      return { pay, payer, due: usdc(String(usd)), signed: await authorize(ctx, pay.id, payer) };
    }),
  );
  return { prepared, held: holdChain(ctx.svc, { handed: 3, ...opts }) };
}

describe('the hash record of a batch member (fifteenth round, h15hash)', () => {
  let ctx: Ctx;
  // SHORT's receipt wait (300 ms) runs out inside the hash record's grace (relay.ts, 1 s).
  const CRASH = { ...SHORT, SHUTDOWN_GRACE: '200ms' };
  beforeAll(async () => {
    ctx = await setup(CRASH);
  });
  afterEach(async () => {
    await anvil(ctx, 'evm_setAutomine', [true]).catch(() => {});
  });
  afterAll(async () => {
    await ctx?.svc.stop({ removeData: true });
  });

  it('no receipt within the wait (inside the grace): the hash is stored before the outcome, and the 202 answer names it', async () => {
    const { prepared, held } = await threeAtOnce(ctx);
    await anvil(ctx, 'evm_setAutomine', [false]);
    let answers;
    try {
      answers = await Promise.all(prepared.map((p) => settle(ctx, p.pay.id, p.signed)));
    } finally {
      held.restore();
    }
    expect(held.sent).toHaveLength(2);
    for (const [i, r] of answers.entries()) {
      expect(r.status, JSON.stringify(r.body)).toBe(202);
      expect(held.sent).toContain(r.body.txHash);
      expect(await stored(ctx, prepared[i]!.pay.id)).toMatchObject({ status: 'processing', txHash: r.body.txHash });
    }
    expect(answers.filter((r) => r.body.txHash === held.sent[1])).toHaveLength(2);
    await anvil(ctx, 'evm_mine');
    await ctx.svc.deps.settlement!.reconcile();
    for (const [i, r] of answers.entries()) expect(await paymentRecord(ctx, prepared[i]!.pay.id)).toMatchObject({ status: 'settled', tx_hash: r.body.txHash });
  });

  it('the process dies right after the batch left (inside the grace: no hash stored, no outcome): the next lifetime settles each from the chain, once', { timeout: 120_000 }, async () => {
    const { chain } = ctx.svc.deps;
    const to = await merchantWallet(ctx);
    const before = await chain.balanceOf(to);
    const { prepared, held } = await threeAtOnce(ctx, { receipts: true });
    // From the batch's broadcast on, no store transaction runs: as good as dead (outcome-crash.ts).
    const client = chain.publicClient as unknown as { sendRawTransaction: (a: unknown) => Promise<unknown> };
    const send = client.sendRawTransaction;
    const store = ctx.svc.deps.store as unknown as { transaction: (...a: unknown[]) => Promise<unknown> };
    const transaction = store.transaction;
    let dead = false;
    let calls = 0;
    client.sendRawTransaction = function (this: unknown, a: unknown) {
      if (++calls === 2) dead = true;
      return send.call(this, a);
    };
    store.transaction = function (this: unknown, ...a: unknown[]) {
      return dead ? new Promise(() => {}) : transaction.apply(this, a);
    };
    // The node takes both transactions but mines them only after the process died, as any chain
    // does some time after a send returns (anvil's automine too: eth_sendRawTransaction answers
    // before the block is mined, h17flake). Pinned here so the relayer's count below is read from
    // the mined chain, never in that gap (docs/testing.md, "h17flake").
    await anvil(ctx, 'evm_setAutomine', [false]);
    const answered = Promise.all(prepared.map((p) => settle(ctx, p.pay.id, p.signed).catch(() => undefined)));
    await until(async () => held.sent.length === 2, 'the batch to leave');
    const batch = held.sent[1]!;
    await anvil(ctx, 'evm_mine');
    await anvil(ctx, 'evm_setAutomine', [true]);
    // Both of this lifetime's transactions are in the chain (the receipt wait of the service is held;
    // these are read at the node), and the relayer's count is theirs: the batch took the last nonce.
    const mined = await Promise.all(held.sent.map((hash) => chain.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50, timeout: 30_000 })));
    expect(mined.map((r) => r.status)).toEqual(['success', 'success']);
    const relayerNonce = await chain.publicClient.getTransactionCount({ address: chain.relayerAddress });
    expect(relayerNonce).toBe((await chain.publicClient.getTransaction({ hash: batch })).nonce + 1);
    // Its two members: processing, with no hash stored (the grace had not passed; the record never ran).
    const states = await Promise.all(prepared.map((p) => stored(ctx, p.pay.id)));
    expect(states.every((s) => s.status === 'processing')).toBe(true);
    expect(states.filter((s) => s.txHash === undefined)).toHaveLength(2);
    held.release();
    const { dataDir } = ctx.svc;
    await ctx.svc.stop();
    await answered;
    // Start-up runs a reconcile pass on its own: the batch members are found by their AuthorizationUsed logs.
    ctx = { ...ctx, svc: await startTestService({ NODE_ENV: 'test', ...CRASH }, { dataDir }) };
    for (const p of prepared) await until(async () => (await stored(ctx, p.pay.id)).status === 'settled', 'the start-up reconcile to settle each payment');
    const hashes = await Promise.all(prepared.map(async (p) => (await paymentRecord(ctx, p.pay.id)).tx_hash));
    expect(hashes.filter((h) => h === batch)).toHaveLength(2);
    for (const p of prepared) {
      const nonce = p.signed.authorization.nonce as string;
      const attempt = await ctx.svc.deps.store.table(SettlementAttempts).get(attemptId('checkout', p.payer.address, nonce));
      expect(attempt).toMatchObject({ state: 'done', answer: { ok: true } });
      expect(await ctx.svc.deps.chain.balanceOf(p.payer.address)).toBe(0n);
    }
    // Once: the merchant got each amount once, and nothing was sent again after the crash.
    expect(await ctx.svc.deps.chain.balanceOf(to)).toBe(before + usdc('12'));
    const next = ctx.svc.deps.chain.publicClient;
    expect(await next.getTransactionCount({ address: ctx.svc.deps.chain.relayerAddress })).toBe(relayerNonce);
    for (const hash of held.sent) expect((await next.getTransactionReceipt({ hash })).status).toBe('success');
  });
});

describe('reconciler: authorization expired without being mined', () => {
  let ctx: Ctx;
  beforeAll(async () => {
    ctx = await setup(SHORT);
  });
  afterAll(async () => {
    await ctx?.svc.stop({ removeData: true });
  });

  it('fails the payment (the authorization can never be used now)', async () => {
    const pay = await createPayment(ctx, { expires_in_minutes: 5 });
    const { payer, txHash } = await settleUnmined(ctx, pay.id);
    await anvil(ctx, 'anvil_dropTransaction', [txHash]);
    // Chain time moves past validBefore (the session expiry).
    await anvil(ctx, 'evm_increaseTime', [`0x${(10 * 60).toString(16)}`]);
    await anvil(ctx, 'evm_mine');
    await anvil(ctx, 'evm_setAutomine', [true]);

    expect(await ctx.svc.deps.settlement!.reconcile()).toMatchObject({ checked: 1, failed: 1 });
    const record = await paymentRecord(ctx, pay.id);
    expect(record.status).toBe('failed');
    expect(record.failure_reason).toMatch(/expired/);
    expect(await ctx.svc.deps.chain.balanceOf(payer.address)).toBe(usdc('12.5'));
  });
});

describe('reconciler: runs on its own every RECONCILE_INTERVAL', () => {
  let ctx: Ctx;
  beforeAll(async () => {
    ctx = await setup({ SETTLEMENT_CONFIRM_TIMEOUT: '300ms', RECONCILE_INTERVAL: '200ms' });
  });
  afterAll(async () => {
    await anvil(ctx, 'evm_setAutomine', [true]).catch(() => {});
    await ctx?.svc.stop({ removeData: true });
  });

  it('settles a processing payment once its transaction is mined, without anyone asking', async () => {
    const pay = await createPayment(ctx);
    const { txHash } = await settleUnmined(ctx, pay.id);
    await anvil(ctx, 'evm_mine');
    await anvil(ctx, 'evm_setAutomine', [true]);
    await until(async () => (await stored(ctx, pay.id)).status === 'settled', 'the periodic reconcile');
    expect((await paymentRecord(ctx, pay.id)).tx_hash).toBe(txHash);
  });
});
