/**
 * CPU of the parts of a settlement changed in issue 23's seventh round, each against the code it
 * replaced, in one process (alternated rounds, median per call). Steadier on a shared machine
 * than the whole settle's CPU (bench/settlement-http.ts), whose commit grouping follows the load.
 *
 *   npx tsx bench/settle-parts.ts [rounds=5]
 *
 * - redirect: the merchant redirect URL with payment_id and status (twice per settle answer);
 * - update: a store update of a payment row (three per settle);
 * - retry: a byte-identical retry of a settled payment (signer recovery vs the recorded attempt);
 * - sign (ninth round): the relayer's transaction, viem's signTransaction + keccak vs signEip1559,
 *   for one transfer's call data and a batch of 64 through the relay;
 * - signature parse (ninth round): viem's parseSignature vs parseCompactSignature;
 * - estimate: the settle's simulation, client side (viem's estimateGas action vs estimateCallGas),
 *   against the embedded anvil.
 */
import { createPublicClient, http, keccak256, parseSignature, recoverTypedDataAddress, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { startAnvil } from '../src/chain/anvil.js';
import { estimateCallGas, type NodeClient } from '../src/chain/node-reads.js';
import { loopbackFetch } from '../src/chain/rpc-fetch.js';
import { encodeRelay } from '../src/chain/relay-batches.js';
import { signEip1559 } from '../src/chain/sign-eip1559.js';
import { encodeTransfer, parseCompactSignature } from '../src/chain/verify-authorization.js';
import { redirectUrlFor } from '../src/checkout-sessions/redirect-url.js';
import { sameAsRecorded } from '../src/settlement/checkout-claim.js';
import type { SettlementAttempt } from '../src/settlement/attempts.js';
import { cloneRow, deepFreeze, patchedRow } from '../src/store/row-values.js';

const rounds = Number(process.argv[2] ?? 5);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function cpuUsPerCall(n: number, fn: (i: number) => unknown): number {
  const c0 = process.cpuUsage();
  for (let i = 0; i < n; i++) fn(i);
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / n;
}
async function cpuUsPerCallAsync(n: number, fn: (i: number) => Promise<unknown>): Promise<number> {
  const c0 = process.cpuUsage();
  for (let i = 0; i < n; i++) await fn(i);
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / n;
}

async function main(): Promise<void> {
  const results: Record<string, { before: number[]; after: number[] }> = {};
  const put = (name: string, before: number, after: number) => {
    (results[name] ??= { before: [], after: [] }).before.push(before);
    results[name].after.push(after);
  };

  // redirect
  const redirectUrl = 'https://shop.example/done?order=42';
  const viaUrl = (id: string, status: string) => {
    const url = new URL(redirectUrl);
    url.searchParams.set('payment_id', id);
    url.searchParams.set('status', status);
    return url.toString();
  };
  // update: a settled payment's row as the store holds it
  const row = deepFreeze(
    cloneRow({
      id: 'pay_4f9c2a1b8e7d6c5b',
      accountId: 'acct_1234567890',
      amount: '12.50',
      currency: 'USD',
      description: 'Order 42',
      reference: 'ref-42',
      redirectUrl,
      status: 'processing',
      stablecoinAmount: '12500000',
      rate: '1',
      livemode: false,
      metadata: { order: '42', customer: 'c_77', lines: [{ sku: 'book', qty: 2 }] },
      payer: '0x' + 'ab'.repeat(20),
      attemptedBy: ['0x' + 'ab'.repeat(20) + ':0x' + 'cd'.repeat(32)],
      expiresAt: new Date().toISOString(),
      createdAt: new Date().toISOString(),
      updatedAt: new Date().toISOString(),
    }),
  );
  const patch = { status: 'settled', txHash: '0x' + 'ef'.repeat(32), settledAt: new Date().toISOString(), updatedAt: new Date().toISOString() };
  // retry
  const payer = privateKeyToAccount(generatePrivateKey());
  const typedData = {
    domain: { name: 'USD Coin', version: '2', chainId: 31337, verifyingContract: '0x' + '11'.repeat(20) },
    types: {
      TransferWithAuthorization: [
        { name: 'from', type: 'address' },
        { name: 'to', type: 'address' },
        { name: 'value', type: 'uint256' },
        { name: 'validAfter', type: 'uint256' },
        { name: 'validBefore', type: 'uint256' },
        { name: 'nonce', type: 'bytes32' },
      ],
    },
    primaryType: 'TransferWithAuthorization',
    message: { from: payer.address, to: '0x' + '22'.repeat(20), value: 12_500_000n, validAfter: 0n, validBefore: 2_000_000_000n, nonce: ('0x' + '33'.repeat(32)) as Hex },
  } as const;
  const signature = await payer.signTypedData(typedData as never);
  const auth = typedData.message;
  const attempt = {
    subject: row.id,
    signature,
    authorization: Object.fromEntries(Object.entries(auth).map(([k, v]) => [k, String(v)])),
  } as unknown as SettlementAttempt;
  // estimate
  const anvil = await startAnvil();
  const client = createPublicClient({ transport: http(anvil.rpcUrl, { batch: { wait: 0 }, fetchFn: loopbackFetch() as unknown as typeof fetch }) }) as unknown as NodeClient;
  const relayer = privateKeyToAccount(generatePrivateKey());
  const to = ('0x' + '44'.repeat(20)) as Hex;
  // A transferWithAuthorization's (v, r, s) call data, and 64 of them through the batch relay.
  const lone = encodeTransfer({ from: payer.address, to, value: 12_500_000n, validAfter: 0n, validBefore: 2_000_000_000n, nonce: ('0x' + '33'.repeat(32)) as Hex }, signature, false);
  const batch = encodeRelay(to, Array.from({ length: 64 }, () => lone));
  const sigs = await Promise.all(Array.from({ length: 64 }, (_, i) => payer.signMessage({ message: `m${i}` })));
  try {
    for (let r = 0; r < rounds; r++) {
      put('redirect (µs per call)', cpuUsPerCall(20_000, (i) => viaUrl(`pay_${i}`, 'settled')), cpuUsPerCall(20_000, (i) => redirectUrlFor(redirectUrl, `pay_${i}`, 'settled')));
      put('update (µs per row)', cpuUsPerCall(20_000, () => deepFreeze(cloneRow({ ...row, ...patch, id: row.id }))), cpuUsPerCall(20_000, () => patchedRow(row, patch)));
      put(
        'retry (µs per settled retry)',
        await cpuUsPerCallAsync(100, async () => (await recoverTypedDataAddress({ ...(typedData as object), signature } as never)) === payer.address),
        await cpuUsPerCallAsync(100, async () => sameAsRecorded(attempt, row.id, auth as never, signature)),
      );
      // Ninth round: the relayer's signing, a lone transfer and a batch of 64 through the relay.
      for (const [label, data] of [['sign, one transfer (µs per tx)', lone], ['sign, batch of 64 (µs per tx)', batch]] as const) {
        const tx = { chainId: 31_337, nonce: r, to, data, value: 0n, gas: 3_000_000n, maxFeePerGas: 2_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n };
        put(
          label,
          await cpuUsPerCallAsync(label.includes('64') ? 40 : 300, async () => keccak256(await relayer.signTransaction({ type: 'eip1559', ...tx }))),
          await cpuUsPerCallAsync(label.includes('64') ? 40 : 300, () => signEip1559(relayer, tx)),
        );
      }
      put('signature parse (µs per call)', cpuUsPerCall(20_000, (i) => parseSignature(sigs[i % sigs.length]!)), cpuUsPerCall(20_000, (i) => parseCompactSignature(sigs[i % sigs.length]!)));
      put(
        'estimate (client µs per call)',
        await cpuUsPerCallAsync(300, () => client.estimateGas({ account: relayer, to, data: '0x', prepare: false })),
        await cpuUsPerCallAsync(300, () => estimateCallGas(client, relayer, to, '0x')),
      );
    }
  } finally {
    await anvil.stop();
  }
  for (const [name, { before, after }] of Object.entries(results)) {
    const b = median(before);
    const a = median(after);
    console.log(`${name}: before ${b.toFixed(2)}, after ${a.toFixed(2)} (${(a / b).toFixed(3)}×)`);
  }
}

await main();
