/**
 * Test mode beside live (docs/test-mode.md). Records made with a test key carry
 * `livemode: false`; records made before test mode existed carry none and are live (migration
 * 0015 and its lowdb twin write `livemode: true` into them, so equality filters find them).
 */
export type Moded = { livemode?: boolean };

/** A record without `livemode` is live. */
export const isLive = (row: Moded): boolean => row.livemode !== false;

/** True when the record belongs to the mode the caller sees. */
export const inMode = (row: Moded, livemode: boolean): boolean => isLive(row) === livemode;
