import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSignature, serializeSignature, type Address, type Hex, type PrivateKeyAccount } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { TransferAuthorization, type TransferAuthorizationInput } from '../../src/chain/authorization.js';
import { createChain } from '../../src/chain/boot.js';
import type { ChainService } from '../../src/chain/chain.js';
import { randomNonce, tempDir } from './helpers.js';

// Verification and relaying through ChainService on the embedded anvil.
describe('ChainService: verify and relay EIP-3009 authorizations', () => {
  let chain: ChainService;
  let cleanup: () => Promise<void>;
  let payer: PrivateKeyAccount;
  const logLines: { level: number; msg: string }[] = [];
  const logger = pino(
    { level: 'debug' },
    new Writable({
      write(chunk: Buffer, _enc, done) {
        logLines.push(JSON.parse(chunk.toString()) as { level: number; msg: string });
        done();
      },
    }),
  );
  const merchant = '0x00000000000000000000000000000000000c0ffe' as Address;

  beforeAll(async () => {
    const t = await tempDir('chain-relay-');
    cleanup = t.cleanup;
    chain = await createChain({ dataDir: t.dir, confirmTimeoutMs: 20_000, logger });
    payer = privateKeyToAccount(generatePrivateKey());
    const funded = await chain.faucet(payer.address, 1_000_000_000n, { nativeAmount: 0n });
    expect(funded.ok).toBe(true);
  });
  afterAll(async () => {
    await chain?.close();
    await cleanup?.();
  });

  async function nowSeconds(): Promise<bigint> {
    const block = await chain.publicClient.getBlock();
    const wall = BigInt(Math.floor(Date.now() / 1000));
    return block.timestamp > wall ? block.timestamp : wall;
  }

  async function authorize(overrides: Partial<TransferAuthorization> = {}, signer: PrivateKeyAccount = payer) {
    const now = await nowSeconds();
    const auth: TransferAuthorization = {
      from: payer.address,
      to: merchant,
      value: 1_000_000n,
      validAfter: now - 60n,
      validBefore: now + 600n,
      nonce: randomNonce(),
      ...overrides,
    };
    const signature = await signer.signTypedData(chain.transferWithAuthorizationTypedData(auth).typedData);
    return { auth, signature };
  }

  it('reads the token domain and decimals from the contract', () => {
    expect(chain.embedded).toBe(true);
    expect(chain.decimals).toBe(6);
    expect(chain.eip712Domain).toEqual({
      name: 'Test USD Coin',
      version: '2',
      chainId: 31337,
      verifyingContract: chain.tokenAddress,
    });
  });

  it('accepts a good authorization, then relays it with the relayer paying gas', async () => {
    const { auth, signature } = await authorize();
    const payerEthBefore = await chain.nativeBalance(payer.address);
    const relayerEthBefore = await chain.nativeBalance(chain.relayerAddress);
    const merchantBefore = await chain.balanceOf(merchant);

    expect(await chain.verifyTransferAuthorization(auth, signature)).toEqual({ ok: true, signer: payer.address });
    const sent = await chain.submitTransferWithAuthorization(auth, signature);
    if (!sent.ok) throw new Error(sent.message);
    const receipt = await chain.waitForReceipt(sent.txHash);

    expect(receipt.status).toBe('success');
    expect(receipt.gasUsed).toBeGreaterThan(0n);
    expect(await chain.balanceOf(merchant)).toBe(merchantBefore + auth.value);
    expect(await chain.authorizationState(payer.address, auth.nonce)).toBe(true);
    expect(await chain.nativeBalance(payer.address)).toBe(payerEthBefore);
    expect(await chain.nativeBalance(chain.relayerAddress)).toBeLessThan(relayerEthBefore);
    expect(await chain.findAuthorizationTx(payer.address, auth.nonce)).toBe(sent.txHash);

    // Once mined, the authorization is spent; resubmitting reports the same transaction.
    expect(await chain.verifyTransferAuthorization(auth, signature)).toMatchObject({ ok: false, reason: 'authorization_used' });
    expect(await chain.submitTransferWithAuthorization(auth, signature)).toEqual({ ok: true, txHash: sent.txHash });
    expect(await chain.balanceOf(merchant)).toBe(merchantBefore + auth.value);
  });

  it('names the reason an authorization is refused', async () => {
    const stranger = privateKeyToAccount(generatePrivateKey());
    const now = await nowSeconds();

    const wrongSigner = await authorize({}, stranger);
    expect(await chain.verifyTransferAuthorization(wrongSigner.auth, wrongSigner.signature)).toMatchObject({
      ok: false,
      reason: 'invalid_signature',
    });

    const tampered = await authorize();
    expect(await chain.verifyTransferAuthorization({ ...tampered.auth, to: stranger.address }, tampered.signature)).toMatchObject({
      ok: false,
      reason: 'invalid_signature',
    });

    const { r, s, yParity } = parseSignature(tampered.signature);
    const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
    const highS = serializeSignature({ r, s: `0x${(n - BigInt(s)).toString(16).padStart(64, '0')}`, yParity: yParity ? 0 : 1 });
    expect(await chain.verifyTransferAuthorization(tampered.auth, highS)).toMatchObject({ ok: false, reason: 'invalid_signature' });

    const early = await authorize({ validAfter: now + 3600n, validBefore: now + 7200n });
    expect(await chain.verifyTransferAuthorization(early.auth, early.signature)).toMatchObject({ ok: false, reason: 'not_yet_valid' });

    const late = await authorize({ validAfter: now - 7200n, validBefore: now - 10n });
    expect(await chain.verifyTransferAuthorization(late.auth, late.signature)).toMatchObject({ ok: false, reason: 'expired' });

    const tooMuch = await authorize({ value: 10n ** 15n });
    expect(await chain.verifyTransferAuthorization(tooMuch.auth, tooMuch.signature)).toMatchObject({
      ok: false,
      reason: 'insufficient_balance',
    });

    // Passes every read-side check but the contract refuses: only the simulation catches it.
    const toZero = await authorize({ to: '0x0000000000000000000000000000000000000000' });
    const refused = await chain.verifyTransferAuthorization(toZero.auth, toZero.signature);
    expect(refused).toMatchObject({ ok: false, reason: 'simulation_failed' });
    expect(refused.ok ? '' : refused.message).toMatch(/transfer to the zero address/);

    // None of these moved money.
    for (const a of [wrongSigner, tampered, early, late, tooMuch, toZero]) {
      expect(await chain.authorizationState(payer.address, a.auth.nonce)).toBe(false);
    }
    expect(await chain.submitTransferWithAuthorization(early.auth, early.signature)).toMatchObject({ ok: false, reason: 'not_yet_valid' });
  });

  it('relays 20 concurrent authorizations from one relayer without nonce clashes', async () => {
    const before = await chain.balanceOf(merchant);
    const relayerNonceBefore = await chain.publicClient.getTransactionCount({ address: chain.relayerAddress });
    const signed = await Promise.all(Array.from({ length: 20 }, (_, i) => authorize({ value: BigInt(i + 1) })));
    logLines.length = 0;

    // Each in a transaction of its own (`alone`, as when the chain has no batch relay): the
    // relayer's nonces under concurrency are what this tests.
    const results = await Promise.all(signed.map(({ auth, signature }) => chain.submitTransferWithAuthorization(auth, signature, { alone: true })));

    const hashes = results.map((r) => {
      if (!r.ok) throw new Error(`${r.reason}: ${r.message}`);
      return r.txHash;
    });
    expect(new Set(hashes).size).toBe(20);
    // Not a single send hit a nonce error (which would have been retried and logged).
    expect(logLines.filter((l) => l.level >= 40)).toEqual([]);
    const receipts = await Promise.all(hashes.map((h) => chain.waitForReceipt(h)));
    expect(receipts.map((r) => r.status)).toEqual(Array(20).fill('success'));
    expect(await chain.balanceOf(merchant)).toBe(before + 210n); // 1 + 2 + ... + 20
    expect(await chain.publicClient.getTransactionCount({ address: chain.relayerAddress })).toBe(relayerNonceBefore + 20);
  });

  it('sends one transaction when the same authorization is submitted twice at once', async () => {
    const { auth, signature } = await authorize({ value: 7n });
    const before = await chain.balanceOf(merchant);
    const [a, b] = await Promise.all([
      chain.submitTransferWithAuthorization(auth, signature),
      chain.submitTransferWithAuthorization(auth, signature),
    ]);
    expect(a).toEqual(b);
    if (!a.ok) throw new Error(a.message);
    expect((await chain.waitForReceipt(a.txHash)).status).toBe('success');
    expect(await chain.balanceOf(merchant)).toBe(before + 7n);
  });

  it('builds eth_signTypedData_v4 JSON that a wallet signs into an accepted authorization', async () => {
    // anvil's first dev account is unlocked, so anvil itself plays the browser wallet.
    const wallet = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266' as Address;
    expect((await chain.faucet(wallet, 5_000_000n, { nativeAmount: 0n })).ok).toBe(true);
    const now = await nowSeconds();
    const input: TransferAuthorizationInput = {
      from: wallet.toLowerCase(),
      to: merchant,
      value: '2500000',
      validAfter: '0',
      validBefore: (now + 600n).toString(),
      nonce: chain.nonceFor('payment', 'pay_json_test'),
    };
    const auth = TransferAuthorization.parse(input);
    const { json } = chain.transferWithAuthorizationTypedData(auth);
    const wire = JSON.parse(JSON.stringify(json)) as typeof json; // survives a JSON round trip
    expect(wire.message.value).toBe('2500000');

    const signature = (await chain.publicClient.request({
      method: 'eth_signTypedData_v4' as never,
      params: [wallet, JSON.stringify(wire)] as never,
    })) as Hex;
    const sent = await chain.submitTransferWithAuthorization(auth, signature);
    if (!sent.ok) throw new Error(sent.message);
    expect((await chain.waitForReceipt(sent.txHash)).status).toBe('success');
    expect(await chain.authorizationState(wallet, chain.nonceFor('payment', 'pay_json_test'))).toBe(true);
  });

  it('derives deterministic, namespaced nonces', () => {
    expect(chain.nonceFor('payment', 'pay_1')).toBe(chain.nonceFor('payment', 'pay_1'));
    expect(chain.nonceFor('payment', 'pay_1')).not.toBe(chain.nonceFor('transfer', 'pay_1'));
    expect(chain.nonceFor('a:b', 'c')).not.toBe(chain.nonceFor('a', 'b:c'));
    expect(chain.nonceFor('payment', 'pay_1')).toMatch(/^0x[0-9a-f]{64}$/);
  });

  it('reports a receipt timeout for an unknown transaction instead of throwing', async () => {
    const outcome = await chain.waitForReceipt(`0x${'12'.repeat(32)}`, 300);
    expect(outcome).toEqual({ status: 'timeout' });
  });
});

// Issue 10 item 1: an authorization valid by the clock but not yet by the latest block.
describe('ChainService: a quiet chain whose latest block lags the clock', () => {
  let chain: ChainService;
  let cleanup: () => Promise<void>;
  let payer: PrivateKeyAccount;
  const merchant = '0x00000000000000000000000000000000000c0ffe' as Address;

  beforeAll(async () => {
    const t = await tempDir('chain-idle-');
    cleanup = t.cleanup;
    chain = await createChain({ dataDir: t.dir, confirmTimeoutMs: 20_000 });
    payer = privateKeyToAccount(generatePrivateKey());
    expect((await chain.faucet(payer.address, 1_000_000_000n, { nativeAmount: 0n })).ok).toBe(true);
  });
  afterAll(async () => {
    await chain?.close();
    await cleanup?.();
  });

  async function idle(seconds: number): Promise<bigint> {
    const now = Math.floor(Date.now() / 1000);
    await chain.publicClient.request({ method: 'evm_setTime' as never, params: [now - seconds] as never });
    await chain.publicClient.request({ method: 'evm_mine' as never, params: [] as never });
    await chain.publicClient.request({ method: 'evm_setTime' as never, params: [now] as never });
    return BigInt(now);
  }

  it('relays a payer authorization whose validAfter is past the latest block but not the clock', async () => {
    const now = await idle(180);
    const auth: TransferAuthorization = {
      from: payer.address,
      to: merchant,
      value: 1_000n,
      validAfter: now - 30n,
      validBefore: now + 600n,
      nonce: randomNonce(),
    };
    const signature = await payer.signTypedData(chain.transferWithAuthorizationTypedData(auth).typedData);
    const sent = await chain.submitTransferWithAuthorization(auth, signature);
    expect(sent).toMatchObject({ ok: true });
    if (!sent.ok) return;
    expect((await chain.waitForReceipt(sent.txHash)).status).toBe('success');
  });

  it('moves custodial money after the chain sat idle', async () => {
    await idle(300);
    const from = chain.custodialAddress(7);
    expect((await chain.faucet(from, 5_000n, { nativeAmount: 0n })).ok).toBe(true);
    await idle(300);
    const res = await chain.custodialTransferAndWait({ fromIndex: 7, to: merchant, value: 5_000n, nonce: randomNonce() });
    expect(res).toMatchObject({ ok: true, receipt: { status: 'success' } });
  });
});
