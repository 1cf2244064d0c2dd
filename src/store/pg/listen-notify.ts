/**
 * Store channels on PostgreSQL (`Store.subscribe` / `Tx.publish`): LISTEN/NOTIFY over one
 * dedicated connection per process (a pooled one would lose its LISTEN when handed to a
 * transaction). PostgreSQL delivers a NOTIFY to every listening session when the publishing
 * transaction commits. While the connection is down nothing may be cached on the strength of
 * it (`live` false); on reconnect every listener gets `undefined` (notifications may have been
 * missed meanwhile) and drops what it keeps.
 */
import pg from 'pg';
import type { Subscription } from '../types.js';
import { ident } from './schema.js';

type Listener = (payload: string | undefined) => void;

export class PgNotifier {
  private client: pg.Client | undefined;
  private connecting: Promise<void> | undefined;
  private readonly listeners = new Map<string, Set<Listener>>();
  private closed = false;
  private retryMs = 100;
  live = false;

  constructor(private readonly connectionString: string) {}

  async subscribe(channel: string, fn: Listener): Promise<Subscription> {
    let set = this.listeners.get(channel);
    const fresh = !set;
    if (!set) this.listeners.set(channel, (set = new Set()));
    set.add(fn);
    await this.connect();
    const c = this.client;
    if (fresh && c) await this.listen(c, channel).catch(() => this.lost(c));
    const self = this;
    return {
      get live() {
        return self.live;
      },
      close: async () => void set.delete(fn),
    };
  }

  /**
   * LISTENs one after another on the session: subscribers that start together (the caches at
   * boot) would otherwise queue queries on one busy client, which the driver deprecates.
   */
  private listens: Promise<unknown> = Promise.resolve();
  private listen(c: pg.Client, channel: string): Promise<unknown> {
    const next = this.listens.then(() => c.query(`LISTEN ${ident(channel)}`));
    this.listens = next.catch(() => undefined);
    return next;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.live = false;
    const c = this.client;
    this.client = undefined;
    await c?.end().catch(() => undefined);
  }

  private connect(): Promise<void> {
    if (this.client || this.closed) return Promise.resolve();
    this.connecting ??= (async () => {
      const c = new pg.Client({ connectionString: this.connectionString });
      c.on('error', () => this.lost(c));
      c.on('end', () => this.lost(c));
      c.on('notification', (n) => {
        for (const fn of this.listeners.get(n.channel) ?? []) fn(n.payload);
      });
      try {
        await c.connect();
        for (const channel of this.listeners.keys()) await this.listen(c, channel);
        this.client = c;
        this.live = true;
        this.retryMs = 100;
      } catch {
        await c.end().catch(() => undefined);
        this.scheduleReconnect();
      }
    })().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  private lost(c?: pg.Client): void {
    if (c && c !== this.client) return;
    const was = this.client;
    this.client = undefined;
    this.live = false;
    void was?.end().catch(() => undefined);
    // Whatever was published while we were not listening is unknown: everyone starts over.
    for (const set of this.listeners.values()) for (const fn of set) fn(undefined);
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.closed) return;
    const t = setTimeout(() => {
      void this.connect().then(() => {
        if (this.live) for (const set of this.listeners.values()) for (const fn of set) fn(undefined);
      });
    }, this.retryMs);
    t.unref();
    this.retryMs = Math.min(5_000, this.retryMs * 2);
  }
}
