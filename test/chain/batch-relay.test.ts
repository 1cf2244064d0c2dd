import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEventLogs, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { batchRelayAbi, batchRelayDeployedBytecode } from '../../src/chain/artifacts/batch-relay.js';
import { stablecoinAbi } from '../../src/chain/artifacts/stablecoin.js';
import { buildTransferTypedData, type TransferAuthorization } from '../../src/chain/authorization.js';
import { BATCH_RELAY_ADDRESS, CREATE2_DEPLOYER, authorizationKey, batchRelayDeployData, encodeRelay, findBatchRelay, usedAuthorizations } from '../../src/chain/relay-batches.js';
import { encodeTransfer } from '../../src/chain/verify-authorization.js';
import { createChain } from '../../src/chain/boot.js';
import { relayOnce } from '../../src/chain/relay.js';
import { randomNonce, startTokenChain, tempDir } from './helpers.js';

// Issue 23, point 2: the batch relay contract on a real anvil, as any chain would have it.
describe('BatchRelay (contracts/BatchRelay.sol)', () => {
  let t: Awaited<ReturnType<typeof startTokenChain>>;
  beforeAll(async () => {
    t = await startTokenChain();
  });
  afterAll(async () => {
    await t?.anvil.stop();
  });

  async function signed(key: Hex, to: Address, value: bigint, nonce = randomNonce()) {
    const from = privateKeyToAccount(key);
    const auth: TransferAuthorization = { from: from.address, to, value, validAfter: 0n, validBefore: 2n ** 40n, nonce };
    const signature = await from.signTypedData(buildTransferTypedData(t.domain, auth).typedData);
    return { auth, data: encodeTransfer(auth, signature, false) };
  }

  /**
   * The node's RPC with each broadcast held for `holdMs`: the first send stays in flight while
   * the other two finish their checks and queue, whatever the machine's load (without it, how
   * many arrive during a few-millisecond broadcast was luck).
   */
  async function slowBroadcasts(holdMs: number): Promise<{ url: string; server: Server }> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        const forward = () =>
          fetch(t.anvil.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
            .then(async (r) => res.writeHead(r.status, { 'content-type': 'application/json' }).end(Buffer.from(await r.arrayBuffer())))
            .catch(() => res.writeHead(502).end());
        if (body.includes('eth_sendRawTransaction')) setTimeout(forward, holdMs);
        else void forward();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
  }

  /** A network chain service on this anvil (boot finds the relay or not), relaying three settles at once. */
  async function relayThree(): Promise<{ txs: number; outcomes: string[] }> {
    const d = await tempDir('batch-relay-');
    const rpc = await slowBroadcasts(1_500);
    const chain = await createChain({ dataDir: d.dir, rpcUrl: rpc.url, chainId: t.anvil.chainId, tokenAddress: t.token, relayerPrivateKey: await t.fundedKey() });
    try {
      const shop = '0x0000000000000000000000000000000000005402' as Address;
      const items: { auth: TransferAuthorization; signature: Hex }[] = [];
      for (let i = 0; i < 3; i++) {
        // One mint at a time: they come from one deployer key.
        const from = privateKeyToAccount(await t.fundedKey());
        await t.mint(from.address, 10n);
        const auth: TransferAuthorization = { from: from.address, to: shop, value: 10n, validAfter: 0n, validBefore: 2n ** 40n, nonce: randomNonce() };
        items.push({ auth, signature: await from.signTypedData(buildTransferTypedData(t.domain, auth).typedData) });
      }
      const before = await t.publicClient.getTransactionCount({ address: chain.relayerAddress });
      const outs = await Promise.all(items.map((i) => relayOnce(chain, i.auth, i.signature)));
      return { txs: (await t.publicClient.getTransactionCount({ address: chain.relayerAddress })) - before, outcomes: outs.map((o) => o.status) };
    } finally {
      await chain.close();
      await d.cleanup();
      await new Promise((r) => rpc.server.close(r));
    }
  }

  it('is absent until deployed (settles go one transaction each); the deterministic deployer puts it at its one address, as on any network', async () => {
    expect(await findBatchRelay(t.publicClient)).toBeUndefined();
    expect(await relayThree()).toEqual({ txs: 3, outcomes: ['settled', 'settled', 'settled'] });
    const payer = await t.fundedAccount();
    const hash = await t.walletFor(payer).sendTransaction({ to: CREATE2_DEPLOYER, data: batchRelayDeployData });
    expect((await t.publicClient.waitForTransactionReceipt({ hash })).status).toBe('success');
    expect(await t.publicClient.getCode({ address: BATCH_RELAY_ADDRESS })).toBe(batchRelayDeployedBytecode);
    expect(await findBatchRelay(t.publicClient)).toBe(BATCH_RELAY_ADDRESS);
    // Found at boot: the two that arrive while the first is in flight share one transaction.
    expect(await relayThree()).toEqual({ txs: 2, outcomes: ['settled', 'settled', 'settled'] });
  });

  it('one transaction: good authorizations move, a refused one and a non-transfer call are reported, the others unaffected', async () => {
    const shop = '0x0000000000000000000000000000000000005401' as Address;
    const [k1, k2, k3] = await Promise.all([t.fundedKey(), t.fundedKey(), t.fundedKey()]);
    for (const k of [k1, k2, k3]) await t.mint(privateKeyToAccount(k).address, 1_000n);
    const good1 = await signed(k1, shop, 1_000n);
    const tooMuch = await signed(k2, shop, 1_001n);
    const good3 = await signed(k3, shop, 400n);
    const notATransfer = '0xa9059cbb' as Hex; // transfer(address,uint256): never forwarded
    const relayer = await t.fundedAccount();
    const hash = await t.walletFor(relayer).sendTransaction({
      to: BATCH_RELAY_ADDRESS,
      data: encodeRelay(t.token, [good1.data, tooMuch.data, notATransfer, good3.data]),
    });
    const receipt = await t.publicClient.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe('success');
    expect(usedAuthorizations(receipt.logs, t.token)).toEqual([authorizationKey(good1.auth.from, good1.auth.nonce), authorizationKey(good3.auth.from, good3.auth.nonce)]);
    const failed = parseEventLogs({ abi: batchRelayAbi, eventName: 'ItemFailed', logs: receipt.logs });
    expect(failed.map((e) => e.args.index)).toEqual([1n, 2n]);
    expect(await t.balanceOf(shop)).toBe(1_400n);
    expect(await t.balanceOf(tooMuch.auth.from)).toBe(1_000n);
    const stillValid = await t.publicClient.readContract({ address: t.token, abi: stablecoinAbi, functionName: 'authorizationState', args: [tooMuch.auth.from, tooMuch.auth.nonce] });
    expect(stillValid).toBe(false);
  });
});
