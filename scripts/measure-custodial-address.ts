/**
 * Times ChainService.custodialAddress (item: derived-address caching). Not a test: run by hand,
 * `npx tsx scripts/measure-custodial-address.ts [indexes]`. Starts a throwaway embedded anvil.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createChain } from '../src/chain/boot.js';

const n = Number(process.argv[2] ?? 50);
const dir = await mkdtemp(path.join(os.tmpdir(), 'measure-custodial-'));
const chain = await createChain({ dataDir: dir });
try {
  const time = (fn: () => void) => {
    const t0 = process.hrtime.bigint();
    fn();
    return Number(process.hrtime.bigint() - t0) / 1e6;
  };
  const first = time(() => chain.custodialAddress(0));
  const fresh = time(() => {
    for (let i = 1; i <= n; i++) chain.custodialAddress(i);
  });
  const repeat = time(() => {
    for (let r = 0; r < 10; r++) for (let i = 0; i <= n; i++) chain.custodialAddress(i);
  });
  const reps = 10 * (n + 1);
  console.log(`very first call (index 0): ${first.toFixed(2)} ms`);
  console.log(`new index:                 ${(fresh / n).toFixed(3)} ms/call over ${n} indexes`);
  console.log(`repeat calls:              ${(repeat / reps).toFixed(4)} ms/call over ${reps} calls`);
} finally {
  await chain.close();
  await rm(dir, { recursive: true, force: true });
}
