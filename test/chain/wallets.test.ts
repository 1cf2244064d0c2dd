import { readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  CustodialKeyring,
  DEPOSIT_PATH,
  custodialAccount,
  getOrCreateSecret,
  isValidMnemonic,
  loadOrCreateMnemonic,
  readSecrets,
  secretsPath,
} from '../../src/chain/wallet-secrets.js';
import { mnemonicToAccount } from 'viem/accounts';
import { tempDir } from './helpers.js';

// Hardhat/anvil's well-known test mnemonic and its first BIP-44 addresses.
const TEST_MNEMONIC = 'test test test test test test test test test test test junk';

describe('custodial wallets and the secrets file', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    await Promise.all(cleanups.splice(0).map((c) => c()));
  });
  async function dataDir() {
    const t = await tempDir('wallets-');
    cleanups.push(t.cleanup);
    return t.dir;
  }

  it('generates a mnemonic into secrets.json with mode 0600 and reuses it', async () => {
    const dir = await dataDir();
    const first = await loadOrCreateMnemonic(dir);
    expect(first.split(' ')).toHaveLength(12);
    expect(isValidMnemonic(first)).toBe(true);
    expect((await stat(secretsPath(dir))).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(secretsPath(dir), 'utf8'))).toEqual({ walletMnemonic: first });

    expect(await loadOrCreateMnemonic(dir)).toBe(first);
  });

  it('prefers WALLET_MNEMONIC and does not write it to disk', async () => {
    const dir = await dataDir();
    expect(await loadOrCreateMnemonic(dir, TEST_MNEMONIC)).toBe(TEST_MNEMONIC);
    expect(await readSecrets(dir)).toEqual({});
  });

  it('refuses a mnemonic with a bad checksum or unknown word', async () => {
    const dir = await dataDir();
    await expect(loadOrCreateMnemonic(dir, 'test test test test test test test test test test test test')).rejects.toThrow(
      /not a valid BIP-39/,
    );
    expect(isValidMnemonic('test test test test test test test test test test test junk')).toBe(true);
    expect(isValidMnemonic('test test test test test test test test test test test notaword')).toBe(false);
  });

  it('derives BIP-44 m/44\'/60\'/0\'/0/index accounts', () => {
    expect(custodialAccount(TEST_MNEMONIC, 0).address).toBe('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266');
    expect(custodialAccount(TEST_MNEMONIC, 1).address).toBe('0x70997970C51812dc3A010C7d01b50e0d17dc79C8');
    expect(() => custodialAccount(TEST_MNEMONIC, -1)).toThrow(RangeError);
  });

  it('CustodialKeyring derives the same keys as custodialAccount, once per index, within its bounds', async () => {
    const ring = new CustodialKeyring(TEST_MNEMONIC, { accounts: 2, addresses: 3 });
    expect(ring.address(0)).toBe('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266');
    for (const i of [1, 2, 7, 2 ** 31 - 1]) {
      const slow = custodialAccount(TEST_MNEMONIC, i);
      expect(ring.address(i)).toBe(slow.address);
      const msg = { message: `index ${i}` };
      expect(await ring.account(i).signMessage(msg)).toBe(await slow.signMessage(msg));
    }
    // Cached: the same object again, not a new derivation (and still right after evictions).
    expect(ring.account(2)).toBe(ring.account(2));
    expect(ring.address(1)).toBe(custodialAccount(TEST_MNEMONIC, 1).address);
    expect(() => ring.address(-1)).toThrow(RangeError);
    expect(() => ring.account(2 ** 31)).toThrow(RangeError);
  });

  it("checkout deposit keys are BIP-44 account 1 (m/44'/60'/1'/0/index): never an account wallet", async () => {
    const wallets = new CustodialKeyring(TEST_MNEMONIC);
    const deposits = wallets.branch(DEPOSIT_PATH);
    for (const i of [0, 1, 7]) {
      expect(deposits.address(i)).toBe(mnemonicToAccount(TEST_MNEMONIC, { accountIndex: 1, addressIndex: i }).address);
      expect(deposits.address(i)).not.toBe(wallets.address(i));
    }
    const signer = deposits.account(7);
    expect(await signer.signMessage({ message: 'x' })).toBe(await mnemonicToAccount(TEST_MNEMONIC, { accountIndex: 1, addressIndex: 7 }).signMessage({ message: 'x' }));
  });

  it('keeps other secrets in the same file, creating each once even under concurrency', async () => {
    const dir = await dataDir();
    const mnemonic = await loadOrCreateMnemonic(dir);
    let created = 0;
    const keys = await Promise.all(
      Array.from({ length: 5 }, () =>
        getOrCreateSecret(dir, 'relayerPrivateKey', () => {
          created++;
          return `0x${'ab'.repeat(32)}`;
        }),
      ),
    );
    expect(created).toBe(1);
    expect(new Set(keys).size).toBe(1);
    expect(await readSecrets(dir)).toEqual({ walletMnemonic: mnemonic, relayerPrivateKey: `0x${'ab'.repeat(32)}` });
    expect((await stat(path.join(dir, 'secrets.json'))).mode & 0o777).toBe(0o600);
  });

  it('fails loudly on a malformed secrets file instead of generating new keys over it', async () => {
    const dir = await dataDir();
    await writeFile(secretsPath(dir), JSON.stringify({ relayerPrivateKey: 'nope' }));
    await expect(loadOrCreateMnemonic(dir)).rejects.toThrow(/malformed/);
  });
});
