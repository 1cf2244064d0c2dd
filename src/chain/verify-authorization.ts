/**
 * Verification of a TransferWithAuthorization, following coinbase/x402's facilitator: recover
 * the signer (ERC-1271 for contract wallets), check the validity window, the authorization
 * state and the balance, then simulate the call. A passing verification keeps its simulation
 * briefly, so a send right after it (`{verified: true}`) need not simulate again.
 */
import { encodeFunctionData, parseSignature as viemParseSignature, prepareEncodeFunctionData, recoverTypedDataAddress, size, toFunctionSelector, type Address, type Hex, type PrivateKeyAccount } from 'viem';
import { fail, type Result } from '../lib/results.js';
import type { Logger } from '../lib/logger.js';
import { stablecoinAbi } from './artifacts/stablecoin.js';
import { buildTransferTypedData, type Eip712Domain, type TransferAuthorization } from './authorization.js';
import { isRevert, reasonFromRevert, revertReason } from './node-errors.js';
import { authorizationState, balanceOf, chainTimePast, estimateCallGas, wallSeconds, type LatestBlockCache, type NodeClient } from './node-reads.js';
import { VerifyReason } from './chain-results.js';

// x402's facilitator rejects authorizations expiring within 6 s: too late to get mined.
const EXPIRY_MARGIN_SECONDS = 6n;
// A verification's simulation stands in for the send's own for this long (same call, same state but a block or two).
const SIMULATION_FRESH_MS = 2_000;
const SIMULATION_CACHE_LIMIT = 10_000;

// secp256k1n / 2: signatures with a larger s are malleable and USDC rejects them.
const MAX_S = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;

export interface VerifyContext {
  log: Logger;
  embedded: boolean;
  publicClient: NodeClient;
  /** The account the simulation runs as: the relayer, which will send the call. */
  relayer: PrivateKeyAccount;
  tokenAddress: Address;
  eip712Domain: Eip712Domain;
  latest: LatestBlockCache;
}

export interface Simulation {
  gas: bigint;
  contractSigner: boolean;
  /** The call data that was simulated (the send uses the very same bytes). */
  data: Hex;
  at: number;
}

export class TransferVerifier {
  /** Successful verifications' simulations, by authorization and signature (see takeSimulation). */
  private readonly simulations = new Map<string, Simulation>();

  constructor(private readonly ctx: VerifyContext) {}

  async verify(
    auth: TransferAuthorization,
    signature: Hex,
  ): Promise<Result<{ signer: Address; contractSigner: boolean }, VerifyReason>> {
    const { ctx } = this;
    try {
      // A plain 65-byte signature is tried as an EOA's first, in the (v, r, s) overload: a
      // simulation that passes has run the token's own ecrecover against `from`, so the signer
      // is proven without recovering it here (the local recovery was a quarter of the service's
      // CPU per settlement; docs/performance.md, issue 23 point 2). Only a signature whose
      // simulation fails is examined locally: a contract wallet's (ERC-1271), or the reason.
      const shape = signatureShape(signature);
      if (shape === 'high-s') return fail(VerifyReason.invalidSignature, 'signature is malleable (high s value)', 'signature');
      const eoaFirst = shape === 'eoa';
      let contractSigner = false;
      if (!eoaFirst) {
        const sig = await this.checkSignature(auth, signature);
        if (!sig.ok) return sig;
        contractSigner = sig.contractSigner;
      }
      let data = encodeTransfer(auth, signature, contractSigner);

      // The reads and the simulation in one round trip. The simulation is the gas estimate
      // (it executes the call against the latest state); a send right after reuses it.
      // `prepare: false`: a plain eth_estimateGas; viem would otherwise fill the whole
      // transaction for a local account (eth_fillTransaction: nonce and fees too), unused here.
      const simulate = () =>
        estimateCallGas(ctx.publicClient, ctx.relayer, ctx.tokenAddress, data).then(
          (gas) => ({ gas }) as const,
          (e: unknown) => {
            if (!isRevert(e)) throw e;
            return { revert: revertReason(e) } as const;
          },
        );
      // The nonce's state and the payer's balance are read only when the simulation fails: a
      // simulation that passes ran the token's own checks of both against the same latest state
      // (two eth_calls fewer per settle, issue 23 point 2); a failing one is named from them.
      const [latest, firstSimulation] = await Promise.all([ctx.latest.get(), simulate()]);
      const reads = () =>
        Promise.all([authorizationState(ctx.publicClient, ctx.tokenAddress, auth.from, auth.nonce), balanceOf(ctx.publicClient, ctx.tokenAddress, auth.from)]);
      let simulated = firstSimulation;
      if (eoaFirst && 'revert' in simulated) {
        // The signature is checked before anything else, as always: an invalid one is the answer.
        const sig = await this.checkSignature(auth, signature);
        if (!sig.ok) return sig;
        if (sig.contractSigner) {
          contractSigner = true;
          data = encodeTransfer(auth, signature, true);
          simulated = await simulate();
        }
      }
      // Wall clock, but never behind the chain (anvil's clock can run ahead of ours).
      const wall = wallSeconds();
      const now = latest.timestamp > wall ? latest.timestamp : wall;
      if (auth.validAfter > now) {
        return fail(VerifyReason.notYetValid, `authorization is valid only after ${auth.validAfter}`, 'validAfter');
      }
      if (auth.validBefore < now + EXPIRY_MARGIN_SECONDS) {
        return fail(VerifyReason.expired, 'authorization has expired', 'validBefore');
      }
      if ('revert' in simulated) {
        const [used, balance] = await reads();
        if (used) return fail(VerifyReason.authorizationUsed, 'this authorization was already used or canceled', 'nonce');
        if (balance < auth.value) {
          return fail(VerifyReason.insufficientBalance, 'the payer does not hold enough of the token', 'value');
        }
      }
      let outcome: { gas: bigint } | { revert: string } = simulated;
      // Valid by the clock but not yet in the latest block (a quiet chain, a lagging network):
      // the simulation failed although the next block accepts it. Let the chain catch up, then
      // simulate again.
      if ('revert' in outcome && auth.validAfter >= latest.timestamp) {
        if (!(await chainTimePast(ctx.publicClient, ctx.embedded, auth.validAfter))) {
          return fail(VerifyReason.notYetValid, `authorization is valid only after ${auth.validAfter}`, 'validAfter');
        }
        outcome = await simulate();
      }
      if ('revert' in outcome) return fail(reasonFromRevert(outcome.revert), `simulation failed: ${outcome.revert}`);
      this.rememberSimulation(auth, signature, { gas: outcome.gas, contractSigner, data, at: Date.now() });
      return { ok: true, signer: auth.from, contractSigner };
    } catch (e) {
      ctx.log.warn({ err: revertReason(e) }, 'could not verify an authorization: chain unavailable');
      return fail(VerifyReason.chainUnavailable, `the chain could not be reached: ${revertReason(e)}`);
    }
  }

  /** A verification's simulation, for the send that follows it at once (`{verified: true}`). */
  private rememberSimulation(auth: TransferAuthorization, signature: Hex, sim: Simulation): void {
    if (this.simulations.size >= SIMULATION_CACHE_LIMIT) {
      const oldest = this.simulations.keys().next().value;
      if (oldest !== undefined) this.simulations.delete(oldest);
    }
    this.simulations.set(simulationKey(auth, signature), sim);
  }

  /** The simulation of a verification that passed at most SIMULATION_FRESH_MS ago; used once. */
  takeSimulation(auth: TransferAuthorization, signature: Hex): Simulation | undefined {
    const key = simulationKey(auth, signature);
    const sim = this.simulations.get(key);
    this.simulations.delete(key);
    return sim && Date.now() - sim.at <= SIMULATION_FRESH_MS ? sim : undefined;
  }

  /** True when a 65-byte signature recovers locally to `auth.from` (an EOA: the (v, r, s) overload). */
  async isEoaSignature(auth: TransferAuthorization, signature: Hex): Promise<boolean> {
    if (size(signature) !== 65) return false;
    try {
      const recovered = await recoverTypedDataAddress({ ...buildTransferTypedData(this.ctx.eip712Domain, auth).typedData, signature });
      return recovered.toLowerCase() === auth.from.toLowerCase();
    } catch {
      return false;
    }
  }

  /** Local ecrecover for EOAs; ERC-1271 through the RPC when `from` is a contract. */
  private async checkSignature(
    auth: TransferAuthorization,
    signature: Hex,
  ): Promise<Result<{ contractSigner: boolean }, typeof VerifyReason.invalidSignature>> {
    const { typedData } = buildTransferTypedData(this.ctx.eip712Domain, auth);
    if (size(signature) === 65) {
      try {
        const { s } = parseSignature(signature);
        if (BigInt(s) > MAX_S) {
          return fail(VerifyReason.invalidSignature, 'signature is malleable (high s value)', 'signature');
        }
        const recovered = await recoverTypedDataAddress({ ...typedData, signature });
        if (recovered.toLowerCase() === auth.from.toLowerCase()) return { ok: true, contractSigner: false };
      } catch {
        // malformed: fall through to the contract-wallet check, then reject
      }
    }
    const code = await this.ctx.publicClient.getCode({ address: auth.from });
    if (code && code !== '0x') {
      const valid = await this.ctx.publicClient
        .verifyTypedData({ address: auth.from, ...typedData, signature })
        .catch(() => false);
      if (valid) return { ok: true, contractSigner: true };
    }
    return fail(VerifyReason.invalidSignature, 'signature does not match the payer address', 'signature');
  }
}

/**
 * viem's `parseSignature`, remembering the last signature: a settle parses its signature for its
 * shape and again for the call data (noble's point-range checks and hex conversions each time).
 * Parsing is pure, so the answer is the same; a signature that fails to parse throws each time.
 */
let lastParsed: { signature: Hex; parsed: ReturnType<typeof viemParseSignature> } | undefined;
function parseSignature(signature: Hex): ReturnType<typeof viemParseSignature> {
  if (lastParsed?.signature === signature) return lastParsed.parsed;
  const parsed = parseCompactSignature(signature);
  lastParsed = { signature, parsed };
  return parsed;
}

/** secp256k1's group order n: r and s must lie in [1, n - 1]. */
const CURVE_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const HEX_65_BYTES = /^0x[0-9a-fA-F]{130}$/;

/**
 * viem's `parseSignature` for the common 65-byte hex signature, read straight from the hex:
 * viem goes through noble's `Signature.fromCompact` (hex to bytes, bytes to numbers, a range
 * check) and back to hex, a few percent of a settle's CPU (docs/performance.md, ninth round).
 * Same answer (lower-case 32-byte r and s, v only for 27/28); anything it would refuse or that
 * is out of this shape goes to viem itself, which throws as before.
 * test/chain/parse-signature.unit.test.ts compares the two.
 */
export function parseCompactSignature(signature: Hex): ReturnType<typeof viemParseSignature> {
  if (!HEX_65_BYTES.test(signature)) return viemParseSignature(signature);
  const r = signature.slice(2, 66).toLowerCase() as Hex;
  const s = signature.slice(66, 130).toLowerCase() as Hex;
  const rn = BigInt(`0x${r}`);
  const sn = BigInt(`0x${s}`);
  const yParityOrV = parseInt(signature.slice(130), 16);
  if (rn === 0n || rn >= CURVE_N || sn === 0n || sn >= CURVE_N) return viemParseSignature(signature);
  if (yParityOrV === 0 || yParityOrV === 1) return { r: `0x${r}`, s: `0x${s}`, yParity: yParityOrV };
  if (yParityOrV === 27 || yParityOrV === 28) return { r: `0x${r}`, s: `0x${s}`, v: BigInt(yParityOrV), yParity: yParityOrV - 27 };
  return viemParseSignature(signature);
}

/** 'eoa': 65 bytes that parse as (r, s, v) with a low s; 'high-s': malleable; 'other': anything else (ERC-1271, malformed). */
function signatureShape(signature: Hex): 'eoa' | 'high-s' | 'other' {
  if (size(signature) !== 65) return 'other';
  try {
    return BigInt(parseSignature(signature).s) > MAX_S ? 'high-s' : 'eoa';
  } catch {
    return 'other';
  }
}

/** The (v, r, s) overload for EOA signatures (every USDC version has it), bytes otherwise. */
function useVrs(signature: Hex, contractSigner: boolean): { v: number; r: Hex; s: Hex } | undefined {
  if (contractSigner || size(signature) !== 65) return undefined;
  const { r, s, v, yParity } = parseSignature(signature);
  return { v: v !== undefined && v >= 27n ? Number(v) : yParity + 27, r, s };
}

/** The transferWithAuthorization call data for `auth`, in the overload the signature takes. */
export function encodeTransfer(auth: TransferAuthorization, signature: Hex, contractSigner: boolean): Hex {
  const head = [auth.from, auth.to, auth.value, auth.validAfter, auth.validBefore, auth.nonce] as const;
  const vrs = useVrs(signature, contractSigner);
  if (!vrs) return encodeFunctionData({ ...BYTES_OVERLOAD, args: [...head, signature] });
  // The (v, r, s) overload is nine static words: written directly rather than through the
  // generic ABI encoder, which cost about a third of a millisecond per settlement (twice:
  // verify and send). Anything out of shape goes through viem's encoder, which refuses it.
  // test/chain/encode-transfer.unit.test.ts checks both against each other.
  const words = [auth.value, auth.validAfter, auth.validBefore];
  if (words.every((n) => n >= 0n && n < UINT256_LIMIT) && [auth.nonce, vrs.r, vrs.s].every((h) => BYTES32.test(h)) && ADDRESS.test(auth.from) && ADDRESS.test(auth.to)) {
    return `${VRS_SELECTOR}${addressWord(auth.from)}${addressWord(auth.to)}${words.map(word).join('')}${auth.nonce.slice(2)}${word(BigInt(vrs.v))}${vrs.r.slice(2)}${vrs.s.slice(2)}` as Hex;
  }
  return encodeFunctionData({ ...VRS_OVERLOAD, args: [...head, vrs.v, vrs.r, vrs.s] });
}

/**
 * Each `transferWithAuthorization` overload looked up in the ABI and its selector hashed once, at
 * load, as submit-batch.ts does for `transferWithAuthorizations`: viem's `encodeFunctionData` by
 * name does both on every call, and for an overloaded name also matches the arguments against
 * each overload. The bytes overload is every contract signer's (ERC-1271) path, verify and send.
 */
function overload(inputs: 7 | 9) {
  const [item, ...more] = stablecoinAbi.filter((e) => e.type === 'function' && e.name === 'transferWithAuthorization' && e.inputs.length === inputs);
  if (!item || more.length) throw new Error(`stablecoin ABI: expected one transferWithAuthorization with ${inputs} inputs`);
  return prepareEncodeFunctionData({ abi: [item], functionName: 'transferWithAuthorization' });
}
const BYTES_OVERLOAD = overload(7);
const VRS_OVERLOAD = overload(9);

const VRS_SELECTOR = toFunctionSelector('transferWithAuthorization(address,address,uint256,uint256,uint256,bytes32,uint8,bytes32,bytes32)');
const UINT256_LIMIT = 2n ** 256n;
const BYTES32 = /^0x[0-9a-fA-F]{64}$/;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const word = (n: bigint) => n.toString(16).padStart(64, '0');
const addressWord = (a: Address) => a.slice(2).toLowerCase().padStart(64, '0');

function simulationKey(auth: TransferAuthorization, signature: Hex): string {
  return [auth.from, auth.to, auth.value, auth.validAfter, auth.validBefore, auth.nonce, signature].join(':').toLowerCase();
}
