import { hash } from 'node:crypto';
import { z } from 'zod';
import { CacheChannel, defineTable, type CacheChannelOptions, type Notice, type Store } from '../store/index.js';
import { newId, nowIso, randomBase62 } from '../lib/ids.js';
import { fail, type Result } from '../lib/results.js';
import { isLive } from '../lib/livemode.js';

export const KEY_PREFIX = 'sk_live_';
/** Test-mode keys (docs/test-mode.md): they see and make test-mode objects only. */
export const TEST_KEY_PREFIX = 'sk_test_';
/** sk_live_ / sk_test_ + 40 base62 chars (~238 bits). */
const SECRET_LENGTH = 40;
export const SECRET_KEY_PATTERN = /^sk_(live|test)_[0-9A-Za-z]{32,128}$/;

export const KEY_MODES = ['live', 'test'] as const;
export type KeyMode = (typeof KEY_MODES)[number];
export const modeOf = (livemode: boolean): KeyMode => (livemode ? 'live' : 'test');

export interface ApiKey {
  readonly id: string;
  accountId: string;
  label: string;
  /** sha256 hex of the full secret; the secret itself is never stored. */
  hash: string;
  last4: string;
  createdAt: string;
  revokedAt?: string;
  lastUsedAt?: string;
  /** false for `sk_test_` keys; keys made before test mode have none and are live (migration 0015). */
  livemode?: boolean;
}

export const ApiKeys = defineTable<ApiKey>({ name: 'api_keys', unique: [['hash']], indexes: ['accountId', 'hash'] });

export const CreateKeyInput = z
  .object({
    label: z.string().trim().min(1, 'must be 1-60 characters').max(60, 'must be 1-60 characters'),
    mode: z
      .enum(KEY_MODES, { error: 'mode must be "live" or "test"' })
      .default('live')
      .describe('`live` (default, `sk_live_…`) or `test` (`sk_test_…`, sees test-mode objects only). Asked with a test key: test by default, and never live (403).'),
  })
  // A typo is refused, never dropped: `{"label":"sandbox","Mode":"test"}` made a live key (h17tour).
  .strict();
export type CreateKeyInput = z.input<typeof CreateKeyInput>;

// One-shot `hash` (Node >= 20.12): a fifth of createHash's cost per call; every authenticated request hashes its key.
export const hashSecret = (secret: string) => hash('sha256', secret, 'hex');
export const maskedPrefix = (last4: string, livemode = true) => `${livemode ? KEY_PREFIX : TEST_KEY_PREFIX}…${last4}`;

/** A key as listed: never the secret (interface 2.3, 4.4). */
export const ListedKey = z.object({
  id: z.string(),
  label: z.string(),
  prefix: z.string().describe('Masked key: sk_live_… (or sk_test_…) and the last 4 characters.'),
  createdAt: z.iso.datetime(),
  mode: z.enum(KEY_MODES).describe('`live` or `test` (docs/test-mode.md).'),
  livemode: z.boolean().describe('true for live keys.'),
});
export type ListedKey = z.infer<typeof ListedKey>;

/** A key as created: the only time the secret is ever shown (interface 4.5). */
export const CreatedKey = ListedKey.extend({
  secret: z.string().describe('The full secret key. Shown once; store it now.'),
});
export type CreatedKey = z.infer<typeof CreatedKey>;

export function listedKey(k: ApiKey): ListedKey {
  const live = isLive(k);
  return { id: k.id, label: k.label, prefix: maskedPrefix(k.last4, live), createdAt: k.createdAt, mode: modeOf(live), livemode: live };
}

/** Bound on remembered keys; past it the memory starts over (a miss only costs a lookup). */
const VERIFIED_CACHE_MAX = 10_000;
/** The store channel a revoke is published on (payload: the key's hash), to every instance. */
export const KEYS_CHANNEL = 'api_keys_changed';

export class KeysService {
  /**
   * hash -> live key, so authenticating a request costs no query (issue 23). Kept coherent by a
   * CacheChannel (src/store/cache-channel.ts): a revoke publishes the key's hash in its
   * transaction and answers only once every instance that may serve the key from here has
   * dropped it (acked) or lost the right to serve cached keys. Nothing is served from here
   * while the channel is not live or this instance's license has run out; on reconnect it is emptied.
   */
  private readonly verified = new Map<string, ApiKey>();
  /** Bumped by every notification: a lookup that raced one does not cache what it read. */
  private generation = 0;
  private readonly channel: CacheChannel;

  // Test mode always has a chain of its own (docs/test-mode.md, "Where test mode settles"), so a
  // test key can be made on every deployment.
  constructor(
    private readonly store: Store,
    opts: CacheChannelOptions = {},
  ) {
    this.channel = new CacheChannel(store, KEYS_CHANNEL, (hash) => this.forget(hash), opts);
  }

  /** Starts listening for revocations (the cache stays off until then). */
  async start(): Promise<void> {
    await this.channel.start();
  }

  async stop(): Promise<void> {
    await this.channel.stop();
    this.verified.clear();
  }

  /** Returns the full secret exactly once. */
  async create(accountId: string, input: CreateKeyInput): Promise<CreatedKey> {
    const livemode = (input.mode ?? 'live') === 'live';
    const secret = (livemode ? KEY_PREFIX : TEST_KEY_PREFIX) + randomBase62(SECRET_LENGTH);
    const key = await this.store.write(ApiKeys, (t) =>
      t.insert({
        id: newId('key'),
        accountId,
        label: input.label,
        hash: hashSecret(secret),
        last4: secret.slice(-4),
        createdAt: nowIso(),
        livemode,
      }),
    );
    return { ...listedKey(key), secret };
  }

  async list(accountId: string) {
    const keys = await this.store.table(ApiKeys).findMany({ accountId }, { order: 'desc' });
    return keys.filter((k) => !k.revokedAt).map(listedKey);
  }

  async revoke(accountId: string, id: string): Promise<Result<{ id: string }, 'not_found'>> {
    const now = nowIso();
    let notice: Notice | undefined;
    const updated = await this.store.transaction(async (tx) => {
      const t = tx.table(ApiKeys);
      const k = await t.get(id);
      if (!k || k.accountId !== accountId || k.revokedAt) return undefined;
      notice = await this.channel.publishIn(tx, k.hash);
      return t.update(id, { revokedAt: now });
    });
    if (!updated) return fail('not_found', `No such API key: ${id}`);
    // This instance forgets the key now, not when its own NOTIFY comes back over the listening
    // connection: the revoker's very next request must already fail. The bump keeps a lookup
    // that read the row before the commit from caching it.
    this.forget(updated.hash);
    // Answer once no instance can accept the key from its cache any more (acked, or its
    // license ran out): the caller's next request may reach any of them.
    if (notice) await this.channel.settled(notice);
    this.forget(updated.hash);
    return { ok: true, id };
  }

  private forget(hash: string | undefined): void {
    this.generation++;
    if (hash === undefined) this.verified.clear();
    else this.verified.delete(hash);
  }

  /** True when `id` is a live key of the account. */
  async owns(accountId: string, id: string): Promise<boolean> {
    const k = await this.store.table(ApiKeys).get(id);
    return !!k && k.accountId === accountId && !k.revokedAt;
  }

  /** The key's mode: false for a test key (an unknown key counts as live, the safe side for lists). */
  async livemodeOf(id: string): Promise<boolean> {
    const k = await this.store.table(ApiKeys).get(id);
    return !k || isLive(k);
  }

  /** Resolves a presented secret to its live key, or undefined (unknown, malformed or revoked). */
  async verify(secret: string): Promise<ApiKey | undefined> {
    if (!SECRET_KEY_PATTERN.test(secret)) return undefined;
    const hash = hashSecret(secret);
    const live = this.channel.servable;
    if (live) {
      const cached = this.verified.get(hash);
      if (cached) return cached;
    }
    const generation = this.generation;
    const key = await this.store.table(ApiKeys).findOne({ hash });
    if (!key || key.revokedAt) return undefined;
    // Only what was read with no revocation in between (it could be the revoked key's old row).
    if (live && generation === this.generation && this.channel.servable) {
      if (this.verified.size >= VERIFIED_CACHE_MAX) this.verified.clear();
      this.verified.set(hash, key);
    }
    return key;
  }
}
