import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { ESCROW_ARTIFACT, compileEscrow, renderEscrowArtifact } from '../../scripts/compile-escrow.js';

// The embedded chain gets the committed escrow artifact; it must be exactly what the vendored
// commerce-payments source compiles to (via-IR: about a minute of solc).
describe('auth-capture escrow artifact', () => {
  it('matches a fresh compile of contracts/commerce-payments', { timeout: 300_000 }, async () => {
    const compiled = compileEscrow();
    expect(await readFile(ESCROW_ARTIFACT, 'utf8')).toBe(renderEscrowArtifact(compiled));
  });
});
