import type { Hex } from 'viem';
import type { TestService } from '../helpers/service.js';

/**
 * The hash records of relayed moves (fifteenth round, h15hash), counted at the store on either
 * store (lowdb, PostgreSQL): a store transaction whose every write stores a transaction hash on a
 * payment or an attempt and nothing else (no status, no attempt state, no other table). That is
 * `recordTxHash` (src/settlement/checkout-claim.ts) or an attempt's `sent`, written in a commit
 * of its own while the receipt is awaited; the relay journal's commit (it writes the journal too)
 * and the settled write (a status change) are not counted.
 */
export function hashRecordCounter(svc: TestService) {
  type Run = (fn: (tx: unknown) => Promise<unknown>, opts?: unknown) => Promise<unknown>;
  const store = svc.deps.store as unknown as { transaction: Run };
  const original = store.transaction;
  let counting = false;
  const records: Array<Array<{ table: string; patch: Record<string, unknown> }>> = [];
  store.transaction = function (this: unknown, fn, opts) {
    if (!counting) return original.call(this, fn, opts);
    const writes: Array<{ table: string; patch: Record<string, unknown> }> = [];
    return original.call(
      this,
      async (tx) => {
        const r = await fn(watchTx(tx, writes));
        const only = writes.length > 0 && writes.every((w) => ['payments', 'settlement_attempts'].includes(w.table) && 'txHash' in w.patch && !('status' in w.patch) && !('state' in w.patch));
        if (only) records.push([...writes]);
        return r;
      },
      opts,
    );
  };
  return {
    start: () => void ((counting = true), (records.length = 0)),
    stop: () => ((counting = false), [...records]),
    restore: () => void (store.transaction = original),
  };
}

const WRITES = new Set(['update', 'updateLater', 'updateWithBefore', 'insert', 'insertLater', 'insertOrGet', 'put', 'putLater', 'delete', 'remove', 'upsert']);

function bound(target: object, prop: string | symbol): unknown {
  const v = Reflect.get(target, prop);
  return typeof v === 'function' ? v.bind(target) : v;
}

function watchTx(tx: unknown, writes: Array<{ table: string; patch: Record<string, unknown> }>): unknown {
  return new Proxy(tx as object, {
    get(target, prop) {
      if (prop !== 'table') return bound(target, prop);
      return (def: { name: string }) => {
        const table = (target as { table: (d: unknown) => object }).table(def);
        return new Proxy(table, {
          get(t, p) {
            const v = bound(t, p);
            if (typeof v !== 'function' || typeof p !== 'string' || !WRITES.has(p)) return v;
            return (...args: unknown[]) => {
              const patch = p.startsWith('update') ? (args[1] as Record<string, unknown>) : { [p]: true };
              writes.push({ table: def.name, patch });
              return (v as (...a: unknown[]) => unknown)(...args);
            };
          },
        });
      };
    },
  });
}

/**
 * Holds the service's chain where a test needs it held, made certain rather than timed:
 * - the first relayer transaction leaves only once `handed` settles have reached the chain
 *   port, so the others meet a send in flight and leave together through the batch relay
 *   (as test/agent/concurrent-turns.ts does for agent turns);
 * - with `receipts`, every receipt wait answers only once `release()` is called.
 */
export function holdChain(svc: TestService, opts: { handed: number; receipts?: boolean }) {
  const chain = svc.deps.chain as unknown as {
    submitTransfers: (...a: unknown[]) => Promise<unknown>;
    waitForReceipt: (hash: Hex, timeoutMs?: number) => Promise<unknown>;
  };
  const client = svc.deps.chain.publicClient as unknown as { sendRawTransaction: (a: unknown) => Promise<unknown> };
  const [submit, send, wait] = [chain.submitTransfers, client.sendRawTransaction, chain.waitForReceipt];
  let handed = 0;
  let enough!: () => void;
  const allHanded = new Promise<void>((r) => (enough = r));
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let first = true;
  const sent: Hex[] = [];
  chain.submitTransfers = function (this: unknown, ...a: unknown[]) {
    // Two more steps (verification is done; the simulation and the group's queue) before the
    // member waits in the group: a few ticks after the last is handed, the first may leave.
    if (++handed >= opts.handed) setTimeout(enough, 150);
    return submit.apply(this, a);
  };
  client.sendRawTransaction = async function (this: unknown, a: unknown) {
    if (first) {
      first = false;
      await allHanded;
    }
    const h = (await send.call(this, a)) as Hex;
    sent.push(h);
    return h;
  };
  if (opts.receipts) {
    chain.waitForReceipt = async function (this: unknown, hash: Hex, timeoutMs?: number) {
      await released;
      return wait.call(this, hash, timeoutMs);
    };
  }
  return {
    sent,
    release,
    restore: () => void ((chain.submitTransfers = submit), (client.sendRawTransaction = send), (chain.waitForReceipt = wait)),
  };
}
