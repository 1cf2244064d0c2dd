/**
 * CPU of `encodeTransfer`'s bytes overload (contract signers, ERC-1271), prepared once at load
 * (h13fix), against viem's `encodeFunctionData` by name as it was called before, in one process:
 * alternated rounds, median CPU per call. (An EOA's (v, r, s) call data is written by hand and is
 * not measured here.)
 *
 *   npx tsx bench/encode-transfer.ts [rounds=7] [calls=20000]
 */
import { encodeFunctionData, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { stablecoinAbi } from '../src/chain/artifacts/stablecoin.js';
import { encodeTransfer } from '../src/chain/verify-authorization.js';

const rounds = Number(process.argv[2] ?? 7);
const calls = Number(process.argv[3] ?? 20_000);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const hex = (n: number) => `0x${Buffer.from(Array.from({ length: n }, (_, i) => (i * 37 + n) & 255)).toString('hex')}` as Hex;

const auth = { from: privateKeyToAccount(generatePrivateKey()).address, to: privateKeyToAccount(generatePrivateKey()).address, value: 38_684_720n, validAfter: 0n, validBefore: 1_900_000_000n, nonce: hex(32) };
// A Safe-style contract signature: 65 bytes per owner, two owners, plus a tail.
const signature = hex(133);
const byName = () => encodeFunctionData({ abi: stablecoinAbi, functionName: 'transferWithAuthorization', args: [auth.from, auth.to, auth.value, auth.validAfter, auth.validBefore, auth.nonce, signature] });
const prepared = () => encodeTransfer(auth, signature, true);
if (byName() !== prepared()) throw new Error('the two encodings differ');

function cpuUsPerCall(fn: () => unknown): number {
  const c0 = process.cpuUsage();
  for (let i = 0; i < calls; i++) fn();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / calls;
}
for (let i = 0; i < 2000; i++) (byName(), prepared()); // warm-up
const a: number[] = [];
const b: number[] = [];
for (let r = 0; r < rounds; r++) {
  a.push(cpuUsPerCall(byName));
  b.push(cpuUsPerCall(prepared));
}
const [ma, mb] = [median(a), median(b)];
console.log(`encodeTransfer bytes overload, ${rounds} alternated rounds of ${calls} calls, median CPU per call:`);
console.log(`  by name (before): ${ma.toFixed(2)} µs  [${a.map((x) => x.toFixed(2)).join(' ')}]`);
console.log(`  prepared (h13fix): ${mb.toFixed(2)} µs  [${b.map((x) => x.toFixed(2)).join(' ')}]`);
console.log(`  ratio prepared/by name: ${(mb / ma).toFixed(3)}`);
