import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toHex, type Address, type Hex, type PrivateKeyAccount } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { buildTransferTypedData } from '../../src/chain/authorization.js';
import { createChain } from '../../src/chain/boot.js';
import type { ChainService } from '../../src/chain/chain.js';
import type { SignedAuthorization } from '../../src/chain/chain-port.js';
import { reasonFromRevert, revertReason } from '../../src/chain/node-errors.js';
import { callWithinGas, estimateCallGas } from '../../src/chain/node-reads.js';
import { encodeBatch, ownBatchGasBound } from '../../src/chain/submit-batch.js';
import { randomNonce, startTokenChain, tempDir } from './helpers.js';

const fresh = () => privateKeyToAccount(randomNonce()).address;

// Issue 23, eleventh round: on our own token a batch of our own authorizations is simulated by one
// eth_call at a fixed gas bound, and sent with it. The bound must hold in the costliest case.
describe('the gas bound of our own authorizations, on the real token', () => {
  let t: Awaited<ReturnType<typeof startTokenChain>>;
  let relayer: PrivateKeyAccount;
  beforeAll(async () => {
    t = await startTokenChain();
    relayer = await t.fundedAccount();
  });
  afterAll(async () => {
    await t?.anvil.stop();
  });

  async function signed(from: PrivateKeyAccount, to: Address, value: bigint): Promise<SignedAuthorization> {
    const now = await t.latestTimestamp();
    const auth = { from: from.address, to, value, validAfter: now - 60n, validBefore: now + 3600n, nonce: randomNonce() };
    return { auth, signature: await from.signTypedData(buildTransferTypedData(t.domain, auth).typedData) };
  }

  it('first-time recipients (the fee wallet too), fresh nonces, cold storage: sent with exactly the bound, it succeeds', async () => {
    for (const n of [2, 3]) {
      for (const payerKeeps of [true, false]) {
        const payer = await t.fundedAccount();
        await t.mint(payer.address, payerKeeps ? 10n ** 12n : BigInt(n) * 1_000_000n);
        // Every recipient has never held the token: its balance slot goes from zero (the costliest write).
        const items = await Promise.all(Array.from({ length: n }, () => signed(payer, fresh(), 1_000_000n)));
        const data = encodeBatch(items);
        const bound = ownBatchGasBound(n);
        const estimate = await estimateCallGas(t.publicClient, relayer, t.token, data);
        expect(estimate).toBeLessThan(bound);
        expect(await callWithinGas(t.publicClient, relayer, t.token, data, bound)).toBe(true);
        const hash = await t.walletFor(relayer).sendTransaction({ to: t.token, data, gas: bound });
        const receipt = await t.publicClient.waitForTransactionReceipt({ hash });
        expect(receipt.status).toBe('success');
        expect(receipt.gasUsed).toBeLessThan(bound);
        // A margin, not a coincidence: at least 20 % over what the costliest case used.
        expect(Number(bound) / Number(receipt.gasUsed)).toBeGreaterThan(1.2);
      }
    }
  });

  it('a revert gives the same reason as the estimate; out of gas at a limit too low answers false (estimate instead)', async () => {
    const payer = await t.fundedAccount();
    await t.mint(payer.address, 100n);
    const used = await signed(payer, fresh(), 1n);
    await t.publicClient.waitForTransactionReceipt({ hash: await t.walletFor(relayer).sendTransaction({ to: t.token, data: encodeBatch([used]) }) });
    const badSignature = await signed(payer, fresh(), 1n);
    const cases: Record<string, Hex> = {
      insufficient_balance: encodeBatch([await signed(payer, fresh(), 90n), await signed(payer, fresh(), 20n)]),
      authorization_used: encodeBatch([await signed(payer, fresh(), 1n), used]),
      invalid_signature: encodeBatch([{ ...badSignature, auth: { ...badSignature.auth, value: 2n } }, await signed(payer, fresh(), 1n)]),
    };
    for (const [reason, data] of Object.entries(cases)) {
      const viaEstimate = await estimateCallGas(t.publicClient, relayer, t.token, data).then(() => 'passed', (e: unknown) => revertReason(e));
      const viaCall = await callWithinGas(t.publicClient, relayer, t.token, data, ownBatchGasBound(2)).then(() => 'passed', (e: unknown) => revertReason(e));
      expect(viaCall).toBe(viaEstimate);
      expect(reasonFromRevert(viaCall)).toBe(reason);
    }
    const ok = encodeBatch([await signed(payer, fresh(), 1n), await signed(payer, fresh(), 1n)]);
    expect(await callWithinGas(t.publicClient, relayer, t.token, ok, 60_000n)).toBe(false);
  });
});

describe('ChainService on the embedded chain: a pair of our own authorizations', () => {
  let chain: ChainService;
  let cleanup: () => Promise<void>;
  const calls: Array<{ method: string; gas?: string | undefined }> = [];

  beforeAll(async () => {
    const d = await tempDir('chain-own-batch-');
    cleanup = d.cleanup;
    chain = await createChain({ dataDir: d.dir });
    const client = chain.publicClient as unknown as { request: (a: { method: string; params?: unknown[] }) => Promise<unknown> };
    const request = client.request.bind(client);
    client.request = (a) => {
      const p = (a.params?.[0] ?? {}) as { to?: string; gas?: string };
      if (p.to?.toLowerCase() === chain.tokenAddress.toLowerCase()) calls.push({ method: a.method, gas: p.gas });
      return request(a);
    };
  });
  afterAll(async () => {
    await chain?.close();
    await cleanup?.();
  });

  const pair = async (index: number, principal: bigint, fee: bigint, feeNonce = randomNonce()) => {
    const from = index;
    const a = await chain.signCustodialAuthorization({ fromIndex: from, to: fresh(), value: principal, nonce: randomNonce() });
    const b = await chain.signCustodialAuthorization({ fromIndex: from, to: fresh(), value: fee, nonce: feeNonce });
    if (!a.ok || !b.ok) throw new Error('sign');
    return [a, b].map(({ auth, signature }) => ({ auth, signature }));
  };
  const simulations = () => calls.filter((c) => c.method === 'eth_estimateGas' || c.method === 'eth_call');

  it('is simulated by one eth_call at the bound (no estimate), sent with it, and moves', async () => {
    expect((await chain.faucet(chain.custodialAddress(31), 10_000_000n, { nativeAmount: 0n })).ok).toBe(true);
    calls.length = 0;
    const items = await pair(31, 4_000_000n, 20_000n);
    const sent = await chain.submitTransfers(items);
    if (!sent.ok) throw new Error(sent.message);
    expect(simulations()).toEqual([{ method: 'eth_call', gas: toHex(ownBatchGasBound(2)) }]);
    const receipt = await chain.waitForReceipt(sent.txHash);
    expect(receipt.status).toBe('success');
    expect(receipt.used).toEqual(expect.arrayContaining(items.map((i) => `${i.auth.from.toLowerCase()}:${i.auth.nonce.toLowerCase()}`)));
    expect(await chain.balanceOf(chain.custodialAddress(31))).toBe(10_000_000n - 4_020_000n);
  });

  it('refuses before the send with the estimate\'s reason and message: too little for the fee, a used nonce', async () => {
    expect((await chain.faucet(chain.custodialAddress(32), 5_000_000n, { nativeAmount: 0n })).ok).toBe(true);
    const nonce = randomNonce();
    const first = await chain.submitTransfers(await pair(32, 1_000_000n, 1n, nonce));
    // (The used nonce is the second's: a resubmit keyed by the first would answer the first's txHash.)
    if (!first.ok) throw new Error(first.message);
    expect((await chain.waitForReceipt(first.txHash)).status).toBe('success');
    const relayerTxs = await chain.publicClient.getTransactionCount({ address: chain.relayerAddress });
    const cases = [
      { items: await pair(32, 3_999_999n, 2n), reason: 'insufficient_balance' },
      { items: await pair(32, 1n, 1n, nonce), reason: 'authorization_used' },
    ];
    for (const c of cases) {
      const expected = await estimateCallGas(chain.publicClient, privateKeyToAccount(randomNonce()), chain.tokenAddress, encodeBatch(c.items)).then(
        () => 'passed',
        (e: unknown) => `simulation failed: ${revertReason(e)}`,
      );
      calls.length = 0;
      const out = await chain.submitTransfers(c.items);
      expect(out).toMatchObject({ ok: false, reason: c.reason, message: expected });
      expect(simulations().map((s) => s.method)).toEqual(['eth_call']);
    }
    expect(await chain.publicClient.getTransactionCount({ address: chain.relayerAddress })).toBe(relayerTxs);
    expect(await chain.balanceOf(chain.custodialAddress(32))).toBe(5_000_000n - 1_000_001n);
  });
});
