import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEventLogs, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { batchRelayAbi, batchRelayDeployedBytecode } from '../../src/chain/artifacts/batch-relay.js';
import { stablecoinAbi } from '../../src/chain/artifacts/stablecoin.js';
import { buildTransferTypedData, type TransferAuthorization } from '../../src/chain/authorization.js';
import {
  BATCH_RELAY_ADDRESS,
  BATCH_RELAY_V1_ADDRESS,
  CREATE2_DEPLOYER,
  authorizationKey,
  batchRelayDeployData,
  batchRelayV1DeployData,
  encodeRelay,
  findBatchRelay,
  usedAuthorizations,
} from '../../src/chain/relay-batches.js';
import { encodeBatch } from '../../src/chain/submit-batch.js';
import { encodeTransfer } from '../../src/chain/verify-authorization.js';
import { createChain } from '../../src/chain/boot.js';
import { relayOnce } from '../../src/chain/relay.js';
import { randomNonce, startTokenChain, tempDir } from './helpers.js';

// Issue 23, points 2 and 3: the batch relay contract on a real anvil, as any chain would have it.
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
    return { auth, signature, data: encodeTransfer(auth, signature, false) };
  }

  const used = (a: { auth: TransferAuthorization }) => authorizationKey(a.auth.from, a.auth.nonce);
  const authorizationUsed = (a: { auth: TransferAuthorization }) =>
    t.publicClient.readContract({ address: t.token, abi: stablecoinAbi, functionName: 'authorizationState', args: [a.auth.from, a.auth.nonce] });

  /**
   * The node's RPC with each broadcast held for `holdMs`: the first send stays in flight while
   * the other two finish their checks and queue, whatever the machine's load (without it, how
   * many arrive during a few-millisecond broadcast was luck).
   */
  async function slowBroadcasts(
    holdMs: number,
    hooks: { onBroadcast?: (n: number) => Promise<void> | void } = {},
  ): Promise<{ url: string; server: Server }> {
    let broadcasts = 0;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        const forward = () =>
          fetch(t.anvil.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
            .then(async (r) => res.writeHead(r.status, { 'content-type': 'application/json' }).end(Buffer.from(await r.arrayBuffer())))
            .catch(() => res.writeHead(502).end());
        // `onBroadcast(n)` runs when the n-th broadcast arrives (the first is 1), before it is held.
        if (body.includes('eth_sendRawTransaction')) void Promise.resolve(hooks.onBroadcast?.(++broadcasts)).then(() => setTimeout(forward, holdMs));
        else void forward();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
  }

  /**
   * A network chain service on this anvil (boot finds the relay or not), relaying three settles
   * at once; `withFee`: each with a fee authorization from the same payer, all or none (an agent
   * transfer and its fee).
   */
  async function relayThree(withFee = false): Promise<{ txs: number; outcomes: string[] }> {
    const d = await tempDir('batch-relay-');
    const rpc = await slowBroadcasts(1_500);
    const chain = await createChain({ dataDir: d.dir, rpcUrl: rpc.url, chainId: t.anvil.chainId, tokenAddress: t.token, relayerPrivateKey: await t.fundedKey() });
    try {
      const shop = '0x0000000000000000000000000000000000005402' as Address;
      const fees = '0x0000000000000000000000000000000000005403' as Address;
      const items: { key: Hex; main: Awaited<ReturnType<typeof signed>>; fee: Awaited<ReturnType<typeof signed>> }[] = [];
      for (let i = 0; i < 3; i++) {
        // One mint at a time: they come from one deployer key.
        const key = await t.fundedKey();
        await t.mint(privateKeyToAccount(key).address, 11n);
        items.push({ key, main: await signed(key, shop, 10n), fee: await signed(key, fees, 1n) });
      }
      const before = await t.publicClient.getTransactionCount({ address: chain.relayerAddress });
      const outs = await Promise.all(items.map((i) => relayOnce(chain, i.main.auth, i.main.signature, withFee ? { batchWith: [i.fee] } : {})));
      for (const i of items) {
        expect(await authorizationUsed(i.main)).toBe(true);
        expect(await authorizationUsed(i.fee)).toBe(withFee);
      }
      return { txs: (await t.publicClient.getTransactionCount({ address: chain.relayerAddress })) - before, outcomes: outs.map((o) => o.status) };
    } finally {
      await chain.close();
      await d.cleanup();
      await new Promise((r) => rpc.server.close(r));
    }
  }

  const three = (txs: number) => ({ txs, outcomes: ['settled', 'settled', 'settled'] });

  it('is absent until deployed (one transaction each); version 1 groups single authorizations only; version 2, at its own address, groups transfers with their fee too', async () => {
    expect(await findBatchRelay(t.publicClient)).toBeUndefined();
    expect(await relayThree()).toEqual(three(3));
    expect(await relayThree(true)).toEqual(three(3));
    const payer = t.walletFor(await t.fundedAccount());

    // A network where only version 1 was deployed: singles share, pairs still go one each.
    const v1 = await payer.sendTransaction({ to: CREATE2_DEPLOYER, data: batchRelayV1DeployData });
    expect((await t.publicClient.waitForTransactionReceipt({ hash: v1 })).status).toBe('success');
    expect(BATCH_RELAY_V1_ADDRESS).not.toBe(BATCH_RELAY_ADDRESS);
    expect(await findBatchRelay(t.publicClient)).toEqual({ address: BATCH_RELAY_V1_ADDRESS, pairs: false });
    expect(await relayThree()).toEqual(three(2));
    expect(await relayThree(true)).toEqual(three(3));

    const hash = await payer.sendTransaction({ to: CREATE2_DEPLOYER, data: batchRelayDeployData });
    expect((await t.publicClient.waitForTransactionReceipt({ hash })).status).toBe('success');
    expect(await t.publicClient.getCode({ address: BATCH_RELAY_ADDRESS })).toBe(batchRelayDeployedBytecode);
    expect(await findBatchRelay(t.publicClient)).toEqual({ address: BATCH_RELAY_ADDRESS, pairs: true });
    // Found at boot: the two that arrive while the first is in flight share one transaction, pairs too.
    expect(await relayThree()).toEqual(three(2));
    expect(await relayThree(true)).toEqual(three(2));
  });

  it('one transaction: good authorizations and a good pair move, a refused one, a pair whose fee cannot move and a non-transfer call are reported, the others unaffected', async () => {
    const shop = '0x0000000000000000000000000000000000005401' as Address;
    const fees = '0x0000000000000000000000000000000000005404' as Address;
    const [k1, k2, k3, k4, k5] = await Promise.all([t.fundedKey(), t.fundedKey(), t.fundedKey(), t.fundedKey(), t.fundedKey()]);
    for (const k of [k1, k2, k3, k4, k5]) await t.mint(privateKeyToAccount(k).address, 1_000n);
    const good1 = await signed(k1, shop, 1_000n);
    const tooMuch = await signed(k2, shop, 1_001n);
    const good3 = await signed(k3, shop, 400n);
    const pair = [await signed(k4, shop, 900n), await signed(k4, fees, 100n)];
    // The principal alone fits the balance, the fee on top does not: all or none, so neither.
    const noFee = [await signed(k5, shop, 900n), await signed(k5, fees, 101n)];
    const notATransfer = '0xa9059cbb' as Hex; // transfer(address,uint256): never forwarded
    const relayer = await t.fundedAccount();
    const hash = await t.walletFor(relayer).sendTransaction({
      to: BATCH_RELAY_ADDRESS,
      data: encodeRelay(t.token, [good1.data, tooMuch.data, notATransfer, encodeBatch(pair), encodeBatch(noFee), good3.data]),
    });
    const receipt = await t.publicClient.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe('success');
    expect(usedAuthorizations(receipt.logs, t.token)).toEqual([used(good1), used(pair[0]!), used(pair[1]!), used(good3)]);
    const failed = parseEventLogs({ abi: batchRelayAbi, eventName: 'ItemFailed', logs: receipt.logs });
    expect(failed.map((e) => e.args.index)).toEqual([1n, 2n, 4n]);
    expect(await t.balanceOf(shop)).toBe(1_000n + 400n + 900n);
    expect(await t.balanceOf(fees)).toBe(100n);
    expect(await t.balanceOf(tooMuch.auth.from)).toBe(1_000n);
    expect(await t.balanceOf(noFee[0]!.auth.from)).toBe(1_000n);
    for (const a of [tooMuch, ...noFee]) expect(await authorizationUsed(a)).toBe(false);
  });

  it('through the service: a group carrying a pair whose fee can no longer move moves neither, the rest of the group goes, and the pair is answered with the reason', async () => {
    const shop = '0x0000000000000000000000000000000000005405' as Address;
    const fees = '0x0000000000000000000000000000000000005406' as Address;
    const elsewhere = '0x0000000000000000000000000000000000005407' as Address;
    const keys = await Promise.all([t.fundedKey(), t.fundedKey(), t.fundedKey(), t.fundedKey()]);
    for (const k of keys) await t.mint(privateKeyToAccount(k).address, 100n);
    const [kFirst, kSingle, kPair, kSpent] = keys as [Hex, Hex, Hex, Hex];
    const first = await signed(kFirst, shop, 10n);
    const single = await signed(kSingle, shop, 10n);
    const pair = [await signed(kPair, shop, 30n), await signed(kPair, fees, 2n)];
    // 30 + 20 fits the 100 it holds when simulated; 60 leave before the group is mined (below).
    const spent = [await signed(kSpent, shop, 30n), await signed(kSpent, fees, 20n)];

    const d = await tempDir('batch-relay-');
    let firstHeld!: () => void;
    const held = new Promise<void>((r) => (firstHeld = r));
    const spender = t.walletFor(privateKeyToAccount(kSpent));
    const rpc = await slowBroadcasts(1_000, {
      onBroadcast: async (n) => {
        if (n === 1) firstHeld();
        // The group's broadcast: the payer spends 60 of its 100 itself first, so its principal
        // (30) still fits, the fee on top (20) does not.
        if (n === 2) {
          const h = await spender.writeContract({ address: t.token, abi: stablecoinAbi, functionName: 'transfer', args: [elsewhere, 60n] });
          await t.publicClient.waitForTransactionReceipt({ hash: h });
        }
      },
    });
    const chain = await createChain({ dataDir: d.dir, rpcUrl: rpc.url, chainId: t.anvil.chainId, tokenAddress: t.token, relayerPrivateKey: await t.fundedKey() });
    try {
      const before = await t.publicClient.getTransactionCount({ address: chain.relayerAddress });
      const alone = relayOnce(chain, first.auth, first.signature);
      await held; // the first is in flight alone; the next three wait for it and go together
      const [a, s1, p1, sp] = await Promise.all([
        alone,
        relayOnce(chain, single.auth, single.signature),
        relayOnce(chain, pair[0]!.auth, pair[0]!.signature, { batchWith: [pair[1]!] }),
        relayOnce(chain, spent[0]!.auth, spent[0]!.signature, { batchWith: [spent[1]!] }),
      ]);
      expect([a.status, s1.status, p1.status]).toEqual(['settled', 'settled', 'settled']);
      expect(sp).toMatchObject({ status: 'failed', reason: 'insufficient_balance' });
      // Two relayer transactions: the first alone, then one group of a single and two pairs.
      expect((await t.publicClient.getTransactionCount({ address: chain.relayerAddress })) - before).toBe(2);
      if (s1.status !== 'settled' || p1.status !== 'settled') return;
      expect(p1.txHash).toBe(s1.txHash);
      const receipt = await t.publicClient.getTransactionReceipt({ hash: p1.txHash });
      expect(usedAuthorizations(receipt.logs, t.token).sort()).toEqual([used(single), used(pair[0]!), used(pair[1]!)].sort());
      expect(parseEventLogs({ abi: batchRelayAbi, eventName: 'ItemFailed', logs: receipt.logs })).toHaveLength(1);
      // Neither half of the spent pair moved; the good pair moved both, exactly.
      for (const x of spent) expect(await authorizationUsed(x)).toBe(false);
      expect(await t.balanceOf(spent[0]!.auth.from)).toBe(40n);
      expect(await t.balanceOf(pair[0]!.auth.from)).toBe(68n);
      expect(await t.balanceOf(fees)).toBe(2n);
      expect(await t.balanceOf(shop)).toBe(10n + 10n + 30n);
    } finally {
      await chain.close();
      await d.cleanup();
      await new Promise((r) => rpc.server.close(r));
    }
  });
});
