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

/**
 * What a record made for a caller carries: test when the service serves test mode, or when the
 * caller is a test key on a chain both modes share (the embedded chain alone), so its data stays apart.
 */
export const callerMark = (serviceMode: boolean | undefined, caller: boolean | undefined): { livemode?: false } =>
  modeMark(caller === false ? false : serviceMode);

/** What a money module's call carries besides its input: the request and the caller's mode. */
export interface CallMeta {
  requestId?: string;
  /** false: made through an `sk_test_` key (docs/test-mode.md). */
  livemode?: boolean;
}
