/**
 * The EIP-712 digest of an EIP-3009 TransferWithAuthorization, computed the short way for the
 * signatures the service makes itself (custodial.ts). viem's `signTypedData` re-encodes and
 * re-hashes the domain and the type string on every call (about a third of a signature's CPU
 * in the agent turn's profile, docs/performance.md); here the domain separator is hashed once
 * per domain and the struct is one fixed ABI encoding. The digest is the same bytes as viem's
 * `hashTypedData` (test/chain/transfer-digest.unit.test.ts), so the signature is too.
 */
import { hashDomain, type Hex } from 'viem';
import { EIP712_DOMAIN_TYPE, type Eip712Domain, type TransferAuthorization } from './authorization.js';
import { keccak256 } from './keccak.js';

const TYPEHASH = keccak256(
  new TextEncoder().encode('TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)'),
);

const DOMAIN_TYPES = { EIP712Domain: EIP712_DOMAIN_TYPE };

/**
 * Domain separators by every field of the domain (a process signs for one or two tokens; the
 * bound only guards against a caller that makes domains up). A separator is a pure function
 * of its key, so an entry can never be stale.
 */
const separators = new Map<string, Hex>();
const SEPARATORS_LIMIT = 64;

export function domainSeparator(domain: Eip712Domain): Hex {
  const key = `${domain.name}\u0000${domain.version}\u0000${domain.chainId}\u0000${domain.verifyingContract.toLowerCase()}`;
  let hit = separators.get(key);
  if (!hit) {
    hit = hashDomain({ domain: { ...domain, chainId: BigInt(domain.chainId), verifyingContract: domain.verifyingContract.toLowerCase() as Hex }, types: DOMAIN_TYPES });
    if (separators.size >= SEPARATORS_LIMIT) separators.delete(separators.keys().next().value!);
    separators.set(key, hit);
  }
  return hit;
}

/** keccak256(0x1901 ‖ domainSeparator ‖ hashStruct(auth)): what the token's ecrecover checks. */
export function transferAuthorizationDigest(domain: Eip712Domain, auth: TransferAuthorization): Hex {
  // abi.encode(TYPEHASH, from, to, value, validAfter, validBefore, nonce): seven words, written
  // directly (viem's generic encodeAbiParameters and concat were a third of the digest's CPU);
  // each field is checked as viem checks it, so a bad one throws here too.
  const words = Buffer.alloc(7 * 32);
  words.write(TYPEHASH.slice(2), 0, 'hex');
  words.write(addressWord(auth.from), 32, 'hex');
  words.write(addressWord(auth.to), 64, 'hex');
  words.write(uint256Word(auth.value), 96, 'hex');
  words.write(uint256Word(auth.validAfter), 128, 'hex');
  words.write(uint256Word(auth.validBefore), 160, 'hex');
  words.write(bytes32Word(auth.nonce), 192, 'hex');
  const struct = keccak256(words);
  const outer = Buffer.alloc(66);
  outer[0] = 0x19;
  outer[1] = 0x01;
  outer.write(domainSeparator(domain).slice(2), 2, 'hex');
  outer.write(struct.slice(2), 34, 'hex');
  return keccak256(outer);
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const BYTES32 = /^0x[0-9a-fA-F]{64}$/;
const MAX_UINT256 = (1n << 256n) - 1n;

/** The 20 bytes left-padded to a word, lower case: the same bytes with or without a checksum (a checksum is not signed). */
function addressWord(a: string): string {
  if (!ADDRESS.test(a)) throw new Error(`transfer digest: not an address: ${a}`);
  return a.slice(2).toLowerCase().padStart(64, '0');
}

function uint256Word(v: bigint): string {
  if (v < 0n || v > MAX_UINT256) throw new Error(`transfer digest: ${v} is not a uint256`);
  return v.toString(16).padStart(64, '0');
}

function bytes32Word(h: string): string {
  if (!BYTES32.test(h)) throw new Error(`transfer digest: not 32 bytes: ${h}`);
  return h.slice(2);
}
