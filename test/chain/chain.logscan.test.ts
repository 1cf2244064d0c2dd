import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Address, Hex } from 'viem';
import { createChain } from '../../src/chain/boot.js';
import type { ChainService } from '../../src/chain/chain.js';
import { randomNonce, startTokenChain, tempDir } from './helpers.js';
import { startRpcProxy, type RpcProxy } from './rpc-proxy.js';

// findAuthorizationTx on a real network (no deploy block known), behind a provider that refuses
// eth_getLogs over more than 1,000 blocks, as many hosted RPCs do.
const PROVIDER_RANGE_LIMIT = 1_000n;

describe('ChainService.findAuthorizationTx: bounded log scans', () => {
  let t: Awaited<ReturnType<typeof startTokenChain>>;
  let proxy: RpcProxy;
  let chain: ChainService;
  let latest = 0n;
  let payer: Address;
  let nonce: Hex;
  let txHash: Hex;
  let mintHash: Hex;
  const cleanups: (() => Promise<void>)[] = [];

  const blockArg = (v: unknown, tag: bigint) => (typeof v === 'string' && v.startsWith('0x') ? BigInt(v) : tag);

  beforeAll(async () => {
    t = await startTokenChain();
    proxy = await startRpcProxy(t.anvil.rpcUrl);
    proxy.rule = ({ method, params }) => {
      if (method !== 'eth_getLogs') return undefined;
      const f = params[0] as { fromBlock?: unknown; toBlock?: unknown };
      const from = blockArg(f.fromBlock, 0n);
      const to = blockArg(f.toBlock, latest);
      return to - from + 1n > PROVIDER_RANGE_LIMIT
        ? { error: { code: -32005, message: `query exceeds max block range ${PROVIDER_RANGE_LIMIT}` } }
        : undefined;
    };
    const d = await tempDir('chain-logscan-');
    cleanups.push(d.cleanup);
    chain = await createChain({
      dataDir: d.dir,
      rpcUrl: proxy.url,
      chainId: t.anvil.chainId,
      tokenAddress: t.token,
      relayerPrivateKey: await t.fundedKey(),
      logScan: { windowBlocks: 500n },
    });

    const account = await t.fundedAccount();
    payer = account.address;
    await t.mint(payer, 5_000_000n);
    mintHash = (await t.publicClient.getBlock({ includeTransactions: true })).transactions[0]!.hash;
    nonce = randomNonce();
    const now = (await t.publicClient.getBlock()).timestamp;
    const auth = { from: payer, to: t.deployer.address, value: 5_000_000n, validAfter: 0n, validBefore: now + 3600n, nonce };
    const signature = await account.signTypedData(chain.transferWithAuthorizationTypedData(auth).typedData);
    const sent = await chain.submitTransferWithAuthorization(auth, signature);
    if (!sent.ok) throw new Error(sent.message);
    txHash = sent.txHash;
    expect((await chain.waitForReceipt(txHash)).status).toBe('success');
    // Thousands of blocks later (one second apart).
    await t.testClient.mine({ blocks: 3_000, interval: 1 });
    latest = await t.publicClient.getBlockNumber({ cacheTime: 0 });
  });
  afterAll(async () => {
    await chain?.close();
    await proxy?.close();
    await t?.anvil.stop();
    await Promise.all(cleanups.map((c) => c()));
  });

  it('scans backwards in windows the provider accepts and finds a transaction thousands of blocks back', async () => {
    proxy.resetCounts();
    expect(await chain.findAuthorizationTx(payer, nonce)).toBe(txHash);
    const ranges = proxy.calls
      .filter((c) => c.method === 'eth_getLogs')
      .map((c) => {
        const f = c.params[0] as { fromBlock: Hex; toBlock: Hex };
        return BigInt(f.toBlock) - BigInt(f.fromBlock) + 1n;
      });
    expect(ranges.length).toBeGreaterThan(1);
    for (const r of ranges) expect(r).toBeLessThanOrEqual(500n);
  });

  it('checks the transaction recorded at send time first, without a log scan', async () => {
    proxy.resetCounts();
    expect(await chain.findAuthorizationTx(payer, nonce, { txHash })).toBe(txHash);
    expect(proxy.count('eth_getLogs')).toBe(0);
    // A recorded hash that is not the one falls back to the scan.
    expect(await chain.findAuthorizationTx(payer, nonce, { txHash: mintHash })).toBe(txHash);
  });

  it('stops at the block of `since` (less clock skew) for an authorization that was never used', async () => {
    const head = await t.publicClient.getBlock();
    proxy.resetCounts();
    expect(await chain.findAuthorizationTx(payer, randomNonce(), { since: new Date(Number(head.timestamp) * 1000) })).toBeUndefined();
    const windows = proxy.count('eth_getLogs');
    // 600 s of skew at one block per second: about 600 blocks, two windows of 500.
    expect(windows).toBeGreaterThan(0);
    expect(windows).toBeLessThanOrEqual(3);

    proxy.resetCounts();
    expect(await chain.findAuthorizationTx(payer, randomNonce())).toBeUndefined();
    // Without a floor: the whole chain (it is shorter than the max lookback), window by window.
    expect(proxy.count('eth_getLogs')).toBe(Math.ceil(Number(latest + 1n) / 500));
  });

  it('honours a max lookback', async () => {
    const d = await tempDir('chain-logscan-lookback-');
    cleanups.push(d.cleanup);
    const short = await createChain({
      dataDir: d.dir,
      rpcUrl: proxy.url,
      chainId: t.anvil.chainId,
      tokenAddress: t.token,
      relayerPrivateKey: await t.fundedKey(),
      logScan: { windowBlocks: 500n, maxLookbackBlocks: 1_000n },
    });
    try {
      expect(await short.findAuthorizationTx(payer, nonce)).toBeUndefined();
      expect(await short.findAuthorizationTx(payer, nonce, 0n)).toBe(txHash);
    } finally {
      await short.close();
    }
  });
});
