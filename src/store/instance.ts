import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { Store } from './types.js';

/**
 * This process's identity among the instances that share one store, kept alive by a lease
 * (`instance:<id>`) renewed well before it expires. Work that an instance marks as its own
 * (an agent action being executed, a webhook attempt on the wire) is taken over by another
 * instance only once that lease has expired, i.e. the owner stopped or was killed.
 * On lowdb there is one process; a previous run's id is simply never live.
 */
export class InstanceLease {
  readonly id: string;
  private timer?: NodeJS.Timeout;
  /** Further leases this instance keeps while it runs (renewed with its own). */
  private readonly held = new Set<string>();

  constructor(
    private readonly store: Store,
    private readonly opts: { ttlMs?: number; renewMs?: number; id?: string } = {},
  ) {
    this.id = opts.id ?? `${os.hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  }

  get ttlMs(): number {
    return this.opts.ttlMs ?? 30_000;
  }

  static leaseName(id: string): string {
    return `instance:${id}`;
  }

  async start(): Promise<void> {
    await this.store.lease(InstanceLease.leaseName(this.id), this.id, this.ttlMs);
    this.timer = setInterval(() => {
      for (const name of [InstanceLease.leaseName(this.id), ...this.held]) this.store.lease(name, this.id, this.ttlMs).catch(() => undefined);
    }, this.opts.renewMs ?? Math.max(100, Math.floor(this.ttlMs / 3)));
    this.timer.unref();
  }

  /** Whether the instance `owner` is alive (this one always is). */
  async isLive(owner: string | undefined): Promise<boolean> {
    if (owner === undefined) return false;
    if (owner === this.id) return true;
    return (await this.store.leaseOwner(InstanceLease.leaseName(owner))) === owner;
  }

  /**
   * Takes `name` for as long as this instance runs, waiting up to `waitMs` for a holder's lease
   * to lapse, or returns the live instance holding it (a relayer key: one instance per key).
   */
  async hold(name: string, waitMs = 0): Promise<{ ok: true } | { ok: false; holder: string }> {
    const until = Date.now() + waitMs;
    for (;;) {
      if (await this.store.lease(name, this.id, this.ttlMs)) {
        this.held.add(name);
        return { ok: true };
      }
      const holder = (await this.store.leaseOwner(name)) ?? 'another instance';
      if (Date.now() >= until) return { ok: false, holder };
      // A killed instance's lease lapses within its TTL: a quick restart waits for that.
      await new Promise((r) => setTimeout(r, Math.min(1_000, Math.max(50, until - Date.now()))));
    }
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    for (const name of this.held) await this.store.releaseLease(name, this.id).catch(() => undefined);
    await this.store.releaseLease(InstanceLease.leaseName(this.id), this.id).catch(() => undefined);
  }
}
