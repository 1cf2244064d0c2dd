/** `npm run build:contracts`: recompiles the stablecoin, the batch relay and the auth-capture escrow, rewriting their committed artifacts. */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { STABLECOIN_ARTIFACT, compileStablecoin, renderStablecoinArtifact } from './compile-stablecoin.js';
import { ESCROW_ARTIFACT, compileEscrow, renderEscrowArtifact } from './compile-escrow.js';
import { BATCH_RELAY_ARTIFACT, compileBatchRelay, renderBatchRelayArtifact } from './compile-batch-relay.js';

const compiled = await compileStablecoin();
for (const w of compiled.warnings) console.warn(w);
await mkdir(path.dirname(STABLECOIN_ARTIFACT), { recursive: true });
await writeFile(STABLECOIN_ARTIFACT, renderStablecoinArtifact(compiled));
console.log(
  `wrote ${path.relative(process.cwd(), STABLECOIN_ARTIFACT)} (solc ${compiled.solcVersion}, ${(compiled.bytecode.length - 2) / 2} bytes)`,
);

const escrow = compileEscrow();
for (const w of escrow.warnings) console.warn(w);
await writeFile(ESCROW_ARTIFACT, renderEscrowArtifact(escrow));
console.log(`wrote ${path.relative(process.cwd(), ESCROW_ARTIFACT)} (solc ${escrow.solcVersion})`);

const batchRelay = await compileBatchRelay();
await writeFile(BATCH_RELAY_ARTIFACT, renderBatchRelayArtifact(batchRelay));
console.log(`wrote ${path.relative(process.cwd(), BATCH_RELAY_ARTIFACT)} (solc ${batchRelay.solcVersion})`);
