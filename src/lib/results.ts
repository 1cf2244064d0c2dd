/**
 * Domain functions return results with named reason constants instead of throwing
 * (x402 style); the HTTP layer maps reasons to status codes.
 */
export type Ok<T> = { ok: true } & T;
export type Fail<R extends string = string> = { ok: false; reason: R; message: string; param?: string };
export type Result<T, R extends string = string> = Ok<T> | Fail<R>;

export function fail<R extends string>(reason: R, message: string, param?: string): Fail<R> {
  return param === undefined ? { ok: false, reason, message } : { ok: false, reason, message, param };
}
