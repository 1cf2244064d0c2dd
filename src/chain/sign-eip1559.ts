/**
 * The relayer's EIP-1559 transaction, signed with its hash, serialised once.
 *
 * viem's `signTransaction` serialises the transaction twice (unsigned for the signing hash, then
 * signed), each time turning every field from hex to bytes and the whole back to hex, and the
 * sender then turned the signed hex back to bytes for the transaction hash. A batch relay's call
 * data is tens of kilobytes, so those conversions (viem's JavaScript hex loops) and the third
 * pass cost about as much as the two hashes themselves (docs/performance.md, issue 23 ninth
 * round). Here the fields are RLP-encoded once as bytes (hex to bytes through Buffer), the signed
 * list reuses the unsigned one's items, and both hashes are taken over bytes.
 *
 * Same bytes as viem for every transaction this takes (test/chain/sign-eip1559.unit.test.ts
 * compares them); anything outside the shape checked here goes to viem's own signer, which
 * validates and throws as before.
 */
import type { Address, Hex, PrivateKeyAccount } from 'viem';
import { keccak256 } from './keccak.js';

export interface Eip1559Fields {
  chainId: number;
  nonce: number;
  to: Address;
  data?: Hex;
  value: bigint;
  gas: bigint;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

const MAX_UINT256 = 2n ** 256n - 1n;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const HEX_BYTES = /^0x(?:[0-9a-fA-F]{2})*$/;

/** The signed transaction (hex, as `eth_sendRawTransaction` takes it) and its hash. */
export async function signEip1559(account: PrivateKeyAccount, tx: Eip1559Fields): Promise<{ serialized: Hex; hash: Hex }> {
  if (!plainShape(tx)) {
    const serialized = await account.signTransaction({ type: 'eip1559', ...tx });
    return { serialized, hash: keccak256(serialized) };
  }
  const items = [
    rlpBytes(uintBytes(BigInt(tx.chainId))),
    rlpBytes(uintBytes(BigInt(tx.nonce))),
    rlpBytes(uintBytes(tx.maxPriorityFeePerGas)),
    rlpBytes(uintBytes(tx.maxFeePerGas)),
    rlpBytes(uintBytes(tx.gas)),
    rlpBytes(Buffer.from(tx.to.slice(2), 'hex')),
    rlpBytes(uintBytes(tx.value)),
    rlpBytes(Buffer.from((tx.data ?? '0x').slice(2), 'hex')),
    EMPTY_LIST, // accessList
  ];
  const unsigned = typed(items);
  const signature = await account.sign({ hash: keccak256(unsigned) });
  // r (32 bytes), s (32 bytes), then 1b / 1c for yParity 0 / 1 (viem's serializeSignature).
  const sig = Buffer.from(signature.slice(2), 'hex');
  const yParity = sig[64] === 0x1c ? 1 : 0;
  const signed = typed([...items, rlpBytes(yParity ? ONE : EMPTY), rlpBytes(trimZeros(sig.subarray(0, 32))), rlpBytes(trimZeros(sig.subarray(32, 64)))]);
  return { serialized: `0x${signed.toString('hex')}`, hash: keccak256(signed) };
}

/** Fields viem would accept and serialise as written: anything else takes viem's path. */
function plainShape(tx: Eip1559Fields): boolean {
  const u256 = (n: bigint) => n >= 0n && n <= MAX_UINT256;
  return (
    Number.isSafeInteger(tx.chainId) &&
    tx.chainId > 0 &&
    Number.isSafeInteger(tx.nonce) &&
    tx.nonce >= 0 &&
    ADDRESS.test(tx.to) &&
    (tx.data === undefined || HEX_BYTES.test(tx.data)) &&
    u256(tx.value) &&
    u256(tx.gas) &&
    u256(tx.maxFeePerGas) &&
    u256(tx.maxPriorityFeePerGas) &&
    tx.maxPriorityFeePerGas <= tx.maxFeePerGas
  );
}

const EMPTY = Buffer.alloc(0);
const ONE = Buffer.from([1]);
const EMPTY_LIST = Buffer.from([0xc0]);

/** A non-negative integer as minimal big-endian bytes (zero: no bytes), as RLP writes it. */
function uintBytes(n: bigint): Buffer {
  if (n === 0n) return EMPTY;
  const hex = n.toString(16);
  return Buffer.from(hex.length % 2 ? `0${hex}` : hex, 'hex');
}

function trimZeros(b: Buffer): Buffer {
  let i = 0;
  while (i < b.length && b[i] === 0) i++;
  return b.subarray(i);
}

/** RLP of a byte string. */
function rlpBytes(b: Buffer): Buffer {
  if (b.length === 1 && b[0]! < 0x80) return b;
  return Buffer.concat([lengthPrefix(b.length, 0x80), b]);
}

/** 0x02 followed by the RLP list of already-encoded items (an EIP-2718 type-2 envelope). */
function typed(items: readonly Buffer[]): Buffer {
  const length = items.reduce((n, i) => n + i.length, 0);
  return Buffer.concat([Buffer.from([0x02]), lengthPrefix(length, 0xc0), ...items]);
}

function lengthPrefix(length: number, offset: 0x80 | 0xc0): Buffer {
  if (length <= 55) return Buffer.from([offset + length]);
  const hex = length.toString(16);
  const len = Buffer.from(hex.length % 2 ? `0${hex}` : hex, 'hex');
  return Buffer.concat([Buffer.from([offset + 55 + len.length]), len]);
}
