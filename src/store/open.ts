import { LowdbStore } from './lowdb-store.js';
import { PgStore } from './pg/pg-store.js';
import type { Store } from './types.js';

export interface StoreConfig {
  DATA_DIR: string;
  DATABASE_URL?: string;
  DATABASE_POOL_MAX?: number;
  DATABASE_POOL_TIMEOUT?: number;
}

/** DATABASE_URL selects PostgreSQL (migrated at open); without it, lowdb under DATA_DIR as always. */
export function openStore(config: StoreConfig, opts: { onRetry?: (attempt: number, code: string) => void } = {}): Promise<Store> {
  return config.DATABASE_URL
    ? PgStore.open(config.DATABASE_URL, { poolMax: config.DATABASE_POOL_MAX, poolTimeoutMs: config.DATABASE_POOL_TIMEOUT, onRetry: opts.onRetry })
    : LowdbStore.open(config.DATA_DIR);
}
