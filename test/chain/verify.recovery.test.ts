import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { Hex } from 'viem';

// Counts local signature recoveries (viem's recoverTypedDataAddress) made by the chain layer.
const recoveries = vi.hoisted(() => ({ count: 0 }));
vi.mock('viem', async (importOriginal) =>
  (await import('../helpers/counted-recoveries.js')).viemCountingRecoveries(await importOriginal<typeof import('viem')>(), recoveries),
);

// The `unit` project shares one module graph per worker (isolate: false, docs/testing.md): an
// earlier file may have loaded the chain layer with the real viem already. Load it afresh so it
// sees the mock, and put the real viem back for the files after this one (afterAll below).
vi.resetModules();
const { createChain } = await import('../../src/chain/boot.js');
const { tempDir } = await import('./helpers.js');
type ChainService = import('../../src/chain/chain.js').ChainService;
type TransferAuthorization = import('../../src/chain/authorization.js').TransferAuthorization;

// Issue 23, point 2: a settlement's EOA signature is proven by the simulation (the token's own
// ecrecover), not recovered again in the service; a bad one is still refused by name.
describe('verification: no local signature recovery for a valid EOA signature', () => {
  let chain: ChainService;
  let cleanup: () => Promise<void>;
  const payer = privateKeyToAccount(generatePrivateKey());

  beforeAll(async () => {
    const t = await tempDir('chain-verify-');
    cleanup = t.cleanup;
    chain = await createChain({ dataDir: t.dir });
    expect((await chain.faucet(payer.address, 5_000_000n, { nativeAmount: 0n })).ok).toBe(true);
  });
  afterAll(async () => {
    await chain?.close();
    await cleanup?.();
    vi.doUnmock('viem');
    vi.resetModules();
  });

  async function authorize(overrides: Partial<TransferAuthorization> = {}): Promise<{ auth: TransferAuthorization; signature: Hex }> {
    const now = await chain.chainTime();
    const auth: TransferAuthorization = {
      from: payer.address,
      to: chain.custodialAddress(3),
      value: 1_000_000n,
      validAfter: now - 60n,
      validBefore: now + 600n,
      nonce: chain.nonceFor('verify-test', String(Math.random())),
      ...overrides,
    };
    return { auth, signature: await payer.signTypedData(chain.transferWithAuthorizationTypedData(auth).typedData) };
  }

  it('verifies and relays a valid signature without recovering it locally', async () => {
    const { auth, signature } = await authorize();
    recoveries.count = 0;
    expect(await chain.verifyTransferAuthorization(auth, signature)).toMatchObject({ ok: true, signer: payer.address });
    const sent = await chain.submitTransferWithAuthorization(auth, signature, { verified: true });
    if (!sent.ok) throw new Error(sent.message);
    expect((await chain.waitForReceipt(sent.txHash)).status).toBe('success');
    expect(recoveries.count).toBe(0);
  });

  it('a signature by someone else, or over other fields, is refused as invalid_signature', async () => {
    const { auth } = await authorize();
    const other = privateKeyToAccount(generatePrivateKey());
    const forged = await other.signTypedData(chain.transferWithAuthorizationTypedData(auth).typedData);
    recoveries.count = 0;
    expect(await chain.verifyTransferAuthorization(auth, forged)).toMatchObject({ ok: false, reason: 'invalid_signature' });
    // Recovered locally only now, to name the reason (and this proves the count above sees recoveries).
    expect(recoveries.count).toBe(1);
    const { auth: a2, signature } = await authorize();
    expect(await chain.verifyTransferAuthorization({ ...a2, value: a2.value + 1n }, signature)).toMatchObject({ ok: false, reason: 'invalid_signature' });
    // A bad signature on an expired authorization is still named as the bad signature.
    const { auth: a3, signature: s3 } = await authorize({ validBefore: 1n });
    // The other parity (v 27 <-> 28): the same v would leave the signature valid, and the answer `expired`.
    const flipped = `${s3.slice(0, -2)}${s3.endsWith('1b') ? '1c' : '1b'}` as Hex;
    expect(await chain.verifyTransferAuthorization(a3, flipped)).toMatchObject({ ok: false, reason: 'invalid_signature' });
  });
});
