import type { LowdbStore, Store } from '../../src/store/index.js';

/**
 * One process sharing a store as on PostgreSQL: a channel's notifications reach it some time
 * after the publishing transaction commits (over its own listening connection), and it is not
 * alone on the store (`solo` unset). While `conn.held`, what reaches it waits until
 * `conn.deliver()` (a starved event loop); otherwise it arrives on the next turn of the loop.
 */
export function delayedProcess(inner: LowdbStore) {
  const queue: Array<() => void> = [];
  const conn = { held: true, deliver: () => queue.splice(0).forEach((f) => f()) };
  const store = new Proxy(inner, {
    get(target, prop, receiver) {
      if (prop === 'subscribe') {
        return async (channel: string, fn: (payload: string | undefined) => void) => {
          const sub = await target.subscribe(channel, (payload) => {
            if (conn.held) queue.push(() => fn(payload));
            else setImmediate(() => fn(payload));
          });
          return { live: true, close: () => sub.close() };
        };
      }
      const v = Reflect.get(target, prop, receiver);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  }) as Store;
  return { store, conn };
}

/** Several processes on one store; the first one's channel held until `deliver()`. */
export function delayedChannels(inner: LowdbStore) {
  const first = delayedProcess(inner);
  return { ...first, deliver: first.conn.deliver, make: () => delayedProcess(inner) };
}
