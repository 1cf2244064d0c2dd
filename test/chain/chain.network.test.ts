import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Address, Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { createChain } from '../../src/chain/boot.js';
import type { ChainService } from '../../src/chain/chain.js';
import { randomNonce, startTokenChain, tempDir } from './helpers.js';

// Real-network mode (CHAIN_RPC_URL, TOKEN_ADDRESS, RELAYER_PRIVATE_KEY), played by a separate
// anvil with the token deployed by someone else, as USDC would be on a testnet.
describe('ChainService on a given network', () => {
  let t: Awaited<ReturnType<typeof startTokenChain>>;
  let chain: ChainService;
  let relayerKey: Hex;
  const cleanups: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    t = await startTokenChain();
    relayerKey = await t.fundedKey();
    const d = await tempDir('chain-network-');
    cleanups.push(d.cleanup);
    chain = await createChain({
      dataDir: d.dir,
      rpcUrl: t.anvil.rpcUrl,
      chainId: t.anvil.chainId,
      tokenAddress: t.token.toLowerCase() as Address,
      relayerPrivateKey: relayerKey,
    });
  });
  afterAll(async () => {
    await chain?.close();
    await t?.anvil.stop();
    await Promise.all(cleanups.map((c) => c()));
  });

  it('uses the given token and relayer, reading the domain from the contract', async () => {
    expect(chain.embedded).toBe(false);
    expect(chain.tokenAddress).toBe(t.token);
    expect(chain.relayerAddress).toBe(privateKeyToAccount(relayerKey).address);
    expect(chain.eip712Domain).toEqual(t.domain);
    expect(chain.decimals).toBe(6);
    expect(await chain.ping()).toBe(true);
  });

  it('has no faucet', async () => {
    expect(await chain.faucet(t.deployer.address, 1n)).toMatchObject({ ok: false, reason: 'not_available' });
  });

  it('relays an authorization with the configured relayer', async () => {
    const payer = await t.fundedAccount();
    await t.mint(payer.address, 3_000_000n);
    const now = (await t.publicClient.getBlock()).timestamp;
    const auth = {
      from: payer.address,
      to: t.deployer.address,
      value: 3_000_000n,
      validAfter: 0n,
      validBefore: now + 600n,
      nonce: randomNonce(),
    };
    const signature = await payer.signTypedData(chain.transferWithAuthorizationTypedData(auth).typedData);
    const sent = await chain.submitTransferWithAuthorization(auth, signature);
    if (!sent.ok) throw new Error(sent.message);
    expect((await chain.waitForReceipt(sent.txHash)).status).toBe('success');
    const tx = await t.publicClient.getTransaction({ hash: sent.txHash });
    expect(tx.from).toBe(chain.relayerAddress.toLowerCase());
    expect(await t.balanceOf(t.deployer.address)).toBe(3_000_000n);
  });

  it('refuses to start against the wrong chain id or a token address without code', async () => {
    const d = await tempDir('chain-network-bad-');
    cleanups.push(d.cleanup);
    const base = { dataDir: d.dir, rpcUrl: t.anvil.rpcUrl, relayerPrivateKey: relayerKey };
    await expect(createChain({ ...base, chainId: 8453, tokenAddress: t.token })).rejects.toThrow(/serves chain 31337/);
    await expect(
      createChain({ ...base, chainId: t.anvil.chainId, tokenAddress: '0x000000000000000000000000000000000000dead' }),
    ).rejects.toThrow(/no contract at TOKEN_ADDRESS/);
  });
});
