/**
 * A store channel that keeps a per-instance cache coherent across instances, provably (issue 23):
 * a change answers only once every instance that may still serve the old entry has dropped it.
 *
 * Why an echo is not enough: PostgreSQL hands a NOTIFY to every listening session at commit, but
 * a starved instance can serve the caller's next request before its event loop handles it.
 *
 * The rule (docs/store.md, "Caches kept coherent across instances"):
 * - An instance serves from its cache only under a *license*: it publishes a ping on the channel
 *   every licenseMs/4; when its own ping comes back, every notice committed before that ping has
 *   been handled (PostgreSQL delivers a session's notifications in commit order), so it may serve
 *   cached entries until the ping's send time + licenseMs. No query per request.
 * - Every instance records when it last saw each peer's ping: a peer's license ends before that
 *   moment + licenseMs.
 * - A change is published as `c <notice> <payload>`; every other instance drops the entry and
 *   publishes `a <itself> <notice>`. The writer waits for its own notice to come back (it has
 *   then seen every ping committed before the change), then for an ack from every peer whose
 *   license may still run, or for that license to end: bounded by licenseMs (+10%) after the
 *   commit, past which it logs the peers that did not ack (they serve nothing cached by then).
 * - A peer the writer cannot know of (pinged while the writer's channel was down, or before the
 *   writer started) is covered by waiting out licenseMs after a start or reconnect.
 * On lowdb (one process, `Subscription.solo`) none of this runs: the cache is served while live.
 */
import { randomBytes } from 'node:crypto';
import type { Store, Subscription, Tx } from './types.js';

export interface CacheChannelOptions {
  /** How long one confirmed ping lets an instance serve from its cache; also the longest a change waits. */
  licenseMs?: number;
  /** This instance's name on the channel (default: random). */
  id?: string;
  /** Told when a change answered without an ack from these peers (they had stopped serving by then). */
  onUnacked?: (peers: string[], notice: string) => void;
}

/** A change published with `publishIn`, to be awaited with `settled` once its transaction committed. */
export interface Notice {
  readonly id: string;
  echoed: boolean;
  readonly acks: Set<string>;
  wake?: () => void;
}

const now = () => performance.now();
/** Clock-rate and scheduling slack on a peer's license (measured on another process's clock). */
const SLACK = 1.1;

export class CacheChannel {
  readonly id: string;
  private sub: Subscription | undefined;
  private timer: NodeJS.Timeout | undefined;
  private licenseUntil = 0;
  /** Before this, peers may hold licenses this instance never saw pinged (start, reconnect). */
  private blindUntil = 0;
  private seq = 0;
  /** Own pings on the wire: sequence -> send time. */
  private readonly outstanding = new Map<number, number>();
  /** Peer -> when its last ping was seen here. */
  private readonly seen = new Map<string, number>();
  private readonly notices = new Map<string, Notice>();

  constructor(
    private readonly store: Store,
    readonly channel: string,
    private readonly onChange: (payload: string | undefined) => void,
    private readonly opts: CacheChannelOptions = {},
  ) {
    this.id = (opts.id ?? randomBytes(6).toString('hex')).replaceAll(' ', '_');
  }

  get licenseMs(): number {
    return this.opts.licenseMs ?? 2_000;
  }

  async start(): Promise<void> {
    this.blindUntil = now() + this.licenseMs * SLACK;
    this.sub = await this.store.subscribe(this.channel, (m) => this.receive(m));
    if (this.sub.solo === true) return;
    this.timer = setInterval(() => void this.ping(), Math.max(10, Math.floor(this.licenseMs / 4)));
    this.timer.unref();
    void this.ping();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.sub?.close();
    this.sub = undefined;
    this.licenseUntil = 0;
    for (const n of this.notices.values()) n.wake?.();
  }

  /** Whether cached entries may be served now (no query: a channel flag and a clock read). */
  get servable(): boolean {
    const sub = this.sub;
    if (sub?.live !== true) return false;
    return sub.solo === true || now() < this.licenseUntil;
  }

  /** Publishes a change of `payload` in `tx` (a key's hash, an account id). */
  async publishIn(tx: Tx, payload: string): Promise<Notice> {
    const notice: Notice = { id: `${this.id}.${++this.seq}`, echoed: false, acks: new Set() };
    this.notices.set(notice.id, notice);
    // A rolled-back transaction never settles its notice: forget it once it could not matter.
    setTimeout(() => this.notices.delete(notice.id), this.licenseMs * 4).unref();
    // The bare payload too, for instances of the previous version during a rolling deploy.
    if (this.sub?.solo !== true) await tx.publish(this.channel, payload);
    await tx.publish(this.channel, `c ${notice.id} ${payload}`);
    return notice;
  }

  /**
   * Resolves once no instance may serve what the notice's committed change replaced. Call it
   * right after the transaction that published it committed.
   */
  async settled(notice: Notice): Promise<void> {
    try {
      if (this.sub === undefined || this.sub.solo === true) return;
      // Any ping sent before now committed before the change... or after it, and then its
      // sender handled the change first: past this bound no license predates the change.
      const bound = now() + this.licenseMs * SLACK;
      await this.until(notice, bound, () => notice.echoed);
      if (!notice.echoed) return;
      const peers = [...this.seen].filter(([, at]) => at + this.licenseMs * SLACK > now());
      const last = Math.max(this.blindUntil, ...peers.map(([, at]) => at + this.licenseMs * SLACK));
      const done = () => now() >= this.blindUntil && peers.every(([p]) => notice.acks.has(p));
      await this.until(notice, Math.min(bound, last), done);
      const missing = peers.map(([p]) => p).filter((p) => !notice.acks.has(p));
      if (missing.length > 0) this.opts.onUnacked?.(missing, notice.id);
    } finally {
      this.notices.delete(notice.id);
    }
  }

  /** Waits until `ok()` or the `deadline`, woken by every message about the notice. */
  private async until(notice: Notice, deadline: number, ok: () => boolean): Promise<void> {
    while (!ok() && now() < deadline && this.sub !== undefined) {
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.max(1, deadline - now()));
        notice.wake = () => (clearTimeout(t), resolve());
      });
      notice.wake = undefined;
    }
  }

  private receive(message: string | undefined): void {
    if (message === undefined) {
      // Notices (and peers' pings) may have been missed: drop everything, serve nothing until a
      // fresh ping returns, and wait out licenses this instance could not see being granted.
      this.licenseUntil = 0;
      this.outstanding.clear();
      this.blindUntil = now() + this.licenseMs * SLACK;
      this.onChange(undefined);
      if (this.sub?.live === true) void this.ping();
      return;
    }
    const [kind, who, ...rest] = message.split(' ');
    if (kind === 'c' && who !== undefined && rest.length > 0) {
      this.onChange(rest.join(' '));
      const mine = this.notices.get(who);
      if (mine) {
        mine.echoed = true;
        mine.wake?.();
      } else if (this.sub?.solo !== true) {
        this.send(`a ${this.id} ${who}`);
      }
    } else if (kind === 'a' && who !== undefined && rest.length === 1) {
      const n = this.notices.get(rest[0]!);
      if (n) {
        n.acks.add(who);
        n.wake?.();
      }
    } else if (kind === 'p' && who !== undefined && rest.length === 1) {
      if (who !== this.id) this.seen.set(who, now());
      else this.pingBack(Number(rest[0]));
    } else {
      // A bare payload from an older instance: still a change.
      this.onChange(message);
    }
  }

  private pingBack(seq: number): void {
    const sentAt = this.outstanding.get(seq);
    if (sentAt === undefined) return;
    for (const s of this.outstanding.keys()) if (s <= seq) this.outstanding.delete(s);
    this.licenseUntil = Math.max(this.licenseUntil, sentAt + this.licenseMs);
  }

  private ping(): void {
    if (this.sub?.live !== true) return;
    const seq = ++this.seq;
    this.outstanding.set(seq, now());
    // Pings lost on the way must not pile up.
    for (const [s, at] of this.outstanding) if (at + this.licenseMs < now()) this.outstanding.delete(s);
    this.send(`p ${this.id} ${seq}`);
  }

  private send(message: string): void {
    this.store.transaction((tx) => tx.publish(this.channel, message), { recordsNoAction: true }).catch(() => undefined);
  }
}
