import nodeHttp, { type ClientRequest } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createWalletClient, http, parseEther, parseEventLogs, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { stablecoinAbi } from '../../src/chain/artifacts/stablecoin.js';
import type { TransferAuthorization } from '../../src/chain/authorization.js';
import { createChain } from '../../src/chain/boot.js';
import type { ChainService } from '../../src/chain/chain.js';
import { randomNonce, tempDir } from './helpers.js';

// The embedded chain's client batches the JSON-RPC calls made in one tick into one HTTP request
// (src/chain/boot.ts), so concurrent relays share requests and anvil, which mines every
// transaction ready in its pool into one block, puts several relays in one block. Each relay
// keeps its own transaction, receipt and AuthorizationUsed log.
describe('embedded chain: concurrent calls share HTTP requests', () => {
  let chain: ChainService;
  let cleanup: () => Promise<void>;
  // The embedded chain's client sends over node:http (src/chain/rpc-fetch.ts): requests are
  // observed there, at the request's body.
  const realRequest = nodeHttp.request;
  const stop = () => {
    nodeHttp.request = realRequest;
  };
  /** The JSON-RPC methods of each HTTP request sent to the embedded anvil while recording. */
  let requests: string[][] = [];

  beforeAll(async () => {
    const t = await tempDir('chain-batching-');
    cleanup = t.cleanup;
    chain = await createChain({ dataDir: t.dir, confirmTimeoutMs: 20_000 });
  });
  afterEach(stop);
  afterAll(async () => {
    stop();
    await chain?.close();
    await cleanup?.();
  });

  function record(): void {
    requests = [];
    nodeHttp.request = function (this: unknown, ...args: unknown[]) {
      const req = (realRequest as (...a: unknown[]) => ClientRequest).apply(this, args);
      // A URL, or (rpc-fetch.ts parses its node's URL once) the options it was parsed into.
      const a0 = args[0] as string | URL | { protocol?: string; hostname?: string; port?: string | number; path?: string };
      const url = typeof a0 === 'string' || a0 instanceof URL ? String(a0) : `${a0.protocol ?? 'http:'}//${a0.hostname}:${a0.port}${a0.path ?? '/'}`;
      const end = req.end.bind(req) as (...a: unknown[]) => ClientRequest;
      req.end = ((body: unknown, ...rest: unknown[]) => {
        if (url.replace(/\/$/, '') === chain.rpcUrl.replace(/\/$/, '') && typeof body === 'string') {
          const parsed = JSON.parse(body) as { method: string } | Array<{ method: string }>;
          requests.push((Array.isArray(parsed) ? parsed : [parsed]).map((c) => c.method));
        }
        return end(body, ...rest);
      }) as typeof req.end;
      return req;
    } as typeof nodeHttp.request;
  }

  it('reads started together go to the node in one HTTP request', async () => {
    const addresses = Array.from({ length: 5 }, () => privateKeyToAccount(generatePrivateKey()).address);
    record();
    const balances = await Promise.all(addresses.map((a) => chain.balanceOf(a)));
    stop();
    expect(balances).toEqual([0n, 0n, 0n, 0n, 0n]);
    expect(requests).toEqual([['eth_call', 'eth_call', 'eth_call', 'eth_call', 'eth_call']]);
  });

  it('concurrent relays share send requests and blocks, each with its own transaction, receipt and one AuthorizationUsed log', async () => {
    const n = 8;
    const merchant = privateKeyToAccount(generatePrivateKey()).address;
    const payers = Array.from({ length: n }, () => privateKeyToAccount(generatePrivateKey()));
    await Promise.all(payers.map(async (p) => expect((await chain.faucet(p.address, 1_000_000n, { nativeAmount: 0n })).ok).toBe(true)));
    const block = await chain.publicClient.getBlock();
    const signed = await Promise.all(
      payers.map(async (p) => {
        const auth: TransferAuthorization = {
          from: p.address,
          to: merchant,
          value: 1_000_000n,
          validAfter: 0n,
          validBefore: block.timestamp + 3_600n,
          nonce: randomNonce(),
        };
        return { auth, signature: await p.signTypedData(chain.transferWithAuthorizationTypedData(auth).typedData) };
      }),
    );

    // Mining paused, as between a real network's blocks: whether the relays land in one block
    // then depends only on the relayer, not on how anvil's instant miner happens to interleave
    // under load. A relayer that waited for one relay's receipt before sending the next would
    // never get all n into the pool, and this test would time out.
    const node = chain.publicClient as unknown as { request(a: { method: string; params?: unknown[] }): Promise<unknown> };
    await node.request({ method: 'evm_setAutomine', params: [false] });
    record();
    let hashes: Hex[];
    try {
      const relays = Promise.all(
        signed.map(async ({ auth, signature }) => {
          // Each in a transaction of its own (`alone`): what is tested is the relayer's sends
          // sharing requests, not the batch relay's grouping (test/chain/batch-relay.test.ts).
          const sent = await chain.submitTransferWithAuthorization(auth, signature, { alone: true });
          if (!sent.ok) throw new Error(`${sent.reason}: ${sent.message}`);
          expect(await chain.waitForReceipt(sent.txHash)).toMatchObject({ status: 'success' });
          return sent.txHash;
        }),
      );
      for (;;) {
        const pool = (await node.request({ method: 'txpool_status' })) as { pending: string };
        if (Number(pool.pending) >= n) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      stop();
      await node.request({ method: 'evm_mine' });
      hashes = await relays;
    } finally {
      stop();
      await node.request({ method: 'evm_setAutomine', params: [true] });
    }

    // Without batching every raw transaction is its own HTTP request (n of them).
    const sendRequests = requests.filter((r) => r.includes('eth_sendRawTransaction'));
    expect(sendRequests.flat().filter((m) => m === 'eth_sendRawTransaction')).toHaveLength(n);
    expect(sendRequests.length).toBeLessThan(n);

    expect(new Set(hashes).size).toBe(n);
    const blocks = new Set<bigint>();
    for (const [i, hash] of hashes.entries()) {
      const receipt = await chain.publicClient.getTransactionReceipt({ hash });
      expect(receipt.status).toBe('success');
      blocks.add(receipt.blockNumber);
      const used = parseEventLogs({ abi: stablecoinAbi, eventName: 'AuthorizationUsed', logs: receipt.logs });
      expect(used).toHaveLength(1);
      expect(used[0]!.args).toMatchObject({ authorizer: signed[i]!.auth.from, nonce: signed[i]!.auth.nonce });
    }
    expect(blocks.size).toBe(1);
    expect(await chain.balanceOf(merchant)).toBe(BigInt(n) * 1_000_000n);
  });

  it('a transaction sent by another client (not the relayer) is still mined', async () => {
    const outsider = privateKeyToAccount(generatePrivateKey());
    expect((await chain.faucet(outsider.address, 1n, { nativeAmount: parseEther('1') })).ok).toBe(true);
    const wallet = createWalletClient({ account: outsider, chain: chain.publicClient.chain, transport: http(chain.rpcUrl) });
    const sink: Address = privateKeyToAccount(generatePrivateKey()).address;
    const hash: Hex = await wallet.sendTransaction({ to: sink, value: 1n });
    const receipt = await chain.publicClient.waitForTransactionReceipt({ hash, timeout: 20_000 });
    expect(receipt.status).toBe('success');
    expect(await chain.nativeBalance(sink)).toBe(1n);
  });
});
