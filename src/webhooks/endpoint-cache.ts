/**
 * An account's webhook endpoints per mode, remembered so that recording an event (every
 * settle, expiry, cancel) costs no endpoint reads (issue 23). Kept fresh by the store channel:
 * every write of an endpoint publishes the account in its transaction (`changedIn`), every
 * instance drops the account when that commits (PostgreSQL NOTIFY), and the writing instance
 * drops it at once, before its commit and again right after it. While the channel is not live
 * nothing is served from here, and on a reconnect everything is dropped (as for API keys).
 *
 * A miss reads inside the caller's transaction, exactly as before. The memory is filled only
 * after that commits, by a read of its own outside any transaction: a read inside one sees the
 * transaction's snapshot, which can predate a change whose notification was already handled.
 */
import type { Store, Subscription, Tx } from '../store/index.js';
import { readEndpoints, type AccountEndpoints } from './outbox.js';

/** The store channel an endpoint change is published on (payload: the account id). */
export const ENDPOINTS_CHANNEL = 'webhook_endpoints_changed';
/** Bound on remembered (account, mode) pairs; past it the memory starts over. */
const MAX_ENTRIES = 10_000;

const keyOf = (accountId: string, livemode: boolean) => `${livemode ? 'live' : 'test'}:${accountId}`;

export class EndpointCache {
  private readonly entries = new Map<string, AccountEndpoints>();
  /** Bumped by every change seen: a fill that raced one does not keep what it read. */
  private generation = 0;
  private readonly filling = new Set<string>();
  /** Transactions of this process that changed endpoints: what they read is not committed. */
  private readonly changing = new WeakSet<Tx>();
  private subscription: Subscription | undefined;

  constructor(private readonly store: Store) {}

  /** Starts listening for changes (nothing is remembered until then). */
  async start(): Promise<void> {
    this.subscription = await this.store.subscribe(ENDPOINTS_CHANNEL, (accountId) => this.forget(accountId));
  }

  async stop(): Promise<void> {
    await this.subscription?.close();
    this.subscription = undefined;
    this.forget(undefined);
  }

  /** Called by every write of an endpoint, inside its transaction. */
  async changedIn(tx: Tx, accountId: string): Promise<void> {
    this.changing.add(tx);
    this.forget(accountId);
    await tx.publish(ENDPOINTS_CHANNEL, accountId);
    // This instance's next request must not wait for its own NOTIFY to come back.
    tx.afterCommit(() => this.forget(accountId));
  }

  /** The account's endpoints in one mode, as `tx` would read them. */
  async of(tx: Tx, accountId: string, livemode: boolean): Promise<AccountEndpoints> {
    const key = keyOf(accountId, livemode);
    const live = this.subscription?.live === true;
    if (live && !this.changing.has(tx)) {
      const cached = this.entries.get(key);
      if (cached) return cached;
      tx.afterCommit(() => void this.fill(key, accountId, livemode));
    }
    return readEndpoints(tx, accountId, livemode);
  }

  private async fill(key: string, accountId: string, livemode: boolean): Promise<void> {
    if (this.filling.has(key)) return;
    this.filling.add(key);
    const generation = this.generation;
    try {
      const got = await readEndpoints(this.store, accountId, livemode);
      if (this.subscription?.live !== true || generation !== this.generation) return;
      if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
      this.entries.set(key, got);
    } catch {
      // Not remembered: the next event reads again.
    } finally {
      this.filling.delete(key);
    }
  }

  private forget(accountId: string | undefined): void {
    this.generation++;
    if (accountId === undefined) this.entries.clear();
    else for (const livemode of [true, false]) this.entries.delete(keyOf(accountId, livemode));
  }
}
