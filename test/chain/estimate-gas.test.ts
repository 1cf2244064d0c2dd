import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, encodeFunctionData, http, type Address, type Hex, type PrivateKeyAccount } from 'viem';
import { stablecoinAbi } from '../../src/chain/artifacts/stablecoin.js';
import { estimateCallGas } from '../../src/chain/node-reads.js';
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
});
