/**
 * Webhook signing secrets (`whsec_...`), one per account and mode.
 *
 * A signing secret must be recoverable to sign, so it cannot be hashed like an API key.
 * It is stored encrypted (AES-256-GCM, the account id as associated data) under a key kept
 * in DATA_DIR/secrets.json (mode 0600) next to the other server-only keys, so a copy of the
 * database alone (backup, export, a future PostgreSQL host) reveals no secret. The plaintext
 * is returned once, by the call that creates or rotates it, and is never logged.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { defineTable, type Store, type Tx } from '../store/index.js';
import { nowIso } from '../lib/ids.js';
import { getOrCreateSecret } from '../chain/wallet-secrets.js';

export const SECRET_PREFIX = 'whsec_';
/** Random bytes of a new secret: base64 after the prefix, as Standard Webhooks reads it (192 bits). */
const SECRET_BYTES = 24;

interface StoredSecret {
  /** `v1.<base64url iv|tag|ciphertext>` */
  sealed: string;
  createdAt: string;
  /** False while no API response has shown it (created lazily at the first event). */
  revealed: boolean;
}

export interface WebhookSecretRow {
  /**
   * One signing secret per account and mode (h16tour): the account id for live (as always, so an
   * existing merchant's secret is untouched), `<account>:test` for test. Test events are signed
   * with the test secret only, so a sandbox verifies them without the live secret, and a test
   * event can never carry a signature a live receiver trusts.
   */
  readonly id: string;
  current: StoredSecret;
  /** The secret replaced by the last rotation, still signing until `expiresAt`. */
  previous?: StoredSecret & { expiresAt: string };
  updatedAt: string;
}

export const WebhookSecrets = defineTable<WebhookSecretRow>({ name: 'webhook_secrets' });

/** The row (and the sealing's associated data) of a mode's secret: as defaultEndpointId. */
export const secretRowId = (accountId: string, livemode = true): string => (livemode ? accountId : `${accountId}:test`);

/** AES-256-GCM with a server key; the account id binds each ciphertext to its row. */
export class SecretBox {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('webhook secret key must be 32 bytes');
  }

  seal(plain: string, aad: string): string {
    const iv = randomBytes(12);
    const c = createCipheriv('aes-256-gcm', this.key, iv);
    c.setAAD(Buffer.from(aad));
    const ct = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
    return `v1.${Buffer.concat([iv, c.getAuthTag(), ct]).toString('base64url')}`;
  }

  open(sealed: string, aad: string): string {
    if (!sealed.startsWith('v1.')) throw new Error('unknown sealed-secret format');
    const raw = Buffer.from(sealed.slice(3), 'base64url');
    const d = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
    d.setAAD(Buffer.from(aad));
    d.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([d.update(raw.subarray(28)), d.final()]).toString('utf8');
  }
}

/** The encryption key from DATA_DIR/secrets.json, generated there on first use. */
export async function loadSecretBox(dataDir: string): Promise<SecretBox> {
  const hex = await getOrCreateSecret(dataDir, 'webhookSecretKey', () => randomBytes(32).toString('hex'));
  if (typeof hex !== 'string' || !/^[0-9a-f]{64}$/.test(hex)) {
    throw new Error('webhookSecretKey in secrets.json must be 64 hex characters');
  }
  return new SecretBox(Buffer.from(hex, 'hex'));
}

export const newSigningSecret = () => SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64');

export interface SecretStatus {
  configured: boolean;
  createdAt?: string;
  previousExpiresAt?: string;
}

export class WebhookSecretsService {
  constructor(
    private readonly store: Store,
    private readonly box: SecretBox,
    private readonly overlapMs: number,
  ) {}

  /** `rowId` is also the associated data: a test ciphertext does not open as the live secret. */
  private fresh(rowId: string, revealed: boolean): { stored: StoredSecret; plain: string } {
    const plain = newSigningSecret();
    return { plain, stored: { sealed: this.box.seal(plain, rowId), createdAt: nowIso(), revealed } };
  }

  /**
   * Makes sure the account has a signing secret (inside the caller's transaction). With
   * `reveal`, returns the plaintext if no response has shown it yet (then it counts as shown).
   */
  async ensureIn(tx: Tx, accountId: string, opts: { reveal?: boolean; livemode?: boolean } = {}): Promise<string | undefined> {
    const t = tx.table(WebhookSecrets);
    const id = secretRowId(accountId, opts.livemode);
    const row = await t.get(id);
    const reveal = opts.reveal ?? false;
    if (!row) {
      const { plain, stored } = this.fresh(id, reveal);
      await t.insert({ id, current: stored, updatedAt: nowIso() });
      return reveal ? plain : undefined;
    }
    if (reveal && !row.current.revealed) {
      await t.update(id, { current: { ...row.current, revealed: true }, updatedAt: nowIso() });
      return this.box.open(row.current.sealed, id);
    }
    return undefined;
  }

  /**
   * Creates or rotates the secret and returns it (the only time it is shown). A secret
   * that was already shown keeps signing for the overlap; one never shown is dropped at
   * once, since no receiver can hold it. A rotation during an overlap ends the older one.
   */
  async rotate(accountId: string, now = Date.now(), livemode = true): Promise<{ secret: string; previousExpiresAt?: string }> {
    return this.store.transaction(async (tx) => {
      const t = tx.table(WebhookSecrets);
      const id = secretRowId(accountId, livemode);
      const row = await t.get(id);
      const { plain, stored } = this.fresh(id, true);
      if (!row) {
        await t.insert({ id, current: stored, updatedAt: nowIso() });
        return { secret: plain };
      }
      const keepOld = row.current.revealed && this.overlapMs > 0;
      const previous = keepOld ? { ...row.current, expiresAt: new Date(now + this.overlapMs).toISOString() } : undefined;
      await t.update(id, { current: stored, previous, updatedAt: nowIso() });
      return previous ? { secret: plain, previousExpiresAt: previous.expiresAt } : { secret: plain };
    });
  }

  /**
   * The mode's secrets to sign with now: the current one, then the previous one while its overlap
   * lasts. A test event queued before test secrets existed (signed with the account's one secret
   * then) finds none: its mode's secret is made here, not yet shown, as at a first event.
   */
  async signingSecrets(accountId: string, now = Date.now(), livemode = true): Promise<string[]> {
    const id = secretRowId(accountId, livemode);
    let row = await this.store.table(WebhookSecrets).get(id);
    if (!row && !livemode) {
      await this.store.transaction((tx) => this.ensureIn(tx, accountId, { livemode }));
      row = await this.store.table(WebhookSecrets).get(id);
    }
    if (!row) return [];
    const out = [this.box.open(row.current.sealed, id)];
    if (row.previous && Date.parse(row.previous.expiresAt) > now) out.push(this.box.open(row.previous.sealed, id));
    return out;
  }

  async status(accountId: string, now = Date.now(), livemode = true): Promise<SecretStatus> {
    const row = await this.store.table(WebhookSecrets).get(secretRowId(accountId, livemode));
    if (!row) return { configured: false };
    const prev = row.previous && Date.parse(row.previous.expiresAt) > now ? row.previous.expiresAt : undefined;
    return { configured: true, createdAt: row.current.createdAt, ...(prev ? { previousExpiresAt: prev } : {}) };
  }
}
