import pg from 'pg';
import type { Tx } from '../types.js';
import type { TxView } from './pg-tx.js';
import { DeferredWrites } from './deferred-writes.js';

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
  /** A fresh body view on the group's connection; `deferred` is the group's (one transaction). */
  view(client: pg.PoolClient, deferred: DeferredWrites): TxView;
  /** The ordinary path: the transaction alone, with its retries. */
  alone(fn: (tx: Tx) => Promise<unknown>): Promise<unknown>;
  /** For tests and the bench: called with the size of each group that committed. */
  onGroup?: (members: number) => void;
}

type Outcome =
  | { kind: 'committed'; results: Array<{ value: unknown; committed: Array<() => void> }> }
  | { kind: 'member-failed'; index: number }
  | { kind: 'refused' }
  | { kind: 'lost'; error: unknown };

export class CommitGroups {
  private queue: Member[] = [];
  private inFlight = 0;

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
        });
    }
  }

  private alone(m: Member): Promise<void> {
    return this.port.alone(m.fn).then(m.resolve, m.reject);
  }

  private async send(batch: Member[]): Promise<void> {
    let members = batch;
    while (members.length > 1) {
      const out = await this.once(members);
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

  /** One try of the group: BEGIN, each body in turn, COMMIT. */
  private async once(members: Member[]): Promise<Outcome> {
    let client: pg.PoolClient;
    try {
      client = await this.port.connect();
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
      try {
        await client.query('BEGIN ISOLATION LEVEL SERIALIZABLE');
      } catch {
        await rollback();
        return { kind: 'refused' };
      }
      const results: Array<{ value: unknown; committed: Array<() => void> }> = [];
      // A member's held writes (updateLater) go with the next member's first statement, or the COMMIT.
      const deferred = new DeferredWrites();
      for (let i = 0; i < members.length; i++) {
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
          await rollback();
          return { kind: 'member-failed', index: i };
        }
        results.push({ value, committed: view.committed });
      }
      try {
        await client.query(deferred.commitSql());
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
      client.release(broken);
    }
  }
}
