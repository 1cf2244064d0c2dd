/**
 * Custodial wallets and the server's secrets file.
 *
 * Custodial accounts derive from one BIP-39 mnemonic (BIP-44 m/44'/60'/0'/0/<index>, one index
 * per account). The mnemonic comes from WALLET_MNEMONIC or, on first start without it, is
 * generated into DATA_DIR/secrets.json (mode 0600), which also holds other server-only keys
 * such as the embedded relayer's. Keys never leave the server.
 */
import { pbkdf2Sync } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { writeFileDurably } from '../lib/durable-file.js';
import { ownAccount } from './own-signer.js';
import { sha256, toHex, type Address, type Hex } from 'viem';
import {
  HDKey,
  english,
  generateMnemonic,
  mnemonicToAccount,
  type HDAccount,
  type PrivateKeyAccount,
} from 'viem/accounts';
import { z } from 'zod';

export const SECRETS_FILE = 'secrets.json';

/** Account wallets: m/44'/60'/0'/0/<walletIndex>. */
export const CUSTODIAL_PATH = "m/44'/60'/0'/0";
/**
 * Checkout deposit addresses: m/44'/60'/1'/0/<deposit index>, a BIP-44 account of their own, so
 * no deposit index can ever name an account wallet (docs/settlement.md, "Deposit addresses").
 */
export const DEPOSIT_PATH = "m/44'/60'/1'/0";

export const Secrets = z.looseObject({
  walletMnemonic: z.string().optional(),
  relayerPrivateKey: z
    .string()
    .regex(/^0x[0-9a-fA-F]{64}$/)
    .optional(),
});
export type Secrets = z.infer<typeof Secrets>;

export function secretsPath(dataDir: string): string {
  return path.join(dataDir, SECRETS_FILE);
}

/** Reads DATA_DIR/secrets.json; `{}` when it does not exist yet. */
export async function readSecrets(dataDir: string): Promise<Secrets> {
  let text: string;
  try {
    text = await readFile(secretsPath(dataDir), 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw e;
  }
  const parsed = Secrets.safeParse(JSON.parse(text));
  if (!parsed.success) throw new Error(`${secretsPath(dataDir)} is malformed: ${parsed.error.issues[0]?.message}`);
  return parsed.data;
}

// One writer at a time per file in this process, so concurrent get-or-create calls
// cannot each generate (and one lose) a different secret.
const locks = new Map<string, Promise<unknown>>();
function serialized<T>(key: string, fn: () => Promise<T>): Promise<T> {
  const prev = locks.get(key) ?? Promise.resolve();
  const next = prev.then(fn, fn);
  locks.set(
    key,
    next.catch(() => undefined),
  );
  return next;
}

async function writeSecretsFile(dataDir: string, secrets: Secrets): Promise<void> {
  await writeFileDurably(secretsPath(dataDir), `${JSON.stringify(secrets, null, 2)}\n`, 0o600);
}

/**
 * Returns the secret stored under `key`, creating it with `create()` and persisting it
 * (mode 0600, atomic write) when absent.
 */
export function getOrCreateSecret<K extends keyof Secrets & string>(
  dataDir: string,
  key: K,
  create: () => NonNullable<Secrets[K]>,
): Promise<NonNullable<Secrets[K]>> {
  return serialized(secretsPath(dataDir), async () => {
    const secrets = await readSecrets(dataDir);
    const existing = secrets[key];
    if (existing !== undefined && existing !== null) return existing as NonNullable<Secrets[K]>;
    const value = create();
    await writeSecretsFile(dataDir, { ...secrets, [key]: value });
    return value;
  });
}

/**
 * The custodial mnemonic: `envMnemonic` (WALLET_MNEMONIC) when given, else the one in
 * DATA_DIR/secrets.json, generated on first use. Throws on an invalid mnemonic, because a
 * typo would silently derive other wallets.
 */
export async function loadOrCreateMnemonic(dataDir: string, envMnemonic?: string): Promise<string> {
  if (envMnemonic !== undefined && envMnemonic.trim() !== '') {
    const normalized = normalizeMnemonic(envMnemonic);
    if (!isValidMnemonic(normalized)) throw new Error('WALLET_MNEMONIC is not a valid BIP-39 English mnemonic');
    return normalized;
  }
  const mnemonic = await getOrCreateSecret(dataDir, 'walletMnemonic', () => generateMnemonic(english));
  if (!isValidMnemonic(mnemonic)) throw new Error(`walletMnemonic in ${secretsPath(dataDir)} is not a valid mnemonic`);
  return mnemonic;
}

/**
 * The custodial account at BIP-44 index `index` (m/44'/60'/0'/0/index). Slow (PBKDF2 on every
 * call): the service derives through `CustodialKeyring`, which caches.
 */
export function custodialAccount(mnemonic: string, index: number): HDAccount {
  checkIndex(index);
  return mnemonicToAccount(mnemonic, { addressIndex: index });
}

/**
 * Custodial accounts by index, cached. `custodialAccount` runs BIP-39's PBKDF2 (2048 rounds of
 * HMAC-SHA512, tens of ms of blocking CPU) on every call; here the seed and the BIP-44 parent
 * key m/44'/60'/0'/0 are derived once, an index costs one child derivation, and results are
 * kept in bounded LRU maps (derivation is deterministic, so a cache can never go stale). Keeping
 * derived keys in memory exposes nothing the in-memory mnemonic does not already.
 */
export class CustodialKeyring {
  private parent: HDKey | undefined;
  private readonly accounts: LruMap<PrivateKeyAccount>;
  private readonly addresses: LruMap<Address>;

  constructor(
    private readonly mnemonic: string,
    limits: { accounts?: number; addresses?: number } = {},
    /** The parent of the keys: the account wallets' BIP-44 branch unless told otherwise. */
    private readonly parentPath: string = CUSTODIAL_PATH,
  ) {
    this.accounts = new LruMap(limits.accounts ?? 1_000);
    this.addresses = new LruMap(limits.addresses ?? 100_000);
  }

  /** A keyring over the same mnemonic on another branch (e.g. DEPOSIT_PATH); nothing is stored. */
  branch(parentPath: string): CustodialKeyring {
    return new CustodialKeyring(this.mnemonic, {}, parentPath);
  }

  /** The signing account at m/44'/60'/0'/0/index (same keys as `custodialAccount`). */
  account(index: number): PrivateKeyAccount {
    checkIndex(index);
    let account = this.accounts.get(index);
    if (!account) {
      this.parent ??= HDKey.fromMasterSeed(bip39Seed(this.mnemonic)).derive(this.parentPath);
      const key = this.parent.deriveChild(index).privateKey;
      if (!key) throw new Error(`could not derive custodial key ${index}`);
      account = ownAccount(toHex(key));
      this.accounts.set(index, account);
      this.addresses.set(index, account.address);
    }
    return account;
  }

  address(index: number): Address {
    checkIndex(index);
    return this.addresses.get(index) ?? this.account(index).address;
  }
}

/** BIP-39 seed with an empty passphrase: PBKDF2-HMAC-SHA512(NFKD(mnemonic), "mnemonic", 2048). */
function bip39Seed(mnemonic: string): Uint8Array {
  return new Uint8Array(pbkdf2Sync(mnemonic.normalize('NFKD'), 'mnemonic', 2048, 64, 'sha512'));
}

function checkIndex(index: number): void {
  if (!Number.isSafeInteger(index) || index < 0 || index >= 2 ** 31) {
    throw new RangeError(`custodial wallet index must be an integer in [0, 2^31): ${index}`);
  }
}

/** A Map that forgets its least recently used entry beyond `limit`. */
class LruMap<V> {
  private readonly map = new Map<number, V>();
  constructor(private readonly limit: number) {}
  get(key: number): V | undefined {
    const v = this.map.get(key);
    if (v !== undefined) {
      this.map.delete(key);
      this.map.set(key, v);
    }
    return v;
  }
  set(key: number, v: V): void {
    this.map.delete(key);
    this.map.set(key, v);
    if (this.map.size > this.limit) this.map.delete(this.map.keys().next().value!);
  }
}

function normalizeMnemonic(m: string): string {
  return m.trim().toLowerCase().split(/\s+/).join(' ');
}

/** BIP-39 check (word list and checksum); viem exports no validator of its own. */
export function isValidMnemonic(mnemonic: string): boolean {
  const words = normalizeMnemonic(mnemonic).split(' ');
  if (![12, 15, 18, 21, 24].includes(words.length)) return false;
  const indexes = words.map((w) => english.indexOf(w));
  if (indexes.some((i) => i < 0)) return false;
  const bits = indexes.map((i) => i.toString(2).padStart(11, '0')).join('');
  const checksumBits = words.length / 3; // ENT / 32, with ENT = words * 11 * 32 / 33
  const entropyBits = bits.slice(0, bits.length - checksumBits);
  const entropy = new Uint8Array(entropyBits.length / 8);
  for (let i = 0; i < entropy.length; i++) entropy[i] = parseInt(entropyBits.slice(i * 8, i * 8 + 8), 2);
  const hash: Hex = sha256(entropy);
  const hashBits = BigInt(hash).toString(2).padStart(256, '0');
  return hashBits.slice(0, checksumBits) === bits.slice(bits.length - checksumBits);
}
