/**
 * The settle route's body (`SettleRequest`): the common body (what a browser sends: addresses,
 * decimal strings, hex) is read here without zod's machinery, which was a few percent of each
 * settle's CPU (docs/performance.md, issue 23 sixth round); anything else is read by the schema
 * itself. The fast reader accepts only what the schema accepts and gives the same value, so every
 * body the schema refuses is refused with the schema's own message
 * (test/http/settle-body.unit.test.ts compares the two over many bodies). The field rules are
 * the schema's (`TransferAuthorization`, `SignatureHex` in src/chain/authorization.ts).
 */
import { getAddress, type Hex } from 'viem';
import { SettleRequest } from '../settlement/settlement.js';
import { fromZodError } from './errors.js';

export type SettleBody = { ok: true; data: SettleRequest } | { ok: false; error: string };

/** The zod schema's reading of `body` (a missing body read as `{}`, as the route always did). */
export function settleBodyBySchema(body: unknown): SettleBody {
  const r = SettleRequest.safeParse(body ?? {});
  return r.success ? { ok: true, data: r.data } : { ok: false, error: fromZodError(r.error).message };
}

/** `settleBodyBySchema`, without zod for the common body. */
export function readSettleBody(body: unknown): SettleBody {
  if (isJsonObject(body)) {
    const authorization = authorizationFast(body.authorization);
    const signature = authorization && typeof body.signature === 'string' && SIGNATURE.test(body.signature) ? (body.signature.toLowerCase() as Hex) : undefined;
    if (authorization && signature) return { ok: true, data: { authorization, signature } };
  }
  return settleBodyBySchema(body);
}

const MAX_UINT256 = 2n ** 256n - 1n;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const DECIMAL = /^\d{1,78}$/;
const BYTES32 = /^0x[0-9a-fA-F]{64}$/;
const SIGNATURE = /^0x(?:[0-9a-fA-F]{2}){64,}$/;

/** A decoded JSON object (what `z.object` takes; a plain one only), not an array. */
function isJsonObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;
}

/** A uint256 as decimal text, as `Uint256` reads it; else undefined (numbers go to the schema). */
function uint256Text(v: unknown): bigint | undefined {
  if (typeof v !== 'string' || !DECIMAL.test(v)) return undefined;
  const n = BigInt(v);
  return n <= MAX_UINT256 ? n : undefined;
}

/** `TransferAuthorization`'s value for the common shape; else undefined. */
function authorizationFast(v: unknown): SettleRequest['authorization'] | undefined {
  if (!isJsonObject(v)) return undefined;
  const { from, to, nonce } = v;
  if (typeof from !== 'string' || !ADDRESS.test(from) || typeof to !== 'string' || !ADDRESS.test(to)) return undefined;
  if (typeof nonce !== 'string' || !BYTES32.test(nonce)) return undefined;
  const value = uint256Text(v.value);
  const validAfter = uint256Text(v.validAfter);
  const validBefore = uint256Text(v.validBefore);
  if (value === undefined || validAfter === undefined || validBefore === undefined) return undefined;
  return { from: getAddress(from.toLowerCase()), to: getAddress(to.toLowerCase()), value, validAfter, validBefore, nonce: nonce.toLowerCase() as Hex };
}
