/**
 * Reading and changing spend policies (docs/policies.md). Only the person changes one: the door
 * checks the signed-in session and this service checks the re-entered password. Every change is
 * a `policy.updated` event, written in the same transaction as the policy.
 */
import { newId } from '../lib/ids.js';
import { fail, type Result } from '../lib/results.js';
import type { Store, Tx } from '../store/index.js';
import { toFlat, type PolicyEventView, type PolicyView, type SpendPolicy } from './policy-schemas.js';
import { Policies, PolicyEvents, type PolicyEventRow, type PolicyRow } from './tables.js';
import { CircuitBreaker } from './breaker.js';

export interface PolicyOwnerChecks {
  /** True when `password` is the account's own. */
  passwordMatches(accountId: string, password: string): Promise<boolean>;
  /** True when `keyId` is a live key of the account. */
  ownsKey(accountId: string, keyId: string): Promise<boolean>;
  /** The key's mode: a test key's policy change is a test-mode event (docs/test-mode.md). */
  livemodeOfKey?(keyId: string): Promise<boolean>;
  /**
   * Records `policy.updated` as a webhook event (the outbox: listed in the events API, delivered
   * signed to the endpoints of its mode), inside the transaction that changes the policy.
   */
  recordEvent?(tx: Tx, accountId: string, event: PolicyEventView, livemode: boolean): Promise<void>;
}

export type PolicyFailure = 'not_found' | 'wrong_password';

function view(scope: 'account' | 'key', keyId: string | undefined, row: PolicyRow | undefined): PolicyView {
  const policy = row?.policy ?? {};
  return { ...toFlat(policy), scope, key_id: keyId ?? null, policy, updated_at: row?.updatedAt ?? null };
}

export function eventView(e: PolicyEventRow): PolicyEventView {
  return {
    id: e.id,
    type: e.type,
    created: Math.floor(Date.parse(e.createdAt) / 1000),
    data: { scope: e.scope, key_id: e.keyId ?? null, policy: e.policy, previous: e.previous },
  };
}

export class PoliciesService {
  constructor(
    private readonly store: Store,
    private readonly owner: PolicyOwnerChecks,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Seconds the circuit breaker still pauses `keyId`'s money-moving calls, or undefined when it does not. */
  keyPausedFor(keyId: string): Promise<number | undefined> {
    return new CircuitBreaker(this.store, this.now).pausedFor(keyId);
  }

  /** The account's policy, or one of its keys' (another account's key: not found). */
  async get(accountId: string, keyId?: string): Promise<Result<{ policy: PolicyView }, 'not_found'>> {
    if (keyId && !(await this.owner.ownsKey(accountId, keyId))) return fail('not_found', `No such API key: ${keyId}`);
    const row = await this.store.table(Policies).get(keyId ?? accountId);
    return { ok: true, policy: view(keyId ? 'key' : 'account', keyId, row && row.accountId === accountId ? row : undefined) };
  }

  /** Replaces a policy after checking the person's password; records `policy.updated`. */
  async put(accountId: string, keyId: string | undefined, policy: SpendPolicy, password: string): Promise<Result<{ policy: PolicyView; event: PolicyEventView }, PolicyFailure>> {
    if (keyId && !(await this.owner.ownsKey(accountId, keyId))) return fail('not_found', `No such API key: ${keyId}`);
    if (!(await this.owner.passwordMatches(accountId, password))) return fail('wrong_password', 'That password is not right. Re-enter your password to change a policy.', 'password');
    const scope = keyId ? 'key' : 'account';
    // A key's policy only narrows the account's: the breaker belongs to the account.
    const { breaker, ...narrowing } = policy;
    const stored: SpendPolicy = keyId ? narrowing : { ...narrowing, ...(breaker ? { breaker } : {}) };
    const at = this.now().toISOString();
    // The account's policy is a live event; a key's, the key's mode.
    const livemode = keyId && this.owner.livemodeOfKey ? await this.owner.livemodeOfKey(keyId) : true;
    const { row, event } = await this.store.transaction(async (tx) => {
      const t = tx.table(Policies);
      const id = keyId ?? accountId;
      const before = await t.get(id);
      const next: PolicyRow = { id, accountId, scope, ...(keyId ? { keyId } : {}), policy: stored, updatedAt: at };
      const row = before ? (await t.update(id, { policy: stored, updatedAt: at }))! : await t.insert(next);
      const event = await tx.table(PolicyEvents).insert({
        id: newId('evt'),
        accountId,
        type: 'policy.updated',
        scope,
        ...(keyId ? { keyId } : {}),
        policy: stored,
        previous: before?.policy ?? {},
        createdAt: at,
      });
      await this.owner.recordEvent?.(tx, accountId, eventView(event), livemode);
      return { row, event };
    });
    return { ok: true, policy: view(scope, keyId, row), event: eventView(event) };
  }

  /** The account's `policy.updated` events, newest first. */
  async events(accountId: string, limit = 20): Promise<PolicyEventView[]> {
    const rows = await this.store.table(PolicyEvents).findMany({ accountId }, { order: 'desc', limit });
    return rows.map(eventView);
  }
}
