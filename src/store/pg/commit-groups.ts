import pg from 'pg';
import type { Tx } from '../types.js';
import type { TxView } from './pg-tx.js';
import type { Touch } from './pg-table.js';
import { DeferredWrites } from './deferred-writes.js';
import { preparedSession } from './sql-prepared.js';
import { Footprints } from './member-footprints.js';

/**
 * Group commit for short transactions on PostgreSQL (`TransactionOptions.shareCommit`: the
 * settle's claim, its hash record, the relay journal entry and its `settled`). Alone, a
 * transaction runs as any other (PgStore.transaction). Those that arrive while one is on its way
 * wait and then run together, one after another, inside ONE `BEGIN ISOLATION LEVEL SERIALIZABLE …
 * COMMIT` on one connection: one commit (one WAL flush) and one pool checkout for the lot, and
 * no BEGIN/COMMIT round trip per member (on this machine each statement's socket write to the
 * server is the service's largest cost; docs/performance.md, sixth round).
 *
 * One lane (MAX_IN_FLIGHT 1, reruns inside it): these transactions touch the same few index
 * pages (payments and attempts by id), where PostgreSQL's serializable checks lock whole pages,
 * so any two of them that overlap in time abort one another as often as not; with two lanes,
 * 20 concurrent settles met 15-17 serialization failures, each undoing a whole group. In one
 * lane they never overlap.
 *
 * Side by side first (issue 23, eighth round): the members' bodies run at once on the group's
 * connection, and the statements they issue in one turn of the event loop go in ONE round trip
 * (deferred-writes.ts), so a group of 32 claims costs one round trip, not 32 in a row. Each
 * member's statements name their rows before they are issued (pg-table.ts `Touch`: a row by id,
 * each unique key an insert claims, a scan of a table); while no member reads or writes what
 * another member writes (member-footprints.ts; shared reads are fine since the seventeenth round),
 * running them interleaved gives the same result as any serial order of the members. A member
 * that reads or writes a row another member wrote, writes a row (or a table) another member
 * read (or scanned), or issues a statement that frees a unique key (a remove, an update of a
 * unique field), or any failure at all: the group is rolled back and runs again in series, as
 * below (the serial run finds which member failed).
 * The serial run and the single lane were the whole path before; the lane is still one and
 * the commit one per group. On this machine each round
 * trip of the lane waited for the service's event loop, busy with the other settles' requests:
 * in a burst the lane was the bottleneck, its connection "idle in transaction" (ClientRead) in
 * 285 of 391 session states sampled from pg_stat_activity (docs/performance.md, eighth round).
 *
 * Serial order: each member sees the writes of the members before it, as if they had committed
 * one after the other; the database checks the whole like any serializable transaction.
 *
 * No savepoint per member (it would cost the round trip the group saves): when a member fails
 * (its body throws, or one of its statements fails), the group's transaction is rolled back,
 * that member runs again ALONE through the ordinary path (its retries, its own error), and the
 * others run again as a group without it. Its error is never taken from inside the group: it
 * may have read writes of members that then did not commit. A COMMIT the server refuses (e.g. a
 * serialization failure) committed nothing: every member runs again alone, with the ordinary
 * retries. A COMMIT lost with the connection may have committed: every member fails with that
 * error, as a transaction alone would. afterCommit callbacks run only after the real COMMIT, in
 * member order and each member's registration order, before that member's promise resolves. As
 * for a retried transaction, bodies must do nothing outside the store (they may run twice).
 * LISTEN/NOTIFY: notices go out at the group's commit; PostgreSQL sends identical (channel,
 * payload) pairs of one transaction once.
 */
const MAX_IN_FLIGHT = 1;
/** Bounded so a group's subtransaction ids and its hold on one connection stay small. */
const MAX_MEMBERS = 32;

interface Member {
  fn: (tx: Tx) => Promise<unknown>;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
}

export interface GroupPort {
  connect(): Promise<pg.PoolClient>;
  /** A fresh body view on the group's connection; `deferred` is the group's (one transaction); `touch` told each statement's rows. */
  view(client: pg.PoolClient, deferred: DeferredWrites, touch?: Touch): TxView;
  /** The ordinary path: the transaction alone, with its retries. */
  alone(fn: (tx: Tx) => Promise<unknown>): Promise<unknown>;
  /** For tests and the bench: called with the size of each group that committed. */
  onGroup?: (members: number) => void;
}

type Outcome =
  | { kind: 'committed'; results: Array<{ value: unknown; committed: Array<() => void> }> }
  /** Side by side did not hold (rows shared, a scan, or any failure): rolled back, run in series. */
  | { kind: 'serial' }
  | { kind: 'member-failed'; index: number }
  | { kind: 'refused' }
  | { kind: 'lost'; error: unknown };

export class CommitGroups {
  private queue: Member[] = [];
  private inFlight = 0;
  /**
   * The lane's connection, handed from one group to the next while groups are waiting instead of
   * going back to the pool and out again (about 40 checkouts per 100 settles in a burst; issue 23,
   * thirteenth round). Released as soon as the lane has nothing queued.
   */
  private kept: pg.PoolClient | undefined;

  constructor(private readonly port: GroupPort) {}

  run<R>(fn: (tx: Tx) => Promise<R>): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ fn, resolve: resolve as (v: unknown) => void, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.inFlight < MAX_IN_FLIGHT && this.queue.length > 0) {
      const batch = this.queue.splice(0, MAX_MEMBERS);
      this.inFlight++;
      void this.send(batch)
        // Never expected (send turns every failure into outcomes), but no member may hang on a bug.
        .catch((e: unknown) => batch.forEach((m) => m.reject(e)))
        .finally(() => {
          this.inFlight--;
          this.pump();
          if (this.inFlight === 0) this.dropKept();
        });
    }
  }

  private connect(): Promise<pg.PoolClient> {
    const c = this.kept;
    this.kept = undefined;
    return c ? Promise.resolve(c) : this.port.connect();
  }

  /** After a try: kept for the next group when one is waiting (never a broken one), else back to the pool. */
  private giveBack(client: pg.PoolClient, broken: boolean): void {
    if (broken || this.queue.length === 0 || this.kept) client.release(broken);
    else this.kept = client;
  }

  private dropKept(): void {
    const c = this.kept;
    this.kept = undefined;
    c?.release();
  }

  private alone(m: Member): Promise<void> {
    return this.port.alone(m.fn).then(m.resolve, m.reject);
  }

  private async send(batch: Member[]): Promise<void> {
    let members = batch;
    let together = true;
    while (members.length > 1) {
      const out = together ? await this.once(members, true) : await this.once(members, false);
      switch (out.kind) {
        case 'committed':
          this.port.onGroup?.(members.length);
          members.forEach((m, i) => {
            const r = out.results[i]!;
            try {
              for (const cb of r.committed) cb();
            } catch (e) {
              return m.reject(e);
            }
            m.resolve(r.value);
          });
          return;
        case 'serial':
          together = false;
          break;
        case 'member-failed': {
          const failed = members[out.index]!;
          await this.alone(failed);
          members = members.filter((m) => m !== failed);
          break;
        }
        case 'refused':
          for (const m of members) await this.alone(m);
          return;
        case 'lost':
          members.forEach((m) => m.reject(out.error));
          return;
      }
    }
    if (members.length === 1) await this.alone(members[0]!);
  }

  /** One try of the group: BEGIN, the bodies side by side (`together`) or each in turn, COMMIT. */
  private async once(members: Member[], together: boolean): Promise<Outcome> {
    let client: pg.PoolClient;
    try {
      client = await this.connect();
    } catch {
      // Nothing ran: each member alone meets (or gets past) the same failure itself.
      return { kind: 'refused' };
    }
    let broken = false;
    const rollback = async () => {
      try {
        await client.query('ROLLBACK');
      } catch {
        broken = true;
      }
    };
    try {
      const results: Array<{ value: unknown; committed: Array<() => void> }> = [];
      // A member's held writes (updateLater) go with the next member's first statement, or the
      // COMMIT; so does the BEGIN (no round trip of its own).
      const deferred = new DeferredWrites(together ? 'turn' : 'tick', preparedSession(client));
      deferred.begin('BEGIN ISOLATION LEVEL SERIALIZABLE');
      if (together) {
        const ran = await this.sideBySide(client, deferred, members);
        if (!ran) {
          // Nothing sent yet (all held, the BEGIN too): nothing to roll back.
          if (deferred.started) await rollback();
          return { kind: 'serial' };
        }
        results.push(...ran);
      }
      for (let i = 0; !together && i < members.length; i++) {
        const view = this.port.view(client, deferred);
        let value: unknown;
        let threw = false;
        try {
          value = await members[i]!.fn(view.tx);
        } catch {
          threw = true;
        }
        view.finish();
        if (threw || view.failure() !== undefined) {
          if (deferred.started) await rollback();
          return { kind: 'member-failed', index: i };
        }
        results.push({ value, committed: view.committed });
      }
      try {
        await deferred.commit((text) => client.query(text));
      } catch (e) {
        // The server answered: it rolled the transaction back (or, a held write having failed,
        // left it failed: ROLLBACK ends it). No answer: it may have committed.
        if (e instanceof pg.DatabaseError) {
          await rollback();
          return { kind: 'refused' };
        }
        broken = true;
        return { kind: 'lost', error: e };
      }
      return { kind: 'committed', results };
    } finally {
      this.giveBack(client, broken);
    }
  }

  /**
   * Every body at once on the group's transaction; undefined when side by side did not hold: a
   * member read or wrote what another wrote (member-footprints.ts), a statement freed a unique
   * key, or anything failed.
   */
  private async sideBySide(client: pg.PoolClient, deferred: DeferredWrites, members: Member[]): Promise<Array<{ value: unknown; committed: Array<() => void> }> | undefined> {
    const footprints = new Footprints();
    let shared = false;
    const views = members.map((_, i) =>
      this.port.view(client, deferred, (what) => {
        if (footprints.admit(i, what)) return;
        shared = true;
        throw new NotSideBySide();
      }),
    );
    const outcomes = await Promise.allSettled(members.map((m, i) => m.fn(views[i]!.tx)));
    for (const v of views) v.finish();
    if (shared || outcomes.some((o) => o.status === 'rejected') || views.some((v) => v.failure() !== undefined)) return undefined;
    return outcomes.map((o, i) => ({ value: (o as PromiseFulfilledResult<unknown>).value, committed: views[i]!.committed }));
  }
}

/** Thrown into a member's body to stop a side-by-side run that cannot hold. */
class NotSideBySide extends Error {}
