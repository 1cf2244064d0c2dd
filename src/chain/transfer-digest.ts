/**
 * The EIP-712 digest of an EIP-3009 TransferWithAuthorization, computed the short way for the
 * signatures the service makes itself (custodial.ts). viem's `signTypedData` re-encodes and
 * re-hashes the domain and the type string on every call (about a third of a signature's CPU
 * in the agent turn's profile, docs/performance.md); here the domain separator is hashed once
 * per domain and the struct is one fixed ABI encoding. The digest is the same bytes as viem's
 * `hashTypedData` (test/chain/transfer-digest.unit.test.ts), so the signature is too.
 */
import { concat, encodeAbiParameters, hashDomain, keccak256, type Hex } from 'viem';
import { EIP712_DOMAIN_TYPE, type Eip712Domain, type TransferAuthorization } from './authorization.js';

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
  const struct = keccak256(
    encodeAbiParameters(
      [{ type: 'bytes32' }, { type: 'address' }, { type: 'address' }, { type: 'uint256' }, { type: 'uint256' }, { type: 'uint256' }, { type: 'bytes32' }],
      // Lower case: the same 20 bytes, without a checksum to verify (a checksum is not signed).
      [TYPEHASH, auth.from.toLowerCase() as Hex, auth.to.toLowerCase() as Hex, auth.value, auth.validAfter, auth.validBefore, auth.nonce],
    ),
  );
  return keccak256(concat(['0x1901', domainSeparator(domain), struct]));
}
