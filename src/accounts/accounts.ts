import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import { defineTable, StoreConflictError, type Store } from '../store/index.js';
import { newId, nowIso } from '../lib/ids.js';
import { fail, type Result } from '../lib/results.js';
import { hashPassword, verifyPassword } from './passwords.js';
import { CORRIDOR_LANGUAGES } from '../lib/languages.js';

export interface Account {
  readonly id: string;
  name: string;
  email?: string;
  passwordHash?: string;
  /** BIP-44 address index of the account's custodial wallet. */
  walletIndex: number;
  localCurrency: string;
  country?: string;
  telegramUserId?: string;
  telegramUsername?: string;
  /**
   * The language the person last wrote to the Telegram bot in (one of the agent's: en, pcm, sw, …),
   * kept with their Telegram link: a command with no words of its own (/history) answers in it,
   * whatever language their Telegram app is set to.
   */
  telegramLanguage?: string;
  phone?: string;
  /** The language the account chose for what others receive from it (claim pages); ISO 639-1. */
  language?: string;
  /** Per-transfer and daily limits in stablecoin base units (decimal strings). */
  limits?: { perTransfer: string; daily: string };
  createdAt: string;
}

export const Accounts = defineTable<Account>({
  name: 'accounts',
  unique: [['email'], ['walletIndex'], ['telegramUserId'], ['telegramUsername'], ['phone']],
  indexes: ['email', 'telegramUserId', 'telegramUsername', 'phone'],
});

export interface Session {
  /** sha256 of the session token; the token itself lives only in the cookie. */
  readonly id: string;
  accountId: string;
  createdAt: string;
  expiresAt: string;
}
export const Sessions = defineTable<Session>({ name: 'sessions', indexes: ['accountId'] });

export const SignupInput = z.object({
  email: z.email().max(254).transform((s) => s.toLowerCase()),
  password: z.string().min(8, 'must be at least 8 characters').max(200),
  name: z.string().trim().min(1).max(80),
  country: z.string().length(2).optional(),
  language: z
    .enum(CORRIDOR_LANGUAGES)
    .optional()
    .describe('The language people you send claim links to see their page in (docs/claims.md); default: by country.'),
});
export type SignupInput = z.infer<typeof SignupInput>;

export const LoginInput = z.object({
  email: z.email().max(254).transform((s) => s.toLowerCase()),
  password: z.string().min(1).max(200),
});
export type LoginInput = z.infer<typeof LoginInput>;

/** The account as its owner sees it (never the password hash). */
export const PublicAccount = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string().nullable(),
  local_currency: z.string(),
  country: z.string().nullable(),
  telegram_username: z.string().nullable(),
  created_at: z.iso.datetime(),
});
export type PublicAccount = z.infer<typeof PublicAccount>;

export function publicAccount(a: Account): PublicAccount {
  return {
    id: a.id,
    name: a.name,
    email: a.email ?? null,
    local_currency: a.localCurrency,
    country: a.country ?? null,
    telegram_username: a.telegramUsername ?? null,
    created_at: a.createdAt,
  };
}

const SESSION_DAYS = 14;
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

export interface AccountsOptions {
  /** Currency for a country code (from the FX table). */
  currencyForCountry?: (country: string) => string | undefined;
}

export class AccountsService {
  constructor(
    private readonly store: Store,
    private readonly opts: AccountsOptions = {},
  ) {}

  get(id: string): Promise<Account | undefined> {
    return this.store.table(Accounts).get(id);
  }

  count(): Promise<number> {
    return this.store.table(Accounts).count();
  }

  /** accountId -> wallet index: set at creation and never changed, so it is safe to remember. */
  private readonly walletIndexes = new Map<string, number>();

  /** The account's custodial wallet index (no query after the first), or undefined for no account. */
  async walletIndexOf(accountId: string): Promise<number | undefined> {
    const known = this.walletIndexes.get(accountId);
    if (known !== undefined) return known;
    const account = await this.get(accountId);
    if (!account) return undefined;
    if (this.walletIndexes.size >= 100_000) this.walletIndexes.clear();
    this.walletIndexes.set(accountId, account.walletIndex);
    return account.walletIndex;
  }

  findBy(where: Partial<Pick<Account, 'email' | 'telegramUserId' | 'telegramUsername' | 'phone'>>) {
    return this.store.table(Accounts).findOne(where);
  }

  /** Creates an account with the next wallet index; unique fields conflict -> `email_taken` etc. */
  async create(
    fields: Omit<Account, 'id' | 'walletIndex' | 'createdAt' | 'localCurrency'> & { localCurrency?: string },
  ): Promise<Result<{ account: Account }, 'email_taken' | 'conflict'>> {
    const localCurrency =
      fields.localCurrency ?? (fields.country ? this.opts.currencyForCountry?.(fields.country) : undefined) ?? 'USD';
    try {
      const account = await this.store.write(Accounts, async (t) => {
        // Inside the transaction nobody else can take the same index.
        const walletIndex = (await t.count()) + 1;
        return t.insert({ ...fields, id: newId('acct'), walletIndex, localCurrency, createdAt: nowIso() });
      });
      return { ok: true, account };
    } catch (e) {
      if (e instanceof StoreConflictError) {
        return e.fields.includes('email')
          ? fail('email_taken', 'An account with this email already exists.', 'email')
          : fail('conflict', `An account with this ${e.fields.join(', ')} already exists.`);
      }
      throw e;
    }
  }

  async signup(input: SignupInput) {
    return this.create({
      email: input.email,
      name: input.name,
      country: input.country?.toUpperCase(),
      ...(input.language ? { language: input.language } : {}),
      passwordHash: await hashPassword(input.password),
    });
  }

  async update(id: string, patch: Partial<Omit<Account, 'id' | 'walletIndex' | 'createdAt'>>) {
    return this.store.write(Accounts, (t) => t.update(id, patch));
  }

  /**
   * Gives `account` the Telegram username `username` (or none). Telegram usernames are unique
   * at any moment, so another account still holding it has a stale claim (its owner changed
   * name since) and loses it, in the same transaction: "@bob" always reaches today's @bob.
   */
  async claimTelegramUsername(account: Account, username: string | undefined): Promise<Account> {
    const updated = await this.store.transaction(async (tx) => {
      const t = tx.table(Accounts);
      if (username) {
        const holder = await t.findOne({ telegramUsername: username });
        if (holder && holder.id !== account.id) await t.update(holder.id, { telegramUsername: undefined });
      }
      return t.update(account.id, { telegramUsername: username });
    });
    return updated ?? account;
  }

  /** Same answer and similar work for unknown email and wrong password. */
  async authenticate(input: LoginInput): Promise<Result<{ account: Account }, 'invalid_credentials'>> {
    const account = await this.findBy({ email: input.email });
    const ok = await verifyPassword(input.password, account?.passwordHash ?? DUMMY_HASH);
    if (!account || !ok) return fail('invalid_credentials', 'Incorrect email or password.');
    return { ok: true, account };
  }

  async createSession(accountId: string): Promise<{ token: string; expiresAt: string }> {
    const token = randomBytes(32).toString('base64url');
    const expiresAt = new Date(Date.now() + SESSION_DAYS * 86_400_000).toISOString();
    await this.store.write(Sessions, (t) => t.insert({ id: sha256(token), accountId, createdAt: nowIso(), expiresAt }));
    return { token, expiresAt };
  }

  async accountForSession(token: string): Promise<Account | undefined> {
    const s = await this.store.table(Sessions).get(sha256(token));
    if (!s || Date.parse(s.expiresAt) <= Date.now()) return undefined;
    return this.get(s.accountId);
  }

  async endSession(token: string): Promise<void> {
    await this.store.write(Sessions, (t) => t.remove(sha256(token)));
  }
}

// A real scrypt hash of a random password, so unknown emails cost the same as wrong passwords.
const DUMMY_HASH = 'scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA$' + Buffer.alloc(32).toString('base64url');
