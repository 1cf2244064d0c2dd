export * from './types.js';
export { LowdbStore } from './lowdb-store.js';
export { PgStore } from './pg/pg-store.js';
export { openStore } from './open.js';
export { InstanceLease } from './instance.js';
export { CacheChannel, type CacheChannelOptions, type Notice } from './cache-channel.js';
export { rangeAll, rangePages } from './range.js';
export { insertUnread, putUnread, updateUnread } from './update-later.js';
