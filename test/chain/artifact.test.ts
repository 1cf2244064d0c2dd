import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { STABLECOIN_ARTIFACT, compileStablecoin, renderStablecoinArtifact } from '../../scripts/compile-stablecoin.js';
import { stablecoinAbi, stablecoinBytecode } from '../../src/chain/artifacts/stablecoin.js';

// The service deploys the committed artifact; it must be exactly what the source compiles to.
describe('stablecoin artifact', () => {
  it('matches a fresh compile of contracts/Stablecoin.sol', async () => {
    const compiled = await compileStablecoin();
    expect(compiled.abi).toEqual(stablecoinAbi);
    expect(compiled.bytecode).toBe(stablecoinBytecode);
    // Byte for byte, so a hand edit of the generated file is caught too.
    expect(await readFile(STABLECOIN_ARTIFACT, 'utf8')).toBe(renderStablecoinArtifact(compiled));
  });

  it('exposes the EIP-3009 and EIP-2612 entry points', () => {
    const names = stablecoinAbi.filter((i) => i.type === 'function').map((i) => ('name' in i ? i.name : ''));
    for (const fn of [
      'transferWithAuthorization',
      'receiveWithAuthorization',
      'cancelAuthorization',
      'authorizationState',
      'permit',
      'nonces',
      'DOMAIN_SEPARATOR',
      'eip712Domain',
      'mint',
    ]) {
      expect(names).toContain(fn);
    }
  });
});

describe('batch relay artifact', () => {
  it('matches a fresh compile of contracts/BatchRelay.sol', async () => {
    const { BATCH_RELAY_ARTIFACT, compileBatchRelay, renderBatchRelayArtifact } = await import('../../scripts/compile-batch-relay.js');
    const compiled = await compileBatchRelay();
    expect(await readFile(BATCH_RELAY_ARTIFACT, 'utf8')).toBe(renderBatchRelayArtifact(compiled));
  });
});
