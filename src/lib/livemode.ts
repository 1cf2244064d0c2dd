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

/**
 * True when a service serving `mode` takes the record: with a chain per mode (docs/test-mode.md,
 * "Where test mode settles") each mode's services serve only its records; `undefined`: both.
 */
export const servedBy = (row: Moded, mode: boolean | undefined): boolean => mode === undefined || isLive(row) === mode;

/** The fields a record made by a service serving `mode` carries: a test-mode one is marked. */
export const modeMark = (mode: boolean | undefined): { livemode?: false } => (mode === false ? { livemode: false } : {});
