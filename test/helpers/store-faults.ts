/**
 * A store error at an exact statement, as the PostgreSQL pool's timeout meets it: the statement
 * throws and its whole transaction aborts (nothing of it is written). For the tests of what a
 * database blip in the middle of an action leaves behind (docs/policies.md, docs/api-decisions.md).
 */
import type { Store, Tx } from '../../src/store/index.js';

export const POOL_TIMEOUT = 'timeout exceeded when trying to connect';

/** The next transaction that calls `op` on the table named `table` meets the pool timeout there. */
export function failNextWrite(store: Store, table: string, op: 'insert' | 'update'): void {
  const real = store.transaction.bind(store);
  let armed = true;
  const fail = () => {
    armed = false;
    store.transaction = real;
    throw new Error(POOL_TIMEOUT);
  };
  store.transaction = (async (fn: (tx: Tx) => Promise<unknown>, opts?: never) =>
    real(async (tx: Tx) => {
      const failing = new Proxy(tx, {
        get(target, prop, receiver) {
          if (prop !== 'table') return Reflect.get(target, prop, receiver);
          return (def: { name: string }) => {
            const t = target.table(def as never);
            if (def.name !== table || !armed) return t;
            return new Proxy(t, { get: (tt, p, r) => (p === op ? fail : Reflect.get(tt, p, r)) });
          };
        },
      });
      return fn(failing);
    }, opts)) as typeof store.transaction;
}
