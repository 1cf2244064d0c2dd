import { describe, expect, it } from 'vitest';
import { encodeFunctionData, type Address } from 'viem';
import { stablecoinAbi } from '../../src/chain/artifacts/stablecoin.js';
import { balanceOf, type NodeClient } from '../../src/chain/node-reads.js';

/**
 * Issue 23, tenth round: the balance read is one `eth_call` written directly (the request viem's
 * readContract sends), not through readContract's per-call encoding, decoding and formatting.
 * The real token's answers are read through it in test/chain/chain.custodial.test.ts (anvil).
 */
const token = '0x00000000000000000000000000000000000000c0' as Address;
const holder = '0x00000000000000000000000000000000000abcde' as Address;

function node(answer: unknown) {
  const requests: unknown[] = [];
  let viaViem = 0;
  const client = {
    chain: { id: 31337 },
    request: async (r: unknown) => {
      requests.push(r);
      return answer;
    },
    readContract: async () => {
      viaViem++;
      throw new Error('readContract');
    },
  } as unknown as NodeClient;
  return { client, requests, viaViem: () => viaViem };
}

describe('balanceOf', () => {
  it("sends the very eth_call readContract would, and reads its word, without readContract", async () => {
    const n = node(`0x${(123_456_789n).toString(16).padStart(64, '0')}`);
    expect(await balanceOf(n.client, token, holder)).toBe(123_456_789n);
    const data = encodeFunctionData({ abi: stablecoinAbi, functionName: 'balanceOf', args: [holder] });
    expect(n.requests).toEqual([{ method: 'eth_call', params: [{ to: token, data }, 'latest'] }]);
    expect(n.viaViem()).toBe(0);
  });

  it('a mis-checksummed address goes to readContract (which refuses it, as before)', async () => {
    const n = node('0x');
    await expect(balanceOf(n.client, token, '0x00000000000000000000000000000000000AbCdE' as Address)).rejects.toThrow('readContract');
    expect(n.requests).toEqual([]);
  });

  it('an answer that is not one word goes to readContract (its error, as before)', async () => {
    const n = node('0x');
    await expect(balanceOf(n.client, token, holder)).rejects.toThrow('readContract');
    expect(n.viaViem()).toBe(1);
  });
});
