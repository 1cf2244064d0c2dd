/**
 * An account's webhook endpoints per mode, remembered so that recording an event (every
 * settle, expiry, cancel) costs no endpoint reads (issue 23). Kept fresh by the store channel:
 * every write of an endpoint publishes the account in its transaction (`changedIn`), every
 * instance drops the account when that commits (PostgreSQL NOTIFY), and the writing instance
 * drops it at once, before its commit and again right after it. A write made through
 * `transaction` answers only once every instance that may serve the old endpoints dropped them
 * or lost the right to serve cached ones (CacheChannel, src/store/cache-channel.ts, as for API
 * keys). While the channel is not live or this instance's license ran out nothing is served
 * from here, and on a reconnect everything is dropped.
 *
 * A miss reads inside the caller's transaction, exactly as before. The memory is filled only
 * after that commits, by a read of its own outside any transaction: a read inside one sees the
 * transaction's snapshot, which can predate a change whose notification was already handled.
 */
import { CacheChannel, type CacheChannelOptions, type Notice, type Store, type Tx } from '../store/index.js';
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
  /** Changes published by a transaction, settled by `transaction` once it committed. */
  private readonly notices = new WeakMap<Tx, Notice[]>();
  private readonly channel: CacheChannel;

  constructor(
    private readonly store: Store,
    opts: CacheChannelOptions = {},
  ) {
    this.channel = new CacheChannel(store, ENDPOINTS_CHANNEL, (accountId) => this.forget(accountId), opts);
  }

  /** Starts listening for changes (nothing is remembered until then). */
  async start(): Promise<void> {
    await this.channel.start();
  }

  async stop(): Promise<void> {
    await this.channel.stop();
    this.forget(undefined);
  }

  /**
   * `store.transaction` for a write of endpoints: answers once no instance may still send to
   * the endpoints it changed (every `changedIn` of the committed attempt is settled).
   */
  async transaction<R>(fn: (tx: Tx) => Promise<R>): Promise<R> {
    let last: Tx | undefined;
    const result = await this.store.transaction((tx) => ((last = tx), fn(tx)));
    const published = last ? (this.notices.get(last) ?? []) : [];
    await Promise.all(published.map((n) => this.channel.settled(n)));
    return result;
  }

  /** Called by every write of an endpoint, inside its transaction. */
  async changedIn(tx: Tx, accountId: string): Promise<void> {
    this.changing.add(tx);
    this.forget(accountId);
    const notice = await this.channel.publishIn(tx, accountId);
    const list = this.notices.get(tx);
    if (list) list.push(notice);
    else this.notices.set(tx, [notice]);
    // This instance's next request must not wait for its own NOTIFY to come back.
    tx.afterCommit(() => this.forget(accountId));
  }

  /** The account's endpoints in one mode, as `tx` would read them. */
  async of(tx: Tx, accountId: string, livemode: boolean): Promise<AccountEndpoints> {
    const key = keyOf(accountId, livemode);
    const live = this.channel.servable;
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
      if (!this.channel.servable || generation !== this.generation) return;
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
