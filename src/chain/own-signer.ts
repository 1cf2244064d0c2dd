/**
 * Accounts for the keys the service holds itself (the custodial wallets, the relayer), signing
 * with libsecp256k1 compiled to WebAssembly (tiny-secp256k1) instead of viem's pure-JavaScript
 * @noble/curves. In the agent turn's CPU profile at 50 in flight, viem's `sign` was the largest
 * single cost (about a sixth of a turn's CPU, two signatures per transfer) and its BigInt
 * arithmetic a large share of the garbage collector's work; libsecp256k1 signs the same digest
 * several times faster and allocates almost nothing (docs/performance.md, ninth round).
 *
 * The signatures are the very bytes viem makes: both sign with RFC 6979 deterministic nonces
 * (no extra entropy: viem's default, and `setSignEntropy` is never called here), both return
 * the low-s form and its recovery bit (test/chain/own-signer.unit.test.ts compares them over
 * random keys and digests, and every kind of signature the accounts make). Only `sign`,
 * `signMessage`, `signTypedData` and `signTransaction` change; the rest is viem's account.
 */
import * as secp from 'tiny-secp256k1';
import { hashMessage, hashTypedData, hexToBytes, serializeTransaction, toHex, type Hex, type Signature } from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { keccak256 } from './keccak.js';

/** The signature viem's `sign({ hash, privateKey })` returns, as an object. */
export function signHash(hash: Hex, privateKey: Uint8Array): Signature {
  const { signature, recoveryId } = secp.signRecoverable(hexToBytes(hash), privateKey);
  // 0-3; 2 and 3 need k·G's x at or above n (odds about 2^-128): the parity of y is the low bit.
  const yParity = recoveryId & 1;
  return { r: toHex(signature.subarray(0, 32)), s: toHex(signature.subarray(32, 64)), v: yParity ? 28n : 27n, yParity };
}

/** r ‖ s ‖ v (27 or 28): viem's `serializeSignature`, as `account.sign` returns it. */
function serialized(sig: Signature): Hex {
  return `${sig.r}${sig.s.slice(2)}${sig.yParity ? '1c' : '1b'}` as Hex;
}

/** An account that signs through libsecp256k1: `privateKeyToAccount`'s, same address, same signatures. */
export type OwnAccount = PrivateKeyAccount & { signer: 'libsecp256k1' };

/** `privateKeyToAccount(privateKey)` with its signatures made by libsecp256k1 (same bytes). */
export function ownAccount(privateKey: Hex): OwnAccount {
  const base = privateKeyToAccount(privateKey);
  const key = hexToBytes(privateKey);
  const signHex = (hash: Hex): Hex => serialized(signHash(hash, key));
  return {
    ...base,
    signer: 'libsecp256k1',
    async sign({ hash }) {
      return signHex(hash);
    },
    async signMessage({ message }) {
      return signHex(hashMessage(message));
    },
    async signTypedData(typedData) {
      return signHex(hashTypedData(typedData as Parameters<typeof hashTypedData>[0]));
    },
    // viem's signTransaction, with this signer: an EIP-4844 payload is signed without its sidecars.
    async signTransaction(transaction, options) {
      const serializer = options?.serializer ?? serializeTransaction;
      const signable = transaction.type === 'eip4844' ? { ...transaction, sidecars: false as const } : transaction;
      const signature = signHash(keccak256(await serializer(signable)), key);
      return (await serializer(transaction, signature)) as never;
    },
  };
}
