import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { toFunctionSelector, type Address, type Hex, type PrivateKeyAccount } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { stablecoinAbi } from '../../src/chain/artifacts/stablecoin.js';
import { startTokenChain } from '../chain/helpers.js';
import { startRpcProxy, type RpcProxy } from '../chain/rpc-proxy.js';
import { authorize, createPayment, merchantWallet, paymentRecord, settle, setup, stored, usdc, type Ctx, type Signed } from './helpers.js';

// The service on a "real network" (CHAIN_RPC_URL): a separate anvil with the token, reached
// through a JSON-RPC proxy that can lose the answer to a send, refuse one, or lag behind.
// No deploy block is known here, so log scans run the real-network path too.

type TokenChain = Awaited<ReturnType<typeof startTokenChain>>;

async function startNetworkService(t: TokenChain, proxy: RpcProxy): Promise<Ctx> {
  return setup({
    CHAIN_RPC_URL: proxy.url,
    CHAIN_ID: String(t.anvil.chainId),
    TOKEN_ADDRESS: t.token,
    RELAYER_PRIVATE_KEY: await t.fundedKey(),
    SETTLEMENT_CONFIRM_TIMEOUT: '300ms',
    RECONCILE_INTERVAL: '1h',
  });
}

/** A customer holding `amount` of the token (minted by the token's owner) and no ETH. */
async function fundedCustomer(t: TokenChain, amount: bigint): Promise<PrivateKeyAccount> {
  const account = privateKeyToAccount(generatePrivateKey());
  await t.mint(account.address, amount);
  return account;
}

const SEND = 'eth_sendRawTransaction';
const refuseSends = ({ method }: { method: string }) =>
  method === SEND ? { error: { code: -32000, message: 'txpool is full' } } : undefined;

describe('settlement: send outcomes on a real network', () => {
  let t: TokenChain;
  let proxy: RpcProxy;
  let ctx: Ctx;

  beforeAll(async () => {
    t = await startTokenChain();
    proxy = await startRpcProxy(t.anvil.rpcUrl);
    ctx = await startNetworkService(t, proxy);
  });
  afterEach(async () => {
    proxy.rule = undefined;
    await t.testClient.setAutomine(true);
  });
  afterAll(async () => {
    await ctx?.svc.stop({ removeData: true });
    await proxy?.close();
    await t?.anvil.stop();
  });

  it('verifies once: one simulation (the gas estimate) before the CAS, and the send goes on it', async () => {
    const pay = await createPayment(ctx);
    const payer = await fundedCustomer(t, usdc('12.5'));
    const signed = await authorize(ctx, pay.id, payer);
    const selectors = new Set<string>(
      stablecoinAbi
        .filter((x) => x.type === 'function' && x.name === 'transferWithAuthorization')
        .map((x) => toFunctionSelector(x as never)),
    );
    const isTransfer = (params: unknown[]) => selectors.has(String((params[0] as { data?: string })?.data ?? '').slice(0, 10));
    const authorizationStateSelector: string = toFunctionSelector('authorizationState(address,bytes32)');
    proxy.resetCounts();

    const res = await settle(ctx, pay.id, signed);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const simulations = proxy.calls.filter((c) => c.method === 'eth_call' && isTransfer(c.params));
    // viem estimates gas with eth_fillTransaction where the node has it, else eth_estimateGas.
    const estimates = proxy.calls.filter((c) => (c.method === 'eth_estimateGas' || c.method === 'eth_fillTransaction') && isTransfer(c.params));
    const stateReads = proxy.calls.filter(
      (c) => c.method === 'eth_call' && String((c.params[0] as { data?: string }).data).startsWith(authorizationStateSelector),
    );
    // The verification's simulation is the gas estimate; the send right after reuses it.
    expect(simulations).toHaveLength(0);
    expect(estimates).toHaveLength(1);
    // A passing simulation ran the token's own nonce check: no separate authorizationState read.
    expect(stateReads).toHaveLength(0);
    expect(proxy.count(SEND)).toBe(1);
  });

  it('a send whose answer is lost after the node took it: stays processing with the tx hash, then settles once mined', async () => {
    const { chain, settlement } = ctx.svc.deps;
    const pay = await createPayment(ctx);
    const to = await merchantWallet(ctx);
    const before = await chain.balanceOf(to);
    const payer = await fundedCustomer(t, usdc('12.5'));
    const signed = await authorize(ctx, pay.id, payer);
    await t.testClient.setAutomine(false);
    // The node takes the transaction but the connection drops before the answer, and the
    // backend asked next (a load-balanced provider) has not seen it yet.
    proxy.rule = ({ method }) =>
      method === SEND ? 'forward-then-reset' : method === 'eth_getTransactionByHash' ? { result: null } : undefined;

    const res = await settle(ctx, pay.id, signed);
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.body).toMatchObject({ ok: true, payment: { status: 'processing' } });
    const txHash = res.body.txHash as Hex;
    expect(txHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await stored(ctx, pay.id)).toMatchObject({ status: 'processing', payer: payer.address, txHash });
    // Nothing is mined yet, and the authorization is unused: the old rule reopened the payment here.
    expect(await chain.authorizationState(payer.address, chain.nonceFor('payment', pay.id))).toBe(false);

    proxy.rule = undefined;
    // Still in the pool: the reconciler leaves it processing.
    expect(await settlement!.reconcile()).toMatchObject({ processing: 1 });
    expect((await stored(ctx, pay.id)).status).toBe('processing');

    await t.testClient.mine({ blocks: 1 });
    await t.testClient.setAutomine(true);
    expect(await settlement!.reconcile()).toMatchObject({ settled: 1 });
    expect(await paymentRecord(ctx, pay.id)).toMatchObject({ status: 'settled', tx_hash: txHash, payer: payer.address });
    expect(await chain.balanceOf(to)).toBe(before + usdc('12.5'));
    expect(await chain.balanceOf(payer.address)).toBe(0n);
  });

  it('a send the node refused: back to pending at once with the attempt recorded, and the customer can pay again', async () => {
    const { chain } = ctx.svc.deps;
    const pay = await createPayment(ctx);
    const to = await merchantWallet(ctx);
    const before = await chain.balanceOf(to);
    const payer = await fundedCustomer(t, usdc('12.5'));
    const signed = await authorize(ctx, pay.id, payer);
    proxy.rule = refuseSends;

    const res = await settle(ctx, pay.id, signed);
    expect(res.status, JSON.stringify(res.body)).toBe(503);
    expect(res.body).toMatchObject({ ok: false, reason: 'submit_failed' });
    const p = await stored(ctx, pay.id);
    expect(p).toMatchObject({ status: 'pending', attemptedBy: [payer.address] });
    expect(p.payer).toBeUndefined();

    proxy.rule = undefined;
    const paid = await settle(ctx, pay.id, signed);
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    expect(await chain.balanceOf(to)).toBe(before + usdc('12.5'));
  });
});

describe('settlement: expiry after a settle attempt', () => {
  let t: TokenChain;
  let proxy: RpcProxy;
  let ctx: Ctx;

  beforeAll(async () => {
    t = await startTokenChain();
    proxy = await startRpcProxy(t.anvil.rpcUrl);
    ctx = await startNetworkService(t, proxy);
  });
  afterEach(() => {
    proxy.rule = undefined;
  });
  afterAll(async () => {
    await ctx?.svc.stop({ removeData: true });
    await proxy?.close();
    await t?.anvil.stop();
  });

  /** A pending payment whose settle was attempted (the node refused the send). */
  async function attempted(expiresInMinutes: number) {
    const pay = await createPayment(ctx, { expires_in_minutes: expiresInMinutes });
    const payer = await fundedCustomer(t, usdc('12.5'));
    const signed = await authorize(ctx, pay.id, payer);
    proxy.rule = refuseSends;
    expect((await settle(ctx, pay.id, signed)).status).toBe(503);
    proxy.rule = undefined;
    expect(await stored(ctx, pay.id)).toMatchObject({ status: 'pending', attemptedBy: [payer.address] });
    return { pay, payer, signed };
  }

  const passChainTime = (minutes: number) => t.testClient.increaseTime({ seconds: minutes * 60 }).then(() => t.testClient.mine({ blocks: 1 }));
  const anHourLater = () => Date.now() + 60 * 60_000;

  // Chain time only moves forward, so the shorter session goes first.
  it('an attempt whose authorization was never used: the sweeper leaves it, the reconciler expires it once the window closed', async () => {
    const { payments, settlement } = ctx.svc.deps;
    const { pay, payer } = await attempted(5);
    await passChainTime(6);

    await payments.sweepExpired(anHourLater());
    expect((await stored(ctx, pay.id)).status).toBe('pending');
    expect(await settlement!.reconcile()).toMatchObject({ expired: 1 });
    expect((await stored(ctx, pay.id)).status).toBe('expired');
    expect(await ctx.svc.deps.chain.balanceOf(payer.address)).toBe(usdc('12.5'));
  });

  it('an authorization used on-chain behind the service\'s back: settled by the reconciler, not expired, even past expiry', async () => {
    const { chain, payments, settlement } = ctx.svc.deps;
    const to = await merchantWallet(ctx);
    const before = await chain.balanceOf(to);
    const { pay, payer, signed } = await attempted(30);

    // Someone else relays the signed authorization straight to the token contract.
    const hash = await relayOurselves(t, signed);
    expect((await t.publicClient.waitForTransactionReceipt({ hash })).status).toBe('success');
    await passChainTime(31);

    await payments.sweepExpired(anHourLater());
    const p = await stored(ctx, pay.id);
    expect(p.status).toBe('pending');
    // Past its expiry it does not read as expired either: the chain has not been checked yet.
    expect(payments.effectiveStatus(p, anHourLater())).toBe('pending');

    expect(await settlement!.reconcile()).toMatchObject({ settled: 1 });
    expect(await paymentRecord(ctx, pay.id)).toMatchObject({ status: 'settled', tx_hash: hash, payer: payer.address });
    expect(await chain.balanceOf(to)).toBe(before + usdc('12.5'));
    expect(await chain.balanceOf(payer.address)).toBe(0n);
  });
});

/** Sends transferWithAuthorization for `signed` from an unrelated funded account. */
async function relayOurselves(t: TokenChain, signed: Signed): Promise<Hex> {
  const a = signed.authorization;
  const relayer = await t.fundedAccount();
  return t.walletFor(relayer).writeContract({
    address: t.token,
    abi: stablecoinAbi,
    functionName: 'transferWithAuthorization',
    args: [
      a.from as Address,
      a.to as Address,
      BigInt(a.value!),
      BigInt(a.validAfter!),
      BigInt(a.validBefore!),
      a.nonce as Hex,
      signed.signature,
    ],
  });
}
