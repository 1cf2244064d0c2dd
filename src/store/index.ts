export * from './types.js';
export { LowdbStore } from './lowdb-store.js';
