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
      this.store.lease(InstanceLease.leaseName(this.id), this.id, this.ttlMs).catch(() => undefined);
    }, this.opts.renewMs ?? Math.max(100, Math.floor(this.ttlMs / 3)));
    this.timer.unref();
  }

  /** Whether the instance `owner` is alive (this one always is). */
  async isLive(owner: string | undefined): Promise<boolean> {
    if (owner === undefined) return false;
    if (owner === this.id) return true;
    return (await this.store.leaseOwner(InstanceLease.leaseName(owner))) === owner;
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.store.releaseLease(InstanceLease.leaseName(this.id), this.id).catch(() => undefined);
  }
}
