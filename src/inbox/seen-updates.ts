/**
 * Updates a chat platform delivered that were already taken in (today Telegram's), kept in the
 * store so a redelivered update (webhook retry, polling restart) is ignored even across
 * restarts. Domain side of the Telegram bridge's dedupe middleware: the door asks, this module
 * owns the table.
 */
import { defineTable, type Store } from '../store/index.js';

/** An update already taken in, keyed "<bot id>:<update_id>" (update ids are per bot). */
export interface SeenUpdate {
  readonly id: string;
  receivedAt: string;
}

export const TelegramUpdates = defineTable<SeenUpdate>({ name: 'telegram_updates' });

/**
 * How many update ids are remembered. Telegram redelivers an update for at most a day and
 * only while it is unacknowledged, so the recent few thousand are plenty.
 */
export const SEEN_UPDATES_KEPT = 5_000;

/**
 * Records the update id before anything acts on it: each update is taken in at most once.
 * Once `keep` is exceeded by a tenth, the oldest ids are pruned together.
 */
export async function markSeen(store: Store, key: string, opts: { keep?: number; now?: Date } = {}): Promise<boolean> {
  const keep = opts.keep ?? SEEN_UPDATES_KEPT;
  return store.write(TelegramUpdates, async (t) => {
    if (await t.get(key)) return false;
    await t.insert({ id: key, receivedAt: (opts.now ?? new Date()).toISOString() });
    const count = await t.count();
    if (count > keep + Math.ceil(keep / 10)) {
      for (const old of await t.findMany({}, { order: 'asc', limit: count - keep })) await t.remove(old.id);
    }
    return true;
  });
}

export class SeenUpdates {
  constructor(private readonly store: Store) {}

  /** True the first time `key` is seen, false for a redelivery. */
  markSeen(key: string): Promise<boolean> {
    return markSeen(this.store, key);
  }
}
