import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { toFunctionSelector, type Address, type PrivateKeyAccount } from 'viem';
import { createChain } from '../../src/chain/boot.js';
import type { ChainService } from '../../src/chain/chain.js';
import type { TransferAuthorization } from '../../src/chain/authorization.js';
import { randomNonce, startTokenChain, tempDir } from './helpers.js';
import { startRpcProxy, type RpcProxy } from './rpc-proxy.js';

// submitTransferWithAuthorization on a real network behind a proxy that counts the calls and
// can refuse a send or lose its answer.
describe('ChainService.submitTransferWithAuthorization: verification and send outcomes', () => {
  let t: Awaited<ReturnType<typeof startTokenChain>>;
  let proxy: RpcProxy;
  let chain: ChainService;
  let payer: PrivateKeyAccount;
  const merchant = '0x00000000000000000000000000000000000c0ffe' as Address;
  const cleanups: (() => Promise<void>)[] = [];
  const SEND = 'eth_sendRawTransaction';
  const reads = (signature: string) => {
    const selector: string = toFunctionSelector(signature);
    return proxy.calls.filter((c) => c.method === 'eth_call' && String((c.params[0] as { data?: string }).data).startsWith(selector)).length;
  };
  const estimates = () => proxy.count('eth_estimateGas') + proxy.count('eth_fillTransaction');

  beforeAll(async () => {
    t = await startTokenChain();
    proxy = await startRpcProxy(t.anvil.rpcUrl);
    const d = await tempDir('chain-submit-');
    cleanups.push(d.cleanup);
    chain = await createChain({
      dataDir: d.dir,
      rpcUrl: proxy.url,
      chainId: t.anvil.chainId,
      tokenAddress: t.token,
      relayerPrivateKey: await t.fundedKey(),
    });
    payer = await t.fundedAccount();
    await t.mint(payer.address, 100_000_000n);
  });
  beforeEach(() => {
    proxy.rule = undefined;
    proxy.resetCounts();
  });
  afterAll(async () => {
    await chain?.close();
    await proxy?.close();
    await t?.anvil.stop();
    await Promise.all(cleanups.map((c) => c()));
  });

  async function authorize(overrides: Partial<TransferAuthorization> = {}) {
    const now = (await t.publicClient.getBlock()).timestamp;
    const auth: TransferAuthorization = {
      from: payer.address,
      to: merchant,
      value: 1_000_000n,
      validAfter: 0n,
      validBefore: now + 600n,
      nonce: randomNonce(),
      ...overrides,
    };
    return { auth, signature: await payer.signTypedData(chain.transferWithAuthorizationTypedData(auth).typedData) };
  }

  it('verified: skips the repeated reads and sends on the verification\'s simulation (one gas estimate in all)', async () => {
    const { auth, signature } = await authorize();
    proxy.resetCounts();
    expect(await chain.verifyTransferAuthorization(auth, signature)).toMatchObject({ ok: true });
    const sent = await chain.submitTransferWithAuthorization(auth, signature, { verified: true });
    if (!sent.ok) throw new Error(sent.message);
    expect((await chain.waitForReceipt(sent.txHash)).status).toBe('success');
    // A passing simulation ran the token's own nonce and balance checks: nothing read apart.
    expect(reads('authorizationState(address,bytes32)')).toBe(0);
    expect(reads('balanceOf(address)')).toBe(0);
    expect(estimates()).toBe(1);
    expect(proxy.count(SEND)).toBe(1);
  });

  it('verified without a fresh verification here: simulates once (the gas estimate) right before sending', async () => {
    const { auth, signature } = await authorize();
    proxy.resetCounts();
    const sent = await chain.submitTransferWithAuthorization(auth, signature, { verified: true });
    if (!sent.ok) throw new Error(sent.message);
    expect(reads('authorizationState(address,bytes32)')).toBe(0);
    expect(reads('balanceOf(address)')).toBe(0);
    expect(estimates()).toBe(1);
    expect(proxy.count(SEND)).toBe(1);
  });

  it('verified: still never sends what the contract would refuse', async () => {
    const tooMuch = await authorize({ value: 10n ** 15n });
    const toZero = await authorize({ to: '0x0000000000000000000000000000000000000000' });
    proxy.resetCounts();

    expect(await chain.submitTransferWithAuthorization(tooMuch.auth, tooMuch.signature, { verified: true })).toMatchObject({
      ok: false,
      reason: 'insufficient_balance',
    });
    expect(await chain.submitTransferWithAuthorization(toZero.auth, toZero.signature, { verified: true })).toMatchObject({
      ok: false,
      reason: 'simulation_failed',
    });
    expect(proxy.count(SEND)).toBe(0);
  });

  it('the default still verifies first: a bad signature is refused as invalid_signature and nothing is sent', async () => {
    const { auth, signature } = await authorize();
    proxy.resetCounts();
    const res = await chain.submitTransferWithAuthorization({ ...auth, value: auth.value + 1n }, signature);
    expect(res).toMatchObject({ ok: false, reason: 'invalid_signature' });
    // An EOA signature is checked by the simulation (the token's ecrecover), in the one round
    // trip with the reads; only a rejected one is recovered locally to name the reason.
    expect(estimates()).toBe(1);
    expect(proxy.count(SEND)).toBe(0);
  });

  it('submit_failed says whether the transaction can have reached the node', async () => {
    const refused = await authorize();
    proxy.rule = ({ method }) => (method === SEND ? { error: { code: -32000, message: 'txpool is full' } } : undefined);
    const r1 = await chain.submitTransferWithAuthorization(refused.auth, refused.signature);
    expect(r1).toMatchObject({ ok: false, reason: 'submit_failed', sendOutcome: 'refused' });

    const lost = await authorize();
    // The node takes it, the answer is lost, and the next backend asked has not seen it.
    proxy.rule = ({ method }) =>
      method === SEND ? 'forward-then-reset' : method === 'eth_getTransactionByHash' ? { result: null } : undefined;
    const r2 = await chain.submitTransferWithAuthorization(lost.auth, lost.signature);
    expect(r2).toMatchObject({ ok: false, reason: 'submit_failed', sendOutcome: 'unknown' });
    if (r2.ok || !r2.txHash) throw new Error('expected the hash of the transaction that may be in flight');
    proxy.rule = undefined;
    // It was in fact taken (and mined): exactly why an unknown outcome must not reopen a payment.
    expect((await chain.waitForReceipt(r2.txHash)).status).toBe('success');
    expect(await chain.authorizationState(payer.address, lost.auth.nonce)).toBe(true);

    // The refused one's nonce was given back: the relayer is not stuck behind it.
    const r3 = await chain.submitTransferWithAuthorization(refused.auth, refused.signature);
    if (!r3.ok) throw new Error(r3.message);
    expect((await chain.waitForReceipt(r3.txHash)).status).toBe('success');
  });
});
