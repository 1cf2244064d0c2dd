/**
 * EIP-3009 TransferWithAuthorization: input schema, EIP-712 typed data (viem and
 * eth_signTypedData_v4 JSON forms) and deterministic nonces. Pure functions, no I/O.
 */
import { getAddress, type Address, type Hex } from 'viem';
import { keccak256 } from './keccak.js';
import { z } from 'zod';

const MAX_UINT256 = 2n ** 256n - 1n;

export const EvmAddress = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x address')
  .transform((a) => getAddress(a.toLowerCase()) as Address);

/** A uint256 as a bigint, a decimal string (the JSON form) or a safe integer. */
export const Uint256 = z
  .union([
    z.bigint(),
    z.string().regex(/^\d{1,78}$/, 'must be a non-negative integer in decimal'),
    z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER),
  ])
  .transform((v, ctx) => {
    const n = BigInt(v);
    if (n < 0n || n > MAX_UINT256) {
      ctx.addIssue({ code: 'custom', message: 'must fit in uint256' });
      return z.NEVER;
    }
    return n;
  });

export const Bytes32 = z
  .string()
  .regex(/^0x[0-9a-fA-F]{64}$/, 'must be 0x followed by 64 hex digits')
  .transform((h) => h.toLowerCase() as Hex);

/** A signature: 65 bytes (r, s, v) from an EOA, or longer bytes for an ERC-1271 wallet. */
export const SignatureHex = z
  .string()
  .regex(/^0x([0-9a-fA-F]{2}){64,}$/, 'must be a 0x hex signature')
  .transform((h) => h.toLowerCase() as Hex);

export const TransferAuthorization = z.object({
  from: EvmAddress,
  to: EvmAddress,
  value: Uint256,
  validAfter: Uint256,
  validBefore: Uint256,
  nonce: Bytes32,
});
/** Parsed form: checksummed addresses, bigints, lower-case nonce. */
export type TransferAuthorization = z.infer<typeof TransferAuthorization>;
/** What a browser sends (uint256 fields as decimal strings). */
export type TransferAuthorizationInput = z.input<typeof TransferAuthorization>;

export interface Eip712Domain {
  name: string;
  version: string;
  chainId: number;
  verifyingContract: Address;
}

export const TRANSFER_WITH_AUTHORIZATION_TYPES = {
  TransferWithAuthorization: [
    { name: 'from', type: 'address' },
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const;

export const EIP712_DOMAIN_TYPE = [
  { name: 'name', type: 'string' },
  { name: 'version', type: 'string' },
  { name: 'chainId', type: 'uint256' },
  { name: 'verifyingContract', type: 'address' },
] as const;

/** Typed data as viem's signTypedData / verifyTypedData take it (bigints). */
export interface TransferTypedData {
  domain: Eip712Domain;
  types: typeof TRANSFER_WITH_AUTHORIZATION_TYPES;
  primaryType: 'TransferWithAuthorization';
  message: TransferAuthorization;
}

/**
 * JSON-safe typed data for `eth_signTypedData_v4` (uint256 values as decimal strings, the
 * EIP712Domain type spelled out as wallets require). Send `JSON.stringify(json)` as params[1].
 */
export interface TransferTypedDataJson {
  domain: Eip712Domain;
  types: {
    EIP712Domain: { name: string; type: string }[];
    TransferWithAuthorization: { name: string; type: string }[];
  };
  primaryType: 'TransferWithAuthorization';
  message: { from: Address; to: Address; value: string; validAfter: string; validBefore: string; nonce: Hex };
}

export function authorizationToJson(auth: TransferAuthorization): TransferTypedDataJson['message'] {
  return {
    from: auth.from,
    to: auth.to,
    value: auth.value.toString(),
    validAfter: auth.validAfter.toString(),
    validBefore: auth.validBefore.toString(),
    nonce: auth.nonce,
  };
}

export function buildTransferTypedData(
  domain: Eip712Domain,
  auth: TransferAuthorization,
): { typedData: TransferTypedData; json: TransferTypedDataJson } {
  const d = { ...domain, verifyingContract: checksum(domain.verifyingContract) };
  // viem refuses mixed-case addresses with a wrong checksum; normalise rather than fail.
  const message = { ...auth, from: checksum(auth.from), to: checksum(auth.to) };
  return {
    typedData: { domain: d, types: TRANSFER_WITH_AUTHORIZATION_TYPES, primaryType: 'TransferWithAuthorization', message },
    json: {
      domain: d,
      types: {
        EIP712Domain: EIP712_DOMAIN_TYPE.map((f) => ({ ...f })),
        TransferWithAuthorization: TRANSFER_WITH_AUTHORIZATION_TYPES.TransferWithAuthorization.map((f) => ({ ...f })),
      },
      primaryType: 'TransferWithAuthorization',
      message: authorizationToJson(message),
    },
  };
}

function checksum(a: Address): Address {
  return getAddress(a.toLowerCase());
}

/**
 * Deterministic EIP-3009 nonce for a business object, e.g. nonceFor('payment', 'pay_123'):
 * the contract accepts each (authorizer, nonce) once, so the object can settle at most once.
 * ABI-encoding the parts keeps ('a:b','c') and ('a','b:c') distinct.
 */
export function nonceFor(kind: string, id: string): Hex {
  // One settle asks for its payment's nonce several times (issue, compare, resolve): the ABI
  // encoding and keccak were 3.5% of the service's CPU per settlement (docs/performance.md).
  const key = `${kind}\u0000${id}`;
  const hit = nonceCache.get(key);
  if (hit) return hit;
  // abi.encode(NONCE_TAG, kind, id), written directly: viem's generic encodeAbiParameters was
  // 2.3 % of an agent turn's CPU (two fresh nonces per transfer, principal and fee).
  const nonce = keccak256(encodeThreeStrings(NONCE_TAG, utf8.encode(kind), utf8.encode(id)));
  if (nonceCache.size >= NONCE_CACHE_LIMIT) nonceCache.delete(nonceCache.keys().next().value!);
  nonceCache.set(key, nonce);
  return nonce;
}

const NONCE_CACHE_LIMIT = 10_000;
const utf8 = new TextEncoder();
const NONCE_TAG = utf8.encode('stablepay.eip3009.nonce.v1');

/** `abi.encode(string a, string b, string c)` of three UTF-8 strings (test/chain/nonces.unit.test.ts: = viem's). */
export function encodeThreeStrings(a: Uint8Array, b: Uint8Array, c: Uint8Array): Uint8Array {
  const padded = (n: number) => Math.ceil(n / 32) * 32;
  const tails = [a, b, c].map((x) => 32 + padded(x.length));
  const out = new Uint8Array(96 + tails[0]! + tails[1]! + tails[2]!);
  const view = new DataView(out.buffer);
  let at = 96;
  [a, b, c].forEach((x, i) => {
    // Each head word is its tail's offset, each tail a length word then the bytes, zero-padded.
    view.setUint32(i * 32 + 28, at);
    view.setUint32(at + 28, x.length);
    out.set(x, at + 32);
    at += tails[i]!;
  });
  return out;
}
/** nonceFor's recent answers (a pure function of its arguments), oldest first. */
const nonceCache = new Map<string, Hex>();
