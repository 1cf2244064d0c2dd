/**
 * The escrow is deployed from published source at a pinned version with its licence kept (issue 25):
 * every vendored file under contracts/commerce-payments is byte for byte the file of
 * base/commerce-payments at commit 3f77761cf8b174fdc456a275a9c64919eda44234. The ids below are that
 * commit's git blob ids (`git ls-tree -r 3f77761 -- <path>` in a clone of the repository): anyone can
 * check them against GitHub, and an edit to a vendored file, or a missing licence, fails here. The
 * compiled artifact is checked against a fresh compile of these files in auth-capture-artifact.test.ts.
 */
import { createHash } from 'node:crypto';
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve('contracts/commerce-payments');

/** git's object id of a file: SHA-1 of "blob <size>\0" and the bytes. */
const blobId = (bytes: Buffer) => createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');

/** base/commerce-payments at 3f77761 (v1.0.0's Solidity; later commits changed comments and the SPDX line only). */
const UPSTREAM: Record<string, string> = {
  'LICENSE.md': '8e88711d04d5de438235300e65072dfee78ddd0f',
  'src/AuthCaptureEscrow.sol': '9f374cfbab540db399c53613e408d657e2ead786',
  'src/TokenStore.sol': '58cf6566220816498292d7f6e85958e3f1094940',
  'src/collectors/ERC3009PaymentCollector.sol': 'f143868cdda76d5f4ad608d8a620f792bab89753',
  'src/collectors/ERC6492SignatureHandler.sol': '1db2a6981a7b87be6f80f7f5091b68d2979c178b',
  'src/collectors/OperatorRefundCollector.sol': '18b2576d53d72cabd9528fef6717d3438d59b7b1',
  'src/collectors/TokenCollector.sol': '92d9e7b5ebb37e7473a35258844541473d15313b',
  'src/interfaces/IERC3009.sol': '39a77c7692de42a1b129a5911d4fee98e0d84aa4',
  'src/interfaces/IMulticall3.sol': '57a27ea4abf6db7cdd8059658820e7f358dd9201',
};

async function vendored(dir = ROOT): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...(await vendored(p)));
    else out.push(path.relative(ROOT, p));
  }
  return out;
}

describe('contracts/commerce-payments', () => {
  it('is the pinned upstream source, unchanged, with its MIT licence', async () => {
    const files = (await vendored()).filter((f) => f !== 'README.md').sort(); // README.md is ours: provenance notes
    expect(files).toEqual(Object.keys(UPSTREAM).sort());
    for (const f of files) expect(blobId(await readFile(path.join(ROOT, f))), f).toBe(UPSTREAM[f]);
    expect(await readFile(path.join(ROOT, 'LICENSE.md'), 'utf8')).toMatch(/MIT License[\s\S]*Coinbase/);
  });
});
