/**
 * Signed receipts of approvals (docs/receipts.md). Each pending action a person confirmed (chat,
 * Telegram, the confirmation page of MCP, or an API key's `confirm_action`) has a receipt: a JWS
 * (compact JWT, ES256) signed with the service's key, published at /.well-known/jwks.json, saying
 * who approved, through which door, the exact action (and the hash of its canonical form), when,
 * and the outcome with its transaction hash. Signed once, when first asked for after the action
 * finished, and kept: the same receipt is returned every time.
 */
import { inMode } from '../lib/livemode.js';
import { createHash } from 'node:crypto';
import { SignJWT } from 'jose';
import { defineTable, StoreConflictError, type Store } from '../store/index.js';
import { PendingActions, type PendingActionRow } from '../pending-actions/pending-actions.js';
import { fail, type Result } from '../lib/results.js';
import { RECEIPT_ALG, type ReceiptKey } from './signing-key.js';

export interface ReceiptRow {
  /** The action id. */
  readonly id: string;
  accountId: string;
  jws: string;
  createdAt: string;
}
export const Receipts = defineTable<ReceiptRow>({ name: 'approval_receipts', indexes: ['accountId'] });

/** The exact action, in the form that is hashed: keys sorted, absent values null. */
export interface CanonicalAction {
  amount: string | null;
  currency: string | null;
  recipient: string | null;
  tool: string;
}

export type ReceiptFailure = 'not_found' | 'not_confirmed' | 'not_finished';

type Call = { name: string; input: Record<string, unknown> };
type Outcome = { ok: boolean; reason?: string; result?: Record<string, unknown> };

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : null);

/** tool, amount, currency and recipient of a stored call (the currency the preview resolved when the call named none). */
export function canonicalAction(row: Pick<PendingActionRow, 'call' | 'details'>): CanonicalAction {
  const call = row.call as Call;
  const i = call.input ?? {};
  // A refund, capture or void names no person: the payment it acts on is its subject.
  const recipient = str(i.recipient) ?? (i.biller ? `${String(i.biller)}:${String(i.account_number ?? '')}` : (str(i.market) ?? str(i.payment_id)));
  return { amount: str(i.amount), currency: str(i.currency) ?? str(row.details?.currency), recipient, tool: call.name };
}

/** sha256 (hex) of the canonical JSON: sorted keys, no spaces. */
export function actionHash(a: CanonicalAction): string {
  const sorted = Object.fromEntries(Object.entries(a).sort(([x], [y]) => (x < y ? -1 : 1)));
  return createHash('sha256').update(JSON.stringify(sorted)).digest('hex');
}

export class ReceiptsService {
  constructor(
    private readonly store: Store,
    private readonly key: ReceiptKey,
    private readonly issuer: string,
  ) {}

  /** The JSON Web Key Set verifiers fetch. */
  jwks(): { keys: object[] } {
    return { keys: [this.key.publicJwk] };
  }

  /** The account's receipt for an action it confirmed (another account's: not found). */
  async forAction(accountId: string, actionId: string, livemode = true): Promise<Result<{ receipt: ReceiptRow }, ReceiptFailure>> {
    // A test key never sees a live action's receipt, nor a live key a test one's (docs/test-mode.md).
    const action = await this.store.table(PendingActions).get(actionId);
    if (action && !inMode(action, livemode)) return fail('not_found', `No such action: ${actionId}`);
    const kept = await this.store.table(Receipts).get(actionId);
    if (kept) return kept.accountId === accountId ? { ok: true, receipt: kept } : fail('not_found', `No such action: ${actionId}`);
    const row = await this.store.table(PendingActions).get(actionId);
    if (!row || row.accountId !== accountId) return fail('not_found', `No such action: ${actionId}`);
    if (!row.confirmedVia || !row.confirmedAt) return fail('not_confirmed', 'This action was never confirmed, so it has no receipt.');
    if (row.status !== 'done') return fail('not_finished', 'This action is still being carried out; its receipt follows once it has an outcome.');
    const jws = await this.sign(row);
    try {
      return { ok: true, receipt: await this.store.write(Receipts, (t) => t.insert({ id: row.id, accountId, jws, createdAt: new Date().toISOString() })) };
    } catch (err) {
      // Another request signed it first: the one kept is the receipt.
      if (err instanceof StoreConflictError) return { ok: true, receipt: (await this.store.table(Receipts).get(actionId))! };
      throw err;
    }
  }

  private async sign(row: PendingActionRow): Promise<string> {
    const action = canonicalAction(row);
    const outcome = (row.outcome ?? { ok: false, reason: 'unknown' }) as Outcome;
    const txHash = str(outcome.result?.tx_hash);
    return new SignJWT({
      approval: { account: row.accountId, door: row.confirmedVia, at: row.confirmedAt },
      request: { door: row.channel, at: row.createdAt, key_id: row.keyId ?? null, expires_at: row.expiresAt },
      action: { id: row.id, ...action, hash: actionHash(action), description: row.description },
      outcome: { ok: outcome.ok, status: str(outcome.result?.status), tx_hash: txHash, reason: outcome.ok ? null : (outcome.reason ?? null) },
    })
      .setProtectedHeader({ alg: RECEIPT_ALG, kid: this.key.kid, typ: 'JWT' })
      .setIssuer(this.issuer)
      .setSubject(row.accountId)
      .setJti(row.id)
      .setIssuedAt(Math.floor(Date.parse(row.confirmedAt!) / 1000))
      .sign(this.key.privateKey);
  }
}
