import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, encodeFunctionData, http, type Address, type Hex, type PrivateKeyAccount } from 'viem';
import { stablecoinAbi } from '../../src/chain/artifacts/stablecoin.js';
import { estimateCallGas, useLoopbackRpc, type NodeClient } from '../../src/chain/node-reads.js';
import { LoopbackRpc, loopbackFetch } from '../../src/chain/rpc-fetch.js';
import { isRevert, revertReason } from '../../src/chain/node-errors.js';
import { startTokenChain } from './helpers.js';

/** What callers read of an estimate's failure. */
function shape(e: unknown) {
  const err = e as Error & { shortMessage?: string; details?: string };
  return { name: err.name, shortMessage: err.shortMessage, details: err.details, message: err.message, revert: revertReason(e), isRevert: isRevert(e) };
}

// estimateCallGas is viem's estimateGas({account, to, data, prepare: false}) without the
// action's per-call work: on a real anvil it must answer the same gas and throw the same error.
describe('estimateCallGas against viem estimateGas', () => {
  let t: Awaited<ReturnType<typeof startTokenChain>>;
  let relayer: PrivateKeyAccount;
  let holder: PrivateKeyAccount;

  beforeAll(async () => {
    t = await startTokenChain();
    relayer = await t.fundedAccount();
    holder = await t.fundedAccount();
    await t.mint(holder.address, 5_000_000n);
  });
  afterAll(async () => {
    await t?.anvil.stop();
  });

  const viemEstimate = (account: PrivateKeyAccount, to: Address, data: Hex) => t.publicClient.estimateGas({ account, to, data, prepare: false });

  it('same gas for a call that passes', async () => {
    const data = encodeFunctionData({ abi: stablecoinAbi, functionName: 'transfer', args: ['0x00000000000000000000000000000000000c0ffe', 1_000n] });
    expect(await estimateCallGas(t.publicClient, holder, t.token, data)).toBe(await viemEstimate(holder, t.token, data));
  });

  it('same error for a call that reverts (with a reason, and without), and for a node that is not there', async () => {
    const tooMuch = encodeFunctionData({ abi: stablecoinAbi, functionName: 'transfer', args: ['0x00000000000000000000000000000000000c0ffe', 10n ** 30n] });
    const unknownSelector = '0xdeadbeef' as Hex;
    for (const data of [tooMuch, unknownSelector]) {
      const ours = await estimateCallGas(t.publicClient, relayer, t.token, data).then(() => 'passed', (e: unknown) => shape(e));
      const viems = await viemEstimate(relayer, t.token, data).then(() => 'passed', (e: unknown) => shape(e));
      expect(ours).not.toBe('passed');
      expect(ours).toEqual(viems);
    }
    const gone = createPublicClient({ chain: t.chain, transport: http('http://127.0.0.1:9/', { retryCount: 0 }) });
    const ours = await estimateCallGas(gone, relayer, t.token, tooMuch).then(() => 'passed', (e: unknown) => shape(e));
    const viems = await gone.estimateGas({ account: relayer, to: t.token, data: tooMuch, prepare: false }).then(() => 'passed', (e: unknown) => shape(e));
    expect(ours).not.toBe('passed');
    expect(ours).toEqual(viems);
  });

  it('on the embedded path: results without viem (one HTTP request for the calls of a tick), anything else asked again through viem with its error', async () => {
    const inner = loopbackFetch();
    let httpRequests = 0;
    const counted = ((...args: Parameters<typeof inner>) => (httpRequests++, inner(...args))) as typeof inner;
    const client = createPublicClient({ chain: t.chain, transport: http(t.anvil.rpcUrl, { batch: { wait: 0 }, fetchFn: counted as unknown as typeof fetch }) }) as NodeClient;
    useLoopbackRpc(client, new LoopbackRpc(t.anvil.rpcUrl, counted));
    const viemRequests: string[] = [];
    const request = client.request.bind(client);
    client.request = ((args: { method: string }) => (viemRequests.push(args.method), request(args as never))) as typeof client.request;

    const datas = [1n, 2n, 3n, 4n, 5n].map((v) => encodeFunctionData({ abi: stablecoinAbi, functionName: 'transfer', args: ['0x00000000000000000000000000000000000c0ffe', v] }));
    const expected = await Promise.all(datas.map((d) => viemEstimate(holder, t.token, d)));
    httpRequests = 0;
    expect(await Promise.all(datas.map((d) => estimateCallGas(client, holder, t.token, d)))).toEqual(expected);
    expect(viemRequests).toEqual([]);
    expect(httpRequests).toBe(1);

    const tooMuch = encodeFunctionData({ abi: stablecoinAbi, functionName: 'transfer', args: ['0x00000000000000000000000000000000000c0ffe', 10n ** 30n] });
    const ours = await estimateCallGas(client, relayer, t.token, tooMuch).then(() => 'passed', (e: unknown) => shape(e));
    const viems = await viemEstimate(relayer, t.token, tooMuch).then(() => 'passed', (e: unknown) => shape(e));
    expect(ours).not.toBe('passed');
    expect(ours).toEqual(viems);
    expect(viemRequests).toEqual(['eth_estimateGas']);
  });
});
